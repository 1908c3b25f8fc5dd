package control

import (
	"errors"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kraftlab/kraftlab/cluster/broker"
	"github.com/kraftlab/kraftlab/cluster/quorum"
	"github.com/kraftlab/kraftlab/cluster/sim"
	"github.com/kraftlab/kraftlab/engine/config"
	"github.com/kraftlab/kraftlab/engine/controller"
	"github.com/kraftlab/kraftlab/engine/metadata"
)

func TestRegistrationAndUnfencingCommitThroughTheQuorum(t *testing.T) {
	h := newHarness(t, 1, 3, brokerIDs(3), nil)
	h.startBrokers()
	active, epoch := h.waitActive(0, 5000)
	h.run(10_000)

	// The first committed entry is the active controller's LeaderChangeMessage.
	log := h.c.Committed()
	require.NotEmpty(t, log)
	lc, ok := log[0].Record.(*metadata.LeaderChangeMessage)
	require.True(t, ok, "offset 0 is %s", log[0].Record.Type())
	assert.Equal(t, active, lc.LeaderID)
	assert.Equal(t, epoch, lc.Epoch)
	assert.Len(t, lc.Voters, 3)

	for _, b := range h.brokers {
		assert.True(t, b.registered, "broker %d registered", b.id)
		assert.False(t, b.fenced, "broker %d unfenced", b.id)
		// The broker epoch is the committed offset of its RegisterBrokerRecord.
		reg, isReg := log[b.epoch].Record.(*metadata.RegisterBrokerRecord)
		require.True(t, isReg, "broker %d's epoch %d names a %s", b.id, b.epoch, log[b.epoch].Record.Type())
		assert.Equal(t, b.id, reg.BrokerID)
		// Its unfencing went through the quorum too.
		unfenced := false
		for _, e := range log[b.epoch:] {
			if r, ok := e.Record.(*metadata.BrokerRegistrationChangeRecord); ok && r.BrokerID == b.id && r.Fenced == metadata.FenceUnfence {
				unfenced = true
			}
		}
		assert.True(t, unfenced, "broker %d's unfence record is committed", b.id)
		// Every broker saw exactly the committed log, in order, the very same records.
		require.NotEmpty(t, b.got)
		for i, e := range b.got {
			require.Equal(t, int64(i), e.Offset)
			require.Same(t, log[i].Record, e.Record, "broker %d offset %d", b.id, i)
		}
		assert.Equal(t, h.view(b.id).Applied, b.applied+1)
	}
	// Every controller's committed image knows them, and agrees with the active engine.
	for _, v := range h.c.Voters() {
		im := h.image(v)
		for _, b := range h.brokers {
			reg := im.Broker(b.id)
			require.NotNil(t, reg, "controller %d knows broker %d", v, b.id)
			assert.True(t, reg.Registered)
			assert.False(t, reg.Fenced)
			assert.Equal(t, b.epoch, reg.Epoch)
		}
	}
	assert.Equal(t, summary(h.c.ActiveController().Image()), summary(h.image(active)))
	assert.Equal(t, h.committed, h.c.CommittedEnd(), "OnCommitted delivered the whole log")
	st := h.c.Stats()
	assert.Equal(t, int64(1), st.Activations)
	assert.Zero(t, st.LostReplies)
	assert.Zero(t, st.LateReplies, "no broker saw a reply before its records committed")
	assert.Greater(t, st.RecordsWritten, int64(20), "NoOps every 500 ms plus the brokers' records")
	require.NoError(t, h.c.Check())
}

func TestNoControllerAndCutLinksAnswerNotController(t *testing.T) {
	h := newHarness(t, 2, 3, brokerIDs(2), nil)
	cl := h.c.Client()
	timeout := h.c.Config().Quorum.RequestTimeoutMs

	// At time 0 nobody leads yet.
	_, delay, err := cl.Register(controller.RegisterRequest{BrokerID: 1, IncarnationID: "x", PreviousBrokerEpoch: -1}, 0)
	require.Error(t, err)
	assert.True(t, errors.Is(err, broker.ErrUnreachable))
	var api *controller.APIError
	require.True(t, errors.As(err, &api))
	assert.Equal(t, controller.NotController, api.Code)
	assert.Contains(t, api.Message, "no controller is active")
	assert.Equal(t, timeout, delay)

	active, _ := h.waitActive(0, 5000)
	h.run(2000) // the brokers' observers find the leader
	require.NoError(t, h.c.Cut(1, active))
	_, delay, err = cl.Register(controller.RegisterRequest{BrokerID: 1, IncarnationID: "x", PreviousBrokerEpoch: -1}, h.s.Now())
	require.True(t, errors.As(err, &api), "got %v", err)
	assert.Equal(t, controller.NotController, api.Code)
	assert.Contains(t, api.Message, "the active controller is node")
	assert.Contains(t, err.Error(), "is cut")
	assert.Equal(t, timeout, delay)

	// Broker 2 is not cut: it registers.
	_, delay, err = cl.Register(controller.RegisterRequest{BrokerID: 2, IncarnationID: "y", PreviousBrokerEpoch: -1}, h.s.Now())
	require.NoError(t, err)
	assert.Less(t, delay, timeout)

	// A broker that is not attached gets a clear error.
	_, _, err = cl.Heartbeat(controller.HeartbeatRequest{BrokerID: 77}, h.s.Now())
	require.Error(t, err)
	assert.Contains(t, err.Error(), "broker 77 is not attached")
	assert.GreaterOrEqual(t, h.c.Stats().NotController, int64(3))
}

