package labmsg

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"regexp"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kraftlab/kraftlab/internal/jsskip"
	"github.com/kraftlab/kraftlab/lab"
	"github.com/kraftlab/kraftlab/wasm/bridge"
)

// newBridge is the lab page's worker: hello and the lab.* messages.
func newBridge() *bridge.Bridge {
	b := bridge.NewCore(bridge.Info{})
	bridge.RegisterDebug(b)
	Register(b)
	return b
}

// newRehearseBridge is a rehearsal's worker (rehearse.wasm): hello and lab.rehearse.*.
func newRehearseBridge() *bridge.Bridge {
	b := bridge.NewCore(bridge.Info{})
	RegisterRehearse(b)
	return b
}

// call sends one request through Handle and decodes the reply envelope, keeping the body raw.
func call(t *testing.T, b *bridge.Bridge, msg string) (bridge.Reply, json.RawMessage) {
	t.Helper()
	out, _ := b.Handle([]byte(msg))
	var env struct {
		bridge.Reply
		Body json.RawMessage `json:"body"`
	}
	require.NoError(t, json.Unmarshal(out, &env), "reply must be JSON: %s", out)
	return env.Reply, env.Body
}

func okBody[T any](t *testing.T, b *bridge.Bridge, msg string) T {
	t.Helper()
	r, raw := call(t, b, msg)
	require.True(t, r.OK, "reply failed: %+v", r.Error)
	require.Nil(t, r.Error)
	var v T
	require.NoError(t, json.Unmarshal(raw, &v))
	return v
}

// The lab page's worker answers hello and the lab.* messages, and nothing of the playground's.
func TestLabWorkerAnswersHelloAndLabMessagesOnly(t *testing.T) {
	h := okBody[bridge.HelloBody](t, newBridge(), `{"id":1,"type":"hello"}`)
	assert.Equal(t, []string{"debug.memory", "hello", "lab.drop", "lab.export", "lab.judge", "lab.plan", "lab.presets", "lab.run.result",
		"lab.run.start", "lab.run.step"}, h.Types)
	// The rehearsal's messages are rehearse.wasm's alone: with them lab.wasm would exceed its
	// size budget (wasm/cmd/kraftlab-rehearse-wasm).
	h = okBody[bridge.HelloBody](t, newRehearseBridge(), `{"id":1,"type":"hello"}`)
	assert.Equal(t, []string{"hello", "lab.rehearse.adopt", "lab.rehearse.cancel", "lab.rehearse.export", "lab.rehearse.report",
		"lab.rehearse.start", "lab.rehearse.step"}, h.Types)
	r, _ := call(t, newBridge(), `{"id":1,"type":"sim.start"}`)
	require.NotNil(t, r.Error)
	assert.Equal(t, bridge.CodeUnknownType, r.Error.Code)
}

// jsonFieldErrorRE is the regexp jsonFieldError replaced; it lives here, which the wasm never
// links.
var jsonFieldErrorRE = regexp.MustCompile(`cannot unmarshal (\w+) into Go struct field Description\.([\w.\[\]]+) of type (\w+)`)

