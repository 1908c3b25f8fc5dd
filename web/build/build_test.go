package build

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/andybalholm/brotli"
	"github.com/evanw/esbuild/pkg/api"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kraftlab/kraftlab/lessons"
	"github.com/kraftlab/kraftlab/web/server"
)

func root(t *testing.T) string {
	t.Helper()
	r, err := FindRoot()
	require.NoError(t, err)
	return r
}

func TestPrepareOutNeverEmptiesAForeignDirectory(t *testing.T) {
	dir := t.TempDir()
	precious := filepath.Join(dir, "thesis.tex")
	require.NoError(t, os.WriteFile(precious, []byte("years of work"), 0o644))
	err := prepareOut(dir)
	require.ErrorContains(t, err, "refusing to empty")
	_, err = os.Stat(precious)
	assert.NoError(t, err, "the file must survive")

	// A previous build (it has the marker) is replaced.
	out := filepath.Join(t.TempDir(), "dist")
	require.NoError(t, prepareOut(out))
	require.NoError(t, os.WriteFile(filepath.Join(out, "stale.js"), []byte("old"), 0o644))
	require.NoError(t, prepareOut(out))
	_, err = os.Stat(filepath.Join(out, "stale.js"))
	assert.True(t, os.IsNotExist(err), "a rebuild starts from an empty directory")
	_, err = os.Stat(filepath.Join(out, Marker))
	assert.NoError(t, err)
}

// TestBundleAndPage runs the fast steps on the real sources: esbuild must bundle web/ts and
// web/css without errors or warnings, and the page must reference exactly what was bundled.
func TestBundleAndPage(t *testing.T) {
	out := t.TempDir()
	wasmExec, err := WasmExec(context.Background(), "go", root(t))
	require.NoError(t, err)
	require.NoError(t, bundle(root(t), out, wasmExec))
	require.NoError(t, renderHTML(context.Background(), out, "v-test", true))
	for _, name := range []string{"app.js", "app.js.map", "app.css", "app.css.map", "worker.js", "worker.js.map", "boot.js", "boot.js.map", "index.html"} {
		info, err := os.Stat(filepath.Join(out, name))
		require.NoError(t, err, name)
		assert.Positive(t, info.Size(), name)
	}
	worker, err := os.ReadFile(filepath.Join(out, "worker.js"))
	require.NoError(t, err)
	// Go's wasm_exec.js is inside the worker (it defines globalThis.Go and the go.* imports),
	// so the worker makes no second request before it fetches the wasm.
	assert.Contains(t, string(worker), "globalThis.Go=")
	assert.Contains(t, string(worker), "gojs:")
	assert.NotContains(t, string(worker), "importScripts")
	// The worker loads the playground's wasm unless started as worker.js?wasm=lab; nothing
	// else in the query can make it fetch another file.
	assert.Contains(t, string(worker), `"kraftlab.wasm"`)
	assert.Contains(t, string(worker), `"lab.wasm"`)
	assert.NotContains(t, string(worker), "export ", "the worker is a classic script, not a module")
	app, err := os.ReadFile(filepath.Join(out, "app.js"))
	require.NoError(t, err)
	assert.Contains(t, string(app), `"worker.js"`)
	lab, err := os.ReadFile(filepath.Join(out, "lab.js"))
	require.NoError(t, err)
	assert.Contains(t, string(lab), `"worker.js?wasm=lab"`, "the lab page's workers load lab.wasm")
	assert.Contains(t, string(app), "sourceMappingURL=app.js.map")

	// The boot script starts the worker itself, as a classic script (async in <head>), and
	// stays small: it is on the way to the first frame.
	boot, err := os.ReadFile(filepath.Join(out, "boot.js"))
	require.NoError(t, err)
	assert.Contains(t, string(boot), `"worker.js"`)
	assert.Contains(t, string(boot), `"kraftlabBoot"`)
	assert.NotContains(t, string(boot), "export ", "the boot script is a classic script, not a module")
	assert.Less(t, len(boot), 2048, "boot.js is tiny")

	html, err := os.ReadFile(filepath.Join(out, "index.html"))
	require.NoError(t, err)
	assert.Contains(t, string(html), `src="app.js"`)
	assert.Contains(t, string(html), `<script src="boot.js"></script>`)
	assert.Less(t, strings.Index(string(html), `src="boot.js"`), strings.Index(string(html), `href="app.css"`),
		"the boot script comes before the stylesheet, so it is fetched first")
	assert.Contains(t, string(html), `href="app.css"`)
	assert.Contains(t, string(html), "wasm-unsafe-eval", "the meta CSP is there")
	assert.NotContains(t, string(html), "frame-ancestors")
	// The skeleton holds structure only (text comes from strings.ts). It was 8 KiB before the
	// charts, the lesson panel and the canvas menus (13,218 B then, about 3 KB compressed);
	// 20 KiB leaves room to grow and still catches a page that starts carrying data.
	assert.Less(t, len(html), 20_480)

	// Every page's load (Pages, the size table's rows) names files the build writes, so that a
	// renamed bundle cannot drop out of the totals unnoticed; a page runs at most one program.
	require.NoError(t, copyTree(filepath.Join(root(t), "web", "static"), out))
	for _, p := range Pages {
		wasm := 0
		for _, f := range p.Files {
			if strings.HasSuffix(f, ".wasm") {
				wasm++
				assert.True(t, slices.ContainsFunc(Programs, func(pr Program) bool { return pr.File == f }), "%s loads %s", p.Name, f)
				continue
			}
			_, err := os.Stat(filepath.Join(out, f))
			assert.NoError(t, err, "%s loads %s, which the build does not write", p.Name, f)
		}
		assert.LessOrEqual(t, wasm, 1, p.Name)
	}
}

