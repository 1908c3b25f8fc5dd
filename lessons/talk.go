package lessons

import (
	"embed"
	"io/fs"
	"path"
	"slices"
	"strings"
)

// A talk is a lesson's sibling for a speaker (docs/talks.md): the same header and starting
// scenario, and scenes instead of steps. A scene has a caption, shown in large type in
// presenter mode, and a play: list of actions; its starting state is the scenario followed by
// the earlier scenes' play lists, replayed, so every scene starts and plays the same way every
// time, wherever the speaker jumps to. expect: lines check the numbers its caption quotes
// once its play list has run. A talk is a *Lesson whose Talk is set: each Step is a scene, its
// Caption the caption and its Reference the play list, so Checkpoint, Play and Verify work on
// it unchanged.

//go:embed talks/*
var talksFS embed.FS

// TalksDir is the talks' directory in the repository, as errors name talk files.
const TalksDir = "lessons/talks"

// ParseTalk reads and validates a talk, as Parse does a lesson.
func ParseTalk(file string, data []byte, open Opener) (*Lesson, error) {
	return parse(file, data, open, true)
}

// Talks loads every embedded talk, in file-name order.
func Talks() ([]*Lesson, error) {
	ents, err := fs.ReadDir(talksFS, "talks")
	if err != nil {
		return nil, err
	}
	var names []string
	for _, e := range ents {
		if !e.IsDir() && strings.HasSuffix(e.Name(), ".md") {
			names = append(names, e.Name())
		}
	}
	slices.Sort(names)
	var out []*Lesson
	for _, n := range names {
		data, err := talksFS.ReadFile("talks/" + n)
		if err != nil {
			return nil, err
		}
		t, err := ParseTalk(path.Join(TalksDir, n), data, func(ref string) ([]byte, error) { return talksFS.ReadFile("talks/" + ref) })
		if err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, nil
}

// LoadTalkFile loads a talk from disk, for authors (kraftlab lesson check --talk FILE).
func LoadTalkFile(file string) (*Lesson, error) {
	return loadFile(file, "talk", ParseTalk)
}

// Compiled is everything the page's wasm loads: the course's lessons, then the talks.
func Compiled() ([]*Lesson, error) {
	course, err := Course()
	if err != nil {
		return nil, err
	}
	talks, err := Talks()
	if err != nil {
		return nil, err
	}
	return append(course, talks...), nil
}

// lessonOnlyKeys are the step parts a talk's scene does not have.
var lessonOnlyKeys = []string{"do", "goal", "hint", "predict", "option", "when", "answer", "tolerance", "timeline", "reveal", "reference", "solution", "reject"}

// hasDigit reports whether a caption quotes a number, which an expect: line must then check.
func hasDigit(s string) bool { return strings.ContainsAny(s, "0123456789") }
