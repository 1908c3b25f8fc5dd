package workload

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kraftlab/kraftlab/cluster/broker"
	"github.com/kraftlab/kraftlab/cluster/sim"
)

func TestLognormalClassesKeepMeanAndSkew(t *testing.T) {
	flat := lognormalClasses(16, 0)
	for _, v := range flat {
		assert.Equal(t, 1.0, v)
	}
	cls := lognormalClasses(16, 1)
	sum, sq := 0.0, 0.0
	for i, v := range cls {
		sum += v
		sq += v * v
		if i > 0 {
			assert.Greater(t, v, cls[i-1], "classes ascend")
		}
	}
	assert.InDelta(t, 1, sum/16, 1e-12, "the mean rate is kept exactly")
	// A lognormal with σ = 1 normalised to mean 1 has variance e^{σ²} − 1 = 1.718; the
	// quantised one keeps most of it (the within-band spread is lost).
	variance := sq/16 - 1
	assert.Greater(t, variance, 1.2)
	assert.Less(t, variance, math.E-1)
	// The top band's conditional mean over the mean: 16 · (1 − Φ(z_{15/16} − 1)) with
	// z_{15/16} = 1.5341: 16 · (1 − Φ(0.5341)) = 4.746.
	assert.InDelta(t, 4.746, cls[15], 0.002)
}

// TestErlangCMatchesModelTable checks the M/M/c waiting-time quantile against
// docs/model.md §6: c = 8, S = 2 ms, p99 (wait + service) ≈ 2.0 / 3.7 / 6.8 / 12.6 / 24 ms.
func TestErlangCMatchesModelTable(t *testing.T) {
	want := map[float64]float64{0.3: 2.0, 0.6: 3.7, 0.8: 6.8, 0.9: 12.6, 0.95: 24}
	for rho, p99 := range want {
		assert.InDelta(t, p99, waitQuantile(8, rho, 2, 0.99)+2, 0.25, "ρ = %g", rho)
	}
	assert.Equal(t, 0.0, erlangC(8, 0))
	assert.Equal(t, 1.0, erlangC(8, 1))
	assert.InDelta(t, 0.5, erlangC(1, 0.5), 1e-12, "M/M/1 waits with probability ρ")
}

func runSteady(t *testing.T, p Params, c *fakeCluster, ms int64) *Workload {
	t.Helper()
	s := sim.New(3)
	w, err := New(s, p, c.n, c.parts)
	require.NoError(t, err)
	require.NoError(t, w.Start(c))
	_, err = s.RunUntil(ms)
	require.NoError(t, err)
	return w
}

func lastWindow(t *testing.T, w *Workload) Window {
	t.Helper()
	ws := w.Windows()
	require.NotEmpty(t, ws)
	return ws[len(ws)-1]
}

// TestSteadyP99InCalibratedRange: docs/model.md §8's steady cluster (ρ_dw = 0.3) gives the KIP-951
// baseline: p50 ≈ 6 ms, p99 12–14 ms.
func TestSteadyP99InCalibratedRange(t *testing.T) {
	w := runSteady(t, DefaultParams(), newSteady(6, 1200), 600_000)
	win := lastWindow(t, w)
	assert.Equal(t, 6*2000, win.SlidingSamples, "2,000 samples per 10 s window, 6 windows")
	assert.Equal(t, 2000, win.Samples)
	assert.InDelta(t, 13, win.SlidingP99, 1, "sliding p99")
	assert.InDelta(t, 6.3, win.SlidingP50, 0.7)
	for _, ws := range w.Windows() {
		assert.InDelta(t, 13, ws.P99, 1.6, "every 10 s window's p99 at %d", ws.EndMs)
		assert.Zero(t, ws.Errors+ws.Timeouts+ws.Retries+ws.Dropped)
	}
	assert.Len(t, w.Windows(), 60)
}

// TestLeaderOnCatchingUpBrokerIsSeveralTimesSlower: every partition led by a broker whose
// disk is 95 % busy (it is catching up) has a p99 several times the steady one (docs/model.md §6 estimate
// 4.3× as a sum of stage p99s).
func TestLeaderOnCatchingUpBrokerIsSeveralTimesSlower(t *testing.T) {
	steady := lastWindow(t, runSteady(t, DefaultParams(), newSteady(6, 1200), 120_000)).SlidingP99
	c := newSteady(6, 1200)
	c.loads[0].DiskWriteBytesPerSec = 0.95 * 500e6
	c.status = func(p int32, out *broker.Path) {
		out.Leader, out.Follower[0], out.Follower[1] = 0, 1, 2
	}
	hot := lastWindow(t, runSteady(t, DefaultParams(), c, 120_000)).SlidingP99
	ratio := hot / steady
	assert.Greater(t, ratio, 3.0, "steady %.1f ms, hot leader %.1f ms", steady, hot)
	assert.Less(t, ratio, 10.0)
}

