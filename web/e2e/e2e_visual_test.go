package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/cdproto/profiler"
	"github.com/chromedp/cdproto/tracing"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// box is a rectangle the renderer reports in data-broker-boxes / data-controller-boxes.
type box struct{ x, y, w, h float64 }

// canvasBoxes reads "id:x,y,w,h;..." from the canvas and adds the offset in the window of the
// canvas's content box, where the drawing starts (inside the canvas's border).
func canvasBoxes(t *testing.T, tb *tab, attr string) map[string]box {
	t.Helper()
	raw := eval[string](t, tb, `document.getElementById("cluster-canvas").dataset.`+attr)
	at := eval[map[string]float64](t, tb, `(c => { const r = c.getBoundingClientRect(); return {x: r.left + c.clientLeft, y: r.top + c.clientTop}; })(document.getElementById("cluster-canvas"))`)
	out := map[string]box{}
	for _, item := range strings.Split(raw, ";") {
		id, nums, ok := strings.Cut(item, ":")
		require.True(t, ok, "%s: %q", attr, raw)
		var v [4]float64
		for i, s := range strings.Split(nums, ",") {
			f, err := strconv.ParseFloat(s, 64)
			require.NoError(t, err)
			v[i] = f
		}
		out[id] = box{at["x"] + v[0], at["y"] + v[1], v[2], v[3]}
	}
	return out
}

// seriesLengths reads a chart's data-series-lengths.
func seriesLengths(t *testing.T, tb *tab, chart string) []int {
	t.Helper()
	raw := eval[string](t, tb, `document.querySelector('[data-chart="`+chart+`"]').dataset.seriesLengths || ""`)
	var out []int
	for _, s := range strings.Split(raw, ",") {
		n, err := strconv.Atoi(s)
		require.NoError(t, err, "%s: %q", chart, raw)
		out = append(out, n)
	}
	return out
}

