package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/heapprofiler"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/performance"
	"github.com/chromedp/cdproto/profiler"
	"github.com/chromedp/cdproto/tracing"
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"github.com/kraftlab/kraftlab/lab"
	"github.com/kraftlab/kraftlab/wasm/bridge"
	"github.com/kraftlab/kraftlab/web/build"
)

// TestBenchPage is `make bench-page`: the page's figures in headless Chromium, measured and
// printed as a Markdown table, never asserted (CI runs none of it). Every figure is measured
// for each site in turn, so that with two sites (KRAFTLAB_BENCH_SITES=before=DIR,after=DIR)
// both see the same machine load; without it, it builds this tree's release site.
//
//	KRAFTLAB_BENCH_PAGE=1            run it (make bench-page sets it)
//	KRAFTLAB_BENCH_SITES=a=DIR,b=DIR the built sites to compare, in this order
//	KRAFTLAB_BENCH_ONLY=speed,load,memory,week,fast,lab   a subset of the sections
//	KRAFTLAB_BENCH_ONLY=profile      the main thread's and the worker's CPU profile and trace at 10,000 partitions (only when named)
//	KRAFTLAB_BENCH_PROFILE_AT=N@X    profile N partitions at X× instead (12@1: the default cluster at 1×)
//	KRAFTLAB_BENCH_PROFILE_DIR=DIR   where profile writes each site's trace and .cpuprofile files (DevTools opens them)
//	KRAFTLAB_BENCH_SPEED_AT=N,M      the speed section on these cluster sizes only (12, 10000 and 100000 by default)
//	KRAFTLAB_BENCH_SPEEDS=X,Y        the speed section at these speeds only (1, 10, 100, 1000 and 10000 by default)
//	KRAFTLAB_BENCH_FAST_MINUTES=N    how long the fast section plays at 10,000× (10)
//	KRAFTLAB_BENCH_MEMORY_AT=N       the memory section on N partitions only (12 and 100000 by default)
//	KRAFTLAB_BENCH_MEMORY_DETAIL=1   memory-infra's allocators with their children
//	KRAFTLAB_BENCH_LAB_PROFILE=DIR   the lab section profiles its fifth compare: the workers' and the main thread's .cpuprofile in DIR
func TestBenchPage(t *testing.T) {
	if os.Getenv("KRAFTLAB_BENCH_PAGE") == "" {
		t.Skip("a benchmark, not a test (about 15 minutes): make bench-page")
	}
	exe := chromiumPath(t)
	sites := benchSites(t)
	only := os.Getenv("KRAFTLAB_BENCH_ONLY")
	want := func(section string) bool { return only == "" || strings.Contains(","+only+",", ","+section+",") }
	table := &benchTable{}
	for _, s := range sites {
		table.sites = append(table.sites, s.name)
	}
	urls := make([]string, len(sites))
	for i, s := range sites {
		urls[i] = serve(t, s.dir, nil)
	}
	if want("speed") {
		benchSpeeds(t, exe, urls, table)
	}
	if want("load") {
		benchLoads(t, exe, urls, table)
	}
	if want("memory") {
		benchMemory(t, exe, urls, table)
	}
	if want("week") {
		benchWeek(t, exe, urls, table)
	}
	if want("fast") {
		benchFast(t, exe, urls, table)
	}
	if want("lab") {
		benchLab(t, exe, urls, table)
	}
	if strings.Contains(","+only+",", ",profile,") {
		benchProfile(t, exe, sites, urls)
	}
	version, _ := exec.Command(exe, "--version").Output()
	fmt.Printf("\n%s, %d cores, %s, load average %s\n\n", time.Now().UTC().Format("2006-01-02 15:04 MST"),
		runtime.NumCPU(), strings.TrimSpace(string(version)), loadAverage())
	table.write(os.Stdout)
}

type benchSite struct{ name, dir string }

// benchSites reads KRAFTLAB_BENCH_SITES, or builds this tree's release site (brotli too: the
// network profiles download what a static host sends).
func benchSites(t *testing.T) []benchSite {
	if v := os.Getenv("KRAFTLAB_BENCH_SITES"); v != "" {
		var out []benchSite
		for _, part := range strings.Split(v, ",") {
			name, dir, ok := strings.Cut(part, "=")
			require.True(t, ok, "KRAFTLAB_BENCH_SITES: %q is not name=dir", part)
			_, err := os.Stat(filepath.Join(dir, build.Marker))
			require.NoError(t, err, "KRAFTLAB_BENCH_SITES: %s is not a built site", dir)
			out = append(out, benchSite{name, dir})
		}
		return out
	}
	dir := filepath.Join(t.TempDir(), "dist")
	_, err := build.Build(context.Background(), build.Options{Out: dir, Version: version, Gzip: true, Brotli: true, Offline: true, Hash: true})
	require.NoError(t, err)
	return []benchSite{{"this tree", dir}}
}

// benchTable collects figures by row, one column per site, in the order they came.
type benchTable struct {
	sites []string
	rows  []string
	cells map[string][]string
}

func (b *benchTable) set(row string, site int, value string) {
	if b.cells == nil {
		b.cells = map[string][]string{}
	}
	if _, ok := b.cells[row]; !ok {
		b.rows = append(b.rows, row)
		b.cells[row] = make([]string, len(b.sites))
	}
	b.cells[row][site] = value
	fmt.Printf("  %s [%s]: %s\n", row, b.sites[site], value)
}

func (b *benchTable) write(w *os.File) {
	fmt.Fprintf(w, "| figure | %s |\n|---|%s\n", strings.Join(b.sites, " | "), strings.Repeat("---|", len(b.sites)))
	for _, r := range b.rows {
		fmt.Fprintf(w, "| %s | %s |\n", r, strings.Join(b.cells[r], " | "))
	}
}

// benchBrowser starts a fresh headless Chromium (fresh profile: no HTTP or code cache).
func benchBrowser(t *testing.T, exe string) (context.Context, context.CancelFunc) {
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(exe), chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.Flag("disable-quic", true), chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-background-networking", true), chromedp.Flag("disable-sync", true),
		chromedp.UserDataDir(t.TempDir()), chromedp.WindowSize(1280, 900))
	actx, cancelA := chromedp.NewExecAllocator(context.Background(), opts...)
	bctx, cancelB := chromedp.NewContext(actx)
	require.NoError(t, chromedp.Do(bctx))
	return context.WithValue(bctx, fullFrameRate{}, true), func() { cancelB(); cancelA() }
}