func TestBundleReportsErrors(t *testing.T) {
	r := t.TempDir()
	for _, d := range []string{"web/ts", "web/css"} {
		require.NoError(t, os.MkdirAll(filepath.Join(r, d), 0o755))
	}
	require.NoError(t, os.WriteFile(filepath.Join(r, "web/ts/main.ts"), []byte("import { x } from './nowhere';\nconsole.log(x);\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(r, "web/ts/worker.ts"), []byte("export {};\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(r, "web/css/app.css"), []byte("body{}\n"), 0o644))
	err := bundle(r, t.TempDir(), "")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "nowhere")
}

func TestWasmExecImportResolvesToTheToolchainsFile(t *testing.T) {
	src := filepath.Join(t.TempDir(), "w.ts")
	require.NoError(t, os.WriteFile(src, []byte("import \"go:wasm_exec\";\n"), 0o644))
	build := func(wasmExec string) api.BuildResult {
		return api.Build(api.BuildOptions{EntryPoints: []string{src}, Bundle: true, Format: api.FormatIIFE,
			LogLevel: api.LogLevelSilent, Plugins: []api.Plugin{wasmExecPlugin(wasmExec)}})
	}
	wasmExec, err := WasmExec(context.Background(), "go", root(t))
	require.NoError(t, err)
	res := build(wasmExec)
	require.Empty(t, res.Errors)
	require.Len(t, res.OutputFiles, 1)
	assert.Contains(t, string(res.OutputFiles[0].Contents), "globalThis.Go = class")

	// Without a path the import fails, saying why.
	res = build("")
	require.Len(t, res.Errors, 1)
	assert.Contains(t, res.Errors[0].Text, "the path of wasm_exec.js is unknown")
}

func TestWasmGCFlagsKeepInliningForTheHotPackages(t *testing.T) {
	flags := WasmGCFlags()
	require.NotEmpty(t, flags)
	// -l for everything comes first: the go command applies the last pattern that matches a
	// package, so each hot package listed after it gets the compiler's defaults back.
	assert.Equal(t, "-gcflags=all=-l", flags[0])
	assert.Equal(t, len(Inlined)+len(NotInlined)+1, len(flags))
	for _, p := range []string{"runtime", "github.com/kraftlab/kraftlab/engine/...", "github.com/kraftlab/kraftlab/cluster/..."} {
		assert.Contains(t, flags[1:], "-gcflags="+p+"=", p)
	}
	// JSON and the bridge's per-frame work are not on a hot path (a frame's JSON part takes
	// well under a millisecond): they stay without inlining, which would only make the wasm larger.
	assert.NotContains(t, flags, "-gcflags=encoding/json=")
	assert.NotContains(t, flags, "-gcflags=github.com/kraftlab/kraftlab/wasm/bridge=")
	// The scenario format lies inside cluster/..., the configs inside engine/..., but both run
	// once per run: their -l comes after the pattern, so it wins.
	scen := slices.Index(flags, "-gcflags=github.com/kraftlab/kraftlab/cluster/scenario=-l")
	require.Positive(t, scen)
	assert.Greater(t, scen, slices.Index(flags, "-gcflags=github.com/kraftlab/kraftlab/cluster/...="))
	cfg := slices.Index(flags, "-gcflags=github.com/kraftlab/kraftlab/engine/config=-l")
	require.Positive(t, cfg)
	assert.Greater(t, cfg, slices.Index(flags, "-gcflags=github.com/kraftlab/kraftlab/engine/...="))
}