func TestJSONFieldErrorMatchesTheRegexp(t *testing.T) {
	cases := []string{
		"json: cannot unmarshal string into Go struct field Description.topics.partitions of type int",
		"lab: json: cannot unmarshal number -1 into Go struct field Description.seed of type uint64",
		"cannot unmarshal number into Go struct field Description.topics[0].partitions of type int32 (and more)",
		"cannot unmarshal  into Go struct field Description.x of type int", "cannot unmarshal a into Go struct field Description. of type int",
		"cannot unmarshal a into Go struct field Description.x of type ", "cannot unmarshal a into Go struct field Desc.x of type int",
		"cannot unmarshal x cannot unmarshal string into Go struct field Description.brokers of type int",
		"cannot unmarshal a-b into Go struct field Description.x of type int", "cannot unmarshal é into Go struct field Description.x of type int",
		"cannot unmarshal a into Go struct field Description.x-y of type int", "cannot unmarshal a into Go struct field Description.x of type int_8é",
		"", "cannot unmarshal",
	}
	r := rand.New(rand.NewPCG(3, 5))
	pick := func(p ...string) string { return p[r.IntN(len(p))] }
	for range 20000 {
		cases = append(cases, pick("", "json: ", "x cannot unmarshal a ")+pick("cannot unmarshal ", "cannot unmarshal ", "cannot marshal ")+
			pick("string", "number", "", "a b", "é", "x_1")+pick(" into Go struct field Description.", " into Go struct field Description.", " into Go struct field Lab.")+
			pick("brokers", "topics[0].partitions", "", "a-b", "x.y]", "é")+pick(" of type ", " of type ", " of type")+
			pick("int", "uint64", "", " int", "float64 and", "é")+pick("", " (more)", "cannot unmarshal b into Go struct field Description.c of type d"))
	}
	matched := 0
	for _, c := range cases {
		jt, path, gt, ok := jsonFieldError(c)
		m := jsonFieldErrorRE.FindStringSubmatch(c)
		require.Equal(t, m != nil, ok, "%q", c)
		if ok {
			matched++
			require.Equal(t, m[1:], []string{jt, path, gt}, "%q", c)
		}
	}
	require.Greater(t, matched, len(cases)/100, "too few cases match: the test could not tell a reader that always says yes")
	require.Less(t, matched, len(cases)-len(cases)/100, "too few cases miss")
}

// labMsg encodes a request with a body.
func labMsg(t *testing.T, typ string, body any) string {
	t.Helper()
	b, err := json.Marshal(body)
	require.NoError(t, err)
	return fmt.Sprintf(`{"id":1,"type":%q,"body":%s}`, typ, b)
}

func plan(t *testing.T, b *bridge.Bridge, req PlanRequest) PlanBody {
	t.Helper()
	return okBody[PlanBody](t, b, labMsg(t, "lab.plan", req))
}

func defaultPolicyRequests() []PolicyRequest {
	var out []PolicyRequest
	for _, p := range labDefaultPolicies() {
		lines := make([]string, len(p.Overrides))
		for i, o := range p.Overrides {
			lines[i] = o.String()
		}
		out = append(out, PolicyRequest{Name: p.Name, Overrides: lines})
	}
	return out
}

// runInWorker plays one planned run through lab.run.* in slices of sliceMs, as a page worker
// does, and returns its result.
func runInWorker(t *testing.T, b *bridge.Bridge, id int64, scenario string, sliceMs int64) ResultBody {
	t.Helper()
	p := okBody[ProgressBody](t, b, labMsg(t, "lab.run.start", StartRequest{ID: id, Scenario: scenario}))
	require.False(t, p.Done)
	last := p.NowMs
	for !p.Done {
		p = okBody[ProgressBody](t, b, labMsg(t, "lab.run.step", StepRequest{Ms: sliceMs}))
		assert.Greater(t, p.NowMs, last, "every slice moves the run on")
		last = p.NowMs
	}
	assert.Equal(t, p.DurationMs, p.NowMs)
	return okBody[ResultBody](t, b, `{"id":1,"type":"lab.run.result"}`)
}

func TestLabPresetsOfferThePresetsPoliciesAndAssumptions(t *testing.T) {
	b := newBridge()
	p := okBody[PresetsBody](t, b, `{"id":1,"type":"lab.presets"}`)
	var names []string
	for _, x := range p.Presets {
		names = append(names, x.Name)
		assert.NoError(t, x.Description.Validate(), x.Name)
	}
	assert.Equal(t, []string{"small", "kip-load-test", "large"}, names)
	assert.Equal(t, 6, p.Presets[1].Description.Brokers, "the KIP's load test has 6 brokers")
	require.Len(t, p.Policies, 2)
	assert.Equal(t, lab.ImmediateOverrides(), p.Policies[0].Overrides, "today's policy is the baseline itself")
	assert.Equal(t, lab.DefaultPolicies()[1], p.Policies[1], "the KIP's example settings")
	assert.Len(t, p.Assumptions, len(lab.Assumptions))
	assert.Equal(t, 400, p.MaxCells)
}

