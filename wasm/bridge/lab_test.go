package bridge

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kraftlab/kraftlab/lab"
)

// labMsg encodes a request with a body.
func labMsg(t *testing.T, typ string, body any) string {
	t.Helper()
	b, err := json.Marshal(body)
	require.NoError(t, err)
	return fmt.Sprintf(`{"id":1,"type":%q,"body":%s}`, typ, b)
}

func plan(t *testing.T, b *Bridge, req LabPlanRequest) LabPlanBody {
	t.Helper()
	return okBody[LabPlanBody](t, b, labMsg(t, "lab.plan", req))
}

func defaultPolicyRequests() []LabPolicyRequest {
	var out []LabPolicyRequest
	for _, p := range labDefaultPolicies() {
		lines := make([]string, len(p.Overrides))
		for i, o := range p.Overrides {
			lines[i] = o.String()
		}
		out = append(out, LabPolicyRequest{Name: p.Name, Overrides: lines})
	}
	return out
}

// runInWorker plays one planned run through lab.run.* in slices of sliceMs, as a page worker
// does, and returns its result.
func runInWorker(t *testing.T, b *Bridge, id int64, scenario string, sliceMs int64) LabResultBody {
	t.Helper()
	p := okBody[LabProgressBody](t, b, labMsg(t, "lab.run.start", LabStartRequest{ID: id, Scenario: scenario}))
	require.False(t, p.Done)
	last := p.NowMs
	for !p.Done {
		p = okBody[LabProgressBody](t, b, labMsg(t, "lab.run.step", LabStepRequest{Ms: sliceMs}))
		assert.Greater(t, p.NowMs, last, "every slice moves the run on")
		last = p.NowMs
	}
	assert.Equal(t, p.DurationMs, p.NowMs)
	return okBody[LabResultBody](t, b, `{"id":1,"type":"lab.run.result"}`)
}

func TestLabPresetsOfferThePresetsPoliciesAndAssumptions(t *testing.T) {
	b := New(Info{})
	p := okBody[LabPresetsBody](t, b, `{"id":1,"type":"lab.presets"}`)
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
	b := New(Info{})
	p := plan(t, b, LabPlanRequest{Description: json.RawMessage(`{"preset":"small"}`), Policies: defaultPolicyRequests()})
	require.Empty(t, p.Errors)
	require.NotNil(t, p.Compare)
	assert.Len(t, p.Runs, 2, "today's policy is the baseline: two runs, not three")
	assert.Equal(t, p.Compare.Policies[0].Run, p.Compare.Baseline)
	assert.NotEqual(t, p.Compare.Policies[1].Run, p.Compare.Baseline)
	assert.Contains(t, p.Runs[p.Compare.Policies[1].Run], `"leader.imbalance.election.algorithm": "wait-for-sync"`)
	assert.Equal(t, 3, p.Description.Brokers)

	// The sensitivity view adds each assumption at its low and high value.
	s := plan(t, b, LabPlanRequest{Description: json.RawMessage(`{"preset":"small"}`), Policies: defaultPolicyRequests(), Sensitivity: []string{"disk"}})
	require.Empty(t, s.Errors)
	require.Len(t, s.Sensitivity, 2)
	assert.Equal(t, "low", s.Sensitivity[0].Side)
	assert.Equal(t, "broker.disk_write_bytes_per_sec", s.Sensitivity[0].Overrides[0].Name)
	assert.Equal(t, "250000000", s.Sensitivity[0].Overrides[0].Value, "half the small preset's 500 MB/s")
	assert.Len(t, s.Runs, 6, "the base pair and a pair for each side")
}

