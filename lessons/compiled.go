package lessons

import (
	_ "embed" // the compiled course, as a string
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/kraftlab/kraftlab/cluster/scenario"
)

// The compiled course is the course already parsed and validated, so that the page's wasm
// loads its lessons without the Markdown parser, the action parser, validation and the
// goal-expression parser (and embed.FS, whose io/fs types keep time's formatting and parsing
// alive through interface method retention): about 0.35 MB of code and 60 KB brotli less
// to download. It has two parts. compiled.json holds the lessons' text, lines and actions,
// decoded with the encoding/json the wasm has anyway; each lesson's scenario and the
// scenario validation built with every event action in it are parsed again by the scenario
// parser the wasm has for sim.load, so every action's event comes out of the very parse
// Parse made. compiled_exprs.go holds every goal and until expression as a Go composite
// literal (compiledExprs), which the linker lays out as static data: no parser, no decoder.
// TestCompiledCourseIsTheCourse checks that both files are current and decode to exactly
// what Course parses; build.go writes fresh copies into each wasm build (through -overlay),
// so a site never ships a stale course.

// CompiledFile and CompiledExprsFile are the compiled course's files in this package's
// directory (`go run ./lessons/compile` rewrites them; build.go overlays fresh copies).
const (
	CompiledFile      = "compiled.json"
	CompiledExprsFile = "compiled_exprs.go"
)

//go:embed compiled.json
var compiled string

type compiledLesson struct {
	File, ID, Title, Summary string
	Links                    []Link
	Intro                    string
	// Scenario is the starting scenario as written; Events the scenario validation parsed the
	// event actions in (empty when there is none).
	Scenario, Events string
	StartMs, LimitMs int64
	Steps            []compiledStep
	Talk             bool `json:",omitempty"`
}

type compiledStep struct {
	Line              int
	Title, Text, Task string
	Goals, Expects    []compiledGoal
	Hints             []string
	Reference, Play   []compiledAction
	Predict           *compiledPrediction `json:",omitempty"`
	Solutions         [][]compiledAction  `json:",omitempty"`
	Rejects           [][]compiledAction  `json:",omitempty"`
	// Picture is the goal's picture (Lesson.GoalPictures), computed when the course compiles.
	Picture *Picture `json:",omitempty"`
	Caption string   `json:",omitempty"`
	// From is a talk scene's origin, a lesson's checkpoint: its actions and those of the
	// scenes after it (up to the next origin) are numbered in From.Events.
	From *compiledOrigin `json:",omitempty"`
}

type compiledOrigin struct {
	Lesson     string
	Step, Line int
	Events     string
}

type compiledPrediction struct {
	Line             int
	Question, Reveal string
	Options          []compiledOption `json:",omitempty"`
	// When is 1 + the index of a timed prediction's moment in compiledExprs (0: options).
	When                          int    `json:",omitempty"`
	WhenSource                    string `json:",omitempty"`
	WhenLine                      int    `json:",omitempty"`
	AnswerMs, ToleranceMs, SpanMs int64  `json:",omitempty"`
}

type compiledOption struct {
	Line          int
	Label, Source string
	// Expr is the index of the parsed predicate in compiledExprs.
	Expr   int
	Broker int32
}

type compiledGoal struct {
	Source string
	Line   int
	// Expr is the index of the parsed expression in compiledExprs.
	Expr int
}

type compiledAction struct {
	Kind   ActionKind
	Line   int
	Source string
	// Event is 1 + the index of the action's event in the lesson's Events (0: none).
	Event  int    `json:",omitempty"`
	WaitMs int64  `json:",omitempty"`
	Until  string `json:",omitempty"`
	// UntilExpr is 1 + the index of Until's parsed expression in compiledExprs (0: none).
	UntilExpr int    `json:",omitempty"`
	Pause     string `json:",omitempty"`
}

// EncodeCourse writes parsed lessons as the compiled course that DecodeCourse reads: the
// JSON (compiled.json) and the Go source of the expression table (compiled_exprs.go).
// Expressions with the same source share one entry.
func EncodeCourse(course []*Lesson) (data, exprs []byte, err error) {
	pics, err := goalPictures(course)
	if err != nil {
		return nil, nil, err
	}
	return encodeCourse(course, pics)
}

// goalPictures is each lesson's GoalPictures, in the course's order.
func goalPictures(course []*Lesson) ([][]*Picture, error) {
	pics := make([][]*Picture, len(course))
	for i, l := range course {
		var err error
		if pics[i], err = l.GoalPictures(); err != nil {
			return nil, err
		}
	}
	return pics, nil
}

