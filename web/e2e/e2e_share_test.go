package e2e

import (
	"bytes"
	"compress/flate"
	"encoding/base64"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kraftlab/kraftlab/cluster/scenario"
)

// stateJS reads what the canvas says about the frame shown: time, fenced, stopped, leaders per
// broker, offline partitions and the non-default configs.
const stateJS = `(() => { const d = document.getElementById("cluster-canvas").dataset;
	return [d.timeMs, d.fenced, d.stopped, d.leaders, d.offline, d.configs].join(" | "); })()`

// link builds a share-link fragment the way web/ts/share.ts does: deflate-raw and base64url.
func link(v, t, scenarioText string) string {
	var buf bytes.Buffer
	w, _ := flate.NewWriter(&buf, flate.BestCompression)
	_, _ = w.Write([]byte(scenarioText))
	_ = w.Close()
	return "#v=" + v + "&t=" + t + "&s=" + base64.RawURLEncoding.EncodeToString(buf.Bytes())
}

// openPaused navigates a new tab to a URL that holds a run and waits until the page shows it
// at timeMs (a link opens paused, so only a frame or two arrive).
func openPaused(t *testing.T, tb *tab, url string, timeMs int64) {
	t.Helper()
	require.NoError(t, chromedp.Do(tb.ctx, chromedp.EmulateViewport(1280, 900), chromedp.Navigate(url)))
	poll(t, tb, `document.getElementById("status").dataset.state === "ready"`)
	poll(t, tb, `document.getElementById("cluster-canvas").dataset.timeMs === "`+strconv.FormatInt(timeMs, 10)+`"`)
	poll(t, tb, `document.body.dataset.sim === "paused"`)
}

// shareLink presses the Copy link button and returns the link it wrote.
func shareLink(t *testing.T, tb *tab) string {
	t.Helper()
	require.NoError(t, chromedp.Do(tb.ctx, chromedp.Evaluate[chromedp.Void](`delete document.getElementById("copy-link").dataset.href`),
		chromedp.Click(chromedp.CSS("#copy-link"))))
	poll(t, tb, `!!document.getElementById("copy-link").dataset.href`)
	return eval[string](t, tb, `document.getElementById("copy-link").dataset.href`)
}

// pauseAt pauses and waits for the frame the pause leaves on screen; it returns its time.
func pauseAt(t *testing.T, tb *tab) int64 {
	t.Helper()
	if eval[string](t, tb, `document.body.dataset.sim`) == "playing" {
		press(t, tb, " ")
	}
	if state := eval[string](t, tb, `document.body.dataset.sim`); state != "paused" {
		t.Fatalf("the page is %q, not paused; errors: %s", state, eval[string](t, tb, `document.getElementById("error-report").textContent`))
	}
	// A frame requested before the pause may still arrive: wait until the time has stood
	// still for half a second.
	var last string
	for i, same := 0, 0; i < 100 && same < 5; i++ {
		now := eval[string](t, tb, `document.getElementById("cluster-canvas").dataset.timeMs`)
		if now == last {
			same++
		} else {
			same = 0
		}
		last = now
		_ = chromedp.Do(tb.ctx, chromedp.Sleep(100*time.Millisecond))
	}
	ms, err := strconv.ParseInt(last, 10, 64)
	require.NoError(t, err)
	return ms
}

