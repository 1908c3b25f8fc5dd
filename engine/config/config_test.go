package config

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestDefaultsMatchKafkaAndTheProposal(t *testing.T) {
	assert.Equal(t, true, Bool(AutoLeaderRebalanceEnable))
	assert.Equal(t, int64(300), Int64(LeaderImbalanceCheckIntervalSeconds))
	assert.Equal(t, int64(9000), Int64(BrokerSessionTimeoutMs))
	assert.Equal(t, int64(1), Int64(MinInsyncReplicas))
	assert.Equal(t, AlgorithmImmediate, Str(LeaderImbalanceElectionAlgorithm))
	assert.Equal(t, int64(0), Int64(WaitForSyncThresholdPercent))
	assert.Equal(t, int64(1800000), Int64(WaitForSyncMaxWaitMs))
	assert.Equal(t, int64(1000), Int64(LeaderImbalanceElectionMaxPerRun))
	assert.Equal(t, int64(0), Int64(LeaderImbalanceElectionThrottleMs))
	assert.Equal(t, int64(10), Int64(LeaderImbalanceElectionImmediateMs))
	assert.Equal(t, DenominatorImbalanced, Str(ModelGateDenominator))
}

func TestRejectionsNameConfigValueAndWhatIsAllowed(t *testing.T) {
	cases := []struct {
		name string
		raw  any
		want string
	}{
		{WaitForSyncThresholdPercent, 105.0, "Invalid value 105 for configuration leader.imbalance.election.wait.for.sync.threshold.percent: Value must be no more than 100"},
		{WaitForSyncThresholdPercent, -1.0, "Invalid value -1 for configuration leader.imbalance.election.wait.for.sync.threshold.percent: Value must be at least 0"},
		{WaitForSyncMaxWaitMs, "-5", `Invalid value "-5" for configuration leader.imbalance.election.wait.for.sync.max.wait.ms: Value must be at least 0`},
		{LeaderImbalanceElectionMaxPerRun, 0.0, "Value must be at least 1"},
		{LeaderImbalanceElectionAlgorithm, "gradual", "String must be one of: immediate, wait-for-sync"},
		{LeaderImbalanceElectionMaxPerRun, "lots", "Expected value to be a 32-bit integer, but it was a string"},
		{LeaderImbalanceElectionMaxPerRun, 2.5, "Expected value to be a 32-bit integer"},
		{LeaderImbalanceElectionMaxPerRun, 1e12, "out of range"},
		{AutoLeaderRebalanceEnable, "yes", "Expected value to be either true or false"},
	}
	for _, c := range cases {
		var v Values
		err := v.Set(c.name, c.raw, Cluster)
		require.Error(t, err, "%s=%v", c.name, c.raw)
		assert.Contains(t, err.Error(), c.want)
		var ce *ConfigError
		require.ErrorAs(t, err, &ce)
		assert.Equal(t, c.name, ce.Name)
	}
}

func TestUnknownNameSuggestsTheClosest(t *testing.T) {
	var v Values
	err := v.Set("leader.imbalance.election.max.per.runs", 5.0, Cluster)
	require.Error(t, err)
	assert.Equal(t, `Unknown configuration "leader.imbalance.election.max.per.runs" (did you mean "leader.imbalance.election.max.per.run"?)`, err.Error())
	err = v.Set("zzz", 5.0, Cluster)
	assert.Equal(t, `Unknown configuration "zzz"`, err.Error())
}

func TestTopicScopeAndResolutionOrder(t *testing.T) {
	var cluster, topic Values
	require.NoError(t, cluster.Set(MinInsyncReplicas, json.Number("2"), Cluster))
	assert.Equal(t, int64(2), Int64(MinInsyncReplicas, &topic, &cluster))
	require.NoError(t, topic.Set(MinInsyncReplicas, "3", Topic))
	assert.Equal(t, int64(3), Int64(MinInsyncReplicas, &topic, &cluster))
	topic.Delete(MinInsyncReplicas)
	assert.Equal(t, int64(2), Int64(MinInsyncReplicas, &topic, &cluster))

	err := topic.Set(LeaderImbalanceElectionMaxPerRun, 5.0, Topic)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "Not a topic config")
}

func TestTextValuesParseLikeKafka(t *testing.T) {
	var v Values
	require.NoError(t, v.Set(UncleanLeaderElectionEnable, " TRUE ", Topic))
	assert.True(t, Bool(UncleanLeaderElectionEnable, &v))
	require.NoError(t, v.Set(LeaderImbalanceElectionAlgorithm, "wait-for-sync", Cluster))
	assert.Equal(t, []string{LeaderImbalanceElectionAlgorithm, UncleanLeaderElectionEnable}, v.Names())
	c := v.Clone()
	c.Delete(UncleanLeaderElectionEnable)
	assert.True(t, Bool(UncleanLeaderElectionEnable, &v), "a clone is independent")
}

func TestEveryDefIsCoherent(t *testing.T) {
	for _, d := range All() {
		_, err := d.Parse(d.Default)
		assert.NoError(t, err, "default of %s must validate", d.Name)
		assert.NotEmpty(t, d.Doc, d.Name)
		assert.NotEmpty(t, d.AllowedText(), d.Name)
	}
}

func TestFeatureLevels(t *testing.T) {
	lvl, err := CheckFeature(EligibleLeaderReplicasVersion, 0.0)
	require.NoError(t, err)
	assert.Equal(t, int16(0), lvl)
	_, err = CheckFeature(EligibleLeaderReplicasVersion, 2.0)
	assert.ErrorContains(t, err, "Feature level must be an integer from 0 to 1")
	_, err = CheckFeature("metadata.versionx", 1.0)
	assert.ErrorContains(t, err, "Unknown feature")
}

// TestHeartbeatConfigsSayKafkaHasNoValidator: Kafka's KRaftConfigs defines
// broker.heartbeat.interval.ms and broker.session.timeout.ms with a null validator, so any int
// is accepted there; the model's lower bound of 1 ms is its own, and the config says so.
func TestHeartbeatConfigsSayKafkaHasNoValidator(t *testing.T) {
	for _, name := range []string{BrokerHeartbeatIntervalMs, BrokerSessionTimeoutMs} {
		def, ok := Lookup(name)
		if !ok {
			t.Fatalf("%s is not defined", name)
		}
		if def.Note != NoKafkaValidator {
			t.Errorf("%s: note %q, want the no-validator note", name, def.Note)
		}
	}
}
