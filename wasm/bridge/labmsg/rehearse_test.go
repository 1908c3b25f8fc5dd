package labmsg

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kraftlab/kraftlab/internal/jsskip"
	"github.com/kraftlab/kraftlab/wasm/bridge"
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

// The page sends the tools' outputs as the request's attachment (attached: their byte
// lengths): the reply is the one for the same texts in the JSON body. A worker started for a
// run the plan does not have (only ≥ runs) keeps nothing; attachments that do not add up are
// bad requests.
func TestRehearseTextsAsAttachment(t *testing.T) {
	topics, quorum := fixtureText(t, "topics-4x.txt"), fixtureText(t, "quorum-4x.txt")
	body := map[string]any{"description": map[string]any{"data_bytes_per_broker": 1e9}, "plan": "rolling-restart all timeout=10m\n",
		"candidate": map[string]any{"name": "wait-for-sync", "overrides": []string{"leader.imbalance.election.algorithm=wait-for-sync"}}}
	inBody := map[string]any{"topics": topics, "quorum": quorum}
	for k, v := range body {
		inBody[k] = v
	}
	want, _ := newRehearseBridge().Handle([]byte(rehearseMsg(t, inBody)))

	attach := func(b *bridge.Bridge, lengths []int, data string, only int) bridge.Reply {
		withLengths := map[string]any{"attached": lengths, "only": only}
		for k, v := range body {
			withLengths[k] = v
		}
		msg, err := json.Marshal(map[string]any{"id": 1, "type": "lab.rehearse.start", "body": withLengths, "data": len(data)})
		require.NoError(t, err)
		out, _ := b.HandleData(msg, []byte(data))
		var r bridge.Reply
		require.NoError(t, json.Unmarshal(out, &r))
		return r
	}
	b := newRehearseBridge()
	out, _ := b.HandleData(mustJSON(t, map[string]any{"id": 1, "type": "lab.rehearse.start", "data": len(topics) + len(quorum),
		"body": map[string]any{"attached": []int{len(topics), 0, len(quorum), 0}, "description": body["description"], "plan": body["plan"], "candidate": body["candidate"]}}),
		[]byte(topics+quorum))
	assert.JSONEq(t, string(want), string(out))

	r := attach(b, []int{len(topics), 0, len(quorum), 0}, topics+quorum, 3)
	require.True(t, r.OK, "%+v", r.Error)
	assert.Equal(t, float64(3), r.Body.(map[string]any)["runs"])
	r, _ = call(t, b, `{"id": 2, "type": "lab.rehearse.step", "body": {"ms": 1000}}`)
	require.NotNil(t, r.Error, "a worker beyond the runs keeps no rehearsal")
	assert.Contains(t, r.Error.Message, "no rehearsal started")

	for _, c := range []struct {
		lengths []int
		data    string
		want    string
	}{
		{[]int{len(topics)}, topics, "attached must be"},
		{[]int{len(topics) + 1, 0, 0, 0}, topics, "attached must be"},
		{[]int{len(topics) - 1, 0, 0, 0}, topics, "adding up to the attachment's"},
		{[]int{-1, 0, 0, 0}, topics, "attached must be"},
	} {
		r := attach(b, c.lengths, c.data, 0)
		require.NotNil(t, r.Error, c.want)
		assert.Equal(t, bridge.CodeBadRequest, r.Error.Code)
		assert.Contains(t, r.Error.Message, c.want)
	}
	out, _ = b.HandleData([]byte(`{"id": 3, "type": "lab.rehearse.start", "data": 3, "body": {"plan": "pause 1m"}}`), []byte("abc"))
	assert.Contains(t, string(out), "attached must be")
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return b
}

