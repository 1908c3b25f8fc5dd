package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	cdpbrowser "github.com/chromedp/cdproto/browser"
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kraftlab/kraftlab/web/build"
)

// importFixture is one of lab's import fixtures (written from Kafka's tools' output formats).
func importFixture(t *testing.T, name string) string {
	t.Helper()
	root, err := build.FindRoot()
	require.NoError(t, err)
	b, err := os.ReadFile(filepath.Join(root, "lab", "testdata", "import", name))
	require.NoError(t, err)
	return string(b)
}

// A person pastes kafka-topics.sh --describe output, runs a plan, and downloads the report.
func TestLabRehearse(t *testing.T) {
	parallel(t)
	exe := chromiumPath(t)
	dir := site(t)
	url := serve(t, dir, nil)
	bctx := sharedBrowser(t, exe)
	tb := openLab(t, bctx, url)
	validated(t, tb)

	// A bad plan is named next to the plan, and nothing runs.
	paste(t, tb, "r-topics", importFixture(t, "topics-4x.txt"))
	paste(t, tb, "r-plan", "rolling-restart all timeout=10m\nreboot 3\n")
	click(t, tb, "#r-run")
	poll(t, tb, `document.getElementById("rehearse").dataset.state === "invalid"`)
	assert.Contains(t, text(t, tb, "r-plan-e"), `plan, line 2: unknown step "reboot"`)
	assert.True(t, eval[bool](t, tb, `document.getElementById("r-results").hidden`))

	// The describe, a small plan, and the run to its end with progress.
	paste(t, tb, "r-plan", "rolling-restart 1,2,3 timeout=10m\n")
	click(t, tb, "#r-run")
	_, err := chromedp.Run(tb.ctx, chromedp.Poll[bool](`["done", "failed"].includes(document.getElementById("rehearse").dataset.state)`,
		chromedp.WithPollingInterval(100*time.Millisecond), chromedp.WithPollingTimeout(9*time.Minute)))
	require.NoError(t, err)
	require.Equal(t, "done", eval[string](t, tb, `document.getElementById("rehearse").dataset.state`), text(t, tb, "r-status"))
	assert.Equal(t, 1.0, eval[float64](t, tb, `document.getElementById("r-progress").value`))
	assert.Contains(t, text(t, tb, "r-import"), "Imported: 5 brokers, 15 partitions")
	assert.Empty(t, text(t, tb, "r-plan-e"))
	shown := text(t, tb, "r-report")
	for _, topic := range []string{"orders.v2", "payments-eu", "__consumer_offsets", "audit_log"} {
		assert.Contains(t, shown, topic)
	}
	assert.Contains(t, shown, "Verdicts (KIP-1358")
	assert.Equal(t, 0, eval[int](t, tb, `document.querySelectorAll("#r-report h1, #r-report h2").length`), "the report's headings sit below the section's")
	assert.Equal(t, 6, eval[int](t, tb, `document.querySelectorAll("#r-report svg polyline").length > 0 ? document.querySelectorAll("#r-report figure").length : 0`), "six timelines")

	// Download the report: the file is what the page shows.
	dl := t.TempDir()
	_, err = chromedp.CallBrowser(tb.ctx, cdpbrowser.SetDownloadBehavior, cdpbrowser.SetDownloadBehaviorParams{Behavior: cdpbrowser.SetDownloadBehaviorBehaviorAllow, DownloadPath: dl})
	require.NoError(t, err)
	click(t, tb, "#r-download")
	var got []byte
	require.Eventually(t, func() bool {
		got, err = os.ReadFile(filepath.Join(dl, "kraftlab-rehearsal.html"))
		return err == nil && strings.HasSuffix(string(got), "</html>\n")
	}, 30*time.Second, 100*time.Millisecond, "the downloaded report")
	assert.True(t, strings.HasPrefix(string(got), "<!DOCTYPE html>"))
	assert.True(t, eval[bool](t, tb, `new DOMParser().parseFromString(`+jsString(string(got))+`.replace(/<style>[\s\S]*?<\/style>/, ""), "text/html").body.textContent === document.getElementById("r-report").textContent`),
		"the downloaded report says what the page shows")
	assert.Empty(t, tb.consoleErrors())

	// What a reader sees: the inputs, the report's top, its verdicts and its first timeline.
	for _, w := range []int64{390, 800, 1440} {
		for _, part := range []struct{ name, sel string }{{"inputs", "#rehearse"}, {"report", "#r-results"},
			{"verdicts", "#r-report h4:nth-of-type(4)"}, {"timeline", "#r-report figure"}} {
			require.NoError(t, chromedp.Do(tb.ctx, chromedp.EmulateViewport(w, 900), chromedp.Evaluate[chromedp.Void](
				`document.querySelector(`+jsString(part.sel)+`).scrollIntoView()`)))
			screenshot(t, tb, fmt.Sprintf("lab-rehearse-%d-%s.png", w, part.name), "")
		}
	}

	// Cancel: a long plan stops at the next slice.
	paste(t, tb, "r-plan", "rolling-restart all timeout=10m\npause 24h\n")
	click(t, tb, "#r-run")
	poll(t, tb, `document.getElementById("rehearse").dataset.state === "running" && /Running/.test(document.getElementById("r-status").textContent)`)
	click(t, tb, "#r-cancel")
	poll(t, tb, `document.getElementById("rehearse").dataset.state === "cancelled"`)
	assert.True(t, strings.HasPrefix(text(t, tb, "r-status"), "Cancelled"))
}