// encodeCourse is EncodeCourse with the goal pictures given (goalPictures): replaying the
// course for them is most of the work, and TestCompiledCourseIsTheCourse compares the same
// pictures with what the compiled course decodes to.
func encodeCourse(course []*Lesson, pictures [][]*Picture) (data, exprs []byte, err error) {
	t := &exprTable{index: map[string]int{}}
	out := make([]compiledLesson, len(course))
	for i, l := range course {
		pics := pictures[i]
		c := compiledLesson{File: l.File, ID: l.ID, Title: l.Title, Summary: l.Summary, Links: l.Links,
			Intro: l.Intro, Scenario: string(l.ScenarioJSON), Events: string(l.events),
			StartMs: l.StartMs, LimitMs: l.LimitMs, Steps: make([]compiledStep, len(l.Steps)), Talk: l.Talk}
		for j, s := range l.Steps {
			if s.Index != j {
				return nil, nil, fmt.Errorf("%s: step %d has index %d", l.File, j, s.Index)
			}
			c.Steps[j] = compiledStep{Line: s.Line, Title: s.Title, Text: s.Text, Task: s.Task,
				Goals: t.goals(s.Goals), Expects: t.goals(s.Expects), Hints: s.Hints,
				Reference: t.actions(s.Reference), Play: t.actions(s.Play), Picture: pics[j],
				Predict: t.prediction(s.Predict), Caption: s.Caption}
			if o := s.From; o != nil {
				c.Steps[j].From = &compiledOrigin{Lesson: o.Lesson, Step: o.Step, Line: o.Line, Events: string(o.events)}
			}
			for _, acts := range s.Solutions {
				c.Steps[j].Solutions = append(c.Steps[j].Solutions, t.actions(acts))
			}
			for _, acts := range s.Rejects {
				c.Steps[j].Rejects = append(c.Steps[j].Rejects, t.actions(acts))
			}
		}
		out[i] = c
	}
	if t.err != nil {
		return nil, nil, t.err
	}
	if data, err = json.Marshal(out); err != nil {
		return nil, nil, err
	}
	return append(data, '\n'), t.source(), nil
}

// exprTable collects the course's expressions and writes them as Go literals.
type exprTable struct {
	index map[string]int
	lits  []string
	err   error
}

// add returns the index of the expression parsed from src.
func (t *exprTable) add(src string, e Expr) int {
	if i, ok := t.index[src]; ok {
		return i
	}
	var b strings.Builder
	if err := goLiteral(&b, reflect.ValueOf(&e).Elem()); err != nil && t.err == nil {
		t.err = fmt.Errorf("expression %q: %w", src, err)
	}
	t.index[src] = len(t.lits)
	t.lits = append(t.lits, fmt.Sprintf("\t// %s\n\t%s,\n", src, b.String()))
	return len(t.lits) - 1
}

func (t *exprTable) goals(gs []Goal) []compiledGoal {
	if gs == nil {
		return nil
	}
	out := make([]compiledGoal, len(gs))
	for i, g := range gs {
		out[i] = compiledGoal{Source: g.Source, Line: g.Line, Expr: t.add(g.Source, g.Expr)}
	}
	return out
}

func (t *exprTable) prediction(p *Prediction) *compiledPrediction {
	if p == nil {
		return nil
	}
	out := &compiledPrediction{Line: p.Line, Question: p.Question, Reveal: p.Reveal}
	if p.Timed() {
		out.When, out.WhenSource, out.WhenLine = 1+t.add(p.WhenSource, p.When), p.WhenSource, p.WhenLine
		out.AnswerMs, out.ToleranceMs, out.SpanMs = p.AnswerMs, p.ToleranceMs, p.SpanMs
	}
	for _, o := range p.Options {
		out.Options = append(out.Options, compiledOption{Line: o.Line, Label: o.Label, Source: o.Source, Expr: t.add(o.Source, o.Expr), Broker: o.Broker})
	}
	return out
}

func (t *exprTable) actions(as []Action) []compiledAction {
	if as == nil {
		return nil
	}
	out := make([]compiledAction, len(as))
	for i, a := range as {
		out[i] = compiledAction{Kind: a.Kind, Line: a.Line, Source: a.Source, Event: a.event,
			WaitMs: a.WaitMs, Until: a.until, Pause: a.Pause}
		if a.Until != nil {
			out[i].UntilExpr = 1 + t.add(a.until, a.Until)
		}
	}
	return out
}

// source is compiled_exprs.go.
func (t *exprTable) source() []byte {
	var b strings.Builder
	b.WriteString("// Code generated by go run ./lessons/compile; DO NOT EDIT.\n\n")
	b.WriteString("package lessons\n\n")
	b.WriteString("// compiledExprs are the compiled course's goal and until expressions, as ParseExpr parsed\n")
	b.WriteString("// them from the sources in the comments (compiled.go says why they are Go).\n")
	b.WriteString("var compiledExprs = []Expr{\n")
	for _, l := range t.lits {
		b.WriteString(l)
	}
	b.WriteString("}\n")
	return []byte(b.String())
}

