package cluster

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kraftlab/kraftlab/engine/metadata"
)

func smallSpec(seed uint64, replicas ...[]int32) Spec {
	s := DefaultSpec()
	s.Seed = seed
	s.Brokers = []int32{0, 1, 2}
	s.Topics = []TopicSpec{{Name: "payments", Replicas: replicas}}
	return s
}

// fenceTime finds when broker id's FENCE record was committed.
func fenceTime(c *Cluster, id int32, after int64) int64 {
	for _, r := range c.Records() {
		if b, ok := r.Record.(*metadata.BrokerRegistrationChangeRecord); ok && b.BrokerID == id && b.Fenced == metadata.FenceFence && r.TimeMs >= after {
			return r.TimeMs
		}
	}
	return -1
}

func TestElectingANewLeaderPlaysOutAsKafkaDoesIt(t *testing.T) {
	c, err := New(smallSpec(1, []int32{1, 2, 0}))
	require.NoError(t, err)
	require.NoError(t, c.RunUntil(60_000))
	p := c.View().Partitions[0]
	require.Equal(t, int32(1), p.Leader)
	require.Equal(t, []int32{1, 2, 0}, p.Isr())

	require.NoError(t, c.Do(Event{Op: OpKill, Broker: 1}))
	killedAt := c.Now()
	require.NoError(t, c.RunUntil(killedAt+15_000))
	fenced := fenceTime(c, 1, killedAt)
	require.GreaterOrEqual(t, fenced, int64(0), "broker 1 was fenced")
	// The last heartbeat was at most one interval before the kill.
	assert.Greater(t, fenced-killedAt, int64(9000-2000))
	assert.LessOrEqual(t, fenced-killedAt, int64(10_125)+50, "9–10.1 s after its last heartbeat, plus the commit")
	p = c.View().Partitions[0]
	assert.Equal(t, int32(2), p.Leader, "the first alive in-sync replica in replica order")
	assert.Equal(t, []int32{2, 0}, p.Isr())

	require.NoError(t, c.Do(Event{Op: OpStart, Broker: 1}))
	// A one-partition toy recovers its log in a second or two after the kill, then catches up.
	for c.Now() < 250_000 && !c.View().Partitions[0].InIsr(1) {
		require.NoError(t, c.RunUntil(c.Now()+1000))
	}
	require.Less(t, c.Now(), int64(300_000), "back before the periodic preferred election")
	p = c.View().Partitions[0]
	assert.Equal(t, int32(2), p.Leader, "back in the ISR, but not the leader before the next preferred election")
	// The leader appends the rejoining follower to the ISR it sends (Partition.prepareIsrExpand:
	// partitionState.isr + newInSyncReplicaId), so [2,0] becomes [2,0,1], not replica order.
	assert.Equal(t, []int32{2, 0, 1}, p.Isr(), "it rejoined once it reached the high watermark")

	require.NoError(t, c.RunUntil(700_000))
	assert.Equal(t, int32(1), c.View().Partitions[0].Leader, "the periodic preferred election hands leadership back")
	require.NoError(t, c.Err())
	sum := c.Summary()
	assert.GreaterOrEqual(t, sum.UnfencedAtMs, int64(0))
	assert.GreaterOrEqual(t, sum.RecoveryTimeMs, int64(0))
}

// kipSpec is the KIP's worked example: 6 brokers, each preferred for 5,000 partitions, with
// wait-for-sync at threshold 5 %, max.per.run 200 and a 15 s throttle.
func kipSpec(t *testing.T, seed uint64) Spec {
	s := DefaultSpec()
	s.Seed = seed
	s.Brokers = []int32{0, 1, 2, 3, 4, 5}
	s.Topics = []TopicSpec{{Name: "orders", PartitionCount: 30_000, ReplicationFactor: 3}}
	for k, v := range map[string]any{
		"leader.imbalance.election.algorithm":                       "wait-for-sync",
		"leader.imbalance.election.wait.for.sync.threshold.percent": 5.0,
		"leader.imbalance.election.max.per.run":                     200.0,
		"leader.imbalance.election.throttle.interval.ms":            15_000.0,
		"min.insync.replicas":                                       2.0,
		// Frequent checks, so that runs fall inside the catch-up and the gate has to hold.
		"leader.imbalance.check.interval.seconds": 30.0,
	} {
		require.NoError(t, s.Static.Set(k, v, 0))
	}
	// A replaced disk re-replicates everything local: 600 s of produce keeps that to minutes.
	s.Broker.LocalRetentionSec = 600
	return s
}