func TestLabPlanDefaultComparisonRunsTwiceAndSharesTheBaseline(t *testing.T) {
	b := newBridge()
	p := plan(t, b, PlanRequest{Description: json.RawMessage(`{"preset":"small"}`), Policies: defaultPolicyRequests()})
	require.Empty(t, p.Errors)
	require.NotNil(t, p.Compare)
	assert.Len(t, p.Runs, 2, "today's policy is the baseline: two runs, not three")
	assert.Equal(t, p.Compare.Policies[0].Run, p.Compare.Baseline)
	assert.NotEqual(t, p.Compare.Policies[1].Run, p.Compare.Baseline)
	assert.Contains(t, p.Runs[p.Compare.Policies[1].Run], `"leader.imbalance.election.algorithm": "wait-for-sync"`)
	assert.Equal(t, 3, p.Description.Brokers)

	// The sensitivity view adds each assumption at its low and high value.
	s := plan(t, b, PlanRequest{Description: json.RawMessage(`{"preset":"small"}`), Policies: defaultPolicyRequests(), Sensitivity: []string{"disk"}})
	require.Empty(t, s.Errors)
	require.Len(t, s.Sensitivity, 2)
	assert.Equal(t, "low", s.Sensitivity[0].Side)
	assert.Equal(t, "broker.disk_write_bytes_per_sec", s.Sensitivity[0].Overrides[0].Name)
	assert.Equal(t, "250000000", s.Sensitivity[0].Overrides[0].Value, "half the small preset's 500 MB/s")
	assert.Len(t, s.Runs, 6, "the base pair and a pair for each side")
}

func TestLabPlanNamesTheFieldOfBadInput(t *testing.T) {
	b := newBridge()
	cases := []struct {
		name  string
		req   PlanRequest
		field string
		line  int
		text  string
	}{
		{"negative rate", PlanRequest{Description: json.RawMessage(`{"produce_bytes_per_sec": -5}`)}, "produce_bytes_per_sec", 0, "-5"},
		{"topic partitions", PlanRequest{Description: json.RawMessage(`{"topics": [{"name": "a", "partitions": 0}]}`)}, "topics[0].partitions", 0, "0"},
		{"wrong JSON type", PlanRequest{Description: json.RawMessage(`{"brokers": "six"}`)}, "brokers", 0, "want a whole number, got JSON string"},
		{"unknown preset", PlanRequest{Description: json.RawMessage(`{"preset": "huge"}`)}, "preset", 0, "huge"},
		{"properties line not name=value", PlanRequest{Description: json.RawMessage(`{}`),
			Properties: "min.insync.replicas=2\nlog.dirs /data\n"}, "properties", 2, "line 2"},
		{"policy override", PlanRequest{Description: json.RawMessage(`{}`), Policies: []PolicyRequest{
			{Name: "a", Overrides: []string{"leader.imbalance.election.algorithm=immediate"}},
			{Name: "b", Overrides: []string{"", "leader.imbalance.election.wait.for.sync.threshold.percent=105"}}}}, "policies[1]", 0, "105"},
		{"policy line", PlanRequest{Description: json.RawMessage(`{}`), Policies: []PolicyRequest{{Name: "a", Overrides: []string{"oops"}}}}, "policies[0]", 1, "line 1"},
		{"grid over 400 cells", PlanRequest{Description: json.RawMessage(`{}`), Grid: []string{
			"leader.imbalance.election.wait.for.sync.threshold.percent=0..20:1", "leader.imbalance.election.max.per.run=10..1000:10"}}, "grid", 0, "2100 cells"},
		{"grid axis syntax", PlanRequest{Description: json.RawMessage(`{}`), Grid: []string{"leader.imbalance.election.max.per.run"}}, "grid[0]", 0, "NAME="},
		{"sweep base", PlanRequest{Description: json.RawMessage(`{}`), Grid: []string{"leader.imbalance.election.max.per.run=1,2"},
			SweepBase: []string{"nope"}}, "sweepBase", 1, "nope"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := plan(t, b, c.req)
			require.NotEmpty(t, p.Errors)
			assert.Equal(t, c.field, p.Errors[0].Field, p.Errors[0].Message)
			assert.Equal(t, c.line, p.Errors[0].Line)
			assert.Contains(t, p.Errors[0].Message, c.text)
			assert.Empty(t, p.Runs, "nothing may run")
			assert.Nil(t, p.Compare)
			assert.Nil(t, p.Sweep)
		})
	}
	// A paste with a bad line still lists every line's fate beside it.
	p := plan(t, b, PlanRequest{Description: json.RawMessage(`{}`), Properties: "min.insync.replicas=2\nlog.dirs /data\nlog.dirs=/data\n"})
	require.NotNil(t, p.Properties)
	var statuses []lab.LineStatus
	for _, l := range p.Properties.Lines {
		statuses = append(statuses, l.Status)
	}
	assert.Equal(t, []lab.LineStatus{lab.Used, lab.Invalid, lab.Ignored}, statuses)
}