func TestCompressedCopiesRoundTripAndAreReproducible(t *testing.T) {
	dir := t.TempDir()
	big := filepath.Join(dir, "app.js")
	content := []byte(strings.Repeat("function kraft(){return 42}\n", 200))
	require.NoError(t, os.WriteFile(big, content, 0o644))
	tiny := filepath.Join(dir, "t.svg")
	require.NoError(t, os.WriteFile(tiny, []byte("<svg/>"), 0o644))
	png := filepath.Join(dir, "x.png")
	require.NoError(t, os.WriteFile(png, bytes.Repeat([]byte{0}, 1000), 0o644))
	sourceMap := filepath.Join(dir, "app.js.map")
	require.NoError(t, os.WriteFile(sourceMap, bytes.Repeat([]byte(`{"mappings":"AAAA"}`), 500), 0o644))

	assets, err := compressAll(dir, compression{gzip: true, brotli: true})
	require.NoError(t, err)
	require.Len(t, assets, 4)
	assert.Equal(t, "app.js", assets[0].Name)
	assert.Equal(t, "app.js.map", assets[1].Name)
	assert.Zero(t, assets[1].Gzip+assets[1].Brotli, "source maps get no copies: only developer tools fetch them")
	assets = slices.Delete(assets, 1, 2)
	assert.Equal(t, int64(len(content)), assets[0].Raw)
	assert.Positive(t, assets[0].Gzip)
	assert.Positive(t, assets[0].Brotli)
	assert.Less(t, assets[0].Brotli, assets[0].Gzip)
	assert.Zero(t, assets[1].Gzip, "a tiny file gets no copy: it would be larger")
	assert.Zero(t, assets[2].Gzip, "PNGs are not compressed again")

	gz, err := os.ReadFile(big + ".gz")
	require.NoError(t, err)
	zr, err := gzip.NewReader(bytes.NewReader(gz))
	require.NoError(t, err)
	got, err := io.ReadAll(zr)
	require.NoError(t, err)
	assert.Equal(t, content, got)
	br, err := os.ReadFile(big + ".br")
	require.NoError(t, err)
	got, err = io.ReadAll(brotli.NewReader(bytes.NewReader(br)))
	require.NoError(t, err)
	assert.Equal(t, content, got)

	// Identical input, identical bytes: the server's ETags survive a no-op rebuild.
	require.NoError(t, os.Remove(big+".gz"))
	_, err = compressAll(dir, compression{gzip: true})
	require.NoError(t, err)
	gz2, err := os.ReadFile(big + ".gz")
	require.NoError(t, err)
	assert.Equal(t, gz, gz2)

	// Another level (the end-to-end tests' GzipLevel) writes another copy of the same file.
	require.NoError(t, os.Remove(big+".gz"))
	_, err = compressAll(dir, compression{gzip: true, gzipLevel: gzip.BestSpeed})
	require.NoError(t, err)
	fast, err := os.ReadFile(big + ".gz")
	require.NoError(t, err)
	assert.NotEqual(t, gz, fast)
	zr, err = gzip.NewReader(bytes.NewReader(fast))
	require.NoError(t, err)
	got, err = io.ReadAll(zr)
	require.NoError(t, err)
	assert.Equal(t, content, got)
	_, err = os.Stat(tiny + ".gz")
	assert.True(t, os.IsNotExist(err))
}

