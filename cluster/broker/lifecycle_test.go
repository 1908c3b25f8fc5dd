package broker

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kraftlab/kraftlab/cluster/sim"
	"github.com/kraftlab/kraftlab/engine/config"
	"github.com/kraftlab/kraftlab/engine/controller"
)

// fakeClient is a scripted controller for lifecycle tests: it registers every request with a
// fresh epoch, says "caught up" from caughtUpAt on, unfences whoever stops asking to be
// fenced, and releases a controlled shutdown after releaseAfter WantShutDown heartbeats.
type fakeClient struct {
	s            *sim.Sim
	caughtUpAt   int64
	releaseAfter int
	regs         []controller.RegisterRequest
	regAt        []int64
	hbs          []controller.HeartbeatRequest
	hbAt         []int64
	shutdownHbs  int
	nextEpoch    int64
	unreachable  bool
}

func (c *fakeClient) Register(req controller.RegisterRequest, now int64) (int64, int64, error) {
	c.regs = append(c.regs, req)
	c.regAt = append(c.regAt, now)
	if c.unreachable {
		return 0, 30_000, ErrUnreachable
	}
	c.nextEpoch += 100
	return c.nextEpoch, 0, nil
}

func (c *fakeClient) Heartbeat(req controller.HeartbeatRequest, now int64) (controller.HeartbeatReply, int64, error) {
	c.hbs = append(c.hbs, req)
	c.hbAt = append(c.hbAt, now)
	if c.unreachable {
		return controller.HeartbeatReply{}, 1000, ErrUnreachable
	}
	r := controller.HeartbeatReply{IsCaughtUp: now >= c.caughtUpAt, IsFenced: req.WantFence}
	if req.WantShutDown {
		c.shutdownHbs++
		r.InControlledShutdown = true
		r.ShouldShutDown = c.shutdownHbs > c.releaseAfter
	}
	return r, 0, nil
}

func (c *fakeClient) AlterPartition(reqs []controller.AlterPartitionRequest, errs []error, now int64) (int64, error) {
	return 0, nil
}

// stateLog records lifecycle transitions.
type stateLog struct {
	to []State
	at []int64
}

func (l *stateLog) BrokerStateChanged(id int32, from, to State, now int64) {
	l.to = append(l.to, to)
	l.at = append(l.at, now)
}

func newFakeFleet(t *testing.T, p Params) (*sim.Sim, *fakeClient, *Fleet, *stateLog) {
	t.Helper()
	s := sim.New(7)
	c := &fakeClient{s: s}
	f, err := New(s, p, []int32{1}, config.Values{}, c, oneRate(1000))
	require.NoError(t, err)
	l := &stateLog{}
	f.SetListener(l)
	return s, c, f, l
}

func lifecycleParams() Params {
	p := DefaultParams()
	p.ProcessStartMs = 5000
	p.LogLoadCleanMs = 5000
	p.LogRecoveryHardMs = 20_000
	p.LogLoadEmptyMs = 700
	return p
}

func TestStartHeartbeatsEvery10msUntilCaughtUpThenEvery2s(t *testing.T) {
	s, c, f, l := newFakeFleet(t, lifecycleParams())
	c.caughtUpAt = 5100
	require.NoError(t, f.Start(1))
	assert.Equal(t, Starting, f.State(1))
	_, err := s.RunUntil(20_000)
	require.NoError(t, err)

	require.Len(t, c.regs, 1)
	assert.Equal(t, int64(5000), c.regAt[0], "registers ProcessStartMs after start")
	assert.Equal(t, int64(-1), c.regs[0].PreviousBrokerEpoch, "a first start has no clean-shutdown file")

	// STARTING: a heartbeat right after registering, then every 10 ms until caught up.
	var want []int64
	for at := int64(5000); at <= 5100; at += 10 {
		want = append(want, at)
	}
	// RECOVERY: 10 ms after the caught-up reply, then every 2 s, all with WantFence.
	want = append(want, 5110, 7110, 9110)
	// Recovery ends at 5100 + 5000: an immediate heartbeat without WantFence, then RUNNING
	// heartbeats every broker.heartbeat.interval.ms.
	want = append(want, 10100, 12100, 14100, 16100, 18100)
	assert.Equal(t, want, c.hbAt)
	for i, hb := range c.hbs {
		assert.Equal(t, c.hbAt[i] < 10100, hb.WantFence, "heartbeat at %d", c.hbAt[i])
		assert.Equal(t, int64(100), hb.BrokerEpoch)
	}
	assert.Equal(t, []State{Starting, Recovery, Running}, l.to)
	assert.Equal(t, []int64{0, 5100, 10100}, l.at)
}

