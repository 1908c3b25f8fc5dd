package web

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/a-h/templ/cmd/templ/generatecmd"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// templCheck runs `templ generate -check` in-process, with the templ version go.mod pins, so
// the test needs no templ binary and cannot disagree with `go tool templ`.
func templCheck(dir string) (string, error) {
	var log bytes.Buffer
	err := generatecmd.Run(context.Background(), &log, &log, []string{
		"-check", "-path", dir,
		// Never delete anything: a check must only read.
		"-keep-orphaned-files",
		"-log-level", "error",
	})
	return log.String(), err
}

// TestGeneratedTemplIsCurrent fails when a .templ file was edited without running
// `go tool templ generate` (or `make templ`), i.e. when the committed *_templ.go is stale.
func TestGeneratedTemplIsCurrent(t *testing.T) {
	log, err := templCheck(".")
	require.NoError(t, err, "run `go tool templ generate -path web` and commit the result\n%s", log)
}

// TestTemplCheckDetectsStaleness proves the test above can fail: a copy of the templates whose
// source changed after generation must be reported.
func TestTemplCheckDetectsStaleness(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"page.templ", "page_templ.go"} {
		b, err := os.ReadFile(name)
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), b, 0o644))
	}
	_, err := templCheck(dir)
	require.NoError(t, err, "an untouched copy is current")

	src, err := os.ReadFile(filepath.Join(dir, "page.templ"))
	require.NoError(t, err)
	stale := strings.Replace(string(src), `<ul id="config-list" class="config-list">`, `<ul id="config-list" class="config-list changed">`, 1)
	require.NotEqual(t, string(src), stale)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "page.templ"), []byte(stale), 0o644))
	_, err = templCheck(dir)
	assert.ErrorContains(t, err, "not up to date")
}

func TestPageSkeleton(t *testing.T) {
	var b bytes.Buffer
	require.NoError(t, Page(PageData{Version: "v9", CSP: "default-src 'none'"}).Render(context.Background(), &b))
	html := b.String()
	for _, want := range []string{
		"<!doctype html>",
		`<meta http-equiv="Content-Security-Policy" content="default-src &#39;none&#39;">`,
		`<script type="module" src="app.js"></script>`,
		`<canvas id="cluster-canvas"`,
		`id="config-list"`,
		`id="error-panel"`,
		`role="status"`,
		`content="KRaft Lab v9"`,
	} {
		assert.Contains(t, strings.ToLower(html), strings.ToLower(want))
	}
	// The CSP forbids inline code; the skeleton must not need any.
	assert.NotContains(t, html, "<script>")
	assert.NotContains(t, html, "style=")
	assert.NotRegexp(t, `\son[a-z]+=`, html, "no inline event handlers")
	assert.NotContains(t, html, "lead's renderer", "templ comments must not leak into the page")
}

// TestSkeletonKeysExistInTheCatalogue checks natively what the page would otherwise only find
// at run time: every data-s / data-s-label key in the templates names a string in
// web/ts/strings.ts.
func TestSkeletonKeysExistInTheCatalogue(t *testing.T) {
	catalogue, err := os.ReadFile("ts/strings.ts")
	require.NoError(t, err)
	defined := map[string]bool{}
	for _, m := range regexp.MustCompile(`(?m)^  ([A-Za-z0-9]+):`).FindAllStringSubmatch(string(catalogue), -1) {
		defined[m[1]] = true
	}
	require.Greater(t, len(defined), 10, "the catalogue parse found too few keys")

	page, err := os.ReadFile("page.templ")
	require.NoError(t, err)
	used := regexp.MustCompile(`data-s(?:-label)?="([^"]*)"`).FindAllStringSubmatch(string(page), -1)
	require.NotEmpty(t, used)
	for _, m := range used {
		assert.True(t, defined[m[1]], "page.templ uses data-s key %q, which web/ts/strings.ts does not define", m[1])
	}
}
