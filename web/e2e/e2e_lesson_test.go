package e2e

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// openLesson navigates a new tab to a lesson link and waits until the step is open and drawn
// (or, for a link that cannot be opened, until the panel says so).
func openLesson(t *testing.T, bctx context.Context, url, fragment string) *tab {
	t.Helper()
	tb := newTab(t, bctx)
	gotoLesson(t, tb, url, fragment)
	return tb
}

// gotoLesson loads a lesson link in the tab, as openLesson does in a new one.
func gotoLesson(t *testing.T, tb *tab, url, fragment string) {
	t.Helper()
	require.NoError(t, chromedp.Do(tb.ctx, chromedp.EmulateViewport(1400, 900), chromedp.Navigate(url+"/#"+fragment)))
	poll(t, tb, `!!document.body.dataset.lesson || !!document.body.dataset.lessonError`)
	// A step opens paused: one frame, its start.
	poll(t, tb, `Number(document.getElementById("cluster-canvas").dataset.frames || 0) >= 1`)
}

// forgetStored removes keys from the site's storage (which the tabs of a test's browser
// share), from the lessons index: a page of the site's origin that runs no simulator (a
// document without the site's favicon link, such as its licence text, fetches /favicon.ico,
// which is not there: a console error). Removing them from a lesson's page and reloading it
// would load the lesson twice.
func forgetStored(t *testing.T, tb *tab, url string, keys ...string) {
	t.Helper()
	require.NoError(t, chromedp.Do(tb.ctx, chromedp.Navigate(url+"/lessons.html")))
	for _, k := range keys {
		eval[bool](t, tb, `localStorage.removeItem(`+jsString(k)+`), true`)
	}
}

// predictionsKey is where the lessons keep the learner's predictions.
const predictionsKey = "kraftlab.predictions.v1"

// lessonClick clicks a lesson control once it is in view and has stopped moving. chromedp
// scrolls the element into view, reads where it is and sends the mouse there; but scrolling
// the stacked panel on a phone changes its layout a frame later (whether the canvas shows under
// it, web/ts/lesson/panel.ts), and a layout still settling (a new viewport folding the step's
// text, a check's reply rebuilding the goals) moves it too. On a loaded machine the click then
// lands a few pixels off, on the panel. A person aims at a button that is where it shows.
func lessonClick(t *testing.T, tb *tab, sel string) {
	t.Helper()
	evalAwait[bool](t, tb, stillJS(sel))
	require.NoError(t, chromedp.Do(tb.ctx, chromedp.Click(chromedp.CSS(sel))))
}

// stillJS is a promise that scrolls the element sel into view and resolves once it has kept
// its place on screen and its size over three animation frames (or after 5 s).
func stillJS(sel string) string {
	return `new Promise((resolve) => {
		const el = document.querySelector(` + strconv.Quote(sel) + `);
		if (!el) return resolve(true);
		const until = performance.now() + 5000;
		let last = "", same = 0;
		const look = () => {
			el.scrollIntoView({ block: "nearest" }); // no scroll when it is in view already, in the panel and the page
			const r = el.getBoundingClientRect();
			const at = [r.left, r.top, r.width, r.height].map(Math.round).join(",");
			same = at === last ? same + 1 : 0;
			last = at;
			if (same >= 3 || performance.now() > until) resolve(true);
			else requestAnimationFrame(look);
		};
		requestAnimationFrame(look);
	})`
}

