package broker

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestIsrShrinksBetween30And45sAfterFollowerStops cuts the link between a leader and one
// follower: the follower keeps heartbeating (so the controller does not fence it) but stops
// fetching. The leader's isr-expiration task, every 15 s, drops it once it has not been caught
// up for 30 s: 30–45 s after it stopped, depending on the task's phase.
func TestIsrShrinksBetween30And45sAfterFollowerStops(t *testing.T) {
	var delays []int64
	for seed := uint64(1); seed <= 6; seed++ {
		h := newHarness(t, setup{brokers: 3, partitions: 3, seed: seed})
		h.run(20_000)
		require.Equal(t, []int32{1, 2, 3}, h.ctlIsr(0))
		t0 := h.s.Now()
		require.NoError(t, h.f.SetLink(1, 2, false))
		r, err := h.f.Replica(0, 2)
		require.NoError(t, err)
		assert.Equal(t, ReplicaStalled, r.State)
		at, ok := h.runUntil(60_000, func() bool { return !slices.Contains(h.ctlIsr(0), 2) })
		require.True(t, ok, "seed %d: broker 2 never left the ISR", seed)
		d := at - t0
		assert.GreaterOrEqual(t, d, int64(30_000), "seed %d", seed)
		assert.LessOrEqual(t, d, int64(45_000), "seed %d", seed)
		delays = append(delays, d)
		assert.Equal(t, []int32{1, 3}, h.part(0).MaximalIsr)
		assert.Equal(t, Running, h.f.State(2), "still running and unfenced")
		assert.False(t, h.c.Image().Broker(2).Fenced)
	}
	slices.Sort(delays)
	assert.Less(t, delays[0], delays[len(delays)-1], "the task's phase spreads the shrink: %v", delays)
}

// TestCatchUpMatchesClosedFormAndExpandsAtHw heals the link after 100 s with broker 2's
// follower throttle at 1 MB/s. Broker 2 catches up two partitions, one per leader (sessions
// 2←1 and 2←3), so max-min fairness gives each 0.5 MB/s; each backlog is 100 s × 100 kB/s
// plus the in-sync lag (100 B), and drains at 0.5 MB/s − 0.1 MB/s until it is within one
// fetch (1 MiB): (10,000,100 − 1,048,576) / 400,000 = 22.379 s. The leader then adds the
// follower back to the ISR at once.
func TestCatchUpMatchesClosedFormAndExpandsAtHw(t *testing.T) {
	p := DefaultParams()
	p.ThrottleAllReplicas = true
	h := newHarness(t, setup{brokers: 3, partitions: 3, params: &p})
	require.NoError(t, h.f.SetThrottle(2, 0, 1e6))
	h.run(10_000)
	require.NoError(t, h.f.SetLink(1, 2, false))
	require.NoError(t, h.f.SetLink(3, 2, false))
	h.run(110_000)
	require.Equal(t, []int32{1, 3}, h.ctlIsr(0), "partition 0 (leader 1) dropped broker 2")
	require.Equal(t, []int32{3, 1}, h.ctlIsr(2), "partition 2 (leader 3) dropped broker 2")
	require.NoError(t, h.f.SetLink(1, 2, true))
	require.NoError(t, h.f.SetLink(3, 2, true))
	h.run(110_001)
	r, err := h.f.Replica(0, 2)
	require.NoError(t, err)
	assert.Equal(t, ReplicaCatchingUp, r.State)
	assert.InDelta(t, 10_000_100+100-500, r.Backlog, 1, "100 s of produce and the lag, then 1 ms of λ − x/n")
	var l [3]Load
	h.f.Loads(l[:])
	assert.InDelta(t, 1e6, l[1].CatchUpInBytesPerSec, 1, "the throttle is the budget")
	assert.InDelta(t, 0.5e6, l[0].CatchUpOutBytesPerSec, 1)

	want := int64(110_000) + 22_379
	at, ok := h.runUntil(60_000, func() bool { return slices.Contains(h.ctlIsr(0), 2) })
	require.True(t, ok)
	assert.Equal(t, want, at, "rejoin and ISR expansion at the closed-form time")
	assert.True(t, slices.Contains(h.ctlIsr(2), 2))
	r, _ = h.f.Replica(0, 2)
	assert.Equal(t, ReplicaInSync, r.State)
	info := h.part(0)
	assert.Equal(t, []int32{1, 2, 3}, info.MaximalIsr)
	assert.GreaterOrEqual(t, r.LogEnd, info.HighWatermark-1, "the follower reached the HW")
	assert.GreaterOrEqual(t, r.LogEnd, info.EpochStart, "and the leader-epoch start")
	assert.Equal(t, 0, h.f.ActiveSessions())
	assert.Equal(t, int64(4), h.f.Stats().IsrExpands, "2 back into partitions 0 and 2, 1 and 3 into partition 1")
}