func TestLabPlanAddsThePastedConfigs(t *testing.T) {
	b := newBridge()
	p := plan(t, b, PlanRequest{Description: json.RawMessage(`{}`), Properties: "leader.imbalance.check.interval.seconds=120\nsocket.send.buffer.bytes=1024\n"})
	require.Empty(t, p.Errors)
	assert.Contains(t, p.Description.Config, lab.Override{Name: "leader.imbalance.check.interval.seconds", Value: "120"})
	assert.Contains(t, p.Scenario, `"leader.imbalance.check.interval.seconds": 120`)
	assert.Equal(t, lab.Ignored, p.Properties.Lines[1].Status)
}

// The page's way (each run stepped in its own worker, judged against a baseline that ran
// elsewhere, exported from the figures) gives exactly what lab.Compare gives.
func TestLabRunsInSlicesGiveTheCLIComparison(t *testing.T) {
	jsskip.CoveredNatively(t, "the page's stepped runs against lab.Compare, both in this process")
	if testing.Short() {
		t.Skip("runs the small preset four times")
	}
	desc := json.RawMessage(`{"preset":"small","duration_ms":1200000}`)
	p := plan(t, newBridge(), PlanRequest{Description: desc, Policies: defaultPolicyRequests()})
	require.Empty(t, p.Errors)
	workers := []*bridge.Bridge{newBridge(), newBridge()}
	results := make([]ResultBody, len(p.Runs))
	for i, doc := range p.Runs {
		results[i] = runInWorker(t, workers[i], int64(i+1), doc, 45_000)
	}
	base := results[p.Compare.Baseline]
	var got [][]lab.Verdict
	for i, pol := range p.Compare.Policies {
		j := okBody[JudgeBody](t, workers[pol.Run], labMsg(t, "lab.judge", JudgeRequest{IDs: []int64{int64(pol.Run + 1)},
			Baseline: &Baseline{RecoveryTimeMs: base.Summary.RecoveryTimeMs, Violation: base.Result.Violation}}))
		require.Len(t, j.Verdicts, 1, "policy %d", i)
		got = append(got, j.Verdicts[0])
	}

	d, err := lab.ParseDescription([]byte(`{"lab":` + string(desc) + `}`))
	require.NoError(t, err)
	doc, err := d.Scenario()
	require.NoError(t, err)
	want, err := lab.Compare(context.Background(), doc, labDefaultPolicies(), lab.Options{})
	require.NoError(t, err)
	for i, pr := range want.Policies {
		assert.Equal(t, lab.SummaryOf(pr.Result.Summary), results[p.Compare.Policies[i].Run].Summary, pr.Policy.Name)
		assert.Equal(t, pr.Verdicts, got[i], pr.Policy.Name)
	}

	// The export from the page's figures is the CLI's JSON, byte for byte.
	req := ExportRequest{Kind: "compare", Format: "json", Seed: want.Seed, Baseline: base.Summary}
	for i, pol := range p.Compare.Policies {
		r := results[pol.Run]
		req.Policies = append(req.Policies, ExportRun{Name: pol.Name, Overrides: pol.Overrides, Summary: r.Summary,
			Violation: r.Result.Violation, Series: &r.Result.Series, Verdicts: got[i]})
	}
	var cli bytes.Buffer
	require.NoError(t, want.WriteJSON(&cli))
	assert.Equal(t, cli.String(), okBody[ExportBody](t, workers[0], labMsg(t, "lab.export", req)).Text)

	req.Format = "csv"
	csvText := okBody[ExportBody](t, workers[0], labMsg(t, "lab.export", req)).Text
	lines := strings.Split(strings.TrimSpace(csvText), "\n")
	require.Len(t, lines, 3, csvText)
	assert.True(t, strings.HasPrefix(lines[0], "policy,overrides,unfenced_at_ms,"), lines[0])
	assert.True(t, strings.HasPrefix(lines[1], "immediate (today),"), lines[1])
	last := func(vs []lab.Verdict) string {
		return string(vs[0].Status) + "," + string(vs[1].Status) + "," + string(vs[2].Status) + ","
	}
	assert.True(t, strings.HasSuffix(lines[2], last(got[1])), "the KIP example's row ends with its verdicts: %s", lines[2])
}

