package build

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kraftlab/kraftlab/web/server"
)

// TestHashNames: on a miniature site whose files name each other as the real bundles do, every
// script, stylesheet, wasm and icon gets a content-hashed name, every reference follows (the
// worker's wasm, the scripts' worker with its query, the pages' tags, a source map), and the
// served site passes checkHashedSite.
func TestHashNames(t *testing.T) {
	out := t.TempDir()
	files := map[string]string{
		"kraftlab.wasm": "\x00asm1", "lab.wasm": "\x00asm2", "rehearse.wasm": "\x00asm3", "favicon.svg": "<svg/>",
		"app.css": "body{}", "lab.css": "main{}",
		"worker.js":    `const p={lab:"lab.wasm",rehearse:"rehearse.wasm"};const f=p[q]??"kraftlab.wasm";`,
		"boot.js":      `new Worker("worker.js",{name:"kraftlab"});`,
		"app.js":       `new Worker(w??"worker.js");` + "\n//# sourceMappingURL=app.js.map\n",
		"app.js.map":   `{"version":3}`,
		"lab.js":       "new Worker(`worker.js?wasm=rehearse`);new Worker(\"worker.js?wasm=lab\");",
		"lessons.js":   `fetch("not-ours.js")`,
		"index.html":   `<link rel="icon" href="favicon.svg"><link rel="stylesheet" href="app.css"><script src="boot.js"></script><script type="module" src="app.js"></script><a href="lab.html">`,
		"lab.html":     `<link rel="stylesheet" href="app.css"><link rel="stylesheet" href="lab.css"><script type="module" src="lab.js"></script>`,
		"lessons.html": `<link rel="stylesheet" href="app.css"><script type="module" src="lessons.js"></script>`,
		"LICENSE.txt":  "licence",
	}
	for name, content := range files {
		require.NoError(t, os.WriteFile(filepath.Join(out, name), []byte(content), 0o644))
	}
	renamed, err := hashNames(out)
	require.NoError(t, err)
	for _, level := range hashed {
		for _, name := range level {
			to := renamed[name]
			assert.Regexp(t, `^[a-z]+\.[0-9a-f]{10}\.[a-z]+$`, to, name)
			assert.Equal(t, name, Unhashed(to))
			assert.NoFileExists(t, filepath.Join(out, name), "the plain name is gone")
		}
	}
	read := func(name string) string {
		b, err := os.ReadFile(filepath.Join(out, name))
		require.NoError(t, err)
		return string(b)
	}
	worker := read(renamed["worker.js"])
	for _, w := range []string{"kraftlab.wasm", "lab.wasm", "rehearse.wasm"} {
		assert.Contains(t, worker, `"`+renamed[w]+`"`)
	}
	assert.Contains(t, read(renamed["boot.js"]), `"`+renamed["worker.js"]+`"`)
	assert.Contains(t, read(renamed["lab.js"]), "`"+renamed["worker.js"]+"?wasm=rehearse`")
	assert.Contains(t, read(renamed["lab.js"]), `"`+renamed["worker.js"]+`?wasm=lab"`)
	assert.Contains(t, read(renamed["app.js"]), "sourceMappingURL="+renamed["app.js"]+".map")
	assert.FileExists(t, filepath.Join(out, renamed["app.js"]+".map"))
	assert.Contains(t, read(renamed["lessons.js"]), `"not-ours.js"`, "a name that is not the site's stays")
	assert.Contains(t, read("index.html"), `href="lab.html"`, "the pages keep their names")
	checkHashedSite(t, out)

	// The same bytes, the same names: a rebuild that changed nothing keeps every cached copy.
	again := t.TempDir()
	for name, content := range files {
		require.NoError(t, os.WriteFile(filepath.Join(again, name), []byte(content), 0o644))
	}
	renamed2, err := hashNames(again)
	require.NoError(t, err)
	assert.Equal(t, renamed, renamed2)
}

// checkHashedSite checks a built site with content-hashed names: every file a page's tags name
// exists and, but for the pages, has a hashed name; the server sends those with a year's
// immutable Cache-Control and the pages with no-cache; and the scripts name the worker, and
// the worker the wasm programs, by their hashed names.
func checkHashedSite(t *testing.T, out string) {
	t.Helper()
	h := server.Handler(os.DirFS(out))
	header := func(name string) string {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/"+name, nil))
		require.Equal(t, http.StatusOK, rec.Code, name)
		return rec.Header().Get("Cache-Control")
	}
	tag := regexp.MustCompile(`(?:src|href)="([^"#:]+)"`)
	named := map[string]bool{}
	for _, page := range pages {
		html, err := os.ReadFile(filepath.Join(out, page))
		require.NoError(t, err)
		assert.Equal(t, "no-cache", header(page), "%s is revalidated on every visit", page)
		for _, m := range tag.FindAllStringSubmatch(string(html), -1) {
			name := m[1]
			if strings.HasSuffix(name, ".html") || name == ServiceWorker || name == "LICENSE.txt" || name == "THIRD_PARTY_NOTICES.md" {
				continue
			}
			named[Unhashed(name)] = true
			assert.FileExists(t, filepath.Join(out, name), "%s names %s", page, name)
			assert.True(t, server.Immutable(name), "%s names %s, not a content-hashed name", page, name)
			assert.Equal(t, server.ImmutableCacheControl, header(name), name)
		}
	}
	for _, want := range []string{"favicon.svg", "app.css", "lab.css", "boot.js", "app.js", "lab.js", "lessons.js"} {
		assert.True(t, named[want], "a page names %s", want)
	}
	entries, err := os.ReadDir(out)
	require.NoError(t, err)
	find := func(plain string) string {
		for _, e := range entries {
			if Unhashed(e.Name()) == plain && e.Name() != plain {
				return e.Name()
			}
		}
		t.Fatalf("no hashed %s in %s", plain, out)
		return ""
	}
	worker := find("worker.js")
	assert.Equal(t, server.ImmutableCacheControl, header(worker))
	for _, script := range []string{"boot.js", "app.js", "lab.js"} {
		b, err := os.ReadFile(filepath.Join(out, find(script)))
		require.NoError(t, err)
		assert.Contains(t, string(b), worker, "%s starts the hashed worker", script)
		assert.NotRegexp(t, "[\"'`]worker\\.js[\"'`?]", string(b), "%s names no plain worker.js", script)
	}
	wb, err := os.ReadFile(filepath.Join(out, worker))
	require.NoError(t, err)
	for _, p := range Programs {
		name := find(p.File)
		assert.Contains(t, string(wb), `"`+name+`"`, "the worker loads %s", name)
		assert.Equal(t, server.ImmutableCacheControl, header(name))
	}
}

// TestHashNamesRefusesAForgottenFile: a script the list of hashed files does not name fails the
// build, rather than shipping with a name browsers must revalidate.
func TestHashNamesRefusesAForgottenFile(t *testing.T) {
	out := t.TempDir()
	for _, level := range hashed {
		for _, name := range level {
			require.NoError(t, os.WriteFile(filepath.Join(out, name), []byte(name), 0o644))
		}
	}
	for _, name := range append([]string{"extra.js"}, pages...) {
		require.NoError(t, os.WriteFile(filepath.Join(out, name), []byte("<p>"), 0o644))
	}
	_, err := hashNames(out)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "extra.js has no content-hashed name")
}