func TestVisual(t *testing.T) {
	parallel(t)
	exe := chromiumPath(t)
	dir := site(t)
	url := serve(t, dir, nil)
	bctx := sharedBrowser(t, exe)

	t.Run("charts draw over time", func(t *testing.T) {
		tb := open(t, bctx, url)
		setSpeed(t, tb, 1000)
		poll(t, tb, `Number(document.getElementById("charts").dataset.points || 0) >= 20 &&
			document.querySelector('[data-chart="elections"]').dataset.seriesLengths !== "0,0"`)
		assert.Equal(t, 6, eval[int](t, tb, `document.querySelectorAll("#charts .chart canvas").length`), "six uPlot charts")
		for chart, series := range map[string]int{"leaders": 4, "outOfSync": 4, "gate": 4, "p99": 2, "partitions": 2, "elections": 2} {
			lengths := seriesLengths(t, tb, chart)
			require.Len(t, lengths, series, chart)
			for _, n := range lengths {
				assert.Equal(t, lengths[0], n, "%s: series are aligned", chart)
			}
			assert.Greater(t, lengths[0], 0, chart)
		}
		assert.GreaterOrEqual(t, seriesLengths(t, tb, "leaders")[0], 20)
		assert.NotEmpty(t, eval[string](t, tb, `document.querySelector('[data-chart="p99"]').dataset.steadyMs`), "a steady p99 once samples arrive")
		// The leaders chart's last point is the brokers' leader counts: 3 each.
		legend := eval[[]string](t, tb, `[...document.querySelectorAll('[data-chart="leaders"] .u-series .u-value')].map(e => e.textContent)`)
		t.Logf("leaders legend: %v", legend)
		assert.Empty(t, tb.consoleErrors())
		screenshot(t, tb, "charts.png", chromedp.CSS("#charts"))
	})

	t.Run("the canvas painted frame by frame equals one painted whole", func(t *testing.T) {
		// The renderer repaints only what changed since the last frame. After a run of such
		// frames (a broker killed and fenced: many cells change), the canvas must show what the
		// same frame drawn from scratch shows, which presenter mode on and off forces (a resize
		// starts a fresh pixel buffer). Edges may differ by a few units of colour, as the
		// incremental frame is drawn under a clip (Skia antialiases differently there); a stale
		// or missed cell differs by a whole colour.
		// One page: the larger cluster is started in the page the smaller one was checked in.
		tb := open(t, bctx, url)
		for _, partitions := range []int{12, 100_000} { // cells, then strips
			t.Run(strconv.Itoa(partitions)+" partitions", func(t *testing.T) { sameAsWhole(t, tb, partitions) })
		}
		// On the page's strips, the wheel zooms the partitions in and the page stays where it
		// is (TestPlayground: over a small cluster's cells it scrolls the page).
		t.Run("the wheel zooms strips in", func(t *testing.T) {
			eval[bool](t, tb, `document.getElementById("cluster-canvas").scrollIntoView({block: "start", behavior: "instant"}), true`)
			y0 := eval[float64](t, tb, `scrollY`)
			c := eval[map[string]float64](t, tb, `(r => ({x: r.left + r.width / 2, y: r.top + r.height * 0.7}))(document.getElementById("cluster-canvas").getBoundingClientRect())`)
			wheel(t, tb, c["x"], c["y"], -200)
			poll(t, tb, `!!document.getElementById("cluster-canvas").dataset.range`)
			assert.Equal(t, y0, eval[float64](t, tb, `scrollY`), "the wheel zoomed, the page did not scroll")
			press(t, tb, "0")
			poll(t, tb, `!document.getElementById("cluster-canvas").dataset.range`)
		})
	})

	t.Run("presenter mode hides the panels and enlarges the canvas; a disclosure's heading sits on its triangle's line", func(t *testing.T) {
		tb := open(t, bctx, url)
		// Outside presenter mode first: the disclosures are in the side panels it hides.
		for _, sel := range []string{"details.share", "details.configs"} {
			// The summary is one line high: the triangle and the heading side by side.
			lines := eval[float64](t, tb, `(() => { const s = document.querySelector(`+jsString(sel+" > summary")+`), h = s.querySelector("h2");
				return s.getBoundingClientRect().height / h.getBoundingClientRect().height; })()`)
			assert.Less(t, lines, 1.5, "%s: the heading is on the triangle's line", sel)
		}
		before := eval[float64](t, tb, `document.getElementById("cluster-canvas").getBoundingClientRect().width`)
		boxBefore := canvasBoxes(t, tb, "brokerBoxes")["1"]
		press(t, tb, "p")
		poll(t, tb, `document.body.classList.contains("presenter")`)
		assert.True(t, eval[bool](t, tb, `getComputedStyle(document.querySelector(".side")).display === "none"`), "side panels hidden")
		assert.True(t, eval[bool](t, tb, `getComputedStyle(document.querySelector(".actors")).display === "none"`), "actor panels hidden")
		after := eval[float64](t, tb, `document.getElementById("cluster-canvas").getBoundingClientRect().width`)
		t.Logf("canvas width %.0f → %.0f px", before, after)
		assert.Greater(t, after, before*1.3, "the canvas takes the page's width")
		poll(t, tb, `document.getElementById("cluster-canvas").dataset.brokerBoxes.split(";").length === 4`)
		boxAfter := canvasBoxes(t, tb, "brokerBoxes")["1"]
		assert.Greater(t, boxAfter.w, boxBefore.w, "broker boxes are larger")
		// Shortcuts still work: kill broker 2 by key, with its panel hidden.
		press(t, tb, "2", "k")
		logItem(t, tb, "you killed broker 2")
		screenshot(t, tb, "presenter.png", "")
		press(t, tb, "P")
		poll(t, tb, `!document.body.classList.contains("presenter")`)
		assert.True(t, eval[bool](t, tb, `getComputedStyle(document.querySelector(".side")).display !== "none"`))
		assert.Empty(t, tb.consoleErrors())
	})

	t.Run("play and pause stay where they are when pressed", func(t *testing.T) {
		tb := open(t, bctx, url)
		where := `(() => { const r = document.getElementById("play-button").getBoundingClientRect(); return Math.round(r.left) + "," + Math.round(r.top) + " " + Math.round(r.width); })()`
		for _, w := range []int64{390, 800, 1280, 1440} {
			require.NoError(t, chromedp.Do(tb.ctx, chromedp.EmulateViewport(w, 900)))
			eval[bool](t, tb, `window.scrollTo(0, 0), true`)
			poll(t, tb, `document.body.dataset.sim === "playing" && /running at/.test(document.getElementById("clock").textContent)`)
			playing := eval[string](t, tb, where)
			press(t, tb, " ")
			poll(t, tb, `document.body.dataset.sim === "paused"`)
			evalAwait[bool](t, tb, `new Promise(r => requestAnimationFrame(() => r(true)))`)
			assert.Equal(t, playing, eval[string](t, tb, where), "at %d px the button does not move when paused", w)
			press(t, tb, " ")
		}
	})

	t.Run("broker 1 killed: the charts' axis labels fit inside them, the canvas and the newest events share the screen at every width, presenter mode keeps the charts apart", func(t *testing.T) {
		// Broker 1 killed: the p99 climbs past 10,000 ms within a simulated minute.
		tb := open(t, bctx, url)
		setSpeed(t, tb, 100)
		press(t, tb, "1", "k")
		logItem(t, tb, "broker 1 fenced")
		poll(t, tb, `Number(document.getElementById("cluster-canvas").dataset.timeMs) > 100000`)
		press(t, tb, " ")
		poll(t, tb, `document.body.dataset.sim === "paused"`)
		labelsInside(t, tb, "#charts .chart")

		// At every width the canvas and the newest events are on screen together.
		newest := eval[string](t, tb, `document.querySelector("#event-log li:last-child").textContent`)
		for _, size := range []struct{ w, h int64 }{{390, 844}, {800, 900}, {1440, 900}} {
			require.NoError(t, chromedp.Do(tb.ctx, chromedp.EmulateViewport(size.w, size.h)))
			// The reader brings the canvas's top to the top of the window.
			eval[bool](t, tb, `document.getElementById("cluster-canvas").scrollIntoView({block: "start", behavior: "instant"}), true`)
			nextFrames(t, tb)
			// Somewhere in the window, the newest event-log line is shown in full: the log
			// itself beside the canvas, or the strip of its newest lines under it.
			shown := eval[bool](t, tb, `[...document.querySelectorAll("#event-log li:last-child, #latest-events li:last-child")].some(li => {
				const r = li.getBoundingClientRect();
				return r.height > 0 && r.top >= 0 && r.bottom <= innerHeight && li.textContent === `+jsString(newest)+`;
			})`)
			assert.True(t, shown, "at %d px the newest event is on screen with the canvas", size.w)
			screenshot(t, tb, fmt.Sprintf("canvas-and-events-%d.png", size.w), "")
		}

		// Presenter mode keeps every chart at its size, apart from the others.
		require.NoError(t, chromedp.Do(tb.ctx, chromedp.EmulateViewport(1280, 900)))
		poll(t, tb, `Number(document.getElementById("charts").dataset.points || 0) >= 5`)
		press(t, tb, "p")
		poll(t, tb, `document.body.classList.contains("presenter")`)
		eval[bool](t, tb, `document.getElementById("charts").scrollIntoView({block: "start", behavior: "instant"}), true`)
		noChartOverlaps(t, tb)
		screenshot(t, tb, "presenter-charts.png", "")
		// A resize keeps them apart too.
		require.NoError(t, chromedp.Do(tb.ctx, chromedp.EmulateViewport(1000, 800)))
		noChartOverlaps(t, tb)
		assert.Empty(t, tb.consoleErrors())
	})

	t.Run("a click on a broker opens its menu and an action from it works", func(t *testing.T) {
		tb := open(t, bctx, url)
		press(t, tb, " ") // paused: nothing moves under the pointer
		poll(t, tb, `document.body.dataset.sim === "paused"`)
		// The click goes to viewport coordinates: bring the canvas to the top of the viewport
		// (earlier subtests' pages, and the window's size, differ) and wait until it is there.
		eval[bool](t, tb, `document.getElementById("cluster-canvas").scrollIntoView({block: "start", behavior: "instant"}), true`)
		poll(t, tb, `Math.abs(document.getElementById("cluster-canvas").getBoundingClientRect().top) < 1`)
		b := canvasBoxes(t, tb, "brokerBoxes")["3"]
		require.NoError(t, chromedp.Do(tb.ctx, chromedp.MouseClickXY(b.x+b.w/2, b.y+20)))
		poll(t, tb, `!document.getElementById("canvas-menu").hidden`)
		assert.Equal(t, "broker-3", eval[string](t, tb, `document.getElementById("canvas-menu").dataset.for`))
		items := eval[[]string](t, tb, `[...document.querySelectorAll("#canvas-menu button[data-op]")].map(b => b.dataset.op + (b.disabled ? "-" : "+"))`)
		assert.Contains(t, items, "kill+")
		assert.Contains(t, items, "start-", "a running broker cannot be started")
		assert.Equal(t, "kill", eval[string](t, tb, `document.activeElement.dataset.op`), "focus moves into the menu")
		screenshot(t, tb, "canvas-menu.png", "")
		require.NoError(t, chromedp.Do(tb.ctx, chromedp.Click(chromedp.CSS(`#canvas-menu button[data-op="kill"]`))))
		logItem(t, tb, "you killed broker 3")
		assert.True(t, eval[bool](t, tb, `document.getElementById("canvas-menu").hidden`))
		assert.Equal(t, "cluster-canvas", eval[string](t, tb, `document.activeElement.id`), "focus returns to the canvas")

		// The keyboard does the same: arrows move the focus ring, Enter opens the menu, Escape
		// closes it.
		require.NoError(t, chromedp.Do(tb.ctx, chromedp.KeyEvent(kb.ArrowLeft)))
		assert.Equal(t, "broker 2", eval[string](t, tb, `document.getElementById("cluster-canvas").dataset.focus`))
		require.NoError(t, chromedp.Do(tb.ctx, chromedp.KeyEvent(kb.ArrowUp)))
		assert.True(t, strings.HasPrefix(eval[string](t, tb, `document.getElementById("cluster-canvas").dataset.focus`), "controller "))
		require.NoError(t, chromedp.Do(tb.ctx, chromedp.KeyEvent(kb.Enter)))
		poll(t, tb, `!document.getElementById("canvas-menu").hidden`)
		assert.True(t, strings.HasPrefix(eval[string](t, tb, `document.getElementById("canvas-menu").dataset.for`), "controller-"))
		require.NoError(t, chromedp.Do(tb.ctx, chromedp.KeyEvent(kb.Escape)))
		poll(t, tb, `document.getElementById("canvas-menu").hidden`)

		// Hovering a replica cell shows its partition, leader, ISR and ELR.
		c := canvasBoxes(t, tb, "brokerBoxes")["1"]
		require.NoError(t, chromedp.Do(tb.ctx, chromedp.MouseEvent(input.DispatchMouseEventTypeMouseMoved, c.x+20, c.y+82)))
		poll(t, tb, `!document.getElementById("canvas-tooltip").hidden`)
		tip := eval[string](t, tb, `document.getElementById("canvas-tooltip").textContent`)
		assert.Regexp(t, `^payments-\d+ on broker 1: .+\nLeader: \d+  Isr: [\d,]+  Elr: `, tip)
		// As drawn, with its spacing ("Leader: 1 Isr: 1,4,3" when the spaces collapse).
		assert.Regexp(t, `\nLeader: \d+  Isr: [\d,]+  Elr: `, eval[string](t, tb, `document.getElementById("canvas-tooltip").innerText`))
		// Then the worker's answer (sim.replica) adds how far the replica trails its leader
		// (broker 1's may have stopped fetching, as broker 3 led some of them); killed broker 3's
		// last caught up when it died.
		poll(t, tb, `/\n(The leader: its followers fetch from it|In sync: [\d.,]+ [KMGT]?B behind the leader's log end, fetching continuously|Lag: last caught up [\d.,]+ s ago, [\d.,]+ [KMGT]?B behind the leader)\.$/.test(document.getElementById("canvas-tooltip").textContent)`)
		assert.Regexp(t, `^(leader|in-sync|stalled|catching-up|dead) \d+ [\d.e+]+$`, eval[string](t, tb, `document.getElementById("canvas-tooltip").dataset.replica`))
		c3 := canvasBoxes(t, tb, "brokerBoxes")["3"]
		require.NoError(t, chromedp.Do(tb.ctx, chromedp.MouseEvent(input.DispatchMouseEventTypeMouseMoved, c3.x+20, c3.y+70)))
		poll(t, tb, `/^payments-\d+ on broker 3: [^]*\nLag: last caught up [\d.,]+ s ago, [\d.,]+ [KMGT]?B behind the leader\.$/.test(document.getElementById("canvas-tooltip").textContent)`)
		assert.Empty(t, tb.consoleErrors())
	})

	t.Run("reduced motion turns the transitions off", func(t *testing.T) {
		tb := openReducedMotion(t, bctx, url)
		assert.Equal(t, "reduced", eval[string](t, tb, `document.body.dataset.motion`))
		b := canvasBoxes(t, tb, "brokerBoxes")["2"]
		require.NoError(t, chromedp.Do(tb.ctx, chromedp.MouseClickXY(b.x+b.w/2, b.y+20)))
		poll(t, tb, `!document.getElementById("canvas-menu").hidden`)
		assert.Equal(t, "none", eval[string](t, tb, `getComputedStyle(document.getElementById("canvas-menu")).animationName`))
	})

	t.Run("dense view at 10,000 and 100,000 partitions (fps measured, not asserted)", func(t *testing.T) {
		if os.Getenv("KRAFTLAB_MEASURE") == "" {
			t.Skip("a measurement, not a test (about 40 s): set KRAFTLAB_MEASURE=1")
		}
		tb := open(t, bctx, url)
		// A desktop window by default, so that 10,000 partitions over 6 brokers are drawn as
		// cells; KRAFTLAB_MEASURE_VIEWPORT=1280x900 measures the smaller window (strips).
		w, h := 1920, 1080
		if v := os.Getenv("KRAFTLAB_MEASURE_VIEWPORT"); v != "" {
			_, err := fmt.Sscanf(v, "%dx%d", &w, &h)
			require.NoError(t, err, "KRAFTLAB_MEASURE_VIEWPORT=%q: want WIDTHxHEIGHT", v)
		}
		require.NoError(t, chromedp.Do(tb.ctx, chromedp.EmulateViewport(int64(w), int64(h))))
		for _, n := range []int{10_000, 100_000} {
			// The page's form offers 6–60 partitions; the worker takes up to 100,000.
			eval[bool](t, tb, `(() => { const i = document.getElementById("partition-count"); i.max = "100000"; i.value = "`+strconv.Itoa(n)+`";
				document.getElementById("broker-count").value = "6"; return true; })()`)
			require.NoError(t, chromedp.Do(tb.ctx, chromedp.Click(chromedp.CSS("#start-button"))))
			poll(t, tb, `document.getElementById("partition-caption").textContent.includes("`+strconv.Itoa(n)+`") ||
				document.getElementById("partition-caption").textContent.includes("`+commas(n)+`")`)
			setSpeed(t, tb, 10)
			press(t, tb, "2", "k") // something to show: a broker's replicas go out of sync
			time.Sleep(2 * time.Second)
			view := eval[string](t, tb, `document.getElementById("cluster-canvas").dataset.view`)
			t.Logf("window %dx%d, canvas %s CSS px", w, h, eval[string](t, tb, `(() => { const r = document.getElementById("cluster-canvas").getBoundingClientRect(); return Math.round(r.width) + "x" + Math.round(r.height); })()`))

			var res map[string]float64
			gc := traceGC(t, tb, func() {
				res = evalAwait[map[string]float64](t, tb, `(async () => {
					const c = document.getElementById("cluster-canvas");
					const long = [];
					const obs = new PerformanceObserver((l) => { for (const e of l.getEntries()) long.push(e.duration); });
					obs.observe({type: "longtask"});
					const f0 = Number(c.dataset.frames);
					let raf = 0, worst = 0, draw = 0, draws = 0;
					const t0 = performance.now();
					let last = t0;
					await new Promise((done) => {
						const step = (now) => {
							raf++; worst = Math.max(worst, now - last); last = now;
							if (c.dataset.drawMs) { draw = Math.max(draw, Number(c.dataset.drawMs)); }
							if (now - t0 < 4000) requestAnimationFrame(step); else done();
						};
						requestAnimationFrame(step);
					});
					obs.disconnect();
					const secs = (performance.now() - t0) / 1000;
					return {secs, rafFps: raf / secs, framesPerSec: (Number(c.dataset.frames) - f0) / secs, worstGapMs: worst,
						longTasks: long.length, longestTaskMs: long.length ? Math.max(...long) : 0, maxDrawMs: draw};
				})()`)
				t.Logf("%s partitions, 6 brokers, view %s: rAF %.1f fps, cluster frames drawn %.1f/s, worst rAF gap %.1f ms, "+
					"long tasks %v (longest %.0f ms), slowest draw seen %.1f ms",
					commas(n), view, res["rafFps"], res["framesPerSec"], res["worstGapMs"], res["longTasks"], res["longestTaskMs"], res["maxDrawMs"])
			})
			t.Logf("%s partitions: longest V8 GC pause on the page's main thread %.1f ms (%s), in the worker %.1f ms (%s); %d pauses, %.0f ms of GC on the main thread in 4 s",
				commas(n), gc.main.wallMs, gc.main.name, gc.worker.wallMs, gc.worker.name, gc.count, gc.mainGCMs)
			frames := res["framesPerSec"] * res["secs"]
			t.Logf("%s partitions: CPU per cluster frame: page main thread %.1f ms, worker %.1f ms (%.0f frames; main thread busy %.0f %% of the time, worker %.0f %%)",
				commas(n), gc.mainCPUMs/frames, gc.workerCPUMs/frames, frames, gc.mainCPUMs/res["secs"]/10, gc.workerCPUMs/res["secs"]/10)
			perFrame := map[string]float64{}
			for k, v := range gc.busy {
				perFrame[k] = v / frames
			}
			t.Logf("%s partitions: main thread CPU per frame by trace event (nested events count in each): %s", commas(n), top(perFrame, 14))
			// Then, unmeasured, where the main thread's time goes (the profiler slows it down).
			self, total := cpuProfile(t, tb, 3*time.Second)
			t.Logf("%s partitions: CPU profile, 3 s, self: %s", commas(n), top(self, 16))
			t.Logf("%s partitions: CPU profile, 3 s, total: %s", commas(n), top(total, 16))
			screenshot(t, tb, "dense-"+strconv.Itoa(n)+".png", chromedp.CSS("#cluster-canvas"))
			if n == 100_000 {
				assert.Contains(t, view, "strips/", "100,000 partitions are drawn as aggregate strips")
				press(t, tb, "]", "]", "]")
				poll(t, tb, `document.getElementById("cluster-canvas").dataset.view.split(",").every(v => v === "cells")`)
				screenshot(t, tb, "dense-100000-zoomed.png", chromedp.CSS("#cluster-canvas"))
			}
		}
		assert.Empty(t, tb.consoleErrors())
	})
}

