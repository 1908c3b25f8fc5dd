package broker

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kraftlab/kraftlab/engine/config"
	"github.com/kraftlab/kraftlab/engine/controller"
)

// ctl runs fn against the controller and lets the harness deliver what it wrote.
func (h *harness) ctl(fn func(c *controller.Controller, now int64)) {
	fn(h.c, h.s.Now())
	h.afterController()
	h.run(h.s.Now())
}

// TestTruncationCountsAcks1LossOnly kills the leader of partition 0 (1 MB/s of 1 kB records).
// The controller fences it after the session timeout and elects broker 2, whose log ended
// InSyncLagMs (1 ms) of produce behind: with acks=1 that one acknowledged record is truncated
// away; with acks=all it was never acknowledged (the HW had not passed it).
func TestTruncationCountsAcks1LossOnly(t *testing.T) {
	for _, acks := range []Acks{AcksLeader, AcksAll} {
		p := DefaultParams()
		p.Acks = acks
		h := newHarness(t, setup{brokers: 3, partitions: 1, params: &p, rates: oneRate(1e6)})
		h.run(10_000)
		require.NoError(t, h.f.Kill(1))
		var path Path
		h.f.PartitionPath(0, &path)
		assert.Equal(t, PathNoLeader, path.Status)
		at, ok := h.runUntil(20_000, func() bool { return h.part(0).Leader == 2 })
		require.True(t, ok)
		assert.GreaterOrEqual(t, at, int64(19_000), "fenced after broker.session.timeout.ms")
		st := h.f.Stats()
		if acks == AcksLeader {
			assert.InDelta(t, 1.0, st.LostAckedRecords, 1e-6, "acks=1 loses the unreplicated millisecond")
		} else {
			assert.Zero(t, st.LostAckedRecords, "acks=all loses nothing in a clean election")
		}
		assert.InDelta(t, 1000, st.TruncatedBytes, 1e-3)
		assert.Zero(t, st.UncleanTakeovers)
		assert.Equal(t, int64(1), st.LeaderChanges)
	}
}

// TestUncleanElectionLosesAcksAllRecords: broker 3 falls out of the ISR at 10 s; broker 2
// and then the leader die; an unclean election makes broker 3 leader, and the acks=all
// records acknowledged between 10 s and broker 2's death are lost.
func TestUncleanElectionLosesAcksAllRecords(t *testing.T) {
	h := newHarness(t, setup{brokers: 3, partitions: 1, rates: oneRate(1e6)})
	h.run(10_000)
	require.NoError(t, h.f.SetLink(1, 3, false))
	h.run(60_000)
	require.Equal(t, []int32{1, 2}, h.ctlIsr(0))
	require.NoError(t, h.f.Kill(2))
	h.run(80_000)
	require.Equal(t, []int32{1}, h.ctlIsr(0), "broker 2 fenced")
	assert.False(t, h.part(0).Producing, "under min.insync.replicas")
	require.NoError(t, h.f.Kill(1))
	h.run(100_000)
	require.Equal(t, int32(-1), h.part(0).Leader)
	require.NoError(t, h.f.SetLink(1, 3, true))
	h.ctl(func(c *controller.Controller, now int64) {
		res := c.ElectLeaders(controller.ElectionUnclean, []controller.TopicPartition{{Topic: "t", Partition: 0}}, now)
		require.Nil(t, res[0].Error)
	})
	assert.Equal(t, int32(3), h.part(0).Leader)
	st := h.f.Stats()
	assert.Equal(t, int64(1), st.UncleanTakeovers)
	requireCatalogMatchesImage(t, h)
	// Broker 3 stopped at 10 s; the HW reached broker 2's log end at 60 s: 50 s at 1,000
	// records/s were acknowledged and are gone.
	assert.InDelta(t, 50_000, st.LostAckedRecords, 2)
}