func TestKillMeansHardRecoveryAndNoCleanShutdownFile(t *testing.T) {
	s, c, f, l := newFakeFleet(t, lifecycleParams())
	require.NoError(t, f.Start(1))
	_, _ = s.RunUntil(30_000)
	require.Equal(t, Running, f.State(1))
	require.NoError(t, f.Kill(1))
	assert.Equal(t, NotRunning, f.State(1))
	hbs := len(c.hbs)
	_, _ = s.RunUntil(40_000)
	assert.Len(t, c.hbs, hbs, "a killed broker sends nothing, and its old timers are dead")

	require.NoError(t, f.Start(1))
	_, _ = s.RunUntil(100_000)
	require.Len(t, c.regs, 2)
	assert.Equal(t, int64(-1), c.regs[1].PreviousBrokerEpoch)
	assert.Equal(t, c.regs[0].LogDirs, c.regs[1].LogDirs, "same disk")
	assert.NotEqual(t, c.regs[0].IncarnationID, c.regs[1].IncarnationID)
	// Registered at 45,000, caught up at once, recovery takes LogRecoveryHardMs.
	n := len(l.at)
	assert.Equal(t, []State{NotRunning, Starting, Recovery, Running}, l.to[n-4:])
	assert.Equal(t, []int64{30_000, 40_000, 45_000, 65_000}, l.at[n-4:])
}

func TestControlledShutdownWaitsForReleaseAndWritesCleanShutdownFile(t *testing.T) {
	s, c, f, l := newFakeFleet(t, lifecycleParams())
	c.releaseAfter = 2
	require.NoError(t, f.Start(1))
	_, _ = s.RunUntil(30_000)
	epoch := f.Epoch(1)
	first := len(c.hbs)
	require.NoError(t, f.ControlledShutdown(1))
	assert.Equal(t, PendingControlledShutdown, f.State(1))
	_, _ = s.RunUntil(40_000)
	// At once, 50 ms after the first pending reply, then the normal interval; the third is
	// released.
	assert.Equal(t, []int64{30_000, 30_050, 32_050}, c.hbAt[first:])
	for _, hb := range c.hbs[first:] {
		assert.True(t, hb.WantShutDown)
	}
	n := len(l.at)
	assert.Equal(t, []State{PendingControlledShutdown, ShuttingDown, NotRunning}, l.to[n-3:])
	assert.Equal(t, []int64{30_000, 32_050, 33_050}, l.at[n-3:])

	require.NoError(t, f.Start(1))
	_, _ = s.RunUntil(60_000)
	require.Len(t, c.regs, 2)
	assert.Equal(t, epoch, c.regs[1].PreviousBrokerEpoch, "the clean-shutdown file carries the old epoch")
	// Started at 40,000, registered and caught up at 45,000, then LogLoadCleanMs of recovery.
	assert.Equal(t, []int64{40_000, 45_000, 50_000}, l.at[len(l.at)-3:])
}

