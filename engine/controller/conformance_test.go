package controller

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kraftlab/kraftlab/engine/config"
	"github.com/kraftlab/kraftlab/engine/metadata"
)

// Scenarios from Kafka's own ReplicationControlManagerTest, restated against this engine. Kafka's
// test context runs without ELR, so these do too.

// kafkaTestContext registers brokers 0..n-1; only `unfenced` are unfenced; ELR is off.
func kafkaTestContext(t *testing.T, n int, unfenced ...int32) *fixture {
	t.Helper()
	var vals config.Values
	require.NoError(t, vals.Set(config.BrokerSessionTimeoutMs, int64(1<<31-1), config.Cluster))
	c := New(1, vals)
	recs := []metadata.Record{&metadata.FeatureLevelRecord{Name: config.EligibleLeaderReplicasVersion, FeatureLevel: 0}}
	for id := int32(0); id < int32(n); id++ {
		fenced := true
		for _, u := range unfenced {
			fenced = fenced && u != id
		}
		recs = append(recs, &metadata.RegisterBrokerRecord{BrokerID: id, IncarnationID: fmt.Sprint("inc-", id),
			BrokerEpoch: 100 + int64(id), LogDirs: []string{fmt.Sprint("dir-", id)}, Fenced: fenced})
	}
	require.NoError(t, c.Bootstrap(recs))
	c.Activate(0)
	return &fixture{t: t, c: c}
}

func (f *fixture) createTopic(name string, assignments ...[]int32) {
	f.t.Helper()
	require.NoError(f.t, f.c.CreateTopic(CreateTopicRequest{Name: name, Assignments: assignments}, 1))
}

func (f *fixture) fence(ids ...int32) {
	for _, id := range ids {
		require.NoError(f.t, f.c.ExpireSession(id, 2))
	}
}

func resultCodes(res []ElectionResult) map[string]ErrorCode {
	out := map[string]ErrorCode{}
	for _, r := range res {
		c := None
		if r.Error != nil {
			c = r.Error.Code
		}
		out[fmt.Sprintf("%s-%d", r.Topic, r.Partition)] = c
	}
	return out
}

func TestKafkaFenceMultipleBrokers(t *testing.T) {
	f := kafkaTestContext(t, 5, 0, 1, 2, 3, 4)
	f.createTopic("foo", []int32{1, 2, 3}, []int32{2, 3, 4}, []int32{0, 2, 1})
	f.fence(2, 3)
	p0, p1, p2 := f.p("foo", 0), f.p("foo", 1), f.p("foo", 2)
	assert.Equal(t, []int32{1}, p0.Isr())
	assert.Equal(t, int32(1), p0.Leader)
	assert.Equal(t, []int32{4}, p1.Isr())
	assert.Equal(t, int32(4), p1.Leader)
	assert.Equal(t, []int32{0, 1}, p2.Isr())
	assert.NotEqual(t, int32(2), p2.Leader)
}

func TestKafkaElectUncleanLeaders(t *testing.T) {
	for _, all := range []bool{false, true} {
		f := kafkaTestContext(t, 5, 0, 1, 2, 3, 4)
		f.createTopic("foo", []int32{1, 2, 3}, []int32{2, 3, 4}, []int32{0, 2, 1})
		f.fence(2, 3)
		f.fence(1)
		assert.Equal(t, metadata.NoLeader, f.p("foo", 0).Leader)
		assert.Equal(t, []int32{1}, f.p("foo", 0).Isr())
		assert.Equal(t, int32(4), f.p("foo", 1).Leader)
		assert.Equal(t, int32(0), f.p("foo", 2).Leader)

		var req []TopicPartition
		if !all {
			req = []TopicPartition{{"foo", 0}, {"foo", 1}, {"foo", 2}}
		}
		start := f.c.Log().NextOffset()
		want := map[string]ErrorCode{"foo-0": EligibleLeadersNotAvailable, "foo-1": ElectionNotNeeded, "foo-2": ElectionNotNeeded}
		if all {
			want = map[string]ErrorCode{"foo-0": EligibleLeadersNotAvailable}
		}
		assert.Equal(t, want, resultCodes(f.c.ElectLeaders(ElectionUnclean, req, 3)), "all=%v", all)
		assert.Empty(t, f.entriesSince(start))

		f.reRegister(2, true, "dir-2", 4)
		f.heartbeat(2, 5, false, false)
		require.NoError(t, f.alterIsr("foo", 1, []int32{2, 4}, 6))
		start = f.c.Log().NextOffset()
		res := f.c.ElectLeaders(ElectionUnclean, req, 7)
		assert.Equal(t, ErrorCode(None), resultCodes(res)["foo-0"])
		es := f.entriesSince(start)
		require.Len(t, es, 1, "an unclean request does not also run preferred elections")
		rec := es[0].Record.(*metadata.PartitionChangeRecord)
		assert.Equal(t, int32(2), rec.Leader)
		assert.Equal(t, []int32{2}, rec.Isr)
		assert.Equal(t, []int32{2, 4}, f.p("foo", 1).Isr())
	}
}

