package metadata

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kraftlab/kraftlab/engine/config"
)

func sampleImage(t *testing.T) *Image {
	t.Helper()
	im := NewImage()
	v := "2"
	for i, r := range []Record{
		&FeatureLevelRecord{Name: config.EligibleLeaderReplicasVersion, FeatureLevel: 1},
		&RegisterBrokerRecord{BrokerID: 1, IncarnationID: "a", BrokerEpoch: 1, LogDirs: []string{"d1"}},
		&RegisterBrokerRecord{BrokerID: 0, IncarnationID: "b", BrokerEpoch: 2, LogDirs: []string{"d0"}, Fenced: true},
		&TopicRecord{Name: "gone", TopicID: "G"},
		&PartitionRecord{TopicID: "G", Topic: "gone", Replicas: []int32{0, 1}, Isr: []int32{0, 1}, Leader: 0},
		&TopicRecord{Name: "t", TopicID: "T"},
		&ConfigRecord{ResourceType: ResourceTopic, ResourceName: "t", Name: config.MinInsyncReplicas, Value: &v},
		&ConfigRecord{ResourceType: ResourceBroker, Name: config.LeaderImbalanceElectionAlgorithm, Value: ptr(config.AlgorithmWaitForSync)},
		&PartitionRecord{TopicID: "T", Topic: "t", Replicas: []int32{0, 1}, Isr: []int32{1}, Leader: 1, LeaderEpoch: 3, PartitionEpoch: 7, Elr: []int32{0}},
		&RemoveTopicRecord{Topic: "gone", TopicID: "G"},
	} {
		require.NoError(t, im.Replay(Entry{Offset: int64(i), Record: r}))
	}
	return im
}

func ptr(s string) *string { return &s }

func TestSnapshotRecordsRebuildTheLiveState(t *testing.T) {
	im := sampleImage(t)
	rebuilt := NewImage()
	for i, r := range im.SnapshotRecords() {
		require.NoError(t, rebuilt.Replay(Entry{Offset: int64(i), Record: r}))
	}
	p, q := &im.Partitions[1], &rebuilt.Partitions[0]
	assert.Equal(t, p.Replicas(), q.Replicas())
	assert.Equal(t, p.Isr(), q.Isr())
	assert.Equal(t, p.Elr(), q.Elr())
	assert.Equal(t, []int32{p.Leader, p.LeaderEpoch, p.PartitionEpoch}, []int32{q.Leader, q.LeaderEpoch, q.PartitionEpoch})
	assert.Equal(t, im.ImbalancedCount(), rebuilt.ImbalancedCount())
	assert.Equal(t, int64(2), config.Int64(config.MinInsyncReplicas, &rebuilt.Topics[0].Configs))
	assert.Equal(t, config.AlgorithmWaitForSync, config.Str(config.LeaderImbalanceElectionAlgorithm, &rebuilt.Cluster))
	assert.Equal(t, im.BrokerIDs(), rebuilt.BrokerIDs())
	assert.True(t, rebuilt.Broker(0).Fenced)
	_, gone := rebuilt.TopicByName("gone")
	assert.False(t, gone)
}

func TestCloneIsIndependent(t *testing.T) {
	im := sampleImage(t)
	c := im.Clone()
	assert.Equal(t, im, c)
	change := NewPartitionChange("t", "T", 0)
	change.Leader = 0
	require.NoError(t, c.Replay(Entry{Offset: 99, Record: &change}))
	assert.Equal(t, int32(1), im.Partitions[1].Leader, "the original is untouched")
	assert.NotEqual(t, im.ImbalancedCount(), c.ImbalancedCount())
}
