package controller

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kraftlab/kraftlab/engine/config"
	"github.com/kraftlab/kraftlab/engine/metadata"
	"github.com/kraftlab/kraftlab/engine/metrics"
)

func code(err error) ErrorCode {
	var apiError *APIError
	if errors.As(err, &apiError) {
		return apiError.Code
	}
	return None
}

func TestAlterPartitionChecksInKafkasOrder(t *testing.T) {
	f := newFixture(t, nil, 0, 1, 2)
	f.topic("t", part{replicas: []int32{0, 1, 2}, leader: 0, isr: []int32{0, 1}})
	p := f.p("t", 0)
	base := AlterPartitionRequest{BrokerID: 0, BrokerEpoch: f.c.Image().Broker(0).Epoch, Topic: "t", Partition: 0,
		LeaderEpoch: p.LeaderEpoch, PartitionEpoch: p.PartitionEpoch, NewIsr: []int32{0, 1, 2}, LeaderRecoveryState: metadata.NoRecoveryChange}
	cases := []struct {
		name string
		edit func(r *AlterPartitionRequest)
		want ErrorCode
	}{
		{"newer epochs", func(r *AlterPartitionRequest) { r.LeaderEpoch++ }, NotController},
		{"older leader epoch", func(r *AlterPartitionRequest) { r.LeaderEpoch-- }, FencedLeaderEpoch},
		{"not the leader", func(r *AlterPartitionRequest) { r.BrokerID = 1; r.BrokerEpoch = f.c.Image().Broker(1).Epoch }, InvalidRequest},
		{"older partition epoch", func(r *AlterPartitionRequest) { r.PartitionEpoch-- }, InvalidUpdateVersion},
		{"not a replica", func(r *AlterPartitionRequest) { r.NewIsr = []int32{0, 5} }, InvalidRequest},
		{"missing the leader", func(r *AlterPartitionRequest) { r.NewIsr = []int32{1, 2} }, InvalidRequest},
		{"stale broker epoch", func(r *AlterPartitionRequest) { r.BrokerEpoch = 42 }, StaleBrokerEpoch},
		{"unknown partition", func(r *AlterPartitionRequest) { r.Partition = 9 }, UnknownTopicOrPartition},
	}
	for _, c := range cases {
		req := base
		c.edit(&req)
		assert.Equal(t, c.want, code(f.c.AlterPartition(req, 10)), c.name)
	}
	require.NoError(t, f.c.ExpireSession(2, 5))
	p = f.p("t", 0)
	base.LeaderEpoch, base.PartitionEpoch = p.LeaderEpoch, p.PartitionEpoch
	assert.Equal(t, IneligibleReplica, code(f.c.AlterPartition(base, 10)), "a fenced replica cannot join the ISR (KIP-841)")
}

func TestIsrExpansionBumpsOnlyThePartitionEpoch(t *testing.T) {
	f := newFixture(t, nil, 0, 1, 2)
	f.topic("t", part{replicas: []int32{0, 1, 2}, leader: 0, isr: []int32{0, 1}})
	start := f.c.Log().NextOffset()
	require.NoError(t, f.alterIsr("t", 0, []int32{0, 1, 2}, 10))
	p := f.p("t", 0)
	assert.Equal(t, int32(0), p.LeaderEpoch)
	assert.Equal(t, int32(1), p.PartitionEpoch)
	assert.Equal(t, []int32{0, 1, 2}, p.Isr())

	require.NoError(t, f.alterIsr("t", 0, []int32{0, 1, 2}, 20))
	assert.Len(t, f.entriesSince(start), 1, "a change that changes nothing writes no record")

	require.NoError(t, f.alterIsr("t", 0, []int32{0, 2}, 30))
	assert.Equal(t, int32(0), f.p("t", 0).LeaderEpoch, "an ISR shrink does not bump the leader epoch (MV >= 3.6-IV0)")
}

