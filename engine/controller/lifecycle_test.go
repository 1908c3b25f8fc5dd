package controller

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kraftlab/kraftlab/engine/config"
	"github.com/kraftlab/kraftlab/engine/metadata"
	"github.com/kraftlab/kraftlab/engine/metrics"
)

// Kafka's defaults for the session, for the tests about expiry.
var kafkaSession = map[string]any{config.BrokerSessionTimeoutMs: 9000.0}

func TestSessionExpiryFencesBetween9And10Point1SecondsAfterTheLastHeartbeat(t *testing.T) {
	for _, last := range []int64{0, 1, 500, 1124, 1125, 4000, 7777} {
		f := newFixture(t, kafkaSession, 0, 1, 2)
		f.topic("payments", part{replicas: []int32{1, 2, 0}, leader: 1, isr: []int32{1, 2, 0}})
		f.runLive(0, last-1, 0, 1, 2)
		f.heartbeat(1, last, false, false) // broker 1's last heartbeat
		fencedAt := int64(-1)
		f.afterTask = func(name string, at int64) {
			if fencedAt < 0 && f.c.Image().Broker(1).Fenced {
				fencedAt = at
				assert.Equal(t, TaskFenceStaleBroker, name)
			}
		}
		f.runLive(last, 30_000, 0, 2)
		require.GreaterOrEqual(t, fencedAt, int64(0), "broker 1 was never fenced")
		assert.Greater(t, fencedAt-last, int64(9000), "last heartbeat at %d", last)
		assert.LessOrEqual(t, fencedAt-last, int64(10125), "last heartbeat at %d", last)
		p := f.p("payments", 0)
		assert.Equal(t, int32(2), p.Leader, "the first alive in-sync replica in replica order leads")
		assert.Equal(t, []int32{2, 0}, p.Isr())
	}
}

func TestStaleBrokersAreFencedOneAtATimeTenMillisecondsApart(t *testing.T) {
	f := newFixture(t, kafkaSession, 0, 1, 2)
	f.topic("t", part{replicas: []int32{0, 1, 2}, leader: 0, isr: []int32{0, 1, 2}})
	start := f.c.Log().NextOffset()
	f.runLive(0, 9000, 2) // brokers 0 and 1 go silent after activation at 0
	var fencedTasks []int64
	for {
		next, _ := f.c.NextDeadline()
		if next > 10_200 {
			break
		}
		before := f.c.Log().NextOffset()
		if f.c.RunNextTask(next) == TaskFenceStaleBroker && f.c.Log().NextOffset() > before {
			fencedTasks = append(fencedTasks, next)
		}
	}
	assert.Equal(t, []int64{10125, 10135}, fencedTasks, "one broker per run; the next run follows after the 10 ms immediate period")
	assert.Contains(t, types(f.entriesSince(start)), "BrokerRegistrationChangeRecord")
}

func TestFencingMovesLeadershipToTheFirstValidReplicaInReplicaOrder(t *testing.T) {
	f := newFixture(t, nil, 0, 1, 2)
	f.topic("payments",
		part{replicas: []int32{1, 2, 0}, leader: 1, isr: []int32{1, 2, 0}},
		part{replicas: []int32{1, 2, 0}, leader: 1, isr: []int32{1, 0}}) // broker 2 not in sync
	start := f.c.Log().NextOffset()
	require.NoError(t, f.c.ExpireSession(1, 10))

	es := f.entriesSince(start)
	assert.Equal(t, []string{"PartitionChangeRecord", "PartitionChangeRecord", "BrokerRegistrationChangeRecord"}, types(es),
		"partition changes first, then the FENCE record")
	p0, p1 := f.p("payments", 0), f.p("payments", 1)
	assert.Equal(t, int32(2), p0.Leader)
	assert.Equal(t, []int32{2, 0}, p0.Isr())
	assert.Equal(t, int32(0), p1.Leader, "broker 2 is not in sync, so broker 0 leads")
	assert.Equal(t, int32(1), p0.LeaderEpoch, "a leader change bumps the leader epoch")
	assert.Equal(t, int32(1), p0.PartitionEpoch)
	rec := es[0].Record.(*metadata.PartitionChangeRecord)
	assert.Equal(t, int32(2), rec.Leader)
	assert.Equal(t, []int32{2, 0}, rec.Isr)
	assert.Nil(t, rec.Elr, "only changed fields are carried")
}

