// Package labmsg answers the config lab page's lab.* messages (web/PROTOCOL.md, "The config
// lab") on top of package lab. It registers them on a bridge.Bridge through its public
// Register API, so that the lab page's own wasm (wasm/cmd/kraftlab-lab-wasm) links the lab and
// not the playground's simulation session and lessons, and the playground's wasm does not link
// the lab (web/PROTOCOL.md: which program answers what).
//
// The page plans with lab.plan (which is also its validation: every field-named error comes
// from here), then spreads the plan's distinct runs over its own Web Workers, one run per
// worker at a time, each stepped in slices (lab.run.start, lab.run.step...) so that the page
// can show progress and cancel between slices. Results stay in the worker that ran them until
// the page judges them against their immediate baseline (lab.judge), which may have run in
// another worker. Exports (lab.export) take the figures back and write them with lab's own
// writers, so that a file from the page reads exactly like one from `kraftlab lab` or
// `kraftlab sweep`.
package labmsg

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"

	"github.com/kraftlab/kraftlab/cluster"
	"github.com/kraftlab/kraftlab/lab"
	"github.com/kraftlab/kraftlab/wasm/bridge"
)

// maxLabResults bounds the results a worker keeps for lab.judge: a 400-cell sweep on one
// worker plus its baselines, with room to spare. Past it the oldest are forgotten.
const maxLabResults = 1024

// labState is one worker's lab session: the run being stepped and the finished results the
// page has not judged yet.
type labState struct {
	runner  *lab.Runner
	runID   int64
	results map[int64]*lab.RunResult
	// order keeps result ids in arrival order, so the bound drops the oldest (never a map
	// iteration order).
	order []int64
}

// Register adds the lab.* messages but the rehearsal's (RegisterRehearse) to a bridge, with one lab session (the run being stepped
// and the results not judged yet) shared by them.
func Register(b *bridge.Bridge) {
	l := &labState{results: map[int64]*lab.RunResult{}}
	b.Register("lab.presets", labPresets)
	b.Register("lab.plan", labPlan)
	b.Register("lab.run.start", l.start)
	b.Register("lab.run.step", l.step)
	b.Register("lab.run.result", l.result)
	b.Register("lab.judge", l.judge)
	b.Register("lab.drop", l.drop)
	b.Register("lab.export", labExport)
}

// Preset is one preset in the lab.presets reply.
type Preset struct {
	Name        string          `json:"name"`
	Description lab.Description `json:"description"`
}

// Assumption is one uncertain model parameter in the lab.presets reply.
type Assumption struct {
	Key      string   `json:"key"`
	Names    []string `json:"names"`
	Low      float64  `json:"low"`
	High     float64  `json:"high"`
	Relative bool     `json:"relative"`
	Source   string   `json:"source"`
	Drives   []string `json:"drives"`
}

// PresetsBody is the reply to lab.presets: what the page's form starts from.
type PresetsBody struct {
	Presets []Preset `json:"presets"`
	// Policies are the comparison the page offers first: today's Kafka (the immediate
	// baseline's own overrides, so that it runs once) and the KIP's example.
	Policies    []lab.Policy `json:"policies"`
	Assumptions []Assumption `json:"assumptions"`
	MaxCells    int          `json:"maxCells"`
	MaxAxes     int          `json:"maxAxes"`
	SampleMs    int          `json:"sampleMs"`
}

func labPresets(body json.RawMessage) (any, error) {
	if err := bridge.Decode(body, &struct{}{}); err != nil {
		return nil, err
	}
	out := PresetsBody{Policies: labDefaultPolicies(), MaxCells: lab.MaxCells, MaxAxes: lab.MaxAxes, SampleMs: lab.SampleMs}
	for _, n := range lab.PresetNames() {
		d, err := lab.Preset(n)
		if err != nil {
			return nil, err
		}
		out.Presets = append(out.Presets, Preset{Name: n, Description: *d})
	}
	for _, a := range lab.Assumptions {
		out.Assumptions = append(out.Assumptions, Assumption{Key: a.Key, Names: a.Names, Low: a.Low, High: a.High,
			Relative: a.Relative, Source: a.Source, Drives: a.Drives})
	}
	return out, nil
}