func TestLabPlanNamesTheFieldOfBadInput(t *testing.T) {
	b := New(Info{})
	cases := []struct {
		name  string
		req   LabPlanRequest
		field string
		line  int
		text  string
	}{
		{"negative rate", LabPlanRequest{Description: json.RawMessage(`{"produce_bytes_per_sec": -5}`)}, "produce_bytes_per_sec", 0, "-5"},
		{"topic partitions", LabPlanRequest{Description: json.RawMessage(`{"topics": [{"name": "a", "partitions": 0}]}`)}, "topics[0].partitions", 0, "0"},
		{"wrong JSON type", LabPlanRequest{Description: json.RawMessage(`{"brokers": "six"}`)}, "brokers", 0, "want a whole number, got JSON string"},
		{"unknown preset", LabPlanRequest{Description: json.RawMessage(`{"preset": "huge"}`)}, "preset", 0, "huge"},
		{"properties line not name=value", LabPlanRequest{Description: json.RawMessage(`{}`),
			Properties: "min.insync.replicas=2\nlog.dirs /data\n"}, "properties", 2, "line 2"},
		{"policy override", LabPlanRequest{Description: json.RawMessage(`{}`), Policies: []LabPolicyRequest{
			{Name: "a", Overrides: []string{"leader.imbalance.election.algorithm=immediate"}},
			{Name: "b", Overrides: []string{"", "leader.imbalance.election.wait.for.sync.threshold.percent=105"}}}}, "policies[1]", 0, "105"},
		{"policy line", LabPlanRequest{Description: json.RawMessage(`{}`), Policies: []LabPolicyRequest{{Name: "a", Overrides: []string{"oops"}}}}, "policies[0]", 1, "line 1"},
		{"grid over 400 cells", LabPlanRequest{Description: json.RawMessage(`{}`), Grid: []string{
			"leader.imbalance.election.wait.for.sync.threshold.percent=0..20:1", "leader.imbalance.election.max.per.run=10..1000:10"}}, "grid", 0, "2100 cells"},
		{"grid axis syntax", LabPlanRequest{Description: json.RawMessage(`{}`), Grid: []string{"leader.imbalance.election.max.per.run"}}, "grid[0]", 0, "NAME="},
		{"sweep base", LabPlanRequest{Description: json.RawMessage(`{}`), Grid: []string{"leader.imbalance.election.max.per.run=1,2"},
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
	p := plan(t, b, LabPlanRequest{Description: json.RawMessage(`{}`), Properties: "min.insync.replicas=2\nlog.dirs /data\nlog.dirs=/data\n"})
	require.NotNil(t, p.Properties)
	var statuses []lab.LineStatus
	for _, l := range p.Properties.Lines {
		statuses = append(statuses, l.Status)
	}
	assert.Equal(t, []lab.LineStatus{lab.Used, lab.Invalid, lab.Ignored}, statuses)
}

func TestLabPlanAddsThePastedConfigs(t *testing.T) {
	b := New(Info{})
	p := plan(t, b, LabPlanRequest{Description: json.RawMessage(`{}`), Properties: "leader.imbalance.check.interval.seconds=120\nsocket.send.buffer.bytes=1024\n"})
	require.Empty(t, p.Errors)
	assert.Contains(t, p.Description.Config, lab.Override{Name: "leader.imbalance.check.interval.seconds", Value: "120"})
	assert.Contains(t, p.Scenario, `"leader.imbalance.check.interval.seconds": 120`)
	assert.Equal(t, lab.Ignored, p.Properties.Lines[1].Status)
}

// The page's way (each run stepped in its own worker, judged against a baseline that ran
// elsewhere, exported from the figures) gives exactly what lab.Compare gives.
func TestLabRunsInSlicesGiveTheCLIComparison(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the small preset four times")
	}
	desc := json.RawMessage(`{"preset":"small","duration_ms":1200000}`)
	p := plan(t, New(Info{}), LabPlanRequest{Description: desc, Policies: defaultPolicyRequests()})
	require.Empty(t, p.Errors)
	workers := []*Bridge{New(Info{}), New(Info{})}
	results := make([]LabResultBody, len(p.Runs))
	for i, doc := range p.Runs {
		results[i] = runInWorker(t, workers[i], int64(i+1), doc, 45_000)
	}
	base := results[p.Compare.Baseline]
	var got [][]lab.Verdict
	for i, pol := range p.Compare.Policies {
		j := okBody[LabJudgeBody](t, workers[pol.Run], labMsg(t, "lab.judge", LabJudgeRequest{IDs: []int64{int64(pol.Run + 1)},
			Baseline: &LabBaseline{RecoveryTimeMs: base.Summary.RecoveryTimeMs, Violation: base.Result.Violation}}))
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
	req := LabExportRequest{Kind: "compare", Format: "json", Seed: want.Seed, Baseline: base.Summary}
	for i, pol := range p.Compare.Policies {
		r := results[pol.Run]
		req.Policies = append(req.Policies, LabExportRun{Name: pol.Name, Overrides: pol.Overrides, Summary: r.Summary,
			Violation: r.Result.Violation, Series: &r.Result.Series, Verdicts: got[i]})
	}
	var cli bytes.Buffer
	require.NoError(t, want.WriteJSON(&cli))
	assert.Equal(t, cli.String(), okBody[LabExportBody](t, workers[0], labMsg(t, "lab.export", req)).Text)

	req.Format = "csv"
	csvText := okBody[LabExportBody](t, workers[0], labMsg(t, "lab.export", req)).Text
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
	if testing.Short() {
		t.Skip("runs a small sweep")
	}
	desc := json.RawMessage(`{"preset":"small","duration_ms":900000}`)
	req := LabPlanRequest{Description: desc, Grid: []string{"leader.imbalance.election.max.per.run=10,500"},
		SweepBase: []string{"leader.imbalance.election.algorithm=wait-for-sync"}}
	b := New(Info{})
	p := plan(t, b, req)
	require.Empty(t, p.Errors)
	require.NotNil(t, p.Sweep)
	require.Len(t, p.Sweep.Cells, 2)
	assert.Len(t, p.Runs, 3, "two cells and their one shared baseline")
	results := make([]LabResultBody, len(p.Runs))
	for i, doc := range p.Runs {
		results[i] = runInWorker(t, b, int64(100+i), doc, 600_000)
	}
	exp := LabExportRequest{Kind: "sweep", Format: "csv", Axes: p.Sweep.Axes}
	for _, c := range p.Sweep.Cells {
		base := results[c.Baseline]
		j := okBody[LabJudgeBody](t, b, labMsg(t, "lab.judge", LabJudgeRequest{IDs: []int64{int64(100 + c.Run)},
			Baseline: &LabBaseline{RecoveryTimeMs: base.Summary.RecoveryTimeMs}}))
		exp.Cells = append(exp.Cells, LabExportCell{Cell: c.Cell, Values: c.Values, Baseline: base.Summary,
			Run: LabExportRun{Summary: results[c.Run].Summary, Violation: results[c.Run].Result.Violation, Verdicts: j.Verdicts[0]}})
	}
	got := okBody[LabExportBody](t, b, labMsg(t, "lab.export", exp)).Text

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
	b := New(Info{})
	r, _ := call(t, b, `{"id":1,"type":"lab.run.step","body":{"ms":1000}}`)
	require.False(t, r.OK)
	assert.Contains(t, r.Error.Message, "lab.run.start first")
	r, _ = call(t, b, `{"id":1,"type":"lab.run.start","body":{"id":1,"scenario":"{}"}}`)
	require.False(t, r.OK, "not a cluster-mode scenario")
	r, _ = call(t, b, `{"id":1,"type":"lab.run.start","body":{"id":0,"scenario":"{}"}}`)
	assert.Equal(t, CodeBadRequest, r.Error.Code)

	p := plan(t, b, LabPlanRequest{Description: json.RawMessage(`{"preset":"small"}`)})
	okBody[LabProgressBody](t, b, labMsg(t, "lab.run.start", LabStartRequest{ID: 9, Scenario: p.Scenario}))
	r, _ = call(t, b, `{"id":1,"type":"lab.run.step","body":{"ms":0}}`)
	assert.Equal(t, CodeBadRequest, r.Error.Code)
	r, _ = call(t, b, `{"id":1,"type":"lab.run.result"}`)
	require.False(t, r.OK)
	assert.Contains(t, r.Error.Message, "step it to its end first")
	r, _ = call(t, b, `{"id":1,"type":"lab.judge","body":{"ids":[9]}}`)
	require.False(t, r.OK)
	assert.Contains(t, r.Error.Message, "no finished run 9")
	r, _ = call(t, b, `{"id":1,"type":"lab.export","body":{"kind":"compare","format":"xml"}}`)
	assert.Equal(t, CodeBadRequest, r.Error.Code)
	assert.Contains(t, r.Error.Message, "format")
}
