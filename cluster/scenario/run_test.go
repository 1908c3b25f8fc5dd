package scenario

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kraftlab/kraftlab/engine/metadata"
	"github.com/kraftlab/kraftlab/internal/jsskip"
)

// runJSON parses and runs a scenario that must be valid.
func runJSON(t *testing.T, src string) *Result {
	t.Helper()
	s, err := Parse([]byte(src))
	require.NoError(t, err)
	res, err := Run(s)
	require.NoError(t, err)
	return res
}

// records returns a step's records of one type.
func records[T metadata.Record](st StepResult) []T {
	var out []T
	for _, r := range st.Records {
		if v, ok := r.Record.(T); ok {
			out = append(out, v)
		}
	}
	return out
}

func brokerState(res *Result, id int32) BrokerState {
	for _, b := range res.Brokers {
		if b.ID == id {
			return b
		}
	}
	return BrokerState{}
}

func TestSetupIsWrittenBeforeTheFirstStepAndNotReported(t *testing.T) {
	res := runJSON(t, `{"mode": "controller", "seed": 5,
	 "features": {"eligible.leader.replicas.version": 1},
	 "config": {"min.insync.replicas": 2, "metadata.max.idle.interval.ms": 0},
	 "brokers": [{"id": 2}, {"id": 0}, {"id": 1, "fenced": true}],
	 "topics": [{"name": "foo", "partitions": [{"replicas": [1, 2, 3], "isr": [2, 3], "leader": 2, "elr": [1]}]},
	            {"name": "bar", "partition_count": 4, "replication_factor": 3, "config": {"unclean.leader.election.enable": true}}],
	 "steps": [{"op": "describe"}, {"op": "set_config", "name": "min.insync.replicas", "value": 3}]}`)
	require.Len(t, res.Steps, 2)
	assert.Empty(t, res.Steps[0].Records, "setup records belong to no step")
	parts := res.Steps[0].Partitions
	require.Len(t, parts, 5)
	assert.Equal(t, PartitionState{Topic: "foo", Partition: 0, Leader: 2, Replicas: []int32{1, 2, 3}, Isr: []int32{2, 3},
		Elr: []int32{1}, LastKnownElr: []int32{}}, parts[0], "broker 3 was never registered: a replica all the same")
	for _, p := range parts[1:] {
		assert.Equal(t, "bar", p.Topic)
		assert.Len(t, p.Replicas, 3)
		assert.Equal(t, p.Replicas, p.Isr, "placed as if created on a healthy cluster: all in sync")
		assert.Equal(t, p.Replicas[0], p.Leader, "the preferred replica leads")
		assert.ElementsMatch(t, []int32{0, 1, 2}, p.Replicas, "placed over every listed broker, the fenced one too")
	}
	// Setup: 1 feature, 1 dynamic config (the idle interval is static), 3 brokers by id, foo
	// (2 records), bar (1 + 1 config + 4).
	assert.Equal(t, int64(13), res.Steps[1].Records[0].Offset)
	assert.Equal(t, []BrokerState{{ID: 0, Epoch: 2, State: StateUnfenced}, {ID: 1, Epoch: 3, State: StateFenced}, {ID: 2, Epoch: 4, State: StateUnfenced}},
		res.Brokers, "registered by id; an epoch is the offset of its registration; broker 3 is not a registered broker")
}

func TestBrokersHeartbeatFromRegistrationHeartbeatsBeforeTasks(t *testing.T) {
	// With heartbeats every 9 × 1125 ms, a heartbeat and the maybeFenceStaleBroker task fall due
	// together: the heartbeat goes first and keeps the session (last contact + 9000 ms) alive.
	res := runJSON(t, `{"mode": "controller", "config": {"broker.heartbeat.interval.ms": 10125},
	 "brokers": [{"id": 0}], "steps": [{"op": "advance", "ms": 60000}]}`)
	assert.Empty(t, records[*metadata.BrokerRegistrationChangeRecord](res.Steps[0]), "never fenced")

	// A broker registered at 500 ms heartbeats at 2500 ms: its session then lasts until 11500 ms,
	// which a second registration probes.
	res = runJSON(t, `{"mode": "controller", "steps": [
	 {"op": "advance", "ms": 500}, {"op": "register", "broker": 5},
	 {"op": "advance", "ms": 2100}, {"op": "stop", "broker": 5},
	 {"op": "advance", "ms": 8900}, {"op": "register", "broker": 5},
	 {"op": "advance", "ms": 1}, {"op": "register", "broker": 5}]}`)
	require.NotNil(t, res.Steps[5].Error)
	assert.Equal(t, "DUPLICATE_BROKER_REGISTRATION", res.Steps[5].Error.Code, "at 11500 ms the last heartbeat (2500 ms) is 9000 ms old: alive")
	assert.Nil(t, res.Steps[7].Error, "at 11501 ms it has expired")
	assert.Len(t, records[*metadata.RegisterBrokerRecord](res.Steps[7]), 1)
}