// benchTab opens a tab with a long budget: a 100,000-partition page takes a while to start on
// a loaded machine.
func benchTab(t *testing.T, bctx context.Context) *tab {
	tb := newTab(t, bctx)
	ctx, cancel := context.WithTimeout(context.WithoutCancel(tb.ctx), 10*time.Minute)
	t.Cleanup(cancel)
	tb.ctx = ctx
	return tb
}

// longTab is a benchTab for the memory section's long runs (an hour).
func longTab(t *testing.T, bctx context.Context) *tab {
	tb := benchTab(t, bctx)
	ctx, cancel := context.WithTimeout(context.WithoutCancel(tb.ctx), time.Hour)
	t.Cleanup(cancel)
	tb.ctx = ctx
	return tb
}

// bigLink is a share link to a cluster of n partitions (6 brokers, replication factor 3).
func bigLink(n int) string {
	return link("1", "0", fmt.Sprintf(`{"seed":1,"duration_ms":1000,"cluster":{"brokers":6,"topics":[{"name":"payments","partition_count":%d,"replication_factor":3}]}}`, n))
}

// openCluster opens the playground at 12 partitions (the default cluster) or at n through a
// share link, waits for its frames, and leaves it playing.
func openCluster(t *testing.T, tb *tab, url string, n int) {
	t.Helper()
	target := url + "/"
	if n != 12 {
		target += bigLink(n)
	}
	require.NoError(t, chromedp.Do(tb.ctx, chromedp.EmulateViewport(1280, 900), chromedp.Navigate(target)))
	poll(t, tb, `document.getElementById("status").dataset.state === "ready"`)
	poll(t, tb, `Number(document.getElementById("cluster-canvas").dataset.frames || 0) >= 1`)
	if eval[string](t, tb, `document.body.dataset.sim`) != "playing" {
		press(t, tb, " ")
		poll(t, tb, `document.body.dataset.sim === "playing"`)
	}
}

// pageSample is what the page shows at one moment and the main thread's busy time so far.
type pageSample struct {
	wall          time.Time
	frames, simMs float64
	taskSeconds   float64
}

func samplePage(t *testing.T, tb *tab) pageSample {
	t.Helper()
	v := eval[[]float64](t, tb, `(() => { const d = document.getElementById("cluster-canvas").dataset; return [Number(d.frames), Number(d.timeMs)]; })()`)
	s := pageSample{wall: time.Now(), frames: v[0], simMs: v[1]}
	require.NoError(t, chromedp.Do(tb.ctx, chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		res, err := cdp.Call(ctx, tg, performance.GetMetrics, cdp.Empty{})
		for _, m := range res.Metrics {
			if m.Name == "TaskDuration" {
				s.taskSeconds = m.Value
			}
		}
		return err
	})))
	return s
}

// benchSpeeds: frames drawn per second, the cluster time per wall time reached, and the main
// thread's busy time per frame, at each offered speed on 12, 10,000 and 100,000 partitions.
func benchSpeeds(t *testing.T, exe string, urls []string, table *benchTable) {
	speeds := benchList(t, "KRAFTLAB_BENCH_SPEEDS", []int{1, 10, 100, 1000, 10_000})
	sizes := benchList(t, "KRAFTLAB_BENCH_SPEED_AT", []int{12, 10_000, 100_000})
	for _, n := range sizes {
		for site, url := range urls {
			bctx, stop := benchBrowser(t, exe)
			tb := benchTab(t, bctx)
			require.NoError(t, chromedp.Do(tb.ctx, chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
				_, err := cdp.Call(ctx, tg, performance.Enable, performance.EnableParams{})
				return err
			})))
			openCluster(t, tb, url, n)
			for _, x := range speeds {
				setSpeed(t, tb, x)
				time.Sleep(2 * time.Second) // the new speed settles, V8 tiers up
				a := samplePage(t, tb)
				time.Sleep(5 * time.Second)
				b := samplePage(t, tb)
				wall := b.wall.Sub(a.wall).Seconds()
				frames := b.frames - a.frames
				perFrame := 0.0
				if frames > 0 {
					perFrame = (b.taskSeconds - a.taskSeconds) * 1000 / frames
				}
				table.set(fmt.Sprintf("%s partitions at %s×: fps, speed reached, main-thread ms per frame", thousands(n), thousands(x)), site,
					fmt.Sprintf("%.0f fps, %s×, %.1f ms", frames/wall, thousands(int(math.Round((b.simMs-a.simMs)/1000/wall))), perFrame))
			}
			stop()
		}
	}
}

// benchList reads a comma-separated list of numbers from the environment variable name, or
// returns def when it is unset.
func benchList(t *testing.T, name string, def []int) []int {
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	var out []int
	for _, f := range strings.Split(v, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		require.NoError(t, err, "%s: %q is not a comma-separated list of numbers", name, v)
		out = append(out, n)
	}
	return out
}

// benchProfile traces 5 s of play at 10,000× on 10,000 partitions (the main thread by kind of
// work, the worker's thread busy and idle), then records the page's main thread and its
// worker with the DevTools protocol's CPU profiler for 5 s more and prints the functions with
// the most self time and the most time on the stack (the main thread's minified names with
// their script, line and column: the source maps beside the scripts name them; the worker's
// wasm functions by name only in a site whose kraftlab.wasm was linked without -s: build.go
// with -lines, its buildWasm's -ldflags less -s), and writes the trace and the profiles to KRAFTLAB_BENCH_PROFILE_DIR, if set,
// for DevTools.
func benchProfile(t *testing.T, exe string, sites []benchSite, urls []string) {
	n, x := 10_000, 10_000
	if at := os.Getenv("KRAFTLAB_BENCH_PROFILE_AT"); at != "" {
		_, err := fmt.Sscanf(at, "%d@%d", &n, &x)
		require.NoError(t, err, "KRAFTLAB_BENCH_PROFILE_AT: %q is not N@X (partitions@speed)", at)
	}
	for site, url := range urls {
		bctx, stop := benchBrowser(t, exe)
		tb := benchTab(t, bctx)
		openCluster(t, tb, url, n)
		setSpeed(t, tb, x)
		time.Sleep(2 * time.Second)
		fmt.Printf("  main thread at %s partitions, %s× [%s], 5 s traced, busy time by kind (self CPU time, ms per frame drawn):\n", thousands(n), thousands(x), sites[site].name)
		printMainThreadTrace(t, tb, sites[site].name)
		// The page's main thread and its worker, profiled over the same 5 s.
		stopProfiles := startProfiles(t, bctx, tb)
		time.Sleep(5 * time.Second)
		profs := stopProfiles()
		stop()
		for i, prof := range profs {
			what, name := "worker", fmt.Sprintf("%s-worker%d", sites[site].name, i)
			if i == len(profs)-1 {
				what, name = "main thread", sites[site].name
			}
			if dir := os.Getenv("KRAFTLAB_BENCH_PROFILE_DIR"); dir != "" {
				b, err := json.Marshal(prof)
				require.NoError(t, err)
				file := filepath.Join(dir, name+".cpuprofile")
				require.NoError(t, os.WriteFile(file, b, 0o644))
				fmt.Printf("  profile [%s]: %s\n", name, file)
			}
			printProfile(prof, fmt.Sprintf("%s at %s partitions, %s× [%s]", what, thousands(n), thousands(x), sites[site].name))
		}
	}
}