// labDefaultPolicies are lab.DefaultPolicies with today's policy spelled as the baseline's
// overrides (the algorithm immediate and every KIP-1358 and PR #22934 config at its default):
// the same behaviour, and the same scenario file as the baseline, so the page runs it once.
func labDefaultPolicies() []lab.Policy {
	ps := lab.DefaultPolicies()
	ps[0].Overrides = lab.ImmediateOverrides()
	return ps
}

// PolicyRequest is a policy as the page's form holds it: overrides as NAME=VALUE lines.
type PolicyRequest struct {
	Name      string   `json:"name"`
	Overrides []string `json:"overrides"`
}

// PlanRequest is the body of lab.plan.
type PlanRequest struct {
	// Description is a lab description ({"preset": ..., "brokers": ...}, the inside of a
	// description file); fields it leaves out keep the preset's (default small).
	Description json.RawMessage `json:"description"`
	// Properties is a pasted server.properties or kafka-configs.sh --describe output; its used
	// lines are added to the description's configs.
	Properties string          `json:"properties,omitempty"`
	Policies   []PolicyRequest `json:"policies,omitempty"`
	// Sensitivity lists the assumptions to vary (by key); "all" varies every one.
	Sensitivity []string `json:"sensitivity,omitempty"`
	// Grid holds one or two axes as NAME=v1,v2 or NAME=FROM..TO:STEP; SweepBase the overrides
	// every cell starts from.
	Grid      []string `json:"grid,omitempty"`
	SweepBase []string `json:"sweepBase,omitempty"`
}

// FieldError is one problem with the page's input, named by the form field it belongs to
// (a description field such as "topics[0].partitions", "properties", "policies[1]",
// "grid[0]", "grid", "sweepBase").
type FieldError struct {
	Field   string `json:"field"`
	Line    int    `json:"line,omitempty"`
	Message string `json:"message"`
}

// PolicyPlan is one policy of a planned comparison.
type PolicyPlan struct {
	Name      string         `json:"name"`
	Overrides []lab.Override `json:"overrides"`
	// Run indexes the plan's runs.
	Run int `json:"run"`
}

// ComparePlan is a comparison: each policy's run and the immediate baseline's.
type ComparePlan struct {
	Policies []PolicyPlan `json:"policies"`
	Baseline int          `json:"baseline"`
}

// VariantPlan is the comparison again with one assumption at its low or high value.
type VariantPlan struct {
	Assumption string         `json:"assumption"`
	Side       string         `json:"side"`
	Overrides  []lab.Override `json:"overrides"`
	// Runs index the plan's runs, in the policies' order.
	Runs     []int `json:"runs"`
	Baseline int   `json:"baseline"`
}

// CellPlan is one cell of a sweep.
type CellPlan struct {
	Cell     int      `json:"cell"`
	Values   []string `json:"values"`
	Run      int      `json:"run"`
	Baseline int      `json:"baseline"`
}

// SweepPlan is a sweep's grid.
type SweepPlan struct {
	Axes  []lab.Axis `json:"axes"`
	Cells []CellPlan `json:"cells"`
}

// PlanBody is the reply to lab.plan. With Errors, nothing else is filled: nothing may run.
type PlanBody struct {
	Errors []FieldError `json:"errors"`
	// Description is the effective description (preset filled in, pasted configs added).
	Description *lab.Description `json:"description,omitempty"`
	// Scenario is the description as a cluster-mode scenario file.
	Scenario   string          `json:"scenario,omitempty"`
	Properties *lab.Properties `json:"properties,omitempty"`
	// Runs are the distinct scenario files to run (each a file `kraftlab run` replays); the
	// parts below index them, so a run two parts share runs once.
	Runs        []string      `json:"runs"`
	Compare     *ComparePlan  `json:"compare,omitempty"`
	Sensitivity []VariantPlan `json:"sensitivity,omitempty"`
	Sweep       *SweepPlan    `json:"sweep,omitempty"`
}