func TestRepliesWaitForTheCommitAndTimeOutWithoutAMajority(t *testing.T) {
	h := newHarness(t, 3, 3, brokerIDs(3), nil)
	cl := h.c.Client()
	cfg := h.c.Config().Quorum
	hop := cfg.NetworkDelayMs + cfg.NetworkJitterMs
	active, _ := h.waitActive(0, 5000)
	h.run(2000)

	// A registration writes a record: the reply comes after the round trip and the commit.
	sent := h.s.Now()
	epoch, delay, err := cl.Register(controller.RegisterRequest{BrokerID: 1, IncarnationID: "a", PreviousBrokerEpoch: -1}, sent)
	require.NoError(t, err)
	assert.GreaterOrEqual(t, delay, 2*cfg.NetworkDelayMs+2*hop, "round trip plus one fetch round trip")
	assert.LessOrEqual(t, delay, 4*hop)
	h.run(delay)
	var regAt int64 = -1
	for _, e := range h.c.CommittedSince(epoch) {
		if r, ok := e.Record.(*metadata.RegisterBrokerRecord); ok && r.BrokerID == 1 {
			regAt = e.CommitMs
			break
		}
	}
	require.GreaterOrEqual(t, regAt, sent, "the registration is committed")
	assert.LessOrEqual(t, regAt, sent+delay, "before the reply reaches the broker")

	// A heartbeat that writes nothing, with nothing else uncommitted, is just a round trip.
	eng := h.c.ActiveController()
	for eng.Log().NextOffset() > h.view(active).HighWatermark {
		h.run(1)
	}
	_, delay, err = cl.Heartbeat(controller.HeartbeatRequest{BrokerID: 1, BrokerEpoch: epoch, CurrentMetadataOffset: -1, WantFence: true}, h.s.Now())
	require.NoError(t, err)
	assert.LessOrEqual(t, delay, 2*hop)

	// Cut the active controller from both followers: what it writes cannot commit.
	for _, f := range h.others(active) {
		require.NoError(t, h.c.Cut(active, f))
	}
	_, delay, err = cl.Register(controller.RegisterRequest{BrokerID: 2, IncarnationID: "b", PreviousBrokerEpoch: -1}, h.s.Now())
	require.Error(t, err)
	assert.True(t, IsUnreachable(err))
	var api *controller.APIError
	assert.False(t, errors.As(err, &api), "a commit timeout is not NOT_CONTROLLER: %v", err)
	assert.Contains(t, err.Error(), "cannot commit")
	assert.Equal(t, cfg.RequestTimeoutMs, delay)
	assert.Equal(t, int64(1), h.c.Stats().Timeouts)
	require.NoError(t, h.c.HealAll())
	h.run(10_000)
	assert.Zero(t, h.c.Stats().LostReplies)
}

func TestSingleVoterCommitsAtOnce(t *testing.T) {
	h := newHarness(t, 4, 1, brokerIDs(2), nil)
	h.startBrokers()
	active, epoch := h.waitActive(0, 5000)
	assert.Equal(t, int32(FirstVoterID), active)
	assert.Equal(t, int32(1), epoch)
	h.run(5000)
	for _, b := range h.brokers {
		assert.False(t, b.fenced)
		for i, d := range b.delays {
			if b.errs[i] != nil {
				continue // before the first election: nobody to answer
			}
			assert.LessOrEqual(t, d, 2*(h.c.Config().Quorum.NetworkDelayMs+h.c.Config().Quorum.NetworkJitterMs), "no commit wait with one voter")
		}
	}
	assert.Zero(t, h.c.Stats().LateReplies)
	assert.Equal(t, h.view(active).EndOffset, h.view(active).HighWatermark)
}