func TestTheLastIsrMemberWithoutElrStaysInTheIsr(t *testing.T) {
	f := newFixture(t, nil, 0, 1)
	require.NoError(t, f.c.Bootstrap([]metadata.Record{&metadata.FeatureLevelRecord{Name: config.EligibleLeaderReplicasVersion, FeatureLevel: 0}}))
	f.topic("t", part{replicas: []int32{0, 1}, leader: 0, isr: []int32{0}})
	require.NoError(t, f.c.ExpireSession(0, 10))
	p := f.p("t", 0)
	assert.Equal(t, metadata.NoLeader, p.Leader, "the partition is offline")
	assert.Equal(t, []int32{0}, p.Isr(), "without ELR the ISR never becomes empty")
	assert.Equal(t, 1, f.c.Metrics()[metrics.OfflinePartitionsCount])
	assert.Equal(t, 1, f.c.Metrics()[metrics.PreferredReplicaImbalanceCount], "a leaderless partition counts as imbalanced")
}

func TestTheLastIsrMemberWithElrMovesToTheElr(t *testing.T) {
	f := newFixture(t, nil, 0, 1)
	f.topic("t", part{replicas: []int32{0, 1}, leader: 0, isr: []int32{0}})
	require.NoError(t, f.c.ExpireSession(0, 10))
	p := f.p("t", 0)
	assert.Equal(t, metadata.NoLeader, p.Leader)
	assert.Empty(t, p.Isr())
	assert.Equal(t, []int32{0}, p.Elr())
	assert.Equal(t, []int32{0}, p.LastKnownElr())
}

// reRegister registers a new incarnation of a broker and returns the entries written.
func (f *fixture) reRegister(id int32, clean bool, dir string, now int64) []metadata.Entry {
	f.t.Helper()
	start := f.c.Log().NextOffset()
	prev := int64(-1)
	if clean {
		prev = f.c.Image().Broker(id).Epoch
	}
	_, err := f.c.RegisterBroker(RegisterRequest{BrokerID: id, IncarnationID: "new-" + dir, LogDirs: []string{dir}, PreviousBrokerEpoch: prev}, now)
	require.NoError(f.t, err)
	return f.entriesSince(start)
}

func TestUnfencingElectsOnlyLeaderlessPartitionsAndDoesNotRejoinIsrs(t *testing.T) {
	f := newFixture(t, nil, 0, 1, 2)
	f.topic("t",
		part{replicas: []int32{0, 1}, leader: 0, isr: []int32{0}},          // 0 is the last ISR member
		part{replicas: []int32{0, 1, 2}, leader: 0, isr: []int32{0, 1, 2}}) // others can lead
	require.NoError(t, f.c.ExpireSession(0, 10))
	f.reRegister(0, true, "dir-0", 20)
	reply := f.heartbeat(0, 30, false, false)
	assert.False(t, reply.IsFenced)

	p0, p1 := f.p("t", 0), f.p("t", 1)
	assert.Equal(t, int32(0), p0.Leader, "the leaderless partition is led by its ELR member")
	assert.Equal(t, []int32{0}, p0.Isr())
	assert.Empty(t, p0.Elr())
	assert.Equal(t, int32(1), p1.Leader, "a partition with a leader is untouched")
	assert.Equal(t, []int32{1, 2}, p1.Isr(), "unfencing does not add the broker back to any ISR")
	assert.Equal(t, int64(1), f.c.Metrics()[metrics.ElectionFromEligibleLeaderReplicasPerSec])
}

func TestAnUncleanRestartUnderElrLosesElrEligibility(t *testing.T) {
	f := newFixture(t, nil, 0, 1)
	f.topic("t", part{replicas: []int32{0, 1}, leader: 0, isr: []int32{0}})
	require.NoError(t, f.c.ExpireSession(0, 10))
	epochStart := f.c.Log().NextOffset()
	es := f.reRegister(0, false, "new-disk", 20) // a replaced disk: no clean-shutdown file
	require.Equal(t, []string{"PartitionChangeRecord", "RegisterBrokerRecord"}, types(es), "cleanup precedes the registration")
	p := f.p("t", 0)
	assert.Empty(t, p.Elr(), "the broker may have lost data, so it leaves the ELR")
	assert.Equal(t, []int32{0}, p.LastKnownElr())

	b := f.c.Image().Broker(0)
	assert.Equal(t, epochStart, b.Epoch, "the broker epoch is the offset where the registration batch starts")
	assert.Equal(t, es[1].Offset, b.RegisterOffset)
	assert.NotEqual(t, b.Epoch, b.RegisterOffset)

	f.heartbeat(0, 30, false, false)
	p = f.p("t", 0)
	assert.Equal(t, int32(0), p.Leader, "with nothing in the ISR or ELR, the last known leader is elected")
	assert.Equal(t, metadata.Recovering, p.Recovery(), "and that election is unclean")
	assert.Equal(t, int64(1), f.c.Metrics()[metrics.UncleanLeaderElectionsPerSec])
}

