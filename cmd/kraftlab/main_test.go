package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var testdata = filepath.Join("..", "..", "cluster", "scenario", "testdata")

// cli runs the CLI in-process and returns its exit status, stdout and stderr.
func cli(t *testing.T, stdin string, args ...string) (int, string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code := run(args, strings.NewReader(stdin), &out, &errOut)
	return code, out.String(), errOut.String()
}

func golden(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(testdata, name))
	require.NoError(t, err)
	return string(b)
}

func TestRunWritesTheResultAsJSON(t *testing.T) {
	code, out, errOut := cli(t, "", "run", filepath.Join(testdata, "electing-a-new-leader.json"))
	assert.Equal(t, exitOK, code)
	assert.Empty(t, errOut)
	assert.Equal(t, golden(t, "electing-a-new-leader.out.json"), out)
	var res map[string]any
	require.NoError(t, json.Unmarshal([]byte(out), &res))
	assert.Contains(t, res, "steps")
	assert.Contains(t, res, "metrics")
	assert.Contains(t, res, "partitions")
	assert.Contains(t, res, "brokers")
}

func TestRunWritesTextForPeople(t *testing.T) {
	file := filepath.Join(testdata, "electing-a-new-leader.json")
	for _, args := range [][]string{
		{"run", "--format", "text", file},
		{"run", file, "--format=text"}, // flags may follow the file
		{"run", "-format", "text", "--", file},
	} {
		code, out, errOut := cli(t, "", args...)
		assert.Equal(t, exitOK, code, args)
		assert.Empty(t, errOut)
		assert.Equal(t, golden(t, "electing-a-new-leader.out"), out, args)
	}
}

func TestRunReadsStdin(t *testing.T) {
	code, out, _ := cli(t, golden(t, "electing-a-new-leader.json"), "run", "-")
	assert.Equal(t, exitOK, code)
	assert.Equal(t, golden(t, "electing-a-new-leader.out.json"), out)
}

func TestInvalidInputIsOneLineOnStderrAndNothingOnStdout(t *testing.T) {
	bad := `{"mode": "controller", "brokers": [{"id": 0}, {"id": 1}, {"id": 2}],
	 "steps": [{"op": "advance", "ms": 1}, {"op": "stop", "broker": 1}, {"op": "describe"}, {"op": "stop", "broker": 7}]}`
	cases := []struct {
		stdin string
		args  []string
		want  string
	}{
		{bad, []string{"run", "-"}, "steps[3].broker: broker 7 does not exist (brokers: 0, 1, 2)"},
		{`{"mode": "controller", "steps": [{"op": "advance", "ms": -5}]}`, []string{"run", "-"}, "steps[0].ms: must be a non-negative integer, got -5"},
		{`{"mode": "controller", "config": {"min.insync.replicas": 0}}`, []string{"run", "--format", "text", "-"},
			`config["min.insync.replicas"]: Invalid value 0 for configuration min.insync.replicas: Value must be at least 1`},
		{`{"mode": "cluster"}`, []string{"run", "-"}, `duration_ms: required (how long the cluster runs, in ms)`},
		{"{\n", []string{"run", "-"}, "invalid JSON at line 2, column 1: unexpected end of input"},
		{"", []string{"run", filepath.Join(testdata, "missing.json")}, "kraftlab run: open " + filepath.Join(testdata, "missing.json") + ": no such file or directory"},
		{"", []string{"run"}, "kraftlab run: want exactly one FILE, got 0 arguments (usage: kraftlab run [--format json|text] [--set NAME=VALUE]... FILE)"},
		{"", []string{"run", "a.json", "b.json"}, "kraftlab run: want exactly one FILE, got 2 arguments (usage: kraftlab run [--format json|text] [--set NAME=VALUE]... FILE)"},
		{"", []string{"run", "--format", "xml", "a.json"}, `kraftlab run: --format must be json or text, got "xml"`},
		{"", []string{"run", "--verbose", "a.json"}, "kraftlab run: flag provided but not defined: -verbose (usage: kraftlab run [--format json|text] [--set NAME=VALUE]... FILE)"},
		{"", []string{"compile"}, `kraftlab: unknown command "compile" (commands: run, compare, sweep, lab, lesson, help; see 'kraftlab help')`},
		{"", []string{"help", "compile"}, `kraftlab help: unknown command "compile" (commands: run, compare, sweep, lab, lesson, help)`},
	}
	for _, c := range cases {
		code, out, errOut := cli(t, c.stdin, c.args...)
		assert.Equal(t, exitUsage, code, c.args)
		assert.Empty(t, out, "nothing on stdout: %v", c.args)
		assert.Equal(t, c.want+"\n", errOut, c.args)
	}
}