func commas(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// gcFigures are the garbage-collection pauses of a trace: V8's, on the page's main thread and on
// the simulation's worker thread. A pause is a GC event on that thread that no other GC event
// on it contains (MinorGC, MajorGC, an incremental marking step, a GC run on another thread's
// request), so the phases inside a pause count once; V8's concurrent marking and sweeping on
// its helper threads stop no script and are not pauses. Go's collector inside the worker's
// wasm is no V8 event: goGC measures it.
type gcFigures struct {
	main, worker gcPause
	count        int
	// mainGCMs is the main thread's GC pause time in all; busy the main thread's CPU time per
	// trace event name (nested events count in each of their names), for what dominates.
	mainGCMs float64
	busy     map[string]float64
	// mainCPUMs and workerCPUMs are the CPU time of the tasks run by the page's main thread and
	// by the simulation's worker thread.
	mainCPUMs, workerCPUMs float64
}

// gcPause is a thread's longest GC pause by wall time (and its event's name), and its longest
// by thread CPU time (tdur), which does not grow while the thread waits for a core: on a
// loaded machine, closer to the pause the page would have had alone.
type gcPause struct {
	wallMs, cpuMs float64
	name          string
}

// traceGC records a Chromium trace (V8's GC categories) while run runs, and returns the longest
// GC pauses on the page's main thread (CrRendererMain) and the worker's (see gcFigures).
func traceGC(t *testing.T, tb *tab, run func()) gcFigures {
	t.Helper()
	events := recordTrace(t, tb, []string{"toplevel", "devtools.timeline", "v8", "disabled-by-default-v8.gc", "__metadata"}, run)
	type event struct {
		Name string  `json:"name"`
		Ph   string  `json:"ph"`
		Ts   float64 `json:"ts"`
		Dur  float64 `json:"dur"`
		// Tdur is the thread's CPU time, where the event has it: unlike Dur it does not grow
		// while the thread waits for a core (this machine is shared).
		Tdur float64 `json:"tdur"`
		Pid  int     `json:"pid"`
		Tid  int     `json:"tid"`
		Args struct {
			Name string `json:"name"`
		} `json:"args"`
	}
	if d := os.Getenv("KRAFTLAB_TRACE_DUMP"); d != "" {
		f, _ := os.CreateTemp(d, "trace-*.json")
		_ = json.NewEncoder(f).Encode(events)
		f.Close()
		t.Logf("trace in %s", f.Name())
	}
	type thread struct{ pid, tid int }
	main := map[thread]bool{}
	worker := map[thread]bool{}
	var all []event
	for _, raw := range events {
		var e event
		if json.Unmarshal(raw, &e) != nil {
			continue
		}
		if e.Ph == "M" && e.Name == "thread_name" && e.Args.Name == "CrRendererMain" {
			main[thread{e.Pid, e.Tid}] = true
		}
		if e.Ph == "M" && e.Name == "thread_name" && e.Args.Name == "DedicatedWorker thread" {
			worker[thread{e.Pid, e.Tid}] = true
		}
		all = append(all, e)
	}
	g := gcFigures{busy: map[string]float64{}}
	// The end of the latest pause per thread: a GC event that ends before it is a phase.
	pauseEnd := map[thread]float64{}
	sort.SliceStable(all, func(i, j int) bool { return all[i].Ts < all[j].Ts })
	for _, e := range all {
		if e.Ph != "X" {
			continue
		}
		th := thread{e.Pid, e.Tid}
		onMain, onWorker := main[th], worker[th]
		ms := e.Dur / 1000
		cpu := e.Tdur / 1000
		if e.Tdur == 0 {
			cpu = ms
		}
		if onMain {
			g.busy[e.Name] += cpu
		}
		// A task, as the scheduler runs it (Chromium's name for the top-level task event).
		if e.Name == "ThreadControllerImpl::RunTask" && onMain {
			g.mainCPUMs += cpu
		}
		if e.Name == "ThreadControllerImpl::RunTask" && onWorker {
			g.workerCPUMs += cpu
		}
		gcEvent := e.Name == "MinorGC" || e.Name == "MajorGC" || strings.HasPrefix(e.Name, "V8.GC")
		if !gcEvent || !(onMain || onWorker) || e.Ts+e.Dur <= pauseEnd[th] {
			continue
		}
		pauseEnd[th] = e.Ts + e.Dur
		g.count++
		p := &g.worker
		if onMain {
			p = &g.main
			g.mainGCMs += ms
		}
		if ms > p.wallMs {
			p.wallMs, p.name = ms, e.Name
		}
		p.cpuMs = max(p.cpuMs, cpu)
	}
	return g
}

// top formats the n largest entries of m as "name 12.3 ms, ...".
func top(m map[string]float64, n int) string {
	names := make([]string, 0, len(m))
	for k := range m {
		names = append(names, k)
	}
	sort.Slice(names, func(i, j int) bool {
		if m[names[i]] != m[names[j]] {
			return m[names[i]] > m[names[j]]
		}
		return names[i] < names[j]
	})
	var b strings.Builder
	for i, k := range names {
		if i == n {
			break
		}
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%s %.1f ms", k, m[k])
	}
	return b.String()
}

// cpuProfile samples the page's main thread with V8's profiler for d and returns the time per
// function: self (on top of the stack) and total (anywhere on it). Names are the bundle's
// (esbuild keeps method names), "(garbage collector)" and "(program)" (native work outside
// JavaScript: style, layout, paint, canvas rasterization on the main thread).
func cpuProfile(t *testing.T, tb *tab, d time.Duration) (self, total map[string]float64) {
	t.Helper()
	var prof *profiler.Profile
	require.NoError(t, chromedp.Do(tb.ctx, chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		if _, err := cdp.Call(ctx, tg, profiler.Enable, cdp.Empty{}); err != nil {
			return err
		}
		if _, err := cdp.Call(ctx, tg, profiler.SetSamplingInterval, profiler.SetSamplingIntervalParams{Interval: 200}); err != nil {
			return err
		}
		_, err := cdp.Call(ctx, tg, profiler.Start, cdp.Empty{})
		return err
	})))
	time.Sleep(d)
	require.NoError(t, chromedp.Do(tb.ctx, chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		res, err := cdp.Call(ctx, tg, profiler.Stop, cdp.Empty{})
		if err != nil {
			return err
		}
		prof = res.Profile
		_, err = cdp.Call(ctx, tg, profiler.Disable, cdp.Empty{})
		return err
	})))
	name := map[int64]string{}
	parent := map[int64]int64{}
	for _, n := range prof.Nodes {
		fn := n.CallFrame.FunctionName
		if fn == "" {
			fn = "(anonymous)"
		}
		if u := n.CallFrame.URL; u != "" {
			fn += " " + u[strings.LastIndex(u, "/")+1:]
			if !strings.HasPrefix(fn, "(") {
				fn += fmt.Sprintf(":%d", n.CallFrame.ColumnNumber)
			}
		}
		name[n.ID] = fn
		for _, c := range n.Children {
			parent[c] = n.ID
		}
	}
	self, total = map[string]float64{}, map[string]float64{}
	for i, id := range prof.Samples {
		if i+1 >= len(prof.TimeDeltas) {
			break
		}
		ms := float64(prof.TimeDeltas[i+1]) / 1000 // the time until the next sample
		self[name[id]] += ms
		seen := map[string]bool{}
		for n, ok := id, true; ok; n, ok = parent[n] {
			if !seen[name[n]] {
				seen[name[n]] = true
				total[name[n]] += ms
			}
		}
	}
	delete(self, "(idle)")
	delete(total, "(idle)")
	delete(total, "(root)")
	return self, total
}

