package e2e

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestLessonLayout checks a lesson as a learner meets it: long config names stay inside the
// panel, a demo that stops to ask shows its question where the learner is looking, and the
// toolbar's Restart cluster never drops the lesson without a word.
func TestLessonLayout(t *testing.T) {
	parallel(t)
	exe := chromiumPath(t)
	dir := site(t)
	url := serve(t, dir, nil)
	bctx := sharedBrowser(t, exe)

	t.Run("lesson 6's long config names stay inside the panel", func(t *testing.T) {
		tb := openLesson(t, bctx, url, "lesson=6&step=1")
		for _, size := range viewports {
			require.NoError(t, chromedp.Do(tb.ctx, chromedp.EmulateViewport(size.w, size.h)))
			nextFrames(t, tb)
			// Every code span (config names) ends inside the panel's padding box.
			out := eval[[]string](t, tb, `(() => {
				const p = document.getElementById("lesson-panel"), pr = p.getBoundingClientRect();
				const right = pr.right - parseFloat(getComputedStyle(p).paddingRight) + 1;
				return [...p.querySelectorAll("code")].filter(c => [...c.getClientRects()].some(r => r.right > right)).map(c => c.textContent);
			})()`)
			assert.Empty(t, out, "at %d px these run past the panel's edge", size.w)
		}
		screenshot(t, tb, "lesson-6-names.png", "#lesson-panel")
	})

	t.Run("the demo's question is on screen when the demo stops to ask it", func(t *testing.T) {
		// One page: the step is opened again for each size (a step link followed in the page),
		// the demo back at its start, the page and the panel scrolled to their tops, as a page
		// opened at the step has them.
		tb := openLesson(t, bctx, url, "lesson=1&step=1")
		for i, size := range viewports {
			require.NoError(t, chromedp.Do(tb.ctx, chromedp.EmulateViewport(size.w, size.h)))
			if i > 0 {
				eval[bool](t, tb, `location.hash = "#lesson=1&step=2", true`)
				poll(t, tb, `document.body.dataset.lessonStep === "1"`)
				eval[bool](t, tb, `location.hash = "#lesson=1&step=1", true`)
				poll(t, tb, `document.body.dataset.lessonStep === "0" && document.getElementById("lesson-demo").hidden && !document.getElementById("lesson-demo-play").hidden`)
				eval[bool](t, tb, `(window.scrollTo(0, 0), document.getElementById("lesson-panel").scrollTop = 0, true)`)
			}
			// Clicked where it is, without scrolling the page to it.
			eval[bool](t, tb, `document.getElementById("lesson-demo-play").click(), true`)
			poll(t, tb, `!document.getElementById("lesson-demo").hidden && document.getElementById("lesson-question").textContent !== ""`)
			nextFrames(t, tb)
			// In the window, and in the panel's own scrolled area (a sticky panel scrolls).
			seen := eval[map[string]float64](t, tb, `(() => {
				const q = document.getElementById("lesson-demo").getBoundingClientRect(), p = document.getElementById("lesson-panel").getBoundingClientRect();
				return {top: q.top, bottom: q.bottom, ptop: p.top, pbottom: p.bottom, h: innerHeight};
			})()`)
			assert.True(t, seen["top"] >= 0 && seen["bottom"] <= seen["h"], "at %d px the question is in the window: %v", size.w, seen)
			assert.True(t, seen["top"] >= seen["ptop"]-1 && seen["bottom"] <= seen["pbottom"]+1, "at %d px the question is in the panel's view: %v", size.w, seen)
			if size.w >= 1440 {
				// Beside the canvas: the canvas the question is about stays in view.
				top := eval[float64](t, tb, `document.getElementById("cluster-canvas").getBoundingClientRect().top`)
				assert.True(t, top >= 0 && top < float64(size.h)/2, "at %d px the canvas stays in view: top %.0f", size.w, top)
			}
			screenshot(t, tb, fmt.Sprintf("lesson-demo-question-%d.png", size.w), "")
		}
	})

	t.Run("presenter mode: a prediction's answer controls are in the panel's view, not under its fold", func(t *testing.T) {
		// Lesson 1 step 3 asks for a moment on the step's timeline, step 4 for one of its options.
		// One page: nothing is answered here, so step 4 is asked as it is in a page of its own.
		tb := newTab(t, bctx)
		forgetStored(t, tb, url, predictionsKey)
		for i, q := range []struct{ link, control string }{{"lesson=1&step=3", "#lesson-moment-mark"}, {"lesson=1&step=4", "#lesson-predict-options button:last-child"}} {
			if i == 0 {
				gotoLesson(t, tb, url, q.link)
			} else {
				// The step link followed in the page, at the size a page opens at.
				require.NoError(t, chromedp.Do(tb.ctx, chromedp.EmulateViewport(1400, 900)))
				eval[bool](t, tb, `location.hash = "#`+q.link+`", true`)
				poll(t, tb, `document.body.dataset.lessonStep === "3"`)
			}
			poll(t, tb, `document.body.dataset.prediction === "pending"`)
			press(t, tb, "p")
			poll(t, tb, `document.body.classList.contains("presenter")`)
			for _, size := range viewports {
				require.NoError(t, chromedp.Do(tb.ctx, chromedp.EmulateViewport(size.w, size.h)))
				// The page scrolled to the panel's top, as a speaker opens the step; the panel's own
				// scroll is the page's to set.
				eval[bool](t, tb, `document.getElementById("lesson-panel").scrollIntoView({block: "start", behavior: "instant"}), true`)
				nextFrames(t, tb)
				seen := eval[map[string]float64](t, tb, `(() => {
					const b = document.querySelector(`+"`"+q.control+"`"+`).getBoundingClientRect(), p = document.getElementById("lesson-panel").getBoundingClientRect();
					return {top: b.top, bottom: b.bottom, pbottom: p.bottom};
				})()`)
				assert.True(t, seen["bottom"] <= seen["pbottom"]+1, "%s at %d px: %s is under the panel's fold: %v", q.link, size.w, q.control, seen)
				// The timeline's labels ("now", then round clock readings) are shown apart: in
				// presenter type on a phone the first tick met "now".
				touching := eval[[]string](t, tb, `(() => {
					const shown = [...document.querySelectorAll("#lesson-moment .moment-ticks span")].filter(s => s.checkVisibility({visibilityProperty: true}));
					const out = [];
					for (let i = 1; i < shown.length; i++) {
						const a = shown[i - 1].getBoundingClientRect(), b = shown[i].getBoundingClientRect();
						if (b.left < a.right + 2) out.push(shown[i - 1].textContent + " / " + shown[i].textContent);
					}
					return out;
				})()`)
				assert.Empty(t, touching, "%s at %d px: tick labels that touch", q.link, size.w)
				if size.w >= 800 {
					assert.True(t, seen["bottom"] <= float64(size.h), "%s at %d px: %s is below the window: %v", q.link, size.w, q.control, seen)
				}
			}
			press(t, tb, "p") // out of presenter mode, as the next step opens in a page of its own
			poll(t, tb, `!document.body.classList.contains("presenter")`)
		}
	})

	t.Run("on a narrow screen the goals and the canvas they are about share the screen", func(t *testing.T) {
		for _, size := range viewports[:2] {
			// Opened at the learner's own width, as a phone or a half-screen window opens it.
			tb := newTab(t, bctx)
			require.NoError(t, chromedp.Do(tb.ctx, chromedp.EmulateViewport(size.w, size.h), chromedp.Navigate(url+"/#lesson=1&step=1")))
			poll(t, tb, `!!document.body.dataset.lesson`)
			poll(t, tb, `Number(document.getElementById("cluster-canvas").dataset.frames || 0) >= 1`)
			together := func(when string, ids ...string) {
				t.Helper()
				nextFrames(t, tb)
				for _, id := range append([]string{"lesson-goals", "cluster-canvas"}, ids...) {
					r := eval[map[string]float64](t, tb, `(() => { const r = document.getElementById("`+id+`").getBoundingClientRect(); return {top: r.top, bottom: r.bottom, h: innerHeight}; })()`)
					assert.True(t, r["bottom"] > 0 && r["top"] < r["h"] && r["bottom"] > r["top"], "at %d px %s, #%s is on screen: %v", size.w, when, id, r)
					if id != "cluster-canvas" {
						// And in the panel's own scrolled area (a pinned panel scrolls).
						p := eval[map[string]float64](t, tb, `(() => { const r = document.getElementById("lesson-panel").getBoundingClientRect(); return {top: r.top, bottom: r.bottom}; })()`)
						assert.True(t, r["bottom"] > p["top"] && r["top"] < p["bottom"], "at %d px %s, #%s is in the panel's view: %v, panel %v", size.w, when, id, r, p)
					}
				}
				// No text lies over other text or over the canvas: the panel's and the latest
				// events' lines, pairwise, and each against the canvas.
				overlaps := eval[[]string](t, tb, `(() => {
					// What shows of an element: its box cut by every scrolling or clipping box around it
					// (the pinned panel's own scroll, the folded step text).
					const shown = el => {
						let r = el.getBoundingClientRect(), box = {left: r.left, right: r.right, top: r.top, bottom: r.bottom};
						for (let a = el.parentElement; a && a !== document.body; a = a.parentElement) {
							if (getComputedStyle(a).overflow === "visible") continue;
							const c = a.getBoundingClientRect();
							box = {left: Math.max(box.left, c.left), right: Math.min(box.right, c.right), top: Math.max(box.top, c.top), bottom: Math.min(box.bottom, c.bottom)};
						}
						return box;
					};
					const leaves = [...document.querySelectorAll("#lesson-panel :is(p, li, h2, h3, h4, button, summary, a), #latest-events li")]
						.filter(el => el.checkVisibility() && !el.querySelector("p, li, button, a") && el.textContent.trim() !== "")
						.map(el => ({el, r: shown(el)})).filter(({r}) => r.right > r.left && r.bottom > r.top);
					const canvas = document.getElementById("cluster-canvas").getBoundingClientRect();
					const hit = (a, b) => a.left < b.right - 1 && b.left < a.right - 1 && a.top < b.bottom - 1 && b.top < a.bottom - 1;
					const name = el => (el.id ? "#" + el.id : el.tagName) + " " + JSON.stringify(el.textContent.trim().slice(0, 30));
					const out = [];
					leaves.forEach((a, i) => {
						if (hit(a.r, canvas)) out.push(name(a.el) + " over the canvas");
						for (const b of leaves.slice(i + 1)) if (!a.el.contains(b.el) && !b.el.contains(a.el) && hit(a.r, b.r)) out.push(name(a.el) + " over " + name(b.el));
					});
					return out;
				})()`)
				assert.Empty(t, overlaps, "at %d px %s", size.w, when)
			}
			together("on opening lesson 1 step 1")
			screenshot(t, tb, fmt.Sprintf("lesson-narrow-%d.png", size.w), "")

			// The demo stops to ask: its question joins them.
			eval[bool](t, tb, `document.getElementById("lesson-demo-play").click(), true`)
			poll(t, tb, `!document.getElementById("lesson-demo").hidden && document.getElementById("lesson-question").textContent !== ""`)
			together("when the demo asks its question", "lesson-demo")
			screenshot(t, tb, fmt.Sprintf("lesson-narrow-question-%d.png", size.w), "")

			// "Read the step" opens the whole text; the step remembers it; one tap folds it again.
			folded := eval[float64](t, tb, `document.getElementById("lesson-text").getBoundingClientRect().height`)
			lessonClick(t, tb, "#lesson-read")
			assert.Equal(t, "true", eval[string](t, tb, `document.getElementById("lesson-read").getAttribute("aria-expanded")`))
			assert.Greater(t, eval[float64](t, tb, `document.getElementById("lesson-text").getBoundingClientRect().height`), folded+20, "at %d px the step's text opens", size.w)
			eval[bool](t, tb, `location.hash = "#lesson=1&step=2", true`)
			poll(t, tb, `document.body.dataset.lessonStep === "1" && document.getElementById("lesson-read").getAttribute("aria-expanded") === "false"`)
			eval[bool](t, tb, `location.hash = "#lesson=1&step=1", true`)
			poll(t, tb, `document.body.dataset.lessonStep === "0" && document.getElementById("lesson-read").getAttribute("aria-expanded") === "true"`)
			lessonClick(t, tb, "#lesson-read")
			assert.Equal(t, "false", eval[string](t, tb, `document.getElementById("lesson-read").getAttribute("aria-expanded")`))
			together("after folding the step's text again")

			// Read further down (the event log), the strip no longer covers the page.
			eval[bool](t, tb, `document.getElementById("events-heading").scrollIntoView(), true`)
			poll(t, tb, `document.getElementById("lesson-panel").dataset.canvasShown === "false"`)
			nextFrames(t, tb)
			assert.Less(t, eval[float64](t, tb, `document.getElementById("lesson-panel").getBoundingClientRect().bottom`), 1.0, "at %d px the panel scrolled away with the page", size.w)
			assert.Empty(t, tb.consoleErrors())
			tb.close() // a tab left open goes on drawing frames
		}
	})

	t.Run("the panel's foot is in the window, and met goals bring Next step into view", func(t *testing.T) {
		for _, size := range viewports {
			// Opened at the learner's own width. Lesson 1's first step has a long text: beside
			// the canvas, under the toolbar, the panel ran 200 px past the window's foot, its
			// task, goals and buttons out of sight with nothing to say they were there.
			tb := newTab(t, bctx)
			require.NoError(t, chromedp.Do(tb.ctx, chromedp.EmulateViewport(size.w, size.h), chromedp.Navigate(url+"/#lesson=1&step=1")))
			poll(t, tb, `!!document.body.dataset.lesson && Number(document.getElementById("cluster-canvas").dataset.frames || 0) >= 1`)
			panelJS := `(() => { const p = document.getElementById("lesson-panel").getBoundingClientRect(), b = document.getElementById("lesson-forward").getBoundingClientRect();
				return {top: p.top, bottom: p.bottom, buttonTop: b.top, buttonBottom: b.bottom, h: innerHeight}; })()`
			// As the page opens it (on a narrow page, scrolled to the pinned strip) and, beside
			// the canvas, scrolled on part of the way to where the panel sticks.
			opened := eval[float64](t, tb, `scrollY`)
			for _, by := range []float64{0, 120} {
				if by > 0 && size.w < 1024 {
					continue
				}
				eval[bool](t, tb, fmt.Sprintf(`window.scrollTo(0, %v), true`, opened+by))
				nextFrames(t, tb)
				p := eval[map[string]float64](t, tb, panelJS)
				assert.LessOrEqual(t, p["bottom"], p["h"], "at %d px, the page scrolled %v px on, the panel's foot is in the window: %v", size.w, by, p)
			}
			eval[bool](t, tb, fmt.Sprintf(`window.scrollTo(0, %v), true`, opened))
			// Broker 1 killed from the keyboard (nothing scrolled to a button): once the
			// controller has fenced it, the goals are met and the way on shows, in the panel's
			// view and the window.
			press(t, tb, "1", "k", " ")
			poll(t, tb, `document.getElementById("lesson-panel").dataset.done === "true"`)
			nextFrames(t, tb)
			p := eval[map[string]float64](t, tb, panelJS)
			assert.True(t, p["buttonTop"] >= math.Max(0, p["top"]) && p["buttonBottom"] <= math.Min(p["h"], p["bottom"]), "at %d px Next step is in view once the goals are met: %v", size.w, p)
			screenshot(t, tb, fmt.Sprintf("lesson-done-%d.png", size.w), "")
			tb.close() // a tab left open goes on drawing frames
		}
	})

	t.Run("Restart cluster in a lesson restarts the lesson's cluster and says so", func(t *testing.T) {
		tb := openLesson(t, bctx, url, "lesson=1&step=1")
		start := eval[float64](t, tb, `Number(document.getElementById("cluster-canvas").dataset.timeMs)`)
		press(t, tb, "2", "k")
		poll(t, tb, `!document.getElementById("lesson-undo").disabled`)
		lessonClick(t, tb, "#start-button")
		poll(t, tb, `document.getElementById("start-note").textContent !== ""`)
		assert.Equal(t, "Restarted lesson 1's cluster at the start of step 1.", text(t, tb, "start-note"))
		assert.Equal(t, "01-electing-a-new-leader", eval[string](t, tb, `document.body.dataset.lesson`), "still in the lesson")
		assert.Equal(t, "0", eval[string](t, tb, `document.body.dataset.lessonStep`))
		poll(t, tb, `document.getElementById("lesson-undo").disabled`)
		// The canvas shows the restarted cluster from its next animation frame on: broker 2,
		// killed above, runs again there (or this times out).
		poll(t, tb, `document.getElementById("cluster-canvas").dataset.stopped === ""`)
		assert.Equal(t, start, eval[float64](t, tb, `Number(document.getElementById("cluster-canvas").dataset.timeMs)`), "back at the step's start")

		// Other sizes typed in: the lesson is left, and the note says so.
		retype(t, tb, "#broker-count", "5")
		lessonClick(t, tb, "#start-button")
		poll(t, tb, `document.getElementById("start-note").textContent.startsWith("Left lesson 1")`)
		assert.Empty(t, eval[string](t, tb, `document.body.dataset.lesson || ""`))
		poll(t, tb, `document.getElementById("cluster-canvas").dataset.brokerBoxes.split(";").length === 5`)
		assert.True(t, strings.Contains(text(t, tb, "start-note"), "open it again from Lessons"))
		assert.Empty(t, tb.consoleErrors())
	})

	t.Run("goal explanations and log lines say states in words, not enum spellings", func(t *testing.T) {
		tb := openLesson(t, bctx, url, "lesson=1&step=1")
		press(t, tb, "1", "k")
		poll(t, tb, `[...document.querySelectorAll("#lesson-goals .goal-explain")].some(e => e.textContent.includes("stopped"))`)
		showMe(t, tb) // the words, not the pace: at the top speed
		poll(t, tb, `document.getElementById("lesson-panel").dataset.done === "true"`)
		// Outside <code> (a goal's own expression, config names): no snake_case words, no tags.
		words := eval[[]string](t, tb, `(() => {
			const out = [];
			for (const root of document.querySelectorAll("#lesson-goals, #event-log, #latest-events")) {
				const walk = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
				for (let n = walk.nextNode(); n; n = walk.nextNode()) {
					if (n.parentElement.closest("code")) continue;
					for (const m of n.textContent.matchAll(/\b[a-z]+_[a-z_]+\b|\[assumption\]|§|\bprocess (running|not_running)\b/g)) out.push(m[0] + " in: " + n.textContent.slice(0, 120));
				}
			}
			return out;
		})()`)
		assert.Empty(t, words)
	})
}
