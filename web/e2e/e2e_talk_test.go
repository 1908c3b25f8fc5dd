package e2e

import (
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestTalk: a talk opens from a link in presenter mode with only the canvas and the scene's
// caption, a clicker's PageDown and PageUp move between scenes, and a scene replays to the same
// moment every time.
func TestTalk(t *testing.T) {
	parallel(t)
	exe := chromiumPath(t)
	dir := site(t)
	url := serve(t, dir, nil)
	bctx := sharedBrowser(t, exe)

	tb := newTab(t, bctx)
	require.NoError(t, chromedp.Do(tb.ctx, chromedp.EmulateViewport(1440, 900), chromedp.Navigate(url+"/#talk=kip-1358-in-ten-minutes&scene=1")))
	canvasTime := `Number(document.getElementById("cluster-canvas").dataset.timeMs)`
	done := func(scene string, timeMs string) {
		t.Helper()
		defer func() {
			if t.Failed() {
				t.Log(eval[string](t, tb, `JSON.stringify([document.body.dataset.talkScene, document.body.dataset.talkState, `+canvasTime+`, document.getElementById("speed").value, document.body.dataset.playing])`))
			}
		}()
		poll(t, tb, `document.body.dataset.talkScene === "`+scene+`" && document.body.dataset.talkState === "done" && `+canvasTime+` === `+timeMs)
	}
	// Scene 1 plays 5 s from the talk's start_ms and stops there.
	done("0", "35000")
	assert.Equal(t, "kip-1358-in-ten-minutes", eval[string](t, tb, `document.body.dataset.talk`))
	assert.True(t, eval[bool](t, tb, `document.body.classList.contains("presenter")`), "a talk is in presenter mode")
	assert.Contains(t, eval[string](t, tb, `document.getElementById("talk-caption-text").textContent`), "Four brokers, 800 partitions")
	assert.Equal(t, "KIP-1358 in ten minutes · scene 1 of 6", eval[string](t, tb, `document.getElementById("talk-scene-of").textContent`))
	// Everything but the canvas and the caption is hidden.
	for _, sel := range []string{".toolbar", ".timeline", ".site-header", ".side", "#lesson-panel", ".charts-section", ".log-strip", ".more-actions"} {
		assert.Equal(t, "none", eval[string](t, tb, `getComputedStyle(document.querySelector("`+sel+`")).display`), sel)
	}
	assert.Greater(t, eval[float64](t, tb, `parseFloat(getComputedStyle(document.getElementById("talk-caption-text")).fontSize)`), 30.0, "large type")
	screenshot(t, tb, "talk-scene-1-1440.png", "")

	// A clicker's PageDown: scene 2, the disk swap, played from where scene 1 ended.
	setSpeed(t, tb, 100)
	require.NoError(t, chromedp.Do(tb.ctx, chromedp.KeyEvent(kb.PageDown)))
	poll(t, tb, `document.body.dataset.talkScene === "1"`)
	assert.Contains(t, eval[string](t, tb, `location.hash`), "talk=kip-1358-in-ten-minutes&scene=2")
	assert.Contains(t, eval[string](t, tb, `document.getElementById("talk-caption-text").textContent`), "Broker 2's disk is replaced")
	done("1", "360000")
	screenshot(t, tb, "talk-scene-2-1440.png", "")

	// PageUp: scene 1 again, played to the same moment; an arrow key goes forward too.
	require.NoError(t, chromedp.Do(tb.ctx, chromedp.KeyEvent(kb.PageUp)))
	done("0", "35000")
	// At every width the scene is on one screen, the caption whole in the window under the
	// canvas, and every broker's box has room for its replicas under its header: on a phone
	// the canvas takes the height the caption leaves (a fixed share of it drew four brokers
	// as bare headers, with the screen's foot empty).
	for _, size := range viewports {
		shapes := drawnShapes(t, tb, size.w, size.h)
		trafficLabels(t, tb) // the layer's scale, which actorBoxes reads, follows the new size
		grids := 0
		for _, b := range actorBoxes(t, tb) {
			for _, s := range shapes {
				if b.Kind == "broker" && s.Kind == "cells" && s.X >= b.X && s.X+s.W <= b.X+b.W+0.5 && s.Y >= b.Y && s.Y+s.H <= b.Y+b.H+0.5 {
					grids++
					break
				}
			}
		}
		assert.Equal(t, 4, grids, "at %d px the brokers whose replicas are drawn", size.w)
		seen := eval[map[string]float64](t, tb, `(() => { const c = document.getElementById("talk-caption").getBoundingClientRect(),
			k = document.getElementById("cluster-canvas").getBoundingClientRect();
			return {top: c.top, bottom: c.bottom, canvasTop: k.top, canvasBottom: k.bottom, h: innerHeight}; })()`)
		assert.True(t, seen["canvasTop"] >= 0 && seen["canvasBottom"] <= seen["top"] && seen["bottom"] <= seen["h"], "at %d px the canvas and the caption in the window: %v", size.w, seen)
	}
	require.NoError(t, chromedp.Do(tb.ctx, chromedp.EmulateViewport(390, 844)))
	// The renderer follows the canvas's new size (a ResizeObserver) before the shot.
	poll(t, tb, `(c => c.width === Math.round(Math.max(320, Math.round(c.getBoundingClientRect().width - (c.offsetWidth - c.clientWidth))) * Math.min(3, Math.max(1, devicePixelRatio))))(document.getElementById("cluster-canvas"))`)
	screenshot(t, tb, "talk-scene-1-390.png", "")
	require.NoError(t, chromedp.Do(tb.ctx, chromedp.KeyEvent(kb.ArrowRight)))
	poll(t, tb, `document.body.dataset.talkScene === "1" && document.body.dataset.talkState === "playing"`)
	// A scene that starts from a lesson's checkpoint (lesson 6, step 3), by its link: that
	// step's state and time, played to the same end each time.
	require.NoError(t, chromedp.Do(tb.ctx, chromedp.EmulateViewport(1440, 900), chromedp.Navigate(url+"/#talk=kip-1358-in-ten-minutes&scene=6")))
	poll(t, tb, `document.body.dataset.talkScene === "5"`)
	setSpeed(t, tb, 100)
	done("5", "612530")
	assert.Contains(t, eval[string](t, tb, `document.getElementById("talk-caption-text").textContent`), "From lesson 6")
	screenshot(t, tb, "talk-scene-6-1440.png", "")
	require.NoError(t, chromedp.Do(tb.ctx, chromedp.KeyEvent(kb.Home)))
	done("0", "35000")
	// Escape leaves the talk: the playground is back, the cluster as it is.
	require.NoError(t, chromedp.Do(tb.ctx, chromedp.KeyEvent(kb.Escape)))
	poll(t, tb, `!document.body.dataset.talk && !document.body.classList.contains("presenter")`)
	assert.NotEqual(t, "none", eval[string](t, tb, `getComputedStyle(document.querySelector(".toolbar")).display`))
	assert.Empty(t, tb.consoleErrors())
}