func TestShareAndKeep(t *testing.T) {
	parallel(t)
	exe := chromiumPath(t)
	dir := site(t)
	url := serve(t, dir, nil)
	bctx := sharedBrowser(t, exe)

	t.Run("a share link reproduces the same state, and so does a reload", func(t *testing.T) {
		tb := open(t, bctx, url)
		setSpeed(t, tb, 100)
		press(t, tb, "1", "k")
		logItem(t, tb, "broker 1 fenced:")
		press(t, tb, "3", "w") // a slow disk, to carry more than one kind of action
		logItem(t, tb, "you slowed broker 3's disk to 20 % of its capacity")
		at := pauseAt(t, tb)
		want := eval[string](t, tb, stateJS)
		assert.Contains(t, want, " | 1 | 1 | 1:0,", "broker 1 fenced, stopped, leading nothing")
		href := shareLink(t, tb)
		require.Contains(t, href, "#v=1&t="+strconv.FormatInt(at, 10)+"&s=")
		t.Logf("share link (%d characters) at %d ms: state %s", len(href), at, want)

		other := newTab(t, bctx)
		openPaused(t, other, href, at)
		assert.Equal(t, want, eval[string](t, other, stateJS), "the link shows the same moment")
		logItem(t, other, "Opened the shared run at")
		// Where the eye is: above the toolbar, in view, until the run plays.
		assert.Regexp(t, `^Opened the shared run at [\d:.]+, paused\. Press Space to play on\.$`, eval[string](t, other, `document.getElementById("link-note").textContent`))
		assert.True(t, eval[bool](t, other, `(() => { const r = document.getElementById("link-note").getBoundingClientRect(); return !document.getElementById("link-note").hidden && r.top >= 0 && r.bottom <= innerHeight; })()`))
		logItem(t, other, "you killed broker 1")
		assert.Equal(t, "Restore disk", eval[string](t, other, `document.querySelector('#broker-list [data-broker="3"] [data-op="slow_disk"]').textContent`))
		// The marks come with the run's history, a worker round trip after the frame that
		// announced it, and are placed all at once.
		poll(t, other, `document.getElementById("scrub-marks").childElementCount > 0`)
		assert.Equal(t, "2", eval[string](t, other, `document.getElementById("scrub-marks").childElementCount.toString()`), "a mark per action on the timeline")
		assert.True(t, eval[bool](t, other, `document.getElementById("link-error").hidden`))
		assert.Empty(t, other.consoleErrors())
		screenshot(t, other, "share-link.png", "")
		press(t, other, " ")
		poll(t, other, `document.getElementById("link-note").hidden`)
		other.close() // a tab left open goes on drawing frames

		// The run survives a reload: the URL already holds it.
		require.NoError(t, chromedp.Do(tb.ctx, chromedp.Reload()))
		poll(t, tb, `document.getElementById("status").dataset.state === "ready"`)
		poll(t, tb, `document.getElementById("cluster-canvas").dataset.timeMs === "`+strconv.FormatInt(at, 10)+`"`)
		assert.Equal(t, want, eval[string](t, tb, stateJS), "a reload shows the same moment")
	})

	t.Run("scrubbing back replays, and an action then rewrites the future", func(t *testing.T) {
		tb := open(t, bctx, url)
		setSpeed(t, tb, 1000)
		press(t, tb, "2", "k")
		logItem(t, tb, "broker 2 fenced:")
		end := pauseAt(t, tb)
		endState := eval[string](t, tb, stateJS)
		killedAt, _ := logItem(t, tb, "you killed broker 2")

		// Back to before the kill with the keyboard on the timeline: Home, then forward.
		require.NoError(t, chromedp.Do(tb.ctx, chromedp.Focus(chromedp.CSS("#scrub")), chromedp.KeyEvent(kb.Home)))
		poll(t, tb, `document.getElementById("cluster-canvas").dataset.timeMs === "0"`)
		assert.Equal(t, "", eval[string](t, tb, `document.getElementById("cluster-canvas").dataset.fenced`))
		assert.False(t, eval[bool](t, tb, `document.getElementById("event-log").textContent.includes("you killed broker 2")`),
			"the log drops what happens after the time shown")
		assert.Contains(t, eval[string](t, tb, `document.getElementById("scrub-hint").textContent`), "replaces the recorded action after it")
		require.NoError(t, chromedp.Do(tb.ctx, chromedp.KeyEvent(kb.End)))
		poll(t, tb, `document.getElementById("cluster-canvas").dataset.timeMs === "`+strconv.FormatInt(end, 10)+`"`)
		assert.Equal(t, endState, eval[string](t, tb, stateJS), "forward again: the same state")

		// Back before the kill and kill broker 3 instead: broker 2's kill is gone.
		require.NoError(t, chromedp.Do(tb.ctx, chromedp.SetValue(chromedp.CSS("#scrub"), strconv.FormatInt(killedAt/2, 10)),
			chromedp.Evaluate[chromedp.Void](`document.getElementById("scrub").dispatchEvent(new Event("input"))`)))
		poll(t, tb, `document.getElementById("cluster-canvas").dataset.timeMs === "`+strconv.FormatInt(killedAt/2, 10)+`"`)
		press(t, tb, "3", "k")
		logItem(t, tb, "1 later action was replaced by this one.")
		// The old timeline also had one mark (broker 2's kill, at killedAt): wait for the new
		// one by its time, not by the count, which the old marks already satisfy.
		poll(t, tb, `[...document.querySelectorAll("#scrub-marks .scrub-mark")].some(m => m.dataset.timeMs === "`+strconv.FormatInt(killedAt/2, 10)+`")`)
		assert.Equal(t, []string{"kill@" + strconv.FormatInt(killedAt/2, 10)},
			eval[[]string](t, tb, `[...document.querySelectorAll("#scrub-marks .scrub-mark")].map(m => m.dataset.op + "@" + m.dataset.timeMs)`),
			"the kill of broker 3 replaced the kill of broker 2 on the timeline")
		setSpeed(t, tb, 1000)
		press(t, tb, " ")
		logItem(t, tb, "broker 3 fenced:")
		assert.NotContains(t, eval[string](t, tb, `document.getElementById("event-log").textContent`), "broker 2 fenced")
		assert.Empty(t, tb.consoleErrors())
		screenshot(t, tb, "timeline.png", chromedp.CSS(".timeline"))
	})

	t.Run("a malformed link shows a clear message and the default cluster", func(t *testing.T) {
		// One link for each place a link is refused: the browser's inflate, the page's JSON
		// parse, the worker's scenario check and its limits for the page. The refusals decodeRun
		// makes from the link's text alone (its version, time and base64) are each named in
		// web/ts/test/links.test.ts, and shown by this same path: each costs a page load here.
		good := `{"seed":1,"duration_ms":1000,"cluster":{"brokers":3,"topics":[{"name":"t","partition_count":3,"replication_factor":3}]}`
		for _, c := range []struct{ name, frag, want string }{
			{"not compressed", "#v=1&t=0&s=" + base64.RawURLEncoding.EncodeToString([]byte("plain text, not deflate")), "not deflate-compressed data"},
			{"bad JSON", link("1", "0", `{"seed": 1,`), "its scenario is not JSON"},
			{"unknown op", link("1", "0", good+`,"events":[{"at_ms":5,"op":"explode"}]}`), `its scenario is not valid: events[0].op: unknown op "explode"`},
			{"too large", link("1", "0", `{"seed":1,"duration_ms":1000,"cluster":{"brokers":3,"topics":[{"name":"t","partition_count":200000,"replication_factor":3}]}}`),
				"200,000 partitions in all are too many for the page; allowed: up to 100,000"},
		} {
			t.Run(c.name, func(t *testing.T) {
				tb := newTab(t, bctx)
				require.NoError(t, chromedp.Do(tb.ctx, chromedp.EmulateViewport(1280, 900), chromedp.Navigate(url+"/"+c.frag)))
				poll(t, tb, `!document.getElementById("link-error").hidden`)
				msg := eval[string](t, tb, `document.getElementById("link-error").textContent`)
				assert.Contains(t, msg, "This link could not be opened: ", c.name)
				assert.Contains(t, msg, c.want, c.name)
				assert.Contains(t, msg, "The default cluster was started instead.", c.name)
				poll(t, tb, `Number(document.getElementById("cluster-canvas").dataset.frames || 0) >= 2`)
				logItem(t, tb, "cluster started with seed 1: 3 controllers, brokers 1, 2, 3 and 4, topic payments with 12 partitions")
				assert.Equal(t, "ready", eval[string](t, tb, `document.getElementById("status").dataset.state`), c.name)
				assert.True(t, eval[bool](t, tb, `document.getElementById("error-panel").hidden`), "no crash panel: %s", c.name)
				if c.name == "unknown op" {
					screenshot(t, tb, "malformed-link.png", "")
				}
			})
		}
	})

	t.Run("export and import round trip, and a bad import is refused next to the control", func(t *testing.T) {
		tb := open(t, bctx, url)
		setSpeed(t, tb, 100)
		press(t, tb, "2", "k")
		retype(t, tb, chromedp.CSS("#topic-name"), "orders")
		retype(t, tb, chromedp.CSS("#topic-partitions"), "6")
		retype(t, tb, chromedp.CSS("#topic-rf"), "2")
		require.NoError(t, chromedp.Do(tb.ctx, chromedp.Click(chromedp.CSS("#topic-create"))))
		logItem(t, tb, "you created topic orders with 6 partitions at replication factor 2")
		// A bad value is refused next to its field.
		retype(t, tb, chromedp.CSS("#topic-name"), "audit")
		retype(t, tb, chromedp.CSS("#topic-rf"), "9")
		require.NoError(t, chromedp.Do(tb.ctx, chromedp.Click(chromedp.CSS("#topic-create"))))
		poll(t, tb, `document.getElementById("topic-rf-error").textContent !== ""`)
		assert.Equal(t, "replicationFactor: 9 is not allowed; allowed: 1 to 4 (at most one replica per broker, and at most 8)",
			eval[string](t, tb, `document.getElementById("topic-rf-error").textContent`))
		logItem(t, tb, "broker 2 fenced:")
		at := pauseAt(t, tb)
		want := eval[string](t, tb, stateJS)

		require.NoError(t, chromedp.Do(tb.ctx, chromedp.Click(chromedp.CSS("#export-run"))))
		poll(t, tb, `document.getElementById("scenario-json").value.includes("create_topic")`)
		exported := eval[string](t, tb, `document.getElementById("scenario-json").value`)
		assert.Contains(t, exported, `"op":"kill","broker":2}`)
		assert.Contains(t, exported, `"duration_ms": `+strconv.FormatInt(at, 10)+",")
		// The file is what kraftlab run reads.
		sc, err := scenario.Parse([]byte(exported))
		require.NoError(t, err, exported)
		assert.Len(t, sc.Cluster.Events, 2)

		// Another cluster, then the import brings the run back.
		retype(t, tb, chromedp.CSS("#seed"), "2")
		require.NoError(t, chromedp.Do(tb.ctx, chromedp.Click(chromedp.CSS("#start-button"))))
		logItem(t, tb, "cluster started with seed 2")
		require.NoError(t, chromedp.Do(tb.ctx, chromedp.SetValue(chromedp.CSS("#scenario-json"), exported),
			chromedp.Click(chromedp.CSS("#import-run"))))
		poll(t, tb, `document.getElementById("share-status").textContent.startsWith("Opened the scenario with 2 events")`)
		assert.Equal(t, "1", eval[string](t, tb, `document.getElementById("seed").value`))
		pauseAt(t, tb)
		require.NoError(t, chromedp.Do(tb.ctx, chromedp.SetValue(chromedp.CSS("#scrub"), strconv.FormatInt(at, 10)),
			chromedp.Evaluate[chromedp.Void](`document.getElementById("scrub").dispatchEvent(new Event("input"))`)))
		poll(t, tb, `document.getElementById("cluster-canvas").dataset.timeMs === "`+strconv.FormatInt(at, 10)+`"`)
		assert.Equal(t, want, eval[string](t, tb, stateJS), "the imported run at the export's time is the exported state")
		screenshot(t, tb, "export-import.png", "")

		require.NoError(t, chromedp.Do(tb.ctx, chromedp.SetValue(chromedp.CSS("#scenario-json"), `{"seed": 1, "cluster": {}}`),
			chromedp.Click(chromedp.CSS("#import-run"))))
		poll(t, tb, `document.getElementById("import-error").textContent !== ""`)
		msg := eval[string](t, tb, `document.getElementById("import-error").textContent`)
		assert.True(t, strings.HasPrefix(msg, "Not opened: "), msg)
		assert.Contains(t, msg, "duration_ms")
		assert.Equal(t, strconv.FormatInt(at, 10), eval[string](t, tb, `document.getElementById("cluster-canvas").dataset.timeMs`), "the run is untouched")
		assert.Empty(t, tb.consoleErrors())
		screenshot(t, tb, "import-error.png", chromedp.CSS(".share"))
	})
}
