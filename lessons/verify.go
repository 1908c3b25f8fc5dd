package lessons

import (
	"fmt"
	"io"
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
		if _, err := l.Play(c, s.Reference, m); err != nil {
			return err
		}
		for _, r := range s.Check(c, m) {
			if !r.Holds {
				return &Error{File: l.File, Line: r.Line, Msg: fmt.Sprintf("goal: %q does not hold after the reference actions of step %d %q, at %d ms (%s)", r.Goal, i+1, s.Title, c.Now(), r.Explain)}
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
