package broker

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kraftlab/kraftlab/engine/controller"
)

// TestReadingTheHighWatermarkChangesNothing plays one run twice, once read every 100 ms
// (Partition, as tests and the replica check do) and once not. Follower 3 dies at 10 s with
// the HW at its log end; its disk is replaced at 12 s while it is still in the ISR, so the
// lowest ISR log end falls to 0, which must not lower the HW the leader has (Kafka's leader
// only raises it). Brokers 2 and 1 then die and an unclean election makes the empty broker 3
// leader: every record below that HW was acknowledged under acks=all and is lost, however
// often anyone looked.
func TestReadingTheHighWatermarkChangesNothing(t *testing.T) {
	type result struct {
		hwAfterSwap, lost float64
		losses            []AckedLoss
	}
	var hwAtDeath float64
	play := func(read bool) result {
		h := newHarness(t, setup{brokers: 3, partitions: 1, rates: oneRate(1e6)})
		ll := &lossLog{}
		h.f.SetListener(ll)
		look := func(until int64) {
			for read && h.s.Now()+100 <= until {
				h.runFor(100)
				h.part(0)
			}
			h.run(until)
		}
		var res result
		look(10_000)
		if read {
			hwAtDeath = h.part(0).HighWatermark
		}
		require.NoError(t, h.f.Kill(3))
		look(12_000)
		require.NoError(t, h.f.ReplaceDisk(3))
		look(12_500)
		res.hwAfterSwap = h.part(0).HighWatermark
		require.NoError(t, h.f.Kill(2))
		look(13_000)
		require.NoError(t, h.f.Kill(1))
		require.NoError(t, h.f.Start(3))
		look(40_000)
		h.ctl(func(c *controller.Controller, now int64) {
			res := c.ElectLeaders(controller.ElectionUnclean, []controller.TopicPartition{{Topic: "t", Partition: 0}}, now)
			require.Nil(t, res[0].Error)
		})
		require.Equal(t, int32(3), h.part(0).Leader)
		res.lost, res.losses = h.f.Stats().LostAckedRecords, ll.losses
		return res
	}
	quiet, watched := play(false), play(true)
	assert.Equal(t, quiet, watched, "reading the high watermark changed the run")
	assert.InDelta(t, hwAtDeath, quiet.hwAfterSwap, 1000, "the HW stays where follower 3 left it")
	assert.InDelta(t, hwAtDeath/1000, quiet.lost, 2, "every record below that HW is lost")
}

// lossLog records the acknowledged-record losses a fleet reports.
type lossLog struct{ losses []AckedLoss }

func (l *lossLog) BrokerStateChanged(int32, State, State, int64) {}

func (l *lossLog) AckedRecordsLost(a AckedLoss, _ int64) { l.losses = append(l.losses, a) }

// TestReadingAPartitionWritesNothing reads every partition (Partition and Serving, what tests
// and the replica check call) at moments through a restart and its catch-up, and checks that
// no partition's state moved: the high watermark is worked out, not kept, by a read.
func TestReadingAPartitionWritesNothing(t *testing.T) {
	h := newHarness(t, setup{brokers: 3, partitions: 12, rates: oneRate(1e6)})
	h.run(5_000)
	require.NoError(t, h.f.Kill(2))
	h.run(8_000)
	require.NoError(t, h.f.Start(2))
	reads := 0
	for end := h.s.Now() + 60_000; h.s.Now() < end; h.runFor(250) {
		before := slices.Clone(h.f.pt)
		for p := int32(0); p < 12; p++ {
			h.part(p)
			h.f.Serving(p)
			reads++
		}
		require.Equal(t, before, h.f.pt, "reading at %d ms", h.s.Now())
	}
	assert.Zero(t, h.f.OutOfSync(2), "broker 2 caught up while it was read")
	assert.Greater(t, reads, 2000)
}

// TestAFollowerRejoiningKeepsTheHighWatermark: with min.insync.replicas 1 and the ISR down to
// the leader, the HW is the leader's log end. Follower 2 catches up and becomes caught up
// InSyncLagMs of produce behind; the leader waits for it from then on (it counts towards the
// HW before it is back in the ISR) but keeps the HW it has, as Kafka's leader does
// (Partition.maybeIncrementLeaderHW only raises it).
func TestAFollowerRejoiningKeepsTheHighWatermark(t *testing.T) {
	h := newHarness(t, setup{brokers: 3, partitions: 1, minIsr: 1, rates: oneRate(1e6)})
	h.run(10_000)
	require.NoError(t, h.f.SetLink(1, 2, false))
	require.NoError(t, h.f.SetLink(1, 3, false))
	h.run(60_000)
	require.Equal(t, []int32{1}, h.ctlIsr(0))
	require.NoError(t, h.f.SetLink(1, 2, true))
	r, err := h.f.Replica(0, 2)
	require.NoError(t, err)
	require.Equal(t, ReplicaCatchingUp, r.State)
	_, ok := h.runUntil(60_000, func() bool { r, _ := h.f.Replica(0, 2); return r.State == ReplicaInSync })
	require.True(t, ok)
	info := h.part(0)
	assert.Equal(t, info.LogEnd, info.HighWatermark, "the HW at the rejoin is where the leader's log ends")
	h.runFor(10)
	info = h.part(0)
	assert.InDelta(t, info.LogEnd-1000, info.HighWatermark, 1e-3, "then it follows the follower, 1 ms of produce behind")
}