// showMe presses "Show me" and lets its play run to its end quickly: at the top speed, going
// on (Space) at each explain stop. "Show me plays" below watches one at its own pace.
func showMe(t *testing.T, tb *tab) {
	t.Helper()
	lessonClick(t, tb, "#lesson-show")
	waitFor(t, tb, `["playing", "done"].includes(document.body.dataset.showMe) || document.getElementById("lesson-done").dataset.state === "error"`)
	require.NotEqual(t, "error", eval[string](t, tb, `document.getElementById("lesson-done").dataset.state`), "Show me: %s", eval[string](t, tb, `document.getElementById("lesson-done").textContent`))
	setSpeed(t, tb, 10000)
	for deadline := time.Now().Add(4 * time.Minute); eval[string](t, tb, `document.body.dataset.showMe`) != "done"; {
		if time.Now().After(deadline) {
			t.Fatalf("Show me did not end; the clock reads %s", eval[string](t, tb, `document.getElementById("clock").textContent`))
		}
		if eval[bool](t, tb, `!document.getElementById("explain-card").hidden && document.body.dataset.sim === "paused"`) {
			press(t, tb, " ")
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// goals returns the goal list's marks: "✓" or "○" each.
func goals(t *testing.T, tb *tab) []string {
	return eval[[]string](t, tb, `[...document.querySelectorAll("#lesson-goals .goal-mark")].map(e => e.textContent)`)
}

func TestLesson(t *testing.T) {
	parallel(t)
	exe := chromiumPath(t)
	dir := site(t)
	url := serve(t, dir, nil)
	bctx := sharedBrowser(t, exe)

	t.Run("lesson 1 completed by clicking", func(t *testing.T) {
		tb := openLesson(t, bctx, url, "lesson=1&step=1")
		assert.Equal(t, "01-electing-a-new-leader", eval[string](t, tb, `document.body.dataset.lesson`))
		assert.Equal(t, "Lesson 1: Electing a new leader", eval[string](t, tb, `document.getElementById("lesson-title").textContent`))
		assert.Equal(t, "Step 1 of 6", eval[string](t, tb, `document.getElementById("lesson-step-of").textContent`))
		// Markdown is rendered as elements, never as HTML from the text: the intro's `payments`
		// is a <code>, and the step's text is there.
		assert.Contains(t, eval[[]string](t, tb, `[...document.querySelectorAll("#lesson-text code")].map(e => e.textContent)`), "payments-0")
		assert.Contains(t, eval[string](t, tb, `document.getElementById("lesson-text").textContent`), "broker.session.timeout.ms")
		assert.Equal(t, []string{"○", "○", "○"}, goals(t, tb))
		assert.GreaterOrEqual(t, eval[float64](t, tb, `Number(document.getElementById("cluster-canvas").dataset.timeMs)`), 30000.0, "the lesson's start_ms")
		assert.Contains(t, eval[string](t, tb, `location.hash`), "lesson=01-electing-a-new-leader&step=1")

		// A hint on request.
		lessonClick(t, tb, "#lesson-hint")
		assert.Contains(t, eval[string](t, tb, `document.getElementById("lesson-hints").textContent`), "press K")

		// The learner acts with the playground's own controls: select broker 1, kill it, and
		// play (the step opened paused).
		setSpeed(t, tb, 100)
		press(t, tb, "1", "k", " ")
		_, text := logItem(t, tb, "broker 1 fenced")
		assert.Contains(t, text, "broker.session.timeout.ms is 9,000 ms")
		poll(t, tb, `document.getElementById("lesson-panel").dataset.done === "true"`)
		assert.Equal(t, []string{"✓", "✓", "✓"}, goals(t, tb))
		assert.Equal(t, "All goals met. Well done.", eval[string](t, tb, `document.getElementById("lesson-done").textContent`))
		screenshot(t, tb, "lesson-1-step-1-done.png", "")

		// Forward: step 2 starts from its checkpoint; show me plays its reference.
		lessonClick(t, tb, "#lesson-forward")
		poll(t, tb, `document.body.dataset.lessonStep === "1"`)
		assert.Contains(t, eval[string](t, tb, `location.hash`), "step=2")
		assert.Equal(t, []string{"○", "○"}, goals(t, tb))
		showMe(t, tb)
		poll(t, tb, `document.getElementById("lesson-panel").dataset.done === "true"`)
		// Back goes to step 1's start again: its goals are open.
		lessonClick(t, tb, "#lesson-back")
		poll(t, tb, `document.body.dataset.lessonStep === "0" && document.getElementById("lesson-goals").children.length === 3`)
		assert.Equal(t, []string{"○", "○", "○"}, goals(t, tb))
		// Its demo stops at the question, and goes on when asked.
		lessonClick(t, tb, "#lesson-demo-play")
		poll(t, tb, `!document.getElementById("lesson-demo").hidden`)
		assert.Contains(t, eval[string](t, tb, `document.getElementById("lesson-question").textContent`), "Who leads payments-0 right now")
		lessonClick(t, tb, "#lesson-continue")
		poll(t, tb, `document.getElementById("lesson-panel").dataset.done === "true" && document.getElementById("lesson-demo").hidden`)

		// Steps 2 to 4 by show me, past the challenge (its own test is below), then the sandbox
		// and the next lesson.
		for _, step := range []string{"1", "2", "3"} {
			lessonClick(t, tb, "#lesson-forward")
			poll(t, tb, `document.body.dataset.lessonStep === "`+step+`" && document.getElementById("lesson-panel").dataset.done === "false"`)
			if eval[string](t, tb, `document.body.dataset.prediction`) == "pending" {
				if eval[bool](t, tb, `document.getElementById("lesson-predict-options").hidden`) {
					lessonClick(t, tb, "#lesson-moment-mark") // answered on the timeline
				} else {
					lessonClick(t, tb, `#lesson-predict-options button[data-option="0"]`)
				}
			}
			showMe(t, tb)
			poll(t, tb, `document.getElementById("lesson-panel").dataset.done === "true"`)
		}
		lessonClick(t, tb, "#lesson-forward")
		poll(t, tb, `document.body.dataset.lessonStep === "4"`)
		lessonClick(t, tb, "#lesson-forward")
		poll(t, tb, `document.body.dataset.lessonStep === "5"`)
		assert.Contains(t, eval[string](t, tb, `document.getElementById("lesson-done").textContent`), "Sandbox")
		assert.True(t, eval[bool](t, tb, `!document.getElementById("lesson-next").hidden`))
		screenshot(t, tb, "lesson-1-sandbox.png", "#lesson-panel")

		// Presenter mode keeps the lesson panel, larger.
		before := eval[float64](t, tb, `parseFloat(getComputedStyle(document.getElementById("lesson-text")).fontSize)`)
		press(t, tb, "p")
		poll(t, tb, `document.body.classList.contains("presenter")`)
		assert.True(t, eval[bool](t, tb, `document.getElementById("lesson-panel").getBoundingClientRect().width > 200`))
		assert.Greater(t, eval[float64](t, tb, `parseFloat(getComputedStyle(document.getElementById("lesson-text")).fontSize)`), before)
		screenshot(t, tb, "lesson-presenter.png", "")
		press(t, tb, "p")

		lessonClick(t, tb, "#lesson-next")
		poll(t, tb, `document.body.dataset.lesson === "02-the-old-leaders-extra-records" && document.body.dataset.lessonStep === "0"`)

		// Progress survived in the browser: the index shows lesson 1's steps done but its
		// challenge (skipped above); reset clears it.
		require.NoError(t, chromedp.Do(tb.ctx, chromedp.Navigate(url+"/lessons.html")))
		poll(t, tb, `document.body.dataset.ready === "true"`)
		assert.Equal(t, 10, eval[int](t, tb, `document.querySelectorAll(".lesson-entry").length`))
		assert.Equal(t, "started", eval[string](t, tb, `document.querySelector('[data-lesson="01-electing-a-new-leader"]').dataset.state`))
		assert.Equal(t, "4 of 5 steps done", eval[string](t, tb, `document.querySelector('[data-lesson="01-electing-a-new-leader"] .lesson-state').textContent`))
		assert.Equal(t, "started", eval[string](t, tb, `document.querySelector('[data-lesson="02-the-old-leaders-extra-records"]').dataset.state`))
		assert.Regexp(t, `^about \d+ min$`, eval[string](t, tb, `document.querySelector(".lesson-minutes").textContent`))
		screenshot(t, tb, "lessons-index.png", "")
		lessonClick(t, tb, "#reset-progress")
		assert.Equal(t, "new", eval[string](t, tb, `document.querySelector('[data-lesson="01-electing-a-new-leader"]').dataset.state`))
		require.NoError(t, chromedp.Do(tb.ctx, chromedp.Reload()))
		poll(t, tb, `document.body.dataset.ready === "true"`)
		assert.Equal(t, "new", eval[string](t, tb, `document.querySelector('[data-lesson="01-electing-a-new-leader"]').dataset.state`))
		assert.Empty(t, tb.consoleErrors())
	})

	t.Run("a prediction is asked before the reveal and recorded", func(t *testing.T) {
		tb := newTab(t, bctx)
		// The tabs share the browser's storage: forget the answer an earlier test gave here.
		forgetStored(t, tb, url, predictionsKey)
		gotoLesson(t, tb, url, "lesson=1&step=4")
		poll(t, tb, `document.body.dataset.lesson === "01-electing-a-new-leader" && !!document.body.dataset.prediction`)
		require.NoError(t, chromedp.Do(tb.ctx, chromedp.EmulateViewport(390, 844)))
		// Asked first: the goals, their picture and "Show me" would give the answer away.
		assert.Equal(t, "pending", eval[string](t, tb, `document.body.dataset.prediction`))
		assert.False(t, eval[bool](t, tb, `document.getElementById("lesson-predict").hidden`))
		assert.True(t, eval[bool](t, tb, `document.getElementById("lesson-goal-box").hidden`))
		assert.True(t, eval[bool](t, tb, `document.getElementById("lesson-step-text").hidden`), "the step's text explains the answer")
		assert.True(t, eval[bool](t, tb, `document.getElementById("lesson-task").hidden`))
		assert.True(t, eval[bool](t, tb, `document.getElementById("lesson-show").hidden`))
		assert.True(t, eval[bool](t, tb, `document.getElementById("lesson-picture").hidden`))
		assert.Equal(t, []string{"Broker 0", "Broker 2", "Nobody: the partition goes offline"},
			eval[[]string](t, tb, `[...document.querySelectorAll("#lesson-predict-options button")].map(b => b.textContent)`))
		eval[bool](t, tb, `document.getElementById("lesson-step-title").scrollIntoView(), true`)
		screenshot(t, tb, "lesson-predict-390.png", "")

		// Clicking broker 2 (in the broker list, as a click on the canvas does) answers "Broker 2".
		require.NoError(t, chromedp.Do(tb.ctx, chromedp.EmulateViewport(1400, 900)))
		lessonClick(t, tb, `li[data-broker="2"] button.select`)
		poll(t, tb, `document.body.dataset.prediction === "answered:1"`)
		assert.Contains(t, eval[string](t, tb, `document.getElementById("lesson-predict-said").textContent`), "You predicted: Broker 2.")
		assert.Equal(t, `{"chose":1}`, eval[string](t, tb, `JSON.stringify(JSON.parse(localStorage.getItem("kraftlab.predictions.v1"))["01-electing-a-new-leader/3"])`))
		assert.True(t, eval[bool](t, tb, `document.getElementById("lesson-reveal").hidden`), "nothing is revealed before the run plays")
		poll(t, tb, `!document.getElementById("lesson-goal-box").hidden && !document.getElementById("lesson-picture").hidden`)
		assert.False(t, eval[bool](t, tb, `document.getElementById("lesson-step-text").hidden`))
		assert.Equal(t, "true", eval[string](t, tb, `document.querySelector('#lesson-predict-options button[data-option="1"]').getAttribute("aria-pressed")`))

		// The run plays; the reveal says what happened, against the answer given.
		showMe(t, tb)
		poll(t, tb, `document.getElementById("lesson-panel").dataset.done === "true" && !document.getElementById("lesson-reveal").hidden`)
		assert.Equal(t, "revealed:1:0", eval[string](t, tb, `document.body.dataset.prediction`))
		assert.Equal(t, "You predicted Broker 2; what happened: Broker 0.", eval[string](t, tb, `document.getElementById("lesson-reveal-verdict").textContent`))
		assert.Contains(t, eval[string](t, tb, `document.getElementById("lesson-reveal-text").textContent`), "a fenced broker is out of the ISR")
		assert.Equal(t, `{"chose":1,"right":false}`, eval[string](t, tb, `JSON.stringify(JSON.parse(localStorage.getItem("kraftlab.predictions.v1"))["01-electing-a-new-leader/3"])`))
		// The goal's picture: broker 0 leads payments-0, alone in its ISR.
		assert.Equal(t, "0", eval[string](t, tb, `document.querySelector('#lesson-picture-goal .pic-replica[data-leader="true"]').textContent.replace("★", "")`))
		assert.Equal(t, "0", eval[string](t, tb, `document.getElementById("lesson-picture").dataset.differences`))
		require.NoError(t, chromedp.Do(tb.ctx, chromedp.EmulateViewport(390, 844)))
		eval[bool](t, tb, `document.getElementById("lesson-predict").scrollIntoView(), true`)
		screenshot(t, tb, "lesson-reveal-390.png", "")
		assert.Empty(t, tb.consoleErrors())
	})

	t.Run("a moment is marked on the timeline before the run, and the reveal says how far off", func(t *testing.T) {
		// Lesson 1, step 3: when does broker 1 lead payments-0 again? The step starts at
		// 0:00:44.4; the periodic run gives leadership back at 0:05:00, step time 255.56 s.
		tb := newTab(t, bctx)
		forgetStored(t, tb, url, predictionsKey)
		gotoLesson(t, tb, url, "lesson=1&step=3")
		poll(t, tb, `document.body.dataset.lesson === "01-electing-a-new-leader" && document.body.dataset.prediction === "pending"`)
		require.NoError(t, chromedp.Do(tb.ctx, chromedp.EmulateViewport(390, 844)))
		// Asked on a timeline of the step, not by options; nothing that gives the answer away.
		assert.False(t, eval[bool](t, tb, `document.getElementById("lesson-moment").hidden`))
		assert.True(t, eval[bool](t, tb, `document.getElementById("lesson-predict-options").hidden`))
		assert.True(t, eval[bool](t, tb, `document.getElementById("lesson-goal-box").hidden`))
		assert.True(t, eval[bool](t, tb, `document.getElementById("lesson-step-text").hidden`))
		assert.True(t, eval[bool](t, tb, `document.getElementById("lesson-show").hidden`))
		assert.Equal(t, []string{"now", "2:00", "4:00", "6:00"}, eval[[]string](t, tb, `[...document.querySelectorAll(".moment-ticks span")].map(e => e.textContent)`))
		eval[bool](t, tb, `document.getElementById("lesson-predict").scrollIntoView(), true`)
		screenshot(t, tb, "lesson-moment-390.png", "")

		// A click on the timeline a quarter of the way along puts the mark near 100 s.
		rect := eval[[]float64](t, tb, `(r => [r.left, r.top, r.width, r.height])(document.getElementById("lesson-moment-range").getBoundingClientRect())`)
		require.NoError(t, chromedp.Do(tb.ctx, chromedp.MouseClickXY(rect[0]+9+(rect[2]-18)*0.25, rect[1]+rect[3]/2)))
		poll(t, tb, `Math.abs(Number(document.getElementById("lesson-moment-range").value) - 100000) <= 2000`)
		assert.Equal(t, "pending", eval[string](t, tb, `document.body.dataset.prediction`), "a click places the mark; it is not recorded yet")
		// The keys move it: Home, two ticks (2 min each) on, ten seconds more; Enter records it.
		require.NoError(t, chromedp.Do(tb.ctx, chromedp.Focus(chromedp.CSS("#lesson-moment-range"))))
		for _, k := range []string{kb.Home, kb.PageUp, kb.PageUp} {
			require.NoError(t, chromedp.Do(tb.ctx, chromedp.KeyEvent(k)))
		}
		require.NoError(t, chromedp.Do(tb.ctx, chromedp.KeyEvent(kb.ArrowRight, chromedp.KeyModifiers(chromedp.ModifierShift))))
		assert.Equal(t, "0:04:54.4 on the clock, 4 min 10 s after the step's start", eval[string](t, tb, `document.getElementById("lesson-moment-at").textContent`))
		require.NoError(t, chromedp.Do(tb.ctx, chromedp.KeyEvent(kb.Enter)))
		poll(t, tb, `document.body.dataset.prediction === "marked:250000"`)
		assert.Equal(t, `{"chose":-1,"atMs":250000}`, eval[string](t, tb, `JSON.stringify(JSON.parse(localStorage.getItem("kraftlab.predictions.v1"))["01-electing-a-new-leader/2"])`))
		assert.Contains(t, eval[string](t, tb, `document.getElementById("lesson-predict-said").textContent`), "You marked 0:04:54.4 on the clock")
		assert.True(t, eval[bool](t, tb, `document.getElementById("lesson-moment-range").disabled`), "the mark is given")
		assert.True(t, eval[bool](t, tb, `document.getElementById("lesson-reveal").hidden`), "nothing is revealed before the run plays")
		poll(t, tb, `!document.getElementById("lesson-goal-box").hidden`)

		// The run plays (quickly: "Show me plays" below watches one at its own pace); the reveal
		// puts what happened beside the mark.
		showMe(t, tb)
		poll(t, tb, `document.getElementById("lesson-panel").dataset.done === "true" && !document.getElementById("lesson-reveal").hidden`)
		assert.Equal(t, "revealed-at:250000:255560", eval[string](t, tb, `document.body.dataset.prediction`))
		assert.Equal(t, "You were right: you marked 0:04:54.4, it happened at 0:05:00.0, 6 s off (within 15 s counts).",
			eval[string](t, tb, `document.getElementById("lesson-reveal-verdict").textContent`))
		assert.Equal(t, "true", eval[string](t, tb, `document.getElementById("lesson-reveal-verdict").dataset.right`))
		assert.False(t, eval[bool](t, tb, `document.querySelector(".moment-actual").hidden`))
		assert.Equal(t, `{"chose":-1,"atMs":250000,"right":true}`, eval[string](t, tb, `JSON.stringify(JSON.parse(localStorage.getItem("kraftlab.predictions.v1"))["01-electing-a-new-leader/2"])`))
		eval[bool](t, tb, `document.getElementById("lesson-predict").scrollIntoView(), true`)
		screenshot(t, tb, "lesson-moment-revealed-390.png", "")
		assert.Empty(t, tb.consoleErrors())
	})

	t.Run("a challenge accepts another solution than the reference", func(t *testing.T) {
		// Lesson 1's challenge: broker 1 leads again, broker 2 still down, before the periodic
		// run. The reference is an ElectLeaders request; here a controlled shutdown of broker 0.
		tb := openLesson(t, bctx, url, "lesson=1&step=5")
		assert.False(t, eval[bool](t, tb, `document.getElementById("lesson-challenge").hidden`), "the step is marked a challenge")
		assert.Equal(t, "false", eval[string](t, tb, `document.getElementById("lesson-panel").dataset.done`))
		// Slow enough to act well before the periodic run (at 600 s; the step starts at 317 s
		// and broker 1's log recovery takes about 126 s).
		setSpeed(t, tb, 10)
		defer func() {
			if t.Failed() {
				t.Log(eval[string](t, tb, `document.getElementById("lesson-goals").textContent + " @ " + document.getElementById("cluster-canvas").dataset.timeMs`))
			}
		}()
		if eval[string](t, tb, `document.getElementById("play-button").getAttribute("aria-pressed")`) != "true" {
			lessonClick(t, tb, "#play-button") // a step may open paused: let the clock run
		}
		press(t, tb, "1", "s")
		// Once broker 1 is back in the ISR (the picture of now shows it), shut broker 0 down.
		poll(t, tb, `[...document.querySelectorAll('#lesson-picture-now .pic-replica')].some(e => e.textContent.replace("★", "").startsWith("1") && e.dataset.isr === "true")`)
		lessonClick(t, tb, `li[data-broker="0"] button[data-op="shutdown"]`)
		poll(t, tb, `document.getElementById("lesson-panel").dataset.done === "true"`)
		assert.Equal(t, "All goals met. Well done.", eval[string](t, tb, `document.getElementById("lesson-done").textContent`))
		screenshot(t, tb, "lesson-challenge-done.png", "#lesson-panel")
		assert.Empty(t, tb.consoleErrors())
	})

	t.Run("undo restores the state before the last action", func(t *testing.T) {
		tb := openLesson(t, bctx, url, "lesson=1&step=2")
		assert.True(t, eval[bool](t, tb, `document.getElementById("lesson-undo").disabled`), "nothing of the learner's to undo yet")
		// The goal picture is drawn beside the current state, differences marked.
		poll(t, tb, `!document.getElementById("lesson-picture").hidden && Number(document.getElementById("lesson-picture").dataset.differences) > 0`)
		before := eval[string](t, tb, `document.getElementById("lesson-picture-now").textContent`)
		press(t, tb, "2", "k")
		poll(t, tb, `!document.getElementById("lesson-undo").disabled`)
		poll(t, tb, `document.querySelector('#lesson-picture-now [data-broker="2"]').dataset.state === "stopped"`)
		screenshot(t, tb, "lesson-picture.png", "#lesson-panel")
		lessonClick(t, tb, "#lesson-undo")
		poll(t, tb, `document.getElementById("lesson-undo").disabled && document.querySelector('#lesson-picture-now [data-broker="2"]').dataset.state === "up"`)
		assert.Equal(t, before, eval[string](t, tb, `document.getElementById("lesson-picture-now").textContent`), "the state is the step's start again")
		// The kill left the run's history: only the step's own start (kill 1) is on the timeline.
		poll(t, tb, `document.querySelectorAll("#scrub-marks > *").length === 1`)
		// Ctrl+Z undoes too.
		press(t, tb, "2", "k")
		poll(t, tb, `!document.getElementById("lesson-undo").disabled`)
		require.NoError(t, chromedp.Do(tb.ctx, chromedp.KeyEvent("z", chromedp.KeyModifiers(chromedp.ModifierCtrl))))
		poll(t, tb, `document.getElementById("lesson-undo").disabled && document.querySelector('#lesson-picture-now [data-broker="2"]').dataset.state === "up"`)
		assert.Empty(t, tb.consoleErrors())
	})

	t.Run("every step opens paused at its start, with no 'earlier moment' hint", func(t *testing.T) {
		for _, step := range []string{"1", "3"} {
			tb := openLesson(t, bctx, url, "lesson=1&step="+step)
			poll(t, tb, `document.body.dataset.lessonStep === "`+step+`" - 1 + ""`)
			start := eval[float64](t, tb, `Number(document.getElementById("cluster-canvas").dataset.timeMs)`)
			assert.Equal(t, "paused", eval[string](t, tb, `document.body.dataset.sim`), "step %s opens paused", step)
			// A learner reads for a while: the clock stays at the step's start.
			evalAwait[bool](t, tb, `new Promise(r => setTimeout(() => r(true), 1500))`)
			assert.Equal(t, start, eval[float64](t, tb, `Number(document.getElementById("cluster-canvas").dataset.timeMs)`), "step %s: the clock does not move while the learner reads", step)
			assert.Empty(t, eval[string](t, tb, `document.getElementById("scrub-hint").textContent`), "step %s: no 'earlier moment' hint at the step's start", step)
			assert.Equal(t, "false", eval[string](t, tb, `document.getElementById("play-button").getAttribute("aria-pressed")`))
			// The toolbar shows the lesson's cluster: 3 brokers, one partition.
			assert.Equal(t, []string{"3", "1"}, eval[[]string](t, tb, `[document.getElementById("broker-count").value, document.getElementById("partition-count").value]`))
			tb.close() // a tab left open goes on drawing frames
		}
	})
}

// TestLessonShowMeAndLinks: Show me plays a step at a watchable speed, a gate line says what
// holds the broker, and a lesson link opens its step or says what is wrong with it. A test of
// its own, beside TestLesson, so that the two halves run side by side.
func TestLessonShowMeAndLinks(t *testing.T) {
	parallel(t)
	exe := chromiumPath(t)
	dir := site(t)
	url := serve(t, dir, nil)
	bctx := sharedBrowser(t, exe)

	t.Run("Show me plays", func(t *testing.T) {
		// Lesson 1, step 2: start broker 1 and wait until it is back in the ISR of payments-0.
		tb := openLesson(t, bctx, url, "lesson=1&step=2")
		// Two plays at a watchable speed, about half a minute each, outlast a tab's minute.
		ctx, cancel := context.WithTimeout(context.WithoutCancel(tb.ctx), 5*time.Minute)
		defer cancel()
		tb.ctx = ctx
		start := eval[float64](t, tb, `Number(document.getElementById("cluster-canvas").dataset.timeMs)`)
		// Every cluster time the canvas shows, sampled from here on.
		eval[bool](t, tb, `(window.seen = [], setInterval(() => window.seen.push(Number(document.getElementById("cluster-canvas").dataset.timeMs)), 20), true)`)
		lessonClick(t, tb, "#lesson-show")
		poll(t, tb, `document.body.dataset.showMe === "playing"`)
		// Through explain mode, from the step's start on.
		poll(t, tb, `document.body.dataset.explain === "on"`)
		assert.LessOrEqual(t, eval[int](t, tb, `Number(document.getElementById("speed").value)`), 10, "at a watchable speed")
		// It stops at what matters and goes on with Space, until the reference actions end.
		stops := 0
		for deadline := time.Now().Add(4 * time.Minute); eval[string](t, tb, `document.body.dataset.showMe`) != "done"; {
			require.False(t, time.Now().After(deadline), "Show me did not end")
			if eval[bool](t, tb, `!document.getElementById("explain-card").hidden && document.body.dataset.sim === "paused"`) {
				stops++
				if stops == 1 {
					screenshot(t, tb, "lesson-show-me-stop.png", "")
				}
				press(t, tb, " ")
			}
			time.Sleep(50 * time.Millisecond)
		}
		assert.Positive(t, stops, "explain mode stopped at least once")
		end := eval[float64](t, tb, `Number(document.getElementById("cluster-canvas").dataset.timeMs)`)
		assert.Greater(t, end, start)
		// It played: many moments between the start and the end were on screen, not a jump.
		between := eval[int](t, tb, `new Set(window.seen.filter((t) => t > `+strconv.FormatFloat(start, 'f', 0, 64)+` && t < `+strconv.FormatFloat(end, 'f', 0, 64)+`)).size`)
		assert.True(t, eval[bool](t, tb, `window.seen.every((t) => !(t < `+strconv.FormatFloat(start, 'f', 0, 64)+`))`), "it plays from the step's start, not from earlier")
		assert.Greater(t, between, 3, "the clock went through the step (%v ms to %v ms), not to its end at once", start, end)
		// The charts have every point on the way, from the step's start.
		assert.Greater(t, eval[int](t, tb, `Number(document.getElementById("charts").dataset.points || 0)`), 10)
		// The log tells the action at its time, after the step's start.
		at, _ := logItem(t, tb, "you started broker 1")
		assert.GreaterOrEqual(t, float64(at), start)
		assert.Equal(t, "paused", eval[string](t, tb, `document.body.dataset.sim`), "it stops where the actions ended")
		poll(t, tb, `document.getElementById("lesson-panel").dataset.done === "true"`)
		assert.Equal(t, "off", eval[string](t, tb, `document.body.dataset.explain`), "explain mode goes back to what the learner had")

		// On a phone the canvas is below the lesson's text: Show me brings it into view.
		require.NoError(t, chromedp.Do(tb.ctx, chromedp.EmulateViewport(390, 844)))
		eval[bool](t, tb, `(window.scrollTo(0, 0), true)`)
		// Show me is done already (the run above): note when this one starts playing.
		eval[bool](t, tb, `(window.showMeAgain = false, new MutationObserver(() => { if (document.body.dataset.showMe === "playing") window.showMeAgain = true; })
			.observe(document.body, {attributes: true, attributeFilter: ["data-show-me"]}), true)`)
		lessonClick(t, tb, "#lesson-show")
		// It plays again from the step's start and stops at the first explain moment.
		_, err := chromedp.Run(tb.ctx, chromedp.Poll[bool](`window.showMeAgain && document.body.dataset.sim === "paused" && !document.getElementById("explain-card").hidden`,
			chromedp.WithPollingInterval(10*time.Millisecond), chromedp.WithPollingTimeout(time.Minute)))
		require.NoError(t, err, "the second Show me did not stop at a moment; the page: %s", eval[string](t, tb, `JSON.stringify({started: window.showMeAgain, showMe: document.body.dataset.showMe, sim: document.body.dataset.sim, explain: document.body.dataset.explain, timeMs: document.getElementById("cluster-canvas").dataset.timeMs})`))
		assert.Equal(t, "playing", eval[string](t, tb, `document.body.dataset.showMe`), "stopped at a moment, not at the end")
		assert.True(t, eval[bool](t, tb, `(() => { const r = document.getElementById("cluster-canvas").getBoundingClientRect(); return r.top < innerHeight && r.bottom > 0; })()`), "the canvas is on screen")
		screenshot(t, tb, "lesson-show-me-390.png", "")
		assert.Empty(t, tb.consoleErrors())
	})

	t.Run("each gate line says which rule holds the broker and what releases it", func(t *testing.T) {
		// Lesson 6, step 2: broker 0 gated, then released at its second run in sync.
		tb := openLesson(t, bctx, url, "lesson=6&step=2")
		showMe(t, tb)
		poll(t, tb, `document.getElementById("lesson-panel").dataset.done === "true"`)
		// The run's lines arrive with the frame after it.
		poll(t, tb, `[...document.querySelectorAll("#event-log li span")].some(s => s.textContent.includes("for one more run"))`)
		lines := eval[[]string](t, tb, `[...document.querySelectorAll("#event-log li span")].map(s => s.textContent).filter(s => s.includes("wait-for-sync held back"))`)
		require.NotEmpty(t, lines, "the gate held broker 0 back; the log: %s", eval[string](t, tb, `document.getElementById("event-log").textContent.slice(-1500)`))
		over, within := false, false
		for _, l := range lines {
			assert.NotContains(t, l, "found no partition to hand back", "a run that held a broker back did not find nothing to do: %s", l)
			o := strings.Contains(l, "over leader.imbalance.election.wait.for.sync.threshold.percent; it is released after two consecutive runs within the threshold")
			w := strings.Contains(l, "for one more run") && strings.Contains(l, "the gate opens at the second consecutive run within it")
			assert.True(t, o || w, "the line says the rule and the release: %s", l)
			over, within = over || o, within || w
		}
		assert.True(t, over && within, "both the holding and the one-more-run lines appear: %q", lines)
	})

	t.Run("a step link opens that step", func(t *testing.T) {
		tb := openLesson(t, bctx, url, "lesson=06-the-wait-for-sync-gate&step=3")
		assert.Equal(t, "06-the-wait-for-sync-gate", eval[string](t, tb, `document.body.dataset.lesson`))
		assert.Equal(t, "2", eval[string](t, tb, `document.body.dataset.lessonStep`))
		assert.True(t, strings.HasPrefix(eval[string](t, tb, `document.getElementById("lesson-title").textContent`), "Lesson 6: "))
		assert.Equal(t, "false", eval[string](t, tb, `document.getElementById("lesson-panel").dataset.done`))
		// The earlier steps' reference actions are on the run's timeline.
		poll(t, tb, `document.querySelectorAll("#scrub-marks > *").length > 0`)
		screenshot(t, tb, "lesson-6-step-3.png", "")
		assert.Empty(t, tb.consoleErrors())
	})

	t.Run("a malformed lesson link says so and lists the course", func(t *testing.T) {
		// One link for each refusal the page words differently: the worker's of a lesson, its
		// refusal of a step (which the panel words with the lesson's title), and
		// parseLessonLink's of a value it cannot read (its other refusals are in
		// web/ts/test/lesson.test.ts, and each would cost a page load here).
		for frag, want := range map[string]string{
			"lesson=99&step=1":   `lesson: "99" is not a lesson of the course`,
			"lesson=1&step=42":   "has no step 42; its steps are 1 to 6",
			"lesson=1&step=zero": "This lesson link cannot be read (step=zero)",
		} {
			tb := openLesson(t, bctx, url, frag)
			poll(t, tb, `document.getElementById("lesson-pick-list").children.length === 10`)
			msg := eval[string](t, tb, `document.getElementById("lesson-error").textContent`)
			assert.Contains(t, msg, want, frag)
			assert.False(t, eval[bool](t, tb, `document.getElementById("lesson-error").hidden`))
			// The default cluster runs meanwhile.
			assert.Equal(t, "ready", eval[string](t, tb, `document.getElementById("status").dataset.state`))
			if frag == "lesson=1&step=42" {
				screenshot(t, tb, "lesson-bad-link.png", "#lesson-panel")
			}
			tb.close() // a tab left open goes on drawing frames: the next link opens in this one
		}
	})
}
