package bridge

import (
	"encoding/json"
	"errors"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kraftlab/kraftlab/engine/config"
)

// call sends one request through Handle and decodes the reply envelope, keeping the body raw.
func call(t *testing.T, b *Bridge, msg string) (Reply, json.RawMessage) {
	t.Helper()
	out, _ := b.Handle([]byte(msg))
	var env struct {
		Reply
		Body json.RawMessage `json:"body"`
	}
	require.NoError(t, json.Unmarshal(out, &env), "reply must be JSON: %s", out)
	return env.Reply, env.Body
}

func okBody[T any](t *testing.T, b *Bridge, msg string) T {
	t.Helper()
	r, raw := call(t, b, msg)
	require.True(t, r.OK, "reply failed: %+v", r.Error)
	require.Nil(t, r.Error)
	var v T
	require.NoError(t, json.Unmarshal(raw, &v))
	return v
}

func TestHelloNamesVersionsAndTypes(t *testing.T) {
	b := New(Info{Version: "v1.2.3"})
	r, _ := call(t, b, `{"id":7,"type":"hello"}`)
	assert.Equal(t, int64(7), r.ID)
	assert.Equal(t, "hello", r.Type)
	h := okBody[HelloBody](t, b, `{"id":7,"type":"hello","body":{}}`)
	assert.Equal(t, "v1.2.3", h.Version)
	assert.Equal(t, runtime.Version(), h.GoVersion)
	assert.Equal(t, ProtocolVersion, h.Protocol)
	assert.Equal(t, []string{"config.defs", "config.validate", "debug.memory", "hello", "lesson.check", "lesson.list", "lesson.open", "lesson.play", "lesson.undo", "sim.act", "sim.advance", "sim.export", "sim.frame", "sim.history", "sim.load", "sim.replica", "sim.seek", "sim.start", "sim.step"}, h.Types)
}

// NewCore is where a program starts: hello answers, and lists itself only until the program
// registers more.
func TestNewCoreAnswersHelloOnly(t *testing.T) {
	b := NewCore(Info{Version: "v9"})
	h := okBody[HelloBody](t, b, `{"id":1,"type":"hello"}`)
	assert.Equal(t, "v9", h.Version)
	assert.Equal(t, []string{"hello"}, h.Types)
	r, _ := call(t, b, `{"id":2,"type":"sim.start"}`)
	require.NotNil(t, r.Error)
	assert.Equal(t, CodeUnknownType, r.Error.Code)
	b.Register("x.ping", func(json.RawMessage) (any, error) { return "pong", nil })
	assert.Equal(t, []string{"hello", "x.ping"}, okBody[HelloBody](t, b, `{"id":3,"type":"hello"}`).Types)
}

func TestMalformedRequestsGetBadRequestReplies(t *testing.T) {
	b := New(Info{})
	cases := map[string]string{
		"not json":        `{"id":1,`,
		"not an object":   `[1,2]`,
		"missing id":      `{"type":"hello"}`,
		"negative id":     `{"id":-3,"type":"hello"}`,
		"fractional id":   `{"id":1.5,"type":"hello"}`,
		"unknown field":   `{"id":1,"type":"hello","bogus":true}`,
		"trailing data":   `{"id":1,"type":"hello"} {}`,
		"body of hello":   `{"id":1,"type":"hello","body":{"x":1}}`,
		"validate no arg": `{"id":1,"type":"config.validate"}`,
		"validate typo":   `{"id":1,"type":"config.validate","body":{"nmae":"x"}}`,
		"validate scope":  `{"id":1,"type":"config.validate","body":{"name":"min.insync.replicas","value":1,"scope":"broker"}}`,
	}
	for name, msg := range cases {
		t.Run(name, func(t *testing.T) {
			r, _ := call(t, b, msg)
			assert.False(t, r.OK)
			require.NotNil(t, r.Error)
			assert.Equal(t, CodeBadRequest, r.Error.Code, r.Error.Message)
			assert.NotEmpty(t, r.Error.Message)
		})
	}
}

func TestUnknownTypeIsNamed(t *testing.T) {
	r, _ := call(t, New(Info{}), `{"id":4,"type":"run.start"}`)
	require.NotNil(t, r.Error)
	assert.Equal(t, int64(4), r.ID, "the id is echoed even on failure")
	assert.Equal(t, CodeUnknownType, r.Error.Code)
	assert.Contains(t, r.Error.Message, `"run.start"`)
}

type explodingJSON struct{}

func (explodingJSON) MarshalJSON() ([]byte, error) { panic("boom in MarshalJSON") }

