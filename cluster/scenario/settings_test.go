package scenario

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kraftlab/kraftlab/cluster/broker"
	"github.com/kraftlab/kraftlab/engine/config"
)

func setting(t *testing.T, text string) Setting {
	t.Helper()
	st, err := ParseSetting("--set", text)
	require.NoError(t, err)
	return st
}

func TestParseSettingValidatesAlone(t *testing.T) {
	st := setting(t, "leader.imbalance.election.max.per.run = 200")
	assert.Equal(t, Setting{Flag: "--set", Name: "leader.imbalance.election.max.per.run", Value: "200"}, st)
	assert.Equal(t, "leader.imbalance.election.max.per.run=200", st.String())
	assert.Equal(t, "acks", setting(t, "acks=all").Name, "a block parameter under Kafka's name")

	cases := []struct{ flag, in, want string }{
		{"--set", "min.insync.replicas", `--set: want NAME=VALUE (a config such as leader.imbalance.election.max.per.run=200), got "min.insync.replicas"`},
		{"--set", "=2", `--set: want NAME=VALUE (a config such as leader.imbalance.election.max.per.run=200), got "=2"`},
		{"--a", "min.insync.replicas=0", `--a min.insync.replicas=0: Invalid value 0 for configuration min.insync.replicas: Value must be at least 1`},
		{"--b", "max.per.run=1", `--b max.per.run=1: Unknown configuration "max.per.run"`},
		{"--set", "leader.imbalance.election.algorithm=gradual", `--set leader.imbalance.election.algorithm=gradual: Invalid value "gradual" for configuration leader.imbalance.election.algorithm: String must be one of: immediate, wait-for-sync`},
		{"--set", "replica.lag.time.max.ms=-1", `--set replica.lag.time.max.ms=-1: must be an integer from 1 to 604800000 (ms), got -1`},
		{"--set", "follower.replication.throttled.rate=fast", `--set follower.replication.throttled.rate=fast: must be a number ≥ 0 (bytes per second; 0 means no throttle), got "fast"`},
		{"--set", "acks=0", `--set acks=0: must be "all" (or "-1", -1) or "1" (or 1); acks=0 is not modelled, got 0`},
	}
	for _, c := range cases {
		_, err := ParseSetting(c.flag, c.in)
		assert.EqualError(t, err, c.want, c.in)
		var se *Error
		assert.ErrorAs(t, err, &se)
	}
}

func TestSettingsOverrideTheFileInBothModes(t *testing.T) {
	// Controller mode: the config object, created when absent.
	s, err := Parse([]byte(`{"mode": "controller", "config": {"min.insync.replicas": 1}}`), setting(t, "min.insync.replicas=2"))
	require.NoError(t, err)
	assert.Equal(t, int64(2), config.Int64(config.MinInsyncReplicas, &s.Config))
	s, err = Parse([]byte(`{"mode": "controller"}`), setting(t, "auto.leader.rebalance.enable=false"), setting(t, "auto.leader.rebalance.enable=true"))
	require.NoError(t, err)
	assert.True(t, config.Bool(config.AutoLeaderRebalanceEnable, &s.Config), "the last one wins")
	// A setting is validated with the file: elect_preferred needs the task it turns off.
	_, err = Parse([]byte(`{"mode": "controller", "steps": [{"op": "elect_preferred"}]}`), setting(t, "auto.leader.rebalance.enable=false"))
	assert.EqualError(t, err, "steps[0].op: auto.leader.rebalance.enable is false, so the controller has no electPreferred task to run (use elect_leaders)")

	// Cluster mode: configs reach the controllers' static configs...
	cs := parseCluster(t, `{"duration_ms": 60000, "cluster": {"brokers": 3, "topics": [{"name": "t", "partition_count": 1, "replication_factor": 1}]}}`, setting(t, "leader.imbalance.election.algorithm=wait-for-sync"))
	assert.Equal(t, config.AlgorithmWaitForSync, config.Str(config.LeaderImbalanceElectionAlgorithm, &cs.Spec.Static))
	// ... and Kafka's names of block parameters reach the block, replacing either spelling.
	cs = parseCluster(t, `{"duration_ms": 60000, "cluster": {"brokers": 3, "topics": [{"name": "t", "partition_count": 1, "replication_factor": 1}], "broker": {"replica_lag_time_max_ms": 5000}, "workload": {"acks": "all"}}}`,
		setting(t, "replica.lag.time.max.ms=10000"), setting(t, "acks=1"), setting(t, "leader.replication.throttled.rate=5e7"))
	assert.Equal(t, int64(10000), cs.Spec.Broker.ReplicaLagTimeMaxMs)
	assert.Equal(t, broker.AcksLeader, cs.Spec.Broker.Acks)
	assert.Equal(t, 5e7, cs.Spec.Broker.LeaderThrottleBytesPerSec)
	cs = parseCluster(t, `{"duration_ms": 60000, "cluster": {"brokers": 3, "topics": [{"name": "t", "partition_count": 1, "replication_factor": 1}], "broker": {"acks": "1"}}}`, setting(t, "acks=all"))
	assert.Equal(t, broker.AcksAll, cs.Spec.Broker.Acks, "acks in the broker block is replaced too")
	// The heartbeat interval is one setting: --set changes the brokers' too.
	cs = parseCluster(t, `{"duration_ms": 60000, "cluster": {"brokers": 3, "topics": [{"name": "t", "partition_count": 1, "replication_factor": 1}]}}`, setting(t, "broker.heartbeat.interval.ms=1000"))
	assert.Equal(t, int64(1000), cs.Spec.Broker.HeartbeatIntervalMs)

	_, err = Parse([]byte(`{"mode": "controller"}`), setting(t, "linger.ms=10"))
	assert.EqualError(t, err, "--set linger.ms=10: linger.ms is a setting of the cluster mode's workload block; this scenario is in controller mode")
}