func TestFenceKeepsAnAliveBrokerFencedUntilUnfence(t *testing.T) {
	res := runJSON(t, `{"mode": "controller", "brokers": [{"id": 0}, {"id": 1}],
	 "topics": [{"name": "foo", "partitions": [{"replicas": [1, 0]}]}],
	 "steps": [{"op": "fence", "broker": 1}, {"op": "advance", "ms": 30000}, {"op": "unfence", "broker": 1}]}`)
	fence := records[*metadata.BrokerRegistrationChangeRecord](res.Steps[0])
	require.Len(t, fence, 1)
	assert.Equal(t, metadata.FenceFence, fence[0].Fenced)
	assert.Equal(t, []int32{0}, records[*metadata.PartitionChangeRecord](res.Steps[0])[0].Isr)
	assert.Empty(t, records[*metadata.BrokerRegistrationChangeRecord](res.Steps[1]), "its heartbeats go on with WantFence")
	unfence := records[*metadata.BrokerRegistrationChangeRecord](res.Steps[2])
	require.Len(t, unfence, 1)
	assert.Equal(t, metadata.FenceUnfence, unfence[0].Fenced)
	assert.Equal(t, StateUnfenced, brokerState(res, 1).State)
	assert.Equal(t, []int32{0}, res.Partitions[0].Isr, "unfencing does not add it back to the ISR")
}

func TestABrokerFencedBySessionExpiryWhileAliveStaysFenced(t *testing.T) {
	// Heartbeats every 20 s outlive a 9 s session: the task fences the broker while it runs.
	res := runJSON(t, `{"mode": "controller", "config": {"broker.heartbeat.interval.ms": 20000},
	 "brokers": [{"id": 0}], "steps": [{"op": "advance", "ms": 45000}, {"op": "unfence", "broker": 0}]}`)
	fences := records[*metadata.BrokerRegistrationChangeRecord](res.Steps[0])
	require.Len(t, fences, 1, "its later heartbeats ask to stay fenced instead of unfencing it at once")
	assert.Equal(t, metadata.FenceFence, fences[0].Fenced)
	assert.Equal(t, int64(10125), res.Steps[0].Records[0].TimeMs)
	unfence := records[*metadata.BrokerRegistrationChangeRecord](res.Steps[1])
	require.Len(t, unfence, 1)
	assert.Equal(t, metadata.FenceUnfence, unfence[0].Fenced)
}

func TestRegisterIsRefusedWhileTheOldSessionIsAlive(t *testing.T) {
	res := runJSON(t, `{"mode": "controller", "brokers": [{"id": 0}, {"id": 1}],
	 "steps": [{"op": "advance", "ms": 3000}, {"op": "register", "broker": 1, "clean_shutdown": true}, {"op": "advance", "ms": 20000}]}`)
	require.NotNil(t, res.Steps[1].Error)
	assert.Equal(t, "DUPLICATE_BROKER_REGISTRATION", res.Steps[1].Error.Code)
	assert.Empty(t, res.Steps[1].Records)
	assert.Empty(t, res.Steps[2].Records, "the old incarnation carries on heartbeating")
	// Offsets: the ELR feature, the cluster min.insync.replicas ELR asks for, broker 0, broker 1.
	assert.Equal(t, BrokerState{ID: 1, Epoch: 3, State: StateUnfenced}, brokerState(res, 1))
}

