package labmsg

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func fixtureText(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "..", "lab", "testdata", "import", name))
	require.NoError(t, err)
	return string(b)
}

func rehearseMsg(t *testing.T, body map[string]any) string {
	b, err := json.Marshal(map[string]any{"id": 1, "type": "lab.rehearse.start", "body": body})
	require.NoError(t, err)
	return string(b)
}

// The page's rehearsal: import, step to the end, report; errors name the page's field and line.
func TestRehearse(t *testing.T) {
	b := newRehearseBridge()
	body := map[string]any{"description": map[string]any{"data_bytes_per_broker": 1e9}, "topics": fixtureText(t, "topics-4x.txt"),
		"quorum": fixtureText(t, "quorum-4x.txt"), "plan": "rolling-restart all timeout=10m\n",
		"candidate": map[string]any{"name": "wait-for-sync", "overrides": []string{"leader.imbalance.election.algorithm=wait-for-sync"}}}
	start := okBody[RehearseStartBody](t, b, rehearseMsg(t, body))
	require.Empty(t, start.Errors)
	assert.Equal(t, "5 brokers, 15 partitions, rates assumed", start.Import.Summary)
	assert.Equal(t, []string{"rolling-restart all timeout=10m0s"}, start.Steps)
	last := 0.0
	for i := 0; ; i++ {
		require.Less(t, i, 1000)
		st := okBody[RehearseStepBody](t, b, `{"id": 2, "type": "lab.rehearse.step", "body": {"ms": 120000}}`)
		assert.GreaterOrEqual(t, st.Progress, last)
		last = st.Progress
		if st.Done {
			break
		}
	}
	rep := okBody[RehearseReportBody](t, b, `{"id": 3, "type": "lab.rehearse.report", "body": {}}`)
	assert.Contains(t, rep.HTML, "<!DOCTYPE html>")
	assert.Contains(t, rep.Markdown, "## Verdicts")
	assert.Len(t, rep.Verdicts["candidate"], 3)

	for _, c := range []struct {
		key, value, field string
		line              int
	}{
		{"topics", "Topic: a\tPartitionCount: 2\tReplicationFactor: 1\tConfigs: \n", "import.topics", 1},
		{"quorum", fixtureText(t, "topics-3x.txt"), "import.quorum", 1},
		{"plan", "\nreboot 1", "plan", 2},
	} {
		bad := map[string]any{}
		for k, v := range body {
			bad[k] = v
		}
		bad[c.key] = c.value
		res := okBody[RehearseStartBody](t, b, rehearseMsg(t, bad))
		require.Len(t, res.Errors, 1, c.key)
		assert.Equal(t, c.field, res.Errors[0].Field)
		assert.Equal(t, c.line, res.Errors[0].Line, res.Errors[0].Message)
	}
	okBody[struct{}](t, b, `{"id": 4, "type": "lab.rehearse.cancel", "body": {}}`)
}
