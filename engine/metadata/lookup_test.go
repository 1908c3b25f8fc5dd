package metadata

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestLookupsFollowDeletionAndRecreation: the one-topic lookup cache must never answer for a
// deleted topic, nor for the wrong one when changes alternate between topics.
func TestLookupsFollowDeletionAndRecreation(t *testing.T) {
	im := NewImage()
	off := int64(0)
	replay := func(r Record) error {
		err := im.Replay(Entry{Offset: off, Record: r})
		off++
		return err
	}
	for _, top := range []struct{ name, id string }{{"a", "A1"}, {"b", "B"}} {
		require.NoError(t, replay(&TopicRecord{Name: top.name, TopicID: top.id}))
		for p := int32(0); p < 2; p++ {
			require.NoError(t, replay(&PartitionRecord{TopicID: top.id, Topic: top.name, PartitionID: p, Replicas: []int32{0, 1}, Isr: []int32{0, 1}, Leader: 0}))
		}
	}
	change := func(name, id string, p, leader int32) error {
		c := NewPartitionChange(name, id, p)
		c.Leader = leader
		return replay(&c)
	}
	require.NoError(t, change("a", "A1", 1, 1))
	require.NoError(t, change("b", "B", 0, 1))
	require.NoError(t, change("a", "A1", 1, 0))
	idx, ok := im.PartitionIndex("b", 0)
	require.True(t, ok)
	assert.Equal(t, int32(2), idx)
	assert.Equal(t, int32(1), im.Partitions[idx].Leader)
	assert.Equal(t, int32(2), im.Partitions[1].LeaderEpoch, "a-1 changed leader twice")

	require.NoError(t, replay(&RemoveTopicRecord{Topic: "a", TopicID: "A1"}))
	_, ok = im.PartitionIndex("a", 0)
	assert.False(t, ok, "a deleted topic has no partitions")
	assert.Error(t, change("a", "A1", 0, 1), "a change for a deleted topic's id is refused")

	require.NoError(t, replay(&TopicRecord{Name: "a", TopicID: "A2"}))
	require.NoError(t, replay(&PartitionRecord{TopicID: "A2", Topic: "a", PartitionID: 0, Replicas: []int32{1, 0}, Isr: []int32{1, 0}, Leader: 1}))
	idx, ok = im.PartitionIndex("a", 0)
	require.True(t, ok)
	assert.Equal(t, int32(4), idx, "the recreated topic's partition, not the deleted one's")
	assert.Error(t, change("a", "A1", 0, 1), "the old id stays unknown after the name is reused")
	require.NoError(t, change("a", "A2", 0, 0))
	assert.Equal(t, int32(0), im.Partitions[4].Leader)
}

// TestBrokerSlotsForSmallAndLargeIDs: ids found through the dense index and through the map
// (large or negative ids) resolve to their own registrations, in a clone too.
func TestBrokerSlotsForSmallAndLargeIDs(t *testing.T) {
	im := NewImage()
	ids := []int32{5, maxDenseID + 7, 0, maxDenseID - 1, 1 << 30}
	for i, id := range ids {
		require.NoError(t, im.Replay(Entry{Offset: int64(i), Record: &RegisterBrokerRecord{BrokerID: id, IncarnationID: "x", BrokerEpoch: int64(100 + i)}}))
	}
	clone := im.Clone()
	for i, id := range ids {
		for _, m := range []*Image{im, clone} {
			b := m.Broker(id)
			require.NotNil(t, b, "broker %d", id)
			assert.Equal(t, id, b.ID)
			assert.Equal(t, int64(100+i), b.Epoch)
		}
	}
	for _, id := range []int32{1, 4, maxDenseID, maxDenseID + 8, -1} {
		assert.Nil(t, im.Broker(id), "broker %d was never seen", id)
	}
	assert.Equal(t, []int32{0, 5, maxDenseID - 1, maxDenseID + 7, 1 << 30}, im.BrokerIDs())
}

// TestReservePartitionsChangesCapacityOnly: reserving keeps the contents and grows at least
// geometrically, so that batches in a row do not copy the partitions each time.
func TestReservePartitionsChangesCapacityOnly(t *testing.T) {
	im := sampleImage(t)
	before := im.Clone()
	im.ReservePartitions(1000)
	assert.GreaterOrEqual(t, cap(im.Partitions)-len(im.Partitions), 1000)
	assert.Equal(t, before.Partitions, im.Partitions)
	c := cap(im.Partitions)
	im.ReservePartitions(10)
	assert.Equal(t, c, cap(im.Partitions), "room enough: nothing moves")
	im.Partitions = append(im.Partitions, make([]Partition, cap(im.Partitions)-len(im.Partitions))...)
	n := len(im.Partitions)
	im.ReservePartitions(1)
	assert.GreaterOrEqual(t, cap(im.Partitions), 2*n, "growing at least doubles")
	im.ReservePartitions(-5)
	im.ReservePartitions(0)
}
