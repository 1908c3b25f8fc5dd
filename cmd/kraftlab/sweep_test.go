package main

import (
	"encoding/csv"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// smallLab is a short description of the small preset, for CLI runs that take a second.
const smallLab = `{"lab": {"preset": "small", "duration_ms": 1200000}}`

func TestSweepWritesOneRowPerCell(t *testing.T) {
	code, out, errOut := cli(t, smallLab, "sweep", "-", "--parallel", "2",
		"--set", "leader.imbalance.election.algorithm=wait-for-sync",
		"--grid", "leader.imbalance.election.max.per.run=10,1000")
	require.Equal(t, exitOK, code, errOut)
	rows, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	require.NoError(t, err)
	require.Len(t, rows, 3)
	assert.Equal(t, []string{"cell", "leader.imbalance.election.max.per.run", "unfenced_at_ms"}, rows[0][:3])
	assert.Equal(t, []string{"0", "10"}, rows[1][:2])
	assert.Equal(t, []string{"1", "1000"}, rows[2][:2])
	assert.Equal(t, "verdict_recovery_within_2x_immediate", rows[0][len(rows[0])-2])

	code, out, errOut = cli(t, smallLab, "sweep", "-", "--format", "json", "--grid", "seed=1,2")
	require.Equal(t, exitOK, code, errOut)
	var js struct {
		Cells []map[string]any `json:"cells"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &js))
	assert.Len(t, js.Cells, 2)
}

func TestSweepRefusesBadInput(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"sweep", "preset:small", "--grid", "leader.imbalance.election.max.per.run=1..21:1", "--grid", "leader.imbalance.election.wait.for.sync.threshold.percent=0..19:1"},
			"kraftlab sweep: grid leader.imbalance.election.wait.for.sync.threshold.percent: 420 cells, more than 400"},
		{[]string{"sweep", "preset:small"}, "give one or two --grid"},
		{[]string{"sweep", "preset:small", "--grid", "max.per.run"}, "--grid want NAME=v1,v2"},
		{[]string{"sweep", "preset:small", "--grid", "leader.imbalance.election.max.per.run=-1"}, "Invalid value -1 for configuration leader.imbalance.election.max.per.run"},
		{[]string{"sweep", "preset:tiny", "--grid", "seed=1"}, `unknown preset "tiny"`},
		{[]string{"sweep", "preset:small", "--format", "xml", "--grid", "seed=1"}, "--format must be csv or json"},
		{[]string{"sweep", "-", "--grid", "seed=1"}, "lab.brokers: invalid value -2"},
	} {
		stdin := `{"lab": {"brokers": -2}}`
		code, out, errOut := cli(t, stdin, c.args...)
		assert.Equal(t, exitUsage, code, c.args)
		assert.Empty(t, out, c.args)
		assert.Contains(t, errOut, c.want, c.args)
		assert.Equal(t, 1, strings.Count(errOut, "\n"), "one line on stderr: %s", errOut)
	}
}

// --export-cell prints a cell's scenario; `kraftlab run` replays it.
func TestSweepExportsACellThatRunReplays(t *testing.T) {
	code, sc, errOut := cli(t, smallLab, "sweep", "-", "--export-cell", "1", "--grid", "leader.imbalance.election.max.per.run=10,20")
	require.Equal(t, exitOK, code, errOut)
	assert.Contains(t, sc, `"leader.imbalance.election.max.per.run": 20`)
	file := filepath.Join(t.TempDir(), "cell.json")
	require.NoError(t, os.WriteFile(file, []byte(sc), 0o644))
	code, _, errOut = cli(t, "", "run", file)
	assert.Equal(t, exitOK, code, errOut)
}

func TestLabComparesPolicies(t *testing.T) {
	props := filepath.Join(t.TempDir(), "server.properties")
	require.NoError(t, os.WriteFile(props, []byte("process.roles=broker\nleader.imbalance.check.interval.seconds=60\nnot a property\n"), 0o644))
	code, out, errOut := cli(t, smallLab, "lab", "-", "--properties", props,
		"--policy", "leader.imbalance.election.algorithm=immediate",
		"--policy", "leader.imbalance.election.algorithm=wait-for-sync,leader.imbalance.election.max.per.run=5")
	require.Equal(t, exitOK, code, errOut)
	assert.Contains(t, errOut, props+":1: ignored: process.roles=broker: not modelled")
	assert.Contains(t, errOut, props+":3: invalid: not a property: not name=value")
	assert.Contains(t, out, "| leader.imbalance.election.algorithm=wait-for-sync,leader.imbalance.election.max.per.run=5 | recovery time at most 2× that of immediate |")
	assert.Contains(t, out, "The verdicts rest on these uncertain model parameters")

	code, out, errOut = cli(t, "", "lab", "preset:kip-load-test", "--scenario", "--set", "broker.log_recovery_hard_ms=300000")
	require.Equal(t, exitOK, code, errOut)
	assert.Contains(t, out, `"log_recovery_hard_ms": 300000`)
	assert.Contains(t, out, `"partition_count": 60000`)
}
