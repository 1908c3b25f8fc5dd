package labmsg

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/kraftlab/kraftlab/lab"
	"github.com/kraftlab/kraftlab/wasm/bridge"
)

// This file answers the lab page's "Rehearse a rollout on your cluster": import the cluster
// from Kafka's tools' output (lab.Import), run a plan under the current and the candidate
// config (lab.Rehearsal, stepped so that the page shows progress and cancels between slices),
// and write the report (lab.Report, the same HTML and Markdown `kraftlab lab --report` writes).

// RehearseRequest is the body of lab.rehearse.start.
type RehearseRequest struct {
	// Description is the base description (disks, throttles, seed), as lab.plan takes it.
	Description json.RawMessage `json:"description"`
	// Properties is the current config: a pasted server.properties or kafka-configs.sh output.
	Properties string `json:"properties,omitempty"`
	// Topics, LogDirs, Quorum and Rates are the tools' outputs (lab.Inputs).
	Topics  string `json:"topics"`
	LogDirs string `json:"logDirs,omitempty"`
	Quorum  string `json:"quorum,omitempty"`
	Rates   string `json:"rates,omitempty"`
	// Attached, when set, is the byte lengths of the four outputs above, in that order, that
	// travel instead as the request's attachment (UTF-8, one after the other): the page sends
	// them so, since a 40 MB describe as a JSON string costs seconds of a worker's decoding.
	Attached []int `json:"attached,omitempty"`
	// Plan is the plan's text; Candidate the candidate config.
	Plan      string        `json:"plan"`
	Candidate PolicyRequest `json:"candidate"`
	// Only, when set, is the one run this worker plays (0 to runs-1): the page spreads the runs
	// over its workers and gathers them with lab.rehearse.export and lab.rehearse.adopt.
	Only *int `json:"only,omitempty"`
	// Share asks for the imported cluster as the reply's attachment (lab.Description's binary
	// form, lab.EncodeDescription), for the page to hand to its other workers with Imported.
	Share bool `json:"share,omitempty"`
	// Imported, when set, says the attachment is a cluster another worker imported (its reply
	// to a start with Share) rather than the tools' outputs: a 40 MB describe is parsed once,
	// not once per worker. This worker then has no import report and writes no report.
	Imported bool `json:"imported,omitempty"`
}

// RehearseStartBody is the reply to lab.rehearse.start. With Errors, nothing runs.
type RehearseStartBody struct {
	Errors []FieldError      `json:"errors"`
	Import *lab.ImportReport `json:"import,omitempty"`
	Steps  []string          `json:"steps,omitempty"`
	Runs   int               `json:"runs"`
}

// RehearseStepBody is the reply to lab.rehearse.step.
type RehearseStepBody struct {
	Done     bool    `json:"done"`
	Progress float64 `json:"progress"`
}

// RehearseReportBody is the reply to lab.rehearse.report: the report in both formats, and the
// verdicts for the page's summary.
type RehearseReportBody struct {
	HTML     string                   `json:"html"`
	Markdown string                   `json:"markdown"`
	Verdicts map[string][]lab.Verdict `json:"verdicts"`
}

// importFields maps an import error's input to the page's field.
var importFields = map[string]string{lab.SourceTopics: "import.topics", lab.SourceLogDirs: "import.logDirs",
	lab.SourceQuorum: "import.quorum", lab.SourceRates: "import.rates"}

type rehearsalState struct {
	r       *lab.Rehearsal
	only    int
	imp     *lab.Imported
	current []lab.Override
	version string
}

// RegisterRehearse adds the lab.rehearse.* messages to a bridge, with one rehearsal shared by
// them: the program of the rehearsal's workers (rehearse.wasm) registers these alone.
func RegisterRehearse(b *bridge.Bridge) {
	s := &rehearsalState{version: b.Version()}
	b.RegisterData("lab.rehearse.start", s.start)
	b.Register("lab.rehearse.step", s.step)
	b.Register("lab.rehearse.report", s.report)
	b.Register("lab.rehearse.cancel", s.cancel)
	b.Register("lab.rehearse.export", s.export)
	b.Register("lab.rehearse.adopt", s.adopt)
}

