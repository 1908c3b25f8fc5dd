package control

import (
	"testing"
)

// benchHour runs 3 controllers and n heartbeating brokers for one simulated hour. One op is the
// whole hour, so ns/op is the wall time per simulated hour.
func benchHour(b *testing.B, brokers int) {
	var events uint64
	var records int64
	b.ReportAllocs()
	for b.Loop() {
		h := newHarness(b, 1, 3, brokerIDs(brokers), nil)
		for _, fb := range h.brokers {
			fb.keep = false
		}
		h.startBrokers()
		h.run(3_600_000)
		if err := h.c.Check(); err != nil {
			b.Fatal(err)
		}
		for _, fb := range h.brokers {
			if fb.fenced {
				b.Fatalf("broker %d is fenced at the end of the hour", fb.id)
			}
		}
		events = h.s.Processed()
		records = h.c.Stats().RecordsWritten
	}
	b.ReportMetric(float64(events), "events/op")
	b.ReportMetric(float64(records), "records/op")
}

// BenchmarkHourOf3ControllersAnd6Brokers: one simulated hour of a small cluster.
func BenchmarkHourOf3ControllersAnd6Brokers(b *testing.B) { benchHour(b, 6) }

// BenchmarkHourOf3ControllersAnd100Brokers: one simulated hour with 100 brokers, each an
// observer of the metadata log and heartbeating every 2 s.
func BenchmarkHourOf3ControllersAnd100Brokers(b *testing.B) { benchHour(b, 100) }
