package broker

import (
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/kraftlab/kraftlab/cluster/sim"
)

// skewedRates is 16 rate classes whose rates spread like a lognormal with σ = 1 (geometric
// steps), scaled so the mean per partition is mean bytes/s; 1 kB records, a batch per 5 ms at
// most.
func skewedRates(mean float64) *flatRates {
	r := &flatRates{record: 1000}
	sum := 0.0
	for c := 0; c < 16; c++ {
		z := -1.95 + 3.9*float64(c)/15
		r.bytes = append(r.bytes, math.Exp(z))
		sum += math.Exp(z)
	}
	for c := range r.bytes {
		r.bytes[c] *= mean * 16 / sum
		r.reqs = append(r.reqs, min(r.bytes[c]/1000, 200))
	}
	return r
}

// kipSetup is the KIP load test's cluster: 6 brokers, 60,000 partitions, RF 3, broker 1
// preferred for 10,000 of them; 50 MB/s of produce led per broker, 16 skewed rate classes; log
// recovery after the kill fixed at 120 s, as the lab's preset fixes it.
func kipSetup(t testing.TB) *harness {
	p := DefaultParams()
	p.LogRecoveryHardMs = 120_000
	return newHarness(t, setup{brokers: 6, partitions: 60_000, rates: skewedRates(50e6 * 6 / 60_000), params: &p})
}

// kipScenario kills broker 1 at 60 s, starts it again at 360 s, and runs to 60 minutes, with
// the real controller, instant delivery and the default 300 s preferred-election period.
func kipScenario(t testing.TB, h *harness) {
	h.run(60_000)
	require.NoError(t, h.f.Kill(1))
	h.run(360_000)
	require.NoError(t, h.f.Start(1))
	h.run(3_600_000)
}

func kipRun(t testing.TB) *harness {
	h := kipSetup(t)
	kipScenario(t, h)
	return h
}

func TestKipLoadTestOutcome(t *testing.T) {
	if testing.Short() {
		t.Skip("60,000 partitions")
	}
	h := kipRun(t)
	require.Zero(t, h.f.OutOfSync(1), "broker 1 caught up")
	require.Zero(t, h.f.Stats().LostAckedRecords)
	im := h.c.Image()
	led := 0
	for p := range im.Partitions {
		require.Equal(t, 3, im.Partitions[p].IsrLen())
		if im.Partitions[p].Leader == 1 {
			led++
		}
	}
	require.Equal(t, 10_000, led, "broker 1 leads its preferred partitions again")
}

// BenchmarkKipLoadTest measures the KIP run with the real controller: setup-ms is building
// and booting the 60,000-partition cluster, run-ms is the simulated hour (kill, restart,
// catch-up, elections), events the sim events the hour took.
func BenchmarkKipLoadTest(b *testing.B) {
	b.ReportAllocs()
	var events uint64
	var setupNs, runNs int64
	for b.Loop() {
		t0 := time.Now()
		h := kipSetup(b)
		t1 := time.Now()
		kipScenario(b, h)
		setupNs += t1.Sub(t0).Nanoseconds()
		runNs += time.Since(t1).Nanoseconds()
		events = h.s.Processed()
	}
	b.ReportMetric(float64(setupNs)/float64(b.N)/1e6, "setup-ms")
	b.ReportMetric(float64(runNs)/float64(b.N)/1e6, "run-ms")
	b.ReportMetric(float64(events), "events")
}

// BenchmarkCatchUpRejoin is the catch-up hot path: broker 2 of 3 is cut off from the others
// for 60 s, so it falls out of the 20,000 ISRs it follows in and the other two fall out of the
// 10,000 it leads; then all 40,000 followers catch up and rejoin. ns/rejoin covers the
// session events, the ISR expansions and their AlterPartitions through the real controller,
// and the metadata they produce.
func BenchmarkCatchUpRejoin(b *testing.B) {
	b.ReportAllocs()
	var ns int64
	for b.Loop() {
		b.StopTimer()
		h := newHarness(b, setup{brokers: 3, partitions: 30_000, rates: skewedRates(1000)})
		require.NoError(b, h.f.SetLink(1, 2, false))
		require.NoError(b, h.f.SetLink(3, 2, false))
		h.run(60_000)
		before := h.f.Stats().IsrExpands
		b.StartTimer()
		t0 := time.Now()
		require.NoError(b, h.f.SetLink(1, 2, true))
		require.NoError(b, h.f.SetLink(3, 2, true))
		h.runFor(60_000)
		ns += time.Since(t0).Nanoseconds()
		b.StopTimer()
		require.Equal(b, int64(40_000), h.f.Stats().IsrExpands-before)
		require.Zero(b, h.f.OutOfSync(2))
		b.StartTimer()
	}
	b.ReportMetric(float64(ns)/float64(b.N)/40_000, "ns/rejoin")
}

// BenchmarkPartitionPath is the latency sampler's per-request query.
func BenchmarkPartitionPath(b *testing.B) {
	h := newHarness(b, setup{brokers: 6, partitions: 60_000, rates: skewedRates(5000)})
	h.run(1000)
	var path Path
	b.ReportAllocs()
	p := int32(0)
	for b.Loop() {
		h.f.PartitionPath(p, &path)
		p = (p + 7919) % 60_000
	}
}

// roller restarts brokers one at a time, as an operator's rolling restart does: controlled
// shutdown, start, and the next broker once this one runs with every replica in sync.
type roller struct {
	h    *harness
	next int
	done bool
}

const rollCheck int32 = 100

func (r *roller) HandleEvent(ev sim.Event) {
	h := r.h
	if r.next >= len(h.ids) {
		r.done = true
		return
	}
	id := h.ids[r.next]
	switch h.f.State(id) {
	case Running:
		if ev.Arg == 0 { // not yet asked to stop
			require.NoError(h.t, h.f.ControlledShutdown(id))
			_, _ = h.s.After(1000, sim.Event{Target: r, Kind: rollCheck, Arg: 1})
			return
		}
		if h.f.OutOfSync(id) == 0 {
			r.next++
			_, _ = h.s.After(1000, sim.Event{Target: r, Kind: rollCheck, Arg: 0})
			return
		}
	case NotRunning:
		require.NoError(h.t, h.f.Start(id))
	}
	_, _ = h.s.After(1000, sim.Event{Target: r, Kind: rollCheck, Arg: 1})
}

// rollingRun is the large-cluster budget: 100 brokers, 1,000,000 partitions, RF 3, a rolling
// restart of all 100 (clean shutdowns, so each restart loads logs for LogLoadCleanMs).
func rollingRun(t testing.TB, brokers, partitions int) *harness {
	h := newHarness(t, setup{brokers: brokers, partitions: partitions, rates: skewedRates(50e6 * float64(brokers) / float64(partitions))})
	h.run(10_000)
	r := &roller{h: h}
	_, _ = h.s.After(0, sim.Event{Target: r, Kind: rollCheck})
	for !r.done {
		h.runFor(60_000)
	}
	return h
}
