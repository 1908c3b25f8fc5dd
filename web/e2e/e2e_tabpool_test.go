package e2e

import (
	"context"
	"testing"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestTabPool holds the browser's tab pool to its promise: a tab a test is done with comes
// back to the next test as a new one would, with no page, no emulation and no script of the
// test's own, and a tab that had such a script is closed instead.
func TestTabPool(t *testing.T) {
	parallel(t)
	exe := chromiumPath(t)
	bctx := browser(t, exe)
	targetID := func(tb *tab) string { return string(chromedp.FromContext(tb.ctx).Target.TargetID) }

	first := newTab(t, bctx)
	require.NoError(t, chromedp.Do(first.ctx, chromedp.EmulateViewport(390, 844), chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := cdp.Call(ctx, tg, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
			Features: []*emulation.MediaFeature{{Name: "prefers-reduced-motion", Value: "reduce"}}})
		return err
	})))
	eval[bool](t, first, `(window.leftBehind = true)`)
	require.Equal(t, 390, eval[int](t, first, `innerWidth`))
	require.True(t, eval[bool](t, first, `matchMedia("(prefers-reduced-motion: reduce)").matches`))
	id := targetID(first)
	first.close()

	again := newTab(t, bctx)
	require.Equal(t, id, targetID(again), "the tab given back is the next one given out")
	assert.Equal(t, "about:blank", eval[string](t, again, `location.href`))
	assert.False(t, eval[bool](t, again, `"leftBehind" in window`), "the last page is gone")
	assert.Equal(t, 1280, eval[int](t, again, `innerWidth`), "the viewport is the window's again")
	assert.False(t, eval[bool](t, again, `matchMedia("(prefers-reduced-motion: reduce)").matches`), "no emulated media is left")

	initScript(t, again, `window.ownScript = true`)
	again.close()
	last := newTab(t, bctx)
	assert.NotEqual(t, id, targetID(last), "a tab with a script of the test's own is not given out again")
	require.NoError(t, chromedp.Do(last.ctx, chromedp.Navigate("about:blank#next")))
	assert.False(t, eval[bool](t, last, `"ownScript" in window`))
}