func TestHelpDescribesTheCommands(t *testing.T) {
	code, out, _ := cli(t, "", "help")
	assert.Equal(t, exitOK, code)
	assert.Contains(t, out, "kraftlab run [--format json|text] [--set NAME=VALUE]... FILE")
	assert.Contains(t, out, "kraftlab compare [--format text|json] [--set NAME=VALUE]... FILE --a NAME=VALUE... --b NAME=VALUE...")
	assert.Contains(t, out, "kraftlab help [COMMAND]")

	code, out, _ = cli(t, "", "help", "run")
	assert.Equal(t, exitOK, code)
	assert.Contains(t, out, "--format text")
	assert.Contains(t, out, "docs/scenario.md")

	code, help, _ := cli(t, "", "run", "--help")
	assert.Equal(t, exitOK, code)
	assert.Equal(t, out, help)

	code, out, _ = cli(t, "", "--help")
	assert.Equal(t, exitOK, code)
	assert.Contains(t, out, "Usage:")

	code, out, errOut := cli(t, "")
	assert.Equal(t, exitUsage, code, "no command is a usage error")
	assert.Empty(t, out)
	assert.Contains(t, errOut, "Usage:")
}

func TestRunPlaysClusterMode(t *testing.T) {
	file := filepath.Join(testdata, "cluster-operations.json")
	code, out, errOut := cli(t, "", "run", file)
	assert.Equal(t, exitOK, code, errOut)
	assert.Equal(t, golden(t, "cluster-operations.out.json"), out)
	code, out, _ = cli(t, "", "run", "--format", "text", file)
	assert.Equal(t, exitOK, code)
	assert.Equal(t, golden(t, "cluster-operations.out"), out)
}

func TestSetOverridesAConfigInBothModes(t *testing.T) {
	// Controller mode: electPreferred every 60 s instead of 300 s hands leadership back sooner.
	file := filepath.Join(testdata, "electing-a-new-leader.json")
	_, base, _ := cli(t, "", "run", "--format", "text", file)
	code, set, errOut := cli(t, "", "run", "--format", "text", "--set", "leader.imbalance.check.interval.seconds=60", file)
	assert.Equal(t, exitOK, code, errOut)
	assert.Contains(t, base, "electPreferred at 300000 ms: elected payments-0→1")
	assert.Contains(t, set, "electPreferred at 60000 ms: elected payments-0→1")

	// Cluster mode: a Kafka config and a broker setting under its Kafka name.
	file = filepath.Join(testdata, "cluster-kill-start.json")
	_, base, _ = cli(t, "", "run", "--format", "text", file)
	code, set, errOut = cli(t, "", "run", "--format", "text", file,
		"--set", "leader.imbalance.check.interval.seconds=60", "--set=replica.lag.time.max.ms=10000")
	assert.Equal(t, exitOK, code, errOut)
	assert.Equal(t, 4, strings.Count(base, "electPreferred on controller"), "every 300 s in 20 minutes")
	assert.Equal(t, 20, strings.Count(set, "electPreferred on controller"), "every 60 s")
}

