package e2e

import (
	"context"
	"encoding/csv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/domdebugger"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kraftlab/kraftlab/lab"
)

// openLab navigates a new tab to the config lab and waits until its first validation is back.
func openLab(t *testing.T, bctx context.Context, url string) *tab {
	t.Helper()
	tb := newTab(t, bctx)
	// Runs of an hour of a 60,000-partition cluster take seconds on a quiet machine and minutes
	// on a shared one: the lab's tabs get 10 minutes instead of newTab's 5 (the values
	// chromedp keeps in the context survive WithoutCancel).
	ctx, cancel := context.WithTimeout(context.WithoutCancel(tb.ctx), 10*time.Minute)
	t.Cleanup(cancel)
	tb.ctx = ctx
	require.NoError(t, chromedp.Do(tb.ctx, chromedp.EmulateViewport(1280, 900), chromedp.Navigate(url+"/lab.html")))
	poll(t, tb, `["ready", "failed"].includes(document.getElementById("status").dataset.state)`)
	if state := eval[string](t, tb, `document.getElementById("status").dataset.state`); state != "ready" {
		t.Fatalf("the lab did not start; error report:\n%s", eval[string](t, tb, `document.getElementById("error-report").textContent`))
	}
	return tb
}

// validated waits for the Go side's answer to the form as it stands.
func validated(t *testing.T, tb *tab) {
	t.Helper()
	poll(t, tb, `/^\d+$/.test(document.body.dataset.validated || "")`)
}

// workerIDs are the DevTools target ids of the dedicated workers whose script's URL starts with
// prefix: the browser tests share a browser, so a test names its own server's.
func workerIDs(t *testing.T, bctx context.Context, prefix string) map[string]bool {
	targets, err := chromedp.Targets(bctx)
	require.NoError(t, err)
	out := map[string]bool{}
	for _, tg := range targets {
		if tg.Type == "worker" && strings.HasPrefix(tg.URL, prefix) {
			out[string(tg.TargetID)] = true
		}
	}
	return out
}

func text(t *testing.T, tb *tab, id string) string {
	return eval[string](t, tb, `document.getElementById(`+jsString(id)+`).textContent`)
}

func click(t *testing.T, tb *tab, sel string) {
	t.Helper()
	require.NoError(t, chromedp.Do(tb.ctx, chromedp.Click(chromedp.CSS(sel))))
}

// paste puts text into a textarea at once, as a paste does, and tells the page.
func paste(t *testing.T, tb *tab, id, text string) {
	t.Helper()
	require.NoError(t, chromedp.Do(tb.ctx, chromedp.Evaluate[chromedp.Void](`(() => {
		const el = document.getElementById(`+jsString(id)+`);
		el.value = `+jsString(text)+`;
		el.dispatchEvent(new Event("input", {bubbles: true}));
	})()`)))
}

// finished waits for a run's status line to say how it ended, and fails unless it is done.
func finished(t *testing.T, tb *tab, id string) string {
	t.Helper()
	// Poll's own 30 s limit is too short for an hour of the load test on a shared machine.
	_, err := chromedp.Run(tb.ctx, chromedp.Poll[bool](`/runs done in|failed|Cancelled|Fix the fields/.test(document.getElementById(`+jsString(id)+`).textContent)`,
		chromedp.WithPollingInterval(50*time.Millisecond), chromedp.WithPollingTimeout(9*time.Minute)))
	require.NoError(t, err, "waiting for the runs of %s", id)
	s := text(t, tb, id)
	require.Contains(t, s, "runs done in", "the runs did not finish")
	return s
}

// csvRows reads CSV text.
func csvRows(t *testing.T, s string) [][]string {
	t.Helper()
	rows, err := csv.NewReader(strings.NewReader(s)).ReadAll()
	require.NoError(t, err, s)
	return rows
}