func TestReplacedDiskStartsEmptyWithNewDirectory(t *testing.T) {
	s, c, f, l := newFakeFleet(t, lifecycleParams())
	require.NoError(t, f.Start(1))
	_, _ = s.RunUntil(30_000)
	require.NoError(t, f.ControlledShutdown(1))
	_, _ = s.RunUntil(35_000)
	require.Equal(t, NotRunning, f.State(1))
	assert.Error(t, f.ReplaceDisk(7), "unknown broker")
	require.NoError(t, f.ReplaceDisk(1))
	require.NoError(t, f.Start(1))
	_, _ = s.RunUntil(60_000)
	require.Len(t, c.regs, 2)
	assert.Equal(t, int64(-1), c.regs[1].PreviousBrokerEpoch, "a new disk has no clean-shutdown file")
	assert.NotEqual(t, c.regs[0].LogDirs, c.regs[1].LogDirs)
	// Started at 35,000, registered and caught up at 40,000 (RECOVERY), nothing to load:
	// LogLoadEmptyMs later it runs.
	assert.Equal(t, []State{Recovery, Running}, l.to[len(l.to)-2:])
	assert.Equal(t, []int64{40_000, 40_700}, l.at[len(l.at)-2:])
}

func TestUnreachableControllerRetriesEveryInterval(t *testing.T) {
	s, c, f, _ := newFakeFleet(t, lifecycleParams())
	c.unreachable = true
	require.NoError(t, f.Start(1))
	_, _ = s.RunUntil(100_000)
	// Registration at 5 s gets no answer for 30 s, then is retried every 2 s.
	assert.Equal(t, []int64{5000, 37_000, 69_000}, c.regAt)
	assert.Equal(t, Starting, f.State(1))
	c.unreachable = false
	_, _ = s.RunUntil(200_000)
	assert.Equal(t, Running, f.State(1))
}

func TestLifecycleRejectsBadRequests(t *testing.T) {
	_, _, f, _ := newFakeFleet(t, lifecycleParams())
	assert.ErrorContains(t, f.Kill(1), "already NOT_RUNNING")
	assert.ErrorContains(t, f.ControlledShutdown(1), "NOT_RUNNING")
	assert.ErrorContains(t, f.Boot(1), "does not show broker 1 registered")
	require.NoError(t, f.Start(1))
	assert.ErrorContains(t, f.Start(1), "only a NOT_RUNNING broker can start")
	assert.ErrorContains(t, f.ReplaceDisk(1), "stop it first")
	assert.ErrorContains(t, f.SetDiskSlowFactor(1, 0), "factor must be in (0, 100]")
	assert.ErrorContains(t, f.SetThrottle(1, -1, 0), "rates must be ≥ 0")
	assert.ErrorContains(t, f.Start(9), "unknown broker id 9")
}

func TestParamsValidationNamesFieldValueAndRange(t *testing.T) {
	p := DefaultParams()
	require.NoError(t, p.Validate())
	p.HeartbeatIntervalMs = 0
	assert.EqualError(t, p.Validate(), "broker params: HeartbeatIntervalMs = 0; must be at least 1 ms")
	p = DefaultParams()
	p.CatchUpHeadroomShare = 1.5
	assert.EqualError(t, p.Validate(), "broker params: CatchUpHeadroomShare = 1.5; must be in (0, 1]")
	p = DefaultParams()
	p.ReplicaFetchResponseMaxBytes = 1000
	assert.ErrorContains(t, p.Validate(), "ReplicaFetchResponseMaxBytes = 1000 is below ReplicaFetchMaxBytes")
	p = DefaultParams()
	p.DiskWriteBytesPerSec = -1
	assert.EqualError(t, p.Validate(), "broker params: DiskWriteBytesPerSec = -1; must be a positive finite number")
	_, err := New(sim.New(1), DefaultParams(), []int32{1, 1}, config.Values{}, &fakeClient{}, oneRate(1))
	assert.EqualError(t, err, "broker: broker id 1 is listed twice")
	_, err = New(sim.New(1), DefaultParams(), []int32{1}, config.Values{}, &fakeClient{}, &flatRates{bytes: []float64{-1}, reqs: []float64{1}, record: 1})
	assert.ErrorContains(t, err, "Rates.ClassBytesPerSec(0) = -1")
}