// sameAsWhole checks that, after a broker was killed and fenced (many cells change frame by
// frame), the canvas shows what a whole repaint of the same frame shows (TestVisual).
func sameAsWhole(t *testing.T, tb *tab, partitions int) {
	if partitions > 60 { // the form offers 6–60; the worker takes up to 100,000
		eval[bool](t, tb, `(() => { const i = document.getElementById("partition-count"); i.max = "100000"; i.value = "`+strconv.Itoa(partitions)+`";
			document.getElementById("broker-count").value = "6"; return true; })()`)
		require.NoError(t, chromedp.Do(tb.ctx, chromedp.Click(chromedp.CSS("#start-button"))))
		poll(t, tb, `document.getElementById("partition-caption").textContent.includes("`+strconv.Itoa(partitions)+`") ||
			document.getElementById("partition-caption").textContent.includes("`+commas(partitions)+`")`)
		poll(t, tb, `document.getElementById("cluster-canvas").dataset.view.startsWith("strips")`)
		// A check before this one may have left the page paused.
		if eval[string](t, tb, `document.body.dataset.sim`) == "paused" {
			press(t, tb, " ")
		}
	}
	setSpeed(t, tb, 100)
	press(t, tb, "1", "k")
	logItem(t, tb, "broker 1 fenced:")
	press(t, tb, " ")
	poll(t, tb, `document.body.dataset.sim === "paused"`)
	// Paused by Space, not by a step the worker refused (which pauses the run too, and which
	// Space then played again): a refused step shows in the error panel.
	require.True(t, eval[bool](t, tb, `document.getElementById("error-panel").hidden`), "the run failed: %s", eval[string](t, tb, `document.getElementById("error-report").textContent.slice(-600)`))
	time.Sleep(300 * time.Millisecond)
	eval[bool](t, tb, `(() => { const c = document.getElementById("cluster-canvas");
		window.__incremental = c.getContext("2d").getImageData(0, 0, c.width, c.height).data.slice(); return true; })()`)
	size := eval[string](t, tb, `(c => c.width + "x" + c.height)(document.getElementById("cluster-canvas"))`)
	press(t, tb, "p")
	poll(t, tb, `document.body.classList.contains("presenter")`)
	press(t, tb, "p")
	// Both sides: the height follows the width a frame later (the canvas fits its content's height).
	poll(t, tb, `!document.body.classList.contains("presenter") && (c => c.width + "x" + c.height)(document.getElementById("cluster-canvas")) === `+jsString(size))
	time.Sleep(300 * time.Millisecond)
	diff := eval[map[string]float64](t, tb, `(() => {
		const c = document.getElementById("cluster-canvas");
		const d = c.getContext("2d").getImageData(0, 0, c.width, c.height).data;
		const a = window.__incremental;
		let differ = 0, most = 0;
		for (let i = 0; i < d.length; i += 4) {
			const m = Math.max(Math.abs(d[i] - a[i]), Math.abs(d[i+1] - a[i+1]), Math.abs(d[i+2] - a[i+2]));
			if (m > 0) differ++;
			most = Math.max(most, m);
		}
		return {same: a.length === d.length ? 1 : 0, differ, most};
	})()`)
	t.Logf("incremental against whole repaint: %v", diff)
	require.Equal(t, 1.0, diff["same"], "the canvas kept its size")
	assert.LessOrEqual(t, diff["most"], 24.0, "a pixel of the incremental canvas differs from a whole repaint by a colour: %v", diff)
}