func (s *rehearsalState) start(body json.RawMessage, data []byte) (any, error) {
	var req RehearseRequest
	if err := bridge.Decode(body, &req); err != nil {
		return nil, err
	}
	var handed *lab.Description
	if req.Imported {
		var err error
		if handed, err = lab.DecodeDescription(data); err != nil || req.Attached != nil || req.Share || req.Topics+req.LogDirs+req.Quorum+req.Rates != "" {
			return nil, bridge.BadRequest("lab.rehearse.start: imported takes a shared cluster alone")
		}
	} else if err := req.attachedTexts(data); err != nil {
		return nil, err
	}
	s.close()
	out := &RehearseStartBody{Errors: []FieldError{}}
	fail := func(field string, line int, err error) (any, error) {
		out.Errors = append(out.Errors, FieldError{Field: field, Line: line, Message: err.Error()})
		out.Import, out.Steps, out.Runs = nil, nil, 0
		return out, nil
	}
	base, field, err := labDescription(req.Description)
	if err != nil {
		return fail(field, 0, err)
	}
	var current []lab.Override
	if req.Properties != "" {
		p := lab.ParseProperties(req.Properties)
		for _, ln := range p.Lines {
			if ln.Status == lab.Invalid {
				return fail("properties", ln.Line, fmt.Errorf("line %d: %s", ln.Line, ln.Reason))
			}
		}
		current = p.Overrides
	}
	imp := &lab.Imported{Description: handed}
	if handed == nil {
		if imp, err = lab.Import(lab.Inputs{Topics: req.Topics, LogDirs: req.LogDirs, Quorum: req.Quorum, Rates: req.Rates}, base); err != nil {
			var ie *lab.ImportError
			if errors.As(err, &ie) {
				return fail(importFields[ie.Source], ie.Line, err)
			}
			return fail("import.topics", 0, err)
		}
	}
	plan, err := lab.ParsePlan(req.Plan)
	if err != nil {
		var pe *lab.PlanError
		line := 0
		if errors.As(err, &pe) {
			line = pe.Line
		}
		return fail("plan", line, err)
	}
	ovs, line, err := labOverrides(req.Candidate.Overrides)
	if err != nil {
		return fail("candidate", line, fmt.Errorf("candidate line %d: %w", line, err))
	}
	name := strings.TrimSpace(req.Candidate.Name)
	if name == "" {
		name = "candidate"
	}
	// PlanSetup, not Scenario and ApplyOverrides: the imported partitions stay structs instead
	// of a file of 200,000 partitions written and read back for each run, and a plan replaces
	// the file's events, whose parser would otherwise be linked into rehearse.wasm.
	setup, err := imp.Description.PlanSetup(current)
	if err != nil {
		return fail("properties", 0, err)
	}
	r, err := setup.Rehearsal(plan, lab.Policy{Name: name, Overrides: ovs})
	if err != nil {
		var pe *lab.PlanError
		if errors.As(err, &pe) {
			return fail("plan", pe.Line, err)
		}
		return fail("candidate", 0, err)
	}
	out.Runs = r.Runs()
	var cluster []byte
	if handed == nil {
		out.Import = &imp.Report
		if req.Share {
			// Encoding an imported description does not fail (its floats are finite, checked
			// by Validate); if it ever did, the page hears why rather than gets no attachment.
			if cluster, err = lab.EncodeDescription(imp.Description); err != nil {
				return nil, fmt.Errorf("lab.rehearse.start: handing the imported cluster to the other workers: %w", err)
			}
		}
	} else {
		imp = nil // the import's report and topics as printed stayed with the worker that parsed them
	}
	switch {
	case req.Only != nil && *req.Only >= r.Runs():
		// The page starts a worker per possible run before it knows how many there are: this
		// one has none to play and keeps nothing.
		r.Close()
	case req.Only != nil:
		if err := r.PlayOnly(*req.Only); err != nil {
			return nil, err
		}
		s.only = *req.Only
		fallthrough
	default:
		s.r, s.imp, s.current = r, imp, current
	}
	for _, st := range plan.Steps {
		out.Steps = append(out.Steps, st.String())
	}
	if cluster != nil {
		return bridge.Attached{Body: out, Data: cluster}, nil
	}
	return out, nil
}

