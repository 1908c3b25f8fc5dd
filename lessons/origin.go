package lessons

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Origin is where a talk's scene starts when it does not follow the scenes before it: the
// checkpoint of a lesson of the course at a step ("from: 06-the-wait-for-sync-gate step 3"),
// the state a learner finds when opening that step, rebuilt the same way every time. The scenes
// after it, up to the next one with an origin, continue from where it ends. docs/talks.md.
type Origin struct {
	// Lesson is the course lesson's ID; Step its step, counted from 1 as links count; Line the
	// from: line.
	Lesson string
	Step   int
	Line   int

	// lesson is the course lesson, resolved; events is the scenario validation parsed the
	// segment's actions in (the lesson's scenario, its steps' reference actions before Step and
	// the segment's scenes), which a compiled talk carries as a lesson carries its own.
	lesson *Lesson
	events []byte
}

// parseOrigin reads a from: line's value: a lesson's ID or file name, "step", a step number.
func parseOrigin(val string, line int) (*Origin, error) {
	f := strings.Fields(val)
	if len(f) != 3 || f[1] != "step" {
		return nil, fmt.Errorf(`write it as "from: LESSON step N" (from: 06-the-wait-for-sync-gate step 3), got %q`, val)
	}
	n, err := strconv.Atoi(f[2])
	if err != nil || n < 1 {
		return nil, fmt.Errorf("the step is counted from 1, as in a lesson link; got %q", f[2])
	}
	return &Origin{Lesson: strings.TrimSuffix(f[0], ".md"), Step: n, Line: line}, nil
}

// StartOf says how step i's starting state is built (Checkpoint builds it): Base's cluster
// with the reference actions of Base's first BaseSteps steps played, then those of this
// lesson's steps From to i-1. For a lesson, and a talk scene that no from: line precedes, Base
// is the lesson itself, BaseSteps is i and there is nothing more.
type StartOf struct {
	Base      *Lesson
	BaseSteps int
	From      int
}

// StartOf returns how step i starts.
func (l *Lesson) StartOf(i int) StartOf {
	for j := i; j >= 0; j-- {
		if o := l.Steps[j].From; o != nil {
			return StartOf{Base: o.lesson, BaseSteps: o.Step - 1, From: j}
		}
	}
	return StartOf{Base: l, BaseSteps: i, From: i}
}

// validateTalk validates a talk whose scenes may start from lesson checkpoints: the scenes
// before the first from: line against the talk's own scenario, as a lesson's steps are, and
// each segment that starts from a checkpoint against that lesson's scenario and the reference
// actions before the step, so that every action and predicate is checked against the cluster
// it will play on.
func validateTalk(l *Lesson, p *lessonParser) error {
	all := l.Steps
	first := slices.IndexFunc(all, func(s *Step) bool { return s.From != nil })
	if first < 0 {
		return validate(l, p)
	}
	l.Steps = all[:first]
	err := validate(l, p)
	l.Steps = all
	if err != nil {
		return err
	}
	for k := first; k < len(all); {
		end := k + 1
		for end < len(all) && all[end].From == nil {
			end++
		}
		if err := validateSegment(l, p, all[k:end]); err != nil {
			return err
		}
		k = end
	}
	return nil
}

// validateSegment resolves the origin of scenes[0] and validates the scenes from there.
func validateSegment(l *Lesson, p *lessonParser, scenes []*Step) error {
	o := scenes[0].From
	src, err := LoadCourseLesson(o.Lesson)
	if err != nil {
		names, _ := CourseFiles()
		for i := range names {
			names[i] = strings.TrimSuffix(names[i], ".md")
		}
		return p.errf(o.Line, "from: %q is not a lesson of the course (lessons: %s)", o.Lesson, strings.Join(names, ", "))
	}
	if o.Step > len(src.Steps) {
		return p.errf(o.Line, "from: lesson %s has steps 1 to %d, not %d", src.ID, len(src.Steps), o.Step)
	}
	// A lesson of its own for validation: the course lesson's scenario, the reference actions
	// before the step (copies: validation numbers their events in this segment's scenario),
	// then the scenes.
	seg := &Lesson{File: l.File, ID: l.ID, Talk: true, ScenarioJSON: src.ScenarioJSON, StartMs: src.StartMs}
	for _, s := range src.Steps[:o.Step-1] {
		seg.Steps = append(seg.Steps, &Step{Index: s.Index, Line: s.Line, Title: s.Title, Reference: slices.Clone(s.Reference)})
	}
	seg.Steps = append(seg.Steps, scenes...)
	if err := validate(seg, p); err != nil {
		return err
	}
	o.lesson, o.events = src, seg.events
	return nil
}
