package lab

import (
	"errors"
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kraftlab/kraftlab/cluster/scenario"
	"github.com/kraftlab/kraftlab/engine/config"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The lab's table of Kafka-named block parameters matches the scenario format's: each is a
// setting the scenario accepts and not an engine config.
func TestKafkaAliasesAreScenarioSettings(t *testing.T) {
	for _, a := range kafkaAliases {
		name := a.kafka
		_, isConfig := config.Lookup(name)
		assert.False(t, isConfig, name)
		value := map[string]string{"acks": "all", "replica.fetch.response.max.bytes": "20000000", "retry.backoff.max.ms": "1000", "delivery.timeout.ms": "200000"}[name]
		if value == "" {
			value = "1"
		}
		_, err := scenario.ParseSetting("--set", name+"="+value)
		assert.NoError(t, err, name)
		// The scenario name in the lab's block is the same parameter.
		_, err = ApplyOverrides(smallDoc(t, nil), []Override{{a.block + "." + a.param, value}})
		assert.NoError(t, err, "%s is %s.%s", name, a.block, a.param)
	}
}

func TestApplyOverrides(t *testing.T) {
	doc := smallDoc(t, nil)
	out, err := ApplyOverrides(doc, []Override{
		{"seed", "9"},
		{"leader.imbalance.election.max.per.run", "150"},
		{"broker.disk_write_bytes_per_sec", "250000000"},
		{"follower.replication.throttled.rate", "1e8"},
		{"broker.follower_throttle_bytes_per_sec", "2e8"}, // the same parameter: replaces the Kafka spelling
		{"acks", "1"},
	})
	require.NoError(t, err)
	s := parsed(t, out)
	assert.Equal(t, uint64(9), s.Seed)
	v, _ := s.Config.Get("leader.imbalance.election.max.per.run")
	assert.Equal(t, int64(150), v)
	assert.Equal(t, 250e6, s.Cluster.Spec.Broker.DiskWriteBytesPerSec)
	assert.Equal(t, 2e8, s.Cluster.Spec.Broker.FollowerThrottleBytesPerSec)
	assert.Equal(t, "1", s.Cluster.Spec.Broker.Acks.String())

	for _, c := range []struct {
		o    Override
		want string
	}{
		{Override{"leader.imbalance.election.max.per.run", "-1"}, "leader.imbalance.election.max.per.run=-1: Invalid value -1 for configuration leader.imbalance.election.max.per.run: Value must be at least 1"},
		{Override{"broker.disk_write_bytes_per_sec", "-5"}, "broker.disk_write_bytes_per_sec=-5: cluster.broker.disk_write_bytes_per_sec: must be a number > 0"},
		{Override{"broker.no_such_param", "1"}, "broker.no_such_param=1: cluster.broker.no_such_param: unknown field"},
		{Override{"leader.imbalance.elektion.algorithm", "x"}, `did you mean "leader.imbalance.election.algorithm"?`},
		{Override{"seed", "-3"}, "seed=-3: invalid value"},
	} {
		_, err := ApplyOverrides(doc, []Override{c.o})
		require.Error(t, err, c.o.String())
		assert.Contains(t, err.Error(), c.want)
		var ie *InputError
		assert.True(t, errors.As(err, &ie), c.o.String())
	}
}

// Every parameter marked [assumption] in the broker and workload Params doc comments is either
// varied by the sensitivity view or listed in notVaried with a reason; every varied one is a
// parameter the scenario accepts at its low and high values.
func TestAssumptionsCoverTheModel(t *testing.T) {
	fields := map[string]string{}
	for _, file := range []string{"broker", "workload"} {
		path := filepath.Join("..", "cluster", file, "params.go")
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ParseComments)
		require.NoError(t, err)
		ast.Inspect(f, func(n ast.Node) bool {
			ts, ok := n.(*ast.TypeSpec)
			if !ok || ts.Name.Name != "Params" {
				return true
			}
			for _, fld := range ts.Type.(*ast.StructType).Fields.List {
				if fld.Doc != nil && strings.Contains(fld.Doc.Text(), "[assumption]") {
					for _, name := range fld.Names {
						fields[name.Name] = file
					}
				}
			}
			return false
		})
	}
	require.NotEmpty(t, fields)
	varied := map[string]bool{}
	for _, a := range Assumptions {
		for _, n := range a.Names {
			varied[snakeToGo(strings.SplitN(n, ".", 2)[1])] = true
		}
	}
	for name := range fields {
		_, skipped := notVaried[name]
		assert.True(t, varied[name] || skipped, "%s is marked [assumption] but neither varied nor listed in notVaried", name)
	}
	for name := range notVaried {
		_, ok := fields[name]
		assert.True(t, ok, "notVaried lists %s, which is not marked [assumption]", name)
	}

	doc, err := KIPLoadTest().Scenario()
	require.NoError(t, err)
	spec := parsed(t, doc).Cluster.Spec
	for _, a := range Assumptions {
		low, high := a.variants(&spec)
		for _, side := range [][]Override{low, high} {
			_, err := ApplyOverrides(doc, side)
			assert.NoError(t, err, a.Key)
		}
		assert.NotEmpty(t, a.Drives, a.Key)
	}
}

// snakeToGo turns disk_write_bytes_per_sec into DiskWriteBytesPerSec.
func snakeToGo(s string) string {
	var b strings.Builder
	for _, part := range strings.Split(s, "_") {
		if part != "" {
			b.WriteString(strings.ToUpper(part[:1]) + part[1:])
		}
	}
	return b.String()
}

// The sources the lab's notes show the reader are in the reader's words: no doc-comment
// tags ("[assumption]"), no section marks of the docs.
func TestAssumptionSourcesReadAsText(t *testing.T) {
	for _, a := range Assumptions {
		for _, tag := range []string{"[assumption]", "§", `("`} {
			assert.NotContains(t, a.Source, tag, "%s: %q", a.Key, a.Source)
		}
	}
}
