package scenario

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kraftlab/kraftlab/engine/config"
	"github.com/kraftlab/kraftlab/engine/controller"
	"github.com/kraftlab/kraftlab/engine/metadata"
)

// base is a valid scenario with three brokers and one topic; %s takes its steps.
const base = `{"mode": "controller", "brokers": [{"id": 0}, {"id": 1}, {"id": 2}],
 "topics": [{"name": "foo", "partitions": [{"replicas": [1, 2, 0]}, {"replicas": [0, 1]}]}],
 "steps": [%s]}`

func withSteps(steps ...string) string { return fmt.Sprintf(base, strings.Join(steps, ",")) }

// withTopic is a scenario with three brokers and the given topic JSON.
func withTopic(topic string) string {
	return `{"mode": "controller", "brokers": [{"id": 0}, {"id": 1}, {"id": 2}], "topics": [` + topic + `]}`
}

func TestParseErrorsNameTheFieldAndTheProblem(t *testing.T) {
	cases := []struct{ in, want string }{
		// The file itself.
		{``, `invalid JSON: the input is empty`},
		{`{"mode": "controller",`, `invalid JSON at line 1, column 23: unexpected end of input`},
		{"{\"mode\": \"controller\",\n \"seed\": tru}", `invalid JSON at line 2, column 10: invalid character '}' in literal true (expecting 'e')`},
		{`{"mode": "controller"} {}`, `invalid JSON at line 1, column 24: unexpected data after the top-level value`},
		{`[]`, `a scenario must be a JSON object, got an array`},
		{`{"mode": "controller", "brokers": [{"id": 0, "id": 1}]}`, `brokers[0].id: duplicate key`},
		{`{"mode": "controller", "description": ` + strings.Repeat("[", 40) + strings.Repeat("]", 40) + `}`, `description[0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0]: nested deeper than 32 levels`},
		// Top level.
		// Without a mode a file is a cluster-mode scenario (parse_cluster_test.go has the rest).
		{`{}`, `duration_ms: required (how long the cluster runs, in ms)`},
		{`{"brokers": [{"id": 0}], "steps": []}`, `brokers: unknown field (allowed: mode, seed, description, duration_ms, sample_ms, features, config, cluster, events, output); a file without "mode" is a cluster-mode scenario: a controller-mode file needs "mode": "controller"`},
		{`{"mode": "zk"}`, `mode: unknown mode "zk" (modes: "cluster", the default, and "controller")`},
		{`{"mode": 1}`, `mode: must be a string, got 1`},
		{`{"mode": "controller", "step": []}`, `step: unknown field (allowed: mode, seed, description, features, config, brokers, topics, steps)`},
		{`{"mode": "controller", "seed": -1}`, `seed: must be a non-negative integer, got -1`},
		{`{"mode": "controller", "seed": "1"}`, `seed: must be a non-negative integer, got "1"`},
		{`{"mode": "controller", "description": 5}`, `description: must be a string, got 5`},
		// Features and configs carry the engine's ConfigError text.
		{`{"mode": "controller", "features": []}`, `features: must be an object of feature names and levels, got an array`},
		{`{"mode": "controller", "features": {"metadata.version": 1}}`, `features["metadata.version"]: Unknown feature "metadata.version" (known: eligible.leader.replicas.version)`},
		{`{"mode": "controller", "features": {"eligible.leader.replicas.version": 2}}`, `features["eligible.leader.replicas.version"]: Invalid value 2 for configuration eligible.leader.replicas.version: Feature level must be an integer from 0 to 1`},
		{`{"mode": "controller", "config": {"min.insync.replica": 2}}`, `config["min.insync.replica"]: Unknown configuration "min.insync.replica" (did you mean "min.insync.replicas"?)`},
		{`{"mode": "controller", "config": {"leader.imbalance.election.algorithm": "gradual"}}`, `config["leader.imbalance.election.algorithm"]: Invalid value "gradual" for configuration leader.imbalance.election.algorithm: String must be one of: immediate, wait-for-sync`},
		{`{"mode": "controller", "config": {"min.insync.replicas": null}}`, `config["min.insync.replicas"]: must be a string, number or boolean, got null`},
		{`{"mode": "controller", "config": []}`, `config: must be an object of config names and values, got an array`},
		// Brokers.
		{`{"mode": "controller", "brokers": {}}`, `brokers: must be an array, got an object`},
		{`{"mode": "controller", "brokers": [{}]}`, `brokers[0].id: required`},
		{`{"mode": "controller", "brokers": [{"id": -1}]}`, `brokers[0].id: must be a broker id (an integer from 0 to 2147483647), got -1`},
		{`{"mode": "controller", "brokers": [{"id": 2147483648}]}`, `brokers[0].id: must be a broker id (an integer from 0 to 2147483647), got 2147483648`},
		{`{"mode": "controller", "brokers": [{"id": 0}, {"id": 0}]}`, `brokers[1].id: broker 0 is listed twice`},
		{`{"mode": "controller", "brokers": [{"id": 0, "fenced": "yes"}]}`, `brokers[0].fenced: must be true or false, got "yes"`},
		{`{"mode": "controller", "brokers": [{"id": 0, "rack": "a"}]}`, `brokers[0].rack: unknown field (allowed: id, fenced, in_controlled_shutdown)`},
		{`{"mode": "controller", "brokers": [{"id": 0, "fenced": true, "in_controlled_shutdown": true}]}`, `brokers[0].in_controlled_shutdown: a fenced broker cannot be in controlled shutdown (Kafka shuts a fenced broker down at once)`},
		// Topics.
		{withTopic(`{"partition_count": 1, "replication_factor": 1}`), `topics[0].name: required`},
		{withTopic(`{"name": "a b", "partition_count": 1, "replication_factor": 1}`), `topics[0].name: Topic name "a b" is illegal, it contains a character other than ASCII alphanumerics, '.', '_' and '-'`},
		{withTopic(`{"name": "a"}`), `topics[0].partitions: required (or partition_count with replication_factor)`},
		{withTopic(`{"name": "a", "partitions": [{"replicas": [0]}], "partition_count": 1}`), `topics[0].partition_count: give either partitions or partition_count, not both`},
		{withTopic(`{"name": "a", "partitions": [{"replicas": [0]}], "replication_factor": 1}`), `topics[0].replication_factor: only goes with partition_count (explicit partitions list their replicas)`},
		{withTopic(`{"name": "a", "partitions": []}`), `topics[0].partitions: must list at least one partition`},
		{withTopic(`{"name": "a", "partition_count": 0, "replication_factor": 1}`), `topics[0].partition_count: must be an integer from 1 to 1000000, got 0`},
		{withTopic(`{"name": "a", "partition_count": 2}`), `topics[0].replication_factor: required with partition_count`},
		{withTopic(`{"name": "a", "partition_count": 2, "replication_factor": 9}`), `topics[0].replication_factor: must be an integer from 1 to 8 (this model's limit), got 9`},
		{withTopic(`{"name": "a", "partition_count": 2, "replication_factor": 4}`), `topics[0].replication_factor: 4 is more than the 3 listed brokers`},
		{withTopic(`{"name": "a", "partition_count": 600000, "replication_factor": 1}, {"name": "b", "partition_count": 600000, "replication_factor": 1}`), `topics[1]: the scenario would hold more than 1000000 partitions (this model's limit)`},
		{withTopic(`{"name": "a", "partition_count": 1, "replication_factor": 1}, {"name": "a", "partition_count": 1, "replication_factor": 1}`), `topics[1].name: topic "a" is listed twice`},
		{withTopic(`{"name": "a", "partition_count": 1, "replication_factor": 1, "config": {"leader.imbalance.election.max.per.run": 5}}`), `topics[0].config["leader.imbalance.election.max.per.run"]: Invalid value 5 for configuration leader.imbalance.election.max.per.run: Not a topic config: it can only be set for the cluster`},
		// Partitions.
		{withTopic(`{"name": "a", "partitions": [{}]}`), `topics[0].partitions[0].replicas: required`},
		{withTopic(`{"name": "a", "partitions": [{"replicas": []}]}`), `topics[0].partitions[0].replicas: must name at least one broker`},
		{withTopic(`{"name": "a", "partitions": [{"replicas": [0, 1, 0]}]}`), `topics[0].partitions[0].replicas[2]: broker 0 is listed twice`},
		{withTopic(`{"name": "a", "partitions": [{"replicas": [0, 1, 2, 3, 4, 5, 6, 7, 8]}]}`), `topics[0].partitions[0].replicas: has 9 replicas; this model allows at most 8`},
		{withTopic(`{"name": "a", "partitions": [{"replicas": [0, 1], "isr": [1, 2]}]}`), `topics[0].partitions[0].isr[1]: broker 2 is not a replica (replicas: 0, 1)`},
		{withTopic(`{"name": "a", "partitions": [{"replicas": [0, 1], "isr": [0], "elr": [0]}]}`), `topics[0].partitions[0].elr[0]: broker 0 is in the ISR; the ELR holds replicas outside it`},
		{withTopic(`{"name": "a", "partitions": [{"replicas": [0, 1], "isr": [0], "leader": 1}]}`), `topics[0].partitions[0].leader: broker 1 is not in the ISR (isr: 0); the leader must be in the ISR, or -1`},
		{withTopic(`{"name": "a", "partitions": [{"replicas": [0, 1], "isr": [], "leader": 0}]}`), `topics[0].partitions[0].leader: broker 0 is not in the ISR (isr: ); the leader must be in the ISR, or -1`},
		{withTopic(`{"name": "a", "partitions": [{"replicas": [0, 1], "leader": -2}]}`), `topics[0].partitions[0].leader: must be a broker id or -1, got -2`},
		{withTopic(`{"name": "a", "partitions": [{"replicas": [0, 1], "adding": [2]}]}`), `topics[0].partitions[0].adding: unknown field (allowed: replicas, isr, leader, elr, last_known_elr)`},
		{`{"mode": "controller", "features": {"eligible.leader.replicas.version": 0}, "topics": [{"name": "a", "partitions": [{"replicas": [0, 1], "isr": [0], "elr": [1]}]}]}`, `topics[0].partitions[0].elr: must be empty: eligible.leader.replicas.version is 0`},
		{`{"mode": "controller", "features": {"eligible.leader.replicas.version": 0}, "topics": [{"name": "a", "partitions": [{"replicas": [0, 1], "isr": [0], "last_known_elr": [1]}]}]}`, `topics[0].partitions[0].last_known_elr: must be empty: eligible.leader.replicas.version is 0`},
		// Steps.
		{`{"mode": "controller", "steps": {}}`, `steps: must be an array, got an object`},
		{withSteps(`1`), `steps[0]: must be an object, got 1`},
		{withSteps(`{"ms": 5}`), `steps[0].op: required (ops: advance, alter_partition, controlled_shutdown, create_topic, delete_topic, describe, elect_leaders, elect_preferred, fence, isr_join, isr_leave, offline_dir, register, set_config, set_feature, stop, unfence)`},
		{withSteps(`{"op": "advanse", "ms": 5}`), `steps[0].op: unknown op "advanse" (ops: advance, alter_partition, controlled_shutdown, create_topic, delete_topic, describe, elect_leaders, elect_preferred, fence, isr_join, isr_leave, offline_dir, register, set_config, set_feature, stop, unfence)`},
		{withSteps(`{"op": "advance", "msx": 5}`), `steps[0].msx: unknown field (allowed: op, note, ms)`},
		{withSteps(`{"op": "advance"}`), `steps[0].ms: required by op "advance"`},
		{withSteps(`{"op": "describe"}`, `{"op": "describe"}`, `{"op": "advance", "ms": -5}`), `steps[2].ms: must be a non-negative integer, got -5`},
		{withSteps(`{"op": "advance", "ms": 1.5}`), `steps[0].ms: must be a non-negative integer, got 1.5`},
		{withSteps(`{"op": "advance", "ms": 604800000}`, `{"op": "advance", "ms": 1}`), `steps[1].ms: the clock would reach 604800001 ms, past this model's limit of 604800000 ms (7 days)`},
		{withSteps(`{"op": "describe", "note": 1}`), `steps[0].note: must be a string, got 1`},
		{withSteps(`{"op": "describe", "topic": "foo"}`), `steps[0].topic: unknown field (allowed: op, note)`},
		{withSteps(`{"op": "advance", "ms": 1}`, `{"op": "stop", "broker": 0}`, `{"op": "unfence", "broker": 0}`, `{"op": "stop", "broker": 7}`), `steps[3].broker: broker 7 does not exist (brokers: 0, 1, 2)`},
		{`{"mode": "controller", "steps": [{"op": "fence", "broker": 0}]}`, `steps[0].broker: broker 0 does not exist (no brokers)`},
		{withSteps(`{"op": "stop"}`), `steps[0].broker: required by op "stop"`},
		{withSteps(`{"op": "register", "broker": 1, "clean_shutdown": true, "lost_disk": true}`), `steps[0].clean_shutdown: cannot be true with lost_disk: a replaced disk has no clean-shutdown file`},
		{withSteps(`{"op": "register", "broker": 1, "lost_disk": 1}`), `steps[0].lost_disk: must be true or false, got 1`},
		{withSteps(`{"op": "alter_partition", "topic": "bar", "partition": 0, "isr": [0]}`), `steps[0].topic: topic "bar" does not exist (topics: foo)`},
		{withSteps(`{"op": "alter_partition", "topic": "foo", "partition": 2, "isr": [0]}`), `steps[0].partition: topic "foo" has 2 partition(s), numbered from 0 to 1`},
		{withSteps(`{"op": "alter_partition", "topic": "foo", "partition": 0, "isr": 0}`), `steps[0].isr: must be an array, got 0`},
		{withSteps(`{"op": "alter_partition", "topic": "foo", "partition": 0}`), `steps[0].isr: required by op "alter_partition"`},
		{withSteps(`{"op": "alter_partition", "topic": "foo", "partition": 0, "isr": [0], "leader_recovery_state": "DONE"}`), `steps[0].leader_recovery_state: must be "RECOVERED" or "RECOVERING", got "DONE"`},
		{withSteps(`{"op": "alter_partition", "topic": "foo", "partition": 0, "isr": [0], "leader_epoch": -1}`), `steps[0].leader_epoch: must be a non-negative integer, got -1`},
		{withSteps(`{"op": "alter_partition", "topic": "foo", "partition": 0, "isr": [0], "broker": 9}`), `steps[0].broker: broker 9 does not exist (brokers: 0, 1, 2)`},
		{withSteps(`{"op": "isr_join", "broker": 1, "count": 0}`), `steps[0].count: must be a positive integer, got 0`},
		{withSteps(`{"op": "isr_leave", "broker": 1, "preferred": "yes"}`), `steps[0].preferred: must be true or false, got "yes"`},
		{`{"mode": "controller", "config": {"auto.leader.rebalance.enable": false}, "steps": [{"op": "elect_preferred"}]}`, `steps[0].op: auto.leader.rebalance.enable is false, so the controller has no electPreferred task to run (use elect_leaders)`},
		{withSteps(`{"op": "elect_leaders"}`), `steps[0].type: required by op "elect_leaders"`},
		{withSteps(`{"op": "elect_leaders", "type": "clean"}`), `steps[0].type: must be "preferred" or "unclean", got "clean"`},
		{withSteps(`{"op": "elect_leaders", "type": "preferred", "partitions": [{"topic": "foo"}]}`), `steps[0].partitions[0].partition: required`},
		{withSteps(`{"op": "elect_leaders", "type": "preferred", "partitions": [{"topic": "foo", "partition": 0, "x": 1}]}`), `steps[0].partitions[0].x: unknown field (allowed: topic, partition)`},
		{withSteps(`{"op": "set_config", "name": "min.insync.replicas"}`), `steps[0].value: required by op "set_config"`},
		{withSteps(`{"op": "set_config", "name": "max.per.run", "value": 1}`), `steps[0].name: Unknown configuration "max.per.run"`},
		{withSteps(`{"op": "set_config", "name": "min.insync.replicas", "value": 0}`), `steps[0].value: Invalid value 0 for configuration min.insync.replicas: Value must be at least 1`},
		{withSteps(`{"op": "set_config", "name": "min.insync.replicas", "value": [2]}`), `steps[0].value: must be a string, number, boolean or null (null deletes), got an array`},
		{withSteps(`{"op": "set_config", "topic": "foo", "name": "leader.imbalance.election.algorithm", "value": "immediate"}`), `steps[0].name: Invalid value "immediate" for configuration leader.imbalance.election.algorithm: Not a topic config: it can only be set for the cluster`},
		{withSteps(`{"op": "set_feature", "name": "x", "level": 1}`), `steps[0].name: Unknown feature "x" (known: eligible.leader.replicas.version)`},
		{withSteps(`{"op": "set_feature", "name": "eligible.leader.replicas.version", "level": 3}`), `steps[0].level: Invalid value 3 for configuration eligible.leader.replicas.version: Feature level must be an integer from 0 to 1`},
		{withSteps(`{"op": "create_topic", "name": "bar", "partitions": [{"replicas": [0], "isr": [0]}]}`), `steps[0].partitions[0].isr: unknown field (allowed: replicas); create_topic lets the controller choose the ISR and leader`},
		{withSteps(`{"op": "create_topic", "name": "bar", "partition_count": 1, "replication_factor": 0}`), `steps[0].replication_factor: must be an integer from 1 to 8 (this model's limit), got 0`},
		{withSteps(`{"op": "create_topic", "name": "", "partition_count": 1, "replication_factor": 1}`), `steps[0].name: Topic name "" is illegal: it can't be empty, '.' or '..'`},
		{withSteps(`{"op": "delete_topic", "name": "bar"}`), `steps[0].name: topic "bar" does not exist (topics: foo)`},
	}
	for _, c := range cases {
		_, err := Parse([]byte(c.in))
		if !assert.Error(t, err, c.in) {
			continue
		}
		assert.Equal(t, c.want, err.Error(), c.in)
		var se *Error
		assert.ErrorAs(t, err, &se)
		assert.NotContains(t, err.Error(), "\n", "the CLI prints the error on one line")
	}
}

