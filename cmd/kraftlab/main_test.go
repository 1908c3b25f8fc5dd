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
		{`{"mode": "cluster"}`, []string{"run", "-"}, `mode: "cluster" is not yet supported (only "controller" is)`},
		{"{\n", []string{"run", "-"}, "invalid JSON at line 2, column 1: unexpected end of input"},
		{"", []string{"run", filepath.Join(testdata, "missing.json")}, "kraftlab run: open " + filepath.Join(testdata, "missing.json") + ": no such file or directory"},
		{"", []string{"run"}, "kraftlab run: want exactly one FILE, got 0 arguments (usage: kraftlab run [--format json|text] FILE)"},
		{"", []string{"run", "a.json", "b.json"}, "kraftlab run: want exactly one FILE, got 2 arguments (usage: kraftlab run [--format json|text] FILE)"},
		{"", []string{"run", "--format", "xml", "a.json"}, `kraftlab run: --format must be json or text, got "xml"`},
		{"", []string{"run", "--verbose", "a.json"}, "kraftlab run: flag provided but not defined: -verbose (usage: kraftlab run [--format json|text] FILE)"},
		{"", []string{"compile"}, `kraftlab: unknown command "compile" (commands: run, help; see 'kraftlab help')`},
		{"", []string{"help", "compile"}, `kraftlab help: unknown command "compile" (commands: run, help)`},
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
	assert.Contains(t, out, "kraftlab run [--format json|text] FILE")
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