func TestRegisterNewIncarnationsAndDisks(t *testing.T) {
	res := runJSON(t, `{"mode": "controller", "brokers": [{"id": 0}, {"id": 1}],
	 "topics": [{"name": "foo", "partitions": [{"replicas": [0, 1]}]}],
	 "steps": [{"op": "stop", "broker": 1}, {"op": "advance", "ms": 11000},
	  {"op": "register", "broker": 1, "clean_shutdown": true},
	  {"op": "stop", "broker": 1}, {"op": "advance", "ms": 10000},
	  {"op": "register", "broker": 1, "lost_disk": true},
	  {"op": "register", "broker": 9}]}`)
	first := records[*metadata.RegisterBrokerRecord](res.Steps[2])[0]
	second := records[*metadata.RegisterBrokerRecord](res.Steps[5])[0]
	assert.True(t, first.Fenced, "a new incarnation starts fenced")
	assert.NotEqual(t, first.IncarnationID, second.IncarnationID)
	assert.NotEqual(t, first.LogDirs, second.LogDirs, "a lost disk comes back with a new log-dir id")
	assert.Len(t, second.LogDirs, 1)
	assert.Equal(t, StateFenced, brokerState(res, 1).State, "fenced until unfence")
	newcomer := records[*metadata.RegisterBrokerRecord](res.Steps[6])
	require.Len(t, newcomer, 1, "a broker id never seen before registers for the first time")
	assert.Equal(t, StateFenced, brokerState(res, 9).State)
}

func TestControlledShutdownWaitsForLeadershipsAndActiveBrokers(t *testing.T) {
	// A broker that starts in controlled shutdown while leading keeps its leadership: Kafka
	// moves leaderships only on the transition into controlled shutdown, which is behind it.
	res := runJSON(t, `{"mode": "controller", "brokers": [{"id": 0}, {"id": 1, "in_controlled_shutdown": true}],
	 "topics": [{"name": "foo", "partitions": [{"replicas": [1, 0]}]}],
	 "steps": [{"op": "advance", "ms": 10000}]}`)
	assert.Empty(t, res.Steps[0].Records)
	assert.Equal(t, StateControlledShutdown, brokerState(res, 1).State)

	// Asked by the scenario, the shutdown moves leaderships, then releases the broker.
	res = runJSON(t, `{"mode": "controller", "brokers": [{"id": 0}, {"id": 1}],
	 "topics": [{"name": "foo", "partitions": [{"replicas": [1, 0]}]}],
	 "steps": [{"op": "advance", "ms": 1000}, {"op": "controlled_shutdown", "broker": 1}, {"op": "advance", "ms": 5000}]}`)
	cs := res.Steps[1].Records
	require.Len(t, cs, 2)
	assert.Equal(t, int8(1), cs[0].Record.(*metadata.BrokerRegistrationChangeRecord).InControlledShutdown)
	assert.Equal(t, int32(0), cs[1].Record.(*metadata.PartitionChangeRecord).Leader)
	released := records[*metadata.BrokerRegistrationChangeRecord](res.Steps[2])
	require.Len(t, released, 1)
	assert.Equal(t, metadata.FenceFence, released[0].Fenced)
	assert.Equal(t, int64(2000), res.Steps[2].Records[0].TimeMs, "broker 0 heartbeats first at 2000 ms, past the shutdown batch")
	assert.Equal(t, StateStopped, brokerState(res, 1).State)
}

func TestStoppedBrokersCannotAct(t *testing.T) {
	res := runJSON(t, `{"mode": "controller", "brokers": [{"id": 0}, {"id": 1}],
	 "topics": [{"name": "foo", "partitions": [{"replicas": [1, 0]}]}],
	 "steps": [{"op": "stop", "broker": 1}, {"op": "stop", "broker": 1}, {"op": "unfence", "broker": 1},
	  {"op": "controlled_shutdown", "broker": 1}, {"op": "offline_dir", "broker": 1}, {"op": "isr_join", "broker": 1},
	  {"op": "alter_partition", "topic": "foo", "partition": 0, "isr": [1]}]}`)
	for _, st := range res.Steps[1:] {
		require.NotNil(t, st.Error, st.Op)
		assert.Equal(t, CodeBrokerNotRunning, st.Error.Code, st.Op)
		assert.Equal(t, "broker 1 is stopped; register it first", st.Error.Message)
		assert.Empty(t, st.Records)
	}
}

