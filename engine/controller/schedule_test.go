package controller

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kraftlab/kraftlab/engine/config"
	"github.com/kraftlab/kraftlab/engine/metadata"
)

func TestEveryTaskFirstRunsOnePeriodAfterActivation(t *testing.T) {
	var vals config.Values
	c := New(1, vals)
	c.Activate(12_345)
	for name, want := range map[string]int64{
		TaskElectPreferred:   12_345 + 300_000,
		TaskElectUnclean:     12_345 + 300_000,
		TaskFenceStaleBroker: 12_345 + 1125,
		TaskWriteNoOp:        12_345 + 500,
	} {
		got, ok := c.TaskDeadline(name)
		require.True(t, ok, name)
		assert.Equal(t, want, got, name)
	}
}

func TestAFailedRunBacksOffFiveMinutesAndAContinuationIsFollowedByAFullPeriod(t *testing.T) {
	var s scheduler
	results := []taskResult{{err: errors.New("boom")}, {moreWork: true}, {}}
	var ranAt []int64
	task := &periodicTask{name: "t", periodMs: func() int64 { return 1000 }, immediateMs: fixedImmediate,
		run: func(now int64) taskResult {
			ranAt = append(ranAt, now)
			r := results[0]
			results = results[1:]
			return r
		}}
	s.register(task, 0)
	assert.Equal(t, int64(-1), task.deadline, "an inactive manager schedules nothing")
	s.activate(0)
	for len(results) > 0 {
		next := s.next()
		s.runTask(next, next.deadline)
	}
	assert.Equal(t, []int64{1000, 1000 + ErrorBackoffMs, 1000 + ErrorBackoffMs + 10}, ranAt)
	assert.Equal(t, int64(1000+ErrorBackoffMs+10+1000), task.deadline)
	s.deactivate()
	assert.Nil(t, s.next(), "resigning cancels every task")
}

func TestWriteTriggeredScheduleIsArmedByTheFirstWriteAfterAnImbalance(t *testing.T) {
	cfg := map[string]any{config.ModelLeaderImbalanceSchedule: config.ScheduleWriteTriggered}
	f := newFixture(t, cfg, 0, 1, 2)
	f.topic("t", part{replicas: []int32{0, 1, 2}, leader: 0, isr: []int32{0, 1, 2}})
	f.runTasksUntil(100_000)
	_, armed := f.c.TaskDeadline(TaskElectPreferred)
	assert.False(t, armed, "a balanced cluster arms no timer")

	require.NoError(t, f.c.ExpireSession(0, 100_000)) // broker 1 takes over: an imbalance
	at, armed := f.c.TaskDeadline(TaskElectPreferred)
	require.True(t, armed)
	assert.Equal(t, int64(100_000+300_000), at, "armed by the write that created the imbalance")

	f.reRegister(0, true, "dir-0", 100_010)
	f.heartbeat(0, 100_020, false, false)
	require.NoError(t, f.alterIsr("t", 0, []int32{1, 2, 0}, 100_030))
	r := f.runBalancer()
	assert.Equal(t, int64(400_000), r.TimeMs)
	assert.Len(t, r.Elected, 1)
	_, armed = f.c.TaskDeadline(TaskElectPreferred)
	assert.False(t, armed, "balanced again: no timer")
}

func TestPeriodicScheduleIgnoresWhenTheImbalanceAppeared(t *testing.T) {
	f := newFixture(t, nil, 0, 1, 2)
	f.topic("t", part{replicas: []int32{0, 1, 2}, leader: 0, isr: []int32{0, 1, 2}})
	require.NoError(t, f.c.ExpireSession(0, 299_000))
	f.reRegister(0, true, "dir-0", 299_010)
	f.heartbeat(0, 299_020, false, false)
	require.NoError(t, f.alterIsr("t", 0, []int32{1, 2, 0}, 299_030))
	r := f.runBalancer()
	assert.Equal(t, int64(300_000), r.TimeMs, "the phase is set by activation: leadership returns 0–300 s after the restart")
	assert.Len(t, r.Elected, 1)
}

func TestCreateTopicPlacesReplicasStripedAndDeterministically(t *testing.T) {
	create := func(seed uint64) *Controller {
		var vals config.Values
		c := New(seed, vals)
		var recs []metadata.Record
		for id := int32(0); id < 6; id++ {
			recs = append(recs, &metadata.RegisterBrokerRecord{BrokerID: id, IncarnationID: "i", LogDirs: []string{"d"}})
		}
		require.NoError(t, c.Bootstrap(recs))
		c.Activate(0)
		require.NoError(t, c.CreateTopic(CreateTopicRequest{Name: "orders", NumPartitions: 600, ReplicationFactor: 3,
			Configs: []ConfigEntry{{config.MinInsyncReplicas, 2.0}}}, 1))
		return c
	}
	c := create(7)
	leaders := map[int32]int{}
	for i := range c.Image().Partitions {
		p := &c.Image().Partitions[i]
		reps := p.Replicas()
		assert.Len(t, reps, 3)
		assert.Equal(t, reps, p.Isr(), "every active replica starts in sync")
		assert.Equal(t, reps[0], p.Leader, "the preferred replica leads")
		assert.NotEqual(t, reps[0], reps[1])
		leaders[p.Leader]++
	}
	for id := int32(0); id < 6; id++ {
		assert.Equal(t, 100, leaders[id], "striping spreads leadership evenly: broker %d", id)
	}
	assert.Equal(t, c.Log().Since(0), create(7).Log().Since(0), "the same seed places the same way")
	assert.NotEqual(t, c.Image().Partitions[0].Replicas(), create(8).Image().Partitions[0].Replicas())

	es := c.Log().Since(6)
	assert.Equal(t, []string{"TopicRecord", "ConfigRecord", "PartitionRecord"}, types(es[:3]))
}