// TestThrottleTrapNeverRejoins throttles the follower below its partitions' inflow: every
// catching-up partition gets 50 kB/s of a 100 kB/s budget but produces 100 kB/s, so backlogs
// grow and nothing ever rejoins (Kafka ops docs: throttle below BytesIn → no progress).
func TestThrottleTrapNeverRejoins(t *testing.T) {
	p := DefaultParams()
	p.ThrottleAllReplicas = true
	h := newHarness(t, setup{brokers: 3, partitions: 3, params: &p})
	require.NoError(t, h.f.SetThrottle(2, 0, 100_000))
	require.NoError(t, h.f.SetLink(1, 2, false))
	require.NoError(t, h.f.SetLink(3, 2, false))
	h.run(60_000)
	require.NoError(t, h.f.SetLink(1, 2, true))
	require.NoError(t, h.f.SetLink(3, 2, true))
	h.run(60_010)
	before, err := h.f.Replica(0, 2)
	require.NoError(t, err)
	h.run(3_600_000)
	after, err := h.f.Replica(0, 2)
	require.NoError(t, err)
	assert.Equal(t, ReplicaCatchingUp, after.State)
	assert.InDelta(t, before.Backlog+50_000*(3_600_000-60_010)/1000, after.Backlog, 10, "the backlog grows at λ − T/2")
	assert.Equal(t, []int32{1, 3}, h.ctlIsr(0))
	assert.Zero(t, h.f.Stats().Rejoins-2, "only broker 1 and 3's followers of partition 1 rejoined")

	// Lifting the throttle lets it through.
	require.NoError(t, h.f.SetThrottle(2, 0, 0))
	_, ok := h.runUntil(60_000, func() bool { return slices.Contains(h.ctlIsr(0), 2) })
	assert.True(t, ok)
}

// TestHwFrozenBelowMinIsr shrinks partition 0's ISR to its leader alone (min.insync.replicas
// is 2). With acks=1 the leader keeps appending, but the high watermark stays where the
// stalled followers left it.
func TestHwFrozenBelowMinIsr(t *testing.T) {
	p := DefaultParams()
	p.Acks = AcksLeader
	h := newHarness(t, setup{brokers: 3, partitions: 1, params: &p})
	h.run(10_000)
	require.NoError(t, h.f.SetLink(1, 2, false))
	require.NoError(t, h.f.SetLink(1, 3, false))
	hwAtCut := h.part(0).HighWatermark
	h.run(70_000)
	require.Equal(t, []int32{1}, h.ctlIsr(0))
	info := h.part(0)
	assert.True(t, info.Producing, "acks=1 writes go on")
	assert.InDelta(t, hwAtCut, info.HighWatermark, 1e-6, "HW frozen where the followers stopped")
	h.run(130_000)
	later := h.part(0)
	assert.InDelta(t, hwAtCut, later.HighWatermark, 1e-6, "HW does not advance below min ISR")
	assert.InDelta(t, info.LogEnd+60*100_000, later.LogEnd, 1e-3, "while the log end grows")

	// With acks=all the leader refuses writes instead.
	p.Acks = AcksAll
	h = newHarness(t, setup{brokers: 3, partitions: 1, params: &p})
	require.NoError(t, h.f.SetLink(1, 2, false))
	require.NoError(t, h.f.SetLink(1, 3, false))
	h.run(60_000)
	require.Equal(t, []int32{1}, h.ctlIsr(0))
	info = h.part(0)
	assert.False(t, info.Producing)
	var path Path
	h.f.PartitionPath(0, &path)
	assert.Equal(t, PathNotEnoughReplicas, path.Status)
	h.run(90_000)
	assert.Equal(t, info.LogEnd, h.part(0).LogEnd)
}

