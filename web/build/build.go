// Package build writes KRaft Lab's static site (dist/): the WebAssembly worker programs (one
// for the playground and its lessons, one for the config lab), Go's wasm_exec.js, the bundled and minified TypeScript and CSS, the HTML page rendered from templ,
// and precompressed .br/.gz copies. The repository's build.go is a thin command around Build;
// the end-to-end tests call Build directly to get a fresh site.
//
// The result is plain files that any static host can serve; web/server serves them with the
// right headers for local use.
package build

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/andybalholm/brotli"
	"github.com/evanw/esbuild/pkg/api"

	"github.com/kraftlab/kraftlab/internal/wasmstrip"
	"github.com/kraftlab/kraftlab/lessons"
	"github.com/kraftlab/kraftlab/wasm/bridge"
	"github.com/kraftlab/kraftlab/web"
	"github.com/kraftlab/kraftlab/web/server"
)

// Program is a Go program of the site, built to WebAssembly.
type Program struct {
	// File is the wasm's name in the site; Package the Go main package built into it.
	File, Package string
}

// Programs are the site's wasm programs. Each page's workers load only the one that answers
// its messages (web/ts/worker.ts picks it, web/PROTOCOL.md lists which answers what), so
// that a page does not download the other's code: the playground's carries the simulation
// session, the lessons and the scenario format, the lab's the config lab; the lab page loads
// the rehearsal's program only when a rehearsal starts (docs/reference.md, "The
// playground", says what is linked where and what it costs).
var Programs = []Program{
	{File: "kraftlab.wasm", Package: "./wasm/cmd/kraftlab-wasm"},
	{File: "lab.wasm", Package: "./wasm/cmd/kraftlab-lab-wasm"},
	{File: "rehearse.wasm", Package: "./wasm/cmd/kraftlab-rehearse-wasm"},
}

// Marker is the file that marks a directory as Build's output. Build clears an existing output
// directory only when it carries the marker, so a mistyped -out can never delete someone's
// files. The server does not serve dot-files, so the marker stays private.
const Marker = ".kraftlab-dist"

var versionPattern = regexp.MustCompile(`^[A-Za-z0-9._+-]{1,64}$`)

// Options configures Build.
type Options struct {
	// Root is the module root (the directory holding go.mod). Empty means: search upwards
	// from the working directory.
	Root string
	// Out is the output directory, relative to the working directory. It is created, or
	// emptied if it holds a previous build.
	Out string
	// Version is stamped into the wasm (hello reply) and the page. Empty means "dev".
	Version string
	// Gzip and Brotli write name.gz / name.br next to every compressible file: the release
	// build (`make dist`) for a static host. Brotli at its best quality takes tens of seconds
	// on the wasm and gzip's several, so the edit loop (`make run`, served on loopback) and
	// tests that do not need them leave both off.
	Gzip, Brotli bool
	// BrotliCache is a directory that keeps the wasm programs' .br copies by content
	// (brotlicache.go, DefaultBrotliCache): a program byte for byte one compressed before
	// takes the copy kept then instead of tens of seconds of compression. Empty: no cache.
	BrotliCache string
	// GzipLevel is the .gz copies' compression level; 0 means gzip.BestCompression, the
	// release build's. The end-to-end tests serve gzip copies whose size nothing reads, and
	// take gzip.DefaultCompression: about a quarter of the CPU on the wasm programs, about 1 %
	// larger.
	GzipLevel int
	// Go is the go command used for the wasm build and for locating wasm_exec.js. Empty means
	// "go" from PATH. Both must come from the same toolchain: wasm_exec.js is tied to the Go
	// release that compiled the binary.
	Go string
	// Offline writes sw.js, the service worker that keeps a visited site working offline
	// (web/ts/sw.ts), and names it in the pages so that the playground registers it. The edit
	// loop leaves it off: a service worker keeps serving a build until its pages close.
	Offline bool
	// Hash gives the scripts, stylesheets, wasm programs and icon content-hashed names
	// (app.3f2a9c81d0.js) and rewrites the references to them (hash.go), so that a host can
	// cache them for good: the release build. The edit loop and the end-to-end tests keep the
	// plain names, which their tests and tools refer to.
	Hash bool
	// KeepLines leaves the wasm programs' file, line and inlining tables in, so that a panic's
	// traceback in the browser has file:line. By default they are stripped (see
	// internal/wasmstrip: about 130 KB of each program, brotli-compressed).
	KeepLines bool
	// Log receives progress lines; nil discards them.
	Log io.Writer
}

