package controller

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kraftlab/kraftlab/engine/config"
	"github.com/kraftlab/kraftlab/engine/metadata"
)

// Cases from Kafka's PartitionChangeBuilderTest for ELR and the last known leader, with the
// production setting (last known leader in balanced recovery on) and min ISR 3.

func registration(t *testing.T, replicas, isr, elr, lke []int32, leader int32) *metadata.Partition {
	t.Helper()
	im := metadata.NewImage()
	require.NoError(t, im.Replay(metadata.Entry{Offset: 0, Record: &metadata.TopicRecord{Name: "foo", TopicID: "id"}}))
	require.NoError(t, im.Replay(metadata.Entry{Offset: 1, Record: &metadata.PartitionRecord{TopicID: "id", Topic: "foo",
		Replicas: replicas, Isr: isr, Elr: elr, LastKnownElr: lke, Leader: leader, LeaderEpoch: 100, PartitionEpoch: 200}}))
	return &im.Partitions[0]
}

func elrBuilder(p *metadata.Partition, acceptable func(int32) bool, targetIsr []int32) *changeBuilder {
	return &changeBuilder{part: p, topic: "foo", topicID: "id", election: ElectionPreferred, targetIsr: targetIsr,
		recovery: metadata.NoRecoveryChange, minIsr: 3, elrEnabled: true, accept: acceptable}
}

func TestBuilderIsrCanShrinkToZeroAndRemembersTheLastLeader(t *testing.T) {
	p := registration(t, []int32{1, 2, 3, 4}, []int32{1, 2, 3, 4}, []int32{}, []int32{}, 1)
	res := elrBuilder(p, func(int32) bool { return false }, []int32{}).build()
	require.True(t, res.changed)
	assert.Equal(t, metadata.NoLeader, res.record.Leader)
	assert.Equal(t, []int32{}, res.record.Isr)
	assert.Equal(t, []int32{1, 2, 3, 4}, res.record.Elr)
	assert.Equal(t, []int32{1}, res.record.LastKnownElr)

	// Then an unclean shutdown of 2 leaves the last known leader alone.
	p = registration(t, []int32{1, 2, 3, 4}, []int32{}, []int32{1, 2, 3, 4}, []int32{1}, -1)
	b := elrBuilder(p, func(int32) bool { return false }, nil)
	b.uncleanShutdown = []int32{2}
	res = b.build()
	assert.Equal(t, []int32{1, 3, 4}, res.record.Elr)
	assert.Nil(t, res.record.LastKnownElr)
}

func TestBuilderElectsFromTheElr(t *testing.T) {
	p := registration(t, []int32{1, 2, 3, 4}, []int32{1}, []int32{3}, []int32{}, 1)
	res := elrBuilder(p, func(r int32) bool { return r != 1 }, []int32{}).build()
	assert.Equal(t, int32(3), res.record.Leader)
	assert.Equal(t, []int32{3}, res.record.Isr)
	assert.Equal(t, []int32{1}, res.record.Elr)
	assert.Nil(t, res.record.LastKnownElr)
	assert.True(t, res.fromElr)
	assert.False(t, res.unclean)
}

func TestBuilderElectsTheLastKnownLeaderUncleanly(t *testing.T) {
	p := registration(t, []int32{1, 2, 3, 4}, []int32{}, []int32{}, []int32{1}, -1)
	res := elrBuilder(p, func(int32) bool { return true }, []int32{}).build()
	assert.Equal(t, int32(1), res.record.Leader)
	assert.Equal(t, []int32{1}, res.record.Isr)
	assert.Equal(t, metadata.Recovering, res.record.LeaderRecoveryState)
	assert.Equal(t, []int32{}, res.record.LastKnownElr)
	assert.Nil(t, res.record.Elr)
	assert.True(t, res.unclean)
}

func TestBuilderDoesNotElectTheLastKnownLeaderWhileTheElrHasMembers(t *testing.T) {
	p := registration(t, []int32{1, 2, 3, 4}, []int32{}, []int32{3}, []int32{1}, -1)
	res := elrBuilder(p, func(r int32) bool { return r != 3 }, []int32{}).build()
	assert.False(t, res.changed, "no change to the partition: %+v", res.record)
}