func TestElrWithMinInsyncReplicasTwo(t *testing.T) {
	f := newFixture(t, nil, 0, 1, 2)
	f.topic("t", part{replicas: []int32{1, 2, 0}, leader: 1, isr: []int32{1, 2, 0}})
	require.NoError(t, f.c.SetConfig("t", config.MinInsyncReplicas, 2.0, 1))

	require.NoError(t, f.c.ExpireSession(1, 10))
	p := f.p("t", 0)
	assert.Equal(t, int32(2), p.Leader)
	assert.Equal(t, []int32{2, 0}, p.Isr())
	assert.Empty(t, p.Elr(), "the ISR is still at min.insync.replicas")

	require.NoError(t, f.c.ExpireSession(2, 20))
	p = f.p("t", 0)
	assert.Equal(t, int32(0), p.Leader)
	assert.Equal(t, []int32{0}, p.Isr())
	assert.Equal(t, []int32{2}, p.Elr(), "a replica leaving an ISR below min.insync.replicas stays electable")

	require.NoError(t, f.c.ExpireSession(0, 30))
	p = f.p("t", 0)
	assert.Equal(t, metadata.NoLeader, p.Leader)
	assert.Empty(t, p.Isr())
	assert.Equal(t, []int32{0, 2}, p.Elr())
	assert.Equal(t, []int32{0}, p.LastKnownElr())
}

func TestMinInsyncReplicasChangeClearsTheElr(t *testing.T) {
	f := newFixture(t, nil, 0, 1, 2)
	f.topic("t", part{replicas: []int32{0, 1, 2}, leader: -1, isr: []int32{}, elr: []int32{1, 2}})
	f.topic("u", part{replicas: []int32{0, 1, 2}, leader: -1, isr: []int32{}, elr: []int32{1}})
	start := f.c.Log().NextOffset()
	require.NoError(t, f.c.SetConfig("t", config.MinInsyncReplicas, "2", 10))
	es := f.entriesSince(start)
	require.Equal(t, []string{"ConfigRecord", "ClearElrRecord"}, types(es))
	assert.Empty(t, f.p("t", 0).Elr())
	assert.Equal(t, int32(1), f.p("t", 0).PartitionEpoch, "clearing a non-empty ELR bumps the partition epoch")
	assert.Equal(t, []int32{1}, f.p("u", 0).Elr(), "another topic's ELR is untouched")

	require.NoError(t, f.c.SetConfig("", config.MinInsyncReplicas, 2.0, 20))
	assert.Empty(t, f.p("u", 0).Elr(), "a cluster-level change clears every ELR")
}

func TestUncleanTopicElectsOutsideTheIsrAtOnceOnFencing(t *testing.T) {
	f := newFixture(t, nil, 0, 1)
	f.topic("t", part{replicas: []int32{0, 1}, leader: 0, isr: []int32{0}})
	require.NoError(t, f.c.SetConfig("t", config.UncleanLeaderElectionEnable, true, 1))
	require.NoError(t, f.c.ExpireSession(0, 10))
	p := f.p("t", 0)
	assert.Equal(t, int32(1), p.Leader)
	assert.Equal(t, []int32{1}, p.Isr(), "an unclean election forces the ISR to the new leader")
	assert.Equal(t, metadata.Recovering, p.Recovery())
	assert.Empty(t, p.Elr(), "an unclean election clears the ELR")
	assert.Equal(t, int64(1), f.c.Metrics()[metrics.UncleanLeaderElectionsPerSec])
}

func TestElectUncleanTaskRunsEveryFiveMinutes(t *testing.T) {
	f := newFixture(t, nil, 0, 1)
	require.NoError(t, f.c.Bootstrap([]metadata.Record{&metadata.FeatureLevelRecord{Name: config.EligibleLeaderReplicasVersion, FeatureLevel: 0}}))
	f.topic("t", part{replicas: []int32{0, 1}, leader: 0, isr: []int32{0}})
	require.NoError(t, f.c.ExpireSession(0, 10))
	require.Equal(t, metadata.NoLeader, f.p("t", 0).Leader)
	require.NoError(t, f.c.SetConfig("t", config.UncleanLeaderElectionEnable, "true", 20))
	assert.Equal(t, metadata.NoLeader, f.p("t", 0).Leader, "enabling it elects nobody by itself")
	f.runTasksUntil(299_999)
	assert.Equal(t, metadata.NoLeader, f.p("t", 0).Leader)
	f.runTasksUntil(300_000)
	assert.Equal(t, int32(1), f.p("t", 0).Leader)
}