func TestFailoverActivatesANewControllerFromItsOwnLog(t *testing.T) {
	for seed := uint64(10); seed < 16; seed++ {
		h := newHarness(t, seed, 3, brokerIDs(3), nil)
		cfg := h.c.Config().Quorum
		rtt := 2 * (cfg.NetworkDelayMs + cfg.NetworkJitterMs)
		h.startBrokers()
		old, epoch := h.waitActive(0, 5000)
		h.run(10_000 + h.s.Rand().Child("idle").Between(0, 3000))
		oldEng := h.c.ActiveController()
		oldPhase, ok := oldEng.TaskDeadline(controller.TaskElectPreferred)
		require.True(t, ok)
		assert.Equal(t, h.view(old).ActivatedMs+300_000, oldPhase)

		killAt := h.s.Now()
		require.NoError(t, h.c.Kill(old))
		_, _, stillActive := h.c.Active()
		assert.False(t, stillActive, "seed %d: killing the active controller discards its engine", seed)
		require.Equal(t, activationNote{old, epoch, killAt}, h.resigns[len(h.resigns)-1])

		next, nextEpoch := h.waitActive(epoch, 15_000)
		v := h.view(next)
		assert.NotEqual(t, old, next)
		assert.Greater(t, nextEpoch, epoch)
		// Kafka's timeouts: the followers notice after controller.quorum.fetch.timeout.ms, elect
		// within up to two randomised election timeouts, then commit the LeaderChangeMessage.
		assert.LessOrEqual(t, v.ActivatedMs, killAt+cfg.FetchTimeoutMs+2*cfg.ElectionTimeoutMs+6*rtt, "seed %d: activated %d ms after the kill", seed, v.ActivatedMs-killAt)
		assert.GreaterOrEqual(t, v.ActivatedMs, killAt+cfg.FetchTimeoutMs-cfg.FetchMaxWaitMs-rtt, "seed %d", seed)

		// Rebuilt from its own committed log: same state, next offset right after it.
		eng := h.c.ActiveController()
		assert.Equal(t, summary(h.image(next)), summary(eng.Image()), "seed %d", seed)
		// Periodic tasks are first due one period after this activation: electPreferred's phase
		// moved with the failover.
		at, ok := eng.TaskDeadline(controller.TaskElectPreferred)
		require.True(t, ok)
		assert.Equal(t, v.ActivatedMs+300_000, at, "seed %d", seed)
		assert.NotEqual(t, oldPhase, at)
		fence, _ := eng.TaskDeadline(controller.TaskFenceStaleBroker)
		assert.Equal(t, v.ActivatedMs+1125, fence)

		// The brokers find the new controller and stay unfenced (fresh sessions on activation).
		h.run(15_000)
		for _, b := range h.brokers {
			reg := h.image(next).Broker(b.id)
			assert.False(t, reg.Fenced, "seed %d: broker %d", seed, b.id)
		}
		require.NoError(t, h.c.Start(old))
		h.run(5000)
		assert.Equal(t, h.view(next).HighWatermark, h.view(old).HighWatermark, "seed %d: the old leader caught up", seed)
		assert.Equal(t, summary(h.image(next)), summary(h.image(old)), "seed %d", seed)
		require.NoError(t, h.c.Check())
	}
}

func TestUncommittedRecordsOfALostLeaderAreGoneEverywhere(t *testing.T) {
	h := newHarness(t, 5, 3, brokerIDs(3), nil)
	h.startBrokers()
	old, epoch := h.waitActive(0, 5000)
	h.run(8000)
	hwBefore := h.view(old).HighWatermark

	for _, f := range h.others(old) {
		require.NoError(t, h.c.Cut(old, f))
	}
	// The old leader still takes writes it can never commit.
	require.NoError(t, h.c.Admin().CreateTopic(controller.CreateTopicRequest{Name: "lost", NumPartitions: 3, ReplicationFactor: 2}))
	lostEnd := h.c.EngineOf(old).Log().NextOffset()
	require.Greater(t, lostEnd, hwBefore)
	_, ok := h.c.ActiveController().Image().TopicByName("lost")
	require.True(t, ok, "the engine applied its own write at once")

	next, _ := h.waitActive(epoch, 15_000)
	require.NotEqual(t, old, next)
	h.run(5000) // the old leader resigns by check-quorum
	assert.Nil(t, h.c.EngineOf(old))
	require.NoError(t, h.c.HealAll())
	h.run(10_000)

	assert.Greater(t, h.c.QuorumStats().Truncations, int64(0))
	for _, e := range h.c.Committed() {
		if r, ok := e.Record.(*metadata.TopicRecord); ok {
			assert.NotEqual(t, "lost", r.Name, "offset %d", e.Offset)
		}
		if e.Offset >= hwBefore {
			assert.NotEqual(t, epoch, e.Epoch, "offset %d: nothing of the lost epoch committed after the cut", e.Offset)
		}
	}
	end := h.view(next).HighWatermark
	for _, v := range h.c.Voters() {
		_, has := h.image(v).TopicByName("lost")
		assert.False(t, has, "controller %d", v)
		assert.Equal(t, end, h.view(v).HighWatermark, "controller %d caught up", v)
	}
	for _, b := range h.brokers {
		for _, e := range b.got {
			if r, ok := e.Record.(*metadata.TopicRecord); ok {
				assert.NotEqual(t, "lost", r.Name)
			}
		}
		assert.False(t, b.fenced, "broker %d", b.id)
	}
	require.NoError(t, h.c.Check())
}

