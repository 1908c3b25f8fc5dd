package lessons

import (
	_ "embed" // the compiled course, as a string
	"encoding/json"
	"fmt"

	"github.com/kraftlab/kraftlab/cluster/scenario"
)

// The compiled course is the course already parsed and validated, written as JSON, so that
// the page's wasm loads its lessons without the Markdown parser, the action parser and
// validation (and embed.FS, whose io/fs types keep time's formatting and parsing alive
// through interface method retention): about 0.3 MB of code and 60 KB brotli less to
// download. What stays in the wasm is what it already has (encoding/json, the scenario
// parser) and the goal-expression parser, so a decoded lesson is built by the very parses
// Parse made: the scenario from its JSON, every action's event from the same scenario
// validation built, every goal and until from its source. TestCompiledCourseIsTheCourse
// checks that decoding gives exactly what Course parses and that compiled.json is current;
// build.go writes a fresh one into each wasm build (through -overlay), so a site never
// ships a stale course.

// CompiledFile is the compiled course's file in this package's directory
// (`go run ./lessons/compile` rewrites it; build.go overlays a fresh copy).
const CompiledFile = "compiled.json"

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
}

type compiledStep struct {
	Line              int
	Title, Text, Task string
	Goals, Expects    []compiledGoal
	Hints             []string
	Reference, Play   []compiledAction
}

type compiledGoal struct {
	Source string
	Line   int
}

type compiledAction struct {
	Kind   ActionKind
	Line   int
	Source string
	// Event is 1 + the index of the action's event in the lesson's Events (0: none).
	Event  int    `json:",omitempty"`
	WaitMs int64  `json:",omitempty"`
	Until  string `json:",omitempty"`
	Pause  string `json:",omitempty"`
}

// EncodeCourse writes parsed lessons as the compiled course that DecodeCourse reads.
func EncodeCourse(course []*Lesson) ([]byte, error) {
	out := make([]compiledLesson, len(course))
	for i, l := range course {
		c := compiledLesson{File: l.File, ID: l.ID, Title: l.Title, Summary: l.Summary, Links: l.Links,
			Intro: l.Intro, Scenario: string(l.ScenarioJSON), Events: string(l.events),
			StartMs: l.StartMs, LimitMs: l.LimitMs, Steps: make([]compiledStep, len(l.Steps))}
		for j, s := range l.Steps {
			if s.Index != j {
				return nil, fmt.Errorf("%s: step %d has index %d", l.File, j, s.Index)
			}
			c.Steps[j] = compiledStep{Line: s.Line, Title: s.Title, Text: s.Text, Task: s.Task,
				Goals: encodeGoals(s.Goals), Expects: encodeGoals(s.Expects), Hints: s.Hints,
				Reference: encodeActions(s.Reference), Play: encodeActions(s.Play)}
		}
		out[i] = c
	}
	b, err := json.Marshal(out)
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

func encodeGoals(gs []Goal) []compiledGoal {
	if gs == nil {
		return nil
	}
	out := make([]compiledGoal, len(gs))
	for i, g := range gs {
		out[i] = compiledGoal{Source: g.Source, Line: g.Line}
	}
	return out
}

func encodeActions(as []Action) []compiledAction {
	if as == nil {
		return nil
	}
	out := make([]compiledAction, len(as))
	for i, a := range as {
		out[i] = compiledAction{Kind: a.Kind, Line: a.Line, Source: a.Source, Event: a.event,
			WaitMs: a.WaitMs, Until: a.until, Pause: a.Pause}
	}
	return out
}

// DecodeCourse reads a compiled course (EncodeCourse) back into lessons, parsing each
// scenario, event and goal expression as Parse did.
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
	return out, nil
}

func decodeLesson(c compiledLesson) (*Lesson, error) {
	l := &Lesson{File: c.File, ID: c.ID, Title: c.Title, Summary: c.Summary, Links: c.Links,
		Intro: c.Intro, ScenarioJSON: []byte(c.Scenario), StartMs: c.StartMs, LimitMs: c.LimitMs,
		Steps: make([]*Step, len(c.Steps))}
	sc, err := scenario.Parse(l.ScenarioJSON)
	if err != nil {
		return nil, err
	}
	if sc.Cluster == nil {
		return nil, fmt.Errorf("scenario: not a cluster-mode scenario")
	}
	l.Scenario = sc
	events := map[int]scenario.Event{}
	if c.Events != "" {
		l.events = []byte(c.Events)
		fsc, err := scenario.Parse(l.events)
		if err != nil {
			return nil, err
		}
		if fsc.Cluster == nil {
			return nil, fmt.Errorf("events: not a cluster-mode scenario")
		}
		for _, ev := range fsc.Cluster.Events {
			events[ev.Index+1] = ev
		}
	}
	for j, cs := range c.Steps {
		s := &Step{Index: j, Line: cs.Line, Title: cs.Title, Text: cs.Text, Task: cs.Task, Hints: cs.Hints}
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
		l.Steps[j] = s
	}
	return l, nil
}

func decodeGoals(cs []compiledGoal) ([]Goal, error) {
	if cs == nil {
		return nil, nil
	}
	out := make([]Goal, len(cs))
	for i, c := range cs {
		e, err := ParseExpr(c.Source)
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", c.Line, err)
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
		if c.Until != "" {
			e, err := ParseExpr(c.Until)
			if err != nil {
				return nil, fmt.Errorf("line %d: %w", c.Line, err)
			}
			a.Until = e
		}
		out[i] = a
	}
	return out, nil
}

// CompiledCourse decodes the course compiled into this package (compiled.json): the lessons
// Course parses, without parsing Markdown. The page's wasm loads its lessons this way.
func CompiledCourse() ([]*Lesson, error) { return DecodeCourse([]byte(compiled)) }