// Asset is one file of the site with its sizes; Gzip and Brotli are 0 when no such copy was
// written (not asked for, or not smaller than the original).
type Asset struct {
	Name              string
	Raw, Gzip, Brotli int64
	// Shrink says, for a wasm program, what internal/wasmstrip did to it: ShrinkStripped,
	// ShrinkKeptLines (-lines), or, when it did not recognise the Go runtime's layout, why it
	// shipped larger (it starts with ShrinkRefused). Empty for other files.
	Shrink string
}

// What shrinkWasm did to a wasm program (Asset.Shrink).
const (
	ShrinkStripped  = "line tables stripped"
	ShrinkKeptLines = "line tables kept (-lines)"
	ShrinkRefused   = "not stripped"
)

// Build writes the site and returns its files (without the compressed copies), sorted by name.
func Build(ctx context.Context, o Options) ([]Asset, error) {
	if o.Out == "" {
		return nil, errors.New("build: no output directory")
	}
	if o.Version == "" {
		o.Version = "dev"
	}
	if !versionPattern.MatchString(o.Version) {
		// It travels through -ldflags, where a space or quote would split or break the flag.
		return nil, fmt.Errorf("build: version %q: use letters, digits and . _ + - only", o.Version)
	}
	if o.Go == "" {
		o.Go = "go"
	}
	logw := o.Log
	if logw == nil {
		logw = io.Discard
	}
	logf := func(format string, args ...any) { fmt.Fprintf(logw, format+"\n", args...) }
	root := o.Root
	if root == "" {
		var err error
		if root, err = FindRoot(); err != nil {
			return nil, err
		}
	}
	root, err := filepath.Abs(root)
	if err != nil {
		return nil, err
	}
	out, err := filepath.Abs(o.Out)
	if err != nil {
		return nil, err
	}
	if err := prepareOut(out); err != nil {
		return nil, err
	}

	step := func(name string, f func() error) error {
		start := time.Now()
		if err := f(); err != nil {
			return fmt.Errorf("build: %s: %w", name, err)
		}
		logf("%-10s %6.2fs", name, time.Since(start).Seconds())
		return nil
	}
	var wasmExec string          // Go's wasm_exec.js, bundled into worker.js
	var shrunk map[string]string // what shrinkWasm did to each program, by file name
	steps := []struct {
		name string
		f    func() error
	}{
		{"wasm", func() (err error) {
			shrunk, err = buildWasm(ctx, o.Go, root, out, o.Version, !o.KeepLines, logf)
			return err
		}},
		{"wasm_exec", func() (err error) { wasmExec, err = WasmExec(ctx, o.Go, root); return err }},
		{"bundle", func() error { return bundle(root, out, wasmExec) }},
		{"html", func() error { return renderHTML(ctx, out, o.Version, o.Offline) }},
		{"static", func() error { return copyTree(filepath.Join(root, "web", "static"), out) }},
		{"notices", func() error { return copyNotices(root, out) }},
	}
	if o.Hash {
		steps = append(steps, struct {
			name string
			f    func() error
		}{"hash", func() error { _, err := hashNames(out); return err }})
	}
	if o.Offline {
		steps = append(steps, struct {
			name string
			f    func() error
		}{"offline", func() error { return serviceWorker(root, out) }})
	}
	for _, s := range steps {
		if err := step(s.name, s.f); err != nil {
			return nil, err
		}
	}
	var assets []Asset
	err = step("compress", func() error {
		var err error
		assets, err = compressAll(out, compression{gzip: o.Gzip, gzipLevel: o.GzipLevel, brotli: o.Brotli, brotliCache: o.BrotliCache, logf: logf})
		return err
	})
	for i := range assets {
		assets[i].Shrink = shrunk[Unhashed(assets[i].Name)]
	}
	return assets, err
}

// FindRoot returns the nearest directory at or above the working directory that holds go.mod.
func FindRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("build: no go.mod at or above the working directory")
		}
		dir = parent
	}
}

// prepareOut creates out, or empties it if it holds a previous build (see Marker).
func prepareOut(out string) error {
	entries, err := os.ReadDir(out)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return fmt.Errorf("build: %w", err)
	case len(entries) == 0:
	default:
		if _, err := os.Stat(filepath.Join(out, Marker)); err != nil {
			return fmt.Errorf("build: refusing to empty %s: it is not empty and has no %s marker, so it is not a previous build", out, Marker)
		}
		if err := os.RemoveAll(out); err != nil {
			return fmt.Errorf("build: %w", err)
		}
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return fmt.Errorf("build: %w", err)
	}
	return os.WriteFile(filepath.Join(out, Marker), []byte("written by KRaft Lab's build.go; the directory is replaced by the next build\n"), 0o644)
}

