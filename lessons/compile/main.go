// Command compile writes lessons/compiled.json and lessons/compiled_exprs.go, the compiled
// course the page's wasm loads
// (lessons.CompiledCourse): run `go run ./lessons/compile` from the module root after changing
// a lesson. TestCompiledCourseIsTheCourse fails until it is current, and build.go compiles
// a fresh copy into every wasm build in any case.
package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/kraftlab/kraftlab/lessons"
)

func main() {
	course, err := lessons.Compiled()
	if err == nil {
		var data, exprs []byte
		if data, exprs, err = lessons.EncodeCourse(course); err == nil {
			err = errors.Join(os.WriteFile(filepath.Join("lessons", lessons.CompiledFile), data, 0o644),
				os.WriteFile(filepath.Join("lessons", lessons.CompiledExprsFile), exprs, 0o644))
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "compile:", err)
		os.Exit(1)
	}
}