// printProfile prints the functions with the most self time in a DevTools CPU profile, and
// those with the most time on the stack (each sample counted once per function, however deep
// it recurses): for a worker, how its time splits between the cluster's run, the frame's
// encoding, Go's collector and waiting ("(idle)").
func printProfile(prof *profiler.Profile, title string) {
	byID := map[int64]*profiler.ProfileNode{}
	parent := map[int64]int64{}
	for _, n := range prof.Nodes {
		byID[n.ID] = n
		for _, c := range n.Children {
			parent[c] = n.ID
		}
	}
	name := func(n *profiler.ProfileNode) string {
		f := n.CallFrame
		if f.URL == "" || strings.HasPrefix(f.URL, "wasm://") {
			return f.FunctionName
		}
		return fmt.Sprintf("%s %s:%d:%d", f.FunctionName, path.Base(f.URL), f.LineNumber+1, f.ColumnNumber+1)
	}
	self, cum := map[string]float64{}, map[string]float64{}
	total := 0.0
	for i, id := range prof.Samples {
		dt := float64(prof.TimeDeltas[i]) / 1000
		self[name(byID[id])] += dt
		total += dt
		seen := map[string]bool{}
		for n, ok := id, true; ok; n, ok = parent[n] {
			if k := name(byID[n]); !seen[k] {
				seen[k] = true
				cum[k] += dt
			}
		}
	}
	top := func(m map[string]float64, what string, count int) {
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Slice(keys, func(i, j int) bool { return m[keys[i]] > m[keys[j]] })
		fmt.Printf("  %s, %.0f ms profiled, %s:\n", title, total, what)
		for _, k := range keys[:min(count, len(keys))] {
			fmt.Printf("    %7.1f ms %5.1f %%  %s\n", m[k], 100*m[k]/total, k)
		}
	}
	top(self, "self time", 25)
	top(cum, "time on the stack", 40)
}

// traceEvent is what the profile section reads of a DevTools trace event.
type traceEvent struct {
	Name string  `json:"name"`
	Ph   string  `json:"ph"`
	Pid  int     `json:"pid"`
	Tid  int     `json:"tid"`
	Ts   float64 `json:"ts"`
	Dur  float64 `json:"dur"`
	TDur float64 `json:"tdur"`
	Args struct {
		Name string `json:"name"`
		// Layout: the objects that needed layout, of all the layout tree's.
		BeginData struct {
			DirtyObjects int `json:"dirtyObjects"`
		} `json:"beginData"`
	} `json:"args"`
}

// printMainThreadTrace traces 5 s of the page's main thread (the DevTools timeline's events)
// and prints the self CPU time of each kind of event per frame drawn: script (FunctionCall,
// TimerFire, FireAnimationFrame...), style (UpdateLayoutTree), layout, paint, compositing.
// It says what the CPU profile's "(program)" is: the browser's own work on what scripts changed.
// It also prints how often the page was painted and laid out again and what each cost: a
// small change that costs a large Paint says the page around it is not isolated; and the
// CPU time of the page's whole renderer process over the same span (every thread: the
// workers', the compositor's, rasterizing, and tracing's own), which a change that moves work
// off the main thread to another thread must be weighed by. With
// KRAFTLAB_BENCH_PROFILE_DIR set, the trace goes to DIR/<site>.trace.json (DevTools opens it).
func printMainThreadTrace(t *testing.T, tb *tab, site string) {
	t.Helper()
	page := pageRenderer(t, tb)
	frames := func() float64 {
		return eval[float64](t, tb, `Number(document.getElementById("cluster-canvas").dataset.frames)`)
	}
	var drawn float64
	var rendererCPU time.Duration
	events := recordTrace(t, tb, []string{"devtools.timeline", "disabled-by-default-devtools.timeline", "toplevel", "v8"}, func() {
		f0 := frames()
		cpu0 := processCPU(t, page)
		time.Sleep(5 * time.Second)
		drawn = frames() - f0
		rendererCPU = processCPU(t, page) - cpu0
	})
	if dir := os.Getenv("KRAFTLAB_BENCH_PROFILE_DIR"); dir != "" {
		b, err := json.Marshal(map[string]any{"traceEvents": events})
		require.NoError(t, err)
		file := filepath.Join(dir, site+".trace.json")
		require.NoError(t, os.WriteFile(file, b, 0o644))
		fmt.Printf("    trace [%s]: %s\n", site, file)
	}
	main := -1
	workers := map[int]bool{}
	var xs []traceEvent
	for _, raw := range events {
		var e traceEvent
		if json.Unmarshal(raw, &e) != nil || e.Pid != page {
			continue
		}
		if e.Ph == "M" && e.Name == "thread_name" && e.Args.Name == "CrRendererMain" {
			main = e.Tid
		}
		if e.Ph == "M" && e.Name == "thread_name" && e.Args.Name == "DedicatedWorker thread" {
			workers[e.Tid] = true
		}
		if e.Ph == "X" {
			xs = append(xs, e)
		}
	}
	// How often the page was painted and laid out again, and what each cost (thread CPU,
	// children included).
	var paintCPU, layoutCPU, layoutDirty float64
	var paints, layouts int
	for _, e := range xs {
		if e.Tid != main {
			continue
		}
		switch e.Name {
		case "Paint":
			paints++
			paintCPU += e.TDur
		case "Layout":
			layouts++
			layoutCPU += e.TDur
			layoutDirty += float64(e.Args.BeginData.DirtyObjects)
		}
	}
	// Self time: an event's duration less its children's (complete events on one thread nest).
	sort.Slice(xs, func(i, j int) bool {
		if xs[i].Ts != xs[j].Ts {
			return xs[i].Ts < xs[j].Ts
		}
		return xs[i].Dur > xs[j].Dur
	})
	// The thread's CPU time (tdur), not wall time: a loaded machine stretches the wall time of
	// what the page does, far less its CPU time.
	self := map[string]float64{}
	var stack []int
	total, wall := 0.0, 0.0
	for i, e := range xs {
		if e.Tid != main {
			continue
		}
		for len(stack) > 0 && xs[stack[len(stack)-1]].Ts+xs[stack[len(stack)-1]].Dur <= e.Ts {
			stack = stack[:len(stack)-1]
		}
		if len(stack) > 0 {
			self[xs[stack[len(stack)-1]].Name] -= e.TDur
		} else {
			total += e.TDur
			wall += e.Dur
		}
		self[e.Name] += e.TDur
		stack = append(stack, i)
	}
	keys := make([]string, 0, len(self))
	for k := range self {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return self[keys[i]] > self[keys[j]] })
	per := max(drawn, 1)
	fmt.Printf("    %d frames drawn, %.2f ms CPU (%.2f ms wall) busy per frame; the whole renderer process (every thread, tracing's own cost included) %.2f ms CPU per frame\n",
		int(drawn), total/1000/per, wall/1000/per, float64(rendererCPU.Microseconds())/1000/per)
	fmt.Printf("    painted %.2f times a frame, %.3f ms CPU each; laid out %.2f times a frame, %.3f ms CPU and %.1f dirty objects each\n",
		float64(paints)/per, paintCPU/1000/float64(max(paints, 1)), float64(layouts)/per, layoutCPU/1000/float64(max(layouts, 1)), layoutDirty/float64(max(layouts, 1)))
	for _, k := range keys[:min(20, len(keys))] {
		fmt.Printf("    %6.2f ms %5.1f %%  %s\n", self[k]/1000/per, 100*self[k]/total, k)
	}
	for tid := range workers {
		printWorkerThread(xs, tid, drawn)
	}
}

