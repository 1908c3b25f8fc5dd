package e2e

import (
	"context"
	"encoding/base64"
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestReliability opens the pages the way a hostile or unlucky reader does: links that are
// wrong in every way, storage the browser blocks, replays too long to do at once, a worker
// that dies. Each time the page must explain what happened and keep working.
func TestReliability(t *testing.T) {
	parallel(t)
	exe := chromiumPath(t)
	dir := site(t)
	url := serve(t, dir, nil)
	bctx := sharedBrowser(t, exe)

	t.Run("bad lab links are explained and the defaults start", func(t *testing.T) {
		// A link of the wrong shape, and one naming a field the page's form does not have
		// (the page's own list of fields). The other refusals of decodeLabLink (not base64url,
		// not JSON, a field of the wrong type) are each named in web/ts/test/links.test.ts and
		// shown by this same path: each costs a page load here.
		b64 := base64.RawURLEncoding.EncodeToString
		for _, c := range []struct{ name, fragment, says string }{
			{"wrong types", b64([]byte(`{"preset":"small","d":{},"pol":"abc"}`)), `its field "pol" is "abc", not a list of policies`},
			{"unknown field", b64([]byte(`{"preset":"small","d":{"x":"1"}}`)), `it names a form field "x" that the lab does not have`},
		} {
			t.Run(c.name, func(t *testing.T) {
				tb := newTab(t, bctx)
				require.NoError(t, chromedp.Do(tb.ctx, chromedp.EmulateViewport(1280, 900), chromedp.Navigate(url+"/lab.html#lab="+c.fragment)))
				poll(t, tb, `["ready", "failed"].includes(document.getElementById("status").dataset.state)`)
				require.Equal(t, "ready", eval[string](t, tb, `document.getElementById("status").dataset.state`),
					"error report: %s", eval[string](t, tb, `document.getElementById("error-report").textContent`))
				status := text(t, tb, "status")
				assert.Contains(t, status, "This link could not be opened: "+c.says)
				assert.Contains(t, status, "The defaults were started instead.")
				if c.name == "wrong types" {
					screenshot(t, tb, "lab-bad-link.png", "")
				}
				// The defaults are on the form, and the page answers: policies drawn, a
				// comparison button wired (its click starts a run).
				assert.GreaterOrEqual(t, eval[int](t, tb, `document.querySelectorAll("#policies .lab-policy").length`), 2)
				validated(t, tb)
				assert.True(t, eval[bool](t, tb, `document.getElementById("error-panel").hidden`))
				click(t, tb, "#add-policy")
				poll(t, tb, `document.querySelectorAll("#policies .lab-policy").length >= 3`)
				assert.Empty(t, tb.consoleErrors())
			})
		}
	})

	t.Run("the event log keeps its latest lines and says how many older ones went", func(t *testing.T) {
		tb := newTab(t, bctx)
		require.NoError(t, chromedp.Do(tb.ctx, chromedp.EmulateViewport(1280, 900), chromedp.Navigate(url+"/")))
		poll(t, tb, `document.getElementById("status").dataset.state === "ready"`)
		poll(t, tb, `document.getElementById("event-log").textContent.includes("cluster started")`)
		if eval[string](t, tb, `document.body.dataset.sim`) == "playing" {
			press(t, tb, " ")
			poll(t, tb, `document.body.dataset.sim !== "playing"`)
		}
		before := eval[int](t, tb, `document.getElementById("event-log").children.length`)
		// "k" with no broker selected writes a line of the page's own each time.
		evalAwait[bool](t, tb, `(async () => {
			for (let i = 0; i < 420; i++) document.dispatchEvent(new KeyboardEvent("keydown", { key: "k", bubbles: true }));
			await new Promise((r) => requestAnimationFrame(r));
			return true;
		})()`)
		log := `document.getElementById("event-log")`
		assert.Equal(t, 401, eval[int](t, tb, log+`.children.length`), "400 lines and the note")
		assert.Equal(t, "notice", eval[string](t, tb, log+`.firstElementChild.dataset.kind`))
		assert.Equal(t, fmt.Sprintf("%d older events are not shown: the log keeps the latest 400 (scrub back to see earlier ones)", before+420-400),
			eval[string](t, tb, log+`.firstElementChild.textContent`))
		assert.Contains(t, eval[string](t, tb, log+`.lastElementChild.textContent`), "Select a broker first")
		eval[int](t, tb, log+`.scrollTop = 0`)
		screenshot(t, tb, "event-log-dropped.png", "#event-log")
	})

	t.Run("a failure of the lab page's own script is not blamed on the worker", func(t *testing.T) {
		tb := newTab(t, bctx)
		// The page's start-up ends by writing its state to the URL; a browser that refuses it
		// makes the page's script fail while its workers run on.
		initScript(t, tb, `History.prototype.replaceState = function () { throw new Error("replaceState refused by the test"); };`)
		require.NoError(t, chromedp.Do(tb.ctx, chromedp.EmulateViewport(1280, 900), chromedp.Navigate(url+"/lab.html")))
		poll(t, tb, `document.getElementById("status").dataset.state === "failed"`)
		assert.Equal(t, "The lab page failed", eval[string](t, tb, `document.querySelector("#error-panel h2").textContent`))
		assert.Equal(t, "page", eval[string](t, tb, `document.getElementById("error-panel").dataset.source`))
		assert.NotContains(t, text(t, tb, "status"), "simulator")
		assert.Contains(t, text(t, tb, "error-report"), "replaceState refused by the test")
		screenshot(t, tb, "lab-page-failed.png", "")
	})

	t.Run("blocked storage: lessons work and the index says progress is not kept", func(t *testing.T) {
		tb := newTab(t, bctx)
		// As a browser that blocks storage for the site does: reading localStorage throws.
		initScript(t, tb, blockStorageJS)
		require.NoError(t, chromedp.Do(tb.ctx, chromedp.EmulateViewport(1280, 900), chromedp.Navigate(url+"/lessons.html")))
		poll(t, tb, `document.body.dataset.ready === "true"`)
		require.True(t, eval[bool](t, tb, `(() => { try { localStorage; return false } catch { return true } })()`), "storage is blocked")
		assert.Equal(t, "blocked", eval[string](t, tb, `document.body.dataset.storage || ""`))
		assert.Contains(t, text(t, tb, "reset-status"), "your progress will not be kept")
		assert.Equal(t, 10, eval[int](t, tb, `document.querySelectorAll(".lesson-entry .lesson-state[data-state=new]").length`))
		screenshot(t, tb, "lessons-storage-blocked.png", "")

		require.NoError(t, chromedp.Do(tb.ctx, chromedp.Navigate(url+"/#lesson=1&step=1")))
		poll(t, tb, `!!document.body.dataset.lesson || !!document.body.dataset.lessonError`)
		assert.Equal(t, "01-electing-a-new-leader", eval[string](t, tb, `document.body.dataset.lesson || ""`))
		poll(t, tb, `Number(document.getElementById("cluster-canvas").dataset.frames || 0) >= 1`) // a step opens paused
		assert.Contains(t, text(t, tb, "lesson-text"), "broker.session.timeout.ms")
		poll(t, tb, `document.querySelectorAll("#config-list input, #config-list select").length > 0`)
		// The learner does the step (and plays); its goals are met though nothing can be stored.
		setSpeed(t, tb, 100)
		press(t, tb, "1", "k", " ")
		poll(t, tb, `document.getElementById("lesson-panel").dataset.done === "true"`)
		assert.True(t, eval[bool](t, tb, `document.getElementById("error-panel").hidden`), "no error panel")
		assert.Empty(t, tb.consoleErrors())
	})

	t.Run("long share-link replays run in slices and can be cancelled", func(t *testing.T) {
		// Each limit alone passes; their product is refused before anything runs.
		big := `{"seed":1,"duration_ms":1000,"cluster":{"brokers":64,"topics":[{"name":"t","partition_count":100000,"replication_factor":3}]}}`
		tb := newTab(t, bctx)
		require.NoError(t, chromedp.Do(tb.ctx, chromedp.EmulateViewport(1280, 900), chromedp.Navigate(url+"/"+link("1", "604800000", big))))
		poll(t, tb, `!!document.body.dataset.linkError`)
		assert.Contains(t, text(t, tb, "link-error"), "This link could not be opened: replaying 7 days of a cluster of 100,000 partitions is more than the page can do in reasonable time; allowed for this cluster: up to 36 h 31 min")
		poll(t, tb, `Number(document.getElementById("cluster-canvas").dataset.frames || 0) >= 2`)
		assert.Equal(t, 4, eval[int](t, tb, `document.querySelectorAll("#broker-list > li").length`), "the default cluster started")

		// Seven days of a small cluster: allowed, replayed in slices under a progress bar; the
		// page answers meanwhile, and Cancel keeps the run at the time reached, paused.
		small := `{"seed":1,"duration_ms":1000,"cluster":{"brokers":4,"topics":[{"name":"t","partition_count":12,"replication_factor":3}]}}`
		tb.close() // a tab left open goes on drawing frames
		tb = newTab(t, bctx)
		require.NoError(t, chromedp.Do(tb.ctx, chromedp.EmulateViewport(1280, 900), chromedp.Navigate(url+"/"+link("1", "604800000", small))))
		poll(t, tb, `document.body.dataset.replay === "running" && Number(document.getElementById("replay").dataset.timeMs) > 60000`)
		assert.False(t, eval[bool](t, tb, `document.getElementById("replay").hidden`))
		assert.Contains(t, text(t, tb, "replay-text"), "Replaying the shared run: ")
		assert.Contains(t, text(t, tb, "replay-text"), " of 168:00:00")
		assert.Greater(t, eval[float64](t, tb, `document.getElementById("replay-progress").value`), 0.0)
		screenshot(t, tb, "replay-progress.png", "")
		click(t, tb, "#replay-cancel")
		poll(t, tb, `document.body.dataset.replay === "cancelled"`)
		assert.True(t, eval[bool](t, tb, `document.getElementById("replay").hidden`))
		reached := pauseAt(t, tb)
		assert.Greater(t, reached, int64(60000))
		assert.Less(t, reached, int64(604800000))
		poll(t, tb, `document.getElementById("event-log").textContent.includes("Stopped replaying the shared run at")`)
		// The URL keeps the time reached: a reload opens there.
		poll(t, tb, `location.hash.includes("&t=`+strconv.FormatInt(reached, 10)+`&")`)
		assert.Empty(t, tb.consoleErrors())
	})

	t.Run("a reload right after a move keeps the moment; a hidden page writes its moment at once", func(t *testing.T) {
		tb := open(t, bctx, url)
		press(t, tb, " ") // pause: the moment below is then the one on screen
		pauseAt(t, tb)
		poll(t, tb, `/[#&]t=\d+&s=/.test(location.hash)`) // the run is in the URL
		// Next event moves the time and the reload follows within milliseconds: the URL must
		// hold the moment already (a reload's address is fixed before pagehide).
		moved := evalAwait[string](t, tb, `(async () => {
			const c = document.getElementById("cluster-canvas");
			const before = c.dataset.timeMs;
			document.getElementById("step-event").click();
			while (c.dataset.timeMs === before) await new Promise((r) => setTimeout(r, 2));
			return c.dataset.timeMs;
		})()`)
		require.NoError(t, chromedp.Do(tb.ctx, chromedp.Reload()))
		poll(t, tb, `document.getElementById("status").dataset.state === "ready" && document.getElementById("cluster-canvas").dataset.timeMs === `+jsString(moved))
		poll(t, tb, `location.hash.includes("&t=`+moved+`&")`)

		// The reloaded page, paused at that moment: a move, then the page is hidden (the tab
		// put away, the browser closed): the URL holds the new moment at once.
		pauseAt(t, tb)
		moved = evalAwait[string](t, tb, `(async () => {
			const c = document.getElementById("cluster-canvas");
			const before = c.dataset.timeMs;
			document.getElementById("step-event").click();
			while (c.dataset.timeMs === before) await new Promise((r) => setTimeout(r, 2));
			Object.defineProperty(document, "visibilityState", {configurable: true, get: () => "hidden"});
			document.dispatchEvent(new Event("visibilitychange"));
			return c.dataset.timeMs;
		})()`)
		assert.Contains(t, eval[string](t, tb, `location.hash`), "&t="+moved+"&", "written synchronously on visibilitychange")
	})

	t.Run("a ResizeObserver loop is not reported as a page failure", func(t *testing.T) {
		tb := open(t, bctx, url)
		// An observer that changes the size of what it observes makes the browser report a loop
		// (a window error event without an error object) and deliver the rest on the next frame.
		eval[bool](t, tb, `(() => {
			const d = document.createElement("div");
			document.body.append(d);
			let n = 0;
			window.loops = 0;
			window.addEventListener("error", (e) => { if (e.message.startsWith("ResizeObserver loop")) window.loops++; });
			new ResizeObserver(() => { if (n++ < 4) d.style.width = (20 + n) + "px"; }).observe(d);
			return true;
		})()`)
		poll(t, tb, `window.loops > 0`)
		assert.True(t, eval[bool](t, tb, `document.getElementById("error-panel").hidden`), "no error panel")
		// A real page error still is one.
		eval[bool](t, tb, `(setTimeout(() => { throw new Error("thrown by the test"); }), true)`)
		poll(t, tb, `!document.getElementById("error-panel").hidden`)
		assert.Contains(t, text(t, tb, "error-report"), "thrown by the test")
	})

	t.Run("a dead worker: the page says so and restarts the simulator with the run", func(t *testing.T) {
		tb := newTab(t, bctx)
		// Keep the page's workers where the test can reach them, before any page script runs.
		initScript(t, tb, keepWorkersJS)
		require.NoError(t, chromedp.Do(tb.ctx, chromedp.EmulateViewport(1280, 900), chromedp.Navigate(url+"/")))
		poll(t, tb, `Number(document.getElementById("cluster-canvas").dataset.frames || 0) >= 2`)
		press(t, tb, "1", "k", " ") // an action the run must keep, then pause
		kept := pauseAt(t, tb)
		poll(t, tb, `location.hash.includes("&t=`+strconv.FormatInt(kept, 10)+`&")`)
		stopped := eval[string](t, tb, `document.getElementById("cluster-canvas").dataset.stopped`)
		require.NotEmpty(t, stopped)

		// The worker dies as a crashed one does: an error event without a message.
		eval[bool](t, tb, `window.keptWorkers.at(-1).dispatchEvent(new ErrorEvent("error", {message: ""}))`)
		poll(t, tb, `document.body.dataset.worker === "dead"`)
		assert.False(t, eval[bool](t, tb, `document.getElementById("error-panel").hidden`))
		assert.Contains(t, text(t, tb, "error-report"), "The worker failed: it stopped without saying why")
		assert.Contains(t, text(t, tb, "restart-text"), "Restarting it reopens the run from this page's address")
		assert.True(t, eval[bool](t, tb, `document.getElementById("start-button").disabled`), "Start is off while there is no simulator")
		screenshot(t, tb, "worker-dead.png", "")

		click(t, tb, "#restart-simulator")
		pollAcrossReload(t, tb, `document.body.dataset.worker !== "dead" && document.getElementById("status").dataset.state === "ready" && document.getElementById("cluster-canvas").dataset.timeMs === "`+strconv.FormatInt(kept, 10)+`"`)
		assert.Equal(t, stopped, eval[string](t, tb, `document.getElementById("cluster-canvas").dataset.stopped`), "the run's action is kept")
		assert.False(t, eval[bool](t, tb, `document.getElementById("start-button").disabled`))
		assert.True(t, eval[bool](t, tb, `document.getElementById("error-panel").hidden`))
	})
}

// blockStorageJS makes window.localStorage throw a SecurityError, as Chromium does when its
// settings block site data; it runs before any of the page's scripts.
const blockStorageJS = `Object.defineProperty(window, "localStorage", {configurable: true,
	get() { throw new DOMException("The operation is insecure.", "SecurityError"); }});`

// pollAcrossReload waits for a condition on a page that is reloading: each try has its own
// short deadline, since an evaluation whose document goes away under it may never answer.
func pollAcrossReload(t *testing.T, tb *tab, cond string) {
	t.Helper()
	for range 300 {
		ctx, cancel := context.WithTimeout(tb.ctx, 2*time.Second)
		ok, err := chromedp.Run(ctx, chromedp.Evaluate[bool](cond))
		cancel()
		if err == nil && ok {
			return
		}
		require.NoError(t, tb.ctx.Err(), "waiting across a reload for %s", cond)
		_ = chromedp.Do(tb.ctx, chromedp.Sleep(100*time.Millisecond))
	}
	t.Fatalf("waiting across a reload for %s: still false", cond)
}

// keepWorkersJS records every Worker the page creates in window.keptWorkers.
const keepWorkersJS = `(() => { const W = window.Worker; window.keptWorkers = [];
	window.Worker = class extends W { constructor(...a) { super(...a); window.keptWorkers.push(this); } }; })();`