// TestBrotliCommandWritesWhatTheLibraryWrites: the release build's .br copies come from the
// brotli command when there is one and from andybalholm/brotli otherwise; both must write the
// same bytes, so that the sizes held to the budgets, and the files a host serves, do not
// depend on which did the work. The sample is 200 KB of the repository's Go source, enough
// for brotli's block splitting and context modelling at quality 11 to matter.
func TestBrotliCommandWritesWhatTheLibraryWrites(t *testing.T) {
	if brotliCommand() == "" {
		t.Skip("no brotli command on the PATH (apt-get install -y brotli): the build uses the library alone")
	}
	var sample []byte
	require.NoError(t, filepath.WalkDir(filepath.Join(root(t), "cluster"), func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".go") || len(sample) > 200_000 {
			return err
		}
		b, err := os.ReadFile(p)
		sample = append(sample, b...)
		return err
	}))
	require.Greater(t, len(sample), 200_000, "the sample")
	cmd, err := brotliBest(sample)
	require.NoError(t, err)
	lib, err := brotliLibrary(sample)
	require.NoError(t, err)
	assert.Less(t, len(lib), len(sample)/3, "the library compressed the sample")
	assert.True(t, bytes.Equal(cmd, lib), "%s and the library differ (%d and %d bytes): the release sizes would depend on which ran",
		brotliCommand(), len(cmd), len(lib))
	got, err := io.ReadAll(brotli.NewReader(bytes.NewReader(cmd)))
	require.NoError(t, err)
	assert.True(t, bytes.Equal(sample, got), "the command's output decodes to the sample")
}

func TestWriteSizes(t *testing.T) {
	var b strings.Builder
	WriteSizes(&b, []Asset{
		{Name: "index.html", Raw: 13_218, Gzip: 3_100, Brotli: 2_600},
		{Name: "kraftlab.wasm", Raw: 3_550_212, Gzip: 993_995, Brotli: 738_018},
		{Name: "lab.wasm", Raw: 3_000_000, Gzip: 900_000, Brotli: 700_000},
		{Name: "app.js", Raw: 8840, Gzip: 3592, Brotli: 3139},
		{Name: "app.js.map", Raw: 31118, Gzip: 10762, Brotli: 9389},
		{Name: "favicon.svg", Raw: 227},
	})
	out := b.String()
	assert.Contains(t, out, "kraftlab.wasm             3,550,212      993,995      738,018")
	assert.Contains(t, out, "favicon.svg                     227            -            -")
	// The playground's load leaves out the source map and the lab's wasm, and counts the raw
	// favicon; the lab page's HTML is not among the assets, so it has no row.
	assert.Contains(t, out, "load index.html           3,572,497    1,000,914      743,984")
	assert.NotContains(t, out, "load lab.html")

	b.Reset()
	WriteSizes(&b, []Asset{{Name: "lessons.html", Raw: 100, Gzip: 50}})
	assert.Contains(t, b.String(), "load lessons.html               100           50            -")
}

func TestContentTypesCoverEveryCompressibleExtension(t *testing.T) {
	// Every file Build compresses must be served with an exact type, not a guess.
	for ext := range compressible {
		assert.NotEqual(t, "application/octet-stream", server.ContentType("x"+ext), ext)
	}
}

func TestBuildRefusesBadOptions(t *testing.T) {
	_, err := Build(context.Background(), Options{})
	assert.ErrorContains(t, err, "no output directory")
	_, err = Build(context.Background(), Options{Out: t.TempDir(), Version: "1.0 -X main.evil=1"})
	assert.ErrorContains(t, err, "version")
}

// TestCompiledCourseOverlaysTheCommittedCopy: the wasm build's overlay puts a fresh compile of
// the course where lessons/compiled.json and compiled_exprs.go are, and that compile is what
// the committed copies hold (the lessons test says how to refresh them) and decodes to the
// course.
func TestCompiledCourseOverlaysTheCommittedCopy(t *testing.T) {
	r := root(t)
	dir := t.TempDir()
	overlay, err := compiledCourse(r, dir)
	require.NoError(t, err)
	var ov struct{ Replace map[string]string }
	data, err := os.ReadFile(overlay)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(data, &ov))
	require.Len(t, ov.Replace, 2)
	for _, name := range []string{lessons.CompiledFile, lessons.CompiledExprsFile} {
		committed := filepath.Join(r, "lessons", name)
		require.FileExists(t, committed, "the overlay replaces a file of the lessons package")
		fresh, err := os.ReadFile(ov.Replace[committed])
		require.NoError(t, err)
		old, err := os.ReadFile(committed)
		require.NoError(t, err)
		assert.Equal(t, string(old), string(fresh), "%s is current", name)
		if name == lessons.CompiledFile {
			got, err := lessons.DecodeCourse(fresh)
			require.NoError(t, err)
			course, err := lessons.Compiled()
			require.NoError(t, err)
			require.Len(t, got, len(course))
			for i := range course {
				assert.Equal(t, course[i].ID, got[i].ID)
				assert.Len(t, got[i].Steps, len(course[i].Steps), course[i].ID)
			}
		}
	}
}