// runSet collects distinct scenario files in first-seen order.
type runSet struct {
	docs  []string
	index map[string]int
}

func (s *runSet) add(doc []byte) int {
	if i, ok := s.index[string(doc)]; ok {
		return i
	}
	s.docs = append(s.docs, string(doc))
	s.index[string(doc)] = len(s.docs) - 1
	return len(s.docs) - 1
}

func labPlan(body json.RawMessage) (any, error) {
	var req PlanRequest
	if err := bridge.Decode(body, &req); err != nil {
		return nil, err
	}
	out := &PlanBody{Errors: []FieldError{}, Runs: []string{}}
	fail := func(field string, line int, err error) (any, error) {
		out.Errors = append(out.Errors, FieldError{Field: field, Line: line, Message: err.Error()})
		out.Description, out.Scenario, out.Runs, out.Compare, out.Sensitivity, out.Sweep = nil, "", []string{}, nil, nil, nil
		return out, nil
	}

	d, field, err := labDescription(req.Description)
	if err != nil {
		return fail(field, 0, err)
	}
	if req.Properties != "" {
		p := lab.ParseProperties(req.Properties)
		out.Properties = p
		for _, ln := range p.Lines {
			if ln.Status == lab.Invalid {
				out.Errors = append(out.Errors, FieldError{Field: "properties", Line: ln.Line,
					Message: fmt.Sprintf("line %d: %s", ln.Line, ln.Reason)})
			}
		}
		if len(out.Errors) > 0 {
			// Every invalid line is listed, with the per-line statuses beside the paste.
			return out, nil
		}
		d.Config = append(d.Config, p.Overrides...)
	}
	doc, err := d.Scenario()
	if err != nil {
		var fe *lab.FieldError
		if errors.As(err, &fe) {
			return fail(fe.Field, 0, err)
		}
		// A pasted config the scenario refuses (such as a throttle the description also sets).
		return fail("properties", 0, err)
	}
	out.Description, out.Scenario = d, string(doc)
	runs := &runSet{index: map[string]int{}}

	if len(req.Policies) > 0 {
		policies := make([]lab.Policy, len(req.Policies))
		for i, p := range req.Policies {
			field := fmt.Sprintf("policies[%d]", i)
			if strings.TrimSpace(p.Name) == "" {
				return fail(field, 0, fmt.Errorf("%s.name: a policy needs a name", field))
			}
			ovs, line, err := labOverrides(p.Overrides)
			if err != nil {
				return fail(field, line, fmt.Errorf("%s line %d: %w", field, line, err))
			}
			policies[i] = lab.Policy{Name: p.Name, Overrides: ovs}
		}
		cmp, err := planCompare(doc, policies, nil, runs)
		if err != nil {
			return fail(err.field, 0, err.err)
		}
		out.Compare = &ComparePlan{Policies: cmp.policies, Baseline: cmp.baseline}
		keys := req.Sensitivity
		if len(keys) == 1 && keys[0] == "all" {
			keys = lab.AssumptionKeys()
		}
		for _, k := range keys {
			low, high, err := lab.AssumptionVariants(doc, k)
			if err != nil {
				return fail("sensitivity", 0, err)
			}
			for _, side := range []struct {
				name string
				ovs  []lab.Override
			}{{"low", low}, {"high", high}} {
				v, perr := planCompare(doc, policies, side.ovs, runs)
				if perr != nil {
					return fail(perr.field, 0, perr.err)
				}
				vp := VariantPlan{Assumption: k, Side: side.name, Overrides: side.ovs, Baseline: v.baseline}
				for _, p := range v.policies {
					vp.Runs = append(vp.Runs, p.Run)
				}
				out.Sensitivity = append(out.Sensitivity, vp)
			}
		}
	}

	if len(req.Grid) > 0 {
		axes := make([]lab.Axis, len(req.Grid))
		for i, g := range req.Grid {
			a, err := lab.ParseAxis(g)
			if err != nil {
				return fail(fmt.Sprintf("grid[%d]", i), 0, err)
			}
			axes[i] = a
		}
		base, line, err := labOverrides(req.SweepBase)
		if err != nil {
			return fail("sweepBase", line, fmt.Errorf("sweepBase line %d: %w", line, err))
		}
		s, err := lab.PlanSweep(doc, base, axes)
		if err != nil {
			// Too many cells concern the grid as a whole; a value the scenario refuses names its
			// axis, and is shown next to that axis's field.
			field := "grid"
			if !strings.Contains(err.Error(), "cells") {
				for i, a := range axes {
					if strings.Contains(err.Error(), a.Name) {
						field = fmt.Sprintf("grid[%d]", i)
						break
					}
				}
			}
			return fail(field, 0, err)
		}
		imm := lab.ImmediateOverrides()
		sp := &SweepPlan{Axes: s.Axes}
		for i, c := range s.Cells {
			cd, err := s.CellScenario(i)
			if err != nil {
				return nil, err
			}
			bd, err := lab.ApplyOverrides(cd, imm)
			if err != nil {
				return fail("grid", 0, err)
			}
			sp.Cells = append(sp.Cells, CellPlan{Cell: c.Index, Values: c.Values, Run: runs.add(cd), Baseline: runs.add(bd)})
		}
		out.Sweep = sp
	}
	out.Runs = runs.docs
	if out.Runs == nil {
		out.Runs = []string{}
	}
	return out, nil
}