func TestSnapshotsBySizeAndOnDemand(t *testing.T) {
	h := newHarness(t, 6, 3, brokerIDs(3), func(c *Config) {
		c.Quorum.MaxBytesBetweenSnapshots = 2048
	})
	h.startBrokers()
	active, _ := h.waitActive(0, 5000)
	h.run(5000)
	require.NoError(t, h.c.Admin().CreateTopic(controller.CreateTopicRequest{Name: "t", NumPartitions: 6, ReplicationFactor: 3}))
	h.run(60_000)
	assert.GreaterOrEqual(t, h.c.Stats().SnapshotsTaken, int64(3), "every controller snapshots by bytes")
	for _, v := range h.c.Voters() {
		assert.True(t, h.view(v).HasSnapshot, "controller %d", v)
	}

	// On demand: the snapshot is the committed image at the high watermark, as records.
	for _, v := range h.c.Voters() {
		id, err := h.c.Snapshot(v)
		require.NoError(t, err)
		assert.Equal(t, h.view(v).HighWatermark, id.EndOffset)
		snap := h.c.LatestSnapshot(v)
		require.NotNil(t, snap)
		assert.Equal(t, id.EndOffset, snap.EndOffset)
		assert.Equal(t, snapshotBytes(snap.Records()), snap.Bytes)
		rebuilt := metadata.NewImage()
		for _, e := range snap.Entries() {
			require.NoError(t, rebuilt.Replay(e))
		}
		assert.Equal(t, summary(h.image(v)), summary(rebuilt), "controller %d", v)
	}
	_, err := h.c.Snapshot(active)
	require.Error(t, err, "nothing new is committed in the same instant")
	assert.Contains(t, err.Error(), "nothing to snapshot")
}

func TestFarBehindNodesLoadTheSnapshotAndConverge(t *testing.T) {
	h := newHarness(t, 7, 3, brokerIDs(3), func(c *Config) {
		c.Quorum.MaxBytesBetweenSnapshots = 2048
		c.Quorum.RetentionBytes = 1 // keep only the newest snapshot's suffix of the log
	})
	h.startBrokers()
	active, _ := h.waitActive(0, 5000)
	h.run(5000)
	follower := h.others(active)[0]
	lagger := h.brokers[2]
	require.NoError(t, h.c.Kill(follower))
	require.NoError(t, h.c.Kill(lagger.id))
	lagger.stop()
	require.NoError(t, h.c.Admin().CreateTopic(controller.CreateTopicRequest{Name: "t", NumPartitions: 4, ReplicationFactor: 2}))
	h.run(60_000)
	leaderView := h.view(active)
	require.Greater(t, leaderView.LogStartOffset, h.view(follower).EndOffset, "the leader dropped what the follower lacks")
	require.Greater(t, leaderView.LogStartOffset, h.view(lagger.id).EndOffset)

	loaded := h.c.Stats().SnapshotsLoaded
	require.NoError(t, h.c.Start(follower))
	require.NoError(t, h.c.Start(lagger.id))
	h.run(5000)
	assert.GreaterOrEqual(t, h.c.Stats().SnapshotsLoaded, loaded+2, "the controller and the broker downloaded a snapshot")
	assert.Greater(t, h.c.QuorumStats().SnapshotsLoaded, int64(1))

	// The controller converged: same offset, same state as the leader.
	for h.view(follower).HighWatermark != h.view(active).HighWatermark {
		h.run(1)
	}
	assert.Equal(t, summary(h.image(active)), summary(h.image(follower)))
	_, has := h.image(follower).TopicByName("t")
	assert.True(t, has)

	// The broker got the snapshot, then the log after it.
	require.NotEmpty(t, lagger.snaps)
	snap := lagger.snaps[0]
	assert.Greater(t, snap.EndOffset, int64(0))
	rebuilt := metadata.NewImage()
	for _, e := range lagger.snapAt[0] {
		require.NoError(t, rebuilt.Replay(e))
	}
	_, has = rebuilt.TopicByName("t")
	assert.True(t, has, "the snapshot carries the topic created while the broker was away")
	require.NotEmpty(t, lagger.got)
	assert.Equal(t, snap.EndOffset, lagger.got[0].Offset, "entries continue right after the snapshot")
	log := h.c.Committed()
	for _, e := range lagger.got {
		require.Same(t, log[e.Offset].Record, e.Record)
	}
	assert.Equal(t, h.view(active).HighWatermark, h.view(lagger.id).Applied)
	require.NoError(t, h.c.Check())
}

