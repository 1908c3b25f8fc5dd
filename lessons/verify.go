package lessons

import (
	"fmt"
	"io"
	"strings"
)

// Verify checks a lesson the way the course test does, headlessly: from each step's start it
// checks that no goal already holds, plays the reference actions (bounded by the lesson's
// LimitMs) and checks that every goal and expectation then holds; a step's play: list must
// run from the step's start without error too. The first failure is returned with its line.
func Verify(l *Lesson) error { return VerifyTrace(l, nil) }

// VerifyTrace is Verify that also writes, when trace is not nil, each step's start and end time
// and its goals' explanations: what an author reads to quote the simulation's numbers.
func VerifyTrace(l *Lesson, trace io.Writer) error {
	c, err := l.Build()
	if err != nil {
		return err
	}
	for i, s := range l.Steps {
		if s.From != nil {
			// A scene that starts from a lesson's checkpoint (origin.go).
			if c, _, err = l.Checkpoint(i); err != nil {
				return err
			}
		}
		m := MarkNow(c)
		for _, r := range s.Check(c, m) {
			if r.Holds {
				return &Error{File: l.File, Line: r.Line, Msg: fmt.Sprintf("goal: %q already holds at the start of step %d %q (%s); a goal must be something the step achieves", r.Goal, i+1, s.Title, r.Explain)}
			}
		}
		if len(s.Play) > 0 {
			pc, pm, err := l.Checkpoint(i)
			if err != nil {
				return err
			}
			for k := 0; k < len(s.Play); {
				n, err := l.Play(pc, s.Play[k:], pm)
				if err != nil {
					return err
				}
				k += n + 1 // past the pause
			}
		}
		if err := l.verifyAttempts(i, trace); err != nil {
			return err
		}
		var watch *Watch
		if q := s.Predict; q != nil && q.Timed() {
			watch = NewWatch(q.When)
			if watch.Poll(c, m); !watch.Pending() {
				return &Error{File: l.File, Line: q.WhenLine, Msg: fmt.Sprintf("when: %q already holds at the start of step %d %q; the moment to predict must come later", q.WhenSource, i+1, s.Title)}
			}
		}
		if _, err := l.PlayWatching(c, s.Reference, m, watch); err != nil {
			return err
		}
		for _, r := range s.Check(c, m) {
			if !r.Holds {
				return &Error{File: l.File, Line: r.Line, Msg: fmt.Sprintf("goal: %q does not hold after the reference actions of step %d %q, at %d ms (%s)", r.Goal, i+1, s.Title, c.Now(), r.Explain)}
			}
		}
		if q := s.Predict; q != nil && q.Timed() {
			if err := l.verifyMoment(i, watch, m); err != nil {
				return err
			}
			if trace != nil {
				fmt.Fprintf(trace, "  prediction line %d: %q first holds at step time %d ms (time %d ms); answer: %d ms, tolerance: %d ms\n", q.Line, q.WhenSource, watch.AtMs-m.TimeMs, watch.AtMs, q.AnswerMs, q.ToleranceMs)
			}
		} else if q != nil {
			answer, why := q.Answer(c, m)
			if answer < 0 {
				return &Error{File: l.File, Line: q.Line, Msg: fmt.Sprintf("predict: after the reference actions of step %d %q exactly one option must hold, at %d ms (%s)", i+1, s.Title, c.Now(), strings.Join(why, "; "))}
			}
			if trace != nil {
				fmt.Fprintf(trace, "  prediction line %d: the answer is %q (%s)\n", q.Line, q.Options[answer].Label, why[answer])
			}
		}
		if trace != nil {
			fmt.Fprintf(trace, "%s step %d %q: %d ms to %d ms\n", l.ID, i+1, s.Title, m.TimeMs, c.Now())
			for _, r := range append(s.Check(c, m), s.CheckExpects(c, m)...) {
				fmt.Fprintf(trace, "  line %d: %s\n", r.Line, r.Explain)
			}
		}
		for _, r := range s.CheckExpects(c, m) {
			if !r.Holds {
				return &Error{File: l.File, Line: r.Line, Msg: fmt.Sprintf("expect: %q does not hold after the reference actions of step %d %q, at %d ms (%s)", r.Goal, i+1, s.Title, c.Now(), r.Explain)}
			}
		}
	}
	return nil
}

// verifyAttempts replays a challenge's other solutions and wrong attempts from step i's
// checkpoint: each solution must reach every goal, each wrong attempt must play without error
// and leave at least one goal unmet.
func (l *Lesson) verifyAttempts(i int, trace io.Writer) error {
	s := l.Steps[i]
	for k, acts := range append(append([][]Action{}, s.Solutions...), s.Rejects...) {
		solution := k < len(s.Solutions)
		c, m, err := l.Checkpoint(i)
		if err != nil {
			return err
		}
		if _, err := l.Play(c, acts, m); err != nil {
			return err
		}
		rs := s.Check(c, m)
		line := acts[0].Line - 1
		switch {
		case solution && !Done(rs):
			for _, r := range rs {
				if !r.Holds {
					return &Error{File: l.File, Line: line, Msg: fmt.Sprintf("solution: goal %q does not hold after it, at %d ms (%s); a solution must reach every goal of step %d %q", r.Goal, c.Now(), r.Explain, i+1, s.Title)}
				}
			}
		case !solution && Done(rs):
			return &Error{File: l.File, Line: line, Msg: fmt.Sprintf("reject: this wrong attempt reaches every goal of step %d %q at %d ms; the check would accept it, so either the goals are too loose or the attempt is not wrong", i+1, s.Title, c.Now())}
		}
		if trace != nil {
			kind := "solution"
			if !solution {
				kind = "rejected attempt"
			}
			fmt.Fprintf(trace, "  %s line %d: %d ms to %d ms\n", kind, line, m.TimeMs, c.Now())
			for _, r := range rs {
				fmt.Fprintf(trace, "    %s\n", r.Explain)
			}
		}
	}
	return nil
}

// verifyMoment checks a timed prediction against the reference run: its moment came, within
// the learner's timeline, and the author's answer is within the tolerance of it.
func (l *Lesson) verifyMoment(i int, w *Watch, m Mark) error {
	s := l.Steps[i]
	q := s.Predict
	if w.Pending() {
		return &Error{File: l.File, Line: q.WhenLine, Msg: fmt.Sprintf("when: %q never holds while the reference actions of step %d %q play", q.WhenSource, i+1, s.Title)}
	}
	at := w.AtMs - m.TimeMs
	if at > q.SpanMs {
		return &Error{File: l.File, Line: q.Line, Msg: fmt.Sprintf("timeline: %q first holds at step time %d ms, past the timeline's %d ms; the learner could not mark it", q.WhenSource, at, q.SpanMs)}
	}
	if off := max(at-q.AnswerMs, q.AnswerMs-at); off > q.ToleranceMs {
		return &Error{File: l.File, Line: q.Line, Msg: fmt.Sprintf("answer: %d ms is %d ms from the moment %q first holds in the reference run of step %d %q (step time %d ms, time %d ms); the tolerance is %d ms", q.AnswerMs, off, q.WhenSource, i+1, s.Title, at, w.AtMs, q.ToleranceMs)}
	}
	return nil
}
