//go:build !js

package wasm

import (
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestJavaScriptStaysBehindTheBoundary enforces the rule of this room: nothing in the module
// imports syscall/js (safejs wraps it, turning JavaScript exceptions into errors), and only
// packages under wasm/ import safejs. It parses the imports of every Go file in the module,
// whatever its build tags, so a js-only file cannot hide from it.
func TestJavaScriptStaysBehindTheBoundary(t *testing.T) {
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("module root not found at %s: %v", root, err)
	}
	files := 0
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if path != root && (strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") ||
				name == "testdata" || name == "node_modules" || name == "dist" || name == "test-output") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(name, ".go") {
			return nil
		}
		files++
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			switch {
			case p == "syscall/js":
				t.Errorf("%s imports syscall/js; use github.com/hack-pad/safejs inside wasm/", rel)
			case p == "github.com/hack-pad/safejs" || strings.HasPrefix(p, "github.com/hack-pad/safejs/"):
				if !strings.HasPrefix(rel, "wasm/") {
					t.Errorf("%s imports safejs; only wasm/ may touch JavaScript", rel)
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 5 {
		t.Fatalf("only %d Go files seen under %s: the walk is broken", files, root)
	}
}