func TestBootstrapRecordsAreWrittenOnceByTheFirstController(t *testing.T) {
	boot := func(c *controller.Controller, _ int64) error {
		var recs []metadata.Record
		next := c.Log().NextOffset()
		for i, id := range []int32{1, 2, 3} {
			recs = append(recs, &metadata.RegisterBrokerRecord{BrokerID: id, IncarnationID: "boot", BrokerEpoch: next + int64(i), LogDirs: []string{"d"}})
		}
		v := "2"
		recs = append(recs, &metadata.ConfigRecord{ResourceType: metadata.ResourceBroker, Name: config.MinInsyncReplicas, Value: &v})
		return c.Bootstrap(recs)
	}
	h := newHarness(t, 8, 3, brokerIDs(3), func(c *Config) { c.Bootstrap = boot })
	old, epoch := h.waitActive(0, 5000)
	h.run(1000)
	types := h.committedTypes()
	require.GreaterOrEqual(t, len(types), 5)
	assert.Equal(t, []string{"LeaderChangeMessage", "RegisterBrokerRecord", "RegisterBrokerRecord", "RegisterBrokerRecord", "ConfigRecord"}, types[:5])
	assert.Equal(t, int64(1), h.c.Committed()[1].Offset)
	assert.Equal(t, int64(1), h.image(old).Broker(1).Epoch)

	require.NoError(t, h.c.Kill(old))
	h.waitActive(epoch, 15_000)
	h.run(1000)
	assert.Equal(t, int64(1), h.c.Stats().Bootstraps, "a log with metadata is not bootstrapped again")
	n := 0
	for _, t := range h.committedTypes() {
		if t == "RegisterBrokerRecord" {
			n++
		}
	}
	assert.Equal(t, 3, n)
	assert.Equal(t, int64(2), config.Int64(config.MinInsyncReplicas, &h.c.ActiveController().Image().Cluster))

	failing := newHarness(t, 8, 1, nil, func(c *Config) {
		c.Bootstrap = func(*controller.Controller, int64) error { return errors.New("no such broker") }
	})
	_, err := failing.s.RunUntil(5000)
	require.NoError(t, err)
	require.Error(t, failing.c.Err())
	assert.Contains(t, failing.c.Err().Error(), "no such broker")
	assert.Contains(t, failing.c.Err().Error(), "seed 8")
}

func TestOperatorActionsGoToTheActiveController(t *testing.T) {
	h := newHarness(t, 9, 3, brokerIDs(3), nil)
	err := h.c.Admin().CreateTopic(controller.CreateTopicRequest{Name: "t", NumPartitions: 1, ReplicationFactor: 1})
	var api *controller.APIError
	require.True(t, errors.As(err, &api))
	assert.Equal(t, controller.NotController, api.Code)

	h.startBrokers()
	h.waitActive(0, 5000)
	h.run(5000)
	require.NoError(t, h.c.Admin().CreateTopic(controller.CreateTopicRequest{Name: "t", NumPartitions: 3, ReplicationFactor: 3}))
	require.NoError(t, h.c.Admin().SetConfig("t", config.MinInsyncReplicas, int64(2)))
	require.NoError(t, h.c.Admin().SetConfig("", config.LeaderImbalanceElectionAlgorithm, config.AlgorithmWaitForSync))
	require.NoError(t, h.c.Admin().SetFeature(config.EligibleLeaderReplicasVersion, int64(0)))
	res, err := h.c.Admin().ElectLeaders(controller.ElectionPreferred, []controller.TopicPartition{{Topic: "t", Partition: 0}, {Topic: "nope", Partition: 0}})
	require.NoError(t, err)
	require.Len(t, res, 2)
	assert.Equal(t, controller.ElectionNotNeeded, res[0].Error.Code)
	assert.Equal(t, controller.UnknownTopicOrPartition, res[1].Error.Code)
	require.NoError(t, h.c.Admin().ElectPreferredNow())
	require.Error(t, h.c.Admin().DeleteTopic("nope"))
	h.run(100)
	for _, v := range h.c.Voters() {
		im := h.image(v)
		ti, ok := im.TopicByName("t")
		require.True(t, ok, "controller %d", v)
		assert.Equal(t, int64(2), config.Int64(config.MinInsyncReplicas, &im.Topics[ti].Configs))
		assert.Equal(t, config.AlgorithmWaitForSync, config.Str(config.LeaderImbalanceElectionAlgorithm, &im.Cluster))
		assert.False(t, im.ElrEnabled())
	}
	require.NoError(t, h.c.Admin().DeleteTopic("t"))
	h.run(100)
	_, ok := h.image(h.c.Voters()[0]).TopicByName("t")
	assert.False(t, ok)
	assert.NotEmpty(t, h.c.ActiveController().TakeBalancerRuns(), "ElectPreferredNow ran the task")
}

func TestFaultAndInputErrorsNameTheProblem(t *testing.T) {
	h := newHarness(t, 11, 3, brokerIDs(1), nil)
	err := h.c.Kill(42)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "node 42 is neither a controller [3000 3001 3002] nor an attached broker")
	err = h.c.Start(3000)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "node 3000 is already running")
	err = h.c.AddBroker(3001)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "node 3001 already exists")
	err = h.c.AddBroker(-4)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "broker id -4 is negative")
	_, err = h.c.CommittedImage(1)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "node 1 is a broker")
	_, err = h.c.Client().AlterPartition(make([]controller.AlterPartitionRequest, 2), make([]error, 1), 0)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "2 requests but room for 1 results")

	cfg := DefaultConfig()
	cfg.Quorum.Voters = VoterIDs(2)
	_, err = New(h.s, cfg)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "KRaft Lab allows 1, 3 or 5")
	cfg = DefaultConfig()
	cfg.Brokers = []int32{1, 1}
	_, err = New(h.s, cfg)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "Config.Brokers[1]")
	_, err = New(nil, DefaultConfig())
	require.Error(t, err)

	// Fault actions are refused from inside a quorum callback.
	var inside error
	h.c.SetCallbacks(Callbacks{OnCommitted: func([]CommittedEntry) {
		if inside == nil {
			inside = h.c.Kill(3000)
		}
	}})
	h.run(5000)
	require.Error(t, inside)
	assert.Contains(t, inside.Error(), "from inside a quorum callback")
}