// attachedTexts reads the outputs the request's Attached names out of its attachment.
func (req *RehearseRequest) attachedTexts(data []byte) error {
	texts := []*string{&req.Topics, &req.LogDirs, &req.Quorum, &req.Rates}
	ok := len(req.Attached) == len(texts) || req.Attached == nil && data == nil
	for i, n := range req.Attached {
		if !ok || n < 0 || n > len(data) || *texts[i] != "" {
			ok = false
			break
		}
		*texts[i], data = string(data[:n]), data[n:]
	}
	if !ok || len(data) != 0 {
		return bridge.BadRequest("lab.rehearse.start: attached must be the byte lengths of topics, logDirs, quorum and rates, adding up to the attachment's, for texts not also in the body")
	}
	return nil
}

func (s *rehearsalState) step(body json.RawMessage) (any, error) {
	var req struct {
		Ms int64 `json:"ms"`
	}
	if err := bridge.Decode(body, &req); err != nil {
		return nil, err
	}
	if s.r == nil {
		return nil, errors.New("lab.rehearse.step: no rehearsal started (send lab.rehearse.start)")
	}
	done, p, err := s.r.Step(req.Ms)
	if err != nil {
		return nil, err
	}
	return RehearseStepBody{Done: done, Progress: p}, nil
}

func (s *rehearsalState) report(body json.RawMessage) (any, error) {
	if err := bridge.Decode(body, &struct{}{}); err != nil {
		return nil, err
	}
	if s.r == nil {
		return nil, errors.New("lab.rehearse.report: no rehearsal started (send lab.rehearse.start)")
	}
	if s.imp == nil {
		return nil, errors.New("lab.rehearse.report: ask the worker that imported the texts")
	}
	pc, err := s.r.Comparison()
	if err != nil {
		return nil, err
	}
	rep := &lab.Report{Version: s.version, Imported: s.imp, Current: s.current, Comparison: pc}
	var h, md bytes.Buffer
	if err := rep.WriteHTML(&h); err != nil {
		return nil, err
	}
	if err := rep.WriteMarkdown(&md); err != nil {
		return nil, err
	}
	return RehearseReportBody{HTML: h.String(), Markdown: md.String(),
		Verdicts: map[string][]lab.Verdict{"current": pc.Current.Verdicts, "candidate": pc.Candidate.Verdicts}}, nil
}

func (s *rehearsalState) cancel(body json.RawMessage) (any, error) {
	if err := bridge.Decode(body, &struct{}{}); err != nil {
		return nil, err
	}
	s.close()
	return struct{}{}, nil
}

func (s *rehearsalState) close() {
	if s.r != nil {
		s.r.Close()
		s.r = nil
	}
}

// RunData is one finished run of a rehearsal, as lab.rehearse.export gives it and
// lab.rehearse.adopt takes it.
type RunData struct {
	Run  int    `json:"run"`
	Data string `json:"data"`
}

func (s *rehearsalState) export(body json.RawMessage) (any, error) {
	if err := bridge.Decode(body, &struct{}{}); err != nil {
		return nil, err
	}
	if s.r == nil {
		return nil, errors.New("lab.rehearse.export: no rehearsal started (send lab.rehearse.start)")
	}
	data, err := s.r.Export(s.only)
	if err != nil {
		return nil, err
	}
	return RunData{Run: s.only, Data: string(data)}, nil
}

func (s *rehearsalState) adopt(body json.RawMessage) (any, error) {
	var req RunData
	if err := bridge.Decode(body, &req); err != nil {
		return nil, err
	}
	if s.r == nil {
		return nil, errors.New("lab.rehearse.adopt: no rehearsal started (send lab.rehearse.start)")
	}
	if err := s.r.Adopt(req.Run, []byte(req.Data)); err != nil {
		return nil, err
	}
	return struct{}{}, nil
}