func TestParseFillsPartitionDefaults(t *testing.T) {
	s, err := Parse([]byte(withTopic(`{"name": "a", "partitions": [{"replicas": [1, 2, 0]}, {"replicas": [0, 1], "isr": []}, {"replicas": [2, 0], "isr": [0]}]}`)))
	require.NoError(t, err)
	p := s.Topics[0].Partitions
	assert.Equal(t, Partition{Replicas: []int32{1, 2, 0}, Isr: []int32{1, 2, 0}, Leader: 1, Elr: []int32{}, LastKnownElr: []int32{}}, p[0],
		"the ISR defaults to the replicas, the leader to the first ISR member")
	assert.Equal(t, metadata.NoLeader, p[1].Leader, "an empty ISR has no leader")
	assert.Equal(t, int32(0), p[2].Leader)
	assert.Equal(t, 3, s.Topics[0].PartitionCount)
}

func TestParseReadsEveryStepField(t *testing.T) {
	s, err := Parse([]byte(`{"mode": "controller", "seed": 42, "description": "d",
	 "features": {"eligible.leader.replicas.version": 0},
	 "config": {"leader.imbalance.election.algorithm": "wait-for-sync", "min.insync.replicas": "2"},
	 "brokers": [{"id": 0}, {"id": 1, "fenced": true}, {"id": 2, "in_controlled_shutdown": true}],
	 "topics": [{"name": "bar", "partition_count": 5, "replication_factor": 3, "config": {"unclean.leader.election.enable": true}}],
	 "steps": [
	  {"op": "advance", "ms": 2e3, "note": "n"},
	  {"op": "register", "broker": 7, "lost_disk": true},
	  {"op": "alter_partition", "topic": "bar", "partition": 4, "isr": [0, 9], "leader_recovery_state": "RECOVERED", "broker": 7, "leader_epoch": 3, "partition_epoch": 4},
	  {"op": "isr_join", "broker": 7, "count": 2, "topic": "bar", "preferred": true},
	  {"op": "elect_leaders", "type": "unclean", "partitions": [{"topic": "bar", "partition": 1}]},
	  {"op": "set_config", "topic": "bar", "name": "min.insync.replicas", "value": null},
	  {"op": "set_feature", "name": "eligible.leader.replicas.version", "level": 1},
	  {"op": "create_topic", "name": "baz", "partitions": [{"replicas": [7, 0]}], "config": {"min.insync.replicas": 1}},
	  {"op": "delete_topic", "name": "baz"}
	 ]}`))
	require.NoError(t, err)
	assert.Equal(t, uint64(42), s.Seed)
	assert.Equal(t, []Feature{{config.EligibleLeaderReplicasVersion, 0}}, s.Features)
	assert.Equal(t, config.AlgorithmWaitForSync, config.Str(config.LeaderImbalanceElectionAlgorithm, &s.Config))
	assert.Equal(t, int64(2), config.Int64(config.MinInsyncReplicas, &s.Config))
	assert.Equal(t, []Broker{{ID: 0}, {ID: 1, Fenced: true}, {ID: 2, InControlledShutdown: true}}, s.Brokers)
	assert.True(t, config.Bool(config.UncleanLeaderElectionEnable, &s.Topics[0].Config))

	st := s.Steps
	assert.Equal(t, Step{Op: OpAdvance, Note: "n", Ms: 2000}, st[0])
	assert.Equal(t, Step{Op: OpRegister, Broker: 7, LostDisk: true}, st[1])
	assert.Equal(t, Step{Op: OpAlterPartition, Topic: "bar", Partition: 4, Isr: []int32{0, 9}, LeaderRecoveryState: metadata.Recovered,
		Broker: 7, HasBroker: true, LeaderEpoch: 3, PartitionEpoch: 4}, st[2])
	assert.Equal(t, Step{Op: OpIsrJoin, Broker: 7, Count: 2, Topic: "bar", Preferred: true}, st[3])
	assert.Equal(t, Step{Op: OpElectLeaders, Election: controller.ElectionUnclean, Partitions: []controller.TopicPartition{{Topic: "bar", Partition: 1}}}, st[4])
	assert.Equal(t, Step{Op: OpSetConfig, Topic: "bar", Name: config.MinInsyncReplicas}, st[5], "null deletes")
	assert.Equal(t, Step{Op: OpSetFeature, Name: config.EligibleLeaderReplicasVersion, Level: 1}, st[6])
	require.NotNil(t, st[7].CreateTopic)
	assert.Equal(t, "baz", st[7].CreateTopic.Name)
	assert.Equal(t, []Partition{{Replicas: []int32{7, 0}}}, st[7].CreateTopic.Partitions)
	assert.Equal(t, "baz", st[8].Name)
}