// labDescription reads the page's description: the preset it names (default small) with the
// fields it gives, validated. The error's field is the description field it concerns.
func labDescription(raw json.RawMessage) (*lab.Description, string, error) {
	if len(raw) == 0 || string(raw) == "null" {
		raw = json.RawMessage("{}")
	}
	wrapped, err := json.Marshal(map[string]json.RawMessage{"lab": raw})
	if err != nil {
		return nil, "description", err
	}
	d, err := lab.ParseDescription(wrapped)
	if err == nil {
		return d, "", nil
	}
	var fe *lab.FieldError
	if errors.As(err, &fe) {
		return nil, fe.Field, fe
	}
	// lab wraps a wrong JSON type (text for a number, a negative seed) as text: read the path
	// back out of encoding/json's wording.
	if jsonType, path, goType, ok := jsonFieldError(err.Error()); ok {
		return nil, path, fmt.Errorf("%s: invalid value: want %s, got JSON %s", path, jsonTypeName(goType), jsonType)
	}
	if strings.Contains(err.Error(), "preset") {
		return nil, "preset", err
	}
	return nil, "description", err
}

// jsonFieldError reads encoding/json's "cannot unmarshal string into Go struct field
// Description.topics.partitions of type int" (its first such phrase in msg): the JSON type,
// the field's path below Description and the Go type. It is written out by hand rather than as
// a regexp because package regexp and its Unicode tables would add 80 KB (brotli) to the lab
// page's wasm; labmsg_test.go checks it against the regexp it replaces.
func jsonFieldError(msg string) (jsonType, path, goType string, ok bool) {
	const lead, field, of = "cannot unmarshal ", " into Go struct field Description.", " of type "
	for {
		i := strings.Index(msg, lead)
		if i < 0 {
			return "", "", "", false
		}
		msg = msg[i+len(lead):]
		j := span(msg, isWordByte)
		rest, ok := strings.CutPrefix(msg[j:], field)
		if j == 0 || !ok {
			continue
		}
		p := span(rest, func(c byte) bool { return isWordByte(c) || c == '.' || c == '[' || c == ']' })
		tail, ok := strings.CutPrefix(rest[p:], of)
		if p == 0 || !ok {
			continue
		}
		if t := span(tail, isWordByte); t > 0 {
			return msg[:j], rest[:p], tail[:t], true
		}
	}
}

