package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestLessonCheck: a good lesson file prints "ok", a bad one its file and line on stderr with
// status 2, and a missing subcommand is a usage error.
func TestLessonCheck(t *testing.T) {
	dir := t.TempDir()
	good := "---\ntitle: T\nsummary: S\n---\n```json scenario\n" +
		`{"duration_ms": 60000, "cluster": {"controllers": 1, "brokers": 3, "topics": [{"name": "t", "partitions": [{"replicas": [1, 2, 0]}]}],` +
		` "workload": {"samples_per_window": 100}}}` + "\n```\n## Kill\ndo: kill broker 1\ngoal: leader t-0 == 2\nreference:\n- kill 1\n- until leader t-0 == 2 within 15s\n## Sandbox\nPlay.\n"
	gp := filepath.Join(dir, "good.md")
	bp := filepath.Join(dir, "bad.md")
	assert.NoError(t, os.WriteFile(gp, []byte(good), 0o644))
	assert.NoError(t, os.WriteFile(bp, []byte(strings.Replace(good, "goal: leader", "goal: leaderr", 1)), 0o644))

	var out, errb bytes.Buffer
	assert.Equal(t, exitOK, run([]string{"lesson", "check", gp}, nil, &out, &errb))
	assert.Equal(t, "ok  "+gp+": 2 steps\n", out.String())
	assert.Empty(t, errb.String())

	out.Reset()
	assert.Equal(t, exitUsage, run([]string{"lesson", "check", "-v", gp, bp}, nil, &out, &errb))
	assert.Contains(t, out.String(), `good step 1 "Kill": 0 ms to `)
	assert.Contains(t, errb.String(), bp+`:10: goal: unknown predicate "leaderr" (known: `)

	errb.Reset()
	assert.Equal(t, exitUsage, run([]string{"lesson"}, nil, &out, &errb))
	assert.Contains(t, errb.String(), "want a subcommand: check")
}