// TestFollowerHeadOfLineRaisesP99: in-sync followers whose fetch sessions also carry catch-up
// make acks=all wait up to a fetch cycle (40 ms here).
func TestFollowerHeadOfLineRaisesP99(t *testing.T) {
	c := newSteady(6, 1200)
	c.hol = func(f int32) float64 {
		if f == 1 {
			return 40
		}
		return 0
	}
	w := runSteady(t, DefaultParams(), c, 120_000)
	hot := lastWindow(t, w).SlidingP99
	assert.Greater(t, hot, 35.0, "a third of partitions wait on broker 1's 40 ms cycle")
	// acks=1 does not wait for followers at all.
	c.acks = broker.AcksLeader
	w = runSteady(t, DefaultParams(), c, 120_000)
	assert.Less(t, lastWindow(t, w).SlidingP99, 10.0)
}

// TestSamplingFollowsRequestRate: partitions are sampled in proportion to their batch rate.
func TestSamplingFollowsRequestRate(t *testing.T) {
	c := newSteady(6, 4000)
	counts := make([]int, 4000)
	c.status = func(p int32, out *broker.Path) { counts[p]++ }
	w := runSteady(t, DefaultParams(), c, 1_000_000)
	perClass := make([]float64, w.NumClasses())
	members := make([]float64, w.NumClasses())
	total := 0.0
	for p, n := range counts {
		perClass[w.ClassOf(int32(p))] += float64(n)
		members[w.ClassOf(int32(p))]++
		total += float64(n)
	}
	weight := 0.0
	for cl := range perClass {
		weight += members[cl] * w.ClassRequestsPerSec(cl)
	}
	for cl := range perClass {
		want := total * members[cl] * w.ClassRequestsPerSec(cl) / weight
		assert.InDelta(t, want, perClass[cl], 5*math.Sqrt(want)+1, "class %d", cl)
	}
	// Rates: the mean partition carries BytesPerSecPerBroker × brokers / partitions.
	sum := 0.0
	for p := range 4000 {
		sum += w.ClassBytesPerSec(w.ClassOf(int32(p)))
	}
	assert.InDelta(t, 6*50e6, sum, 6*50e6*0.1, "hash-assigned classes keep the total within 10 %")
}

// TestNoLeaderRequestsRetryUntilTheLeaderReturns: partitions of broker 0 have no leader from
// 60 s to 70 s (fencing takes about 9 s after a hard stop). Their requests retry with backoff
// and complete when a leader is back, so the windows around show multi-second latencies.
func TestNoLeaderRequestsRetryUntilTheLeaderReturns(t *testing.T) {
	s := sim.New(5)
	c := newSteady(6, 1200)
	c.status = func(p int32, out *broker.Path) {
		if now := s.Now(); p%6 == 0 && now >= 60_000 && now < 70_000 {
			out.Status = broker.PathNoLeader
		}
	}
	w, err := New(s, DefaultParams(), 6, 1200)
	require.NoError(t, err)
	require.NoError(t, w.Start(c))
	_, err = s.RunUntil(120_000)
	require.NoError(t, err)
	ws := w.Windows()
	outage := ws[6] // 60–70 s: requests wait; few complete in the window
	after := ws[7]  // 70–80 s: the waiting requests complete
	assert.Greater(t, outage.Retries, 100)
	assert.Greater(t, after.MaxMs, 8000.0, "a request sent at 60 s waited for the leader")
	assert.Greater(t, after.P99, 1000.0)
	assert.Zero(t, after.Errors)
	assert.Zero(t, w.Pending())
	assert.Less(t, ws[10].P99, 16.0, "back to steady")
}