func TestCreateAndDeleteTopicErrors(t *testing.T) {
	f := newFixture(t, nil, 0, 1)
	f.topic("t", part{replicas: []int32{0, 1}, leader: 0, isr: []int32{0, 1}})
	for _, c := range []struct {
		req  CreateTopicRequest
		want ErrorCode
	}{
		{CreateTopicRequest{Name: "t", NumPartitions: 1, ReplicationFactor: 1}, TopicAlreadyExists},
		{CreateTopicRequest{Name: "bad name", NumPartitions: 1, ReplicationFactor: 1}, InvalidTopic},
		{CreateTopicRequest{Name: "..", NumPartitions: 1, ReplicationFactor: 1}, InvalidTopic},
		{CreateTopicRequest{Name: "u", NumPartitions: 1, ReplicationFactor: 3}, InvalidReplicationFactor},
		{CreateTopicRequest{Name: "u", NumPartitions: 0, ReplicationFactor: 1}, InvalidPartitions},
		{CreateTopicRequest{Name: "u", Assignments: [][]int32{{0, 0}}}, InvalidReplicaAssignment},
		{CreateTopicRequest{Name: "u", Assignments: [][]int32{{0, 9}}}, InvalidReplicaAssignment},
		{CreateTopicRequest{Name: "u", NumPartitions: 1, ReplicationFactor: 1, Configs: []ConfigEntry{{config.MinInsyncReplicas, 0.0}}}, InvalidConfig},
		{CreateTopicRequest{Name: "u", NumPartitions: 1, ReplicationFactor: 1, Configs: []ConfigEntry{{config.LeaderImbalanceElectionMaxPerRun, 5.0}}}, InvalidConfig},
	} {
		assert.Equal(t, c.want, code(f.c.CreateTopic(c.req, 1)), "%+v", c.req)
	}
	assert.Equal(t, UnknownTopicOrPartition, code(f.c.DeleteTopic("nope", 1)))
	require.NoError(t, f.c.DeleteTopic("t", 2))
	_, ok := f.c.Image().TopicByName("t")
	assert.False(t, ok)
	assert.Empty(t, f.c.Image().ReplicaPartitions(0))
	require.NoError(t, f.c.CreateTopic(CreateTopicRequest{Name: "t", Assignments: [][]int32{{1, 0}}}, 3), "the name can be used again")
	assert.Equal(t, int32(1), f.p("t", 0).Leader)
}

func TestReplayingTheLogRebuildsTheSameImage(t *testing.T) {
	f := newFixture(t, kafkaSession, 0, 1, 2)
	require.NoError(t, f.c.CreateTopic(CreateTopicRequest{Name: "a", NumPartitions: 30, ReplicationFactor: 3}, 1))
	require.NoError(t, f.c.SetConfig("a", config.MinInsyncReplicas, 2.0, 2))
	f.runLive(0, 20_000, 1, 2) // broker 0 goes silent and is fenced
	f.reRegister(0, false, "new-disk", 20_001)
	f.heartbeat(0, 20_002, false, false)
	for i := int32(0); i < 30; i++ {
		if p := f.p("a", i); p.Leader >= 0 && !p.InIsr(0) {
			require.NoError(t, f.alterIsr("a", i, append(p.Isr(), 0), 20_003))
		}
	}
	require.NoError(t, f.c.DeleteTopic("a", 20_004))
	require.NoError(t, f.c.CreateTopic(CreateTopicRequest{Name: "b", NumPartitions: 9, ReplicationFactor: 2}, 20_005))
	f.runLive(20_005, 700_000, 0, 1, 2)

	rebuilt := metadata.NewImage()
	for _, e := range f.c.Log().Since(0) {
		require.NoError(t, rebuilt.Replay(e))
	}
	assert.Equal(t, f.c.Image(), rebuilt, "a standby or new active controller replays to the same state")
}

func TestARestoredControllerCarriesOnFromTheImage(t *testing.T) {
	f := newFixture(t, nil, 0, 1, 2)
	f.topic("t", part{replicas: []int32{0, 1, 2}, leader: 1, isr: []int32{1, 2, 0}})
	require.NoError(t, f.c.SetConfig("", config.LeaderImbalanceElectionAlgorithm, config.AlgorithmWaitForSync, 1))
	next := f.c.Log().NextOffset()

	var static config.Values
	require.NoError(t, static.Set(config.BrokerSessionTimeoutMs, int64(1<<31-1), config.Cluster))
	r := Restore(9, static, f.c.Image().Clone(), next+1) // +1: the quorum's LeaderChangeMessage
	r.Activate(1000)
	at, ok := r.TaskDeadline(TaskElectPreferred)
	require.True(t, ok)
	assert.Equal(t, int64(301_000), at, "tasks are first due one period after the new activation")
	r.RunNextTask(at)
	for r.RunNextTask(at) != "" {
	}
	runs := r.TakeBalancerRuns()
	require.Len(t, runs, 1)
	assert.Len(t, runs[0].Elected, 1)
	assert.Equal(t, next+1, r.Log().StartOffset())
	assert.Equal(t, next+1, r.Log().Since(0)[0].Offset, "the first record lands where the restore said")
	assert.Contains(t, types(r.Log().Since(0)), "PartitionChangeRecord")
	assert.Equal(t, int32(0), r.Image().Partitions[0].Leader)
	assert.Equal(t, int32(1), f.c.Image().Partitions[0].Leader, "the old controller's image is not shared")
}