func TestParseSetConfigKeepsTheRawValueForTheController(t *testing.T) {
	s, err := Parse([]byte(withSteps(`{"op": "set_config", "name": "min.insync.replicas", "value": 2}`, `{"op": "set_config", "name": "leader.imbalance.election.algorithm", "value": "wait-for-sync"}`)))
	require.NoError(t, err)
	assert.Equal(t, json.Number("2"), s.Steps[0].Value)
	assert.Equal(t, "wait-for-sync", s.Steps[1].Value)
}

func TestParseKnowsTopicsAndBrokersFromEarlierSteps(t *testing.T) {
	_, err := Parse([]byte(withSteps(
		`{"op": "register", "broker": 5}`, `{"op": "stop", "broker": 5}`,
		`{"op": "create_topic", "name": "bar", "partition_count": 3, "replication_factor": 1}`,
		`{"op": "alter_partition", "topic": "bar", "partition": 2, "isr": [0]}`,
		`{"op": "delete_topic", "name": "bar"}`,
		// A deleted topic stays known: asking about it shows Kafka's answer.
		`{"op": "elect_leaders", "type": "preferred", "partitions": [{"topic": "bar", "partition": 2}]}`)))
	assert.NoError(t, err)
	_, err = Parse([]byte(withSteps(`{"op": "stop", "broker": 5}`, `{"op": "register", "broker": 5}`)))
	assert.EqualError(t, err, "steps[0].broker: broker 5 does not exist (brokers: 0, 1, 2)", "a broker exists only after the step that registers it")
}