// noChartOverlaps checks that each chart's plot canvas is the height uPlot gave its plot area
// (no page rule stretches it), lies inside its chart, and that no two charts overlap.
func noChartOverlaps(t *testing.T, tb *tab) {
	t.Helper()
	type rect struct {
		Name                 string
		Left, Top, W, H      float64
		CanvasH, PlotH       float64
		CanvasBottom, Bottom float64
	}
	poll(t, tb, `document.querySelectorAll("#charts .chart canvas").length === 6`)
	// uPlot's resize lands on the next animation frame.
	nextFrames(t, tb)
	rects := eval[[]rect](t, tb, `[...document.querySelectorAll("#charts .chart")].map(el => {
		const r = el.getBoundingClientRect(), c = el.querySelector("canvas").getBoundingClientRect();
		return {Name: el.dataset.chart, Left: r.left, Top: r.top, W: r.width, H: r.height, CanvasH: c.height,
			PlotH: el.querySelector(".u-wrap").getBoundingClientRect().height, CanvasBottom: c.bottom, Bottom: r.bottom};
	})`)
	require.Len(t, rects, 6)
	for i, a := range rects {
		assert.InDelta(t, a.PlotH, a.CanvasH, 1.5, "%s: the canvas is the plot's height", a.Name)
		assert.LessOrEqual(t, a.CanvasBottom, a.Bottom+0.5, "%s: the canvas stays inside its chart", a.Name)
		for _, b := range rects[i+1:] {
			apart := a.Left+a.W <= b.Left+0.5 || b.Left+b.W <= a.Left+0.5 || a.Top+a.H <= b.Top+0.5 || b.Top+b.H <= a.Top+0.5
			assert.True(t, apart, "charts %s and %s overlap: %+v %+v", a.Name, b.Name, a, b)
		}
	}
}