// TestAcksAllWaitsForStalledIsrMember: before the shrink, an acks=all request waits for the
// stalled follower; the path says until which isr-expiration run.
func TestAcksAllWaitsForStalledIsrMember(t *testing.T) {
	h := newHarness(t, setup{brokers: 3, partitions: 1})
	h.run(10_000)
	require.NoError(t, h.f.SetLink(1, 2, false))
	h.run(11_000)
	var path Path
	h.f.PartitionPath(0, &path)
	assert.Equal(t, PathOK, path.Status)
	require.True(t, path.Waiting)
	assert.GreaterOrEqual(t, path.WaitUntilMs, int64(40_000))
	assert.LessOrEqual(t, path.WaitUntilMs, int64(55_000))
	assert.Equal(t, 1, path.Followers, "broker 3 is still on the acks=all path")
	at, ok := h.runUntil(60_000, func() bool { return !slices.Contains(h.ctlIsr(0), 2) })
	require.True(t, ok)
	assert.Equal(t, path.WaitUntilMs, at, "the estimate is the shrink")
	h.f.PartitionPath(0, &path)
	assert.False(t, path.Waiting)
}

// TestFencedFollowerCannotRejoinUntilUnfenced: broker 2 catches up partition 0 while the
// controller has it fenced (its heartbeats cannot get through). The leader does not propose
// it (INELIGIBLE in its own metadata); once broker 2 is unfenced, the leader sees the
// registration change and adds it at once.
func TestFencedFollowerCannotRejoinUntilUnfenced(t *testing.T) {
	h := newHarness(t, setup{brokers: 3, partitions: 3})
	h.run(10_000)
	require.NoError(t, h.f.SetLink(1, 2, false))
	h.run(60_000)
	require.Equal(t, []int32{1, 3}, h.ctlIsr(0))
	h.ctlDown[2] = true
	h.run(75_000)
	require.True(t, h.c.Image().Broker(2).Fenced, "no heartbeat for 9 s")
	require.NoError(t, h.f.SetLink(1, 2, true))
	h.run(80_000)
	r, err := h.f.Replica(0, 2)
	require.NoError(t, err)
	assert.Equal(t, ReplicaInSync, r.State, "caught up")
	assert.Equal(t, []int32{1, 3}, h.ctlIsr(0), "but not eligible while fenced")
	assert.Zero(t, h.f.Stats().AlterPartitionErrors, "the leader did not even ask")
	h.ctlDown[2] = false
	at, ok := h.runUntil(10_000, func() bool { return slices.Contains(h.ctlIsr(0), 2) })
	require.True(t, ok)
	assert.False(t, h.c.Image().Broker(2).Fenced)
	assert.LessOrEqual(t, at, int64(82_100), "added as soon as the unfence reaches the leader")
}