func TestPanicsAndErrorsBecomeReplies(t *testing.T) {
	b := New(Info{})
	b.Register("test.panic", func(json.RawMessage) (any, error) {
		var m map[string]int
		m["x"] = 1 // a genuine runtime panic: assignment to a nil map
		return nil, nil
	})
	b.Register("test.error", func(json.RawMessage) (any, error) { return nil, errors.New("plain failure") })
	b.Register("test.coded", func(json.RawMessage) (any, error) { return nil, &Error{Code: "busy", Message: "later"} })
	b.Register("test.unencodable", func(json.RawMessage) (any, error) { return make(chan int), nil })
	b.Register("test.marshalpanic", func(json.RawMessage) (any, error) { return explodingJSON{}, nil })

	r, _ := call(t, b, `{"id":1,"type":"test.panic"}`)
	require.NotNil(t, r.Error)
	assert.Equal(t, CodeInternal, r.Error.Code)
	assert.Contains(t, r.Error.Message, "test.panic handler panicked: assignment to entry in nil map")
	assert.Contains(t, r.Error.Detail, "bridge_test.go", "the stack names the panicking line")
	assert.NotContains(t, r.Error.Detail, strippedLinesNote, "a stack with lines needs no note")
	stripped := "goroutine 1 [running]:\nmain.crash()\n\t?:0 +0x2\n"
	assert.Equal(t, stripped+strippedLinesNote, panicDetail([]byte(stripped)), "a stack without lines says how to get them")

	r, _ = call(t, b, `{"id":2,"type":"test.error"}`)
	assert.Equal(t, &Error{Code: CodeFailed, Message: "plain failure"}, r.Error)
	r, _ = call(t, b, `{"id":3,"type":"test.coded"}`)
	assert.Equal(t, "busy", r.Error.Code)
	for _, typ := range []string{"test.unencodable", "test.marshalpanic"} {
		r, _ = call(t, b, `{"id":4,"type":"`+typ+`"}`)
		require.NotNil(t, r.Error, typ)
		assert.Equal(t, CodeInternal, r.Error.Code, typ)
		assert.Equal(t, int64(4), r.ID)
	}
	// The bridge still works after all that.
	okBody[HelloBody](t, b, `{"id":5,"type":"hello"}`)
}

func TestRegisterRefusesDuplicates(t *testing.T) {
	b := New(Info{})
	assert.Panics(t, func() { b.Register("hello", func(json.RawMessage) (any, error) { return nil, nil }) })
	assert.Panics(t, func() { b.Register("", func(json.RawMessage) (any, error) { return nil, nil }) })
}

func TestConfigDefsListsEveryEngineConfig(t *testing.T) {
	defs := okBody[ConfigDefsBody](t, New(Info{}), `{"id":1,"type":"config.defs"}`)
	all := config.All()
	require.Len(t, defs.Configs, len(all))
	for i, d := range all {
		c := defs.Configs[i]
		assert.Equal(t, d.Name, c.Name)
		assert.Equal(t, d.Type.String(), c.Type)
		assert.Equal(t, d.AllowedText(), c.Allowed)
		assert.Equal(t, string(d.Source), c.Source)
		assert.NotEqual(t, "other", c.SourceKey, "%s has a source the page cannot style", d.Name)
		assert.Equal(t, d.Doc, c.Doc)
		assert.Equal(t, d.Note, c.Note)
		assert.Equal(t, d.Dynamic, c.Dynamic)
		// The default text must itself validate: the page pre-fills inputs with it.
		_, err := d.Parse(c.DefaultText)
		assert.NoError(t, err, d.Name)
	}

	byName := map[string]ConfigDef{}
	for _, c := range defs.Configs {
		byName[c.Name] = c
	}
	th := byName[config.WaitForSyncThresholdPercent]
	assert.Equal(t, "KIP-1358", th.Source)
	assert.Equal(t, "kip-1358", th.SourceKey)
	assert.Equal(t, "int", th.Type)
	assert.Equal(t, "an integer in [0, 100]", th.Allowed)
	require.NotNil(t, th.Min)
	require.NotNil(t, th.Max)
	assert.Equal(t, int64(0), *th.Min)
	assert.Equal(t, int64(100), *th.Max)
	assert.Equal(t, "0", th.DefaultText)
	assert.Equal(t, "cluster", th.Scope)

	mir := byName[config.MinInsyncReplicas]
	assert.Equal(t, "topic", mir.Scope)
	assert.Equal(t, "kafka", mir.SourceKey)
	alg := byName[config.LeaderImbalanceElectionAlgorithm]
	assert.Equal(t, []string{"immediate", "wait-for-sync"}, alg.Choices)
	assert.Nil(t, alg.Min)
	assert.Nil(t, byName[config.LeaderImbalanceCheckIntervalSeconds].Max, "an unbounded long has no max")
	assert.Equal(t, "pr-22934", byName[config.LeaderImbalanceElectionImmediateMs].SourceKey)
	assert.Equal(t, "model", byName[config.ModelGateDenominator].SourceKey)
}