// labelsInside checks that no chart's axis text is cut at the canvas's left edge: uPlot draws a
// y-axis label right-aligned against the plot, so a label wider than its axis runs off the
// canvas and its left part is lost ("10,000" shows as "0,000"). The leftmost three device
// pixels of every chart canvas must therefore be blank.
func labelsInside(t *testing.T, tb *tab, charts string) {
	t.Helper()
	// The charts redraw at most every 250 ms: wait for a cycle after the last point.
	evalAwait[bool](t, tb, `new Promise(r => setTimeout(() => requestAnimationFrame(() => r(true)), 600))`)
	inked := eval[map[string]int](t, tb, `Object.fromEntries([...document.querySelectorAll(`+jsString(charts)+`)].map(el => {
		const c = el.querySelector("canvas"), g = c.getContext("2d");
		const d = g.getImageData(0, 0, 3, c.height).data;
		let n = 0;
		for (let i = 3; i < d.length; i += 4) if (d[i] > 96) n++;
		return [(el.dataset.chart || "") + (el.dataset.policy ? " " + el.dataset.policy : ""), n];
	}))`)
	require.NotEmpty(t, inked)
	for chart, n := range inked {
		assert.Zero(t, n, "%s: axis text is cut at the chart's left edge (%d inked pixels)", chart, n)
	}
}

