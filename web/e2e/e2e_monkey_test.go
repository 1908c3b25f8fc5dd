package e2e

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"
)

// TestMonkey plays a seeded random sequence of what people do on the playground: keys, clicks
// on the canvas and the buttons, scrubbing, speeds, restarts, links (valid and broken),
// lesson steps, presenter mode, a phone-sized window and back. After each action the page
// must have thrown nothing, must still answer, and the cluster it shows must hold the
// invariants a reader can see. A failure prints the seed and the actions so far; the same
// seed replays the same sequence:
//
//	KRAFTLAB_MONKEY_SEED=42 KRAFTLAB_MONKEY_ACTIONS=3000 go test ./web/e2e -run TestMonkey -v
//
// make test runs a short sequence (seed 1); make monkey a long one with a fresh seed, and also
// holds each answer to KRAFTLAB_MONKEY_LAG_MS (200), the page's main-thread delay as the page
// itself measures it (a figure that a loaded machine inflates, so not in the short run).
func TestMonkey(t *testing.T) {
	seed := envInt(t, "KRAFTLAB_MONKEY_SEED", 1)
	actions := envInt(t, "KRAFTLAB_MONKEY_ACTIONS", 60)
	maxLag := envInt(t, "KRAFTLAB_MONKEY_LAG_MS", 0)
	if maxLag == 0 {
		parallel(t) // a run that holds the page's lag to a bound runs alone
	}
	exe := chromiumPath(t)
	dir := site(t)
	url := serve(t, dir, nil)
	bctx := sharedBrowser(t, exe)
	tb := open(t, bctx, url)
	// A long sequence outlives newTab's 5-minute budget: the monkey's tab gets an hour.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(tb.ctx), time.Hour)
	t.Cleanup(cancel)
	tb.ctx = ctx
	rng := rand.New(rand.NewPCG(uint64(seed), 0x6d6f6e6b6579))

	var done []string
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("monkey seed %d failed after %d actions; replay with KRAFTLAB_MONKEY_SEED=%d KRAFTLAB_MONKEY_ACTIONS=%d. Actions:\n  %s",
				seed, len(done), seed, len(done), strings.Join(done, "\n  "))
		}
	})
	t.Logf("monkey seed %d, %d actions", seed, actions)
	small := `{"seed":3,"duration_ms":60000,"cluster":{"brokers":3,"topics":[{"name":"t","partition_count":6,"replication_factor":3}]},"events":[{"at_ms":2000,"op":"kill","broker":1}]}`
	links := []string{
		link("1", "5000", small), link("1", "120000", small), link("0", "0", small), link("1", "x", small),
		"#v=1&t=0&s=%%%", "#v=1&t=0&s=AAAA", link("1", "0", `{"seed":1}`), link("1", "0", `[1,2,3]`),
		"#lesson=1&step=2", "#lesson=3&step=1", "#lesson=99&step=1", "#lesson=2&step=77",
	}
	keys := []string{" ", "1", "2", "3", "4", "k", "s", "d", "r", "c", "o", "w", ".", "n", "e", "?", "\x1b", "p", "[", "]", "+", "-"}
	buttons := []string{"#step-event", "#step-run", "#back-to-zero", "#copy-link", "#start-button", "#help-button"}
	narrow := false
	for i := range actions {
		var what string
		switch r := rng.IntN(100); {
		case r < 40:
			k := keys[rng.IntN(len(keys))]
			what = fmt.Sprintf("key %q", k)
			press(t, tb, k)
		case r < 55:
			x, y := rng.Float64(), rng.Float64()
			what = fmt.Sprintf("click the canvas at %.2f,%.2f", x, y)
			eval[bool](t, tb, fmt.Sprintf(`(() => { const c = document.getElementById("cluster-canvas"); const b = c.getBoundingClientRect();
				const at = {bubbles: true, clientX: b.left + %f * b.width, clientY: b.top + %f * b.height};
				c.dispatchEvent(new PointerEvent("pointerdown", at)); c.dispatchEvent(new PointerEvent("pointerup", at)); c.dispatchEvent(new MouseEvent("click", at)); return true; })()`, x, y))
		case r < 65:
			b := buttons[rng.IntN(len(buttons))]
			what = "click " + b
			eval[bool](t, tb, `(() => { const b = document.querySelector(`+jsString(b)+`); if (b && !b.disabled && b.offsetParent) b.click(); return true; })()`)
		case r < 73:
			f := rng.Float64()
			what = fmt.Sprintf("scrub to %.2f of the timeline", f)
			eval[bool](t, tb, fmt.Sprintf(`(() => { const s = document.getElementById("scrub"); s.value = String(Math.round(Number(s.max) * %f));
				s.dispatchEvent(new Event("input", {bubbles: true})); s.dispatchEvent(new Event("change", {bubbles: true})); return true; })()`, f))
		case r < 80:
			what = "speed"
			eval[bool](t, tb, fmt.Sprintf(`(() => { const s = document.getElementById("speed"); s.selectedIndex = %d %% s.options.length;
				s.dispatchEvent(new Event("change", {bubbles: true})); return true; })()`, rng.IntN(20)))
		case r < 87:
			l := links[rng.IntN(len(links))]
			what = "open " + l
			require.NoError(t, chromedp.Do(tb.ctx, chromedp.Navigate(url+"/"+l)))
			poll(t, tb, `["ready", "failed"].includes(document.getElementById("status").dataset.state)`)
		case r < 93:
			narrow = !narrow
			w := 1280
			if narrow {
				w = 390
			}
			what = fmt.Sprintf("resize to %d px", w)
			require.NoError(t, chromedp.Do(tb.ctx, chromedp.EmulateViewport(int64(w), 900)))
		default:
			what = "press P (presenter mode)"
			press(t, tb, "p")
		}
		done = append(done, fmt.Sprintf("%d: %s", i, what))
		checkPage(t, tb, what, maxLag)
	}
}