func TestConfigDefsJSONShape(t *testing.T) {
	// Pin the wire names the TypeScript side reads (web/ts/protocol.ts).
	_, raw := call(t, New(Info{}), `{"id":1,"type":"config.defs"}`)
	var generic struct {
		Configs []map[string]any `json:"configs"`
	}
	require.NoError(t, json.Unmarshal(raw, &generic))
	first := generic.Configs[0]
	for _, k := range []string{"name", "type", "default", "defaultText", "allowed", "dynamic", "scope", "source", "sourceKey", "doc"} {
		assert.Contains(t, first, k)
	}
}

func TestConfigValidate(t *testing.T) {
	b := New(Info{})
	cases := []struct {
		body   string
		valid  bool
		text   string
		error  string
		reason string
	}{
		{`{"name":"leader.imbalance.election.wait.for.sync.threshold.percent","value":105}`, false, "",
			"Invalid value 105 for configuration leader.imbalance.election.wait.for.sync.threshold.percent: Value must be no more than 100",
			"Value must be no more than 100"},
		{`{"name":"leader.imbalance.election.wait.for.sync.threshold.percent","value":100}`, true, "100", "", ""},
		{`{"name":"leader.imbalance.election.wait.for.sync.threshold.percent","value":"42"}`, true, "42", "", ""},
		{`{"name":"leader.imbalance.election.wait.for.sync.threshold.percent","value":2.5}`, false, "", "", "Expected value to be a 32-bit integer"},
		// Longs stay exact beyond 2^53 because numbers are decoded as json.Number.
		{`{"name":"leader.imbalance.election.wait.for.sync.max.wait.ms","value":9007199254740993}`, true, "9007199254740993", "", ""},
		{`{"name":"auto.leader.rebalance.enable","value":false}`, true, "false", "", ""},
		{`{"name":"auto.leader.rebalance.enable","value":"yes"}`, false, "", "", "Expected value to be either true or false"},
		{`{"name":"leader.imbalance.election.algorithm","value":"gradual"}`, false, "", "", "String must be one of: immediate, wait-for-sync"},
		{`{"name":"leader.imbalance.election.max.per.runs","value":5}`, false, "",
			`Unknown configuration "leader.imbalance.election.max.per.runs" (did you mean "leader.imbalance.election.max.per.run"?)`, ""},
		{`{"name":"min.insync.replicas","value":"2","scope":"topic"}`, true, "2", "", ""},
		{`{"name":"leader.imbalance.election.max.per.run","value":5,"scope":"topic"}`, false, "", "", "Not a topic config"},
		{`{"name":"min.insync.replicas"}`, false, "", "", "Expected value to be a 32-bit integer, but it was null"},
	}
	for _, c := range cases {
		t.Run(c.body, func(t *testing.T) {
			v := okBody[ValidateBody](t, b, `{"id":1,"type":"config.validate","body":`+c.body+`}`)
			assert.Equal(t, c.valid, v.Valid)
			assert.Equal(t, c.text, v.Text)
			if c.error != "" {
				assert.Equal(t, c.error, v.Error)
			}
			if c.reason != "" {
				assert.Contains(t, v.Reason, c.reason)
				assert.Contains(t, v.Error, c.reason)
			}
			if !c.valid {
				assert.NotEmpty(t, v.Error)
			}
		})
	}
}

func TestEventsAndErrorReplies(t *testing.T) {
	assert.JSONEq(t, `{"type":"ready","body":{"protocol":3}}`, string(ReadyEvent()))
	assert.JSONEq(t, `{"id":0,"type":"","ok":false,"error":{"code":"bad_request","message":"data must be a string"}}`,
		string(ErrorReply(0, "", BadRequest("data must be a string"))))
}

func TestDebugMemoryReportsTheRuntimeFigures(t *testing.T) {
	m := okBody[MemoryBody](t, New(Info{}), `{"id":1,"type":"debug.memory"}`)
	assert.Positive(t, m.HeapAllocBytes)
	assert.GreaterOrEqual(t, m.HeapSysBytes, m.HeapAllocBytes)
	assert.GreaterOrEqual(t, m.SysBytes, m.HeapSysBytes)
}
