package lab

import (
	"errors"
	"math"
	"testing"

	"github.com/kraftlab/kraftlab/cluster"
	"github.com/kraftlab/kraftlab/cluster/scenario"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func parsed(t *testing.T, doc []byte) *scenario.Scenario {
	t.Helper()
	s, err := scenario.Parse(doc)
	require.NoError(t, err)
	return s
}

// The KIP's load-test preset is docs/reference.md's "The load test after KIP-1358's", parameter for parameter.
func TestKIPLoadTestPreset(t *testing.T) {
	doc, err := KIPLoadTest().Scenario()
	require.NoError(t, err)
	s := parsed(t, doc)
	cs := s.Cluster
	spec := cs.Spec
	assert.Equal(t, uint64(42), spec.Seed)
	assert.Equal(t, 3, spec.Controllers)
	assert.Equal(t, []int32{0, 1, 2, 3, 4, 5}, spec.Brokers)
	require.Len(t, spec.Topics, 1)
	assert.Equal(t, 60_000, spec.Topics[0].PartitionCount)
	assert.Equal(t, 3, spec.Topics[0].ReplicationFactor)
	mi, _ := spec.Static.Get("min.insync.replicas")
	assert.Equal(t, int64(2), mi)
	assert.Equal(t, 50e6, spec.Workload.BytesPerSecPerBroker, "300 MB/s over 6 brokers")
	assert.Equal(t, 1.0, spec.Workload.Skew)
	assert.Equal(t, 500e6, spec.Broker.DiskWriteBytesPerSec)
	assert.Equal(t, 1250e6, spec.Broker.NicInBytesPerSec)
	// Everything the description does not state is the model's default: the same Spec the
	// cluster's own tests build from DefaultSpec, but for the log recovery the preset fixes
	// (derived from what broker 0 holds, it would be over an hour).
	def := cluster.DefaultSpec()
	assert.Equal(t, int64(120_000), spec.Broker.LogRecoveryHardMs)
	def.Broker.LogRecoveryHardMs = spec.Broker.LogRecoveryHardMs
	assert.Equal(t, def.Broker, spec.Broker)
	assert.Equal(t, def.Workload, spec.Workload)
	assert.Equal(t, int64(3_600_000), cs.DurationMs)
	require.Len(t, cs.Events, 2)
	assert.Equal(t, "kill", cs.Events[0].Op)
	assert.Equal(t, int64(20*60_000), cs.Events[0].AtMs)
	assert.Equal(t, "start", cs.Events[1].Op)
	assert.Equal(t, int64(21*60_000), cs.Events[1].AtMs)
}

func TestPresetsMakeValidScenarios(t *testing.T) {
	for _, name := range PresetNames() {
		d, err := Preset(name)
		require.NoError(t, err)
		doc, err := d.Scenario()
		require.NoError(t, err, name)
		s := parsed(t, doc)
		assert.Equal(t, d.Seed, s.Seed, name)
		assert.Less(t, s.Cluster.MemoryBytes, scenario.MemoryLimit, name)
	}
	_, err := Preset("huge")
	assert.ErrorContains(t, err, `unknown preset "huge"; presets: small, kip-load-test, large`)
}

func TestDescriptionEvents(t *testing.T) {
	d, _ := Preset(PresetSmall)
	d.Event = Event{Kind: EventDiskSwap, Broker: 2, AtMs: 60_000, DownMs: 30_000}
	doc, err := d.Scenario()
	require.NoError(t, err)
	ev := parsed(t, doc).Cluster.Events
	require.Len(t, ev, 3)
	assert.Equal(t, []string{"kill", "disk_swap", "start"}, []string{ev[0].Op, ev[1].Op, ev[2].Op})
	assert.Equal(t, int32(2), ev[2].Broker)
	assert.Equal(t, int64(90_000), ev[2].AtMs)

	d.Event = Event{Kind: EventRollingRestart, AtMs: 60_000, Brokers: 2, IntervalMs: 120_000}
	doc, err = d.Scenario()
	require.NoError(t, err)
	ev = parsed(t, doc).Cluster.Events
	require.Len(t, ev, 1)
	assert.Equal(t, "rolling_restart", ev[0].Op)
	assert.Equal(t, []int32{0, 1}, ev[0].Brokers)
	assert.Equal(t, int64(120_000), ev[0].IntervalMs)

	d.Event = Event{Kind: EventRestart, Broker: 1, AtMs: 60_000, DownMs: 10_000, Clean: true}
	doc, err = d.Scenario()
	require.NoError(t, err)
	assert.Equal(t, "shutdown", parsed(t, doc).Cluster.Events[0].Op)
}

func TestDescriptionValidation(t *testing.T) {
	cases := []struct {
		edit func(*Description)
		want string
	}{
		{func(d *Description) { d.ProduceBytesPerSec = -1 }, "produce_bytes_per_sec: invalid value -1: must be a rate in bytes per second above 0"},
		{func(d *Description) { d.ProduceBytesPerSec = math.NaN() }, "produce_bytes_per_sec: invalid value NaN"},
		{func(d *Description) { d.Brokers = 0 }, "brokers: invalid value 0: must be an integer from 1 to 3000"},
		{func(d *Description) { d.Controllers = 2 }, "controllers: invalid value 2: must be 1, 3 or 5"},
		{func(d *Description) { d.ReplicationFactor = 4 }, "replication_factor: invalid value 4: must be an integer from 1 to 3"},
		{func(d *Description) { d.MinInsyncReplicas = 4 }, "min_insync_replicas: invalid value 4"},
		{func(d *Description) { d.Topics = nil }, "topics: invalid value []"},
		{func(d *Description) { d.Topics = append(d.Topics, Topic{Name: "orders", Partitions: 1}) }, `topics[1].name: invalid value "orders"`},
		{func(d *Description) { d.Topics[0].Partitions = 0 }, "topics[0].partitions: invalid value 0"},
		{func(d *Description) { d.Skew = 6 }, "skew: invalid value 6"},
		{func(d *Description) { d.DiskBytesPerSec = 0 }, "disk_bytes_per_sec: invalid value 0"},
		{func(d *Description) { d.FollowerThrottleBytesPerSec = -5 }, "follower_throttle_bytes_per_sec: invalid value -5"},
		{func(d *Description) { d.Event.Kind = "reboot" }, `event.kind: invalid value "reboot": must be one of: restart, disk_swap, rolling_restart`},
		{func(d *Description) { d.Event.Broker = 3 }, "event.broker: invalid value 3: must be a broker id from 0 to 2"},
		{func(d *Description) { d.Event.DownMs = d.DurationMs }, "event.down_ms: invalid value"},
		{func(d *Description) { d.Event = Event{Kind: EventRollingRestart, Brokers: 4} }, "event.brokers: invalid value 4"},
		{func(d *Description) { d.Config = []Override{{"leader.imbalance.election.max.per.run", "0"}} }, "Invalid value 0 for configuration leader.imbalance.election.max.per.run: Value must be at least 1"},
	}
	for _, c := range cases {
		d, _ := Preset(PresetSmall)
		c.edit(d)
		_, err := d.Scenario()
		require.Error(t, err, c.want)
		assert.Contains(t, err.Error(), c.want)
		var fe *FieldError
		var ie *InputError
		assert.True(t, errors.As(err, &fe) || errors.As(err, &ie), "%s: a typed input error", c.want)
	}
}

func TestParseDescription(t *testing.T) {
	d, err := ParseDescription([]byte(`{"lab": {"preset": "kip-load-test", "event": {"kind": "disk_swap", "down_ms": 120000},
		"follower_throttle_bytes_per_sec": 150000000, "config": [{"name": "leader.imbalance.election.algorithm", "value": "wait-for-sync"}]}}`))
	require.NoError(t, err)
	assert.Equal(t, 6, d.Brokers, "the preset's fields stay")
	assert.Equal(t, EventDiskSwap, d.Event.Kind)
	assert.Equal(t, int64(20*60_000), d.Event.AtMs, "the event merges into the preset's")
	doc, err := d.Scenario()
	require.NoError(t, err)
	spec := parsed(t, doc).Cluster.Spec
	assert.Equal(t, 150e6, spec.Broker.FollowerThrottleBytesPerSec)
	assert.True(t, spec.Broker.ThrottleAllReplicas)
	alg, _ := spec.Static.Get("leader.imbalance.election.algorithm")
	assert.Equal(t, "wait-for-sync", alg)

	d, err = ParseDescription([]byte(`{"lab": {"topics": [{"name": "a", "partitions": 30}]}}`))
	require.NoError(t, err)
	assert.Equal(t, []Topic{{Name: "a", Partitions: 30}}, d.Topics, "a list replaces the preset's")

	for in, want := range map[string]string{
		`{"lab": {"brokerz": 3}}`:                `unknown field "brokerz"`,
		`{"lab": {"preset": "nope"}}`:            `lab.preset: unknown preset "nope"`,
		`{"lab": {"brokers": -1}}`:               "lab.brokers: invalid value -1",
		`{"seed": 1}`:                            `a description file is a JSON object {"lab": {...}}`,
		`{"lab": {"produce_bytes_per_sec": -1}}`: "lab.produce_bytes_per_sec: invalid value -1",
	} {
		_, err := ParseDescription([]byte(in))
		assert.ErrorContains(t, err, want, in)
	}
	assert.True(t, IsDescription([]byte(`{"lab": {}}`)))
	assert.False(t, IsDescription([]byte(`{"seed": 1, "cluster": {}}`)))
}
