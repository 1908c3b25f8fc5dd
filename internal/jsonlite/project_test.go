// The project's packages import jsonlite themselves in js/wasm (through internal/json), so
// this test, which imports them, can only be built natively: there it compares jsonlite with
// the encoding/json they use.

//go:build !(js && wasm)

package jsonlite

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kraftlab/kraftlab/cluster/scenario"
	"github.com/kraftlab/kraftlab/lab"
	"github.com/kraftlab/kraftlab/lessons"
	"github.com/kraftlab/kraftlab/wasm/bridge"
	"github.com/kraftlab/kraftlab/wasm/bridge/labmsg"
)

// exchange is one request of a script and the Go type of its reply's body.
type exchange struct {
	typ, body string
	// check decodes the reply body with both packages into the body's type, and marshals
	// the result with both; nil for a failing request.
	check func(t *testing.T, raw []byte)
}

// roundTrip is an exchange's check for body type T.
func roundTrip[T any](t *testing.T, raw []byte) {
	t.Helper()
	var want, got T
	require.NoError(t, json.Unmarshal(raw, &want), "%T: %s", want, raw)
	require.NoError(t, Unmarshal(raw, &got), "%T: %s", got, raw)
	require.Equal(t, canon(want), canon(got), "%T decoded", got)
	wantOut, err := json.Marshal(&want)
	require.NoError(t, err)
	gotOut, err := Marshal(&got)
	require.NoError(t, err)
	require.Equal(t, string(wantOut), string(gotOut), "%T encoded", got)
}

// play sends a script through a bridge and checks every reply body.
func play(t *testing.T, b *bridge.Bridge, script []exchange) {
	t.Helper()
	for i, x := range script {
		msg := fmt.Sprintf(`{"id":%d,"type":%q`, i+1, x.typ)
		if x.body != "" {
			msg += `,"body":` + x.body
		}
		out, _ := b.Handle([]byte(msg + "}"))
		// The envelope itself, as a value of the bridge's Reply type.
		roundTrip[struct {
			bridge.Reply
			Body json.RawMessage `json:"body"`
		}](t, out)
		var env struct {
			OK    bool            `json:"ok"`
			Body  json.RawMessage `json:"body"`
			Error *bridge.Error   `json:"error"`
		}
		require.NoError(t, json.Unmarshal(out, &env))
		if x.check == nil {
			continue
		}
		require.True(t, env.OK, "%s %s: %+v", x.typ, x.body, env.Error)
		t.Run(fmt.Sprintf("%d-%s", i+1, x.typ), func(t *testing.T) { x.check(t, env.Body) })
	}
}