func TestACleanRestartKeepsElrEligibility(t *testing.T) {
	f := newFixture(t, nil, 0, 1)
	f.topic("t", part{replicas: []int32{0, 1}, leader: 0, isr: []int32{0}})
	require.NoError(t, f.c.ExpireSession(0, 10))
	es := f.reRegister(0, true, "dir-0", 20)
	assert.Equal(t, []string{"RegisterBrokerRecord"}, types(es))
	assert.Equal(t, []int32{0}, f.p("t", 0).Elr())
}

func TestUnfencingWaitsForTheBrokerToCatchUpToItsRegistration(t *testing.T) {
	f := newFixture(t, nil, 0, 1)
	require.NoError(t, f.c.ExpireSession(0, 10))
	f.reRegister(0, true, "dir-0", 20)
	b := f.c.Image().Broker(0)
	reply, err := f.c.Heartbeat(HeartbeatRequest{BrokerID: 0, BrokerEpoch: b.Epoch, CurrentMetadataOffset: b.RegisterOffset - 1}, 30)
	require.NoError(t, err)
	assert.False(t, reply.IsCaughtUp)
	assert.True(t, reply.IsFenced)
	reply, err = f.c.Heartbeat(HeartbeatRequest{BrokerID: 0, BrokerEpoch: b.Epoch, CurrentMetadataOffset: b.RegisterOffset, WantFence: true}, 40)
	require.NoError(t, err)
	assert.True(t, reply.IsCaughtUp)
	assert.True(t, reply.IsFenced, "caught up but still recovering its logs (WantFence)")
	reply, err = f.c.Heartbeat(HeartbeatRequest{BrokerID: 0, BrokerEpoch: b.Epoch, CurrentMetadataOffset: b.RegisterOffset}, 50)
	require.NoError(t, err)
	assert.False(t, reply.IsFenced)
}

func TestARegistrationIsRefusedWhileTheOldSessionIsAlive(t *testing.T) {
	f := newFixture(t, kafkaSession, 0, 1)
	f.heartbeat(0, 1000, false, false)
	_, err := f.c.RegisterBroker(RegisterRequest{BrokerID: 0, IncarnationID: "second", LogDirs: []string{"d"}, PreviousBrokerEpoch: -1}, 5000)
	var apiError *APIError
	require.ErrorAs(t, err, &apiError)
	assert.Equal(t, DuplicateBrokerRegistration, apiError.Code)

	_, err = f.c.RegisterBroker(RegisterRequest{BrokerID: 0, IncarnationID: "second", LogDirs: []string{"d"}, PreviousBrokerEpoch: -1}, 10_001)
	assert.NoError(t, err, "after broker.session.timeout.ms the old session has expired")
	assert.True(t, f.c.Image().Broker(0).Fenced, "a new incarnation starts fenced")
}

func TestStaleBrokerEpochIsRejected(t *testing.T) {
	f := newFixture(t, nil, 0)
	_, err := f.c.Heartbeat(HeartbeatRequest{BrokerID: 0, BrokerEpoch: 99}, 10)
	assert.ErrorContains(t, err, "STALE_BROKER_EPOCH")
	_, err = f.c.Heartbeat(HeartbeatRequest{BrokerID: 7}, 10)
	assert.ErrorContains(t, err, "BROKER_ID_NOT_REGISTERED")
}