func TestKafkaPreferredElectionDoesNotTriggerUncleanElection(t *testing.T) {
	f := kafkaTestContext(t, 5, 1, 2, 3, 4)
	f.createTopic("foo", []int32{1, 2, 3})
	f.fence(2, 3)
	f.fence(1)
	f.reRegister(2, true, "dir-2", 3)
	f.heartbeat(2, 4, false, false)
	require.Equal(t, metadata.NoLeader, f.p("foo", 0).Leader)
	require.NoError(t, f.c.SetConfig("foo", config.UncleanLeaderElectionEnable, "true", 5))
	start := f.c.Log().NextOffset()
	res := f.c.ElectLeaders(ElectionPreferred, []TopicPartition{{"foo", 0}}, 6)
	assert.Equal(t, map[string]ErrorCode{"foo-0": PreferredLeaderNotAvailable}, resultCodes(res))
	assert.Empty(t, f.entriesSince(start))
}

func TestKafkaElectPreferredLeaders(t *testing.T) {
	f := kafkaTestContext(t, 5, 1, 2, 3, 4)
	b1 := f.c.Image().Broker(1)
	require.NoError(t, f.c.Bootstrap([]metadata.Record{&metadata.BrokerRegistrationChangeRecord{BrokerID: 1, BrokerEpoch: b1.Epoch, InControlledShutdown: 1}}))
	f.createTopic("foo", []int32{1, 2, 3}, []int32{2, 3, 4}, []int32{0, 2, 1})
	req := []TopicPartition{{"foo", 0}, {"foo", 1}, {"foo", 2}, {"bar", 0}, {"bar", 1}}
	start := f.c.Log().NextOffset()
	res := f.c.ElectLeaders(ElectionPreferred, req, 2)
	assert.Equal(t, map[string]ErrorCode{"foo-0": PreferredLeaderNotAvailable, "foo-1": ElectionNotNeeded,
		"foo-2": PreferredLeaderNotAvailable, "bar-0": UnknownTopicOrPartition, "bar-1": UnknownTopicOrPartition}, resultCodes(res))
	assert.Equal(t, "UNKNOWN_TOPIC_OR_PARTITION: No such topic as bar", res[3].Error.Error())
	assert.Empty(t, f.entriesSince(start))

	// Broker 1 registers again to leave controlled shutdown; 0 and 1 unfence. Kafka's test context
	// skips the duplicate-registration check that production Kafka applies, so here the old
	// session must end first.
	f.fence(1)
	f.reRegister(1, true, "dir-1", 3)
	f.heartbeat(1, 4, false, false)
	f.heartbeat(0, 4, false, false)
	require.NoError(t, f.alterIsr("foo", 0, []int32{1, 2, 3}, 5))
	require.NoError(t, f.alterIsr("foo", 2, []int32{0, 2, 1}, 5))
	assert.Equal(t, int32(1), f.p("foo", 0).PartitionEpoch)

	start = f.c.Log().NextOffset()
	res = f.c.ElectLeaders(ElectionPreferred, req, 6)
	assert.Equal(t, map[string]ErrorCode{"foo-0": None, "foo-1": ElectionNotNeeded,
		"foo-2": None, "bar-0": UnknownTopicOrPartition, "bar-1": UnknownTopicOrPartition}, resultCodes(res))
	es := f.entriesSince(start)
	require.Len(t, es, 2)
	for i, want := range []struct{ partition, leader int32 }{{0, 1}, {2, 0}} {
		rec := es[i].Record.(*metadata.PartitionChangeRecord)
		assert.Equal(t, want.partition, rec.PartitionID)
		assert.Equal(t, want.leader, rec.Leader)
		assert.Nil(t, rec.Isr, "a preferred election changes only the leader")
	}
}

func TestKafkaBalancePartitionLeaders(t *testing.T) {
	f := kafkaTestContext(t, 5, 2, 3, 4)
	f.createTopic("foo", []int32{1, 2, 3}, []int32{2, 3, 4}, []int32{0, 2, 1})
	assert.NotZero(t, f.c.Image().ImbalancedCount())

	f.heartbeat(1, 2, false, false)
	require.NoError(t, f.alterIsr("foo", 0, []int32{1, 2, 3}, 3))
	r := f.runBalancer()
	require.Len(t, r.Elected, 1)
	assert.Equal(t, int32(1), f.c.Image().Partitions[r.Elected[0]].Leader)
	assert.NotZero(t, f.c.Image().ImbalancedCount(), "foo-2 still prefers fenced broker 0")
	assert.False(t, r.MoreWork)

	f.heartbeat(0, r.TimeMs+1, false, false)
	require.NoError(t, f.alterIsr("foo", 2, []int32{0, 2, 1}, r.TimeMs+2))
	r = f.runBalancer()
	assert.Len(t, r.Elected, 1)
	assert.Equal(t, int32(0), f.p("foo", 2).Leader)
	assert.Zero(t, f.c.Image().ImbalancedCount())
}

func TestKafkaHeartbeatInControlledShutdown(t *testing.T) {
	f := kafkaTestContext(t, 3, 0, 1, 2)
	f.createTopic("foo", []int32{0, 1, 2})
	start := f.c.Log().NextOffset()
	b := f.c.Image().Broker(0)
	_, err := f.c.Heartbeat(HeartbeatRequest{BrokerID: 0, BrokerEpoch: b.Epoch, CurrentMetadataOffset: 0, WantShutDown: true}, 3)
	require.NoError(t, err)
	es := f.entriesSince(start)
	require.Equal(t, []string{"BrokerRegistrationChangeRecord", "PartitionChangeRecord"}, types(es))
	rec := es[1].Record.(*metadata.PartitionChangeRecord)
	assert.Equal(t, []int32{1, 2}, rec.Isr)
	assert.Equal(t, int32(1), rec.Leader)
}
