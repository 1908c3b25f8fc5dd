package kraftlab_test

import (
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const module = "github.com/kraftlab/kraftlab/"

// mayImport is the import rule: imports flow one way, engine ← cluster ← lab, lessons ← wasm,
// cmd, web. The page talks to wasm only through messages; web's Go code is the tools around
// it (web/build compiles the wasm programs and the course, web/tsgen writes the message types
// from the Go types), so it may name them. Each top-level directory lists the top-level directories
// of this module its code may import; its own is always allowed. internal/ holds helpers
// (memory hints, the wasm shrinker) that import nothing of the project.
var mayImport = map[string][]string{
	"engine":   {},
	"internal": {},
	"cluster":  {"engine", "internal"},
	"lab":      {"engine", "cluster", "internal"},
	"lessons":  {"engine", "cluster", "internal"},
	"wasm":     {"engine", "cluster", "lab", "lessons", "internal"},
	"cmd":      {"engine", "cluster", "lab", "lessons", "internal"},
	"web":      {"engine", "cluster", "lab", "lessons", "wasm", "internal"},
}

// stdlibOnly are the directories whose non-test code imports nothing outside the standard
// library and this module: the model runs the same natively and in the browser, and a reader
// needs nothing but Go to follow it.
var stdlibOnly = []string{"engine", "internal", "cluster", "lab", "lessons"}

// TestImportsFlowOneWay parses the imports of every non-test Go file of the module, whatever
// its build tags (so a js-only file cannot hide), and fails on an import against mayImport or
// stdlibOnly. Tests may import what they check with: testify, or a higher layer that drives
// the package (cluster's load test runs lab's preset).
func TestImportsFlowOneWay(t *testing.T) {
	files := 0
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != "." && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || d.Name() == "node_modules" || d.Name() == "dist") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") {
			return nil
		}
		path = filepath.ToSlash(path)
		top, _, nested := strings.Cut(path, "/")
		if !nested {
			return nil // build.go and the repository-wide tests
		}
		allowed, known := mayImport[top]
		if !assert.True(t, known, "%s: top-level directory %s is not in mayImport: add its rule", path, top) {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		files++
		if strings.HasSuffix(path, "_test.go") {
			return nil // tests may import what they check with (testify, a higher layer)
		}
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			if rest, ours := strings.CutPrefix(p, module); ours {
				dep, _, _ := strings.Cut(rest, "/")
				assert.True(t, dep == top || slices.Contains(allowed, dep),
					"%s imports %s: %s/ may import only %v (the import rule, CONTRIBUTING.md)", path, p, top, allowed)
				continue
			}
			first, _, _ := strings.Cut(p, "/")
			if strings.Contains(first, ".") && slices.Contains(stdlibOnly, top) {
				t.Errorf("%s imports %s: %s/ imports only the standard library and this module", path, p, top)
			}
		}
		return nil
	})
	require.NoError(t, err)
	require.Greater(t, files, 100, "too few Go files seen: the walk is broken")
}