func TestLab(t *testing.T) {
	parallel(t)
	exe := chromiumPath(t)
	dir := site(t)
	url := serve(t, dir, nil)
	bctx := sharedBrowser(t, exe)

	t.Run("bad input is named next to its field and blocks the run", func(t *testing.T) {
		tb := openLab(t, bctx, url)
		validated(t, tb)
		assert.Empty(t, text(t, tb, "e-produce_bytes_per_sec"))

		retype(t, tb, chromedp.CSS("#f-produce_bytes_per_sec"), "-5")
		validated(t, tb)
		msg := text(t, tb, "e-produce_bytes_per_sec")
		assert.Contains(t, msg, "produce_bytes_per_sec: invalid value -5")
		assert.Equal(t, "true", eval[string](t, tb, `document.getElementById("f-produce_bytes_per_sec").getAttribute("aria-invalid")`))
		click(t, tb, "#compare-run")
		poll(t, tb, `document.getElementById("compare-status").textContent.startsWith("Fix the fields")`)
		assert.True(t, eval[bool](t, tb, `document.getElementById("compare-results").hidden`), "no run started")
		retype(t, tb, chromedp.CSS("#f-produce_bytes_per_sec"), "60")
		validated(t, tb)
		assert.Empty(t, text(t, tb, "e-produce_bytes_per_sec"))

		// A pasted line that is not name=value: its line number, beside the paste, and every
		// line's fate listed.
		paste(t, tb, "f-properties", "min.insync.replicas=2\nlog.dirs /data\nnum.network.threads=8\nsocket.send.buffer.bytes=1024")
		validated(t, tb)
		assert.Contains(t, text(t, tb, "e-properties"), "line 2: ")
		assert.Equal(t, []string{"used", "invalid", "used", "ignored"}, eval[[]string](t, tb, `[...document.querySelectorAll("#property-lines li")].map(li => li.dataset.status)`))
		assert.Equal(t, "true", eval[string](t, tb, `document.body.dataset.compareBlocked`))

		// A grid of more than 400 cells.
		paste(t, tb, "f-properties", "")
		replaceText(t, tb, chromedp.CSS("#f-grid0"), "leader.imbalance.election.wait.for.sync.threshold.percent=0..20:1")
		replaceText(t, tb, chromedp.CSS("#f-grid1"), "leader.imbalance.election.max.per.run=10..1000:10")
		validated(t, tb)
		assert.Contains(t, text(t, tb, "e-grid"), "2100 cells, more than 400")
		assert.Equal(t, "false", eval[string](t, tb, `document.body.dataset.compareBlocked`), "a bad grid blocks only the sweep")
		click(t, tb, "#sweep-run")
		poll(t, tb, `document.getElementById("sweep-status").textContent.startsWith("Fix the fields")`)
		assert.True(t, eval[bool](t, tb, `document.getElementById("sweep-results").hidden`))
		assert.Empty(t, tb.consoleErrors())
		screenshot(t, tb, "lab-errors.png", "")
	})

	t.Run("a compare run again leaves none of the last one's charts behind", func(t *testing.T) {
		tb := openLab(t, bctx, url)
		validated(t, tb)
		var verdicts [2][]string
		for i := range 2 {
			click(t, tb, "#compare-run")
			if i > 0 {
				poll(t, tb, `!/runs done in/.test(document.getElementById("compare-status").textContent)`)
			}
			finished(t, tb, "compare-status")
			verdicts[i] = eval[[]string](t, tb, `[...document.querySelectorAll("#verdict-rows tr")].map(tr => tr.textContent)`)
			if i == 0 {
				// The first compare's canvases, held past their charts' end.
				require.Positive(t, eval[int](t, tb, `(window.__oldCanvases = [...document.querySelectorAll("#compare-charts canvas")]).filter(c => c.width * c.height > 0).length`))
			}
		}
		// A dropped chart's canvas gives back its pixels at once, not when Blink's collector
		// gets to the element (width × height × 4 bytes each, fifteen a compare).
		assert.Equal(t, 0, eval[int](t, tb, `window.__oldCanvases.filter(c => c.isConnected || c.width * c.height > 0).length`),
			"the first compare's canvases: out of the page and emptied")
		// The second compare runs in the programs the first left (web/ts/lab/pool.ts): the same verdicts.
		require.NotEmpty(t, verdicts[0])
		assert.Equal(t, verdicts[0], verdicts[1], "the same compare again")
		charts := eval[int](t, tb, `document.querySelectorAll("#compare-charts figure.chart").length`)
		require.Positive(t, charts)
		// uPlot keeps each chart it has not destroyed in a module-wide set, with a listener on
		// the window: one per chart alive, and one of its own.
		assert.Equal(t, charts+1, windowListeners(t, tb, "dppxchange"), "charts alive after two compares: the second's only")
	})

	t.Run("the KIP's load test compared in the page, exported as the CLI writes it", func(t *testing.T) {
		// What the CLI says, computed natively while the browser works.
		want := make(chan *lab.Comparison, 1)
		go func() {
			d := lab.KIPLoadTest()
			doc, err := d.Scenario()
			if err != nil {
				want <- nil
				return
			}
			ps := lab.DefaultPolicies()
			ps[0].Overrides = lab.ImmediateOverrides()
			c, _ := lab.Compare(context.Background(), doc, ps, lab.Options{})
			want <- c
		}()

		tb := openLab(t, bctx, url)
		validated(t, tb)
		click(t, tb, `[data-preset="kip-load-test"]`)
		validated(t, tb)
		assert.Equal(t, "6", eval[string](t, tb, `document.getElementById("f-brokers").value`))
		assert.Equal(t, "orders 60000", eval[string](t, tb, `document.getElementById("f-topics").value`))
		workers := workerIDs(t, bctx, url)
		start := time.Now()
		click(t, tb, "#compare-run")
		finished(t, tb, "compare-status")
		wall := time.Since(start)
		inPage := eval[string](t, tb, `document.getElementById("compare-results").dataset.elapsedMs`)
		// Each run leaves its worker holding about 125 MB of linear memory, which a wasm never
		// gives back: once the results are shown, both are replaced by fresh workers
		// (Pool.recycle), and the export below is answered by one of those.
		poll(t, tb, `document.body.dataset.workers === undefined`)
		waitWorkers(t, bctx, url, len(workers))
		now := workerIDs(t, bctx, url)
		gone := 0
		for id := range workers {
			if !now[id] {
				gone++
			}
		}
		assert.Equal(t, 2, gone, "the compare's two workers are replaced")
		assert.Len(t, now, len(workers), "by as many fresh ones")
		// Measured, never asserted: the machine is shared.
		t.Logf("KIP load-test comparison (2 runs of 60 simulated minutes, 2 workers): %s ms in the page (runs + verdicts), %d ms click to table; status %q",
			inPage, wall.Milliseconds(), text(t, tb, "compare-status"))
		assert.Equal(t, "2", eval[string](t, tb, `document.getElementById("compare-results").dataset.runs`), "today's policy is the baseline: two runs")
		assert.Contains(t, eval[string](t, tb, `location.hash`), "#lab=", "the state is in the URL")

		type row struct{ Policy, Criterion, Status, Measured string }
		rows := eval[[]row](t, tb, `[...document.querySelectorAll("#verdict-rows tr")].map(tr => ({Policy: tr.dataset.policy, Criterion: tr.dataset.criterion, Status: tr.dataset.status, Measured: tr.children[2].textContent}))`)
		require.Len(t, rows, 6, "2 policies × 3 criteria")
		cli := <-want
		require.NotNil(t, cli)
		for i, p := range cli.Policies {
			for j, v := range p.Verdicts {
				r := rows[i*3+j]
				assert.Equal(t, p.Policy.Name, r.Policy)
				assert.Equal(t, v.Criterion, r.Criterion)
				assert.Equal(t, string(v.Status), r.Status, "%s %s", p.Policy.Name, v.Criterion)
				assert.Equal(t, v.MeasuredText, r.Measured, "%s %s", p.Policy.Name, v.Criterion)
			}
		}
		assert.Equal(t, "1.00× ("+strings.Split(rows[2].Measured, "(")[1], rows[2].Measured, "immediate against itself")
		assert.Equal(t, 5, eval[int](t, tb, `document.querySelectorAll("#compare-charts .lab-chart-row").length`))
		assert.Equal(t, 10, eval[int](t, tb, `document.querySelectorAll("#compare-charts figure canvas").length`), "5 figures side by side for 2 policies")
		assert.Equal(t, "360", eval[string](t, tb, `document.querySelector("#compare-charts figure").dataset.points`), "a point every 10 s for an hour")
		assert.Contains(t, text(t, tb, "model-notes"), "6 brokers, 60,000 partitions")
		assert.Contains(t, text(t, tb, "verdict-rows"), "the model's default, not stated", "verdicts name the assumptions they rest on")

		click(t, tb, "#export-compare-csv")
		poll(t, tb, `document.getElementById("export-text").value.startsWith("policy,")`)
		got := csvRows(t, eval[string](t, tb, `document.getElementById("export-text").value`))
		require.Len(t, got, 3)
		assert.Equal(t, "verdict_"+lab.CriterionP99, got[0][12])
		for i, p := range cli.Policies {
			assert.Equal(t, p.Policy.Name, got[i+1][0])
			for j, v := range p.Verdicts {
				assert.Equal(t, string(v.Status), got[i+1][12+j], "%s %s", p.Policy.Name, v.Criterion)
			}
		}
		click(t, tb, `#export-scenarios button[data-scenario="1"]`)
		poll(t, tb, `document.getElementById("export-text").value.includes('"wait-for-sync"')`)
		assert.Empty(t, tb.consoleErrors())
		screenshot(t, tb, "lab.png", "")
		screenshot(t, tb, "lab-verdicts.png", chromedp.CSS("#compare-results"))
	})

	t.Run("a sweep draws its heatmaps and a cell opens its comparison", func(t *testing.T) {
		tb := openLab(t, bctx, url)
		validated(t, tb)
		retype(t, tb, chromedp.CSS("#f-duration_ms"), "15")
		replaceText(t, tb, chromedp.CSS("#f-grid0"), "leader.imbalance.election.max.per.run=5,1000")
		replaceText(t, tb, chromedp.CSS("#f-grid1"), "leader.imbalance.election.wait.for.sync.threshold.percent=0,20")
		validated(t, tb)
		require.Empty(t, text(t, tb, "e-grid"))
		click(t, tb, "#sweep-run")
		finished(t, tb, "sweep-status")
		assert.Equal(t, "4", eval[string](t, tb, `document.getElementById("heat-recovery").dataset.cells`))
		click(t, tb, "#export-sweep-csv")
		poll(t, tb, `document.getElementById("export-text").value.startsWith("cell,")`)
		got := csvRows(t, eval[string](t, tb, `document.getElementById("export-text").value`))
		require.Len(t, got, 5)
		assert.Equal(t, []string{"0", "5", "0"}, got[1][:3])
		assert.Equal(t, []string{"3", "1000", "20"}, got[4][:3])

		// The bottom-right cell: max.per.run 1000, threshold 20.
		require.NoError(t, chromedp.Do(tb.ctx, chromedp.Evaluate[chromedp.Void](`(() => {
			const c = document.getElementById("heat-recovery"), r = c.getBoundingClientRect();
			c.dispatchEvent(new MouseEvent("click", {clientX: r.left + r.width * 0.75, clientY: r.top + r.height * 0.6, bubbles: true}));
		})()`)))
		poll(t, tb, `document.getElementById("compare-status").textContent.startsWith("Running")`)
		finished(t, tb, "compare-status")
		assert.Equal(t, []string{lab.DefaultPolicies()[0].Name, "sweep cell 3"}, eval[[]string](t, tb, `[...new Set([...document.querySelectorAll("#verdict-rows tr")].map(tr => tr.dataset.policy))]`))
		assert.Contains(t, eval[string](t, tb, `document.getElementById("policy-ov-1").value`), "leader.imbalance.election.max.per.run=1000")
		assert.Empty(t, tb.consoleErrors())
		screenshot(t, tb, "lab-sweep.png", chromedp.CSS(".lab-sweep"))
	})
}

// windowListeners counts the page window's event listeners of one type (DevTools'
// getEventListeners).
func windowListeners(t *testing.T, tb *tab, typ string) int {
	t.Helper()
	n := 0
	require.NoError(t, chromedp.Do(tb.ctx, chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		win, err := cdp.Call(ctx, tg, runtime.Evaluate, runtime.EvaluateParams{Expression: "window"})
		if err != nil {
			return err
		}
		res, err := cdp.Call(ctx, tg, domdebugger.GetEventListeners, domdebugger.GetEventListenersParams{ObjectID: runtime.RemoteObjectID(win.Result.ObjectID)})
		if err != nil {
			return err
		}
		for _, l := range res.Listeners {
			if l.Type == typ {
				n++
			}
		}
		return nil
	})))
	return n
}