func TestLabSweepExportMatchesTheCLI(t *testing.T) {
	jsskip.CoveredNatively(t, "the page's sweep against lab.Sweep, both in this process")
	if testing.Short() {
		t.Skip("runs a small sweep")
	}
	desc := json.RawMessage(`{"preset":"small","duration_ms":900000}`)
	req := PlanRequest{Description: desc, Grid: []string{"leader.imbalance.election.max.per.run=10,500"},
		SweepBase: []string{"leader.imbalance.election.algorithm=wait-for-sync"}}
	b := newBridge()
	p := plan(t, b, req)
	require.Empty(t, p.Errors)
	require.NotNil(t, p.Sweep)
	require.Len(t, p.Sweep.Cells, 2)
	assert.Len(t, p.Runs, 3, "two cells and their one shared baseline")
	results := make([]ResultBody, len(p.Runs))
	for i, doc := range p.Runs {
		results[i] = runInWorker(t, b, int64(100+i), doc, 600_000)
	}
	exp := ExportRequest{Kind: "sweep", Format: "csv", Axes: p.Sweep.Axes}
	for _, c := range p.Sweep.Cells {
		base := results[c.Baseline]
		j := okBody[JudgeBody](t, b, labMsg(t, "lab.judge", JudgeRequest{IDs: []int64{int64(100 + c.Run)},
			Baseline: &Baseline{RecoveryTimeMs: base.Summary.RecoveryTimeMs}}))
		exp.Cells = append(exp.Cells, ExportCell{Cell: c.Cell, Values: c.Values, Baseline: base.Summary,
			Run: ExportRun{Summary: results[c.Run].Summary, Violation: results[c.Run].Result.Violation, Verdicts: j.Verdicts[0]}})
	}
	got := okBody[ExportBody](t, b, labMsg(t, "lab.export", exp)).Text

	d, err := lab.ParseDescription([]byte(`{"lab":` + string(desc) + `}`))
	require.NoError(t, err)
	doc, err := d.Scenario()
	require.NoError(t, err)
	ax, err := lab.ParseAxis(req.Grid[0])
	require.NoError(t, err)
	s, err := lab.PlanSweep(doc, []lab.Override{{Name: "leader.imbalance.election.algorithm", Value: "wait-for-sync"}}, []lab.Axis{ax})
	require.NoError(t, err)
	require.NoError(t, s.Run(context.Background(), lab.Options{}))
	var want bytes.Buffer
	require.NoError(t, s.WriteCSV(&want))
	assert.Equal(t, want.String(), got)
	for i := range s.Cells {
		cd, err := s.CellScenario(i)
		require.NoError(t, err)
		assert.Equal(t, string(cd), p.Runs[p.Sweep.Cells[i].Run], "the page's cell scenario is the CLI's --export-cell")
	}
}