func TestInvariantViolationsNameSeedTimeAndBothFacts(t *testing.T) {
	h := newHarness(t, 12, 3, nil, nil)
	var seen []Violation
	h.c.SetCallbacks(Callbacks{OnViolation: func(v Violation) { seen = append(seen, v) }})
	active, _ := h.waitActive(0, 5000)
	h.run(2000)
	require.NoError(t, h.c.Err())

	// A node "committing" a different record at an offset the cluster already committed.
	forged := []quorum.Entry[metadata.Record]{{Offset: 1, Epoch: 1, Payload: &metadata.RemoveTopicRecord{Topic: "x"}}}
	h.c.log.extend(&h.c.iv, active, forged, h.c.log.convert(forged), h.s.Now())
	require.Len(t, seen, 1)
	v := seen[0]
	assert.Equal(t, uint64(12), v.Seed)
	assert.Equal(t, h.s.Now(), v.AtMs)
	assert.Equal(t, "one committed metadata log", v.Rule)
	assert.Contains(t, v.Fact, "offset 1 was committed as")
	assert.Contains(t, v.Conflict, "commits RemoveTopicRecord")
	require.ErrorIs(t, h.c.Err(), v)

	// An image whose epochs went down.
	old := metadata.NewImage()
	require.NoError(t, old.Replay(metadata.Entry{Offset: 0, Record: &metadata.TopicRecord{Name: "t", TopicID: "T"}}))
	require.NoError(t, old.Replay(metadata.Entry{Offset: 1, Record: &metadata.PartitionRecord{Topic: "t", TopicID: "T", Replicas: []int32{1}, Isr: []int32{1}, Leader: 1, LeaderEpoch: 5, PartitionEpoch: 9}}))
	cur := metadata.NewImage()
	require.NoError(t, cur.Replay(metadata.Entry{Offset: 0, Record: &metadata.TopicRecord{Name: "t", TopicID: "T"}}))
	require.NoError(t, cur.Replay(metadata.Entry{Offset: 1, Record: &metadata.PartitionRecord{Topic: "t", TopicID: "T", Replicas: []int32{1}, Isr: []int32{1}, Leader: 1, LeaderEpoch: 4, PartitionEpoch: 9}}))
	h.c.byID[active].ctl.checkNotBelow(&h.c.iv, present(old), 1, cur)
	require.Len(t, seen, 2)
	assert.Equal(t, "partition epochs never go down", seen[1].Rule)
	assert.Contains(t, seen[1].Fact, "t-0 at leader epoch 5")
	assert.Contains(t, seen[1].Conflict, "leader epoch 4")
}

func TestCommittedEntryJSONAddsEpochAndCommitTime(t *testing.T) {
	e := CommittedEntry{Entry: metadata.Entry{Offset: 7, Record: &metadata.NoOpRecord{}}, Epoch: 3, CommitMs: 1500}
	b, err := e.MarshalJSON()
	require.NoError(t, err)
	assert.JSONEq(t, `{"offset":7,"type":"NoOpRecord","epoch":3,"commit_ms":1500}`, string(b))
	lc := CommittedEntry{Entry: metadata.Entry{Offset: 0, Record: &metadata.LeaderChangeMessage{Epoch: 2, LeaderID: 3001, Voters: []int32{3000, 3001, 3002}, GrantingVoters: []int32{3001, 3002}}}, Epoch: 2, CommitMs: 1200}
	b, err = lc.MarshalJSON()
	require.NoError(t, err)
	assert.JSONEq(t, `{"offset":0,"type":"LeaderChangeMessage","epoch":2,"leader":3001,"voters":[3000,3001,3002],"granting_voters":[3001,3002],"commit_ms":1200}`, string(b))
}