// span is the length of the run of bytes that starts s and satisfies in.
func span(s string, in func(byte) bool) int {
	n := 0
	for n < len(s) && in(s[n]) {
		n++
	}
	return n
}

// isWordByte is a regexp's \w: an ASCII letter, digit or underscore.
func isWordByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_'
}

// jsonTypeName says a Go type the way the form's reader thinks of it.
func jsonTypeName(goType string) string {
	switch {
	case strings.HasPrefix(goType, "uint"):
		return "a whole number at least 0"
	case strings.HasPrefix(goType, "int"):
		return "a whole number"
	case strings.HasPrefix(goType, "float"):
		return "a number"
	case goType == "bool":
		return "true or false"
	}
	return goType
}

// labOverrides reads NAME=VALUE lines; blank lines and # comments are skipped. The line
// number of a bad one is 1-based.
func labOverrides(lines []string) ([]lab.Override, int, error) {
	var out []lab.Override
	for i, l := range lines {
		l = strings.TrimSpace(l)
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		o, err := lab.ParseOverride(l)
		if err != nil {
			return nil, i + 1, err
		}
		out = append(out, o)
	}
	return out, 0, nil
}

type plannedCompare struct {
	policies []PolicyPlan
	baseline int
}

type planError struct {
	field string
	err   error
}

// planCompare writes each policy's scenario (extra overrides first, as RunSensitivity does)
// and the immediate baseline's, and adds them to runs.
func planCompare(doc []byte, policies []lab.Policy, extra []lab.Override, runs *runSet) (*plannedCompare, *planError) {
	cp := &plannedCompare{}
	for i, p := range policies {
		ovs := append(append([]lab.Override(nil), extra...), p.Overrides...)
		d, err := lab.ApplyOverrides(doc, ovs)
		if err != nil {
			return nil, &planError{fmt.Sprintf("policies[%d]", i), fmt.Errorf("policy %q: %w", p.Name, err)}
		}
		cp.policies = append(cp.policies, PolicyPlan{Name: p.Name, Overrides: p.Overrides, Run: runs.add(d)})
	}
	bd, err := lab.ApplyOverrides(doc, append(append([]lab.Override(nil), extra...), lab.ImmediateOverrides()...))
	if err != nil {
		return nil, &planError{"sensitivity", err}
	}
	cp.baseline = runs.add(bd)
	return cp, nil
}

// StartRequest is the body of lab.run.start.
type StartRequest struct {
	// ID is the page's name for the run (a positive integer): lab.run.result keeps the result
	// under it for lab.judge.
	ID       int64  `json:"id"`
	Scenario string `json:"scenario"`
}

// ProgressBody is the reply to lab.run.start and lab.run.step.
type ProgressBody struct {
	ID         int64 `json:"id"`
	NowMs      int64 `json:"nowMs"`
	DurationMs int64 `json:"durationMs"`
	Done       bool  `json:"done"`
}

func (l *labState) start(body json.RawMessage) (any, error) {
	var req StartRequest
	if err := bridge.Decode(body, &req); err != nil {
		return nil, err
	}
	if req.ID <= 0 {
		return nil, bridge.BadRequest("id: invalid value %d: a positive integer", req.ID)
	}
	// The last run's cluster is let go before this one is built.
	l.runner = nil
	r, err := build(req.Scenario)
	if err != nil {
		return nil, err
	}
	l.runner, l.runID = r, req.ID
	return l.progress(), nil
}

// build makes a run's cluster between two collections, with none during the build. The
// worker's last run (a cancelled one too) is garbage: collected first, the build reuses its
// memory, and the collection costs little, with little left alive. During the build nearly
// everything allocated stays alive (the KIP preset's 60,000 partitions: 84 MB allocated, 57
// MB of it alive at the end): a collection there finds little to free, but at a GOGC of 25
// it comes every quarter of growth, a dozen times a build, each marking the growing cluster
// (two thirds of a run's collections). After the build the build's garbage goes, and the
// collector's goal follows the run's live heap. The heap (in the page, the worker's linear
// memory, which never shrinks) peaks at the build's allocations, which for the KIP preset is
// under what the run reaches later (natively 91 MB of heap at the build's end, 127 MB at the
// run's).
func build(scenario string) (*lab.Runner, error) {
	runtime.GC()
	defer runtime.GC()
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	return lab.NewRunner([]byte(scenario))
}