func run(ctx context.Context, dir string, env []string, name string, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdout, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w\n%s", name, strings.Join(args, " "), err, stderr.String())
	}
	return stdout, nil
}

// buildWasm compiles the worker programs. One go build for all of them compiles the packages
// they share once and links them side by side (about as quick as one program alone), into a
// scratch directory, as go build names each binary after its package directory. -s -w saves
// only ~2%, but there is no reason to ship symbol tables; -trimpath keeps local paths out of
// the binary and its panics; WasmGCFlags trade inlining for size where speed does not matter.
// No -pgo: under wasm a CPU profile saved the simulation about 3 %, inside the spread between
// runs, and its inlining costs each program 14–36 KB brotli-compressed, more than the size
// budget leaves the playground's and the rehearsal's (docs/performance.md, "Where the time
// goes at 10,000×").
// The course goes in compiled here, from the lessons as they are now (see compiledCourse).
// Each program is then repacked, and stripped of its line tables unless strip is false (see
// shrinkWasm).
func buildWasm(ctx context.Context, goCmd, root, out, version string, strip bool, logf func(string, ...any)) (map[string]string, error) {
	tmp, err := os.MkdirTemp(out, ".wasm-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	overlay, err := compiledCourse(root, tmp)
	if err != nil {
		return nil, err
	}
	args := []string{"build", "-trimpath", "-overlay=" + overlay, "-ldflags=-s -w -X main.version=" + version}
	args = append(args, WasmGCFlags()...)
	args = append(args, "-o", tmp+string(filepath.Separator))
	for _, p := range Programs {
		args = append(args, p.Package)
	}
	if _, err := run(ctx, root, []string{"GOOS=js", "GOARCH=wasm"}, goCmd, args...); err != nil {
		return nil, err
	}
	shrunk := map[string]string{}
	for _, p := range Programs {
		what, err := shrinkWasm(filepath.Join(tmp, path.Base(p.Package)), filepath.Join(out, p.File), strip, logf)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", p.File, err)
		}
		shrunk[p.File] = what
	}
	return shrunk, nil
}

// shrinkWasm writes the program at from to to, smaller to download and the same to run: its
// data section repacked into a few segments, and unless strip is false its file, line and
// inlining tables taken out (internal/wasmstrip has the why and what a traceback then shows).
// It returns what it did (Asset.Shrink). wasmstrip reads the Go runtime's own tables and
// refuses a layout it does not recognise, as a Go release newer than the one it knows may
// have: the build then warns and ships the program as the linker wrote it, larger but
// working, so that a newer Go can still build and serve the site.
func shrinkWasm(from, to string, strip bool, logf func(string, ...any)) (string, error) {
	raw, err := os.ReadFile(from)
	if err != nil {
		return "", err
	}
	name := filepath.Base(to)
	what := ShrinkKeptLines
	if strip {
		small, st, err := wasmstrip.StripLines(raw)
		if err == nil {
			logf("%-10s %s: %d functions, %d bytes of line, file and inlining tables cleared", "strip", name, st.Funcs, st.Cleared())
			return ShrinkStripped, os.WriteFile(to, small, 0o644)
		}
		what = fmt.Sprintf("%s: internal/wasmstrip does not recognise the runtime layout of the Go that built it: %v", ShrinkRefused, err)
		logf("warning: %s %s; shipping it larger but working", name, what)
	}
	small, err := wasmstrip.Repack(raw)
	if err != nil {
		if what == ShrinkKeptLines {
			what = ShrinkRefused + ": " + err.Error()
		}
		logf("warning: %s: data section not repacked (%v); shipping it as the linker wrote it", name, err)
		small = raw
	}
	return what, os.WriteFile(to, small, 0o644)
}

// compiledCourse compiles the course natively (lessons.EncodeCourse of lessons.Course) into
// dir and returns a go build -overlay file that puts it in place of the repository's
// lessons/compiled.json and compiled_exprs.go, so the wasm ships the lessons as this build
// parsed them even when the committed copies are stale (TestCompiledCourseIsTheCourse keeps
// those current for plain go builds and tests). The wasm decodes them instead of parsing
// Markdown, which keeps the lesson parser out of the page's download.
func compiledCourse(root, dir string) (string, error) {
	course, err := lessons.Compiled()
	if err != nil {
		return "", err
	}
	data, exprs, err := lessons.EncodeCourse(course)
	if err != nil {
		return "", err
	}
	replace := map[string]string{}
	for name, b := range map[string][]byte{lessons.CompiledFile: data, lessons.CompiledExprsFile: exprs} {
		file := filepath.Join(dir, name)
		if err := os.WriteFile(file, b, 0o644); err != nil {
			return "", err
		}
		replace[filepath.Join(root, "lessons", name)] = file
	}
	ov, err := json.Marshal(map[string]map[string]string{"Replace": replace})
	if err != nil {
		return "", err
	}
	overlay := filepath.Join(dir, "overlay.json")
	return overlay, os.WriteFile(overlay, ov, 0o644)
}