// outOfSyncPreferred counts broker id's preferred partitions where it is out of the ISR.
func outOfSyncPreferred(c *Cluster, id int32) int {
	n := 0
	for _, p := range c.View().ImbalancedPreferring(id) {
		if !c.View().Partitions[p].InIsr(id) {
			n++
		}
	}
	return n
}

func TestTheKIPsWorkedExampleReturnsLeadershipInThrottledSteps(t *testing.T) {
	c, err := New(kipSpec(t, 3))
	require.NoError(t, err)
	require.Equal(t, 5000, c.View().PreferredCount(0))
	require.NoError(t, c.RunUntil(30_000))
	require.NoError(t, c.Do(Event{Op: OpKill, Broker: 0}))
	require.NoError(t, c.RunUntil(60_000))
	require.NoError(t, c.Do(Event{Op: OpDiskSwap, Broker: 0}))
	require.NoError(t, c.Do(Event{Op: OpStart, Broker: 0}))

	var returning []BalancerRun
	gatedRuns := 0
	seen := 0
	for now := int64(61_000); now <= 3_600_000 && c.View().PreferredCount(0)-len(c.View().ImbalancedPreferring(0)) < 5000; now += 1000 {
		require.NoError(t, c.RunUntil(now))
		oos := outOfSyncPreferred(c, 0)
		for _, r := range c.BalancerRuns()[seen:] {
			if len(r.GatedBrokers) == 1 && r.GatedBrokers[0] == 0 {
				gatedRuns++
			}
			for i, p := range r.Elected {
				if r.Leaders[i] == 0 && c.View().Partitions[p].Preferred() == 0 {
					assert.LessOrEqual(t, oos, 250, "run at %d ms returned leadership while %d of broker 0's partitions were out of sync", r.TimeMs, oos)
					returning = append(returning, r)
					break
				}
			}
		}
		seen = len(c.BalancerRuns())
	}
	require.NotEmpty(t, returning, "leadership returned")
	assert.Greater(t, gatedRuns, 2, "the gate held broker 0 back while it caught up")
	for i, r := range returning {
		if i < len(returning)-1 {
			assert.Len(t, r.Elected, 200, "run %d at %d ms", i, r.TimeMs)
			assert.Equal(t, int64(15_000), returning[i+1].TimeMs-r.TimeMs, "runs are one throttle interval apart")
		}
	}
	assert.Equal(t, 5000, c.View().PreferredCount(0)-len(c.View().ImbalancedPreferring(0)))
	require.NoError(t, c.Err())
}

func TestTwoBrokersRestartedTogetherRampInParallel(t *testing.T) {
	c, err := New(kipSpec(t, 5))
	require.NoError(t, err)
	require.NoError(t, c.RunUntil(30_000))
	require.NoError(t, c.Do(Event{Op: OpKill, Broker: 0}))
	require.NoError(t, c.Do(Event{Op: OpKill, Broker: 3}))
	require.NoError(t, c.RunUntil(60_000))
	require.NoError(t, c.Do(Event{Op: OpDiskSwap, Broker: 0}))
	require.NoError(t, c.Do(Event{Op: OpDiskSwap, Broker: 3}))
	require.NoError(t, c.Do(Event{Op: OpStart, Broker: 0}))
	require.NoError(t, c.Do(Event{Op: OpStart, Broker: 3}))
	require.NoError(t, c.RunUntil(3_600_000))
	both := 0
	for _, r := range c.BalancerRuns() {
		by := map[int32]int{}
		for i, p := range r.Elected {
			if r.Leaders[i] == c.View().Partitions[p].Preferred() {
				by[r.Leaders[i]]++
			}
		}
		if by[0] > 0 && by[3] > 0 {
			both++
			assert.InDelta(t, 100, by[0], 1, "run at %d ms: %v", r.TimeMs, by)
			assert.InDelta(t, 100, by[3], 1, "run at %d ms: %v", r.TimeMs, by)
		}
	}
	assert.Greater(t, both, 5, "the two brokers shared runs")
	require.NoError(t, c.Err())
}
