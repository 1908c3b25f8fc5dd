package workload

import (
	"testing"

	"github.com/kraftlab/kraftlab/cluster/sim"
)

// BenchmarkSampledHour is one simulated hour of the default sampling (2,000 requests per 10 s)
// on a steady 6-broker, 60,000-partition cluster: the latency model's share of the KIP run.
func BenchmarkSampledHour(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		s := sim.New(1)
		w, err := New(s, DefaultParams(), 6, 60_000)
		if err != nil {
			b.Fatal(err)
		}
		if err := w.Start(newSteady(6, 60_000)); err != nil {
			b.Fatal(err)
		}
		if _, err := s.RunUntil(3_600_000); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSample is the cost of one sampled request on a steady cluster.
func BenchmarkSample(b *testing.B) {
	s := sim.New(1)
	w, err := New(s, DefaultParams(), 6, 60_000)
	if err != nil {
		b.Fatal(err)
	}
	if err := w.Start(newSteady(6, 60_000)); err != nil {
		b.Fatal(err)
	}
	if _, err := s.RunUntil(1000); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		w.sample()
		if w.cur.n > 1<<30 {
			w.cur.reset()
		}
	}
}