// hardRecoveryWant is log recovery after a hard stop as Kafka does it: broker id's logs opened
// NumRecoveryThreadsPerDataDir at a time, LogRecoveryPerLogMs each (LogManager.loadLogs), and
// every log's active segment, the bytes above the recovery point the last segment roll flushed
// (UnifiedLog.roll), read back and validated (LogLoader.recoverLog) at the disk's read rate.
func hardRecoveryWant(t *testing.T, h *harness, id int32, partitions int) int64 {
	p := DefaultParams()
	var unflushed float64
	for part := 0; part < partitions; part++ {
		r, err := h.f.Replica(int32(part), id)
		require.NoError(t, err)
		unflushed += math.Mod(r.LogEnd, p.LogSegmentBytes)
	}
	rounds := (partitions + p.NumRecoveryThreadsPerDataDir - 1) / p.NumRecoveryThreadsPerDataDir
	return int64(math.Ceil(float64(rounds)*p.LogRecoveryPerLogMs + unflushed/p.DiskReadBytesPerSec*1000))
}

// TestHardRecoveryFollowsWhatTheBrokerHolds: without a fixed LogRecoveryHardMs, recovery after
// a kill takes what Kafka's log loading would: a one-partition toy about a second, a broker
// with 300 busy logs minutes, since each log's active segment (up to log.segment.bytes) is read
// back. The broker is unfenced that long after it reached RECOVERY.
func TestHardRecoveryFollowsWhatTheBrokerHolds(t *testing.T) {
	for _, c := range []struct {
		partitions int
		rate       float64
		lo, hi     int64
	}{
		{1, 100_000, 0, 2_000},
		{300, 500_000, 60_000, 600_000},
	} {
		h := newHarness(t, setup{brokers: 3, partitions: c.partitions, rates: oneRate(c.rate)})
		h.run(10_000)
		require.NoError(t, h.f.Kill(1))
		want := hardRecoveryWant(t, h, 1, c.partitions)
		assert.Equal(t, want, h.f.HardRecoveryMs(1), "%d partitions", c.partitions)
		assert.Greater(t, want, c.lo, "%d partitions", c.partitions)
		assert.Less(t, want, c.hi, "%d partitions", c.partitions)

		require.NoError(t, h.f.Start(1))
		from, ok := h.runUntil(60_000, func() bool { return h.f.State(1) == Recovery })
		require.True(t, ok)
		to, ok := h.runUntil(want+60_000, func() bool { return h.f.State(1) == Running })
		require.True(t, ok)
		assert.GreaterOrEqual(t, to-from, want, "%d partitions: RECOVERY lasts the recovery time", c.partitions)
		assert.Less(t, to-from, want+100, "%d partitions: then the next heartbeat unfences it", c.partitions)
	}
}

// TestFixedHardRecoveryOverridesTheDerivedOne: a LogRecoveryHardMs above 0 is used as it is.
func TestFixedHardRecoveryOverridesTheDerivedOne(t *testing.T) {
	p := DefaultParams()
	p.LogRecoveryHardMs = 120_000
	h := newHarness(t, setup{brokers: 3, partitions: 1, params: &p})
	h.run(10_000)
	require.NoError(t, h.f.Kill(1))
	require.NoError(t, h.f.Start(1))
	from, ok := h.runUntil(60_000, func() bool { return h.f.State(1) == Recovery })
	require.True(t, ok)
	to, ok := h.runUntil(200_000, func() bool { return h.f.State(1) == Running })
	require.True(t, ok)
	assert.GreaterOrEqual(t, to-from, int64(120_000))
	assert.Less(t, to-from, int64(120_100))
}