// TestUnreachableLeaderTimesOutThenFails: producers cut off from broker 0 for good: each
// attempt times out after request.timeout.ms, and records fail at delivery.timeout.ms.
func TestUnreachableLeaderTimesOutThenFails(t *testing.T) {
	s := sim.New(5)
	c := newSteady(6, 1200)
	c.status = func(p int32, out *broker.Path) {
		if p%6 == 0 && s.Now() >= 10_000 {
			out.Status = broker.PathUnreachable
		}
	}
	p := DefaultParams()
	p.MaxPending = 100
	w, err := New(s, p, 6, 1200)
	require.NoError(t, err)
	require.NoError(t, w.Start(c))
	_, err = s.RunUntil(300_000)
	require.NoError(t, err)
	timeouts, errs, dropped := 0, 0, 0
	for _, win := range w.Windows() {
		timeouts += win.Timeouts
		errs += win.Errors
		dropped += win.Dropped
	}
	// 100 waiting requests at a time; each makes 4 attempts (0, ~30.1, ~60.2, ~90.3 s) and
	// fails at 120 s.
	assert.Greater(t, errs, 100)
	assert.InDelta(t, 4*errs, timeouts, float64(errs)+100)
	assert.Greater(t, dropped, 1000, "MaxPending bounds the waiting requests")
	assert.LessOrEqual(t, w.Pending(), 100)
}

// TestAcksAllWaitsForTheShrink: a stalled ISR member holds the HW until the leader's next
// isr-expiration drops it; requests then complete with that wait in their latency.
func TestAcksAllWaitsForTheShrink(t *testing.T) {
	s := sim.New(5)
	c := newSteady(6, 1200)
	c.status = func(p int32, out *broker.Path) {
		if now := s.Now(); p%6 == 0 && now >= 20_000 && now < 50_000 {
			out.Waiting, out.WaitUntilMs = true, 50_000
		}
	}
	w, err := New(s, DefaultParams(), 6, 1200)
	require.NoError(t, err)
	require.NoError(t, w.Start(c))
	_, err = s.RunUntil(70_000)
	require.NoError(t, err)
	ws := w.Windows()
	assert.InDelta(t, 29_000, ws[4].MaxMs, 1100, "a request sent at ~21 s waits until 50 s")
	assert.Zero(t, ws[4].Timeouts+ws[4].Errors, "30 s of waiting is within request.timeout.ms")
}

// TestSwitchWindowShapesP999: all leaders move at 30 s (KIP-951's micro-benchmark). With
// KIP-951 requests in the 200 ms window wait at most its end: p99.9 of the minute ≈ 0.1–0.2 s
// and p99 does not move. Without it, requests of a 1 s window back off (100 ms doubling,
// stale metadata half the time): p99.9 ≈ 1–3 s.
func TestSwitchWindowShapesP999(t *testing.T) {
	for _, kip951 := range []bool{true, false} {
		c := newSteady(6, 1200)
		c.changed = 30_000
		p := DefaultParams()
		p.Kip951 = kip951
		w := runSteady(t, p, c, 60_000)
		win := lastWindow(t, w)
		if kip951 {
			assert.Greater(t, win.SlidingP999, 60.0)
			assert.Less(t, win.SlidingP999, 215.0)
		} else {
			assert.Greater(t, win.SlidingP999, 700.0)
			assert.Less(t, win.SlidingP999, 3000.0)
		}
		if kip951 {
			assert.Less(t, win.SlidingP99, 16.0)
		}
	}
}

func TestSameSeedSameWindows(t *testing.T) {
	a := runSteady(t, DefaultParams(), newSteady(6, 1200), 100_000)
	b := runSteady(t, DefaultParams(), newSteady(6, 1200), 100_000)
	assert.Equal(t, a.Windows(), b.Windows())
}

func TestParamsValidation(t *testing.T) {
	p := DefaultParams()
	require.NoError(t, p.Validate())
	p.Classes = 0
	assert.EqualError(t, p.Validate(), "workload params: Classes = 0; must be in [1, 64]")
	p = DefaultParams()
	p.WindowMs = 10_500
	assert.EqualError(t, p.Validate(), "workload params: WindowMs = 10500 is not a multiple of StepMs = 1000")
	p = DefaultParams()
	p.AppendServiceMs = 0
	assert.EqualError(t, p.Validate(), "workload params: AppendServiceMs = 0; must be a positive finite number")
	p = DefaultParams()
	p.MaxUtil = 1
	assert.EqualError(t, p.Validate(), "workload params: MaxUtil = 1; must be in (0, 1)")
	_, err := New(sim.New(1), DefaultParams(), 0, 10)
	assert.EqualError(t, err, "workload: 0 brokers and 10 partitions; both must be at least 1")
	w, err := New(sim.New(1), DefaultParams(), 1, 10)
	require.NoError(t, err)
	assert.ErrorContains(t, w.SetScale(-1), "SetScale(-1)")
}