func TestBadSettingsAreUsageErrors(t *testing.T) {
	cluster := filepath.Join(testdata, "cluster-kill-start.json")
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"run", "--set", "min.insync.replicas=0", cluster}, `--set min.insync.replicas=0: Invalid value 0 for configuration min.insync.replicas: Value must be at least 1`},
		{[]string{"run", "--set", "min.insync.replicas", cluster}, `--set: want NAME=VALUE (a config such as leader.imbalance.election.max.per.run=200), got "min.insync.replicas"`},
		{[]string{"run", "--set", "linger.ms=5", filepath.Join(testdata, "electing-a-new-leader.json")}, `--set linger.ms=5: linger.ms is a setting of the cluster mode's workload block; this scenario is in controller mode`},
		{[]string{"compare", cluster}, `kraftlab compare: give at least one --a or --b setting: they are what the two runs differ in`},
		{[]string{"compare", cluster, "--a", "acks=0"}, `--a acks=0: must be "all" (or "-1", -1) or "1" (or 1); acks=0 is not modelled, got 0`},
		{[]string{"compare", "--b", "acks=1"}, `kraftlab compare: want exactly one FILE, got 0 arguments (usage: kraftlab compare [--format text|json] [--set NAME=VALUE]... FILE --a NAME=VALUE... --b NAME=VALUE...)`},
		{[]string{"compare", "--format", "xml", cluster, "--b", "acks=1"}, `kraftlab compare: --format must be text or json, got "xml"`},
		{[]string{"compare", filepath.Join(testdata, "electing-a-new-leader.json"), "--b", "min.insync.replicas=2"}, `mode: compare needs a cluster-mode scenario (a controller-mode run has no summary to compare)`},
	}
	for _, c := range cases {
		code, out, errOut := cli(t, "", c.args...)
		assert.Equal(t, exitUsage, code, c.args)
		assert.Empty(t, out, c.args)
		assert.Equal(t, c.want+"\n", errOut, c.args)
	}
}

func TestCompareWritesTheSummariesSideBySide(t *testing.T) {
	file := filepath.Join(testdata, "cluster-kill-start.json")
	args := []string{"compare", file, "--a", "leader.imbalance.check.interval.seconds=300", "--b", "leader.imbalance.check.interval.seconds=60", "--set", "acks=all"}
	code, out, errOut := cli(t, "", args...)
	require.Equal(t, exitOK, code, errOut)
	assert.Contains(t, out, "both: acks=all\na:    leader.imbalance.check.interval.seconds=300\nb:    leader.imbalance.check.interval.seconds=60\n")
	assert.Regexp(t, `\nmax_elections_per_run +100 +\d\d +0\.\d{3}\n`, out, "runs every 60 s catch the broker as it rejoins the ISRs: fewer elections per run")
	assert.Regexp(t, `\nunfenced_at_ms +667819 +667819 +1\.000\n`, out, "the same seed: the same restart")

	code, js, _ := cli(t, "", append(args, "--format", "json")...)
	require.Equal(t, exitOK, code)
	var res struct {
		Seed uint64
		Set  map[string]string
		A, B struct {
			Settings map[string]string
			Summary  map[string]float64
		}
		Ratio map[string]*float64
	}
	require.NoError(t, json.Unmarshal([]byte(js), &res))
	assert.Equal(t, uint64(7), res.Seed)
	assert.Equal(t, map[string]string{"acks": "all"}, res.Set)
	assert.Equal(t, 667819.0, res.A.Summary["unfenced_at_ms"], "killed at 300 s, started at 360 s: 5 s to register, then the hard recovery of 300 busy logs")
	require.NotNil(t, res.Ratio["recovery_time_ms"])
	assert.InDelta(t, res.B.Summary["recovery_time_ms"]/res.A.Summary["recovery_time_ms"], *res.Ratio["recovery_time_ms"], 0.001)
	assert.Nil(t, res.Ratio["produce_timeouts"], "0 in a: no ratio")

	code, help, _ := cli(t, "", "help", "compare")
	assert.Equal(t, exitOK, code)
	assert.Contains(t, help, "--a NAME=VALUE")
}