// printWorkerThread prints a worker thread's share of the traced span: its tasks' wall and CPU
// time (busy), also per frame drawn, the rest (idle: waiting for a message), how the idle time
// comes in gaps between tasks, and its tasks' self time by kind of event, wall and CPU (wall
// time alone would count the time a loaded machine left the thread waiting for a core). xs are
// the trace's complete events, sorted by start.
func printWorkerThread(xs []traceEvent, tid int, drawn float64) {
	first, last := math.Inf(1), math.Inf(-1)
	for _, e := range xs {
		first, last = min(first, e.Ts), max(last, e.Ts+e.Dur)
	}
	self := map[string]float64{}
	selfCPU := map[string]float64{}
	var stack []int
	var gaps []float64
	busyWall, busyCPU, end := 0.0, 0.0, -1.0
	tasks := 0
	for i, e := range xs {
		if e.Tid != tid {
			continue
		}
		for len(stack) > 0 && xs[stack[len(stack)-1]].Ts+xs[stack[len(stack)-1]].Dur <= e.Ts {
			stack = stack[:len(stack)-1]
		}
		if len(stack) > 0 {
			self[xs[stack[len(stack)-1]].Name] -= e.Dur
			selfCPU[xs[stack[len(stack)-1]].Name] -= e.TDur
		} else {
			tasks++
			busyWall += e.Dur
			busyCPU += e.TDur
			if end >= 0 {
				gaps = append(gaps, (e.Ts-end)/1000)
			}
			end = e.Ts + e.Dur
		}
		self[e.Name] += e.Dur
		selfCPU[e.Name] += e.TDur
		stack = append(stack, i)
	}
	span := (last - first) / 1000
	sort.Float64s(gaps)
	q := func(f float64) float64 {
		if len(gaps) == 0 {
			return 0
		}
		return gaps[int(f*float64(len(gaps)-1))]
	}
	fmt.Printf("    worker thread %d: %.0f ms traced, busy %.0f ms wall (%.1f %%, %.0f ms CPU) in %d tasks, idle %.0f ms; gaps between tasks: median %.2f ms, 90th percentile %.2f ms, longest %.2f ms; %.2f ms of wall time (%.2f ms CPU) busy per frame drawn\n",
		tid, span, busyWall/1000, 100*busyWall/1000/span, busyCPU/1000, tasks, span-busyWall/1000, q(0.5), q(0.9), q(1), busyWall/1000/max(drawn, 1), busyCPU/1000/max(drawn, 1))
	keys := make([]string, 0, len(self))
	for k := range self {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return self[keys[i]] > self[keys[j]] })
	for _, k := range keys[:min(12, len(keys))] {
		fmt.Printf("      %8.1f ms wall %5.1f %%, %6.1f ms CPU  %s\n", self[k]/1000, 100*self[k]/busyWall, selfCPU[k]/1000, k)
	}
}

// benchLoads: the first drawn frame and the interactive page (the Configs panel rendered, the
// last step of start-up) on a cold load under two network profiles and on loopback, and a
// second visit (same profile, so from the HTTP cache) under the faster profile. Medians of
// three cold loads.
func benchLoads(t *testing.T, exe string, urls []string, table *benchTable) {
	profiles := []struct {
		name             string
		latencyMs, kbits float64
	}{{"9 Mbit/s, 40 ms", 40, 9000}, {"1.6 Mbit/s, 150 ms", 150, 1600}, {"loopback", 0, 0}}
	const rounds = 3
	for _, p := range profiles {
		drawn := make([][]float64, len(urls))
		ready := make([][]float64, len(urls))
		again := make([][]float64, len(urls))
		for r := 0; r < rounds; r++ {
			for site, url := range urls {
				bctx, stop := benchBrowser(t, exe)
				tb := benchTab(t, bctx)
				if p.kbits > 0 {
					require.NoError(t, chromedp.Do(tb.ctx, chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
						if _, err := cdp.Call(ctx, tg, network.Enable, network.EnableParams{}); err != nil {
							return err
						}
						bps := p.kbits * 1000 / 8
						_, err := cdp.Call(ctx, tg, network.EmulateNetworkConditionsByRule, network.EmulateNetworkConditionsByRuleParams{
							MatchedNetworkConditions: []*network.Conditions{{Latency: p.latencyMs, DownloadThroughput: bps, UploadThroughput: bps}},
						})
						return err
					})))
				}
				// waitFor, not poll: chromedp's Poll does not see a page its service worker served.
				load := func() map[string]float64 {
					require.NoError(t, chromedp.Do(tb.ctx, chromedp.EmulateViewport(1280, 900), chromedp.Navigate(url+"/")))
					waitFor(t, tb, `performance.getEntriesByName("kraftlab:configs-rendered").length > 0`)
					return marks(t, tb)
				}
				// The cluster is drawn at the prebuilt frame where the page has one.
				drawnAt := func(m map[string]float64) float64 {
					if v, ok := m["first-paint"]; ok {
						return v
					}
					return m["first-frame"]
				}
				m := load()
				drawn[site] = append(drawn[site], drawnAt(m))
				ready[site] = append(ready[site], m["configs-rendered"])
				if p.kbits == 9000 {
					// A site with a service worker: the second visit comes once it is installed,
					// as a visitor's next visit would.
					evalAwait[bool](t, tb, `(async () => {
						if (!document.querySelector('meta[name="kraftlab-offline"]')) return true;
						const r = await navigator.serviceWorker.ready;
						if (r.active.state !== "activated") await new Promise(done => r.active.addEventListener("statechange", e => e.target.state === "activated" && done()));
						return true;
					})()`)
					m = load()
					again[site] = append(again[site], drawnAt(m))
				}
				stop()
			}
		}
		for site := range urls {
			table.set("first frame drawn / interactive, "+p.name+" (ms, median of 3 cold loads)", site,
				fmt.Sprintf("%.0f / %.0f", median(drawn[site]), median(ready[site])))
			if len(again[site]) > 0 {
				table.set("second visit, first frame drawn, "+p.name+" (ms)", site, fmt.Sprintf("%.0f", median(again[site])))
			}
		}
	}
}