// TestFirstFrameIsTheDefaultClusters: the prebuilt first frame is the one the worker sends for
// the default cluster, it can sit in HTML, and it asks for what boot.ts and main.ts ask for.
func TestFirstFrameIsTheDefaultClusters(t *testing.T) {
	text, err := FirstFrame("v-test")
	require.NoError(t, err)
	assert.NotContains(t, text, "<", "HTML-escaped: it cannot end its <script> element")
	var f struct {
		Body struct {
			TimeMs     int64 `json:"timeMs"`
			Partitions struct {
				Count int `json:"count"`
			} `json:"partitions"`
			Brokers []json.RawMessage `json:"brokers"`
		} `json:"body"`
		Data []byte `json:"data"`
	}
	require.NoError(t, json.Unmarshal([]byte(text), &f))
	assert.Zero(t, f.Body.TimeMs)
	assert.Equal(t, 12, f.Body.Partitions.Count)
	assert.Len(t, f.Body.Brokers, 4)
	assert.NotEmpty(t, f.Data)

	// The page uses it only for the cluster early.ts's DEFAULT_START asks for: the same request.
	early, err := os.ReadFile(filepath.Join(root(t), "web", "ts", "early.ts"))
	require.NoError(t, err)
	m := regexp.MustCompile(`DEFAULT_START: StartRequest = (\{.*\});`).FindSubmatch(early)
	require.NotNil(t, m, "early.ts declares DEFAULT_START")
	asJSON := regexp.MustCompile(`(\w+):`).ReplaceAllString(string(m[1]), `"$1":`)
	assert.JSONEq(t, DefaultStart, asJSON)
}

// TestServiceWorkerListsTheSite: sw.js precaches every file of the site but source maps and
// dot-files, and another byte in any file gives another cache (so browsers install it).
func TestServiceWorkerListsTheSite(t *testing.T) {
	out := t.TempDir()
	for name, content := range map[string]string{"index.html": "<p>", "app.js": "1", "app.js.map": "{}", "kraftlab.wasm": "\x00asm", Marker: "x"} {
		require.NoError(t, os.WriteFile(filepath.Join(out, name), []byte(content), 0o644))
	}
	sw := func() string {
		require.NoError(t, serviceWorker(root(t), out))
		b, err := os.ReadFile(filepath.Join(out, ServiceWorker))
		require.NoError(t, err)
		require.NoError(t, os.Remove(filepath.Join(out, ServiceWorker)))
		return string(b)
	}
	first := sw()
	assert.Contains(t, first, `["app.js","index.html","kraftlab.wasm"]`)
	assert.Regexp(t, `"kraftlab-[0-9a-f]{16}"`, first)
	assert.Equal(t, first, sw(), "the same files, the same worker")
	require.NoError(t, os.WriteFile(filepath.Join(out, "app.js"), []byte("2"), 0o644))
	assert.NotEqual(t, first, sw(), "a changed file, a new worker and cache")

	// The pages name it only in a build that writes it.
	require.NoError(t, renderHTML(context.Background(), out, "v", true))
	html, err := os.ReadFile(filepath.Join(out, "lab.html"))
	require.NoError(t, err)
	assert.Contains(t, string(html), `<meta name="kraftlab-offline" content="sw.js">`)
	require.NoError(t, renderHTML(context.Background(), out, "v", false))
	html, err = os.ReadFile(filepath.Join(out, "index.html"))
	require.NoError(t, err)
	assert.NotContains(t, string(html), "kraftlab-offline")
}