func TestElectLeadersErrorCodes(t *testing.T) {
	f := newFixture(t, nil, 0, 1, 2)
	f.topic("t",
		part{replicas: []int32{0, 1, 2}, leader: 0, isr: []int32{0, 1, 2}}, // already preferred
		part{replicas: []int32{0, 1, 2}, leader: 1, isr: []int32{1, 2}},    // preferred out of sync
		part{replicas: []int32{0, 1, 2}, leader: 1, isr: []int32{1, 2, 0}}) // electable
	res := f.c.ElectLeaders(ElectionPreferred, []TopicPartition{{"t", 0}, {"t", 1}, {"t", 2}, {"t", 3}, {"nope", 0}}, 10)
	var codes []ErrorCode
	for _, r := range res {
		if r.Error == nil {
			codes = append(codes, None)
		} else {
			codes = append(codes, r.Error.Code)
		}
	}
	assert.Equal(t, []ErrorCode{ElectionNotNeeded, PreferredLeaderNotAvailable, None, UnknownTopicOrPartition, UnknownTopicOrPartition}, codes)
	assert.Equal(t, int32(0), f.p("t", 2).Leader)

	res = f.c.ElectLeaders(ElectionUnclean, []TopicPartition{{"t", 1}}, 20)
	assert.Equal(t, ElectionNotNeeded, res[0].Error.Code, "unclean elections are only for leaderless partitions")
}

func TestUncleanElectLeadersPicksAReplicaOutsideTheIsr(t *testing.T) {
	f := newFixture(t, nil, 0, 1, 2)
	f.topic("t", part{replicas: []int32{0, 1}, leader: 0, isr: []int32{0}})
	require.NoError(t, f.c.ExpireSession(0, 10))
	require.NoError(t, f.c.ExpireSession(1, 10))
	res := f.c.ElectLeaders(ElectionUnclean, []TopicPartition{{"t", 0}}, 20)
	assert.Equal(t, EligibleLeadersNotAvailable, res[0].Error.Code, "nobody alive to elect")

	f.reRegister(1, true, "dir-1", 30)
	f.heartbeat(1, 40, false, false)
	res = f.c.ElectLeaders(ElectionUnclean, []TopicPartition{{"t", 0}}, 50)
	assert.Nil(t, res[0].Error)
	p := f.p("t", 0)
	assert.Equal(t, int32(1), p.Leader)
	assert.Equal(t, metadata.Recovering, p.Recovery())
}

func TestPreferredElectionNeedsThePreferredReplicaInTheIsr(t *testing.T) {
	f := newFixture(t, nil, 0, 1, 2)
	f.topic("t", part{replicas: []int32{0, 1, 2}, leader: 1, isr: []int32{1, 2}})
	r := f.runBalancer()
	assert.Empty(t, r.Elected, "broker 0 is not in the ISR: a preferred election cannot pick it")
	require.NoError(t, f.alterIsr("t", 0, []int32{1, 2, 0}, r.TimeMs+1))
	r = f.runBalancer()
	assert.Len(t, r.Elected, 1)
	assert.Equal(t, int32(0), f.p("t", 0).Leader)
}

func TestAutoLeaderRebalanceDisabledRegistersNoElectPreferredTask(t *testing.T) {
	f := newFixture(t, map[string]any{config.AutoLeaderRebalanceEnable: false}, 0, 1, 2)
	f.topic("t", part{replicas: []int32{0, 1, 2}, leader: 1, isr: []int32{1, 2, 0}})
	_, scheduled := f.c.TaskDeadline(TaskElectPreferred)
	assert.False(t, scheduled)
	f.runTasksUntil(3_600_000)
	assert.Equal(t, int32(1), f.p("t", 0).Leader)
	res := f.c.ElectLeaders(ElectionPreferred, nil, 3_600_001)
	assert.Nil(t, res[0].Error, "manual ElectLeaders still works")
	assert.Equal(t, int32(0), f.p("t", 0).Leader)
}

