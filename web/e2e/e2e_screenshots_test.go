package e2e

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"github.com/kraftlab/kraftlab/web/build"
)

// screenshotWidths are the window widths a person meets the pages at: a small phone, a phone,
// a small laptop window or tablet, a desktop.
var screenshotWidths = []struct{ w, h int }{{320, 640}, {390, 844}, {800, 900}, {1440, 900}}

// TestScreenshots is the screenshot tool (`make screenshots`): with KRAFTLAB_SCREENSHOTS set to
// a folder (relative to the repository root), it saves what a person sees on the playground,
// in presenter mode, in a lesson (and its predictions, by options and on the timeline, also in presenter mode), in a talk's scene, on the lessons index and in the config lab, at each of
// screenshotWidths: the viewport as the page opens it ("-view") and the whole page ("-page").
// It checks nothing beyond the pages opening: the pictures are for a person to look at.
func TestScreenshots(t *testing.T) {
	out := os.Getenv("KRAFTLAB_SCREENSHOTS")
	if out == "" {
		t.Skip("set KRAFTLAB_SCREENSHOTS=<folder> (or run `make screenshots`) to save the screenshot set")
	}
	if !filepath.IsAbs(out) {
		root, err := build.FindRoot()
		require.NoError(t, err)
		out = filepath.Join(root, out)
	}
	require.NoError(t, os.MkdirAll(out, 0o755))
	exe := chromiumPath(t)
	dir := site(t)
	url := serve(t, dir, nil)
	bctx := sharedBrowser(t, exe)

	save := func(t *testing.T, tb *tab, name string) {
		t.Helper()
		view, err := chromedp.Run(tb.ctx, chromedp.CaptureScreenshot())
		require.NoError(t, err)
		page, err := chromedp.Run(tb.ctx, chromedp.FullScreenshot(90))
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(out, name+"-view.png"), view, 0o644))
		require.NoError(t, os.WriteFile(filepath.Join(out, name+"-page.jpg"), page, 0o644))
		t.Logf("screenshot: %s-{view.png,page.jpg}", filepath.Join(out, name))
	}
	// element saves one element of the page as a PNG.
	element := func(t *testing.T, tb *tab, name, sel string) {
		t.Helper()
		png, err := chromedp.Run(tb.ctx, chromedp.Screenshot(chromedp.CSS(sel)))
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(out, name+".png"), png, 0o644))
		t.Logf("screenshot: %s.png", filepath.Join(out, name))
	}
	at := func(t *testing.T, w, h int, path string) *tab {
		t.Helper()
		tb := newTab(t, bctx)
		require.NoError(t, chromedp.Do(tb.ctx, chromedp.EmulateViewport(int64(w), int64(h)), chromedp.Navigate(url+path)))
		return tb
	}
	ready := func(t *testing.T, tb *tab) {
		t.Helper()
		poll(t, tb, `document.getElementById("status").dataset.state === "ready"`)
		poll(t, tb, `Number(document.getElementById("cluster-canvas").dataset.frames || 0) >= 2`)
	}
	// settle waits for the page's next two animation frames, so that the picture is the page
	// as drawn after the last change.
	settle := func(t *testing.T, tb *tab) {
		t.Helper()
		nextFrames(t, tb)
	}

	for _, size := range screenshotWidths {
		w, h := size.w, size.h
		t.Run(fmt.Sprint(w), func(t *testing.T) {
			t.Run("playground", func(t *testing.T) {
				tb := at(t, w, h, "/")
				ready(t, tb)
				save(t, tb, fmt.Sprintf("playground-%d-start", w))
				// The README's tour: select broker 1, kill it, let the controller fence it and
				// move its leaderships, then pause.
				setSpeed(t, tb, 100)
				press(t, tb, "1", "k")
				logItem(t, tb, "broker 1 fenced")
				poll(t, tb, `Number(document.getElementById("cluster-canvas").dataset.timeMs) > 120000`)
				press(t, tb, " ")
				poll(t, tb, `document.body.dataset.sim === "paused"`)
				settle(t, tb)
				save(t, tb, fmt.Sprintf("playground-%d-killed", w))
				// A replica's tooltip, and the Share and keep disclosure.
				eval[bool](t, tb, `document.getElementById("cluster-canvas").scrollIntoView({block: "start", behavior: "instant"}), true`)
				settle(t, tb)
				b := canvasBoxes(t, tb, "brokerBoxes")["2"]
				require.NoError(t, chromedp.Do(tb.ctx, chromedp.MouseEvent(input.DispatchMouseEventTypeMouseMoved, b.x+20, b.y+82)))
				poll(t, tb, `!document.getElementById("canvas-tooltip").hidden`)
				settle(t, tb)
				save(t, tb, fmt.Sprintf("playground-%d-tooltip", w))
				require.NoError(t, chromedp.Do(tb.ctx, chromedp.MouseEvent(input.DispatchMouseEventTypeMouseMoved, 1, 1)))
				element(t, tb, fmt.Sprintf("share-%d", w), "details.share")
				eval[bool](t, tb, `window.scrollTo(0, 0), true`)

				press(t, tb, "p")
				poll(t, tb, `document.body.classList.contains("presenter")`)
				settle(t, tb)
				save(t, tb, fmt.Sprintf("presenter-%d", w))
				// The charts, as a speaker scrolls to them.
				eval[bool](t, tb, `document.getElementById("charts").scrollIntoView({block: "start", behavior: "instant"}), true`)
				settle(t, tb)
				view, err := chromedp.Run(tb.ctx, chromedp.CaptureScreenshot())
				require.NoError(t, err)
				require.NoError(t, os.WriteFile(filepath.Join(out, fmt.Sprintf("presenter-%d-charts-view.png", w)), view, 0o644))
				// Broker 1 started again, paused while it catches up: the catch-up flows into it
				// from the leaders in its row and the next, as a speaker and a learner see them.
				eval[bool](t, tb, `window.scrollTo(0, 0), true`)
				press(t, tb, "1", "s", " ")
				poll(t, tb, `window.pausedOnFlows ||= Number(document.querySelector("canvas.traffic-layer").dataset.flows) > 0 && (document.getElementById("play-button").click(), true)`)
				poll(t, tb, `document.body.dataset.sim === "paused"`)
				settle(t, tb)
				save(t, tb, fmt.Sprintf("presenter-%d-catch-up", w))
				press(t, tb, "P")
				poll(t, tb, `!document.body.classList.contains("presenter")`)
				eval[bool](t, tb, `document.getElementById("cluster-canvas").scrollIntoView({block: "start", behavior: "instant"}), true`)
				settle(t, tb)
				save(t, tb, fmt.Sprintf("playground-%d-catch-up", w))
			})
			t.Run("lesson", func(t *testing.T) {
				tb := at(t, w, h, "/#lesson=1&step=1")
				// A step opens paused: its one frame.
				poll(t, tb, `!!document.body.dataset.lesson && Number(document.getElementById("cluster-canvas").dataset.frames || 0) >= 1`)
				settle(t, tb)
				save(t, tb, fmt.Sprintf("lesson-%d", w))
				// The step's demo, stopped at its question.
				eval[bool](t, tb, `document.getElementById("lesson-demo-play").click(), true`)
				poll(t, tb, `!document.getElementById("lesson-demo").hidden`)
				settle(t, tb)
				save(t, tb, fmt.Sprintf("lesson-demo-%d", w))
				// Restart cluster in the lesson.
				click(t, tb, "#start-button")
				poll(t, tb, `document.getElementById("lesson-demo").hidden`)
				eval[bool](t, tb, `window.scrollTo(0, 0), true`)
				settle(t, tb)
				save(t, tb, fmt.Sprintf("lesson-restart-%d", w))
			})
			t.Run("lesson 6, a gated broker", func(t *testing.T) {
				tb := at(t, w, h, "/#lesson=6&step=4")
				poll(t, tb, `!!document.body.dataset.lesson && Number(document.getElementById("cluster-canvas").dataset.frames || 0) >= 1`)
				eval[bool](t, tb, `document.getElementById("cluster-canvas").scrollIntoView({block: "start", behavior: "instant"}), true`)
				settle(t, tb)
				save(t, tb, fmt.Sprintf("lesson6-gated-%d", w))
				element(t, tb, fmt.Sprintf("lesson6-panel-%d", w), "#lesson-panel")
			})
			// A prediction asked before the run, by options and on the step's timeline, as
			// the page opens it and in presenter mode. The step's title is scrolled to only
			// where it is out of view (a narrow page, the panel above the canvas): beside the
			// canvas the panel sticks to the top, and scrolling to its title would scroll the
			// page past the canvas, a view no reader gets.
			const stepTitleInView = `(() => { const e = document.getElementById("lesson-step-title"), r = e.getBoundingClientRect();
				if (r.top < 0 || r.bottom > innerHeight) e.scrollIntoView({block: "start", behavior: "instant"});
				return true; })()`
			for _, q := range []struct{ name, link string }{{"lesson-predict", "lesson=1&step=4"}, {"lesson-moment", "lesson=1&step=3"}} {
				t.Run(q.name, func(t *testing.T) {
					tb := at(t, w, h, "/#"+q.link)
					poll(t, tb, `!!document.body.dataset.lesson && Number(document.getElementById("cluster-canvas").dataset.frames || 0) >= 1`)
					eval[bool](t, tb, `localStorage.removeItem("kraftlab.predictions.v1"), true`)
					require.NoError(t, chromedp.Do(tb.ctx, chromedp.Reload()))
					poll(t, tb, `document.body.dataset.prediction === "pending" && Number(document.getElementById("cluster-canvas").dataset.frames || 0) >= 1`)
					eval[bool](t, tb, stepTitleInView)
					settle(t, tb)
					save(t, tb, fmt.Sprintf("%s-%d", q.name, w))
					press(t, tb, "p")
					poll(t, tb, `document.body.classList.contains("presenter")`)
					eval[bool](t, tb, stepTitleInView)
					settle(t, tb)
					save(t, tb, fmt.Sprintf("%s-%d-presenter", q.name, w))
				})
			}
			t.Run("talk", func(t *testing.T) {
				tb := at(t, w, h, "/#talk=kip-1358-in-ten-minutes&scene=3")
				setSpeed(t, tb, 100)
				poll(t, tb, `document.body.dataset.talkScene === "2" && document.body.dataset.talkState === "done"`)
				settle(t, tb)
				save(t, tb, fmt.Sprintf("talk-%d", w))
			})
			t.Run("lessons index", func(t *testing.T) {
				tb := at(t, w, h, "/lessons.html")
				poll(t, tb, `document.readyState === "complete"`)
				settle(t, tb)
				save(t, tb, fmt.Sprintf("lessons-index-%d", w))
			})
			t.Run("lab", func(t *testing.T) {
				tb := at(t, w, h, "/lab.html")
				ctx, cancel := context.WithTimeout(context.WithoutCancel(tb.ctx), 5*time.Minute)
				t.Cleanup(cancel)
				tb.ctx = ctx
				poll(t, tb, `document.getElementById("status").dataset.state === "ready"`)
				validated(t, tb)
				click(t, tb, `[data-preset="small"]`)
				validated(t, tb)
				click(t, tb, "#compare-run")
				finished(t, tb, "compare-status")
				settle(t, tb)
				save(t, tb, fmt.Sprintf("lab-%d", w))
				element(t, tb, fmt.Sprintf("lab-verdicts-%d", w), "#compare-results")
				element(t, tb, fmt.Sprintf("lab-policies-%d", w), "#policies")
				element(t, tb, fmt.Sprintf("lab-describe-%d", w), ".lab-describe")
				if w < 1440 {
					return
				}
				// A sweep of the small preset: runs within noise of each other.
				replaceText(t, tb, "#f-grid0", "leader.imbalance.election.wait.for.sync.threshold.percent=0,5,10")
				replaceText(t, tb, "#f-grid1", "leader.imbalance.election.max.per.run=50,200")
				validated(t, tb)
				click(t, tb, "#sweep-run")
				finished(t, tb, "sweep-status")
				settle(t, tb)
				element(t, tb, "lab-heatmap-1440", ".heatmaps")
			})
		})
	}
}
