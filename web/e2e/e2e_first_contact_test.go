package e2e

import (
	"fmt"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// outside lists the elements matching sel whose text runs past the right edge of the element
// with id box (its padding box), as "text" snippets. Text only screen readers get (in a 1 px
// clipped box) does not count.
func outside(t *testing.T, tb *tab, box, sel string) []string {
	t.Helper()
	return eval[[]string](t, tb, `(() => {
		const b = document.getElementById(`+jsString(box)+`), r = b.getBoundingClientRect();
		const right = r.left + b.clientLeft + b.clientWidth + 1;
		const past = (e) => {
			const walk = document.createTreeWalker(e, NodeFilter.SHOW_TEXT);
			for (let n = walk.nextNode(); n; n = walk.nextNode()) {
				if (n.parentElement.getBoundingClientRect().width <= 1) continue;
				const range = document.createRange();
				range.selectNodeContents(n);
				if ([...range.getClientRects()].some(c => c.right > right)) return true;
			}
			return false;
		};
		return [...document.querySelectorAll(`+jsString(sel)+`)].filter(e => e.checkVisibility() && past(e)).map(e => e.textContent.slice(0, 80));
	})()`)
}

// covered lists the elements matching sel that are on screen but hidden under something
// else: the element at the centre of each of their lines is neither them nor inside them.
func covered(t *testing.T, tb *tab, sel string) []string {
	t.Helper()
	return eval[[]string](t, tb, `(() => {
		const out = [];
		for (const e of document.querySelectorAll(`+jsString(sel)+`)) {
			if (!e.checkVisibility()) continue;
			for (const c of e.getClientRects()) {
				const x = (c.left + c.right) / 2, y = (c.top + c.bottom) / 2;
				if (y < 0 || y >= innerHeight || x < 0 || x >= innerWidth) continue;
				const top = document.elementFromPoint(x, y);
				if (top && top !== e && !e.contains(top)) {
					out.push(JSON.stringify(e.textContent.trim().slice(0, 40)) + " under " + (top.id ? "#" + top.id : top.tagName + "." + top.className) + " " + JSON.stringify((top.textContent || "").trim().slice(0, 30)));
				}
			}
		}
		return out;
	})()`)
}

// TestFirstContact checks the page as a speaker meets it: presenter mode is the canvas for a
// room at every width, in the playground and in a lesson (TestFirstContactOnAPhone has the
// learner on a phone).
func TestFirstContact(t *testing.T) {
	parallel(t)
	exe := chromiumPath(t)
	dir := site(t)
	url := serve(t, dir, nil)
	bctx := sharedBrowser(t, exe)

	t.Run("presenter mode: no start card, a compact toolbar, the canvas on screen at every width", func(t *testing.T) {
		// A small phone too: the narrowest screen the controls are laid out for.
		for _, size := range append([]struct{ w, h int64 }{{320, 640}}, viewports...) {
			// A first visit: the start card shows on the playground.
			tb := openFirstVisit(t, bctx, url, size.w, size.h)
			poll(t, tb, `Number(document.getElementById("cluster-canvas").dataset.frames || 0) >= 2`)
			require.True(t, eval[bool](t, tb, `document.getElementById("welcome").checkVisibility()`), "at %d px the start card shows outside presenter mode", size.w)
			press(t, tb, "p")
			poll(t, tb, `document.body.classList.contains("presenter")`)
			nextFrames(t, tb)
			eval[bool](t, tb, `window.scrollTo(0, 0), true`)
			nextFrames(t, tb)
			assert.False(t, eval[bool](t, tb, `document.getElementById("welcome").checkVisibility()`), "at %d px presenter mode shows no start card", size.w)
			// The run's controls are one band, the canvas under it in the window's top quarter
			// and whole in the window, on a phone too: a speaker's clicker demo on a phone shows
			// the cluster, not the buttons. Every control is there, and on screen.
			seen := eval[map[string]float64](t, tb, `(() => {
				const tools = document.querySelector(".toolbar").getBoundingClientRect(), line = document.querySelector(".timeline").getBoundingClientRect();
				const c = document.getElementById("cluster-canvas").getBoundingClientRect();
				const off = [...document.querySelectorAll(".run-controls button, .run-controls select, .run-controls input, .timeline button, .timeline input, #help-button")]
					.filter(e => { const r = e.getBoundingClientRect(); return !e.checkVisibility() || r.width < 10 || r.height < 10 || r.left < 0 || r.right > innerWidth || r.top < 0 || r.bottom > innerHeight; }).length;
				// The lines the controls are laid out in: the visible controls' vertical middles,
				// those less than 8 px apart on one line.
				const mids = [...document.querySelectorAll(".run-controls button, .run-controls select, .run-controls .toggle, .timeline button, .timeline .scrub-wrap")]
					.filter(e => e.checkVisibility()).map(e => { const r = e.getBoundingClientRect(); return (r.top + r.bottom) / 2; }).sort((a, b) => a - b);
				const lines = mids.filter((m, i) => i === 0 || m - mids[i - 1] >= 8).length;
				// The height at which every broker box keeps its header and a row of cells
				// (web/ts/render.ts, fitHeight; the canvas's border box).
				const readable = parseFloat(document.getElementById("cluster-canvas").style.getPropertyValue("--readable-h"));
				return {controls: line.bottom - tools.top, lines, top: c.top, bottom: c.bottom, h: innerHeight, off, readable};
			})()`)
			// A line of controls is about 40 px at a desktop's size: two lines from 800 px up;
			// on a phone the controls are smaller, three lines (the run's, the scrub bar, the
			// steps) of about 30 px.
			height, lines := 2*45.0, 2.0
			if size.w < 600 {
				height, lines = 3*32, 3
			}
			assert.LessOrEqual(t, seen["lines"], lines, "at %d px the toolbar and timeline take %v lines at most: %v", size.w, lines, seen)
			assert.LessOrEqual(t, seen["controls"], height, "at %d px the toolbar and timeline take %v px at most: %v", size.w, height, seen)
			assert.LessOrEqual(t, seen["top"], seen["h"]/4, "at %d px the canvas starts in the window's top quarter: %v", size.w, seen)
			// The whole canvas is in the window; but on a 320 px phone its four brokers stand in
			// one column, which needs more than the window's height for each box to keep its
			// header and a row of cells (TestCanvasLayout): there the canvas runs past the
			// window's foot by what that asks, and no further.
			if size.w == 320 {
				assert.Greater(t, seen["readable"], seen["h"]-seen["top"], "at %d px the readable height is more than the window's: %v", size.w, seen)
				assert.InDelta(t, seen["top"]+seen["readable"], seen["bottom"], 1, "at %d px the canvas is as tall as its readable height: %v", size.w, seen)
			} else {
				assert.LessOrEqual(t, seen["bottom"], seen["h"]+1, "at %d px the whole canvas is in the window: %v", size.w, seen)
			}
			assert.Zero(t, seen["off"], "at %d px the run's controls shown whole in the window: %v", size.w, seen)
			screenshot(t, tb, fmt.Sprintf("first-contact-presenter-%d.png", size.w), "")
			// Leaving presenter mode brings the card back: it was hidden, not dismissed.
			press(t, tb, "P")
			poll(t, tb, `!document.body.classList.contains("presenter")`)
			assert.True(t, eval[bool](t, tb, `document.getElementById("welcome").checkVisibility()`), "at %d px the card is back after presenter mode", size.w)
			assert.Empty(t, tb.consoleErrors())
			tb.close() // a tab left open goes on drawing frames
		}
	})

	t.Run("presenter mode in a lesson: the canvas keeps the window's width on a narrow screen", func(t *testing.T) {
		// Opened on a phone, then the window widened: one page (a step opens paused, so only the
		// layout changes between the widths).
		tb := newTab(t, bctx)
		require.NoError(t, chromedp.Do(tb.ctx, chromedp.EmulateViewport(viewports[0].w, viewports[0].h), chromedp.Navigate(url+"/#lesson=1&step=3")))
		poll(t, tb, `!!document.body.dataset.lesson && Number(document.getElementById("cluster-canvas").dataset.frames || 0) >= 1`)
		press(t, tb, "p")
		poll(t, tb, `document.body.classList.contains("presenter")`)
		for _, size := range viewports {
			require.NoError(t, chromedp.Do(tb.ctx, chromedp.EmulateViewport(size.w, size.h)))
			nextFrames(t, tb)
			w := eval[float64](t, tb, `document.getElementById("cluster-canvas").getBoundingClientRect().width`)
			// Beside the panel from 1024 px up (half the window at least), under it below.
			share := 0.5
			if size.w < 1024 {
				share = 0.85
			}
			assert.GreaterOrEqual(t, w, share*float64(size.w), "at %d px the canvas is %.0f px wide", size.w, w)
			screenshot(t, tb, fmt.Sprintf("first-contact-presenter-lesson-%d.png", size.w), "")
		}
	})
}

// TestFirstContactOnAPhone: on a phone, a long config name stays inside the event log, a
// lesson's goals share the screen with the canvas, and the pinned lesson strip hides nothing
// the learner reads below the canvas. A test of its own, beside TestFirstContact's presenter
// mode, so that the two run side by side.
func TestFirstContactOnAPhone(t *testing.T) {
	parallel(t)
	exe := chromiumPath(t)
	dir := site(t)
	url := serve(t, dir, nil)
	bctx := sharedBrowser(t, exe)

	t.Run("a long config name in the event log stays inside it on a phone", func(t *testing.T) {
		// Lesson 6 step 4: the gate holds broker 0; its log line names
		// leader.imbalance.election.wait.for.sync.threshold.percent.
		tb := newTab(t, bctx)
		require.NoError(t, chromedp.Do(tb.ctx, chromedp.EmulateViewport(390, 844), chromedp.Navigate(url+"/#lesson=6&step=4")))
		poll(t, tb, `!!document.body.dataset.lesson && Number(document.getElementById("cluster-canvas").dataset.frames || 0) >= 1`)
		poll(t, tb, `[...document.querySelectorAll("#event-log li")].some(li => li.textContent.includes("wait.for.sync.threshold.percent"))`)
		nextFrames(t, tb)
		assert.Empty(t, outside(t, tb, "event-log", "#event-log li"), "these lines run past the event log's edge")
		assert.Empty(t, outside(t, tb, "latest-events", "#latest-events li"), "these lines run past the latest events' edge")
		assert.True(t, eval[bool](t, tb, `(l => l.scrollWidth <= l.clientWidth)(document.getElementById("event-log"))`), "the event log does not scroll sideways")
		eval[bool](t, tb, `document.getElementById("event-log").scrollIntoView({block: "center", behavior: "instant"}), true`)
		screenshot(t, tb, "first-contact-log-390.png", "")
	})

	t.Run("a broker killed another way than the start card's: the card makes way for the newest events", func(t *testing.T) {
		// A first visit (the card's dismissal forgotten from the lessons index); broker 1
		// killed from the keyboard, not from the card, which floated on over the newest events
		// under the canvas, where the kill's consequences are told.
		tb := openFirstVisit(t, bctx, url, 390, 844)
		poll(t, tb, `!document.getElementById("welcome").hidden`)
		poll(t, tb, `Number(document.getElementById("cluster-canvas").dataset.frames || 0) >= 2`)
		press(t, tb, "1", "k")
		logItem(t, tb, "you killed broker 1")
		eval[bool](t, tb, `document.getElementById("cluster-canvas").scrollIntoView({block: "start", behavior: "instant"}), true`)
		nextFrames(t, tb)
		require.Greater(t, eval[int](t, tb, `[...document.querySelectorAll("#latest-events li")].filter(li => li.getBoundingClientRect().top < innerHeight).length`), 0, "the newest events are on screen")
		assert.Empty(t, covered(t, tb, "#latest-events li"), "the newest events are covered")
		screenshot(t, tb, "first-contact-kill-390.png", "")
	})

	t.Run("on a phone every goal of a step shows in the strip, with the canvas under it", func(t *testing.T) {
		// Steps with three goals (a step that asks a question first shows the question there).
		// The first link is loaded; the others are opened in that page as a link within it opens
		// (the lesson panel follows the address), from the page's top as a load would be.
		tb := newTab(t, bctx)
		for i, link := range []string{"lesson=1&step=1", "lesson=5&step=1", "lesson=8&step=4", "lesson=7&step=3"} {
			if i == 0 {
				require.NoError(t, chromedp.Do(tb.ctx, chromedp.EmulateViewport(390, 844), chromedp.Navigate(url+"/#"+link)))
				poll(t, tb, `!!document.body.dataset.lesson && Number(document.getElementById("cluster-canvas").dataset.frames || 0) >= 1`)
			} else {
				var lesson, step int
				_, err := fmt.Sscanf(link, "lesson=%d&step=%d", &lesson, &step)
				require.NoError(t, err)
				drawn := eval[int](t, tb, `Number(document.getElementById("cluster-canvas").dataset.frames || 0)`)
				eval[bool](t, tb, `window.scrollTo(0, 0), location.hash = `+jsString("#"+link)+`, true`)
				poll(t, tb, fmt.Sprintf(`(document.body.dataset.lesson || "").startsWith("%02d-") && document.body.dataset.lessonStep === "%d" && Number(document.getElementById("cluster-canvas").dataset.frames || 0) > %d`, lesson, step-1, drawn))
			}
			nextFrames(t, tb)
			seen := eval[map[string]float64](t, tb, `(() => {
				const p = document.getElementById("lesson-panel").getBoundingClientRect(), c = document.getElementById("cluster-canvas").getBoundingClientRect();
				const goals = [...document.querySelectorAll("#lesson-goals li")];
				const shown = goals.filter(g => { const r = g.getBoundingClientRect(); return r.top >= p.top - 1 && r.bottom <= p.bottom + 1; }).length;
				return {goals: goals.length, shown, canvasTop: c.top, h: innerHeight, panelBottom: p.bottom};
			})()`)
			require.GreaterOrEqual(t, seen["goals"], 3.0, link)
			assert.Empty(t, outside(t, tb, "lesson-panel", "#lesson-goals li"), "%s: these goals run past the strip's edge", link)
			// Lesson 7 step 3's three-line task and long goals leave its third goal to the
			// strip's own scroll.
			if link != "lesson=7&step=3" {
				assert.Equal(t, seen["goals"], seen["shown"], "%s: every goal is in the strip's view: %v", link, seen)
			}
			// The canvas's controllers and first brokers: a third of the window at least.
			assert.LessOrEqual(t, seen["canvasTop"], seen["h"]*2/3, "%s: the canvas shows under the strip: %v", link, seen)
			screenshot(t, tb, fmt.Sprintf("first-contact-goals-%s-390.png", strings.NewReplacer("lesson=", "", "&step=", "-").Replace(link)), "")
		}
	})

	t.Run("scrolled past the canvas, the lesson strip hides nothing under it", func(t *testing.T) {
		for _, size := range viewports[:2] {
			// Lesson 1 step 3 asks for a moment on the timeline before the run.
			tb := newTab(t, bctx)
			forgetStored(t, tb, url, predictionsKey)
			require.NoError(t, chromedp.Do(tb.ctx, chromedp.EmulateViewport(size.w, size.h), chromedp.Navigate(url+"/#lesson=1&step=3")))
			poll(t, tb, `document.body.dataset.prediction === "pending" && Number(document.getElementById("cluster-canvas").dataset.frames || 0) >= 1`)
			// Read down the page: the canvas's legend, the metadata log, the charts' legends.
			for _, sel := range []string{".legend li", "#log-strip-heading", ".log-strip .hint", "#charts-heading", ".charts-section > .hint", ".chart .u-title", ".chart .u-legend"} {
				for _, block := range []string{"start", "center", "end"} {
					eval[bool](t, tb, `document.querySelector(`+jsString(sel)+`).scrollIntoView({block: "`+block+`", behavior: "instant"}), true`)
					nextFrames(t, tb)
					nextFrames(t, tb)
					assert.Empty(t, covered(t, tb, sel), "at %d px, %s scrolled to the window's %s", size.w, sel, block)
				}
			}
			// Scrolled to the canvas's top, the canvas shows, not a strip over most of it.
			eval[bool](t, tb, `document.getElementById("cluster-canvas").scrollIntoView({block: "start", behavior: "instant"}), true`)
			nextFrames(t, tb)
			nextFrames(t, tb)
			seen := eval[map[string]float64](t, tb, `(() => {
				const p = document.getElementById("lesson-panel").getBoundingClientRect(), c = document.getElementById("cluster-canvas").getBoundingClientRect();
				const over = p.bottom > c.top && p.top < c.bottom ? p.bottom : c.top;
				return {shown: Math.min(c.bottom, innerHeight) - Math.max(c.top, over, 0), height: c.height};
			})()`)
			assert.GreaterOrEqual(t, seen["shown"], 0.4*seen["height"], "at %d px, scrolled to the canvas: %v", size.w, seen)
			// Back at the canvas, the strip is pinned over it again with its question.
			eval[bool](t, tb, `document.getElementById("cluster-canvas").scrollIntoView({block: "end", behavior: "instant"}), true`)
			poll(t, tb, `document.getElementById("lesson-panel").dataset.canvasShown === "true"`)
			nextFrames(t, tb)
			assert.GreaterOrEqual(t, eval[float64](t, tb, `document.getElementById("lesson-panel").getBoundingClientRect().top`), -1.0, "at %d px the strip is on screen", size.w)
			screenshot(t, tb, fmt.Sprintf("first-contact-moment-%d.png", size.w), "")
			tb.close() // a tab left open goes on drawing frames
		}
	})
}