// benchMemory: the page's renderer process's memory and the worker's after 60 s of play at the
// default speed (10×), on 12 and on 100,000 partitions, and where the page's renderer holds it.
func benchMemory(t *testing.T, exe string, urls []string, table *benchTable) {
	sizes := []int{12, 100_000}
	if v := os.Getenv("KRAFTLAB_BENCH_MEMORY_AT"); v != "" {
		n, err := strconv.Atoi(v)
		require.NoError(t, err, "KRAFTLAB_BENCH_MEMORY_AT")
		sizes = []int{n}
	}
	for _, n := range sizes {
		for site, url := range urls {
			bctx, stop := benchBrowser(t, exe)
			tb := benchTab(t, bctx)
			openCluster(t, tb, url, n)
			time.Sleep(60 * time.Second)
			table.set(fmt.Sprintf("memory after 60 s of play at 10×, %s partitions: the page's renderer RSS (private), worker's Go heap / linear memory", thousands(n)), site,
				memoryFigure(t, bctx, tb))
			table.set(fmt.Sprintf("where the page's renderer memory goes then, %s partitions (memory-infra)", thousands(n)), site,
				memoryBreakdown(t, tb))
			collectGarbage(t, tb)
			table.set(fmt.Sprintf("the same after a forced collection in the page, %s partitions: the page's renderer RSS (private); memory-infra", thousands(n)), site,
				memoryFigure(t, bctx, tb)+"; "+memoryBreakdown(t, tb))
			stop()
		}
	}
}

// benchWeek: seven days of the default cluster through a share link; the worker replays it as
// fast as it can, whatever the page's frame rate, so this reaches the end of cluster time on
// a machine where playing at 10,000× does not.
func benchWeek(t *testing.T, exe string, urls []string, table *benchTable) {
	week := link("1", "604800000", `{"seed":1,"duration_ms":1000,"cluster":{"brokers":4,"topics":[{"name":"payments","partition_count":12,"replication_factor":3}]}}`)
	for site, url := range urls {
		bctx, stop := benchBrowser(t, exe)
		tb := longTab(t, bctx)
		start := time.Now()
		require.NoError(t, chromedp.Do(tb.ctx, chromedp.EmulateViewport(1280, 900), chromedp.Navigate(url+"/"+week)))
		for !eval[bool](t, tb, `document.body.dataset.replay === "done" || Number(document.getElementById("cluster-canvas").dataset.timeMs) === 604800000`) {
			require.Less(t, time.Since(start), 60*time.Minute, "the 7-day replay did not end")
			time.Sleep(2 * time.Second)
		}
		table.set("7 days of the default cluster replayed from a link: wall time; the page's renderer RSS (private), worker's Go heap / linear memory", site,
			fmt.Sprintf("%.0f s; %s", time.Since(start).Seconds(), memoryFigure(t, bctx, tb)))
		stop()
	}
}

// benchFast: the default cluster played at 10,000× for KRAFTLAB_BENCH_FAST_MINUTES minutes
// (default 10), which reaches the page's 7-day limit if the page keeps up, with its memory
// each minute.
func benchFast(t *testing.T, exe string, urls []string, table *benchTable) {
	minutes := 10
	if v := os.Getenv("KRAFTLAB_BENCH_FAST_MINUTES"); v != "" {
		var err error
		minutes, err = strconv.Atoi(v)
		require.NoError(t, err, "KRAFTLAB_BENCH_FAST_MINUTES")
	}
	for site, url := range urls {
		bctx, stop := benchBrowser(t, exe)
		tb := longTab(t, bctx)
		openCluster(t, tb, url, 12)
		setSpeed(t, tb, 10_000)
		start := time.Now()
		peak := 0.0
		for m := 1; m <= minutes; m++ {
			time.Sleep(time.Until(start.Add(time.Duration(m) * time.Minute)))
			rss, _ := rendererRSS(t, pageRenderer(t, tb))
			peak = max(peak, rss)
			fmt.Printf("    [%s] %d min at 10,000×: cluster time %s, %s\n", table.sites[site], m,
				clusterDays(eval[float64](t, tb, `Number(document.getElementById("cluster-canvas").dataset.timeMs)`)), memoryFigure(t, bctx, tb))
		}
		days := clusterDays(eval[float64](t, tb, `Number(document.getElementById("cluster-canvas").dataset.timeMs)`))
		stopped := eval[bool](t, tb, `[...document.querySelectorAll("#event-log li")].some(li => li.textContent.includes("the page's limit: it stops here"))`)
		table.set(fmt.Sprintf("%d min at 10,000×, 12 partitions: cluster time reached, the 7-day stop said, the page's renderer RSS (private) at the end and its peak", minutes), site,
			fmt.Sprintf("%s, %v, %s, peak %.0f MB", days, stopped, memoryFigure(t, bctx, tb), peak/1e6))
		stop()
	}
}

// collectGarbage runs the page's collectors to the end (V8's, and Blink's with it, on the
// page's main thread): what a figure loses then was garbage waiting for them.
func collectGarbage(t *testing.T, tb *tab) {
	require.NoError(t, chromedp.Do(tb.ctx, chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := cdp.Call(ctx, tg, heapprofiler.CollectGarbage, cdp.Empty{})
		return err
	})))
}