// checkPage holds the page to what every moment must show: no uncaught exception, an answer
// (and, when maxLag > 0, within that many ms of main-thread delay), no dead worker or failed
// run, and the visible cluster invariant that a fenced broker leads nothing.
func checkPage(t *testing.T, tb *tab, after string, maxLag int) {
	t.Helper()
	for _, e := range tb.consoleErrors() {
		require.False(t, strings.HasPrefix(e, "exception:"), "after %s: uncaught %s", after, e)
	}
	lag := evalAwait[float64](t, tb, `(async () => { const t0 = performance.now(); await new Promise((r) => setTimeout(r, 0)); return performance.now() - t0; })()`)
	if maxLag > 0 {
		require.LessOrEqual(t, lag, float64(maxLag), "after %s: the page took %.0f ms to answer", after, lag)
	}
	state := eval[map[string]string](t, tb, `(() => { const d = document.getElementById("cluster-canvas").dataset;
		return {status: document.getElementById("status").dataset.state, worker: document.body.dataset.worker || "",
			panel: String(document.getElementById("error-panel").hidden), report: document.getElementById("error-report").textContent,
			fenced: d.fenced || "", leaders: d.leaders || "", log: document.getElementById("event-log").textContent}; })()`)
	require.Equal(t, "true", state["panel"], "after %s: the error panel is showing:\n%s", after, state["report"])
	require.NotEqual(t, "failed", state["status"], "after %s", after)
	require.NotContains(t, state["log"], "invariant", "after %s: the run broke an invariant", after)
	leads := map[string]string{}
	for _, kv := range strings.Split(state["leaders"], ",") {
		if id, n, ok := strings.Cut(kv, ":"); ok {
			leads[id] = n
		}
	}
	for _, id := range strings.Split(state["fenced"], ",") {
		if id != "" && leads[id] != "" {
			require.Equal(t, "0", leads[id], "after %s: fenced broker %s leads partitions (%s)", after, id, state["leaders"])
		}
	}
}

func envInt(t *testing.T, name string, def int) int {
	t.Helper()
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	require.NoError(t, err, "%s=%q", name, v)
	return n
}
