package e2e

import (
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestLabLayout checks the config lab as an operator reads it: every policy's verdicts on
// show, identical results explained, only the event's own fields, whole policy names, and a
// heatmap whose colours have a key and do not make noise look like a difference.
func TestLabLayout(t *testing.T) {
	parallel(t)
	exe := chromiumPath(t)
	dir := site(t)
	url := serve(t, dir, nil)
	bctx := sharedBrowser(t, exe)

	t.Run("the small preset: every verdict row shows and identical numbers are explained", func(t *testing.T) {
		tb := openLab(t, bctx, url)
		validated(t, tb)
		click(t, tb, `[data-preset="small"]`)
		validated(t, tb)
		click(t, tb, "#compare-run")
		finished(t, tb, "compare-status")
		policies := eval[[]string](t, tb, `[...new Set([...document.querySelectorAll("#verdict-rows tr")].map(tr => tr.dataset.policy))]`)
		require.Len(t, policies, 2)
		// No scroll box hides rows: the table's box is as tall as the table.
		hidden := eval[int](t, tb, `(() => { const w = document.querySelector("#compare-results .table-wrap"), r = w.getBoundingClientRect();
			return [...document.querySelectorAll("#verdict-rows tr")].filter(tr => tr.getBoundingClientRect().bottom > r.bottom + 1).length; })()`)
		assert.Zero(t, hidden, "rows cut off by the table's box")
		// The small preset's two policies come to the same numbers: the page says why.
		same := eval[bool](t, tb, `(() => { const rows = [...document.querySelectorAll("#verdict-rows tr")].map(tr => tr.children[2].textContent);
			const h = rows.length / 2; return rows.slice(0, h).every((m, i) => m === rows[h + i]); })()`)
		require.True(t, same, "the small preset's policies measure the same")
		assert.False(t, eval[bool](t, tb, `document.getElementById("compare-same").hidden`))
		note := text(t, tb, "compare-same")
		assert.Contains(t, note, "gave the same numbers")
		assert.True(t, strings.Contains(note, "gate never held") || strings.Contains(note, "cap"), note)
		screenshot(t, tb, "lab-small-compare.png", chromedp.CSS("#compare-results"))
		// At every width each row's verdict is where the operator looks: inside the window and
		// the table's box, not past a sideways scroll's edge (on a phone six columns did not
		// fit and the verdict was the fifth), and it says which column it is.
		for _, w := range []int64{1440, 800, 390} {
			require.NoError(t, chromedp.Do(tb.ctx, chromedp.EmulateViewport(w, 900)))
			nextFrames(t, tb)
			out := eval[[]string](t, tb, `(() => { const wrap = document.querySelector("#compare-results .table-wrap").getBoundingClientRect();
				return [...document.querySelectorAll("#verdict-rows td[class^='verdict-']")].filter(td => { const r = td.getBoundingClientRect();
					return r.left < Math.max(0, wrap.left) - 1 || r.right > Math.min(innerWidth, wrap.right) + 1 || r.width < 40; })
					.map(td => td.parentElement.dataset.policy + " / " + td.parentElement.dataset.criterion + ": " + td.textContent); })()`)
			assert.Empty(t, out, "at %d px these verdicts are cut off or off the screen", w)
			assert.Empty(t, eval[[]string](t, tb, `[...document.querySelectorAll("#verdict-rows td")].filter(td => !td.dataset.label).map(td => td.textContent)`), "cells with no column name")
		}
		screenshot(t, tb, "lab-small-compare-390.png", chromedp.CSS("#compare-results"))
	})

	t.Run("policy names show whole and only the event's own fields show", func(t *testing.T) {
		tb := openLab(t, bctx, url)
		validated(t, tb)
		for _, w := range []int64{390, 800, 1440} {
			require.NoError(t, chromedp.Do(tb.ctx, chromedp.EmulateViewport(w, 900)))
			cut := eval[[]string](t, tb, `[...document.querySelectorAll("#policies input")].filter(i => i.scrollWidth > i.clientWidth + 1).map(i => i.value)`)
			assert.Empty(t, cut, "at %d px these names are cut off", w)
		}
		shownFields := func() []string {
			return eval[[]string](t, tb, `["event.broker", "event.down_ms", "event.clean", "event.brokers", "event.interval_ms", "event.disk_swap"]
				.filter(f => document.getElementById("f-" + f).offsetParent !== null)`)
		}
		assert.Equal(t, []string{"event.broker", "event.down_ms", "event.clean"}, shownFields(), "a restart")
		eval[bool](t, tb, `(s => (s.value = "rolling_restart", s.dispatchEvent(new Event("change", {bubbles: true})), true))(document.getElementById("f-event.kind"))`)
		assert.Equal(t, []string{"event.brokers", "event.interval_ms", "event.disk_swap"}, shownFields(), "a rolling restart")
		screenshot(t, tb, "lab-event-fields.png", chromedp.CSS(".lab-describe"))
	})

	t.Run("the heatmap's colours start at 0, with a key", func(t *testing.T) {
		tb := openLab(t, bctx, url)
		validated(t, tb)
		click(t, tb, `[data-preset="small"]`)
		validated(t, tb)
		replaceText(t, tb, chromedp.CSS("#f-grid0"), "leader.imbalance.election.wait.for.sync.threshold.percent=0,5,10")
		retype(t, tb, chromedp.CSS("#f-grid1"), "")
		validated(t, tb)
		click(t, tb, "#sweep-run")
		finished(t, tb, "sweep-status")
		for _, id := range []string{"heat-recovery", "heat-p99"} {
			scale := strings.Split(eval[string](t, tb, `document.getElementById("`+id+`").dataset.scale || ""`), ",")
			require.Len(t, scale, 2, id)
			assert.Equal(t, "0", scale[0], "%s: the colours start at 0", id)
			assert.NotEmpty(t, eval[string](t, tb, `document.getElementById("`+id+`").title`), "%s: the key's meaning", id)
		}
		// Two recovery times a few per cent apart are shades a few per cent apart, not the
		// ramp's two ends.
		hi, err := strconv.ParseFloat(strings.Split(eval[string](t, tb, `document.getElementById("heat-recovery").dataset.scale`), ",")[1], 64)
		require.NoError(t, err)
		var ls []float64
		for _, s := range strings.Split(eval[string](t, tb, `document.getElementById("heat-recovery").dataset.lightness`), ",") {
			l, err := strconv.ParseFloat(s, 64)
			require.NoError(t, err)
			ls = append(ls, l)
		}
		lo, top := math.Inf(1), math.Inf(-1)
		for _, l := range ls {
			if l >= 0 {
				lo, top = math.Min(lo, l), math.Max(top, l)
			}
		}
		t.Logf("recovery scale 0–%.1f s, cell lightness %v", hi, ls)
		assert.Less(t, top-lo, 62.0, "cells are not stretched over the whole ramp")
		screenshot(t, tb, "lab-heatmap.png", chromedp.CSS(".heatmaps"))
	})
}