func TestControlledShutdownMovesLeadershipThenReleasesTheBroker(t *testing.T) {
	f := newFixture(t, nil, 0, 1, 2)
	f.topic("t", part{replicas: []int32{1, 2, 0}, leader: 1, isr: []int32{1, 2, 0}})
	f.heartbeat(0, 1, false, false)
	f.heartbeat(2, 1, false, false)
	start := f.c.Log().NextOffset()
	reply := f.heartbeat(1, 10, false, true)
	assert.True(t, reply.InControlledShutdown)
	assert.False(t, reply.ShouldShutDown)
	es := f.entriesSince(start)
	require.Equal(t, []string{"BrokerRegistrationChangeRecord", "PartitionChangeRecord"}, types(es))
	assert.Equal(t, int8(1), es[0].Record.(*metadata.BrokerRegistrationChangeRecord).InControlledShutdown)
	assert.Equal(t, int32(2), f.p("t", 0).Leader)
	assert.Equal(t, 1, f.c.Metrics()[metrics.ControlledShutdownBrokerCount])

	// The other brokers have not yet reported the shutdown batch: not released.
	reply = f.heartbeat(1, 20, false, true)
	assert.False(t, reply.ShouldShutDown)
	f.heartbeat(0, 30, false, false)
	f.heartbeat(2, 30, false, false)
	reply = f.heartbeat(1, 40, false, true)
	assert.True(t, reply.ShouldShutDown, "released once every active broker has the shutdown batch")
	assert.True(t, f.c.Image().Broker(1).Fenced)
}

func TestOfflineLogDirectoryMovesLeadershipAndRecordsTheDirsLeft(t *testing.T) {
	f := newFixture(t, nil, 0, 1)
	f.topic("t", part{replicas: []int32{0, 1}, leader: 0, isr: []int32{0, 1}})
	b := f.c.Image().Broker(0)
	start := f.c.Log().NextOffset()
	_, err := f.c.Heartbeat(HeartbeatRequest{BrokerID: 0, BrokerEpoch: b.Epoch, CurrentMetadataOffset: start - 1, OfflineLogDirs: []string{"dir-0"}}, 10)
	require.NoError(t, err)
	es := f.entriesSince(start)
	require.Equal(t, []string{"PartitionChangeRecord", "BrokerRegistrationChangeRecord"}, types(es))
	assert.Equal(t, []string{}, es[1].Record.(*metadata.BrokerRegistrationChangeRecord).LogDirs)
	assert.Equal(t, int32(1), f.p("t", 0).Leader)
}

func TestNoOpRecordsEveryMetadataMaxIdleInterval(t *testing.T) {
	f := newFixture(t, nil, 0)
	f.runTasksUntil(2000)
	n := 0
	for _, e := range f.entriesSince(0) {
		if _, ok := e.Record.(*metadata.NoOpRecord); ok {
			n++
		}
	}
	assert.Equal(t, 4, n, "at 500, 1000, 1500 and 2000 ms")
}

func TestAReplicaInAnOfflineDirectoryCannotLead(t *testing.T) {
	f := newFixture(t, nil, 0, 1)
	f.topic("t", part{replicas: []int32{0, 1}, leader: 0, isr: []int32{0, 1}})
	require.NoError(t, f.c.SetConfig("t", config.MinInsyncReplicas, 2.0, 1))
	b := f.c.Image().Broker(1)
	_, err := f.c.Heartbeat(HeartbeatRequest{BrokerID: 1, BrokerEpoch: b.Epoch, CurrentMetadataOffset: f.c.Log().NextOffset() - 1,
		OfflineLogDirs: []string{"dir-1"}}, 5)
	require.NoError(t, err)
	assert.Equal(t, []int32{0}, f.p("t", 0).Isr())
	assert.Equal(t, []int32{1}, f.p("t", 0).Elr(), "below min.insync.replicas, broker 1 moves to the ELR")

	require.NoError(t, f.c.ExpireSession(0, 10))
	assert.Equal(t, metadata.NoLeader, f.p("t", 0).Leader, "broker 1's replica is in an offline directory: not an acceptable leader")
}

func TestABrokerReplayedInControlledShutdownWaitsForActiveBrokers(t *testing.T) {
	f := newFixture(t, nil, 0, 1)
	b := f.c.Image().Broker(1)
	require.NoError(t, f.c.Bootstrap([]metadata.Record{&metadata.BrokerRegistrationChangeRecord{BrokerID: 1, BrokerEpoch: b.Epoch, InControlledShutdown: 1}}))
	f.c.Activate(10) // a new active controller replays broker 1 in controlled shutdown
	reply, err := f.c.Heartbeat(HeartbeatRequest{BrokerID: 1, BrokerEpoch: b.Epoch, CurrentMetadataOffset: f.c.Log().NextOffset() - 1, WantShutDown: true}, 20)
	require.NoError(t, err)
	assert.False(t, reply.ShouldShutDown, "broker 0 has not reported the controlled-shutdown records yet")
	f.heartbeat(0, 30, false, false)
	reply = f.heartbeat(1, 40, false, true)
	assert.True(t, reply.ShouldShutDown)
}