// goLiteral writes v, a parsed expression or a part of one, as a Go composite literal of this
// package. It reads the unexported fields through reflect, which only the native compile
// step links; any kind an expression does not use is an error, never a guess.
func goLiteral(b *strings.Builder, v reflect.Value) error {
	switch v.Kind() {
	case reflect.Interface, reflect.Pointer:
		if v.IsNil() {
			b.WriteString("nil")
			return nil
		}
		if v.Kind() == reflect.Pointer {
			b.WriteByte('&')
		}
		return goLiteral(b, v.Elem())
	case reflect.Struct:
		if v.Type().PkgPath() != reflect.TypeFor[Lesson]().PkgPath() {
			return fmt.Errorf("type %s is not of package lessons", v.Type())
		}
		b.WriteString(v.Type().Name() + "{")
		for i := 0; i < v.NumField(); i++ {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(v.Type().Field(i).Name + ": ")
			if err := goLiteral(b, v.Field(i)); err != nil {
				return err
			}
		}
		b.WriteByte('}')
	case reflect.Slice:
		if v.IsNil() {
			b.WriteString("nil")
			return nil
		}
		if k := v.Type().Elem().Kind(); k != reflect.Int32 && k != reflect.String {
			return fmt.Errorf("slice of %s", v.Type().Elem())
		}
		b.WriteString(v.Type().String() + "{")
		for i := 0; i < v.Len(); i++ {
			if i > 0 {
				b.WriteString(", ")
			}
			if err := goLiteral(b, v.Index(i)); err != nil {
				return err
			}
		}
		b.WriteByte('}')
	case reflect.String:
		b.WriteString(strconv.Quote(v.String()))
	case reflect.Bool:
		b.WriteString(strconv.FormatBool(v.Bool()))
	case reflect.Int, reflect.Int32, reflect.Int64:
		b.WriteString(strconv.FormatInt(v.Int(), 10))
	case reflect.Float64:
		f := v.Float()
		if math.IsNaN(f) || math.IsInf(f, 0) || f == 0 && math.Signbit(f) {
			return fmt.Errorf("float %v has no Go constant", f)
		}
		// The shortest form that reads back as the same float64, exactly.
		b.WriteString(strconv.FormatFloat(f, 'g', -1, 64))
	default:
		return fmt.Errorf("kind %s", v.Kind())
	}
	return nil
}

// DecodeCourse reads a compiled course's JSON (EncodeCourse) back into lessons, parsing each
// scenario and event as Parse did and taking each expression from compiledExprs, which must
// be the table written with it.
func DecodeCourse(data []byte) ([]*Lesson, error) {
	var in []compiledLesson
	if err := json.Unmarshal(data, &in); err != nil {
		return nil, fmt.Errorf("compiled course: %w", err)
	}
	out := make([]*Lesson, len(in))
	for i, c := range in {
		l, err := decodeLesson(c)
		if err != nil {
			return nil, fmt.Errorf("compiled course: %s: %w", c.File, err)
		}
		out[i] = l
	}
	// A talk's scene that starts from a lesson's checkpoint refers to that lesson, decoded above.
	for _, l := range out {
		for _, s := range l.Steps {
			if o := s.From; o != nil {
				k := slices.IndexFunc(out, func(x *Lesson) bool { return !x.Talk && x.ID == o.Lesson })
				if k < 0 {
					return nil, fmt.Errorf("compiled course: %s:%d: from: %q is not in the compiled course", l.File, o.Line, o.Lesson)
				}
				o.lesson = out[k]
			}
		}
	}
	return out, nil
}

