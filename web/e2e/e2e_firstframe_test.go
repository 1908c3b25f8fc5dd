package e2e

import (
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"
)

// TestFirstFrameLoads measures cold page loads: each load gets a fresh browser (a fresh
// profile, so no HTTP or code cache), and the page's start-up marks are summarised as medians.
// With KRAFTLAB_FIRST_FRAME_B set to another built site (a build of an earlier tree, say), the
// loads alternate between the two sites, so that both see the same machine load: on a shared
// machine that is the only fair comparison. Measured, never asserted.
//
//	KRAFTLAB_FIRST_FRAME=8 [KRAFTLAB_FIRST_FRAME_B=/path/to/other/dist] go test -run TestFirstFrameLoads -v ./web/e2e
func TestFirstFrameLoads(t *testing.T) {
	rounds, _ := strconv.Atoi(os.Getenv("KRAFTLAB_FIRST_FRAME"))
	if rounds <= 0 {
		t.Skip("a measurement, not a test (about 8 s per load): set KRAFTLAB_FIRST_FRAME=<loads per site>")
	}
	exe := chromiumPath(t)
	dirs := []string{site(t)}
	if b := os.Getenv("KRAFTLAB_FIRST_FRAME_B"); b != "" {
		dirs = append(dirs, b)
	}
	order := []string{"start", "worker-ready", "status-ready", "sim-started", "first-frame-in", "first-frame"}
	got := make([]map[string][]float64, len(dirs))
	for r := 0; r < rounds; r++ {
		for i, dir := range dirs {
			url := serve(t, dir, nil)
			bctx := browser(t, exe)
			tb := newTab(t, bctx)
			require.NoError(t, chromedp.Do(tb.ctx, chromedp.EmulateViewport(1280, 900), chromedp.Navigate(url+"/")))
			poll(t, tb, `performance.getEntriesByName("kraftlab:first-frame").length > 0`)
			m := marks(t, tb)
			chromedp.Cancel(bctx)
			if got[i] == nil {
				got[i] = map[string][]float64{}
			}
			for k, v := range m {
				got[i][k] = append(got[i][k], v)
			}
		}
	}
	for i, dir := range dirs {
		var line strings.Builder
		for _, k := range order {
			v := got[i][k]
			if len(v) == 0 {
				continue // a site built before the mark existed
			}
			sort.Float64s(v)
			fmt.Fprintf(&line, " %s=%.0f (%.0f–%.0f)", k, v[len(v)/2], v[0], v[len(v)-1])
		}
		t.Logf("%s, %d cold loads, median (min–max) ms since navigation:%s", dir, rounds, line.String())
	}
}
