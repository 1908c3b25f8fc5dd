package kraftlab_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestDocsNameExistingPaths fails when a Markdown file of the repository names a file or
// directory of the repository that does not exist: a path in backticks that starts at a
// top-level entry (`cluster/broker/params.go`, `docs/model.md`, `cluster/scenario/testdata/*.out`),
// a Go name in a package (`cluster/broker.Params`), or a relative Markdown link ([model.md](model.md)). Docs rot quietly when code moves; this
// keeps the paths they send a reader to real.
func TestDocsNameExistingPaths(t *testing.T) {
	top := map[string]bool{}
	entries, err := os.ReadDir(".")
	require.NoError(t, err)
	for _, e := range entries {
		top[e.Name()] = true
	}
	// What the build and the tests write (dist/, test-output/) is not the repository's: a doc
	// may name where a command puts its output.
	ignore, err := os.ReadFile(".gitignore")
	require.NoError(t, err)
	for _, l := range strings.Split(string(ignore), "\n") {
		delete(top, strings.Trim(strings.TrimSpace(l), "/"))
	}
	var docs []string
	require.NoError(t, filepath.WalkDir(".", func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && path != "." && (strings.HasPrefix(d.Name(), ".") || d.Name() == "node_modules" || d.Name() == "dist" || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(path, ".md") {
			docs = append(docs, path)
		}
		return nil
	}))
	require.Contains(t, docs, filepath.Join("docs", "model.md"), "the walk is broken")

	code := regexp.MustCompile("`(\\.?/?[A-Za-z0-9_.*-]+(?:/[A-Za-z0-9_.*-]*)+)`")
	link := regexp.MustCompile(`\]\(([^)#:\s]+)(?:#[^)]*)?\)`)
	checked := 0
	for _, doc := range docs {
		raw, err := os.ReadFile(doc)
		require.NoError(t, err)
		text := string(raw)
		for _, m := range code.FindAllStringSubmatch(text, -1) {
			p := strings.TrimSuffix(strings.TrimPrefix(m[1], "./"), "/...")
			if first, _, _ := strings.Cut(p, "/"); !top[first] {
				continue // not a path of this repository (a URL path, a Kafka path, a MIME type)
			}
			checked++
			assert.True(t, exists(p) || goSymbol(p), "%s names %s, which does not exist", doc, m[1])
		}
		for _, m := range link.FindAllStringSubmatch(text, -1) {
			p := filepath.Join(filepath.Dir(doc), m[1])
			checked++
			assert.True(t, exists(p), "%s links to %s, which does not exist", doc, m[1])
		}
	}
	assert.Greater(t, checked, 50, "too few paths found: the patterns are broken")
}

// exists reports whether path, which may hold a glob pattern, names at least one file or
// directory.
func exists(path string) bool {
	path = strings.TrimSuffix(path, "/")
	if strings.ContainsAny(path, "*?[") {
		m, _ := filepath.Glob(path)
		return len(m) > 0
	}
	_, err := os.Stat(path)
	return err == nil
}

// goSymbol reports whether path is dir/pkg.Name for a Go package directory dir/pkg whose
// non-test files declare Name at top level (a function, method, type, variable or constant).
func goSymbol(path string) bool {
	pkg, name, ok := strings.Cut(path[strings.LastIndexByte(path, '/')+1:], ".")
	if !ok {
		return false
	}
	files, _ := filepath.Glob(filepath.Join(filepath.Dir(path), pkg, "*.go"))
	for _, file := range files {
		if strings.HasSuffix(file, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), file, nil, parser.SkipObjectResolution)
		if err != nil {
			continue
		}
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if d.Name.Name == name {
					return true
				}
			case *ast.GenDecl:
				for _, sp := range d.Specs {
					switch sp := sp.(type) {
					case *ast.TypeSpec:
						if sp.Name.Name == name {
							return true
						}
					case *ast.ValueSpec:
						for _, n := range sp.Names {
							if n.Name == name {
								return true
							}
						}
					}
				}
			}
		}
	}
	return false
}

// TestContributingListsEveryEnvironmentVariable fails when the code reads a KRAFTLAB_*
// environment variable that CONTRIBUTING.md's table does not list, or the table lists one the
// code no longer reads.
func TestContributingListsEveryEnvironmentVariable(t *testing.T) {
	raw, err := os.ReadFile("CONTRIBUTING.md")
	require.NoError(t, err)
	doc := string(raw)
	name := regexp.MustCompile(`KRAFTLAB_[A-Z0-9_]*[A-Z0-9]`)
	used := map[string]bool{}
	require.NoError(t, filepath.WalkDir(".", func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && path != "." && strings.HasPrefix(d.Name(), ".") {
			return filepath.SkipDir
		}
		if d.IsDir() || !(strings.HasSuffix(path, ".go") || path == "Makefile") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, m := range name.FindAllString(string(src), -1) {
			used[m] = true
		}
		return nil
	}))
	require.Greater(t, len(used), 5, "too few variables found: the walk is broken")
	for v := range used {
		assert.True(t, strings.Contains(doc, "`"+v), "the code reads %s: add it to CONTRIBUTING.md's table", v)
	}
	for _, v := range name.FindAllString(doc, -1) {
		assert.True(t, used[v], "CONTRIBUTING.md lists %s, which no code reads", v)
	}
}