func decodeLesson(c compiledLesson) (*Lesson, error) {
	l := &Lesson{File: c.File, ID: c.ID, Title: c.Title, Summary: c.Summary, Links: c.Links,
		Intro: c.Intro, ScenarioJSON: []byte(c.Scenario), StartMs: c.StartMs, LimitMs: c.LimitMs,
		Steps: make([]*Step, len(c.Steps)), Talk: c.Talk}
	// ParseCluster gives what Parse gives for a cluster-mode scenario (validation refused
	// any other), without linking controller mode's parser into the wasm.
	sc, err := scenario.ParseCluster(l.ScenarioJSON)
	if err != nil {
		return nil, err
	}
	l.Scenario = sc
	l.events = []byte(c.Events)
	if c.Events == "" {
		l.events = nil
	}
	events, err := decodeEvents(c.Events)
	if err != nil {
		return nil, err
	}
	for j, cs := range c.Steps {
		s := &Step{Index: j, Line: cs.Line, Title: cs.Title, Text: cs.Text, Task: cs.Task, Hints: cs.Hints, Picture: cs.Picture, Caption: cs.Caption}
		if co := cs.From; co != nil {
			// From here on, the actions are numbered in the segment's own events.
			s.From = &Origin{Lesson: co.Lesson, Step: co.Step, Line: co.Line, events: []byte(co.Events)}
			if co.Events == "" {
				s.From.events = nil
			}
			if events, err = decodeEvents(co.Events); err != nil {
				return nil, err
			}
		}
		if s.Goals, err = decodeGoals(cs.Goals); err != nil {
			return nil, err
		}
		if s.Expects, err = decodeGoals(cs.Expects); err != nil {
			return nil, err
		}
		if s.Reference, err = decodeActions(cs.Reference, events); err != nil {
			return nil, err
		}
		if s.Play, err = decodeActions(cs.Play, events); err != nil {
			return nil, err
		}
		for _, ca := range cs.Solutions {
			acts, err := decodeActions(ca, events)
			if err != nil {
				return nil, err
			}
			s.Solutions = append(s.Solutions, acts)
		}
		for _, ca := range cs.Rejects {
			acts, err := decodeActions(ca, events)
			if err != nil {
				return nil, err
			}
			s.Rejects = append(s.Rejects, acts)
		}
		if cp := cs.Predict; cp != nil {
			s.Predict = &Prediction{Line: cp.Line, Question: cp.Question, Reveal: cp.Reveal,
				WhenSource: cp.WhenSource, WhenLine: cp.WhenLine, AnswerMs: cp.AnswerMs, ToleranceMs: cp.ToleranceMs, SpanMs: cp.SpanMs}
			if cp.When != 0 {
				if s.Predict.When, err = compiledExpr(cp.When-1, cp.WhenLine); err != nil {
					return nil, err
				}
			}
			for _, co := range cp.Options {
				e, err := compiledExpr(co.Expr, co.Line)
				if err != nil {
					return nil, err
				}
				s.Predict.Options = append(s.Predict.Options, Option{Line: co.Line, Label: co.Label, Source: co.Source, Expr: e, Broker: co.Broker})
			}
		}
		l.Steps[j] = s
	}
	return l, nil
}

// decodeEvents parses a scenario validation with the event actions in it (a lesson's Events,
// or a talk segment's) into its events by 1 + index, as actions refer to them.
func decodeEvents(doc string) (map[int]scenario.Event, error) {
	events := map[int]scenario.Event{}
	if doc == "" {
		return events, nil
	}
	fsc, err := scenario.ParseCluster([]byte(doc))
	if err != nil {
		return nil, err
	}
	for _, ev := range fsc.Cluster.Events {
		events[ev.Index+1] = ev
	}
	return events, nil
}

func decodeGoals(cs []compiledGoal) ([]Goal, error) {
	if cs == nil {
		return nil, nil
	}
	out := make([]Goal, len(cs))
	for i, c := range cs {
		e, err := compiledExpr(c.Expr, c.Line)
		if err != nil {
			return nil, err
		}
		out[i] = Goal{Source: c.Source, Line: c.Line, Expr: e}
	}
	return out, nil
}

func decodeActions(cs []compiledAction, events map[int]scenario.Event) ([]Action, error) {
	if cs == nil {
		return nil, nil
	}
	out := make([]Action, len(cs))
	for i, c := range cs {
		a := Action{Kind: c.Kind, Line: c.Line, Source: c.Source, WaitMs: c.WaitMs, Pause: c.Pause,
			event: c.Event, until: c.Until}
		if c.Event != 0 {
			ev, ok := events[c.Event]
			if !ok {
				return nil, fmt.Errorf("line %d: event %d is not in the lesson's events", c.Line, c.Event-1)
			}
			a.Event = ev.Event
		}
		if c.UntilExpr != 0 {
			e, err := compiledExpr(c.UntilExpr-1, c.Line)
			if err != nil {
				return nil, err
			}
			a.Until = e
		}
		out[i] = a
	}
	return out, nil
}

// compiledExpr is compiledExprs[i], for the action or goal at line.
func compiledExpr(i, line int) (Expr, error) {
	if i < 0 || i >= len(compiledExprs) {
		return nil, fmt.Errorf("line %d: expression %d is not in the compiled table (%d)", line, i, len(compiledExprs))
	}
	return compiledExprs[i], nil
}

// CompiledCourse decodes the course compiled into this package (compiled.json): the lessons
// Course parses, without parsing Markdown. The page's wasm loads its lessons this way.
func CompiledCourse() ([]*Lesson, error) { return compiledPart(false) }

// CompiledTalks decodes the talks compiled into this package: what Talks parses.
func CompiledTalks() ([]*Lesson, error) { return compiledPart(true) }

func compiledPart(talks bool) ([]*Lesson, error) {
	all, err := DecodeCourse([]byte(compiled))
	if err != nil {
		return nil, err
	}
	return slices.DeleteFunc(all, func(l *Lesson) bool { return l.Talk != talks }), nil
}