// clusterDays writes cluster time in days.
func clusterDays(ms float64) string { return fmt.Sprintf("%.2f days", ms/86_400_000) }

// memoryFigure is the page's renderer process's resident memory (its workers run in it) with
// its private part (RssAnon: what the page and its workers allocated, not the browser's shared
// code), and the workers' Go figures (debug.memory): the heap in use and the memory the Go
// runtime holds, which in a browser is about the wasm's linear memory. The browser's other
// renderers (its own UI's, the blank first tab's, the service worker's) are not the page's
// and are left out.
func memoryFigure(t *testing.T, bctx context.Context, tb *tab) string {
	rss, private := rendererRSS(t, pageRenderer(t, tb))
	out := fmt.Sprintf("%.0f MB (%.0f MB)", rss/1e6, private/1e6)
	if m := workerStats(t, bctx); m.workers > 0 {
		out += fmt.Sprintf(", %.0f / %.0f MB", m.heap/1e6, m.sys/1e6)
		if m.workers > 1 {
			out += fmt.Sprintf(" in %d workers", m.workers)
		}
	}
	return out
}

// pageRenderer is the process id of the renderer that runs tb's page (and its workers): the
// process of a trace event the page itself emits (console.timeStamp).
func pageRenderer(t *testing.T, tb *tab) int {
	t.Helper()
	const mark = "kraftlab: the page's renderer"
	// A busy renderer (a compare's workers on both cores) can flush its trace before the mark
	// is in it: the mark is asked for again.
	for range 5 {
		events := recordTrace(t, tb, []string{"devtools.timeline"}, func() {
			eval[bool](t, tb, `console.timeStamp(`+jsString(mark)+`), true`)
		})
		for _, v := range events {
			var e struct {
				Name string
				Pid  int
				Args struct{ Data struct{ Message string } }
			}
			if json.Unmarshal(v, &e) == nil && e.Name == "TimeStamp" && e.Args.Data.Message == mark {
				return e.Pid
			}
		}
	}
	t.Fatal("the page's mark is in no trace event")
	return 0
}

// goStats is the workers' debug.memory figures added up.
type goStats struct {
	// heap is the heap in use, sys the memory the Go runtimes hold (in a browser, about the
	// wasm's linear memory).
	heap, sys float64
	workers   int
	// gcs counts the collections their Go runtimes have completed.
	gcs int
	// ids are the workers' DevTools target ids, sorted: a page that replaced its workers
	// between two readings has other ones.
	ids string
}

// workerStats asks every dedicated worker of the browser for debug.memory through the
// DevTools protocol (the page has no such request of its own) and adds up their figures. The
// request is handed to Go's onmessage inside the worker, and its reply is taken off
// postMessage before the page could see it.
func workerStats(t *testing.T, bctx context.Context) (m goStats) {
	targets, err := chromedp.Targets(bctx)
	require.NoError(t, err)
	for _, tg := range targets {
		if tg.Type != "worker" {
			continue
		}
		wctx, cancel := chromedp.NewContext(bctx, chromedp.WithTargetID(tg.TargetID), chromedp.WithDetachOnCancel())
		ctx, cancelT := context.WithTimeout(wctx, time.Minute)
		reply, err := chromedp.Run(ctx, chromedp.Evaluate[string](`new Promise((done) => {
			const id = 2 ** 52;
			const post = self.postMessage;
			self.postMessage = function (m, transfer) {
				const text = typeof m === "string" ? m : "";
				if (text.includes('"id":' + id + ',')) { self.postMessage = post; done(text); return; }
				return post.call(self, m, transfer);
			};
			self.onmessage({ data: JSON.stringify({ id, type: "debug.memory" }) });
		})`, chromedp.EvalAwaitPromise))
		cancelT()
		cancel()
		if err != nil {
			t.Logf("worker %s: debug.memory: %v", tg.URL, err)
			continue
		}
		var env struct {
			OK   bool              `json:"ok"`
			Body bridge.MemoryBody `json:"body"`
		}
		if json.Unmarshal([]byte(reply), &env) != nil || !env.OK {
			t.Logf("worker %s: debug.memory answered %s", tg.URL, reply)
			continue
		}
		m.heap += float64(env.Body.HeapAllocBytes)
		m.sys += float64(env.Body.SysBytes)
		m.gcs += int(env.Body.NumGC)
		m.workers++
		m.ids += string(tg.TargetID) + " "
	}
	return m
}

// processCPU is the CPU time a process has used so far, all its threads (the page's renderer:
// its main thread, its workers and V8's helpers), from /proc/PID/stat. Waiting for a core on
// a loaded machine does not add to it, as it adds to wall time.
func processCPU(t *testing.T, pid int) time.Duration {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	require.NoError(t, err)
	// The fields after the command's closing parenthesis; utime and stime are the 14th and
	// 15th of the whole line, in clock ticks (USER_HZ, 100 on Linux).
	f := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:]))
	utime, err1 := strconv.ParseInt(f[11], 10, 64)
	stime, err2 := strconv.ParseInt(f[12], 10, 64)
	require.NoError(t, errors.Join(err1, err2))
	return time.Duration(utime+stime) * 10 * time.Millisecond
}

// selfCPU is the CPU time this process has used so far, all its threads.
func selfCPU(t *testing.T) time.Duration {
	var ru syscall.Rusage
	require.NoError(t, syscall.Getrusage(syscall.RUSAGE_SELF, &ru))
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// memPeak is the highest resident set of a process, and of its private part, seen by samplePeak.
type memPeak struct{ rss, private float64 }

// samplePeak reads a process's resident set every 50 ms until the function it returns is
// called, which returns the highest seen: a compare's peak (its workers' heaps mid-run), which
// a figure taken after it misses. (VmHWM would be the kernel's own, but a page that terminates
// a worker frees its memory by a path that does not update it.)
func samplePeak(pid int) func() memPeak {
	done := make(chan struct{})
	out := make(chan memPeak)
	go func() {
		var p memPeak
		tick := time.NewTicker(50 * time.Millisecond)
		defer tick.Stop()
		for {
			if status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid)); err == nil {
				rss, private := statusRSS(status)
				p.rss, p.private = max(p.rss, rss), max(p.private, private)
			}
			select {
			case <-done:
				out <- p
				return
			case <-tick.C:
			}
		}
	}()
	return func() memPeak { close(done); return <-out }
}

