package lessons

import (
	"fmt"

	"github.com/kraftlab/kraftlab/cluster"
)

// UntilPollMs is how often an until action checks its predicate: the moment it reports is
// within this many milliseconds after the predicate became true.
const UntilPollMs = 10

// Build builds the lesson's cluster from its scenario and plays the scenario's own events, up
// to the first step's start.
func (l *Lesson) Build() (*cluster.Cluster, error) {
	c, err := cluster.New(l.Scenario.Cluster.Spec)
	if err != nil {
		return nil, &Error{File: l.File, Msg: "scenario: " + err.Error()}
	}
	for _, ev := range l.Scenario.Cluster.Events {
		if err := c.RunUntil(ev.AtMs); err != nil {
			return nil, l.runErr(0, "scenario: events[%d]: the cluster stopped at %d ms: %v", ev.Index, c.Now(), err)
		}
		if err := c.Do(ev.Event); err != nil {
			return nil, l.runErr(0, "scenario: events[%d] (%s at %d ms) was refused: %v", ev.Index, ev.Op, ev.AtMs, err)
		}
	}
	if err := c.RunUntil(l.StartMs); err != nil {
		return nil, l.runErr(0, "scenario: the cluster stopped at %d ms: %v", c.Now(), err)
	}
	return c, nil
}

// Checkpoint builds the cluster as it stands at the start of step i: the scenario, then the
// reference actions of steps 0 to i-1. The same lesson gives the same checkpoint every time,
// so back, forward and a link to step i all land in the same state. The Mark is step i's start.
//
// A talk's scene that starts from a lesson's checkpoint (a from: line, origin.go) starts from
// that checkpoint instead, followed by the scenes between it and scene i.
func (l *Lesson) Checkpoint(i int) (*cluster.Cluster, Mark, error) {
	if i < 0 || i >= len(l.Steps) {
		return nil, Mark{}, &Error{File: l.File, Msg: fmt.Sprintf("step %d does not exist (steps: 0 to %d)", i, len(l.Steps)-1)}
	}
	st := l.StartOf(i)
	c, err := st.Base.Build()
	if err != nil {
		return nil, Mark{}, err
	}
	for _, s := range st.Base.Steps[:st.BaseSteps] {
		if _, err := st.Base.Play(c, s.Reference, MarkNow(c)); err != nil {
			return nil, Mark{}, err
		}
	}
	for _, s := range l.Steps[st.From:i] {
		if _, err := l.Play(c, s.Reference, MarkNow(c)); err != nil {
			return nil, Mark{}, err
		}
	}
	return c, MarkNow(c), nil
}

// Play runs actions from the cluster's present, counting from the step start m, and returns
// how many it ran: all of them, or up to (not including) the first pause, which the caller
// resumes by playing the rest after it. No action runs the cluster past the lesson's
// LimitMs; an event the cluster refuses, an until whose predicate never holds in time and an
// invariant violation are errors that carry the action's line.
func (l *Lesson) Play(c *cluster.Cluster, acts []Action, m Mark) (int, error) {
	for i, a := range acts {
		if a.Kind == ActPause {
			return i, nil
		}
		if err := l.Apply(c, a, m); err != nil {
			return i, err
		}
	}
	return len(acts), nil
}

// Watch records the first moment an expression holds while time passes: a timed prediction's
// answer. It is polled every UntilPollMs of cluster time, as an until action polls, so the
// moment it reports is within UntilPollMs after the expression became true.
type Watch struct {
	Expr Expr
	// AtMs is the cluster time at which Expr first held, -1 until then.
	AtMs int64
}

// NewWatch watches for the first moment e holds.
func NewWatch(e Expr) *Watch { return &Watch{Expr: e, AtMs: -1} }

// Pending reports whether the moment is still to come (a nil Watch watches nothing).
func (w *Watch) Pending() bool { return w != nil && w.AtMs < 0 }

// Poll checks the expression now, counting from the step start m, and records the moment the
// first time it holds. A nil Watch does nothing.
func (w *Watch) Poll(c *cluster.Cluster, m Mark) {
	if w.Pending() {
		if Holds(w.Expr, c, m) {
			w.AtMs = c.Now()
		}
	}
}

// Apply runs one action: an event now, a wait, or an until (a pause does nothing).
func (l *Lesson) Apply(c *cluster.Cluster, a Action, m Mark) error {
	return l.ApplyWatching(c, a, m, nil)
}

// PlayWatching is Play that polls w while the actions let time pass.
func (l *Lesson) PlayWatching(c *cluster.Cluster, acts []Action, m Mark, w *Watch) (int, error) {
	for i, a := range acts {
		if a.Kind == ActPause {
			return i, nil
		}
		if err := l.ApplyWatching(c, a, m, w); err != nil {
			return i, err
		}
	}
	return len(acts), nil
}

// ApplyWatching is Apply that polls w (when not nil) after an event and every UntilPollMs of
// a wait or an until, until its moment has come.
func (l *Lesson) ApplyWatching(c *cluster.Cluster, a Action, m Mark, w *Watch) error {
	defer w.Poll(c, m)
	switch a.Kind {
	case ActEvent:
		if err := c.Do(a.Event); err != nil {
			return l.runErr(a.Line, "%q was refused at %d ms: %v", a.Source, c.Now(), err)
		}
		if err := c.Err(); err != nil {
			return l.runErr(a.Line, "%q: the cluster stopped: %v", a.Source, err)
		}
	case ActWait:
		to := c.Now() + a.WaitMs
		if to > l.LimitMs {
			return l.runErr(a.Line, "%q would run to %d ms, past the lesson's limit (the scenario's duration_ms, %d)", a.Source, to, l.LimitMs)
		}
		for w.Pending() && c.Now() < to {
			if err := c.RunUntil(min(c.Now()+UntilPollMs, to)); err != nil {
				return l.runErr(a.Line, "%q: the cluster stopped at %d ms: %v", a.Source, c.Now(), err)
			}
			w.Poll(c, m)
		}
		if err := c.RunUntil(to); err != nil {
			return l.runErr(a.Line, "%q: the cluster stopped at %d ms: %v", a.Source, c.Now(), err)
		}
	case ActUntil:
		deadline := min(c.Now()+a.WaitMs, l.LimitMs)
		for {
			w.Poll(c, m)
			if Holds(a.Until, c, m) {
				return nil
			}
			if c.Now() >= deadline {
				_, why := Eval(a.Until, c, m)
				return l.runErr(a.Line, "%q: still false at %d ms (%s)", a.Source, c.Now(), why)
			}
			if err := c.RunUntil(min(c.Now()+UntilPollMs, deadline)); err != nil {
				return l.runErr(a.Line, "%q: the cluster stopped at %d ms: %v", a.Source, c.Now(), err)
			}
		}
	}
	return nil
}

func (l *Lesson) runErr(line int, format string, args ...any) error {
	return &Error{File: l.File, Line: line, Msg: fmt.Sprintf(format, args...)}
}
