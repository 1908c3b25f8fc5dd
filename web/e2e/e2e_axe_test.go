package e2e

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// axeViolation is one rule axe-core found broken, with the elements that break it.
type axeViolation struct {
	ID     string
	Impact string
	Help   string
	Nodes  []string
}

// seriousViolations injects axe-core (testdata/axe-core, from npm) into the page and returns the
// violations of impact serious or critical: what keeps a screen-reader or keyboard user out.
func seriousViolations(t *testing.T, tb *tab) []axeViolation {
	t.Helper()
	src, err := os.ReadFile(filepath.Join("testdata", "axe-core", "axe.min.js"))
	require.NoError(t, err)
	if !eval[bool](t, tb, `typeof window.axe === "object"`) {
		_, err = chromedp.Run(tb.ctx, chromedp.Evaluate[chromedp.Void](string(src)))
		require.NoError(t, err, "injecting axe-core")
	}
	return evalAwait[[]axeViolation](t, tb, `axe.run(document, {resultTypes: ["violations"]}).then(r => r.violations
		.filter(v => v.impact === "serious" || v.impact === "critical")
		.map(v => ({ID: v.id, Impact: v.impact, Help: v.help, Nodes: v.nodes.map(n => n.target.join(" ") + ": " + n.failureSummary)})))`)
}

func assertAccessible(t *testing.T, tb *tab, page string) {
	t.Helper()
	for _, v := range seriousViolations(t, tb) {
		assert.Fail(t, "axe-core: "+v.Impact+" violation on "+page, "%s (%s): %q", v.ID, v.Help, v.Nodes)
	}
}

// TestAccessibility runs axe-core on the playground, presenter mode (also on a phone), a lesson (and a prediction
// answered on its timeline), the lessons index
// and the config lab, and fails on any serious or critical violation.
func TestAccessibility(t *testing.T) {
	parallel(t)
	exe := chromiumPath(t)
	dir := site(t)
	url := serve(t, dir, nil)
	bctx := sharedBrowser(t, exe)

	t.Run("playground", func(t *testing.T) {
		tb := open(t, bctx, url)
		poll(t, tb, `!!document.querySelector("#partition-rows tr")`)
		assertAccessible(t, tb, "the playground")
		press(t, tb, "p")
		poll(t, tb, `document.body.classList.contains("presenter")`)
		assertAccessible(t, tb, "presenter mode")
		// On a phone its controls are smaller and two of their words hidden from the eye only.
		require.NoError(t, chromedp.Do(tb.ctx, chromedp.EmulateViewport(390, 844)))
		assertAccessible(t, tb, "presenter mode on a phone")
	})
	t.Run("lesson", func(t *testing.T) {
		tb := openLesson(t, bctx, url, "lesson=1&step=1")
		poll(t, tb, `document.getElementById("lesson-goals").children.length > 0`)
		assertAccessible(t, tb, "lesson 1")
		// A prediction answered on the timeline: the range, its readout and the Mark button.
		forgetStored(t, tb, url, predictionsKey)
		gotoLesson(t, tb, url, "lesson=1&step=3")
		poll(t, tb, `document.body.dataset.prediction === "pending" && !document.getElementById("lesson-moment").hidden`)
		assertAccessible(t, tb, "lesson 1's timeline prediction")
	})
	t.Run("lessons index", func(t *testing.T) {
		tb := newTab(t, bctx)
		require.NoError(t, chromedp.Do(tb.ctx, chromedp.EmulateViewport(1280, 900), chromedp.Navigate(url+"/lessons.html")))
		poll(t, tb, `document.readyState === "complete"`)
		assertAccessible(t, tb, "the lessons index")
	})
	t.Run("lab", func(t *testing.T) {
		tb := openLab(t, bctx, url)
		validated(t, tb)
		assertAccessible(t, tb, "the config lab")
	})
}