// recordTrace records a Chromium trace of the given categories while run runs (run may ask
// the browser for more, e.g. a memory dump) and returns its events as JSON.
func recordTrace(t *testing.T, tb *tab, categories []string, run func()) []json.RawMessage {
	t.Helper()
	var mu sync.Mutex
	var events []json.RawMessage
	done := make(chan struct{})
	lctx, cancel := context.WithCancel(tb.ctx)
	defer cancel()
	require.NoError(t, chromedp.Listen(lctx, func(ev any) {
		switch ev := ev.(type) {
		case *tracing.EventDataCollected:
			mu.Lock()
			for _, v := range ev.Value {
				// A copy: the event's buffer is not ours to keep.
				events = append(events, json.RawMessage(append([]byte(nil), v...)))
			}
			mu.Unlock()
		case *tracing.EventTracingComplete:
			close(done)
		}
	}))
	require.NoError(t, chromedp.Do(tb.ctx, chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := cdp.Call(ctx, tg, tracing.Start, tracing.StartParams{
			TraceConfig:  &tracing.TraceConfig{IncludedCategories: categories},
			TransferMode: tracing.StartTransferModeReportEvents,
		})
		return err
	})))
	run()
	require.NoError(t, chromedp.Do(tb.ctx, chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := cdp.Call(ctx, tg, tracing.End, cdp.Empty{})
		return err
	})))
	select {
	case <-done:
	case <-time.After(time.Minute):
		t.Fatal("the trace did not complete")
	}
	mu.Lock()
	defer mu.Unlock()
	return events
}