// TestRestartCatchesUpRejoinsAndRegainsLeadership runs the whole cycle against the real
// controller: kill, fence, restart with log recovery, catch-up, ISR rejoin, preferred election.
func TestRestartCatchesUpRejoinsAndRegainsLeadership(t *testing.T) {
	h := newHarness(t, setup{brokers: 3, partitions: 30,
		cfg: map[string]any{config.LeaderImbalanceCheckIntervalSeconds: int64(60)}})
	h.run(10_000)
	require.NoError(t, h.f.Kill(1))
	h.run(25_000)
	assert.True(t, h.c.Image().Broker(1).Fenced)
	for p := int32(0); p < 30; p++ {
		assert.NotContains(t, h.ctlIsr(p), int32(1))
		assert.NotEqual(t, int32(1), h.part(p).Leader)
	}
	recovery := h.f.HardRecoveryMs(1)
	require.NoError(t, h.f.Start(1))
	// 5 s to register, the hard recovery its 30 logs need, then unfenced.
	at, ok := h.runUntil(200_000, func() bool { return h.f.State(1) == Running })
	require.True(t, ok)
	assert.InDelta(t, 25_000+5000+recovery, at, 20)
	assert.False(t, h.c.Image().Broker(1).Fenced)
	_, ok = h.runUntil(60_000, func() bool { return h.f.OutOfSync(1) == 0 })
	require.True(t, ok, "broker 1 caught up")
	_, ok = h.runUntil(120_000, func() bool {
		for p := int32(0); p < 30; p++ {
			if len(h.ctlIsr(p)) != 3 || h.c.Image().Partitions[p].Leader != int32(p%3+1) {
				return false
			}
		}
		return true
	})
	require.True(t, ok, "full ISRs and preferred leaders again")
	h.runFor(10)
	for p := int32(0); p < 30; p++ {
		assert.Equal(t, int32(p%3+1), h.part(p).Leader)
	}
	st := h.f.Stats()
	assert.Zero(t, st.LostAckedRecords)
	assert.Equal(t, int64(30), st.IsrExpands, "broker 1 rejoined 30 ISRs")
	assert.Equal(t, int64(20), st.LeaderChanges, "10 away at the fence, 10 back")
}

// TestControlledShutdownMovesLeadersFirst: broker 1 leaves only when it leads nothing; it
// comes back with a clean-shutdown file, so the controller does not treat it as unclean.
func TestControlledShutdownMovesLeadersFirst(t *testing.T) {
	h := newHarness(t, setup{brokers: 3, partitions: 9})
	h.run(10_000)
	epoch := h.f.Epoch(1)
	require.NoError(t, h.f.ControlledShutdown(1))
	at, ok := h.runUntil(30_000, func() bool { return h.f.State(1) == NotRunning })
	require.True(t, ok)
	assert.Less(t, at, int64(15_000), "released within a few heartbeats")
	for p := int32(0); p < 9; p++ {
		assert.NotEqual(t, int32(1), h.part(p).Leader)
		assert.True(t, h.part(p).Producing)
	}
	assert.Zero(t, h.f.Stats().LostAckedRecords)
	require.NoError(t, h.f.Start(1))
	_, ok = h.runUntil(120_000, func() bool { return h.f.State(1) == Running })
	require.True(t, ok)
	assert.Greater(t, h.f.Epoch(1), epoch)
	_, ok = h.runUntil(30_000, func() bool { return slices.Contains(h.ctlIsr(0), 1) })
	assert.True(t, ok)
}

// TestReplacedDiskCopiesTheLocalLog: a broker back with an empty disk starts each replica at
// the leader's log start, LocalRetentionSec × TieredLocalShare of produce behind.
func TestReplacedDiskCopiesTheLocalLog(t *testing.T) {
	p := DefaultParams()
	p.TieredLocalShare = 0.01
	h := newHarness(t, setup{brokers: 3, partitions: 3, params: &p})
	h.run(10_000)
	require.NoError(t, h.f.Kill(2))
	h.run(30_000)
	require.NoError(t, h.f.ReplaceDisk(2))
	require.NoError(t, h.f.Start(2))
	_, ok := h.runUntil(60_000, func() bool { r, _ := h.f.Replica(0, 2); return r.State == ReplicaCatchingUp })
	require.True(t, ok)
	r, err := h.f.Replica(0, 2)
	require.NoError(t, err)
	assert.InDelta(t, 100_000*p.LocalRetentionSec*0.01, r.Backlog, 1)
	_, ok = h.runUntil(60_000, func() bool { return h.f.OutOfSync(2) == 0 })
	assert.True(t, ok)
}
