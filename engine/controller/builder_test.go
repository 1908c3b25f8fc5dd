package controller

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

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