// waitWorkers waits up to 10 s until the browser has at most n dedicated workers whose script's
// URL starts with prefix ("" for every worker; the browser tests share a browser, so a test
// names its own server's): a worker the page terminated is gone, and its memory given back,
// once its target is.
func waitWorkers(t *testing.T, bctx context.Context, prefix string, n int) {
	deadline := time.Now().Add(10 * time.Second)
	for {
		targets, err := chromedp.Targets(bctx)
		require.NoError(t, err)
		k := 0
		for _, tg := range targets {
			if tg.Type == "worker" && strings.HasPrefix(tg.URL, prefix) {
				k++
			}
		}
		if k <= n || time.Now().After(deadline) {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// rendererRSS reads a process's VmRSS, and RssAnon, its private part.
func rendererRSS(t *testing.T, pid int) (rss, private float64) {
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	require.NoError(t, err)
	return statusRSS(status)
}

// statusRSS reads VmRSS and RssAnon from a /proc/PID/status.
func statusRSS(status []byte) (rss, private float64) {
	for _, line := range strings.Split(string(status), "\n") {
		f := strings.Fields(line)
		if len(f) != 3 {
			continue
		}
		kb, _ := strconv.ParseFloat(f[1], 64)
		switch f[0] {
		case "VmRSS:":
			rss = kb * 1024
		case "RssAnon:":
			private = kb * 1024
		}
	}
	return rss, private
}

// benchLab: the KIP preset's compare in the page (its own elapsed time), ten times in one tab,
// with the renderer's memory after the first and the tenth and its peak (VmHWM) over them; and
// the same compare natively.
func benchLab(t *testing.T, exe string, urls []string, table *benchTable) {
	for site, url := range urls {
		bctx, stop := benchBrowser(t, exe)
		tb := openLab(t, bctx, url)
		validated(t, tb)
		click(t, tb, `[data-preset="kip-load-test"]`)
		validated(t, tb)
		pid := pageRenderer(t, tb)
		var times, cpu, gcs []float64
		var after1, where1 string
		var peaks []memPeak
		for i := 0; i < 10; i++ {
			before := workerStats(t, bctx)
			cpu0 := processCPU(t, pid)
			stopPeak := samplePeak(pid)
			var profStop func()
			if dir := os.Getenv("KRAFTLAB_BENCH_LAB_PROFILE"); dir != "" && i == 4 {
				profStop = profileWorkers(t, bctx, tb, filepath.Join(dir, table.sites[site]))
			}
			click(t, tb, "#compare-run")
			if i > 0 {
				poll(t, tb, `!/runs done in/.test(document.getElementById("compare-status").textContent)`)
			}
			finished(t, tb, "compare-status")
			// A page that replaces its workers once a compare is done (body[data-workers]) has
			// done so before the compare's memory and CPU time are read: its workers' start is
			// part of the compare's cost.
			settle := time.Now()
			poll(t, tb, `document.body.dataset.workers === undefined`)
			// The workers it terminated are gone (their targets with them) before anything is read.
			waitWorkers(t, bctx, "", before.workers)
			settled := time.Since(settle)
			cpu = append(cpu, float64((processCPU(t, pid) - cpu0).Milliseconds()))
			peak := stopPeak()
			peaks = append(peaks, peak)
			if profStop != nil {
				profStop()
			}
			m := workerStats(t, bctx)
			// Collections are counted only over workers that lived through the compare.
			if m.ids == before.ids {
				gcs = append(gcs, float64(m.gcs-before.gcs))
			}
			ms, _ := strconv.ParseFloat(eval[string](t, tb, `document.getElementById("compare-results").dataset.elapsedMs`), 64)
			times = append(times, ms)
			_, private := rendererRSS(t, pid)
			t.Logf("%s: compare %d: %.0f ms (workers settled %.0f ms later), renderer CPU %.0f ms, %d Go collections; renderer private %.0f MB (peak during the compare %.0f MB, RSS %.0f MB), workers' linear memory %.0f MB",
				table.sites[site], i+1, ms, float64(settled.Milliseconds()), cpu[i], m.gcs-before.gcs, private/1e6, peak.private/1e6, peak.rss/1e6, m.sys/1e6)
			if i == 0 {
				after1, where1 = memoryFigure(t, bctx, tb), memoryBreakdown(t, tb)
			}
		}
		collections := "not read (the page replaced its workers)"
		if len(gcs) > 1 {
			collections = fmt.Sprintf("%.0f", median(gcs[1:]))
		}
		table.set("lab: KIP preset compare in the page (ms: first, median of ten)", site, fmt.Sprintf("%.0f, %.0f", times[0], median(times)))
		// The first compare also starts the workers (from a fresh worker, the first also has
		// lab.plan's): the median of the other nine is the compare's own.
		table.set("lab: the compare's CPU time in the page's renderer (ms, median of the last nine), Go collections per compare in the workers (median)", site,
			fmt.Sprintf("%.0f, %s", median(cpu[1:]), collections))
		table.set("lab: memory after one compare; after ten: the page's renderer RSS (private), workers' Go heap / linear memory", site, after1+"; "+memoryFigure(t, bctx, tb))
		highest := memPeak{}
		for _, p := range peaks {
			highest.rss, highest.private = max(highest.rss, p.rss), max(highest.private, p.private)
		}
		table.set("lab: the page's renderer at its peak (RSS, private; sampled every 50 ms) during the first compare; the highest of the ten", site,
			fmt.Sprintf("%.0f MB (%.0f MB); %.0f MB (%.0f MB)", peaks[0].rss/1e6, peaks[0].private/1e6, highest.rss/1e6, highest.private/1e6))
		table.set("lab: where the renderer's memory goes after one compare; after ten (memory-infra)", site, where1+"; "+memoryBreakdown(t, tb))
		collectGarbage(t, tb)
		table.set("lab: after ten and a forced collection in the page: the page's renderer RSS (private), workers' Go heap / linear memory", site, memoryFigure(t, bctx, tb))
		stop()
	}
	doc, err := lab.KIPLoadTest().Scenario()
	require.NoError(t, err)
	ps := lab.DefaultPolicies()
	ps[0].Overrides = lab.ImmediateOverrides()
	var native, nativeCPU []float64
	for i := 0; i < 3; i++ {
		start, cpu0 := time.Now(), selfCPU(t)
		_, err := lab.Compare(context.Background(), doc, ps, lab.Options{})
		require.NoError(t, err)
		native = append(native, float64(time.Since(start).Milliseconds()))
		nativeCPU = append(nativeCPU, float64((selfCPU(t) - cpu0).Milliseconds()))
	}
	for site := range urls {
		table.set("lab: the same compare native, this tree's code (ms, median of 3; its CPU time, ms)", site, fmt.Sprintf("%.0f; %.0f", median(native), median(nativeCPU)))
	}
}

// profileWorkers starts the DevTools protocol's CPU profiler in each of the page's workers and
// in its main thread; the function it returns stops them and writes PREFIX-N.cpuprofile (the
// workers from 0, the main thread last), for DevTools or a script. The site's wasm programs
// carry no function names (-ldflags=-s): to read Go's names in a worker's profile, put a lab
// wasm built without -s (GOOS=js GOARCH=wasm go build with build.WasmGCFlags' flags) in the
// built site's place. The profiler's own cost goes into that compare's figures (one of ten).
func profileWorkers(t *testing.T, bctx context.Context, tb *tab, prefix string) func() {
	stop := startProfiles(t, bctx, tb)
	return func() {
		for i, prof := range stop() {
			b, err := json.Marshal(prof)
			require.NoError(t, err)
			require.NoError(t, os.WriteFile(fmt.Sprintf("%s-%d.cpuprofile", prefix, i), b, 0o644))
		}
	}
}

// startProfiles starts the DevTools protocol's CPU profiler (a sample every 0.5 ms) in each of
// the browser's dedicated workers and in tb's main thread; the function it returns stops them
// and returns their profiles, the workers first and the main thread last.
func startProfiles(t *testing.T, bctx context.Context, tb *tab) func() []*profiler.Profile {
	targets, err := chromedp.Targets(bctx)
	require.NoError(t, err)
	var ctxs []context.Context
	var cancels []context.CancelFunc
	for _, tg := range targets {
		if tg.Type != "worker" {
			continue
		}
		wctx, cancel := chromedp.NewContext(bctx, chromedp.WithTargetID(tg.TargetID), chromedp.WithDetachOnCancel())
		ctxs = append(ctxs, wctx)
		cancels = append(cancels, cancel)
	}
	ctxs = append(ctxs, tb.ctx)
	for _, c := range ctxs {
		require.NoError(t, chromedp.Do(c, chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
			if _, err := cdp.Call(ctx, tg, profiler.Enable, cdp.Empty{}); err != nil {
				return err
			}
			if _, err := cdp.Call(ctx, tg, profiler.SetSamplingInterval, profiler.SetSamplingIntervalParams{Interval: 500}); err != nil {
				return err
			}
			_, err := cdp.Call(ctx, tg, profiler.Start, cdp.Empty{})
			return err
		})))
	}
	return func() []*profiler.Profile {
		profs := make([]*profiler.Profile, len(ctxs))
		for i, c := range ctxs {
			require.NoError(t, chromedp.Do(c, chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
				res, err := cdp.Call(ctx, tg, profiler.Stop, cdp.Empty{})
				if err == nil {
					profs[i] = res.Profile
				}
				return err
			})))
		}
		for _, c := range cancels {
			c()
		}
		return profs
	}
}

