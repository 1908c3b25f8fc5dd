package main

import (
	"flag"
	"fmt"

	"github.com/kraftlab/kraftlab/lessons"
)

type lessonOptions struct {
	verbose bool
	talk    bool
}

// lessonArgs is lesson's synopsis, also quoted by its usage errors.
const lessonArgs = "check [-v] [-talk] [FILE...]"

var lessonCommand = &command{
	name:    "lesson",
	args:    lessonArgs,
	summary: "Check lessons: parse them, then play every step's reference actions and check its goals.",
	help: `Without FILE, checks the course built into kraftlab (lessons/course) and its talks
(lessons/talks); with -talk, the FILEs are talks. For each lesson it
parses the file and its scenario, then, from each step's start, checks that no goal holds yet,
plays the step's reference actions headlessly and checks that every goal and expect: line then
holds and that exactly one option of its prediction holds (for a prediction answered on the
timeline, that its answer is within its tolerance of the moment the run gives); it replays
every other solution:
(each must reach the goals) and every reject: (a wrong attempt, which must not). It prints one "ok" line per good lesson; a problem is one line on stderr with the file
and line ("lessons/course/03-elr.md:42: goal: unknown predicate ..."), and the exit status is 2.

A talk's scenes are replayed the same way, each from the end of the one before (or from the
lesson checkpoint its from: line names), and the numbers its captions quote (its expect:
lines) checked.

  -v      also print each step's times and the value behind every goal, to quote in the text
  -talk   the FILEs are talks (docs/talks.md), not lessons

docs/lessons.md describes the lesson format and the predicate vocabulary, docs/talks.md talks.
`,
	flags: func(fs *flag.FlagSet) any {
		o := &lessonOptions{}
		fs.BoolVar(&o.verbose, "v", false, "print each step's times and goal values")
		fs.BoolVar(&o.talk, "talk", false, "the files are talks")
		return o
	},
	main: lessonMain,
}

func lessonMain(e *env, opts any, args []string) int {
	o := opts.(*lessonOptions)
	if len(args) == 0 || args[0] != "check" {
		return usageError(e, "kraftlab lesson: want a subcommand: check (usage: kraftlab lesson %s)", lessonArgs)
	}
	files := args[1:]
	var load []func() (*lessons.Lesson, error)
	if len(files) == 0 {
		names, err := lessons.CourseFiles()
		if err != nil {
			fmt.Fprintf(e.stderr, "kraftlab lesson check: %v\n", err)
			return exitFailure
		}
		for _, n := range names {
			load = append(load, func() (*lessons.Lesson, error) { return lessons.LoadCourseLesson(n) })
		}
		talks, err := lessons.Talks()
		if err != nil {
			fmt.Fprintln(e.stderr, err)
			return exitUsage
		}
		for _, t := range talks {
			load = append(load, func() (*lessons.Lesson, error) { return t, nil })
		}
	}
	for _, f := range files {
		if o.talk {
			load = append(load, func() (*lessons.Lesson, error) { return lessons.LoadTalkFile(f) })
		} else {
			load = append(load, func() (*lessons.Lesson, error) { return lessons.LoadFile(f) })
		}
	}
	status := exitOK
	for _, ld := range load {
		l, err := ld()
		if err == nil {
			var trace = e.stdout
			if !o.verbose {
				trace = nil
			}
			err = lessons.VerifyTrace(l, trace)
		}
		if err != nil {
			fmt.Fprintln(e.stderr, err)
			status = exitUsage
			continue
		}
		fmt.Fprintf(e.stdout, "ok  %s: %s\n", l.File, lessonCounts(l))
	}
	return status
}

// lessonCounts says what check replayed: "5 steps, 1 prediction, 2 solutions, 1 rejected attempt".
func lessonCounts(l *lessons.Lesson) string {
	var predictions, timed, solutions, rejects int
	for _, s := range l.Steps {
		if s.Predict != nil {
			predictions++
			if s.Predict.Timed() {
				timed++
			}
		}
		solutions += len(s.Solutions)
		rejects += len(s.Rejects)
	}
	if l.Talk {
		expects := 0
		for _, s := range l.Steps {
			expects += len(s.Expects)
		}
		return plural(len(l.Steps), "scene", "scenes") + ", " + plural(expects, "caption figure checked", "caption figures checked")
	}
	out := plural(len(l.Steps), "step", "steps")
	if predictions+solutions+rejects > 0 {
		out += ", " + plural(predictions, "prediction", "predictions")
		if timed > 0 {
			out += fmt.Sprintf(" (%d on the timeline)", timed)
		}
		out += ", " + plural(solutions, "other solution", "other solutions") +
			", " + plural(rejects, "rejected attempt", "rejected attempts")
	}
	return out
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}
