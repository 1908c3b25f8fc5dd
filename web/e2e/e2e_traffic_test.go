package e2e

import (
	"context"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// drawnJS is the traffic layer's record of what it drew (web/ts/traffic.ts, Drawn).
const drawnJS = `document.querySelector("canvas.traffic-layer").drawnLog`

// Drawn entries are found by their seq (web/ts/traffic.ts, Drawn.seq), which keeps counting
// while the layer drops its oldest entries, so that a number taken earlier still points at
// the same entry.

// drawnIndex returns the seq of the first drawn entry from seq `from` on that matches the JS
// predicate over d, or -1.
func drawnIndex(t *testing.T, tb *tab, from int, pred string) int {
	t.Helper()
	return eval[int](t, tb, `(() => { for (const d of `+drawnJS+`) { if (d.seq >= `+strconv.Itoa(from)+` && (`+pred+`)) return d.seq; } return -1; })()`)
}

// drawnLen returns the seq the next drawn entry will have.
func drawnLen(t *testing.T, tb *tab) int {
	return eval[int](t, tb, `(() => { const l = `+drawnJS+`; return l.length ? l[l.length - 1].seq + 1 : 0; })()`)
}

// drawnField reads a field of the drawn entry with this seq.
func drawnField[T any](t *testing.T, tb *tab, seq int, field string) T {
	t.Helper()
	return eval[T](t, tb, drawnJS+`.find((d) => d.seq === `+strconv.Itoa(seq)+`).`+field)
}

// waitDrawn waits until an entry from seq `from` on matches pred and returns its seq.
func waitDrawn(t *testing.T, tb *tab, from int, pred string) int {
	t.Helper()
	poll(t, tb, `(() => { for (const d of `+drawnJS+`) { if (d.seq >= `+strconv.Itoa(from)+` && (`+pred+`)) return true; } return false; })()`)
	return drawnIndex(t, tb, from, pred)
}

// gateScenario is a broker losing its disk under wait-for-sync (cluster/scenario/testdata's
// cluster-disk-swap-gate, shortened): the gate holds broker 2's leaderships while it copies
// its replicas back.
const gateScenario = `{"seed": 11, "duration_ms": 170000,
  "config": {"leader.imbalance.election.algorithm": "wait-for-sync",
    "leader.imbalance.election.wait.for.sync.threshold.percent": 5,
    "leader.imbalance.election.max.per.run": 25,
    "leader.imbalance.election.throttle.interval.ms": 15000,
    "leader.imbalance.check.interval.seconds": 30},
  "cluster": {"brokers": 3, "topics": [{"name": "events", "partition_count": 240, "replication_factor": 3}],
    "broker": {"follower.replication.throttled.rate": 20000000, "throttle_all_replicas": true, "local_retention_sec": 600},
    "workload": {"bytes_per_sec_per_broker": 20000000}},
  "events": [
    {"at_ms": 120000, "op": "kill", "broker": 2},
    {"at_ms": 120000, "op": "disk_swap", "broker": 2},
    {"at_ms": 150000, "op": "start", "broker": 2}]}`

func TestTraffic(t *testing.T) {
	parallel(t)
	exe := chromiumPath(t)
	dir := site(t)
	url := serve(t, dir, nil)
	bctx := sharedBrowser(t, exe)
	// The checks of the default cluster share a page, each with a new cluster (restart).
	pg := newTab(t, bctx)

	t.Run("a killed broker's heartbeats stop; the session check, its fence and the leader move are drawn", func(t *testing.T) {
		tb := pg
		restart(t, tb, url)
		waitDrawn(t, tb, 0, `d.kind === "message" && d.api === "BrokerHeartbeat" && d.from === 1 && !d.response`)
		waitDrawn(t, tb, 0, `d.kind === "message" && d.api === "BrokerHeartbeat" && d.to === 1 && d.response && d.note === "you are unfenced"`)
		before := drawnLen(t, tb)
		press(t, tb, "1", "k")
		killedAt, _ := logItem(t, tb, "you killed broker 1")
		move := waitDrawn(t, tb, before, `d.kind === "move" && d.from === 1`)
		screenshot(t, tb, "traffic-fence-move.png", chromedp.CSS("#cluster-canvas"))
		session := drawnIndex(t, tb, before, `d.kind === "decision" && d.decision === "session_expired" && d.label.includes("broker 1 sent no heartbeat")`)
		fence := drawnIndex(t, tb, before, `d.kind === "decision" && d.decision === "fenced" && d.label.startsWith("broker 1 is fenced")`)
		require.GreaterOrEqual(t, session, 0, "the controller's session check is drawn")
		require.GreaterOrEqual(t, fence, 0, "the fence is drawn")
		assert.Less(t, session, fence, "the session check comes before the fence")
		assert.Less(t, fence, move, "the fence comes before the leader move")
		assert.Contains(t, drawnField[string](t, tb, move, "label"), "online · fence of broker 1")
		late := drawnIndex(t, tb, before, `d.kind === "message" && d.from === 1 && d.sentMs > `+strconv.FormatInt(killedAt, 10))
		assert.Equal(t, -1, late, "a killed broker sends nothing, so nothing is drawn leaving it")
		// The other brokers go on heartbeating.
		waitDrawn(t, tb, move, `d.kind === "message" && d.api === "BrokerHeartbeat" && d.from === 2`)
		assert.Empty(t, tb.consoleErrors())
	})

	t.Run("a controller kill draws the vote exchange", func(t *testing.T) {
		tb := pg
		restart(t, tb, url)
		before := drawnLen(t, tb)
		press(t, tb, "c")
		// The layer records a decision when its frame arrives and a message when it is first
		// drawn, a display frame or more later; a slow frame can hold the whole election, so
		// the order checked is the cluster's (sentMs, timeMs), not the order of recording.
		vote := waitDrawn(t, tb, before, `d.kind === "message" && d.api === "Vote" && !d.response && !d.note.startsWith("pre-vote")`)
		voteMs := drawnField[int64](t, tb, vote, "sentMs")
		ms := strconv.FormatInt(voteMs, 10)
		granted := waitDrawn(t, tb, before, `d.kind === "message" && d.api === "Vote" && d.response && d.note === "granted" && d.sentMs >= `+ms)
		grantedMs := strconv.FormatInt(drawnField[int64](t, tb, granted, "sentMs"), 10)
		waitDrawn(t, tb, before, `d.kind === "message" && d.api === "BeginQuorumEpoch" && d.note.startsWith("I lead epoch") && d.sentMs >= `+grantedMs)
		// The new leader's LeaderChangeMessage commits after the votes: it is the active controller.
		waitDrawn(t, tb, before, `d.kind === "decision" && d.decision === "quorum_leader" && d.timeMs >= `+grantedMs)
		screenshot(t, tb, "traffic-vote.png", chromedp.CSS("#cluster-canvas"))
		assert.Empty(t, tb.consoleErrors())
	})

	t.Run("explain stops at the fence and resumes on Space", func(t *testing.T) {
		tb := pg
		restart(t, tb, url)
		defer func() {
			// Explain mode off again for the checks after this one.
			click(t, tb, "#explain-toggle")
			poll(t, tb, `document.body.dataset.explain === "off"`)
		}()
		click(t, tb, "#explain-toggle")
		assert.Equal(t, "on", eval[string](t, tb, `document.body.dataset.explain`))
		press(t, tb, "1", "k")
		poll(t, tb, `!document.getElementById("explain-card").hidden && document.body.dataset.sim === "paused"`)
		// The first stop is the controller's session check (with the fence when both fell in one
		// frame), and it names broker 1; the canvas rings the actors.
		assert.Equal(t, "session_expired", eval[string](t, tb, `document.getElementById("explain-card").dataset.decision`))
		card := eval[string](t, tb, `document.getElementById("explain-card").textContent`)
		assert.Contains(t, card, "broker 1 sent no heartbeat")
		// The card says what the event log says: its lines are the log's lines of that moment.
		cardLogAgree(t, tb)
		screenshot(t, tb, "explain-stop.png", "")
		// It stays stopped: the clock does not move.
		at := eval[string](t, tb, `document.getElementById("cluster-canvas").dataset.timeMs`)
		time.Sleep(300 * time.Millisecond)
		assert.Equal(t, at, eval[string](t, tb, `document.getElementById("cluster-canvas").dataset.timeMs`))
		press(t, tb, " ")
		poll(t, tb, `document.body.dataset.sim === "playing" && document.getElementById("explain-card").hidden`)
		// The fence's commit stops it again, unless it was told in the same stop.
		if !strings.Contains(card, "broker 1 fenced") {
			poll(t, tb, `!document.getElementById("explain-card").hidden && document.getElementById("explain-card").textContent.includes("broker 1 fenced")`)
			cardLogAgree(t, tb)
			// Cause before effect: the session check is in the log above the fence.
			order := eval[[]string](t, tb, `[...document.querySelectorAll("#event-log li span")].map(s => s.textContent).filter(s => s.includes("session check: broker 1") || s.startsWith("broker 1 fenced")).map(s => s.slice(0, 20))`)
			require.Len(t, order, 2)
			assert.Contains(t, order[0], "session check", "the session check is told before the fence: %v", order)
			press(t, tb, " ")
		}
		// The narration told the same story.
		poll(t, tb, `document.getElementById("narration").textContent.length > 0`)
		assert.Empty(t, tb.consoleErrors())
	})

	t.Run("the traffic toggle hides it", func(t *testing.T) {
		tb := pg
		restart(t, tb, url)
		click(t, tb, "#traffic-toggle")
		assert.True(t, eval[bool](t, tb, `document.querySelector("canvas.traffic-layer").hidden`))
		n := drawnLen(t, tb)
		time.Sleep(500 * time.Millisecond)
		assert.Equal(t, n, drawnLen(t, tb), "nothing is drawn while hidden")
		// Shown again for the checks after this one.
		click(t, tb, "#traffic-toggle")
		assert.False(t, eval[bool](t, tb, `document.querySelector("canvas.traffic-layer").hidden`))
	})

	t.Run("looks at 390, 800 and 1440 px and in presenter mode", func(t *testing.T) {
		tb := pg
		restart(t, tb, url)
		for i, w := range []int64{390, 800, 1440} {
			require.NoError(t, chromedp.Do(tb.ctx, chromedp.EmulateViewport(w, 900)))
			if i > 0 {
				// A new cluster in the same page (Start): broker 1 runs again (or this times out).
				eval[bool](t, tb, `document.getElementById("start-button").click(), true`)
				poll(t, tb, `document.getElementById("cluster-canvas").dataset.stopped === ""`)
			}
			before := drawnLen(t, tb)
			press(t, tb, "1", "k")
			waitDrawn(t, tb, before, `d.kind === "move" && d.from === 1`)
			screenshot(t, tb, "traffic-"+strconv.FormatInt(w, 10)+".png", chromedp.CSS("#cluster-canvas"))
			if w == 1440 {
				press(t, tb, "p")
				poll(t, tb, `document.body.classList.contains("presenter")`)
				press(t, tb, "c")
				waitDrawn(t, tb, before, `d.kind === "message" && d.api === "Vote"`)
				screenshot(t, tb, "traffic-presenter.png", "")
			}
			assert.Empty(t, tb.consoleErrors())
		}
	})

	pg.close() // the checks below need a page of their own; this one would go on drawing

	t.Run("a wait-for-sync run draws what the gate withheld", func(t *testing.T) {
		tb := newTab(t, bctx)
		// The link replays 170 s in slices (web/ts/replay.ts): on a shared machine that can take
		// longer than poll's 30 s.
		ctx, cancel := context.WithTimeout(context.WithoutCancel(tb.ctx), 5*time.Minute)
		defer cancel()
		tb.ctx = ctx
		require.NoError(t, chromedp.Do(tb.ctx, chromedp.EmulateViewport(1280, 900), chromedp.Navigate(url+"/"+link("1", "170000", gateScenario))))
		_, err := chromedp.Run(tb.ctx, chromedp.Poll[bool](`document.getElementById("cluster-canvas").dataset.timeMs === "170000" && document.body.dataset.sim === "paused"`,
			chromedp.WithPollingInterval(100*time.Millisecond), chromedp.WithPollingTimeout(4*time.Minute)))
		require.NoError(t, err, "the link opens at 170 s, paused; it shows %s", eval[string](t, tb, `document.getElementById("cluster-canvas").dataset.timeMs`))
		setSpeed(t, tb, 100)
		press(t, tb, " ")
		run := waitDrawn(t, tb, 0, `d.kind === "run" && d.withheld > 0`)
		label := drawnField[string](t, tb, run, "label")
		assert.Regexp(t, `^electPreferred run \d+: elected \d+ · .*withheld by the gate \(broker 2\)`, label)
		screenshot(t, tb, "traffic-gate.png", chromedp.CSS("#cluster-canvas"))
		assert.Empty(t, tb.consoleErrors())
	})

	t.Run("reduced motion fades instead of travelling", func(t *testing.T) {
		tb := openReducedMotion(t, bctx, url)
		assert.Equal(t, "fade", eval[string](t, tb, `document.querySelector("canvas.traffic-layer").dataset.motion`))
		waitDrawn(t, tb, 0, `d.kind === "message" && d.api === "BrokerHeartbeat"`)
	})

	t.Run("frame time with traffic at 400 and 10,000 partitions (measured, not asserted)", func(t *testing.T) {
		if os.Getenv("KRAFTLAB_MEASURE") == "" {
			t.Skip("a measurement, not a test: set KRAFTLAB_MEASURE=1")
		}
		// Its own browser, whose worker reports Go's collector (gcTracing).
		bctx := browser(t, exe)
		tb := open(t, bctx, serve(t, dir, gcTracing(t)))
		ctx, cancel := context.WithTimeout(context.WithoutCancel(tb.ctx), 20*time.Minute)
		defer cancel()
		tb.ctx = ctx
		require.NoError(t, chromedp.Do(tb.ctx, chromedp.EmulateViewport(1440, 900)))
		for _, n := range []int{400, 10_000} {
			for _, speed := range []int{1, 10, 1000} {
				// Traffic off then on, back to back, so that both see the same machine load.
				for _, on := range []bool{false, true} {
					if eval[bool](t, tb, `document.getElementById("traffic-toggle").checked`) != on {
						click(t, tb, "#traffic-toggle")
					}
					eval[bool](t, tb, `(() => { const i = document.getElementById("partition-count"); i.max = "100000"; i.value = "`+strconv.Itoa(n)+`";
					document.getElementById("broker-count").value = "6"; return true; })()`)
					require.NoError(t, chromedp.Do(tb.ctx, chromedp.Click(chromedp.CSS("#start-button"))))
					poll(t, tb, `document.getElementById("partition-caption").textContent.includes("`+commas(n)+`") || document.getElementById("partition-caption").textContent.includes("`+strconv.Itoa(n)+`")`)
					setSpeed(t, tb, speed)
					press(t, tb, "2", "k")
					time.Sleep(time.Second)
					var res map[string]float64
					goGC(t, bctx) // from here on
					gc := traceGC(t, tb, func() {
						res = evalAwait[map[string]float64](t, tb, `(async () => {
						const c = document.getElementById("cluster-canvas");
						const layer = document.querySelector("canvas.traffic-layer");
						const f0 = Number(c.dataset.frames);
						let raf = 0, worst = 0, layerMs = 0, drawMs = 0;
						const t0 = performance.now();
						let last = t0;
						await new Promise((done) => {
							const step = (now) => {
								raf++; worst = Math.max(worst, now - last); last = now;
								layerMs = Math.max(layerMs, Number(layer.dataset.drawMs || 0));
								drawMs = Math.max(drawMs, Number(c.dataset.drawMs || 0));
								if (now - t0 < 4000) requestAnimationFrame(step); else done();
							};
							requestAnimationFrame(step);
						});
						const secs = (performance.now() - t0) / 1000;
						return {rafFps: raf / secs, framesPerSec: (Number(c.dataset.frames) - f0) / secs, worstGapMs: worst,
							layerMs, drawMs, drawn: `+drawnJS+`.length};
					})()`)
					})
					t.Logf("%s partitions at %d×, traffic %s: rAF %.1f fps, cluster frames %.1f/s, worst rAF gap %.1f ms, slowest traffic layer draw %.2f ms, slowest canvas draw %.2f ms; "+
						"V8 GC pauses: main thread longest %.1f ms (%.1f ms CPU), worker %.1f ms (%.1f ms CPU); %s",
						commas(n), speed, map[bool]string{true: "on", false: "off"}[on], res["rafFps"], res["framesPerSec"], res["worstGapMs"], res["layerMs"], res["drawMs"],
						gc.main.wallMs, gc.main.cpuMs, gc.worker.wallMs, gc.worker.cpuMs, goGC(t, bctx))
				}
			}
		}
	})
}

func TestFollowOnePartition(t *testing.T) {
	parallel(t)
	exe := chromiumPath(t)
	dir := site(t)
	url := serve(t, dir, nil)
	bctx := sharedBrowser(t, exe)
	tb := open(t, bctx, url)
	press(t, tb, " ") // paused, so the cells stay where they are
	poll(t, tb, `document.body.dataset.sim === "paused"`)
	b := canvasBoxes(t, tb, "brokerBoxes")["2"]
	// Over the first replica cell of broker 2, then a click pins its partition.
	var hit string
	for dy := 60.0; dy < 110 && hit == ""; dy += 6 {
		require.NoError(t, chromedp.Do(tb.ctx, chromedp.MouseEvent("mouseMoved", b.x+22, b.y+dy)))
		time.Sleep(50 * time.Millisecond)
		if p := eval[string](t, tb, `document.getElementById("cluster-canvas").dataset.followed || "-1"`); p != "-1" {
			hit = p
			require.NoError(t, chromedp.Do(tb.ctx, chromedp.MouseClickXY(b.x+22, b.y+dy)))
		}
	}
	require.NotEmpty(t, hit, "hovering a replica follows its partition")
	poll(t, tb, `document.querySelectorAll("#partition-rows tr.followed").length === 1`)
	assert.Equal(t, hit, eval[string](t, tb, `document.getElementById("cluster-canvas").dataset.pinned`))
	// Moving away keeps the pinned one.
	require.NoError(t, chromedp.Do(tb.ctx, chromedp.MouseEvent("mouseMoved", 5, 5)))
	assert.Equal(t, hit, eval[string](t, tb, `document.getElementById("cluster-canvas").dataset.followed`))
	screenshot(t, tb, "follow-one.png", "")
	press(t, tb, "\x1b")
	poll(t, tb, `document.getElementById("cluster-canvas").dataset.followed === "-1"`)
	assert.Empty(t, tb.consoleErrors())
}

// cardLogAgree checks that every line the explain card shows is a line of the event log, at the
// card's moment: the card and the log are one account.
func cardLogAgree(t *testing.T, tb *tab) {
	t.Helper()
	assert.Equal(t, "log", eval[string](t, tb, `document.getElementById("explain-card").dataset.from`), "the card shows the log's lines")
	lines := eval[[]string](t, tb, `[...document.querySelectorAll("#explain-card .explain-reasons li")].map(li => li.textContent).filter(s => !/^and [\d,]+ more$/.test(s))`)
	require.NotEmpty(t, lines)
	log := eval[[]string](t, tb, `[...document.querySelectorAll("#event-log li span")].map(s => s.textContent)`)
	for _, l := range lines {
		assert.Contains(t, log, l, "the card's line is the log's")
	}
}

func TestChartMarkers(t *testing.T) {
	parallel(t)
	exe := chromiumPath(t)
	dir := site(t)
	url := serve(t, dir, nil)
	bctx := sharedBrowser(t, exe)
	tb := open(t, bctx, url)
	press(t, tb, "1", "k")
	logItem(t, tb, "you killed broker 1")
	press(t, tb, " ")
	poll(t, tb, `document.body.dataset.sim === "paused"`)
	press(t, tb, "n") // to the next balancer run
	logItem(t, tb, "electPreferred")
	const chart = `document.querySelector('[data-chart="leaders"]')`
	// The charts redraw a moment after the frame: the start, the kill and the run are marked.
	poll(t, tb, chart+`.dataset.markerX && `+chart+`.dataset.markerX.split(",").length >= 3`)
	eval[bool](t, tb, chart+`.scrollIntoView({block: "center"}), true`)
	xs := strings.Split(eval[string](t, tb, chart+`.dataset.markerX`), ",")
	// Each marker's line, as the pointer finds it over the plot.
	var tips []string
	for _, x := range xs {
		px, err := strconv.ParseFloat(x, 64)
		require.NoError(t, err)
		ox := eval[float64](t, tb, chart+`.querySelector(".u-over").getBoundingClientRect().left`)
		oy := eval[float64](t, tb, chart+`.querySelector(".u-over").getBoundingClientRect().top`)
		w := eval[float64](t, tb, chart+`.querySelector(".u-over").getBoundingClientRect().width`)
		// The latest run sits on the plot's right edge: point just inside it.
		require.NoError(t, chromedp.Do(tb.ctx, chromedp.MouseEvent("mouseMoved", ox+min(px, w-1), oy+30)))
		poll(t, tb, `!`+chart+`.querySelector(".chart-marker-tip").hidden`)
		tips = append(tips, eval[string](t, tb, chart+`.querySelector(".chart-marker-tip").textContent`))
		if len(tips) == 2 {
			screenshot(t, tb, "chart-marker.png", chromedp.CSS(`[data-chart="leaders"]`))
		}
	}
	// A marker's line is the event log's line: its time and its sentence.
	line := func(prefix string) string {
		return eval[string](t, tb, `(() => { const li = [...document.querySelectorAll("#event-log li")].find(li => li.querySelector("span").textContent.startsWith(`+jsString(prefix)+`)); return li.querySelector("time").textContent + " " + li.querySelector("span").textContent; })()`)
	}
	joined := strings.Join(tips, "\n")
	assert.Contains(t, joined, line("you killed broker 1"), "the kill's marker shows its log line")
	assert.Contains(t, joined, line("electPreferred"), "the run's marker shows its log line")
	// Away from the markers, no line.
	ox := eval[float64](t, tb, chart+`.querySelector(".u-over").getBoundingClientRect().right`)
	oy := eval[float64](t, tb, chart+`.querySelector(".u-over").getBoundingClientRect().top`)
	require.NoError(t, chromedp.Do(tb.ctx, chromedp.MouseEvent("mouseMoved", ox-60, oy+30)))
	poll(t, tb, chart+`.querySelector(".chart-marker-tip").hidden`)
	assert.Empty(t, tb.consoleErrors())
}

func TestFollowOnePartitionByKeyboard(t *testing.T) {
	parallel(t)
	exe := chromiumPath(t)
	dir := site(t)
	url := serve(t, dir, nil)
	bctx := sharedBrowser(t, exe)
	tb := open(t, bctx, url)
	press(t, tb, " ")
	poll(t, tb, `document.body.dataset.sim === "paused"`)
	// Into the canvas by keyboard: the first broker takes the focus.
	eval[bool](t, tb, `document.getElementById("cluster-canvas").focus(), true`)
	poll(t, tb, `document.getElementById("cluster-canvas").dataset.focus === "broker 1"`)
	shift := chromedp.KeyModifiers(chromedp.ModifierShift)
	require.NoError(t, chromedp.Do(tb.ctx, chromedp.KeyEvent(kb.ArrowRight, shift)))
	// The first replica broker 1 holds is in focus: its tooltip, and its partition followed on
	// every broker and in the describe table, as a hovered replica's is.
	poll(t, tb, `document.getElementById("cluster-canvas").dataset.focusReplica !== ""`)
	first := eval[string](t, tb, `document.getElementById("cluster-canvas").dataset.focusReplica`)
	assert.Regexp(t, `^payments-\d+$`, first)
	assert.Contains(t, eval[string](t, tb, `document.getElementById("canvas-tooltip").textContent`), first+" on broker 1")
	assert.False(t, eval[bool](t, tb, `document.getElementById("canvas-tooltip").hidden`))
	followed := eval[string](t, tb, `document.getElementById("cluster-canvas").dataset.followed`)
	assert.NotEqual(t, "-1", followed)
	poll(t, tb, `document.querySelectorAll("#partition-rows tr.followed").length === 1`)
	row := eval[string](t, tb, `(() => { const r = document.querySelector("#partition-rows tr.followed"); return r.cells[0].textContent + "-" + r.dataset.partition; })()`)
	assert.Equal(t, first, row, "the followed row is the focused replica's partition")
	screenshot(t, tb, "follow-one-keyboard.png", chromedp.CSS("#cluster-canvas"))
	// The next replica of broker 1, then Escape lets go.
	require.NoError(t, chromedp.Do(tb.ctx, chromedp.KeyEvent(kb.ArrowRight, shift)))
	poll(t, tb, `document.getElementById("cluster-canvas").dataset.focusReplica !== `+jsString(first))
	assert.NotEqual(t, followed, eval[string](t, tb, `document.getElementById("cluster-canvas").dataset.followed`))
	require.NoError(t, chromedp.Do(tb.ctx, chromedp.KeyEvent(kb.Escape)))
	poll(t, tb, `document.getElementById("cluster-canvas").dataset.followed === "-1" && document.getElementById("canvas-tooltip").hidden`)
	assert.Equal(t, 0, eval[int](t, tb, `document.querySelectorAll("#partition-rows tr.followed").length`))
	assert.Equal(t, "broker 1", eval[string](t, tb, `document.getElementById("cluster-canvas").dataset.focus`), "the broker keeps the focus")
	assert.Empty(t, tb.consoleErrors())
}
