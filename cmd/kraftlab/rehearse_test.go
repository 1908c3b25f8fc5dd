package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fixtures are lab's import fixtures, written from Kafka's tools' output formats.
func fixture(name string) string { return filepath.Join("..", "..", "lab", "testdata", "import", name) }

func TestLabImportScenarioPrintsTheAssignment(t *testing.T) {
	code, out, errOut := cli(t, "", "lab", "--topics", fixture("topics-4x.txt"), "--quorum", fixture("quorum-4x.txt"), "--scenario")
	require.Equal(t, exitOK, code, errOut)
	var doc struct {
		Cluster struct {
			Controllers int     `json:"controllers"`
			Brokers     []int32 `json:"brokers"`
			Topics      []struct {
				Name       string `json:"name"`
				Partitions []struct {
					Replicas []int32 `json:"replicas"`
				} `json:"partitions"`
			} `json:"topics"`
		} `json:"cluster"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &doc))
	assert.Equal(t, 3, doc.Cluster.Controllers, "the quorum's three voters")
	assert.Equal(t, []int32{1, 2, 3, 5, 6}, doc.Cluster.Brokers)
	require.Len(t, doc.Cluster.Topics, 4)
	assert.Equal(t, "payments-eu", doc.Cluster.Topics[1].Name)
	assert.Equal(t, []int32{3, 6, 1}, doc.Cluster.Topics[1].Partitions[1].Replicas, "a reassignment imports the replicas before it")
	assert.Contains(t, out, `{"replicas": [3, 6, 1]},`, "one line per partition")
	assert.Contains(t, out, `"brokers": [1, 2, 3, 5, 6],`)
	assert.Contains(t, errOut, "imported: 5 brokers, 15 partitions, rates assumed")
	assert.Contains(t, errOut, "topics-4x.txt:1: unused: [2026-12-03")
}

func TestLabImportRefusesBadInput(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.txt")
	require.NoError(t, os.WriteFile(bad, []byte("Topic: a\tTopicId: x\tPartitionCount: 2\tReplicationFactor: 1\tConfigs: \n\tTopic: a\tPartition: 0\tLeader: 1\tReplicas: 1\tIsr: 1\n"), 0o644))
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"lab", "--topics", bad, "--scenario"}, `kafka-topics.sh --describe, line 1: topic "a": PartitionCount: 2 but 1 partition lines follow`},
		{[]string{"lab", "--topics", fixture("log-dirs.txt"), "--scenario"}, "line 1: this is kafka-log-dirs.sh --describe output"},
		{[]string{"lab", "--rates", fixture("rates.csv"), "preset:small"}, "give --topics too"},
		{[]string{"lab", "--topics", fixture("topics-3x.txt"), "--report", "x.pdf"}, "give --plan too"},
		{[]string{"lab", "--topics", fixture("topics-3x.txt"), "--plan", fixture("plan.txt"), "--report", "x.pdf"}, "must end in .html or .md"},
		{[]string{"lab", "--topics", fixture("topics-3x.txt"), "--plan", fixture("plan.txt")}, "plan, line 4: broker 1 is not one of the cluster's (10, 11, 12)"},
	} {
		code, out, errOut := cli(t, "", c.args...)
		assert.Equal(t, exitUsage, code, c.args)
		assert.Empty(t, out, c.args)
		lines := strings.Split(strings.TrimSpace(errOut), "\n")
		assert.Contains(t, lines[len(lines)-1], c.want, c.args)
	}
}

func TestLabPlanWritesReports(t *testing.T) {
	dir := t.TempDir()
	plan := filepath.Join(dir, "plan.txt")
	require.NoError(t, os.WriteFile(plan, []byte("rolling-restart all timeout=5m\n"), 0o644))
	for _, name := range []string{"r.html", "r.md"} {
		report := filepath.Join(dir, name)
		code, out, errOut := cli(t, `{"lab": {"preset": "small", "data_bytes_per_broker": 1e9}}`, "lab", "-", "--topics", fixture("topics-4x.txt"), "--plan", plan, "--report", report, "--parallel", "2")
		require.Equal(t, exitOK, code, errOut)
		assert.Contains(t, out, "## Verdicts (KIP-1358's acceptance criteria)")
		body, err := os.ReadFile(report)
		require.NoError(t, err)
		for _, topic := range []string{"orders.v2", "payments-eu", "__consumer_offsets", "audit_log"} {
			assert.Contains(t, string(body), topic, name)
		}
	}
	code, out, errOut := cli(t, `{"lab": {"preset": "small", "data_bytes_per_broker": 1e9}}`, "lab", "-", "--topics", fixture("topics-4x.txt"), "--plan", plan, "--format", "json")
	require.Equal(t, exitOK, code, errOut)
	var js struct {
		Current struct {
			Steps []map[string]any `json:"steps"`
		} `json:"current"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &js))
	assert.Len(t, js.Current.Steps, 5)
}

func TestLabPlanSensitivity(t *testing.T) {
	plan := filepath.Join(t.TempDir(), "plan.txt")
	require.NoError(t, os.WriteFile(plan, []byte("shutdown 1 down=1m\n"), 0o644))
	code, out, errOut := cli(t, `{"lab": {"preset": "small", "data_bytes_per_broker": 1e9}}`, "lab", "-", "--topics", fixture("topics-4x.txt"),
		"--plan", plan, "--sensitivity", "--assumptions", "log_load_clean", "--parallel", "2")
	require.Equal(t, exitOK, code, errOut)
	assert.Regexp(t, `Rerun with each assumption at its low and high value, no verdict flipped|Verdicts that flip when an assumption moves`, out)
	assert.NotContains(t, out, "were not rerun")
}