func (l *labState) progress() ProgressBody {
	return ProgressBody{ID: l.runID, NowMs: l.runner.NowMs(), DurationMs: l.runner.DurationMs(), Done: l.runner.Done()}
}

// StepRequest is the body of lab.run.step.
type StepRequest struct {
	// Ms is the scenario time to let pass, 1 ms to a day.
	Ms int64 `json:"ms"`
}

func (l *labState) step(body json.RawMessage) (any, error) {
	var req StepRequest
	if err := bridge.Decode(body, &req); err != nil {
		return nil, err
	}
	if req.Ms < 1 || req.Ms > 86_400_000 {
		return nil, bridge.BadRequest("ms: invalid value %d: from 1 to 86400000 (a day)", req.Ms)
	}
	if l.runner == nil {
		return nil, errors.New("no lab run: send lab.run.start first")
	}
	if _, err := l.runner.Step(req.Ms); err != nil {
		return nil, err
	}
	return l.progress(), nil
}

// ResultBody is the reply to lab.run.result: the run's figures and series.
type ResultBody struct {
	ID      int64           `json:"id"`
	Summary lab.SummaryJSON `json:"summary"`
	Result  lab.RunResult   `json:"result"`
}

func (l *labState) result(body json.RawMessage) (any, error) {
	if err := bridge.Decode(body, &struct{}{}); err != nil {
		return nil, err
	}
	if l.runner == nil {
		return nil, errors.New("no lab run: send lab.run.start first")
	}
	if !l.runner.Done() {
		return nil, fmt.Errorf("run %d is at %d ms of %d: step it to its end first", l.runID, l.runner.NowMs(), l.runner.DurationMs())
	}
	r := l.runner.Result()
	if _, ok := l.results[l.runID]; !ok {
		l.order = append(l.order, l.runID)
	}
	l.results[l.runID] = r
	for len(l.order) > maxLabResults {
		delete(l.results, l.order[0])
		l.order = l.order[1:]
	}
	// The runner holds the whole cluster; the result is all that is needed from here on.
	l.runner = nil
	return ResultBody{ID: l.runID, Summary: lab.SummaryOf(r.Summary), Result: *r}, nil
}

// Baseline is what the recovery criterion needs of the immediate run, which may have run
// in another worker.
type Baseline struct {
	RecoveryTimeMs int64  `json:"recovery_time_ms"`
	Violation      string `json:"violation,omitempty"`
}

// JudgeRequest is the body of lab.judge.
type JudgeRequest struct {
	IDs []int64 `json:"ids"`
	// Baseline is the immediate run's figures; absent, the recovery criterion is not measured.
	Baseline *Baseline `json:"baseline,omitempty"`
}

// JudgeBody is the reply to lab.judge: the verdicts of each run, in the request's order.
type JudgeBody struct {
	Verdicts [][]lab.Verdict `json:"verdicts"`
}

func (l *labState) judge(body json.RawMessage) (any, error) {
	var req JudgeRequest
	if err := bridge.Decode(body, &req); err != nil {
		return nil, err
	}
	var base *lab.RunResult
	if req.Baseline != nil {
		base = &lab.RunResult{Violation: req.Baseline.Violation, Summary: cluster.Summary{RecoveryTimeMs: req.Baseline.RecoveryTimeMs}}
	}
	out := JudgeBody{Verdicts: [][]lab.Verdict{}}
	for _, id := range req.IDs {
		r, ok := l.results[id]
		if !ok {
			return nil, fmt.Errorf("ids: no finished run %d in this worker", id)
		}
		out.Verdicts = append(out.Verdicts, lab.Verdicts(r, base))
	}
	return out, nil
}