// TestLabRehearseImportTime measures the page's import of the rehearsal's scale target: a
// 60-broker, 200,000-partition kafka-topics.sh --describe of about 40 MB (as lab's
// BenchmarkImport200k writes it), pasted, from the click on Rehearse to every worker ready to
// run (the section's data-import-ms). A measurement, not a test: KRAFTLAB_MEASURE=1.
func TestLabRehearseImportTime(t *testing.T) {
	if os.Getenv("KRAFTLAB_MEASURE") == "" {
		t.Skip("a measurement, not a test: set KRAFTLAB_MEASURE=1")
	}
	exe := chromiumPath(t)
	dir := site(t)
	url := serve(t, dir, nil)
	bctx := browser(t, exe)
	tb := openLab(t, bctx, url)
	validated(t, tb)
	// The text is made in the page (40 MB through the DevTools protocol would measure that).
	require.NoError(t, chromedp.Do(tb.ctx, chromedp.Evaluate[chromedp.Void](`(() => {
		const ids = [];
		for (let id = 1; ids.length < 60; id++) if (id % 10 !== 0) ids.push(id);
		const parts = [];
		for (let t = 0; t * 1000 < 200000; t++) {
			const name = "prod.eu-west-1.payments.card-transactions.v" + String(t).padStart(3, "0") + ".events-by-customer-and-merchant.compacted-changelog-retained-7d";
			parts.push("Topic: " + name + "\tTopicId: AAAAAAAAAAAAAAAAAAAAAA\tPartitionCount: 1000\tReplicationFactor: 3\tConfigs: min.insync.replicas=2,retention.ms=604800000\n");
			for (let p = 0; p < 1000; p++) {
				const k = t * 1000 + p, r = [ids[k % 60], ids[(k + 1) % 60], ids[(k + 2) % 60]].join(",");
				parts.push("\tTopic: " + name + "\tPartition: " + p + "\tLeader: " + ids[k % 60] + "\tReplicas: " + r + "\tIsr: " + r + "\tElr: \tLastKnownElr: \n");
			}
		}
		const el = document.getElementById("r-topics");
		el.value = parts.join("");
		el.dispatchEvent(new Event("input", {bubbles: true}));
	})()`)))
	mb := eval[float64](t, tb, `document.getElementById("r-topics").value.length / 1e6`)
	paste(t, tb, "r-plan", "pause 1m\n")
	browserPid := chromedp.FromContext(bctx).Browser.Process().Pid
	cpu0 := processTreeCPU(browserPid)
	click(t, tb, "#r-run")
	_, err := chromedp.Run(tb.ctx, chromedp.Poll[bool](`document.getElementById("rehearse").dataset.importMs !== undefined || ["invalid", "failed"].includes(document.getElementById("rehearse").dataset.state)`,
		chromedp.WithPollingInterval(50*time.Millisecond), chromedp.WithPollingTimeout(9*time.Minute)))
	require.NoError(t, err)
	require.NotEmpty(t, eval[string](t, tb, `document.getElementById("rehearse").dataset.importMs || ""`), text(t, tb, "r-status"))
	cpu := processTreeCPU(browserPid) - cpu0
	t.Logf("page import of a %.1f MB, 200,000-partition describe: %s ms from the click to every worker ready; %.1f s of CPU in the browser's processes meanwhile (up to the poll's 50 ms after), load average %s (%s)",
		mb, eval[string](t, tb, `document.getElementById("rehearse").dataset.importMs`), cpu, loadAverage(), text(t, tb, "r-import"))
	// No cancel: the workers' first slice builds their 200,000-partition clusters, minutes of
	// wasm on a loaded machine before a cancel is read, and the measurement is taken.
}

// processTreeCPU is the CPU time, user and system, that process pid and its descendants have
// used so far, in seconds (Linux /proc, at 100 clock ticks a second; -1 elsewhere): a measure
// of the page's work that a loaded machine does not stretch the way it stretches wall time.
func processTreeCPU(pid int) float64 {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return -1
	}
	parent, ticks := map[int]int{}, map[int]float64{}
	for _, e := range entries {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// After "pid (comm) ": state ppid … with utime and stime the 12th and 13th fields.
		end := strings.LastIndex(string(stat), ")")
		f := strings.Fields(string(stat)[end+1:])
		if end < 0 || len(f) < 13 {
			continue
		}
		parent[p], _ = strconv.Atoi(f[1])
		u, _ := strconv.ParseFloat(f[11], 64)
		s, _ := strconv.ParseFloat(f[12], 64)
		ticks[p] = u + s
	}
	total := 0.0
	for p, t := range ticks {
		for q := p; q > 1; q = parent[q] {
			if q == pid {
				total += t
				break
			}
		}
	}
	return total / 100
}