func TestRecordBytesFollowTheFieldsTheRecordCarries(t *testing.T) {
	assert.Equal(t, int32(12), RecordBytes(&metadata.NoOpRecord{}))
	one := RecordBytes(&metadata.RegisterBrokerRecord{BrokerID: 1, LogDirs: []string{"a"}})
	two := RecordBytes(&metadata.RegisterBrokerRecord{BrokerID: 1, LogDirs: []string{"a", "b"}})
	assert.Equal(t, int32(16), two-one, "one directory uuid more")
	change := metadata.NewPartitionChange("t", "T", 0)
	bare := RecordBytes(&change)
	change.Leader = 2
	change.Isr = []int32{2, 3}
	assert.Equal(t, int32(2+4+2+1+8), RecordBytes(&change)-bare, "leader and a two-member ISR as tagged fields")
	p3 := RecordBytes(&metadata.PartitionRecord{Topic: "t", Replicas: []int32{1, 2, 3}, Isr: []int32{1, 2, 3}})
	p1 := RecordBytes(&metadata.PartitionRecord{Topic: "t", Replicas: []int32{1}, Isr: []int32{1}})
	assert.Equal(t, int32(2*(4+4+16)), p3-p1)
	v := "123"
	assert.Equal(t, int32(11+1+1+1+len(config.MinInsyncReplicas)+1+3+1), RecordBytes(&metadata.ConfigRecord{Name: config.MinInsyncReplicas, Value: &v}))
	assert.Equal(t, int64(3*12+61), snapshotBytes([]metadata.Record{&metadata.NoOpRecord{}, &metadata.NoOpRecord{}, &metadata.NoOpRecord{}}))
}

func TestAlterPartitionThroughTheClient(t *testing.T) {
	h := newHarness(t, 13, 3, brokerIDs(3), nil)
	h.startBrokers()
	h.waitActive(0, 5000)
	h.run(6000)
	require.NoError(t, h.c.Admin().CreateTopic(controller.CreateTopicRequest{Name: "t", Assignments: [][]int32{{1, 2, 3}, {2, 3, 1}}}))
	h.run(100)
	im := h.c.ActiveController().Image()
	p0 := im.Partitions[0]
	reqs := []controller.AlterPartitionRequest{
		{BrokerID: 1, BrokerEpoch: h.byID[1].epoch, Topic: "t", Partition: 0, LeaderEpoch: p0.LeaderEpoch, PartitionEpoch: p0.PartitionEpoch,
			NewIsr: []int32{1, 2}, LeaderRecoveryState: metadata.NoRecoveryChange},
		{BrokerID: 1, BrokerEpoch: h.byID[1].epoch, Topic: "t", Partition: 1, LeaderEpoch: 0, PartitionEpoch: 0,
			NewIsr: []int32{1}, LeaderRecoveryState: metadata.NoRecoveryChange}, // broker 1 does not lead t-1
	}
	errs := make([]error, 2)
	sent := h.s.Now()
	delay, err := h.c.Client().AlterPartition(reqs, errs, sent)
	require.NoError(t, err)
	require.NoError(t, errs[0])
	var api *controller.APIError
	require.True(t, errors.As(errs[1], &api))
	assert.Equal(t, controller.InvalidRequest, api.Code)
	h.run(delay)
	var committed bool
	for _, e := range h.c.CommittedSince(0) {
		if r, ok := e.Record.(*metadata.PartitionChangeRecord); ok && r.Topic == "t" && r.PartitionID == 0 {
			committed = true
			assert.Equal(t, []int32{1, 2}, r.Isr)
			assert.LessOrEqual(t, e.CommitMs, sent+delay, "committed before the reply arrives")
		}
	}
	assert.True(t, committed)
	for _, v := range h.c.Voters() {
		p := h.image(v).Partitions[0]
		assert.Equal(t, []int32{1, 2}, p.Isr(), "controller %d", v)
		assert.Equal(t, p0.PartitionEpoch+1, p.PartitionEpoch)
	}
}

// probe is a sim.Handler that runs a function, for checks between two events of one instant.
type probe func()

func (p probe) HandleEvent(sim.Event) { p() }

func TestRequestsFromInsideCallbacksAreShippedAtTheSameTime(t *testing.T) {
	h := newHarness(t, 14, 3, nil, nil)
	var at int64 = -1
	var offset, endInHook, endAfter int64
	h.c.SetCallbacks(Callbacks{OnCommitted: func(es []CommittedEntry) {
		if at >= 0 || es[0].Offset == 0 {
			return
		}
		at = h.s.Now()
		require.NoError(t, h.c.Admin().SetConfig("", config.LeaderImbalanceElectionAlgorithm, config.AlgorithmWaitForSync))
		offset = h.c.ActiveController().Log().NextOffset() - 1
		active, _, _ := h.c.Active()
		endInHook = h.view(active).EndOffset
		// Runs after the shipping event, which SetConfig scheduled first, in the same instant.
		_, err := h.s.After(0, sim.Event{Target: probe(func() { endAfter = h.view(active).EndOffset })})
		require.NoError(t, err)
	}})
	active, _ := h.waitActive(0, 5000)
	h.run(2000)
	require.GreaterOrEqual(t, at, int64(0))
	assert.Equal(t, offset, endInHook, "not appended inside the quorum hook")
	assert.Equal(t, offset+1, endAfter, "appended by an event at the same virtual time")
	e := h.c.CommittedSince(offset)[0]
	assert.Equal(t, offset, e.Offset)
	assert.Equal(t, "ConfigRecord", e.Record.Type())
	assert.Equal(t, config.AlgorithmWaitForSync, config.Str(config.LeaderImbalanceElectionAlgorithm, &h.image(active).Cluster))
}