func (l *labState) drop(body json.RawMessage) (any, error) {
	var req struct {
		IDs []int64 `json:"ids"`
	}
	if err := bridge.Decode(body, &req); err != nil {
		return nil, err
	}
	if req.IDs == nil {
		l.results, l.order = map[int64]*lab.RunResult{}, nil
		return struct{}{}, nil
	}
	for _, id := range req.IDs {
		delete(l.results, id)
	}
	kept := l.order[:0]
	for _, id := range l.order {
		if _, ok := l.results[id]; ok {
			kept = append(kept, id)
		}
	}
	l.order = kept
	return struct{}{}, nil
}

// ExportRun is one run's figures as the page holds them (from lab.run.result and
// lab.judge).
type ExportRun struct {
	Name      string          `json:"name,omitempty"`
	Overrides []lab.Override  `json:"overrides,omitempty"`
	Summary   lab.SummaryJSON `json:"summary"`
	Violation string          `json:"violation,omitempty"`
	Series    *lab.Series     `json:"series,omitempty"`
	Verdicts  []lab.Verdict   `json:"verdicts"`
}

// ExportCell is one sweep cell as the page holds it.
type ExportCell struct {
	Cell     int             `json:"cell"`
	Values   []string        `json:"values"`
	Run      ExportRun       `json:"run"`
	Baseline lab.SummaryJSON `json:"baseline"`
}

// ExportRequest is the body of lab.export.
type ExportRequest struct {
	// Kind is "compare" or "sweep"; Format "csv" or "json".
	Kind   string `json:"kind" ts:"ExportKind"`
	Format string `json:"format" ts:"ExportFormat"`
	// Seed, Baseline and Policies describe a comparison.
	Seed     uint64          `json:"seed,omitempty"`
	Baseline lab.SummaryJSON `json:"baseline,omitzero"`
	Policies []ExportRun     `json:"policies,omitempty"`
	// Axes and Cells describe a sweep.
	Axes  []lab.Axis   `json:"axes,omitempty"`
	Cells []ExportCell `json:"cells,omitempty"`
}

// ExportBody is the reply to lab.export: the file's text.
type ExportBody struct {
	Text string `json:"text"`
}

func labExport(body json.RawMessage) (any, error) {
	var req ExportRequest
	if err := bridge.Decode(body, &req); err != nil {
		return nil, err
	}
	if req.Format != "csv" && req.Format != "json" {
		return nil, bridge.BadRequest("format: invalid value %q: one of csv, json", req.Format)
	}
	var buf bytes.Buffer
	switch req.Kind {
	case "compare":
		if len(req.Policies) == 0 {
			return nil, bridge.BadRequest("policies: a comparison has at least one policy")
		}
		c := &lab.Comparison{Seed: req.Seed, Baseline: &lab.RunResult{Summary: summaryFrom(req.Baseline)}}
		for _, p := range req.Policies {
			r := &lab.RunResult{Seed: req.Seed, Summary: summaryFrom(p.Summary), Violation: p.Violation}
			if p.Series != nil {
				r.Series = *p.Series
			}
			c.Policies = append(c.Policies, lab.PolicyRun{Policy: lab.Policy{Name: p.Name, Overrides: p.Overrides}, Result: r, Verdicts: p.Verdicts})
		}
		var err error
		if req.Format == "json" {
			err = c.WriteJSON(&buf)
		} else {
			err = writeCompareCSV(&buf, c)
		}
		if err != nil {
			return nil, err
		}
	case "sweep":
		if len(req.Axes) == 0 || len(req.Cells) == 0 {
			return nil, bridge.BadRequest("axes, cells: a sweep has at least one axis and one cell")
		}
		s := &lab.Sweep{Axes: req.Axes}
		for _, c := range req.Cells {
			if len(c.Values) != len(req.Axes) {
				return nil, bridge.BadRequest("cells[%d].values: %d values for %d axes", c.Cell, len(c.Values), len(req.Axes))
			}
			s.Cells = append(s.Cells, lab.Cell{Index: c.Cell, Values: c.Values, Verdicts: c.Run.Verdicts,
				Result:   &lab.RunResult{Summary: summaryFrom(c.Run.Summary), Violation: c.Run.Violation},
				Baseline: &lab.RunResult{Summary: summaryFrom(c.Baseline)}})
		}
		var err error
		if req.Format == "json" {
			err = s.WriteJSON(&buf)
		} else {
			err = s.WriteCSV(&buf)
		}
		if err != nil {
			return nil, err
		}
	default:
		return nil, bridge.BadRequest("kind: invalid value %q: one of compare, sweep", req.Kind)
	}
	return ExportBody{Text: buf.String()}, nil
}