// Inlined lists the packages compiled with the compiler's usual inlining in the wasm; every
// other package is built with -l (no inlining). Inlining copies a callee's body into each
// caller and adds inline-tree tables to the binary's pclntab, so turning it off where nothing
// is hot shrinks the brotli-compressed wasm by about 3 % (encoding/json, fmt, reflect, strconv,
// syscall/js, safejs and the worker layer are the bulk) at no cost to the simulation. The
// list is what the simulation's steps spend their time in: the runtime (allocation, maps,
// write barriers: without its inlining a step is about 2x slower), the engine and the cluster,
// and the small std packages they call in loops. wasm/bridge is not on it: its work is per
// frame and per request, and without inlining it is 8 KB smaller brotli-compressed with no
// change in BenchmarkQuietPlayback's cluster seconds per second under Node, at 10,000 and
// 100,000 partitions (frame encoding included). Building
// everything with -l would save about 10 %, but the simulation then runs 1.7-2.4x slower
// (docs/reference.md, "The playground").
var Inlined = []string{
	"runtime", "internal/runtime/...", "internal/abi", "internal/bytealg", "internal/stringslite",
	"internal/sync", "internal/chacha8rand",
	"sync", "sync/atomic", "cmp", "iter", "slices", "maps", "sort", "math", "math/bits",
	"math/rand/v2", "hash/fnv", "encoding/binary", "unicode/utf8",
	"github.com/kraftlab/kraftlab/engine/...", "github.com/kraftlab/kraftlab/cluster/...",
}

// NotInlined lists packages inside Inlined's patterns that are built with -l all the same:
// code that runs once per scenario or per request, never per simulated event. The scenario
// format is parsed when a run starts (sim.load, lab.run.start) and written on an export, so
// its 0.4 MB of parser and writer code gains nothing from inlining (docs/reference.md, "The playground",
// has the measurement); the configs' definitions and checks run when a scenario is set up.
var NotInlined = []string{"github.com/kraftlab/kraftlab/cluster/scenario", "github.com/kraftlab/kraftlab/engine/config"}

// WasmGCFlags returns the -gcflags arguments of the wasm build: -l for all packages, then
// the compiler's defaults for each package of Inlined, then -l again for NotInlined (for a
// package that matches several -gcflags patterns, the go command uses the last match).
// Benchmarks of the wasm build should pass the same flags, so that they measure what ships.
func WasmGCFlags() []string {
	flags := []string{"-gcflags=all=-l"}
	for _, p := range Inlined {
		flags = append(flags, "-gcflags="+p+"=")
	}
	for _, p := range NotInlined {
		flags = append(flags, "-gcflags="+p+"=-l")
	}
	return flags
}

// WasmExec returns the path of wasm_exec.js in the toolchain of goCmd: the JavaScript half
// of Go's js/wasm port, tied to the Go release that compiled the binary.
func WasmExec(ctx context.Context, goCmd, root string) (string, error) {
	goroot, err := run(ctx, root, nil, goCmd, "env", "GOROOT")
	if err != nil {
		return "", err
	}
	p := filepath.Join(strings.TrimSpace(string(goroot)), "lib", "wasm", "wasm_exec.js")
	if _, err := os.Stat(p); err != nil {
		return "", err
	}
	return p, nil
}

