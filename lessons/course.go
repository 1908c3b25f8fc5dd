package lessons

import (
	"embed"
	"errors"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
)

// courseFS holds the course: one Markdown file per lesson, in order by name, and any scenario
// files they refer to.
//
//go:embed course/*
var courseFS embed.FS

// CourseDir is the course's directory in the repository, as errors name lesson files.
const CourseDir = "lessons/course"

// Course loads every embedded lesson, in file-name order. The first invalid lesson is the
// error; the course test keeps it from ever happening in a build.
func Course() ([]*Lesson, error) {
	names, err := CourseFiles()
	if err != nil {
		return nil, err
	}
	var out []*Lesson
	for _, n := range names {
		l, err := LoadCourseLesson(n)
		if err != nil {
			return nil, err
		}
		out = append(out, l)
	}
	return out, nil
}

// CourseFiles lists the embedded lessons' file names (01-electing-a-new-leader.md ...), in order.
func CourseFiles() ([]string, error) {
	ents, err := fs.ReadDir(courseFS, "course")
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
	return names, nil
}

// LoadCourseLesson loads one embedded lesson by file name or ID (03-elr.md or 03-elr).
func LoadCourseLesson(name string) (*Lesson, error) {
	if !strings.HasSuffix(name, ".md") {
		name += ".md"
	}
	data, err := courseFS.ReadFile("course/" + name)
	if err != nil {
		return nil, &Error{File: path.Join(CourseDir, name), Msg: "no such lesson in the course"}
	}
	return Parse(path.Join(CourseDir, name), data, func(ref string) ([]byte, error) {
		return courseFS.ReadFile("course/" + ref)
	})
}

// LoadFile loads a lesson from disk, for authors (kraftlab lesson check FILE): scenario files
// it names are read from its directory.
func LoadFile(file string) (*Lesson, error) {
	return loadFile(file, "lesson", Parse)
}

// loadFile reads file (a lesson or a talk, what says which) and parses it with parse, reading
// the scenario files it names from its directory.
func loadFile(file, what string, parse func(string, []byte, Opener) (*Lesson, error)) (*Lesson, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return nil, &Error{File: file, Msg: "cannot read the " + what + ": " + err.Error()}
	}
	dir := filepath.Dir(file)
	return parse(file, data, func(ref string) ([]byte, error) {
		return os.ReadFile(filepath.Join(dir, filepath.FromSlash(ref)))
	})
}