func TestLabRunMessagesRefuseMisuse(t *testing.T) {
	b := newBridge()
	r, _ := call(t, b, `{"id":1,"type":"lab.run.step","body":{"ms":1000}}`)
	require.False(t, r.OK)
	assert.Contains(t, r.Error.Message, "lab.run.start first")
	r, _ = call(t, b, `{"id":1,"type":"lab.run.start","body":{"id":1,"scenario":"{}"}}`)
	require.False(t, r.OK, "not a cluster-mode scenario")
	r, _ = call(t, b, `{"id":1,"type":"lab.run.start","body":{"id":0,"scenario":"{}"}}`)
	assert.Equal(t, bridge.CodeBadRequest, r.Error.Code)

	p := plan(t, b, PlanRequest{Description: json.RawMessage(`{"preset":"small"}`)})
	okBody[ProgressBody](t, b, labMsg(t, "lab.run.start", StartRequest{ID: 9, Scenario: p.Scenario}))
	r, _ = call(t, b, `{"id":1,"type":"lab.run.step","body":{"ms":0}}`)
	assert.Equal(t, bridge.CodeBadRequest, r.Error.Code)
	r, _ = call(t, b, `{"id":1,"type":"lab.run.result"}`)
	require.False(t, r.OK)
	assert.Contains(t, r.Error.Message, "step it to its end first")
	r, _ = call(t, b, `{"id":1,"type":"lab.judge","body":{"ids":[9]}}`)
	require.False(t, r.OK)
	assert.Contains(t, r.Error.Message, "no finished run 9")
	r, _ = call(t, b, `{"id":1,"type":"lab.export","body":{"kind":"compare","format":"xml"}}`)
	assert.Equal(t, bridge.CodeBadRequest, r.Error.Code)
	assert.Contains(t, r.Error.Message, "format")
}

// A run's cluster is built between two collections and none during the build: at the lab
// wasm's GOGC of 25 the KIP preset's build would otherwise collect a dozen times, each marking
// the growing cluster, for little garbage. The worker's GOGC is back for the run.
func TestLabRunIsBuiltBetweenTwoCollections(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(25)) // wasm/cmd/kraftlab-lab-wasm's
	b := newBridge()
	p := plan(t, b, PlanRequest{Description: json.RawMessage(`{"preset":"kip-load-test"}`)})
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	okBody[ProgressBody](t, b, labMsg(t, "lab.run.start", StartRequest{ID: 1, Scenario: p.Scenario}))
	runtime.ReadMemStats(&after)
	// runtime.GC finishes a cycle under way before its own: up to three.
	assert.LessOrEqual(t, after.NumGC-before.NumGC, uint32(3), "collections during lab.run.start")
	assert.Equal(t, 25, debug.SetGCPercent(25), "the worker's GOGC after lab.run.start")
	// The build's garbage is gone: what is in use is the run's cluster.
	assert.Less(t, after.HeapAlloc, after.TotalAlloc-before.TotalAlloc, "heap in use after the build against the build's allocations")
}