// TestProjectRepliesSameAsEncodingJSON runs the playground's and the lab's messages and
// requires each reply body, decoded into its Go type, to decode and encode the same with
// jsonlite as with encoding/json: frames, histories, exports, lessons, lab plans and results.
func TestProjectRepliesSameAsEncodingJSON(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a simulation and a lab run")
	}
	b := bridge.New(bridge.Info{Version: "test <&>"})
	play(t, b, []exchange{
		{"hello", "", roundTrip[bridge.HelloBody]},
		{"config.defs", "", roundTrip[bridge.ConfigDefsBody]},
		{"config.validate", `{"name":"min.insync.replicas","value":2}`, roundTrip[bridge.ValidateBody]},
		{"config.validate", `{"name":"leader.imbalance.per.broker.percentage","value":"x"}`, roundTrip[bridge.ValidateBody]},
		{"sim.start", `{"brokers":6,"partitions":2000}`, roundTrip[bridge.StartBody]},
		{"sim.advance", `{"ms":15000,"layout":0}`, roundTrip[bridge.Frame]},
		{"sim.act", `{"op":"create_topic","topic":"orders.x","partitions":4,"replicationFactor":6}`, roundTrip[bridge.ActBody]},
		{"sim.advance", `{"ms":1000}`, roundTrip[bridge.Frame]},
		{"sim.act", `{"op":"kill","broker":2}`, roundTrip[bridge.ActBody]},
		{"sim.act", `{"op":"slow_disk","broker":3,"factor":0.25}`, roundTrip[bridge.ActBody]},
		{"sim.act", `{"op":"set_config","name":"leader.imbalance.election.max.per.run","value":2}`, roundTrip[bridge.ActBody]},
		{"sim.act", `{"op":"cut","a":"broker-3","b":"producers"}`, roundTrip[bridge.ActBody]},
		{"sim.advance", `{"ms":30000}`, roundTrip[bridge.Frame]},
		{"sim.act", `{"op":"start","broker":2}`, roundTrip[bridge.ActBody]},
		{"sim.act", `{"op":"elect_leaders"}`, roundTrip[bridge.ActBody]},
		{"sim.advance", `{"ms":60000,"layout":1}`, roundTrip[bridge.Frame]},
		{"sim.frame", `{"layout":1}`, roundTrip[bridge.Frame]},
		{"sim.replica", `{"topic":"orders.x","partition":1,"broker":1}`, roundTrip[bridge.ReplicaBody]},
		{"sim.history", "", roundTrip[bridge.HistoryBody]},
		{"sim.seek", `{"timeMs":20000}`, roundTrip[bridge.Frame]},
		{"sim.step", `{"to":"event"}`, roundTrip[bridge.Frame]},
		{"sim.export", "", roundTrip[bridge.ExportBody]},
		{"lesson.list", "", roundTrip[bridge.LessonListBody]},
		{"lesson.open", `{"lesson":"1","step":0}`, roundTrip[bridge.LessonOpenBody]},
		{"lesson.check", "", roundTrip[bridge.LessonCheckBody]},
		{"lesson.play", `{"what":"demo"}`, roundTrip[bridge.LessonPlayBody]},
		{"sim.bogus", "", nil},
		{"sim.advance", `{"ms":"x"}`, nil},
	})

	lb := bridge.NewCore(bridge.Info{})
	labmsg.Register(lb)
	plan := `{"description":{"preset":"small","duration_ms":900000},"sensitivity":["disk"],"policies":[{"name":"today <1>","overrides":[]},{"name":"kip","overrides":["leader.imbalance.election.algorithm=wait-for-sync"]}]}`
	out, _ := lb.Handle([]byte(`{"id":1,"type":"lab.plan","body":` + plan + `}`))
	var env struct {
		Body labmsg.PlanBody `json:"body"`
	}
	require.NoError(t, json.Unmarshal(out, &env))
	require.NotEmpty(t, env.Body.Runs, "%s", out)
	doc, err := json.Marshal(env.Body.Runs[0])
	require.NoError(t, err)
	play(t, lb, []exchange{
		{"lab.presets", "", roundTrip[labmsg.PresetsBody]},
		{"lab.plan", plan, roundTrip[labmsg.PlanBody]},
		{"lab.plan", `{"description":{"brokers":"six"}}`, roundTrip[labmsg.PlanBody]},
		{"lab.run.start", `{"id":7,"scenario":` + string(doc) + `}`, roundTrip[labmsg.ProgressBody]},
		{"lab.run.step", `{"ms":1000000}`, roundTrip[labmsg.ProgressBody]},
		{"lab.run.result", "", roundTrip[labmsg.ResultBody]},
		{"lab.judge", `{"ids":[7]}`, roundTrip[labmsg.JudgeBody]},
	})
}

// TestProjectRequestsSameAsEncodingJSON decodes request bodies, good and bad, into the
// protocol's request types as bridge.Decode does (unknown fields refused, numbers exact), and
// requires the same values and the same error texts: the page shows those texts.
func TestProjectRequestsSameAsEncodingJSON(t *testing.T) {
	bodies := []string{
		`{}`, `{"ms": 1000, "layout": 1}`, `{"ms": -5}`, `{"ms": "x"}`, `{"ms": 1.5}`, `{"ms": 1e400}`, `{"ms": 99999999999999999999}`,
		`{"msx": 1}`, `{"MS": 2}`, `{"brokers": 6, "partitions": 100000, "seed": 18446744073709551615}`, `{"seed": 18446744073709551616}`,
		`{"seed": -1}`, `{"brokers": [1]}`, `{"op": "kill", "broker": 2}`, `{"op": "set_config", "value": 2.50, "name": "x"}`,
		`{"op": "set_config", "value": {"a": [1, "b"]}}`, `{"op": "elect_leaders", "targets": [{"topic": "t", "partition": "0"}]}`,
		`{"targets": {}}`, `{"scenario": "{\"events\": []}", "timeMs": 5}`, `{"scenario": 5}`, `{"lesson": 1}`, `{"lesson": "1", "step": 2}`,
		`{"description": {"preset": "small"}, "policies": [{"name": "a", "overrides": ["x=1"]}]}`, `{"description": "x"}`,
		`{"policies": [{"overrides": [1]}]}`, `{"ids": [1, 2, -3]}`, `{"ids": [1.5]}`, `{"baseline": {"recovery_time_ms": "slow"}}`,
		`{"kind": "compare", "format": "json", "seed": 3, "baseline": {}}`, `{"cells": [{"cell": 1, "values": ["a"]}]}`,
		`null`, `[]`, `"x"`, `{"ms": 1} {"ms": 2}`, `{"ms": 1}x`, `{"ms": tru}`, `{"ms"}`, `{`, ``,
	}
	for _, body := range bodies {
		sameRequest[bridge.AdvanceRequest](t, body)
		sameRequest[bridge.StartRequest](t, body)
		sameRequest[bridge.ActRequest](t, body)
		sameRequest[bridge.LoadRequest](t, body)
		sameRequest[bridge.LessonOpenRequest](t, body)
		sameRequest[bridge.ValidateRequest](t, body)
		sameRequest[labmsg.PlanRequest](t, body)
		sameRequest[labmsg.JudgeRequest](t, body)
		sameRequest[labmsg.ExportRequest](t, body)
		sameRequest[bridge.Request](t, body)
	}
}