// bundle runs esbuild twice: the page as an ES module, the worker as a classic script with
// Go's wasm_exec.js (a classic script too) bundled in through the "go:wasm_exec" import, so
// that the worker starts the wasm download without first fetching a second script. ES2022
// keeps class fields native instead of lowering them to helpers.
func bundle(root, out, wasmExec string) error {
	common := api.BuildOptions{
		AbsWorkingDir:     root,
		Bundle:            true,
		MinifyWhitespace:  true,
		MinifyIdentifiers: true,
		MinifySyntax:      true,
		Target:            api.ES2022,
		Sourcemap:         api.SourceMapLinked,
		Outdir:            out,
		LogLevel:          api.LogLevelSilent,
		Write:             false,
	}
	page := common
	page.Format = api.FormatESModule
	page.EntryPointsAdvanced = []api.EntryPoint{
		{InputPath: "web/ts/main.ts", OutputPath: "app"},
		{InputPath: "web/css/app.css", OutputPath: "app"},
		// The config lab page (lab.html): its own script and styles beside app.css.
		{InputPath: "web/ts/lab/main.ts", OutputPath: "lab"},
		{InputPath: "web/css/lab.css", OutputPath: "lab"},
		// The lesson index (lessons.html): progress kept in the browser, no wasm.
		{InputPath: "web/ts/lesson/index.ts", OutputPath: "lessons"},
	}
	worker := common
	worker.Format = api.FormatIIFE
	worker.EntryPointsAdvanced = []api.EntryPoint{
		{InputPath: "web/ts/worker.ts", OutputPath: "worker"},
		// The playground's boot script, a classic async script too: it starts the worker while
		// the page is parsed (web/ts/boot.ts).
		{InputPath: "web/ts/boot.ts", OutputPath: "boot"},
	}
	worker.Plugins = []api.Plugin{wasmExecPlugin(wasmExec)}

	for _, opts := range []api.BuildOptions{page, worker} {
		res := api.Build(opts)
		if len(res.Errors) > 0 {
			msgs := api.FormatMessages(res.Errors, api.FormatMessagesOptions{Kind: api.ErrorMessage})
			return errors.New(strings.Join(msgs, ""))
		}
		if len(res.Warnings) > 0 {
			// Warnings in our own small code base are bugs in waiting: fail the build.
			msgs := api.FormatMessages(res.Warnings, api.FormatMessagesOptions{Kind: api.WarningMessage})
			return errors.New(strings.Join(msgs, ""))
		}
		for _, f := range res.OutputFiles {
			if err := os.WriteFile(f.Path, f.Contents, 0o644); err != nil {
				return err
			}
		}
	}
	return nil
}

// wasmExecPlugin resolves the import "go:wasm_exec" to the file wasmExec.
func wasmExecPlugin(wasmExec string) api.Plugin {
	return api.Plugin{Name: "go-wasm-exec", Setup: func(b api.PluginBuild) {
		b.OnResolve(api.OnResolveOptions{Filter: `^go:wasm_exec$`}, func(api.OnResolveArgs) (api.OnResolveResult, error) {
			if wasmExec == "" {
				return api.OnResolveResult{}, errors.New("go:wasm_exec: the path of wasm_exec.js is unknown")
			}
			return api.OnResolveResult{Path: wasmExec}, nil
		})
	}}
}

func renderHTML(ctx context.Context, out, version string, offline bool) error {
	first, err := FirstFrame(version)
	if err != nil {
		return fmt.Errorf("the default cluster's first frame: %w", err)
	}
	data := web.PageData{Version: version, CSP: server.MetaContentSecurityPolicy()}
	if offline {
		data.ServiceWorker = ServiceWorker
	}
	f, err := os.Create(filepath.Join(out, "index.html"))
	if err != nil {
		return err
	}
	page := data
	page.FirstFrame = first
	err = web.Page(page).Render(ctx, f)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	// The config lab page.
	lf, err := os.Create(filepath.Join(out, "lab.html"))
	if err != nil {
		return err
	}
	err = web.LabPage(data).Render(ctx, lf)
	if cerr := lf.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	return renderLessonIndex(ctx, out, data)
}

// DefaultStart is the sim.start request of the playground's default cluster: the start form's
// defaults, as web/ts/early.ts's DEFAULT_START asks for them (a test keeps the two the same).
const DefaultStart = `{"seed":1,"brokers":4,"partitions":12,"configs":{}}`

// FirstFrame returns the default cluster's first frame, as the worker answers the page's first
// sim.advance for it, in a JSON object {"body": the frame, "data": its attachment in base64}.
// The run is deterministic, so the frame is known when the site is built: the page draws it
// before the wasm has arrived (web/ts/prebuilt.ts), and the worker's own, the same, follows.
// The JSON is HTML-escaped, so it can sit in the page's HTML.
func FirstFrame(version string) (string, error) {
	b := bridge.New(bridge.Info{Version: version})
	var body json.RawMessage
	var data []byte
	for _, req := range []string{
		`{"id":1,"type":"sim.start","body":` + DefaultStart + `}`,
		`{"id":2,"type":"sim.advance","body":{"ms":0,"layout":0}}`,
	} {
		out, attached := b.Handle([]byte(req))
		var reply struct {
			OK    bool            `json:"ok"`
			Body  json.RawMessage `json:"body"`
			Error json.RawMessage `json:"error"`
		}
		if err := json.Unmarshal(out, &reply); err != nil {
			return "", err
		}
		if !reply.OK {
			return "", fmt.Errorf("%s: %s", req, reply.Error)
		}
		body, data = reply.Body, attached
	}
	frame, err := json.Marshal(struct {
		Body json.RawMessage `json:"body"`
		Data []byte          `json:"data"`
	}{body, data})
	return string(frame), err
}