func TestDroppingTheRetainedLogKeepsTheRunGoing(t *testing.T) {
	h := newHarness(t, 15, 3, brokerIDs(2), nil)
	h.startBrokers()
	active, _ := h.waitActive(0, 5000)
	h.run(5000)
	follower := h.others(active)[0]
	require.NoError(t, h.c.Kill(follower))
	h.run(5000)
	end := h.c.CommittedEnd()
	h.c.DropCommittedBefore(end - 3)
	assert.Equal(t, end, h.c.CommittedEnd())
	require.Len(t, h.c.Committed(), 3)
	assert.Equal(t, end-3, h.c.CommittedSince(0)[0].Offset)
	assert.Nil(t, h.c.CommittedSince(end))
	h.c.DropCommittedBefore(0) // below the retained range: nothing to do
	require.Len(t, h.c.Committed(), 3)

	// The restarted follower re-commits offsets no longer retained: they are not compared, and
	// its image still converges.
	require.NoError(t, h.c.Start(follower))
	h.settle(5000)
	assert.Equal(t, summary(h.image(active)), summary(h.image(follower)))
	assert.Empty(t, h.c.Violations())
	assert.Empty(t, h.c.QuorumViolations())
}

// TestControllersStopKeepingDeletedSnapshots: a controller keeps old partition values only for
// the snapshots it still holds; retention deleting one releases it, and a far-behind controller
// that downloads one freezes it, so that it loads the content the snapshot was taken with.
func TestControllersStopKeepingDeletedSnapshots(t *testing.T) {
	h := newHarness(t, 7, 3, brokerIDs(3), func(c *Config) {
		c.Quorum.MaxBytesBetweenSnapshots = 2048
		c.Quorum.RetentionBytes = 1 // keep only the newest snapshot
	})
	h.startBrokers()
	active, _ := h.waitActive(0, 5000)
	h.run(5000)
	follower := h.others(active)[0]
	require.NoError(t, h.c.Kill(follower))
	require.NoError(t, h.c.Admin().CreateTopic(controller.CreateTopicRequest{Name: "t", NumPartitions: 40, ReplicationFactor: 3}))
	h.run(60_000)
	require.Greater(t, h.c.Stats().SnapshotsTaken, int64(6))
	for _, v := range h.c.Voters() {
		assert.LessOrEqual(t, len(h.c.byID[v].ctl.snaps), 1, "controller %d holds one snapshot", v)
	}
	loaded := h.c.Stats().SnapshotsLoaded
	require.NoError(t, h.c.Start(follower))
	for h.view(follower).HighWatermark != h.view(active).HighWatermark {
		h.run(1)
	}
	require.NoError(t, h.c.Check())
	assert.Greater(t, h.c.Stats().SnapshotsLoaded, loaded, "the follower downloaded a snapshot")
	assert.Equal(t, summary(h.image(active)), summary(h.image(follower)), "the downloaded snapshot rebuilt the same state")
	snap := h.c.LatestSnapshot(active)
	assert.Nil(t, snap.owner, "LatestSnapshot hands out a frozen snapshot")
	assert.Equal(t, snapshotBytes(snap.Records()), snap.Bytes)
}

// TestTrimmedCommittedLogKeepsWhatNodesMayStillCommit: with SetTrimCommitted the retained log
// starts at or below every node's high watermark and latest snapshot, so a node restarting from
// its snapshot still finds its entries there and is checked against them.
func TestTrimmedCommittedLogKeepsWhatNodesMayStillCommit(t *testing.T) {
	h := newHarness(t, 5, 3, brokerIDs(3), func(c *Config) {
		c.Quorum.MaxBytesBetweenSnapshots = 2048
		c.Quorum.RetentionBytes = 1
	})
	h.c.SetTrimCommitted(true)
	h.startBrokers()
	active, _ := h.waitActive(0, 5000)
	h.run(5000)
	for i := range 12 {
		require.NoError(t, h.c.Admin().CreateTopic(controller.CreateTopicRequest{Name: "t" + strconv.Itoa(i), NumPartitions: 1000, ReplicationFactor: 3}))
		h.run(5000)
	}
	base := h.c.CommittedSince(0)[0].Offset
	require.Positive(t, base, "the retained log was trimmed")
	for _, id := range append(h.c.Voters(), h.c.Brokers()...) {
		v := h.view(id)
		assert.LessOrEqual(t, base, v.HighWatermark, "node %d", id)
		assert.LessOrEqual(t, base, v.Snapshot.EndOffset, "node %d", id)
	}
	// A controller restarting from its snapshot commits its entries again from there.
	follower := h.others(active)[0]
	require.NoError(t, h.c.Kill(follower))
	require.NoError(t, h.c.Start(follower))
	h.run(5000)
	require.NoError(t, h.c.Check())
	assert.Equal(t, summary(h.image(active)), summary(h.image(follower)))
}