func TestAlterPartitionNeedsASender(t *testing.T) {
	res := runJSON(t, `{"mode": "controller", "brokers": [{"id": 0}, {"id": 1}],
	 "topics": [{"name": "foo", "partitions": [{"replicas": [1, 0], "isr": [], "leader": -1}]}, {"name": "gone", "partitions": [{"replicas": [0]}]}],
	 "steps": [{"op": "alter_partition", "topic": "foo", "partition": 0, "isr": [1]},
	  {"op": "alter_partition", "topic": "foo", "partition": 0, "isr": [1], "broker": 1},
	  {"op": "delete_topic", "name": "gone"},
	  {"op": "alter_partition", "topic": "gone", "partition": 0, "isr": [0]}]}`)
	assert.Equal(t, &StepError{Code: CodeNoLeader, Message: "foo-0 has no leader to send AlterPartition; name a broker"}, res.Steps[0].Error)
	assert.Equal(t, "INVALID_REQUEST", res.Steps[1].Error.Code, "a named sender goes to the controller, which checks it")
	assert.Equal(t, "UNKNOWN_TOPIC_OR_PARTITION", res.Steps[3].Error.Code)
}

func TestIsrJoinAndLeaveFollowTopicThenPartitionOrder(t *testing.T) {
	res := runJSON(t, `{"mode": "controller", "brokers": [{"id": 0}, {"id": 1}, {"id": 2}],
	 "topics": [
	  {"name": "b", "partitions": [
	    {"replicas": [1, 0], "isr": [0]},
	    {"replicas": [0, 2], "isr": [0]},
	    {"replicas": [0, 1], "isr": [0]},
	    {"replicas": [2, 1], "isr": [2, 1]},
	    {"replicas": [0, 1], "isr": [], "leader": -1}]},
	  {"name": "a", "partitions": [{"replicas": [1, 2], "isr": [2]}]}],
	 "steps": [
	  {"op": "isr_join", "broker": 1, "count": 1},
	  {"op": "isr_join", "broker": 1, "preferred": true},
	  {"op": "isr_join", "broker": 1, "topic": "b"},
	  {"op": "isr_leave", "broker": 1},
	  {"op": "isr_leave", "broker": 2, "note": "broker 2 leads b-1 and a-0, is not in b-3's ISR... only b-3 applies"}]}`)
	join := func(i int) []string {
		var out []string
		for _, r := range res.Steps[i].Results {
			out = append(out, r.Topic+"-"+string(rune('0'+r.Partition))+":"+r.Error)
		}
		return out
	}
	assert.Equal(t, []string{"b-0:NONE"}, join(0), "the first partition in topic order (as created), then partition id")
	assert.Equal(t, []int32{0, 1}, records[*metadata.PartitionChangeRecord](res.Steps[0])[0].Isr, "appended at the end")
	assert.Equal(t, []string{"a-0:NONE"}, join(1), "only where it is the preferred replica; b-0 already done")
	assert.Equal(t, []string{"b-2:NONE"}, join(2), "b-3 has it already, b-4 has no leader")
	assert.Equal(t, []string{"b-0:NONE", "b-2:NONE", "b-3:NONE", "a-0:NONE"}, join(3))
	assert.Empty(t, join(4), "broker 2 leads b-1, b-3 and a-0: a leader does not drop itself")
}

func TestIsrJoinReportsTheControllersRefusals(t *testing.T) {
	res := runJSON(t, `{"mode": "controller", "brokers": [{"id": 0}, {"id": 1}],
	 "topics": [{"name": "foo", "partitions": [{"replicas": [0, 1], "isr": [0]}, {"replicas": [0, 1], "isr": [0]}]}],
	 "steps": [{"op": "fence", "broker": 1}, {"op": "isr_join", "broker": 1}]}`)
	require.Len(t, res.Steps[1].Results, 2)
	for _, r := range res.Steps[1].Results {
		assert.Equal(t, "INELIGIBLE_REPLICA", r.Error)
		assert.NotEmpty(t, r.Message)
	}
	assert.Empty(t, res.Steps[1].Records)
}

func TestElectPreferredRunsNowAndIsRescheduled(t *testing.T) {
	res := runJSON(t, `{"mode": "controller", "brokers": [{"id": 0}, {"id": 1}],
	 "topics": [{"name": "foo", "partitions": [{"replicas": [1, 0], "leader": 0}]}],
	 "steps": [{"op": "advance", "ms": 1000}, {"op": "elect_preferred"}, {"op": "advance", "ms": 300000}]}`)
	runs := res.Steps[1].BalancerRuns
	require.Len(t, runs, 1)
	next := int64(301000)
	assert.Equal(t, BalancerRun{TimeMs: 1000, Elections: []Election{{Topic: "foo", Partition: 0, Leader: 1}}, NextRunMs: &next}, runs[0])
	require.Len(t, res.Steps[2].BalancerRuns, 1)
	assert.Equal(t, int64(301000), res.Steps[2].BalancerRuns[0].TimeMs, "the period counts from the manual run, not from activation")
	assert.Empty(t, res.Steps[2].BalancerRuns[0].Elections)
}

