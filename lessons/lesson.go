package lessons

import (
	"fmt"

	"github.com/kraftlab/kraftlab/cluster"
	"github.com/kraftlab/kraftlab/cluster/scenario"
)

// Lesson is a parsed and validated lesson.
type Lesson struct {
	// File is the name errors use (lessons/course/03-elr.md); ID is the file's base name
	// without .md (03-elr), which links use.
	File, ID string
	Title    string
	// Summary is one line for the lesson index.
	Summary string
	// Links are the KIPs and Kafka docs the lesson draws on.
	Links []Link
	// Intro is the Markdown before the first step, without the scenario block.
	Intro string
	// ScenarioJSON is the starting scenario as written; Scenario its parsed form (cluster
	// mode). Its events, if any, play before the first step.
	ScenarioJSON []byte
	Scenario     *scenario.Scenario
	// StartMs is when the first step starts: the header's start_ms, or the last setup event.
	StartMs int64
	// LimitMs is the scenario's duration_ms: no playback runs past it.
	LimitMs int64
	Steps   []*Step
	// Talk: this is a talk (talk.go), its steps scenes.
	Talk bool

	// events is the scenario validation parsed every event action in (the starting scenario
	// with the actions added as events), nil when the lesson has no event action; a compiled
	// course carries it so that its actions' events come out of the same parse (compiled.go).
	events []byte
}

// Link is a reference the lesson draws on.
type Link struct {
	Title, URL string
}

// Step is one step of a lesson.
type Step struct {
	// Index is the step's position, from 0; Line its heading's line.
	Index int
	Line  int
	Title string
	// Text is the step's Markdown; Task what the learner is asked to do.
	Text string
	Task string
	// Goals must all hold for the step to be done; none may hold at the step's start. A step
	// without goals is a sandbox.
	Goals []Goal
	// Expects are facts that must hold once the reference actions have played (the numbers
	// the text quotes), without the rule that they are false at the step's start.
	Expects []Goal
	Hints   []string
	// Reference reaches the goals from the step's start; the next step starts where it ends.
	Reference []Action
	// Play is what the step plays itself (a scripted demo), with pauses where the text asks a
	// question. It does not change the next step's checkpoint, which is the reference's.
	Play []Action
	// Predict is the question asked before the step's run plays, if any.
	Predict *Prediction
	// Solutions are other correct ways to the goals besides the reference (a challenge);
	// Rejects are wrong attempts that must not reach them. Verify replays both.
	Solutions, Rejects [][]Action
	// Caption is a talk scene's caption (Markdown, one paragraph), "" in a lesson.
	Caption string
	// From is where a talk's scene starts when not where the scene before it ended: a lesson's
	// checkpoint (origin.go). nil in a lesson.
	From *Origin
	// Picture is the state the reference reaches, as the page draws the goal: set by the
	// compiled course (GoalPictures), nil for a sandbox and in a lesson parsed from Markdown.
	Picture *Picture
}

// Sandbox reports whether the step has no goal: the learner explores freely.
func (s *Step) Sandbox() bool { return len(s.Goals) == 0 }

// Goal is one goal or expectation: its source text, line and parsed expression.
type Goal struct {
	Source string
	Line   int
	Expr   Expr
}

// ActionKind says what an Action does.
type ActionKind int

// The kinds of action.
const (
	// ActEvent applies a cluster event (kill, start, set_config...) at the current time.
	ActEvent ActionKind = iota
	// ActWait lets WaitMs of simulated time pass.
	ActWait
	// ActUntil lets time pass until Until holds, at most WaitMs; it fails if it never does.
	ActUntil
	// ActPause stops a scripted demo where the text asks a question (Play only).
	ActPause
)

// Action is one reference or play action.
type Action struct {
	Kind   ActionKind
	Line   int
	Source string
	Event  cluster.Event
	WaitMs int64
	Until  Expr
	// Pause is the question a pause asks.
	Pause string

	// raw is an event action as a scenario event object (without at_ms), which validation
	// parses with the scenario format's own rules.
	raw map[string]any
	// event is 1 + the index of this action's event in the lesson's events (0: none).
	event int
	// until is the source of Until, as ParseExpr read it.
	until string
}

// GoalResult is one goal's truth now, with a short explanation of the current value.
type GoalResult struct {
	Goal    string
	Line    int
	Holds   bool
	Explain string
}

// Check evaluates the step's goals against the cluster now, counting from the step's start m.
func (s *Step) Check(c *cluster.Cluster, m Mark) []GoalResult {
	return check(s.Goals, c, m)
}

// CheckExpects evaluates the step's expectations, as Check does its goals.
func (s *Step) CheckExpects(c *cluster.Cluster, m Mark) []GoalResult {
	return check(s.Expects, c, m)
}

func check(goals []Goal, c *cluster.Cluster, m Mark) []GoalResult {
	out := make([]GoalResult, len(goals))
	for i, g := range goals {
		ok, why := Eval(g.Expr, c, m)
		out[i] = GoalResult{Goal: g.Source, Line: g.Line, Holds: ok, Explain: why}
	}
	return out
}

// Done reports whether every result holds (and there is at least one).
func Done(rs []GoalResult) bool {
	for _, r := range rs {
		if !r.Holds {
			return false
		}
	}
	return len(rs) > 0
}

// Error is a problem in a lesson file, at a line: "lessons/course/03-elr.md:42: goal: ...".
type Error struct {
	File string
	Line int
	Msg  string
}

// Error returns "file:line: message".
func (e *Error) Error() string {
	if e.Line <= 0 {
		return fmt.Sprintf("%s: %s", e.File, e.Msg)
	}
	return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
}