// renderLessonIndex writes lessons.html, the lesson index, from the embedded course: the list
// is static HTML, so the index loads no wasm (the lessons' text reaches the playground through
// the worker, which embeds the course to check goals anyway).
func renderLessonIndex(ctx context.Context, out string, data web.PageData) error {
	course, err := lessons.Course()
	if err != nil {
		return err
	}
	entries := make([]web.LessonEntry, len(course))
	for i, l := range course {
		e := web.LessonEntry{ID: l.ID, Title: l.Title, Summary: l.Summary, Number: i + 1, Minutes: bridge.EstimateMinutes(l)}
		for j, s := range l.Steps {
			e.Steps = append(e.Steps, s.Title)
			if !s.Sandbox() {
				e.GoalSteps = append(e.GoalSteps, j)
			}
		}
		for _, k := range l.Links {
			e.Links = append(e.Links, web.LessonRef{Title: k.Title, URL: k.URL})
		}
		entries[i] = e
	}
	f, err := os.Create(filepath.Join(out, "lessons.html"))
	if err != nil {
		return err
	}
	err = web.LessonsPage(data, entries).Render(ctx, f)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// ServiceWorker is the service worker's file name (Options.Offline).
const ServiceWorker = "sw.js"

// serviceWorker bundles web/ts/sw.ts into sw.js with the list of the site's files so far (the
// pages, scripts, styles, wasm programs and static files; not source maps) and a hash of their
// bytes: each build gets its own worker and cache, and a browser installs a new one exactly
// when some file changed.
func serviceWorker(root, out string) error {
	var files []string
	sum := sha256.New()
	err := filepath.WalkDir(out, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			if err == nil && p != out && strings.HasPrefix(d.Name(), ".") {
				return filepath.SkipDir
			}
			return err
		}
		name := filepath.ToSlash(strings.TrimPrefix(p, out+string(filepath.Separator)))
		if strings.HasPrefix(d.Name(), ".") || strings.HasSuffix(name, ".map") {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		files = append(files, name)
		fmt.Fprintf(sum, "%s %d\n", name, len(b))
		sum.Write(b)
		return nil
	})
	if err != nil {
		return err
	}
	list, err := json.Marshal(files)
	if err != nil {
		return err
	}
	res := api.Build(api.BuildOptions{
		AbsWorkingDir:     root,
		EntryPoints:       []string{"web/ts/sw.ts"},
		Bundle:            true,
		MinifyWhitespace:  true,
		MinifyIdentifiers: true,
		MinifySyntax:      true,
		Target:            api.ES2022,
		Format:            api.FormatIIFE,
		Define:            map[string]string{"PRECACHE": string(list), "BUILD": fmt.Sprintf("%q", hex.EncodeToString(sum.Sum(nil)[:8]))},
		Outfile:           filepath.Join(out, ServiceWorker),
		LogLevel:          api.LogLevelSilent,
		Write:             false,
	})
	if msgs := append(res.Errors, res.Warnings...); len(msgs) > 0 {
		return errors.New(strings.Join(api.FormatMessages(msgs, api.FormatMessagesOptions{Kind: api.ErrorMessage}), ""))
	}
	for _, f := range res.OutputFiles {
		if err := os.WriteFile(f.Path, f.Contents, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// notices are the licence files the site ships next to the code they cover: the project's
// own and those of the third-party code bundled or compiled into it.
var notices = map[string]string{"LICENSE": "LICENSE.txt", "THIRD_PARTY_NOTICES.md": "THIRD_PARTY_NOTICES.md"}

// copyNotices copies the repository's licence files into out.
func copyNotices(root, out string) error {
	for src, dst := range notices {
		b, err := os.ReadFile(filepath.Join(root, src))
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(out, dst), b, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// copyTree copies the files under src (web/static) into out, keeping relative paths.
func copyTree(src, out string) error {
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil || rel == "." {
			return err
		}
		if strings.HasPrefix(d.Name(), ".") {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		dst := filepath.Join(out, rel)
		if d.IsDir() {
			return os.MkdirAll(dst, 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(dst, b, 0o644)
	})
}

// compressible lists the extensions worth compressing; images like PNG already are. Source
// maps are left out: only developer tools fetch them, and brotli at its best quality on them
// cost the build seconds for no reader's benefit.
var compressible = map[string]bool{
	".html": true, ".js": true, ".css": true, ".wasm": true, ".svg": true,
	".json": true, ".txt": true, ".md": true,
}

// compression is what compressAll writes: .gz copies at gzipLevel (0: the best), .br copies
// through brotliCache when it is not "" (brotlicache.go), and where it logs.
type compression struct {
	gzip, brotli bool
	gzipLevel    int
	brotliCache  string
	logf         func(string, ...any)
}

// compressAll writes the .gz/.br copies, one goroutine per file (the wasm dominates, so the
// parallelism mostly overlaps it with everything else), and lists every file with its sizes.
func compressAll(out string, c compression) ([]Asset, error) {
	var assets []Asset
	err := filepath.WalkDir(out, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || strings.HasPrefix(d.Name(), ".") {
			return err
		}
		rel, err := filepath.Rel(out, p)
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		assets = append(assets, Asset{Name: filepath.ToSlash(rel), Raw: info.Size()})
		return nil
	})
	if err != nil {
		return nil, err
	}
	sort.Slice(assets, func(i, j int) bool { return assets[i].Name < assets[j].Name })

	var wg sync.WaitGroup
	errs := make([]error, len(assets))
	for i := range assets {
		a := &assets[i]
		if !compressible[strings.ToLower(filepath.Ext(a.Name))] {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = compressOne(filepath.Join(out, filepath.FromSlash(a.Name)), a, c)
		}()
	}
	wg.Wait()
	return assets, errors.Join(errs...)
}

func compressOne(path string, a *Asset, c compression) error {
	raw, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if c.gzip {
		var b bytes.Buffer
		// A zero header (no name, no time) keeps the output byte-identical across builds, so
		// ETags and caches survive a rebuild that changed nothing.
		level := c.gzipLevel
		if level == 0 {
			level = gzip.BestCompression
		}
		w, err := gzip.NewWriterLevel(&b, level)
		if err != nil {
			return err
		}
		if _, err := w.Write(raw); err != nil {
			return err
		}
		if err := w.Close(); err != nil {
			return err
		}
		if a.Gzip, err = writeIfSmaller(path+".gz", b.Bytes(), len(raw)); err != nil {
			return err
		}
	}
	if c.brotli {
		var b []byte
		if c.brotliCache != "" && cachedFile(a.Name) {
			var hit bool
			if b, hit, err = brotliCached(c.brotliCache, raw); hit {
				c.logf("%-10s %s: its copy from the cache (%s)", "brotli", a.Name, c.brotliCache)
			}
		} else {
			b, err = brotliBest(raw)
		}
		if err != nil {
			return err
		}
		if a.Brotli, err = writeIfSmaller(path+".br", b, len(raw)); err != nil {
			return err
		}
	}
	return nil
}

// BrotliWindow is the base-2 logarithm of the brotli window the .br copies are written with:
// the format's largest (16 MiB), so that a match can reach back across a whole wasm program.
const BrotliWindow = 24

// brotliCommand is the brotli command on the PATH (Google's C encoder), or "" if there is
// none; looked up once per process.
var brotliCommand = sync.OnceValue(func() string {
	p, err := exec.LookPath("brotli")
	if err != nil {
		return ""
	}
	return p
})

// brotliBest compresses raw at brotli's best quality (11) with BrotliWindow. It runs the brotli
// command when there is one: Google's C encoder takes about two thirds of the CPU time of
// andybalholm/brotli, its translation to Go, on a wasm program (tens of seconds each at this
// quality), and writes the same bytes (TestBrotliCommandWritesWhatTheLibraryWrites). Without
// it, the library does the work, so a build needs nothing but Go.
func brotliBest(raw []byte) ([]byte, error) {
	if cmd := brotliCommand(); cmd != "" {
		c := exec.Command(cmd, "--quality=11", fmt.Sprintf("--lgwin=%d", BrotliWindow), "--stdout")
		c.Stdin = bytes.NewReader(raw)
		var stderr bytes.Buffer
		c.Stderr = &stderr
		out, err := c.Output()
		if err != nil {
			return nil, fmt.Errorf("%s: %w: %s", cmd, err, strings.TrimSpace(stderr.String()))
		}
		return out, nil
	}
	return brotliLibrary(raw)
}

// brotliLibrary is brotliBest with andybalholm/brotli.
func brotliLibrary(raw []byte) ([]byte, error) {
	var b bytes.Buffer
	w := brotli.NewWriterOptions(&b, brotli.WriterOptions{Quality: brotli.BestCompression, LGWin: BrotliWindow})
	if _, err := w.Write(raw); err != nil {
		return nil, err
	}
	if err := w.Close(); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// writeIfSmaller writes a compressed copy only when it saves bytes: for a tiny file the
// container overhead can exceed the gain, and then the original is the better thing to send.
func writeIfSmaller(path string, b []byte, raw int) (int64, error) {
	if len(b) >= raw {
		return 0, nil
	}
	return int64(len(b)), os.WriteFile(path, b, 0o644)
}

// Page is one page of the site and what a browser fetches on its first load (source maps are
// fetched only by developer tools). The size budget, 1.2 MB brotli, is per page load.
type Page struct {
	Name  string
	Files []string
}

// Pages are the site's pages with what each loads: the playground its wasm through worker.js,
// the config lab its own (its first worker starts as the page opens, for lab.presets), the
// lesson index no wasm at all.
var Pages = []Page{
	{Name: "index.html", Files: []string{"index.html", "favicon.svg", "boot.js", "app.css", "app.js", "worker.js", "kraftlab.wasm"}},
	{Name: "lab.html", Files: []string{"lab.html", "favicon.svg", "app.css", "lab.css", "lab.js", "worker.js", "lab.wasm"}},
	{Name: "lessons.html", Files: []string{"lessons.html", "favicon.svg", "app.css", "lessons.js"}},
}

// Load adds up the sizes of what page loads, as a client that accepts each encoding downloads
// them (the compressed copy when there is one); a file not among assets counts nothing.
func (p Page) Load(assets []Asset) Asset {
	total := Asset{Name: "load " + p.Name}
	for _, a := range assets {
		if !slices.Contains(p.Files, Unhashed(a.Name)) {
			continue
		}
		total.Raw += a.Raw
		total.Gzip += sent(a.Gzip, a.Raw)
		total.Brotli += sent(a.Brotli, sent(a.Gzip, a.Raw))
	}
	return total
}

// WriteSizes prints the assets as a table of raw, gzip and brotli sizes, then the total a
// browser downloads on a load of each page of Pages that is among them.
func WriteSizes(w io.Writer, assets []Asset) {
	fmt.Fprintf(w, "%-22s %12s %12s %12s\n", "asset", "raw", "gzip", "brotli")
	var anyGzip, anyBrotli bool
	for _, a := range assets {
		fmt.Fprintf(w, "%-22s %12s %12s %12s\n", a.Name, size(a.Raw), size(a.Gzip), size(a.Brotli))
		anyGzip = anyGzip || a.Gzip > 0
		anyBrotli = anyBrotli || a.Brotli > 0
	}
	for _, p := range Pages {
		if !slices.ContainsFunc(assets, func(a Asset) bool { return Unhashed(a.Name) == p.Name }) {
			continue
		}
		total := p.Load(assets)
		// A column of a build without that encoding stays empty rather than repeating another.
		if !anyGzip {
			total.Gzip = 0
		}
		if !anyBrotli {
			total.Brotli = 0
		}
		fmt.Fprintf(w, "%-22s %12s %12s %12s\n", total.Name, size(total.Raw), size(total.Gzip), size(total.Brotli))
	}
}

// sent is what a client that accepts the encoding downloads: the copy if there is one.
func sent(compressed, fallback int64) int64 {
	if compressed > 0 {
		return compressed
	}
	return fallback
}

func size(n int64) string {
	if n == 0 {
		return "-"
	}
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// The size budgets of the release build, brotli-compressed: what a visitor downloads.
const (
	// WasmBudget is the most one wasm program may weigh.
	WasmBudget = 1_000_000
	// PageBudget is the most one page's first load (Page.Load) may weigh.
	PageBudget = 1_200_000
)

// OverBudget lists, one line each, what in a release build's assets exceeds WasmBudget or
// PageBudget. Without brotli copies there is nothing to measure, and it says so.
func OverBudget(assets []Asset) []string {
	var over []string
	brotli := slices.ContainsFunc(assets, func(a Asset) bool { return a.Brotli > 0 })
	if !brotli {
		return []string{"the build has no brotli copies, so its budgets cannot be checked (build it as make dist does)"}
	}
	for _, a := range assets {
		if strings.HasSuffix(a.Name, ".wasm") && sent(a.Brotli, a.Raw) > WasmBudget {
			msg := fmt.Sprintf("%s: %s bytes brotli, over the %s budget per wasm", a.Name, size(sent(a.Brotli, a.Raw)), size(WasmBudget))
			if a.Shrink != "" && a.Shrink != ShrinkStripped {
				msg += " (" + a.Shrink + ")"
			}
			over = append(over, msg)
		}
	}
	for _, p := range Pages {
		if !slices.ContainsFunc(assets, func(a Asset) bool { return Unhashed(a.Name) == p.Name }) {
			continue
		}
		if load := p.Load(assets); load.Brotli > PageBudget {
			over = append(over, fmt.Sprintf("%s: %s bytes brotli, over the %s budget per page load", load.Name, size(load.Brotli), size(PageBudget)))
		}
	}
	return over
}