func TestOfflineDirMovesTheBrokersReplicasOut(t *testing.T) {
	res := runJSON(t, `{"mode": "controller", "brokers": [{"id": 0}, {"id": 1}],
	 "topics": [{"name": "foo", "partitions": [{"replicas": [1, 0]}, {"replicas": [0, 1]}]}],
	 "steps": [{"op": "offline_dir", "broker": 1}, {"op": "advance", "ms": 10000}]}`)
	pcs := records[*metadata.PartitionChangeRecord](res.Steps[0])
	require.Len(t, pcs, 2)
	assert.Equal(t, int32(0), pcs[0].Leader)
	brc := records[*metadata.BrokerRegistrationChangeRecord](res.Steps[0])
	require.Len(t, brc, 1)
	assert.Equal(t, []string{}, brc[0].LogDirs, "no directory left online")
	assert.Empty(t, res.Steps[1].Records, "reporting the same offline directory again changes nothing")
	assert.Equal(t, StateUnfenced, brokerState(res, 1).State)
}

func TestCreateAndDeleteTopics(t *testing.T) {
	res := runJSON(t, `{"mode": "controller", "brokers": [{"id": 0}, {"id": 1}, {"id": 2, "fenced": true}],
	 "steps": [
	  {"op": "create_topic", "name": "placed", "partition_count": 4, "replication_factor": 2, "config": {"min.insync.replicas": 2}},
	  {"op": "create_topic", "name": "manual", "partitions": [{"replicas": [2, 1]}]},
	  {"op": "create_topic", "name": "placed", "partition_count": 1, "replication_factor": 1},
	  {"op": "create_topic", "name": "big", "partition_count": 1, "replication_factor": 3},
	  {"op": "delete_topic", "name": "placed"},
	  {"op": "describe"}]}`)
	placed := records[*metadata.PartitionRecord](res.Steps[0])
	require.Len(t, placed, 4)
	for _, p := range placed {
		assert.ElementsMatch(t, []int32{0, 1}, p.Replicas, "the unfenced brokers come first")
	}
	assert.Len(t, records[*metadata.ConfigRecord](res.Steps[0]), 1)
	manual := records[*metadata.PartitionRecord](res.Steps[1])
	require.Len(t, manual, 1)
	assert.Equal(t, []int32{1}, manual[0].Isr, "the ISR is the active assigned replicas")
	assert.Equal(t, int32(1), manual[0].Leader)
	assert.Equal(t, "TOPIC_ALREADY_EXISTS", res.Steps[2].Error.Code)
	// Kafka places over every registered broker not shutting down, fenced ones included but
	// never first (StripedReplicaPlacer.place over ClusterControlManager.usableBrokers).
	require.Nil(t, res.Steps[3].Error)
	big := records[*metadata.PartitionRecord](res.Steps[3])
	require.Len(t, big, 1)
	assert.Equal(t, int32(2), big[0].Replicas[2], "fenced broker 2 placed after the unfenced ones")
	assert.ElementsMatch(t, []int32{0, 1}, big[0].Isr)
	assert.Len(t, records[*metadata.RemoveTopicRecord](res.Steps[4]), 1)
	require.Len(t, res.Steps[5].Partitions, 2)
	assert.Equal(t, "manual", res.Steps[5].Partitions[0].Topic)
}

func TestSetConfigAndFeature(t *testing.T) {
	res := runJSON(t, `{"mode": "controller", "brokers": [{"id": 0}],
	 "steps": [{"op": "set_feature", "name": "eligible.leader.replicas.version", "level": 0},
	  {"op": "set_config", "name": "min.insync.replicas", "value": "2"},
	  {"op": "set_config", "name": "leader.imbalance.check.interval.seconds", "value": 10}]}`)
	f := records[*metadata.FeatureLevelRecord](res.Steps[0])
	require.Len(t, f, 1)
	assert.Equal(t, int16(0), f[0].FeatureLevel)
	assert.Len(t, res.Steps[1].Records, 1, "no ClearElrRecord once ELR is off")
	assert.Equal(t, "INVALID_REQUEST", res.Steps[2].Error.Code, "a static config cannot change while the controller runs")
}