func TestStaticConfigsCannotChangeWhileRunning(t *testing.T) {
	f := newFixture(t, nil, 0)
	err := f.c.SetConfig("", config.LeaderImbalanceCheckIntervalSeconds, 10.0, 1)
	assert.Equal(t, InvalidRequest, code(err))
	assert.ErrorContains(t, err, "Cannot update these configs dynamically: Set(leader.imbalance.check.interval.seconds)")
	err = f.c.SetConfig("", config.WaitForSyncThresholdPercent, 101.0, 1)
	assert.Equal(t, InvalidConfig, code(err))
	assert.ErrorContains(t, err, "Value must be no more than 100")
	assert.Equal(t, UnknownTopicOrPartition, code(f.c.SetConfig("nope", config.MinInsyncReplicas, 2.0, 1)))
}

func TestClusterMinInsyncReplicasCannotBeRemovedUnderElr(t *testing.T) {
	f := newFixture(t, nil, 0)
	require.NoError(t, f.c.SetConfig("", config.MinInsyncReplicas, 2.0, 1))
	err := f.c.SetConfig("", config.MinInsyncReplicas, nil, 2)
	assert.Equal(t, InvalidConfig, code(err))
	assert.ErrorContains(t, err, "Cluster-level min.insync.replicas cannot be removed while ELR is enabled.")

	require.NoError(t, f.c.SetFeature(config.EligibleLeaderReplicasVersion, 0.0, 3))
	assert.NoError(t, f.c.SetConfig("", config.MinInsyncReplicas, nil, 4), "without ELR it can be removed")
}

func TestEnablingElrWritesTheClusterMinInsyncReplicasFirst(t *testing.T) {
	var static config.Values
	require.NoError(t, static.Set(config.MinInsyncReplicas, 2.0, config.Cluster))
	c := New(1, static)
	require.NoError(t, c.Bootstrap([]metadata.Record{&metadata.FeatureLevelRecord{Name: config.EligibleLeaderReplicasVersion, FeatureLevel: 0}}))
	c.Activate(0)
	start := c.Log().NextOffset()
	require.NoError(t, c.SetFeature(config.EligibleLeaderReplicasVersion, 1.0, 1))
	es := c.Log().Since(start)
	require.Equal(t, []string{"ConfigRecord", "FeatureLevelRecord"}, types(es))
	rec := es[0].Record.(*metadata.ConfigRecord)
	assert.Equal(t, config.MinInsyncReplicas, rec.Name)
	assert.Equal(t, "2", *rec.Value, "the controller's own value")
	assert.True(t, c.Image().ElrEnabled())
}

func TestAlterPartitionMessagesPrintListsAsKafkaDoes(t *testing.T) {
	f := newFixture(t, nil, 0, 1, 2)
	f.topic("t", part{replicas: []int32{0, 1, 2}, leader: 0, isr: []int32{0, 1}})
	err := f.alterIsr("t", 0, []int32{0, 3}, 1)
	assert.EqualError(t, err, "INVALID_REQUEST: ISR [0, 3] is not a set of the replicas [0, 1, 2]")
}