// summaryFrom is lab.SummaryOf backwards: the writers only read these figures.
func summaryFrom(s lab.SummaryJSON) cluster.Summary {
	return cluster.Summary{UnfencedAtMs: s.UnfencedAtMs, LeadershipRestoredAtMs: s.LeadershipRestoredAtMs, RecoveryTimeMs: s.RecoveryTimeMs,
		P99SteadyMs: s.P99SteadyMs, P99Worst10MinMs: s.P99Worst10MinMs, P99Ratio: s.P99Ratio, ProduceTimeouts: s.ProduceTimeouts,
		ProduceErrors: s.ProduceErrors, AckedRecordsLost: s.AckedRecordsLost, MaxElectionsPerRun: s.MaxElectionsPerRun,
		UncleanElections: s.UncleanElections, InvariantViolations: s.InvariantViolations}
}

// compareCSVHeader follows the sweep CSV's columns (lab.Sweep.WriteCSV) with the policy in
// place of the axes, so that one spreadsheet reads both.
var compareCSVHeader = []string{"policy", "overrides", "unfenced_at_ms", "leadership_restored_at_ms", "recovery_time_ms",
	"immediate_recovery_time_ms", "recovery_ratio", "p99_steady_ms", "p99_worst_10min_ms", "p99_ratio", "produce_timeouts",
	"max_elections_per_run", "verdict_" + lab.CriterionP99, "verdict_" + lab.CriterionTimeouts, "verdict_" + lab.CriterionRecovery, "violation"}

// writeCompareCSV writes one row per policy, in the comparison's order.
func writeCompareCSV(w *bytes.Buffer, c *lab.Comparison) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(compareCSVHeader); err != nil {
		return err
	}
	f3 := func(v float64) string { return strconv.FormatFloat(v, 'f', 3, 64) }
	i64 := func(v int64) string { return strconv.FormatInt(v, 10) }
	for _, p := range c.Policies {
		s := lab.SummaryOf(p.Result.Summary)
		ovs := make([]string, len(p.Policy.Overrides))
		for i, o := range p.Policy.Overrides {
			ovs[i] = o.String()
		}
		verdict := func(id string) lab.Verdict {
			for _, v := range p.Verdicts {
				if v.Criterion == id {
					return v
				}
			}
			return lab.Verdict{Criterion: id, Status: lab.NotMeasured, Measured: -1}
		}
		row := []string{p.Policy.Name, strings.Join(ovs, " "), i64(s.UnfencedAtMs), i64(s.LeadershipRestoredAtMs), i64(s.RecoveryTimeMs),
			i64(c.Baseline.Summary.RecoveryTimeMs), f3(verdict(lab.CriterionRecovery).Measured), f3(s.P99SteadyMs), f3(s.P99Worst10MinMs),
			f3(s.P99Ratio), strconv.Itoa(s.ProduceTimeouts), strconv.Itoa(s.MaxElectionsPerRun)}
		for _, id := range []string{lab.CriterionP99, lab.CriterionTimeouts, lab.CriterionRecovery} {
			row = append(row, string(verdict(id).Status))
		}
		if err := cw.Write(append(row, p.Result.Violation)); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}