// The page imports in one worker, which replies with the cluster (share), and hands it to the
// workers of the other runs (imported): the runs they play, gathered, make the report of one
// worker that imported the texts and played every run itself.
func TestRehearseHandsTheImportedClusterOver(t *testing.T) {
	jsskip.CoveredNatively(t, "runs of a handed-over cluster against one worker's rehearsal, both in this process")
	topics, logDirs, rates := fixtureText(t, "topics-4x.txt"), fixtureText(t, "log-dirs.txt"), fixtureText(t, "rates.prom")
	body := func(extra map[string]any) map[string]any {
		out := map[string]any{"description": map[string]any{"data_bytes_per_broker": 1e9}, "plan": "rolling-restart all timeout=10m\n",
			"candidate": map[string]any{"name": "wait-for-sync", "overrides": []string{"leader.imbalance.election.algorithm=wait-for-sync"}}}
		for k, v := range extra {
			out[k] = v
		}
		return out
	}
	start := func(b *bridge.Bridge, extra map[string]any, data []byte) (bridge.Reply, json.RawMessage, []byte) {
		msg := mustJSON(t, map[string]any{"id": 1, "type": "lab.rehearse.start", "body": body(extra), "data": len(data)})
		out, att := b.HandleData(msg, data)
		var env struct {
			bridge.Reply
			Body json.RawMessage `json:"body"`
		}
		require.NoError(t, json.Unmarshal(out, &env))
		return env.Reply, env.Body, append([]byte(nil), att...)
	}
	toEnd := func(b *bridge.Bridge) {
		for i := 0; ; i++ {
			require.Less(t, i, 1000)
			if okBody[RehearseStepBody](t, b, `{"id": 2, "type": "lab.rehearse.step", "body": {"ms": 120000}}`).Done {
				return
			}
		}
	}
	texts := []byte(topics + logDirs + rates)
	attached := []int{len(topics), len(logDirs), 0, len(rates)}

	alone := newRehearseBridge()
	r, _, _ := start(alone, map[string]any{"attached": attached}, texts)
	require.True(t, r.OK, "%+v", r.Error)
	toEnd(alone)
	want := okBody[RehearseReportBody](t, alone, `{"id": 3, "type": "lab.rehearse.report", "body": {}}`)

	first := newRehearseBridge()
	r, raw, cluster := start(first, map[string]any{"attached": attached, "only": 0, "share": true}, texts)
	require.True(t, r.OK, "%+v", r.Error)
	var res RehearseStartBody
	require.NoError(t, json.Unmarshal(raw, &res))
	require.Empty(t, res.Errors)
	require.NotNil(t, res.Import)
	require.Equal(t, 3, res.Runs)
	require.Equal(t, len(cluster), r.Data, "the cluster is the reply's attachment")
	require.Less(t, len(cluster), len(texts))
	toEnd(first)
	for k := 1; k < res.Runs; k++ {
		other := newRehearseBridge()
		r, raw, att := start(other, map[string]any{"imported": true, "only": k}, cluster)
		require.True(t, r.OK, "%+v", r.Error)
		assert.Nil(t, att)
		var got RehearseStartBody
		require.NoError(t, json.Unmarshal(raw, &got))
		assert.Empty(t, got.Errors)
		assert.Nil(t, got.Import, "the import's report stays with the worker that imported")
		assert.Equal(t, res.Steps, got.Steps)
		toEnd(other)
		r, _ = call(t, other, `{"id": 3, "type": "lab.rehearse.report", "body": {}}`)
		require.NotNil(t, r.Error)
		assert.Contains(t, r.Error.Message, "ask the worker that imported the texts")
		export, err := json.Marshal(map[string]any{"id": 4, "type": "lab.rehearse.adopt",
			"body": okBody[RunData](t, other, `{"id": 5, "type": "lab.rehearse.export", "body": {}}`)})
		require.NoError(t, err)
		okBody[struct{}](t, first, string(export))
	}
	got := okBody[RehearseReportBody](t, first, `{"id": 3, "type": "lab.rehearse.report", "body": {}}`)
	assert.Equal(t, want.HTML, got.HTML)
	assert.Equal(t, want.Markdown, got.Markdown)

	// Bad hand-overs are bad requests.
	for _, c := range []struct {
		extra map[string]any
		data  []byte
		want  string
	}{
		{map[string]any{"imported": true}, cluster[:len(cluster)-1], "imported takes a shared cluster alone"},
		{map[string]any{"imported": true}, nil, "imported takes a shared cluster alone"},
		{map[string]any{"imported": true, "topics": topics}, cluster, "imported takes a shared cluster alone"},
		{map[string]any{"imported": true, "share": true}, cluster, "imported takes a shared cluster alone"},
		{map[string]any{"imported": true, "attached": []int{len(cluster), 0, 0, 0}}, cluster, "imported takes a shared cluster alone"},
	} {
		r, _, _ := start(newRehearseBridge(), c.extra, c.data)
		require.NotNil(t, r.Error, c.want)
		assert.Equal(t, bridge.CodeBadRequest, r.Error.Code)
		assert.Contains(t, r.Error.Message, c.want)
	}
}
