package e2e

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestPacedPanels holds the toolbar's clock and the controllers' high watermarks to their
// paces while a run plays (web/ts/controls.ts: CLOCK_EVERY_MS, ten writes a second;
// WATERMARK_EVERY_MS, four), where at 10× both change every frame or two, and checks that a
// pause shows the last frame's values at once: each write skipped is a layout and a paint the
// frame does not do (docs/performance.md, "The page's main thread").
func TestPacedPanels(t *testing.T) {
	parallel(t)
	exe := chromiumPath(t)
	url := serve(t, site(t), nil)
	tb := open(t, sharedBrowser(t, exe), url)
	setSpeed(t, tb, 10)
	poll(t, tb, `document.body.dataset.sim === "playing" && /running at/.test(document.getElementById("clock").textContent)`)

	// Count the writes (a text replaced is a childList mutation of its element) over 3 s of
	// play. Unpaced, each is written every frame (the clock at 10× changes its tenths every
	// frame, a watermark every frame or two): 180 at 60 frames a second, still 40 on a machine
	// loaded to 13 frames a second. Paced, one for each pace's span, and one more for the span
	// the count started in.
	eval[bool](t, tb, `(() => {
		const w = window.__paced = {clock: 0, hw: [], at: performance.now()};
		new MutationObserver(() => w.clock++).observe(document.getElementById("clock"), {childList: true, characterData: true, subtree: true});
		document.querySelectorAll("#controller-list .actor-state").forEach((e, i) => {
			w.hw[i] = 0;
			new MutationObserver(() => w.hw[i]++).observe(e, {childList: true, characterData: true, subtree: true});
		});
		return true;
	})()`)
	time.Sleep(3 * time.Second)
	got := eval[map[string]any](t, tb, `(w => ({clock: w.clock, hw: w.hw, ms: performance.now() - w.at}))(window.__paced)`)
	ms, clockWrites, hw := got["ms"].(float64), got["clock"].(float64), got["hw"].([]any)
	t.Logf("in %.0f ms of play at 10×: the clock written %v times, the controllers' lines %v", ms, clockWrites, hw)
	assert.Greater(t, clockWrites, 0.0, "the clock moves while playing")
	assert.LessOrEqual(t, clockWrites, ms/100+1, "the clock is written at most every CLOCK_EVERY_MS (100) while playing")
	require.Len(t, hw, 3, "three controllers")
	for i, n := range hw {
		assert.Greater(t, n.(float64), 0.0, "controller %d's watermark moves while playing", i)
		assert.LessOrEqual(t, n.(float64), ms/250+1, "controller %d's line is written at most every WATERMARK_EVERY_MS (250) while playing", i)
	}

	// The cluster canvas: a frame whose only changes are numbers (the clock, the watermarks) is
	// drawn at most once a tick while playing (web/ts/render.ts, Renderer.ticking). The tick is
	// 100 ms; this tab's ten frames a second would hide it, so the test asks for one of 1 s
	// (data-tick-ms) and counts the drawings by the texts each records.
	eval[bool](t, tb, `(() => {
		const c = document.getElementById("cluster-canvas");
		c.dataset.tickMs = "1000";
		c.dataset.recordTexts = "1";
		const w = window.__drawn = {n: 0, at: performance.now()};
		new MutationObserver(() => w.n++).observe(c, {attributes: true, attributeFilter: ["data-texts"]});
		return true;
	})()`)
	time.Sleep(3 * time.Second)
	drawn := eval[map[string]float64](t, tb, `(w => ({n: w.n, ms: performance.now() - w.at}))(window.__drawn)`)
	t.Logf("in %.0f ms of play at 10× with a 1 s tick: the canvas drawn %v times", drawn["ms"], drawn["n"])
	assert.Greater(t, drawn["n"], 0.0, "the canvas is drawn while playing")
	assert.LessOrEqual(t, drawn["n"], drawn["ms"]/1000+2, "a quiet cluster's canvas is drawn once a tick while playing (a partition's change would add one)")

	// Paused, the canvas draws the last frame's numbers at once, whatever its tick held back.
	press(t, tb, " ")
	poll(t, tb, `document.body.dataset.sim === "paused"`)
	nextFrames(t, tb)
	paused := eval[map[string]any](t, tb, `(c => ({timeMs: Number(c.dataset.timeMs),
		clock: JSON.parse(c.dataset.texts || "[]").map((s) => s.text ?? "").find((s) => /^\d+:\d\d:\d\d\.\d /.test(s)) ?? ""}))(document.getElementById("cluster-canvas"))`)
	pausedAt := int64(paused["timeMs"].(float64))
	assert.True(t, strings.HasPrefix(paused["clock"].(string), fmt.Sprintf("%d:%02d:%02d.%d ", pausedAt/3_600_000, pausedAt/60_000%60, pausedAt/1000%60, pausedAt/100%10)),
		"paused at %d ms, the canvas's summary reads %q", pausedAt, paused["clock"])
	eval[bool](t, tb, `(c => (delete c.dataset.tickMs, delete c.dataset.recordTexts, true))(document.getElementById("cluster-canvas"))`)

	// Paused, the clock reads the last frame's time, and each controller's line its watermark
	// as the canvas draws it ("HW 1,234 · end 1,240").
	// The canvas draws the last frame again, recording its texts, when its width changes.
	eval[bool](t, tb, `(c => (c.dataset.recordTexts = "1", delete c.dataset.texts, true))(document.getElementById("cluster-canvas"))`)
	require.NoError(t, chromedp.Do(tb.ctx, chromedp.EmulateViewport(1100, 900)))
	nextFrames(t, tb)
	require.NoError(t, chromedp.Do(tb.ctx, chromedp.EmulateViewport(1280, 900)))
	nextFrames(t, tb)
	poll(t, tb, `!!document.getElementById("cluster-canvas").dataset.texts`)
	shown := eval[map[string]any](t, tb, `(() => {
		const c = document.getElementById("cluster-canvas");
		const texts = JSON.parse(c.dataset.texts || "[]").map((s) => s.text ?? "");
		return {
			clock: document.getElementById("clock").textContent,
			timeMs: Number(c.dataset.timeMs),
			lines: [...document.querySelectorAll("#controller-list .actor-state")].map((e) => e.textContent),
			canvas: texts.filter((s) => s.startsWith("HW ")),
		};
	})()`)
	at := int64(shown["timeMs"].(float64))
	clock := fmt.Sprintf("%d:%02d:%02d.%d", at/3_600_000, at/60_000%60, at/1000%60, at/100%10) // web/ts/frame.ts clockText
	assert.Equal(t, "Cluster time "+clock+" · paused", shown["clock"], "the clock shows the last frame's time once paused")
	// The canvas draws the controllers in the frame's order, as the panel lists them.
	lines, canvas := shown["lines"].([]any), shown["canvas"].([]any)
	require.Len(t, canvas, len(lines), "the canvas draws a watermark per controller: %v", canvas)
	for i, l := range lines {
		hw := strings.TrimPrefix(strings.Split(canvas[i].(string), " · ")[0], "HW ")
		assert.True(t, strings.HasSuffix(l.(string), "high watermark "+hw), "controller %d's line %q shows the last frame's watermark (%s) once paused", i, l, hw)
	}
}