// TestFencedFollowerRejoinsAfterLeadershipMoves: broker 3 is caught up on partition 0 but
// fenced, so its leader (broker 1) watches it; then the preferred leader, broker 2, takes the
// partition back while broker 1 stays up, and broker 1's isr-expiration task drops the entry
// it no longer needs. Once broker 3 is unfenced, its new leader must add it: broker 2's own
// watch list has to hold it although broker 1's listed it first.
func TestFencedFollowerRejoinsAfterLeadershipMoves(t *testing.T) {
	h := newHarness(t, setup{brokers: 3, partitions: 1, seed: 3,
		assign: func(int) []int32 { return []int32{2, 1, 3} },
		cfg:    map[string]any{"leader.imbalance.check.interval.seconds": int64(60)}})
	h.run(10_000)
	h.ctlDown[2] = true
	h.run(25_000)
	require.True(t, h.c.Image().Broker(2).Fenced)
	require.Equal(t, int32(1), h.part(0).Leader, "broker 1 took over from the fenced broker 2")
	h.ctlDown[2], h.ctlDown[3] = false, true
	h.run(45_000)
	require.False(t, h.c.Image().Broker(2).Fenced)
	require.True(t, h.c.Image().Broker(3).Fenced)
	require.ElementsMatch(t, []int32{1, 2}, h.ctlIsr(0), "broker 2 back in, the fenced broker 3 out")
	r, err := h.f.Replica(0, 3)
	require.NoError(t, err)
	require.Equal(t, ReplicaInSync, r.State, "broker 3 still fetches and is caught up")

	_, ok := h.runUntil(200_000, func() bool { return h.part(0).Leader == 2 })
	require.True(t, ok, "the preferred leader election gave partition 0 back to broker 2")
	require.Equal(t, Running, h.f.State(1), "broker 1 stays up")
	h.runFor(40_000) // broker 1's isr-expiration task runs at least twice
	require.ElementsMatch(t, []int32{1, 2}, h.ctlIsr(0), "broker 3 is still fenced")

	h.ctlDown[3] = false
	_, ok = h.runUntil(20_000, func() bool { return slices.Contains(h.ctlIsr(0), 3) })
	assert.True(t, ok, "broker 2 added the unfenced broker 3 back to the ISR")
}

// TestRejoiningFollowerIsAppendedToIsr pins the ISR order of an expansion. Kafka's leader
// sends the committed ISR plus the rejoining follower (Partition.prepareIsrExpand:
// partitionState.isr + newInSyncReplicaId; Scala sets of up to four members keep insertion
// order) and the controller records the list as sent (PartitionChangeBuilder.setTargetIsr),
// so broker 2 rejoining [1,3] gives [1,3,2], not the replica order [1,2,3]. A later shrink
// keeps the order of those that stay (prepareIsrShrink: partitionState.isr -- outOfSync).
func TestRejoiningFollowerIsAppendedToIsr(t *testing.T) {
	h := newHarness(t, setup{brokers: 3, partitions: 3})
	h.run(10_000)
	require.Equal(t, []int32{1, 2, 3}, h.ctlIsr(0))
	require.NoError(t, h.f.SetLink(1, 2, false))
	_, ok := h.runUntil(60_000, func() bool { return !slices.Contains(h.ctlIsr(0), 2) })
	require.True(t, ok, "broker 2 left the ISR of partition 0")
	require.Equal(t, []int32{1, 3}, h.ctlIsr(0))
	require.NoError(t, h.f.SetLink(1, 2, true))
	_, ok = h.runUntil(60_000, func() bool { return slices.Contains(h.ctlIsr(0), 2) })
	require.True(t, ok, "broker 2 rejoined")
	assert.Equal(t, []int32{1, 3, 2}, h.ctlIsr(0), "appended, as prepareIsrExpand sends it")

	require.NoError(t, h.f.SetLink(1, 3, false))
	_, ok = h.runUntil(60_000, func() bool { return !slices.Contains(h.ctlIsr(0), 3) })
	require.True(t, ok, "broker 3 left the ISR of partition 0")
	assert.Equal(t, []int32{1, 2}, h.ctlIsr(0), "the members that stay keep their order")
}