func TestBuilderIsrShrinkBelowMinIsrMovesReplicasToTheElr(t *testing.T) {
	p := registration(t, []int32{1, 2, 3, 4}, []int32{1, 2, 3, 4}, []int32{}, []int32{}, 1)
	res := elrBuilder(p, func(r int32) bool { return r != 3 }, []int32{1, 2}).build()
	assert.Equal(t, metadata.NoLeaderChange, res.record.Leader)
	assert.Equal(t, []int32{1, 2}, res.record.Isr)
	assert.Equal(t, []int32{3, 4}, res.record.Elr)
	assert.Nil(t, res.record.LastKnownElr)
}

func TestBuilderIsrExpandAboveMinIsrClearsElrAndLastKnownElr(t *testing.T) {
	p := registration(t, []int32{1, 2, 3, 4}, []int32{1, 2}, []int32{3}, []int32{4}, 1)
	res := elrBuilder(p, func(r int32) bool { return r != 3 }, []int32{1, 2, 3}).build()
	assert.Equal(t, []int32{1, 2, 3}, res.record.Isr)
	assert.Equal(t, []int32{}, res.record.Elr)
	assert.Equal(t, []int32{}, res.record.LastKnownElr)
}

// TestQuietPartitionsElectNothingUnderASafeLeader is the property the balancer's skip rests on
// (balance.Balancer.Run): a PREFERRED election on an imbalanced partition flagged
// metadata.ImbQuiet writes nothing while its leader is a safe leader, whatever the states of
// the other brokers (fenced, shutting down, a directory offline), the ELR feature and
// min.insync.replicas. Partitions in random states are built through records.
func TestQuietPartitionsElectNothingUnderASafeLeader(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	quiet, unsafeWrites := 0, 0
	for round := 0; round < 12; round++ {
		var vals config.Values
		require.NoError(t, vals.Set(config.BrokerSessionTimeoutMs, int64(1<<31-1), config.Cluster))
		require.NoError(t, vals.Set(config.MinInsyncReplicas, int64(1+round%3), config.Cluster))
		c := New(uint64(round), vals)
		recs := []metadata.Record{&metadata.FeatureLevelRecord{Name: config.EligibleLeaderReplicasVersion, FeatureLevel: int16(round / 6)}}
		for id := int32(0); id < 6; id++ {
			recs = append(recs, &metadata.RegisterBrokerRecord{BrokerID: id, IncarnationID: fmt.Sprint(id), BrokerEpoch: int64(id),
				LogDirs: []string{"a", "b"}, Fenced: id == 3, InControlledShutdown: id == 4})
		}
		// Broker 5's directory b is offline: its replicas there cannot lead.
		recs = append(recs, &metadata.BrokerRegistrationChangeRecord{BrokerID: 5, BrokerEpoch: 5, LogDirs: []string{"a"}})
		id := c.NewTopicID()
		recs = append(recs, &metadata.TopicRecord{Name: "t", TopicID: id})
		subset := func(reps []int32, in int) []int32 {
			out := []int32{}
			for _, r := range reps {
				if rng.IntN(10) < in {
					out = append(out, r)
				}
			}
			return out
		}
		for p := 0; p < 1000; p++ {
			perm := rng.Perm(6)
			reps := []int32{int32(perm[0]), int32(perm[1]), int32(perm[2])}[:1+rng.IntN(3)]
			isr := subset(reps, 6)
			leader := append(isr, reps[len(reps)-1], metadata.NoLeader)[rng.IntN(len(isr)+2)]
			elr, lke := []int32{}, []int32{}
			if rng.IntN(3) == 0 {
				elr, lke = subset(reps, 3), subset(reps, 2)
			}
			recs = append(recs, &metadata.PartitionRecord{Topic: "t", TopicID: id, PartitionID: int32(p), Replicas: reps,
				Isr: isr, Leader: leader, Elr: elr, LastKnownElr: lke})
		}
		require.NoError(t, c.Bootstrap(recs))
		im := c.Image()
		for _, b := range im.BrokerIDs() {
			flags := im.ImbalancedFlags(b)
			for i, idx := range im.ImbalancedPreferring(b) {
				if flags[i]&metadata.ImbQuiet == 0 {
					continue
				}
				bld := c.newBuilder(idx, ElectionPreferred)
				res := bld.build()
				if !c.safeLeader(im.Partitions[idx].Leader) {
					if res.changed {
						unsafeWrites++
					}
					continue
				}
				quiet++
				require.False(t, res.changed, "round %d: partition %d writes %+v", round, idx, res.record)
			}
		}
	}
	require.Greater(t, quiet, 500)
	require.Positive(t, unsafeWrites, "an unsafe leader does make quiet partitions write")
}