func median(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	return s[len(s)/2]
}

func thousands(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "unknown"
	}
	return strings.Join(f[:3], " ")
}

// memoryBreakdown takes a memory-infra dump of the browser (what chrome://tracing's memory
// view shows) and returns the top-level allocators of the page's renderer —
// v8 (JavaScript heaps and wasm code), partition_alloc, blink_gc, malloc, cc (canvases)... —
// in MB, largest first (an allocator's size counts its children; blink_objects re-counts part
// of blink_gc by type). With KRAFTLAB_BENCH_MEMORY_DETAIL set, each is followed by its
// children of 1 MB or more (v8's main and worker isolates, malloc's partitions...).
func memoryBreakdown(t *testing.T, tb *tab) string {
	detail := os.Getenv("KRAFTLAB_BENCH_MEMORY_DETAIL") != ""
	page := pageRenderer(t, tb)
	events := recordTrace(t, tb, []string{"disabled-by-default-memory-infra"}, func() {
		require.NoError(t, chromedp.Do(tb.ctx, chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
			_, err := cdp.Call(ctx, tg, tracing.RequestMemoryDump, tracing.RequestMemoryDumpParams{})
			return err
		})))
	})
	type allocator struct {
		Attrs map[string]struct {
			Value string `json:"value"`
		} `json:"attrs"`
	}
	perPid := map[int]map[string]float64{}
	for _, raw := range events {
		var e struct {
			Ph   string `json:"ph"`
			Name string `json:"name"`
			Pid  int    `json:"pid"`
			Args struct {
				Name  string `json:"name"`
				Dumps struct {
					Allocators map[string]allocator `json:"allocators"`
				} `json:"dumps"`
			} `json:"args"`
		}
		if json.Unmarshal(raw, &e) != nil {
			continue
		}
		if e.Ph != "v" {
			continue
		}
		for name, a := range e.Args.Dumps.Allocators {
			if strings.Count(name, "/") > 1 || strings.Contains(name, "/") && !detail {
				continue
			}
			size, err := strconv.ParseUint(strings.TrimPrefix(a.Attrs["size"].Value, "0x"), 16, 64)
			if err != nil {
				continue
			}
			if perPid[e.Pid] == nil {
				perPid[e.Pid] = map[string]float64{}
			}
			perPid[e.Pid][name] += float64(size)
		}
	}
	best := page
	if perPid[best] == nil {
		return "no dump"
	}
	sizes := perPid[best]
	// below lists an allocator's children (or the top level's, under ""), largest first.
	below := func(parent string) []string {
		var out []string
		for n, v := range sizes {
			p, _, ok := strings.Cut(n, "/")
			if v >= 1e6 && (parent == "" && !ok || parent != "" && ok && p == parent) {
				out = append(out, n)
			}
		}
		sort.Slice(out, func(i, j int) bool {
			return sizes[out[i]] > sizes[out[j]] || sizes[out[i]] == sizes[out[j]] && out[i] < out[j]
		})
		return out
	}
	var parts []string
	for _, n := range below("") {
		part := fmt.Sprintf("%s %.0f", n, sizes[n]/1e6)
		var kids []string
		for _, k := range below(n) {
			kids = append(kids, fmt.Sprintf("%s %.0f", strings.TrimPrefix(k, n+"/"), sizes[k]/1e6))
		}
		if len(kids) > 0 {
			part += " (" + strings.Join(kids, ", ") + ")"
		}
		parts = append(parts, part)
	}
	return fmt.Sprintf("pid %d: %s MB", best, strings.Join(parts, ", "))
}