func TestOpsListsEveryOp(t *testing.T) {
	assert.Len(t, Ops(), 17)
	assert.Contains(t, Ops(), OpOfflineDir)
}

// TestParseClusterIsParseForClusterMode: ParseCluster reads every cluster-mode scenario of
// testdata exactly as Parse does, and stops a controller-mode one at its mode with
// ErrControllerMode (a mistyped mode is still the unknown-mode error).
func TestParseClusterIsParseForClusterMode(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "*.json"))
	require.NoError(t, err)
	clusters, controllers := 0, 0
	for _, f := range files {
		if strings.HasSuffix(f, ".out.json") {
			continue
		}
		data, err := os.ReadFile(f)
		require.NoError(t, err)
		var head struct{ Mode string }
		require.NoError(t, json.Unmarshal(data, &head), f)
		want, wantErr := Parse(data)
		got, gotErr := ParseCluster(data)
		if head.Mode == ModeController {
			controllers++
			assert.ErrorIs(t, gotErr, ErrControllerMode, f)
			assert.Nil(t, got, f)
			continue
		}
		clusters++
		assert.Equal(t, wantErr, gotErr, f)
		assert.Equal(t, want, got, f)
	}
	assert.Positive(t, clusters)
	assert.Positive(t, controllers)
	_, err = ParseCluster([]byte(`{"mode": "controler"}`))
	assert.EqualError(t, err, `mode: unknown mode "controler" (modes: "cluster", the default, and "controller")`)
	_, err = ParseCluster([]byte(`{"mode": "controller", "brokers": "x"}`))
	assert.Equal(t, ErrControllerMode, err, "the mode is checked before the rest")
}