// TestTopicConfigsFollowConfigRecords: the configs a partition change reads (resolved once per
// topic and cached), and the electPreferred schedule, follow every ConfigRecord at once, at topic and cluster level, set and
// deleted, and a restored controller reads its own image's.
func TestTopicConfigsFollowConfigRecords(t *testing.T) {
	f := newFixture(t, nil, 0, 1, 2)
	f.topic("a", part{replicas: []int32{0, 1, 2}, isr: []int32{0, 1, 2}, leader: 0})
	f.topic("b", part{replicas: []int32{1, 2}, isr: []int32{1, 2}, leader: 1})
	c := f.c
	pa, pb := f.p("a", 0), f.p("b", 0)
	set := func(typ int8, name, key string, v *string) {
		c.append(&metadata.ConfigRecord{ResourceType: typ, ResourceName: name, Name: key, Value: v})
	}
	str := func(s string) *string { return &s }
	check := func(minA, minB int, uncleanA, uncleanB bool, msg string) {
		t.Helper()
		assert.Equal(t, []int{minA, minB}, []int{c.minIsr(pa), c.minIsr(pb)}, msg)
		assert.Equal(t, []bool{uncleanA, uncleanB}, []bool{c.uncleanEnabled(pa), c.uncleanEnabled(pb)}, msg)
	}
	check(1, 1, false, false, "the defaults")
	assert.False(t, c.writeTriggered())
	set(metadata.ResourceBroker, "", config.ModelLeaderImbalanceSchedule, str(config.ScheduleWriteTriggered))
	assert.True(t, c.writeTriggered(), "the schedule read again after a ConfigRecord")
	set(metadata.ResourceBroker, "", config.MinInsyncReplicas, str("3"))
	check(3, 2, false, false, "a cluster min ISR, capped by the replication factor")
	set(metadata.ResourceTopic, "a", config.MinInsyncReplicas, str("2"))
	set(metadata.ResourceTopic, "b", config.UncleanLeaderElectionEnable, str("true"))
	check(2, 2, false, true, "topic overrides")
	set(metadata.ResourceBroker, "", config.UncleanLeaderElectionEnable, str("true"))
	set(metadata.ResourceTopic, "a", config.MinInsyncReplicas, nil)
	check(3, 2, true, true, "a topic override deleted, a cluster config set")
	r := Restore(2, config.Values{}, c.Image().Clone(), c.Log().NextOffset())
	set(metadata.ResourceBroker, "", config.UncleanLeaderElectionEnable, str("false"))
	check(3, 2, false, true, "the old controller moves on")
	assert.True(t, r.uncleanEnabled(&r.Image().Partitions[0]), "the restored controller reads its own image")
}

// AlterPartitions answers and writes exactly what one AlterPartition call per partition does,
// with refusals mixed in (a stale partition epoch, an unknown partition, the same partition
// twice).
func TestAlterPartitionsMatchesOneCallPerPartition(t *testing.T) {
	setup := func() *fixture {
		f := newFixture(t, nil, 0, 1, 2)
		f.topic("t", many(53, part{replicas: []int32{0, 1, 2}, leader: 0, isr: []int32{0, 1}})...)
		return f
	}
	batch, one := setup(), setup()
	var reqs []AlterPartitionRequest
	for i := int32(0); i < 53; i++ {
		p := batch.p("t", i)
		req := AlterPartitionRequest{BrokerID: 0, BrokerEpoch: batch.c.Image().Broker(0).Epoch, Topic: "t", Partition: i,
			LeaderEpoch: p.LeaderEpoch, PartitionEpoch: p.PartitionEpoch, NewIsr: []int32{0, 1, 2}, LeaderRecoveryState: metadata.NoRecoveryChange}
		switch i % 7 {
		case 3:
			req.PartitionEpoch--
		case 5:
			req.Partition = 1000
		}
		reqs = append(reqs, req)
	}
	reqs = append(reqs, reqs[0]) // by then its partition epoch is stale
	start := batch.c.Log().NextOffset()
	errs := make([]error, len(reqs))
	batch.c.AlterPartitions(reqs, errs, 10)
	for i, req := range reqs {
		want := one.c.AlterPartition(req, 10)
		assert.Equal(t, code(want), code(errs[i]), "request %d", i)
	}
	assert.Equal(t, one.entriesSince(start), batch.entriesSince(start))
	assert.Contains(t, codes(errs), InvalidUpdateVersion)
	assert.Contains(t, codes(errs), UnknownTopicOrPartition)
	assert.Contains(t, codes(errs), None)
}

func codes(errs []error) []ErrorCode {
	out := make([]ErrorCode, len(errs))
	for i, err := range errs {
		out[i] = code(err)
	}
	return out
}