// TestWasmLeavesOutHTML: no wasm program imports the html package. Its package initialisation
// links a strings.Replacer and the table of 2,000-odd entity names its unescaper reads, about
// 22 KB brotli in rehearse.wasm, which is within tens of KB of its size budget; lab's
// escapeHTML writes what html.EscapeString writes.
func TestWasmLeavesOutHTML(t *testing.T) {
	args := []string{"list", "-deps"}
	for _, p := range Programs {
		args = append(args, p.Package)
	}
	out, err := run(context.Background(), root(t), []string{"GOOS=js", "GOARCH=wasm"}, "go", args...)
	require.NoError(t, err)
	deps := strings.Fields(string(out))
	require.Contains(t, deps, "github.com/kraftlab/kraftlab/lab", "the go list query is broken")
	assert.False(t, slices.Contains(deps, "html"), "a wasm program imports html (see go list -deps): escape with lab's escapeHTML instead")
}

// TestNoticesCoverWhatTheSiteShips: every third-party module the wasm programs link and every
// vendored library is named in THIRD_PARTY_NOTICES.md, and the build copies the notices and
// the licence into the site.
func TestNoticesCoverWhatTheSiteShips(t *testing.T) {
	r := root(t)
	raw, err := os.ReadFile(filepath.Join(r, "THIRD_PARTY_NOTICES.md"))
	require.NoError(t, err)
	text := string(raw)
	args := []string{"list", "-deps", "-f", "{{with .Module}}{{.Path}}{{end}}"}
	for _, p := range Programs {
		args = append(args, p.Package)
	}
	out, err := run(context.Background(), r, []string{"GOOS=js", "GOARCH=wasm"}, "go", args...)
	require.NoError(t, err)
	mods := 0
	for _, m := range strings.Fields(string(out)) {
		if m != "github.com/kraftlab/kraftlab" {
			mods++
			assert.Contains(t, text, strings.TrimPrefix(m, "github.com/"), "the wasm links %s: name it and its licence in THIRD_PARTY_NOTICES.md", m)
		}
	}
	require.Positive(t, mods, "no third-party module found: the go list query is broken")
	vendored, err := os.ReadDir(filepath.Join(r, "web", "vendor"))
	require.NoError(t, err)
	for _, v := range vendored {
		assert.Contains(t, text, "web/vendor/"+v.Name(), "web/vendor/%s is bundled into the site: name it in THIRD_PARTY_NOTICES.md", v.Name())
	}

	dir := t.TempDir()
	require.NoError(t, copyNotices(r, dir))
	for src, dst := range notices {
		want, err := os.ReadFile(filepath.Join(r, src))
		require.NoError(t, err)
		got, err := os.ReadFile(filepath.Join(dir, dst))
		require.NoError(t, err)
		assert.Equal(t, want, got, dst)
	}
}

// TestShrinkWasmShipsWhatItCannotStrip: a program whose runtime tables internal/wasmstrip
// does not recognise (here a module with a data section but no Go function table, as a newer
// Go's layout would look to it) is still written, repacked but not stripped, and Asset.Shrink
// says so; with -lines it is not even tried.
func TestShrinkWasmShipsWhatItCannotStrip(t *testing.T) {
	// "\0asm", version 1, and a data section with one active segment of 4 bytes at address 0.
	mod := []byte{0, 'a', 's', 'm', 1, 0, 0, 0, 11, 10, 1, 0, 0x41, 0, 0x0b, 4, 'd', 'a', 't', 'a'}
	dir := t.TempDir()
	from, to := filepath.Join(dir, "in.wasm"), filepath.Join(dir, "out.wasm")
	require.NoError(t, os.WriteFile(from, mod, 0o644))
	var log strings.Builder
	logf := func(format string, args ...any) { log.WriteString(fmt.Sprintf(format, args...) + "\n") }

	what, err := shrinkWasm(from, to, true, logf)
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(what, ShrinkRefused+": internal/wasmstrip does not recognise"), what)
	assert.Contains(t, log.String(), "warning: out.wasm "+ShrinkRefused)
	got, err := os.ReadFile(to)
	require.NoError(t, err)
	assert.Equal(t, "\x00asm", string(got[:4]), "a module is shipped")
	assert.Contains(t, string(got), "data", "with its data")

	log.Reset()
	what, err = shrinkWasm(from, to, false, logf)
	require.NoError(t, err)
	assert.Equal(t, ShrinkKeptLines, what)
	assert.Empty(t, log.String())
}