// sameRequest decodes body into a fresh *T as bridge.Decode does, with both packages.
func sameRequest[T any](t *testing.T, body string) {
	t.Helper()
	var want, got T
	wd, gd := json.NewDecoder(bytes.NewReader([]byte(body))), NewDecoder(bytes.NewReader([]byte(body)))
	wd.DisallowUnknownFields()
	gd.DisallowUnknownFields()
	wd.UseNumber()
	gd.UseNumber()
	sameError(t, wd.Decode(&want), gd.Decode(&got), "%T from %s", got, body)
	assert.Equal(t, canon(want), canon(got), "%T from %s", got, body)
	assert.Equal(t, wd.More(), gd.More(), "%T from %s", got, body)
}

// TestProjectFilesSameAsEncodingJSON reads the project's JSON files (the scenarios, the lab's
// descriptions, the compiled course) as the wasm reads them: the scenario parser's token
// stream, and whole values into interfaces and into the lab's description.
func TestProjectFilesSameAsEncodingJSON(t *testing.T) {
	var files []string
	for _, pattern := range []string{"../../cluster/scenario/testdata/*.json", "../../cluster/scenario/testdata/*/*.json",
		"../../lessons/compiled.json"} {
		m, err := filepath.Glob(pattern)
		require.NoError(t, err)
		files = append(files, m...)
	}
	require.NotEmpty(t, files)
	for _, f := range files {
		data, err := os.ReadFile(f)
		require.NoError(t, err)
		sameUnmarshal[any, any](t, string(data), "number")
		sameTokens(t, data)
		var want, got any
		require.NoError(t, json.Unmarshal(data, &want), f)
		require.NoError(t, Unmarshal(data, &got), f)
		sameMarshal(t, want)
		sameMarshal2(t, want, got)
	}
	// Scenario results, with their MarshalJSON methods (records, per-broker values, metrics,
	// durations, summaries), as the playground and the lab export them.
	results := 0
	for _, f := range files {
		data, _ := os.ReadFile(f)
		s, err := scenario.Parse(data)
		if err != nil || s.Cluster != nil && s.Cluster.DurationMs > 600_000 {
			continue
		}
		res, err := scenario.Run(s)
		if err != nil {
			continue
		}
		sameMarshal(t, res)
		results++
	}
	require.NotZero(t, results)
	sameUnmarshal[lab.Description, lab.Description](t, `{"preset": "small", "brokers": "six", "topics": [{"name": "a", "partitions": 1.5}]}`)
	sameUnmarshal[lab.Description, lab.Description](t, `{"preset": "small", "seed": -1}`)
	// The course as the wasm decodes it (lessons.DecodeCourse's own types are unexported; the
	// file loop above compares compiled.json's values).
	course, err := lessons.Course()
	require.NoError(t, err)
	data, _, err := lessons.EncodeCourse(course)
	require.NoError(t, err)
	sameUnmarshal[any, any](t, string(data))
}

// sameTokens requires the same token stream and positions from both packages' Decoders.
func sameTokens(t *testing.T, data []byte) {
	t.Helper()
	wd, gd := json.NewDecoder(bytes.NewReader(data)), NewDecoder(bytes.NewReader(data))
	wd.UseNumber()
	gd.UseNumber()
	for i := 0; ; i++ {
		wt, we := wd.Token()
		gt, ge := gd.Token()
		if !sameError(t, we, ge, "Token %d", i) || we != nil {
			return
		}
		require.Equal(t, normalize(wt), normalize(gt), "Token %d", i)
		require.Equal(t, wd.InputOffset(), gd.InputOffset(), "InputOffset after Token %d", i)
	}
}