func TestElectLeadersAnswersPerPartition(t *testing.T) {
	res := runJSON(t, `{"mode": "controller", "brokers": [{"id": 0}, {"id": 1}],
	 "topics": [{"name": "foo", "partitions": [{"replicas": [1, 0], "leader": 0}, {"replicas": [0, 1]}]}],
	 "steps": [{"op": "elect_leaders", "type": "preferred"}, {"op": "elect_leaders", "type": "preferred"}]}`)
	assert.Equal(t, []PartitionResult{{Topic: "foo", Partition: 0, Error: "NONE"}}, res.Steps[0].Results,
		"all partitions: those that needed no election are left out, as Kafka does")
	assert.Empty(t, res.Steps[1].Results)
}

func TestRecordsCarryTheTimeTheyWereWrittenAndNoOpsAreCounted(t *testing.T) {
	res := runJSON(t, `{"mode": "controller", "brokers": [{"id": 0}, {"id": 1}],
	 "topics": [{"name": "foo", "partitions": [{"replicas": [1, 0]}]}],
	 "steps": [{"op": "stop", "broker": 1}, {"op": "advance", "ms": 12000}]}`)
	st := res.Steps[1]
	assert.Equal(t, 24, st.NoOpRecords, "one every 500 ms")
	require.Len(t, st.Records, 2)
	for _, r := range st.Records {
		assert.Equal(t, int64(10125), r.TimeMs, "fenced by the task run at 9 × 1125 ms")
		assert.NotEqual(t, "NoOpRecord", r.Record.Type())
	}
	assert.Equal(t, int64(12000), st.TimeMs)
}

func TestRunStopsARunawayScenario(t *testing.T) {
	defer func(n int64) { maxEvents = n }(maxEvents)
	maxEvents = 100
	s, err := Parse([]byte(`{"mode": "controller", "brokers": [{"id": 0}], "steps": [{"op": "describe"}, {"op": "advance", "ms": 100000}]}`))
	require.NoError(t, err)
	_, err = Run(s)
	assert.EqualError(t, err, "steps[1]: the run needs more than 100 heartbeats and periodic-task runs by 30000 ms; advance less or raise the intervals")
}

func TestSameScenarioSameBytesOtherSeedOtherPlacement(t *testing.T) {
	jsskip.CoveredNatively(t, "runs of one scenario against each other, all in this process")
	for _, file := range scenarioFiles(t) {
		data := readFile(t, file)
		assert.Equal(t, render(t, data, false), render(t, data, false), file)
	}
	src := `{"mode": "controller", "seed": %s, "brokers": [{"id": 0}, {"id": 1}, {"id": 2}, {"id": 3}],
	 "topics": [{"name": "t", "partition_count": 8, "replication_factor": 2}], "steps": [{"op": "describe"}]}`
	one := render(t, []byte(strings.Replace(src, "%s", "1", 1)), false)
	two := render(t, []byte(strings.Replace(src, "%s", "2", 1)), false)
	assert.NotEqual(t, one, two, "placement is drawn from the seed")
	var a, b struct{ Partitions []PartitionState }
	require.NoError(t, json.Unmarshal(one, &a))
	require.NoError(t, json.Unmarshal(two, &b))
	assert.NotEqual(t, replicasOf(a.Partitions), replicasOf(b.Partitions))
}

func replicasOf(ps []PartitionState) [][]int32 {
	var out [][]int32
	for _, p := range ps {
		out = append(out, p.Replicas)
	}
	return out
}

func TestTextShowsPartitionsAsKafkaTopicsDescribe(t *testing.T) {
	res := runJSON(t, `{"mode": "controller", "brokers": [{"id": 0}, {"id": 1}, {"id": 2}],
	 "topics": [{"name": "foo", "partitions": [{"replicas": [1, 2, 0], "isr": [2, 0], "leader": 2, "elr": [1], "last_known_elr": [1]},
	                                          {"replicas": [0], "isr": [], "leader": -1}]}]}`)
	var b bytes.Buffer
	require.NoError(t, res.WriteText(&b))
	assert.Contains(t, b.String(), "partitions at 0 ms:\n"+
		"\tTopic: foo\tPartition: 0\tLeader: 2\tReplicas: 1,2,0\tIsr: 2,0\tElr: 1\tLastKnownElr: 1\n"+
		"\tTopic: foo\tPartition: 1\tLeader: none\tReplicas: 0\tIsr: \tElr: \tLastKnownElr: \n")
}
