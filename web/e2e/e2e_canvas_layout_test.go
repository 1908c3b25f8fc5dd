package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// shape is a text, badge or bar the renderer drew, as it reports them in data-texts while the
// canvas has data-record-texts (layout units).
type shape struct {
	Kind     string
	Text     string
	X, Y     float64
	W, H     float64
	Squeezed bool
}

// drawnShapes redraws the canvas (a resize forces it) with recording on and returns what the
// frame drew.
func drawnShapes(t *testing.T, tb *tab, w, h int64) []shape {
	t.Helper()
	eval[bool](t, tb, `(c => (c.dataset.recordTexts = "1", delete c.dataset.texts, true))(document.getElementById("cluster-canvas"))`)
	// Two viewports in turn: the resize observer draws the frame again at the second.
	require.NoError(t, chromedp.Do(tb.ctx, chromedp.EmulateViewport(w+1, h)))
	nextFrames(t, tb)
	require.NoError(t, chromedp.Do(tb.ctx, chromedp.EmulateViewport(w, h)))
	nextFrames(t, tb)
	poll(t, tb, `!!document.getElementById("cluster-canvas").dataset.texts`)
	var out []shape
	require.NoError(t, json.Unmarshal([]byte(eval[string](t, tb, `document.getElementById("cluster-canvas").dataset.texts`)), &out))
	return out
}

// trafficLabels returns the labels and captions the traffic layer drew over the canvas in its
// last drawing (web/ts/traffic.ts, data-labels, layout units), once the canvas records its texts.
func trafficLabels(t *testing.T, tb *tab) []shape {
	t.Helper()
	js := `document.querySelector("canvas.traffic-layer").dataset.labels`
	nextFrames(t, tb)
	poll(t, tb, `!!`+js)
	var out []shape
	require.NoError(t, json.Unmarshal([]byte(eval[string](t, tb, js)), &out))
	return out
}

// captionsCut lists the traffic layer's captions not drawn whole: cut to end in "…", or not
// within the canvas's width (layout units, canvasW). A caption wider than the canvas wraps
// onto a second line instead (web/ts/traffic.ts, drawCaptions).
func captionsCut(labels []shape, canvasW float64) []string {
	var out []string
	for _, l := range labels {
		if l.Kind == "caption" && (strings.HasSuffix(l.Text, "…") || l.X < 0 || l.X+l.W > canvasW+0.5) {
			out = append(out, fmt.Sprintf("%q at x %.1f to %.1f of %.1f", l.Text, l.X, l.X+l.W, canvasW))
		}
	}
	return out
}

// canvasLayoutW is the cluster canvas's width in the layout units the traffic layer's labels
// are in.
const canvasLayoutW = `(c => c.width / Math.max(1, Math.min(3, devicePixelRatio)) / Number(document.querySelector("canvas.traffic-layer").dataset.scale))(document.getElementById("cluster-canvas"))`

// flowDrawn is a replication flow the traffic layer drew (data-flow-paths, while the canvas
// records its texts): its two brokers' slots, points along it (layout units) and how many rows
// of brokers lie between its two boxes.
type flowDrawn struct {
	Kind        string
	From, To    int
	RowsBetween int
	Pts         [][2]float64
}

// trafficFlows returns the flows the traffic layer drew in its last drawing; call after trafficLabels.
func trafficFlows(t *testing.T, tb *tab) []flowDrawn {
	t.Helper()
	var out []flowDrawn
	require.NoError(t, json.Unmarshal([]byte(eval[string](t, tb, `document.querySelector("canvas.traffic-layer").dataset.flowPaths || "[]"`)), &out))
	return out
}

// flowsOverInk lists the flows that run over one of the renderer's texts, badges, bars or
// replica grids, between their ends (which sit on their boxes' edges). A flow between rows with
// a row between them crosses that row's boxes and is left out. (The traffic layer's own labels
// are drawn after the flows, on plates that read over them.)
func flowsOverInk(flows []flowDrawn, ink []shape) []string {
	var out []string
	for _, f := range flows {
		if f.RowsBetween > 0 {
			continue
		}
		for _, p := range f.Pts[1 : len(f.Pts)-1] {
			for _, r := range ink {
				if p[0] > r.X+0.5 && p[0] < r.X+r.W-0.5 && p[1] > r.Y+0.5 && p[1] < r.Y+r.H-0.5 {
					out = append(out, fmt.Sprintf("a %s flow at (%.0f, %.0f) over %s %q", f.Kind, p[0], p[1], r.Kind, r.Text))
					break
				}
			}
		}
	}
	return out
}

// catchUpPileUps lists the catch-up flows into one broker whose ends (their arrowheads) land
// less than `apart` layout units from another's, and counts the most catch-up flows into one
// broker.
func catchUpPileUps(flows []flowDrawn, apart float64) (out []string, most int) {
	into := map[int][]flowDrawn{}
	for _, f := range flows {
		if f.Kind == "catch-up" {
			into[f.To] = append(into[f.To], f)
		}
	}
	for to, fs := range into {
		most = max(most, len(fs))
		for i, a := range fs {
			for _, b := range fs[i+1:] {
				p, q := a.Pts[len(a.Pts)-1], b.Pts[len(b.Pts)-1]
				if d := math.Hypot(p[0]-q[0], p[1]-q[1]); d < apart {
					out = append(out, fmt.Sprintf("catch-up flows %d→%d and %d→%d land %.1f units apart", a.From, to, b.From, to, d))
				}
			}
		}
	}
	return out, most
}

// textPlate is the clear plate around each of the renderer's texts and badges (web/ts/layout.ts,
// TEXT_PLATE, layout units): no traffic is drawn on it.
var textPlate = struct{ x, top, bottom float64 }{5, 1, 2}

// linksThroughTexts lists the links that run through a text's or badge's plate: those the plates
// have to clear for the text to read.
func linksThroughTexts(links []linkDrawn, ink []shape) []string {
	var out []string
	seen := map[string]bool{}
	for _, l := range links {
		for i := 1; i < len(l.Pts); i++ {
			a, b := l.Pts[i-1], l.Pts[i]
			n := int(math.Ceil(math.Hypot(b[0]-a[0], b[1]-a[1]) / 2))
			for k := 0; k <= n; k++ {
				x := a[0] + (b[0]-a[0])*float64(k)/float64(max(n, 1))
				y := a[1] + (b[1]-a[1])*float64(k)/float64(max(n, 1))
				for _, r := range ink {
					if r.Kind != "text" && r.Kind != "badge" {
						continue
					}
					if x > r.X-textPlate.x && x < r.X+r.W+textPlate.x && y > r.Y-textPlate.top && y < r.Y+r.H+textPlate.bottom {
						msg := fmt.Sprintf("a %s link %d→%d through %q", l.API, l.From, l.To, r.Text)
						if !seen[msg] {
							seen[msg] = true
							out = append(out, msg)
						}
					}
				}
			}
		}
	}
	return out
}

// linkDrawn is a controller's link the traffic layer drew, pulsing or carrying a message dot
// (data-link-paths, while the canvas records its texts): the corners of its route, layout units.
type linkDrawn struct {
	API      string
	From, To int
	Pts      [][2]float64
}

// trafficLinks returns the links the traffic layer drew in its last drawing and the top of the
// first row of broker boxes (layout units); call after trafficLabels.
func trafficLinks(t *testing.T, tb *tab) ([]linkDrawn, float64) {
	t.Helper()
	var out []linkDrawn
	require.NoError(t, json.Unmarshal([]byte(eval[string](t, tb, `document.querySelector("canvas.traffic-layer").dataset.linkPaths || "[]"`)), &out))
	top := eval[float64](t, tb, `(() => {
		const s = Number(document.querySelector("canvas.traffic-layer").dataset.scale);
		const ys = document.getElementById("cluster-canvas").dataset.brokerBoxes.split(";").map(b => Number(b.split(":")[1].split(",")[1]));
		return Math.min(...ys) / s;
	})()`)
	return out, top
}

// linksOverInk lists the links that run over one of the renderer's texts, badges, bars or
// replica grids in the rows of brokers (from rowsTop down), between their ends. Above the rows
// they pass under the summary line's words by design (the layer clears a plate round them).
func linksOverInk(links []linkDrawn, ink []shape, rowsTop float64) []string {
	var out []string
	seen := map[string]bool{}
	for _, l := range links {
		l.interiorPoints(func(x, y float64) {
			for _, r := range ink {
				if r.Y < rowsTop-1 {
					continue
				}
				if x > r.X+0.5 && x < r.X+r.W-0.5 && y > r.Y+0.5 && y < r.Y+r.H-0.5 {
					msg := fmt.Sprintf("a %s link %d→%d over %s %q", l.API, l.From, l.To, r.Kind, r.Text)
					if !seen[msg] {
						seen[msg] = true
						out = append(out, fmt.Sprintf("%s at (%.0f, %.0f)", msg, x, y))
					}
				}
			}
		})
	}
	return out
}

// interiorPoints calls visit at points every 2 layout units or less along the link's path,
// its two ends left out: they sit on its boxes' edges.
func (l linkDrawn) interiorPoints(visit func(x, y float64)) {
	for i := 1; i < len(l.Pts); i++ {
		a, b := l.Pts[i-1], l.Pts[i]
		n := int(math.Ceil(math.Hypot(b[0]-a[0], b[1]-a[1]) / 2))
		for k := 0; k <= n; k++ {
			if (i == 1 && k == 0) || (i == len(l.Pts)-1 && k == n) {
				continue
			}
			visit(a[0]+(b[0]-a[0])*float64(k)/float64(max(n, 1)), a[1]+(b[1]-a[1])*float64(k)/float64(max(n, 1)))
		}
	}
}

// actorBox is a controller's or broker's box as the renderer drew it (layout units).
type actorBox struct {
	Kind       string
	ID         int
	X, Y, W, H float64
}

// actorBoxes returns the boxes of the controllers and brokers of the canvas's last drawing
// (data-controller-boxes and data-broker-boxes, CSS pixels rounded to whole ones), in layout
// units.
func actorBoxes(t *testing.T, tb *tab) []actorBox {
	t.Helper()
	var out []actorBox
	require.NoError(t, json.Unmarshal([]byte(eval[string](t, tb, `(() => {
		const s = Number(document.querySelector("canvas.traffic-layer").dataset.scale);
		const d = document.getElementById("cluster-canvas").dataset;
		const out = [];
		for (const [kind, raw] of [["controller", d.controllerBoxes], ["broker", d.brokerBoxes]]) {
			for (const b of (raw || "").split(";").filter(Boolean)) {
				const [id, nums] = b.split(":");
				const [x, y, w, h] = nums.split(",").map(Number);
				out.push({kind, id: Number(id), x: x / s, y: y / s, w: w / s, h: h / s});
			}
		}
		return JSON.stringify(out);
	})()`)), &out))
	return out
}

// shapesIn returns the texts drawn in the box of the controller with id `id` (a decimal string),
// top to bottom.
func shapesIn(shapes []shape, boxes []actorBox, id string) []string {
	var out []string
	for _, b := range boxes {
		if fmt.Sprint(b.ID) != id {
			continue
		}
		for _, s := range shapes {
			if s.Kind == "text" && s.X >= b.X && s.X+s.W <= b.X+b.W+0.5 && s.Y >= b.Y-0.5 && s.Y+s.H <= b.Y+b.H+0.5 {
				out = append(out, s.Text)
			}
		}
	}
	return out
}

// controllerRows counts the rows the controllers' boxes are drawn in.
func controllerRows(boxes []actorBox) int {
	rows := map[float64]bool{}
	for _, b := range boxes {
		if b.Kind == "controller" {
			rows[math.Round(b.Y)] = true
		}
	}
	return len(rows)
}

// linksOverBoxes lists the links that cross a controller's or a broker's box: between its two
// ends (which sit on its boxes' edges, or under a controller's box) no point of a link is inside
// a box, its own two included. The boxes are read rounded to whole CSS pixels, so a point counts
// as inside only a pixel in from their edges.
func linksOverBoxes(links []linkDrawn, boxes []actorBox) []string {
	var out []string
	seen := map[string]bool{}
	for _, l := range links {
		l.interiorPoints(func(x, y float64) {
			for _, r := range boxes {
				if x > r.X+1 && x < r.X+r.W-1 && y > r.Y+1 && y < r.Y+r.H-1 {
					msg := fmt.Sprintf("a %s link %d→%d crosses %s %d's box", l.API, l.From, l.To, r.Kind, r.ID)
					if !seen[msg] {
						seen[msg] = true
						out = append(out, fmt.Sprintf("%s at (%.0f, %.0f)", msg, x, y))
					}
				}
			}
		})
	}
	return out
}

// overlaps lists the pairs of shapes drawn over each other (by more than a pixel's sliver).
func overlaps(shapes []shape) []string {
	var out []string
	for i, a := range shapes {
		for _, b := range shapes[i+1:] {
			dx := math.Min(a.X+a.W, b.X+b.W) - math.Max(a.X, b.X)
			dy := math.Min(a.Y+a.H, b.Y+b.H) - math.Max(a.Y, b.Y)
			if dx > 1 && dy > 1 {
				out = append(out, fmt.Sprintf("%s %q over %s %q", a.Kind, a.Text, b.Kind, b.Text))
			}
		}
	}
	return out
}

// stripOverlaps returns the log strip's labels written over a marker (their own included) or over
// another label: what the strip recorded of its markers' rows (web/ts/logstrip.ts, data-texts).
func stripOverlaps(drawn []shape) []string {
	var out []string
	for i, a := range drawn {
		if a.Kind != "text" {
			continue
		}
		for j, b := range drawn {
			if j == i || (b.Kind == "text" && j < i) {
				continue
			}
			dx := math.Min(a.X+a.W, b.X+b.W) - math.Max(a.X, b.X)
			dy := math.Min(a.Y+a.H, b.Y+b.H) - math.Max(a.Y, b.Y)
			if dx > 0.5 && dy > 0.5 {
				out = append(out, fmt.Sprintf("label %q [%.1f, %.1f] over %s %q [%.1f, %.1f]", a.Text, a.X, a.X+a.W, b.Kind, b.Text, b.X, b.X+b.W))
			}
		}
	}
	return out
}

// gateScene opens the talk's gate scene (broker 3 gated) in the tab at 100×, and waits for its
// end, unless the tab shows it already.
func gateScene(t *testing.T, tb *tab, url string) {
	t.Helper()
	if !eval[bool](t, tb, `document.body?.dataset.talkScene === "2"`) {
		require.NoError(t, chromedp.Do(tb.ctx, chromedp.EmulateViewport(1440, 900), chromedp.Navigate(url+"/#talk=kip-1358-in-ten-minutes&scene=3")))
	}
	setSpeed(t, tb, 100)
	poll(t, tb, `document.body.dataset.talkScene === "2" && document.body.dataset.talkState === "done"`)
}

// TestCanvasLayout checks the cluster canvas as a person reads it: at a phone's, a small
// window's and a desktop's width and in presenter mode, no text, badge, bar, replica grid or
// traffic caption is drawn over another, no replication flow runs over what the renderer drew,
// and no text is squeezed narrower than its letters; small clusters get boxes sized to their
// cells, not a page tall.
func TestCanvasLayout(t *testing.T) {
	parallel(t)
	exe := chromiumPath(t)
	dir := site(t)
	url := serve(t, dir, nil)
	bctx := sharedBrowser(t, exe)

	// links: the controllers' links are on the canvas (the traffic pulses) in what is checked.
	check := func(t *testing.T, tb *tab, what string, links bool, want func(shapes, labels []shape) bool) {
		for _, presenter := range []bool{false, true} {
			if presenter {
				press(t, tb, "p")
				poll(t, tb, `document.body.classList.contains("presenter")`)
			}
			for _, size := range viewports {
				shapes := drawnShapes(t, tb, size.w, size.h)
				labels := trafficLabels(t, tb)
				name := fmt.Sprintf("%s at %d px (presenter %v)", what, size.w, presenter)
				if want != nil {
					assert.True(t, want(shapes, labels), "%s: traffic %+v", name, labels)
				}
				// The renderer's shapes and, drawn over them, the traffic layer's labels.
				assert.Empty(t, overlaps(append(shapes, labels...)), name)
				assert.Empty(t, captionsCut(labels, eval[float64](t, tb, canvasLayoutW)), name)
				// The replication flows run in the lanes over the rows and the gaps between them.
				flows := trafficFlows(t, tb)
				assert.NotEmpty(t, flows, "%s: the steady flows between the running brokers", name)
				assert.Empty(t, flowsOverInk(flows, shapes), name)
				// Catch-up flows into one broker land apart, their arrowheads (at most 11 units
				// wide) side by side with room between them, not in one blot.
				piled, _ := catchUpPileUps(flows, 20)
				assert.Empty(t, piled, name)
				// The controllers' links run around the rows of brokers above the one they go to.
				drawn, rowsTop := trafficLinks(t, tb)
				if links {
					assert.NotEmpty(t, drawn, "%s: the controllers' links", name)
				}
				assert.Empty(t, linksOverInk(drawn, shapes, rowsTop), name)
				// Nor any box, the controllers' included. On a phone they are compact boxes side
				// by side in one row (web/ts/layout.ts, controllersCompact).
				boxes := actorBoxes(t, tb)
				if size.w == 390 {
					assert.Equal(t, 1, controllerRows(boxes), "%s: the controllers in one row", name)
				}
				assert.Empty(t, linksOverBoxes(drawn, boxes), name)
				for _, s := range shapes {
					assert.False(t, s.Squeezed, "%s: %q is squeezed to fit", name, s.Text)
				}
				if !presenter {
					screenshot(t, tb, fmt.Sprintf("canvas-layout-%s-%d.png", strings.ReplaceAll(what, " ", "-"), size.w), "#cluster-canvas")
				}
			}
			if presenter {
				press(t, tb, "P")
				poll(t, tb, `!document.body.classList.contains("presenter")`)
			}
		}
		// Sizing the canvas to its drawing must not make a resize loop the page reports.
		assert.True(t, eval[bool](t, tb, `document.getElementById("error-panel").hidden`), eval[string](t, tb, `document.getElementById("error-report").textContent`))
	}

	t.Run("a gated broker's badge, counts and catch-up bar sit apart", func(t *testing.T) {
		// Lesson 6, step 4 opens on broker 0 gated with 105 partitions out of sync.
		tb := openLesson(t, bctx, url, "lesson=6&step=4")
		check(t, tb, "gated", false, func(s, _ []shape) bool {
			kinds := map[string]bool{}
			for _, x := range s {
				kinds[x.Kind] = true
			}
			return kinds["badge"] && kinds["bar"]
		})
	})

	t.Run("the playground after a kill: no text over another at any width, the traffic's captions neither", func(t *testing.T) {
		tb := open(t, bctx, url)
		setSpeed(t, tb, 100)
		press(t, tb, "1", "k")
		// Paused as the leaders move: the traffic layer's clock stands still with the run, so
		// the moves and their captions stay on the canvas while it is measured.
		poll(t, tb, `window.pausedOnMove ||= `+drawnJS+`.some(d => d.kind === "move" && d.from === 1) && (document.getElementById("play-button").click(), true)`)
		poll(t, tb, `document.body.dataset.sim === "paused"`)
		logItem(t, tb, "broker 1 fenced")
		check(t, tb, "killed", true, func(_, labels []shape) bool {
			for _, l := range labels {
				if strings.Contains(l.Text, "leader") && strings.Contains(l.Text, "→ broker") {
					return true
				}
			}
			return false
		})
		// Broker 1 started again and paused while it catches up: on a phone the catch-up's
		// caption is wider than the canvas, and is there whole (wrapped, or without its
		// "(dashed)" where the broker's news takes one of the band's two lines), not cut.
		press(t, tb, "1", "s", " ")
		poll(t, tb, `window.pausedOnFlows ||= Number(document.querySelector("canvas.traffic-layer").dataset.flows) > 0 && (document.getElementById("play-button").click(), true)`)
		poll(t, tb, `document.body.dataset.sim === "paused"`)
		drawnShapes(t, tb, 390, 844)
		labels := trafficLabels(t, tb)
		var captions []string
		for _, l := range labels {
			if l.Kind == "caption" {
				captions = append(captions, l.Text)
			}
		}
		assert.Regexp(t, `catch-up into broker 1: \S+ \S+ from \d leaders?`, strings.Join(captions, " "), "at 390 px the captions: %q", captions)
		assert.Empty(t, captionsCut(labels, eval[float64](t, tb, canvasLayoutW)), "at 390 px")
	})

	t.Run("traffic passes under the canvas's texts, clear of their letters", func(t *testing.T) {
		tb := open(t, bctx, url)
		setSpeed(t, tb, 100)
		// The controllers' fetches pulse on links that cross the summary line and the brokers'
		// headers; paused, the traffic layer's clock stands still and the pulses stay.
		poll(t, tb, `Number(document.querySelector("canvas.traffic-layer").dataset.pulses || 0) >= 4`)
		press(t, tb, " ")
		poll(t, tb, `document.body.dataset.sim === "paused"`)
		for _, size := range viewports {
			shapes := drawnShapes(t, tb, size.w, size.h)
			trafficLabels(t, tb)
			// The pulsing links cross no box (on a phone the controllers are in two rows).
			links, _ := trafficLinks(t, tb)
			assert.NotEmpty(t, links, "at %d px the controllers' links", size.w)
			assert.Empty(t, linksOverBoxes(links, actorBoxes(t, tb)), "at %d px", size.w)
			// Links from the controllers to the brokers cross the summary line under the
			// controllers: the plates have something to clear.
			assert.NotEmpty(t, linksThroughTexts(links, shapes), "at %d px links run through the summary", size.w)
			// The traffic layer's pixels on each text's and badge's plate (its box and a margin
			// round it, less a pixel for antialiasing; its own labels, placed clear of the texts'
			// boxes, left out), and in all: the layer must have drawn for the check to mean
			// anything. A line across a text's box, clipped to the box alone, would show in the
			// margin: over or under the letters, touching them.
			got := eval[map[string]any](t, tb, `(() => {
				const c = document.querySelector("canvas.traffic-layer");
				// Layout units to the layer's pixels, which are the canvas's (its CSS pixels × the ratio).
				const k = Number(c.dataset.scale) * Math.max(1, Math.min(3, devicePixelRatio));
				const g = c.getContext("2d");
				const labels = JSON.parse(c.dataset.labels || "[]").map(l => [l.x * k, l.y * k, (l.x + l.w) * k, (l.y + l.h) * k]);
				const inked = (x, y, w, h) => {
					x = Math.ceil(x) + 1; y = Math.ceil(y) + 1; w = Math.floor(w) - 2; h = Math.floor(h) - 2;
					if (w <= 0 || h <= 0) return 0;
					const d = g.getImageData(x, y, w, h).data;
					let n = 0;
					for (let i = 3; i < d.length; i += 4) {
						if (d[i] === 0) continue;
						const px = x + ((i >> 2) % w) + 0.5, py = y + Math.floor((i >> 2) / w) + 0.5;
						if (!labels.some(([x0, y0, x1, y1]) => px > x0 - 1 && px < x1 + 1 && py > y0 - 1 && py < y1 + 1)) n++;
					}
					return n;
				};
				const P = {x: `+fmt.Sprint(textPlate.x)+`, top: `+fmt.Sprint(textPlate.top)+`, bottom: `+fmt.Sprint(textPlate.bottom)+`};
				const struck = [];
				for (const r of JSON.parse(document.getElementById("cluster-canvas").dataset.texts)) {
					if (r.kind !== "text" && r.kind !== "badge") continue;
					const n = inked((r.x - P.x) * k, (r.y - P.top) * k, (r.w + 2 * P.x) * k, (r.h + P.top + P.bottom) * k);
					if (n) struck.push(r.text + ": " + n + " px");
				}
				return {struck, drawn: inked(0, 0, c.width, c.height)};
			})()`)
			assert.Empty(t, got["struck"], "at %d px traffic is drawn over these texts", size.w)
			assert.Greater(t, got["drawn"].(float64), 1000.0, "at %d px the traffic layer drew its links", size.w)
		}
	})

	// The talk's gate scene (broker 3 gated) in one page for the two checks below: a followed
	// partition's rings at the scene's end, then the balancer's rings at the next run. Taken
	// when the first needs it, after the page before is given back, so one tab serves both.
	var talk *tab
	whole := t
	talkTab := func(t *testing.T) *tab {
		if talk == nil {
			talk = newTabFor(t, whole, bctx)
		}
		return talk
	}
	t.Run("a followed partition's rings go around its replicas' cells, never over a cell", func(t *testing.T) {
		// Over every broker's replica grid and a few units around it, the traffic layer's pixels:
		// how many, and how many of them lie on a cell rather than the box's background.
		gridInk := `(() => {
			const c = document.querySelector("canvas.traffic-layer");
			const base = document.getElementById("cluster-canvas");
			if (c.width !== base.width || c.height !== base.height) return {mismatch: 1};
			const s = Number(c.dataset.scale);
			const k = s * Math.max(1, Math.min(3, devicePixelRatio));
			const texts = JSON.parse(base.dataset.texts);
			let ringed = 0, over = 0, grids = 0;
			for (const raw of base.dataset.brokerBoxes.split(";").filter(Boolean)) {
				const b = raw.split(":")[1].split(",").map(v => Number(v) / s);
				const grid = texts.find(r => r.kind === "cells" && r.x > b[0] && r.x < b[0] + b[2] && r.y > b[1] && r.y < b[1] + b[3]);
				if (!grid) continue;
				grids++;
				const x = Math.floor((grid.x - 5) * k), y = Math.floor((grid.y - 5) * k);
				const w = Math.ceil((grid.w + 10) * k), h = Math.ceil((grid.h + 10) * k);
				const ink = c.getContext("2d").getImageData(x, y, w, h).data;
				const under = base.getContext("2d").getImageData(x, y, w, h).data;
				const bg = base.getContext("2d").getImageData(Math.round((b[0] + 5) * k), Math.round((grid.y + 2) * k), 1, 1).data;
				for (let i = 0; i < ink.length; i += 4) {
					if (ink[i + 3] === 0) continue;
					ringed++;
					if (Math.abs(under[i] - bg[0]) + Math.abs(under[i + 1] - bg[1]) + Math.abs(under[i + 2] - bg[2]) > 24) over++;
				}
			}
			return {ringed, over, grids};
		})()`
		for _, scene := range []struct{ name, fragment string }{
			{"the playground (big cells)", ""},
			{"the talk's gate scene (small cells)", "#talk=kip-1358-in-ten-minutes&scene=3"},
		} {
			var tb *tab
			if scene.fragment == "" {
				tb = open(t, bctx, url)
				setSpeed(t, tb, 100)
			} else {
				tb = talkTab(t)
				gateScene(t, tb, url)
			}
			// Paused (a talk's scene may have paused it already): the traffic layer stands still.
			eval[bool](t, tb, `document.body.dataset.sim === "paused" || (document.getElementById("play-button").click(), true)`)
			poll(t, tb, `document.body.dataset.sim === "paused"`)
			for _, size := range viewports {
				// The traffic layer draws again as soon as the partition followed changes.
				setFollowed := func(p int) map[string]float64 {
					eval[bool](t, tb, fmt.Sprintf(`(document.dispatchEvent(new CustomEvent("kraftlab:follow", {detail: {partition: %d}})), true)`, p))
					trafficLabels(t, tb)
					return eval[map[string]float64](t, tb, gridInk)
				}
				drawnShapes(t, tb, size.w, size.h)
				without := setFollowed(-1)
				with := setFollowed(0)
				name := fmt.Sprintf("%s at %d px", scene.name, size.w)
				assert.Zero(t, with["mismatch"], "%s: the traffic layer has the canvas's pixels", name)
				require.NotZero(t, with["grids"], "%s: replica grids are drawn", name)
				assert.Greater(t, with["ringed"], without["ringed"]+20, "%s: partition 0's rings are drawn", name)
				if scene.fragment != "" && size.w == 390 {
					// A phone's talk draws 3-pixel cells here (device pixel ratio 1), too small
					// for a gap: a followed replica gets a square a cell's width out from it,
					// over its neighbours, by design.
					continue
				}
				assert.Zero(t, with["over"], "%s: pixels of the rings over replica cells", name)
			}
			if scene.fragment != "" {
				// The check below counts the run's rings alone.
				eval[bool](t, tb, `(document.dispatchEvent(new CustomEvent("kraftlab:follow", {detail: {partition: -1}})), true)`)
			} else {
				tb.close() // a tab left open goes on drawing frames
			}
		}
	})

	t.Run("the balancer's rings go around the gated broker's replicas, never over them", func(t *testing.T) {
		// The talk's gate scene: broker 3 gated, each electPreferred run withholds its 200
		// preferred partitions and rings them. Played on from the scene's end and paused on the
		// first run after it, the traffic layer's clock stands still and the rings stay.
		tb := talkTab(t)
		defer tb.close()
		gateScene(t, tb, url) // the check above left it there, paused, following no partition
		press(t, tb, " ")
		poll(t, tb, `window.pausedOnRun ||= `+drawnJS+`.some(d => d.kind === "run" && d.withheld > 0 && d.timeMs > 390000) && (document.getElementById("play-button").click(), true)`)
		poll(t, tb, `document.body.dataset.sim === "paused"`)
		for _, size := range viewports {
			drawnShapes(t, tb, size.w, size.h)
			labels := trafficLabels(t, tb)
			// The run's and the catch-up's captions, whole: on a phone they are wider than the
			// canvas and wrap onto a second line.
			captions := 0
			for _, l := range labels {
				if l.Kind == "caption" {
					captions++
				}
			}
			assert.NotZero(t, captions, "at %d px the captions: %+v", size.w, labels)
			assert.Empty(t, captionsCut(labels, eval[float64](t, tb, canvasLayoutW)), "at %d px", size.w)
			// Broker 3 catches up from the three other brokers' leaders: three arrows into it,
			// landing apart (at 800 px from the row above it, elsewhere along its row). Landing
			// off the boxes' centres by their distance alone, they were 10 units apart at 1440
			// px and 14 at 800.
			piled, most := catchUpPileUps(trafficFlows(t, tb), 20)
			assert.Empty(t, piled, "at %d px", size.w)
			assert.Equal(t, 3, most, "at %d px the catch-up flows into broker 3", size.w)
			// Over broker 3's replicas (cells or strips) and a few units around them: every
			// pixel the traffic layer drew there lies on the box's background, none on a replica.
			got := eval[map[string]float64](t, tb, `(() => {
				const c = document.querySelector("canvas.traffic-layer");
				const base = document.getElementById("cluster-canvas");
				if (c.width !== base.width || c.height !== base.height) return {mismatch: 1};
				const s = Number(c.dataset.scale);
				const k = s * Math.max(1, Math.min(3, devicePixelRatio));
				const b = base.dataset.brokerBoxes.split(";").find(x => x.startsWith("3:")).split(":")[1].split(",").map(v => Number(v) / s);
				const grid = JSON.parse(base.dataset.texts).find(r => r.kind === "cells" && r.x > b[0] && r.x < b[0] + b[2] && r.y > b[1] && r.y < b[1] + b[3]);
				if (!grid) return {noGrid: 1};
				const x = Math.floor((grid.x - 5) * k), y = Math.floor((grid.y - 5) * k);
				const w = Math.ceil((grid.w + 10) * k), h = Math.ceil((grid.h + 10) * k);
				const ink = c.getContext("2d").getImageData(x, y, w, h).data;
				const under = base.getContext("2d").getImageData(x, y, w, h).data;
				const bg = base.getContext("2d").getImageData(Math.round((b[0] + 5) * k), Math.round((grid.y + 2) * k), 1, 1).data;
				let ringed = 0, over = 0;
				for (let i = 0; i < ink.length; i += 4) {
					if (ink[i + 3] === 0) continue;
					ringed++;
					if (Math.abs(under[i] - bg[0]) + Math.abs(under[i + 1] - bg[1]) + Math.abs(under[i + 2] - bg[2]) > 24) over++;
				}
				return {ringed, over};
			})()`)
			assert.Zero(t, got["mismatch"], "the traffic layer has the canvas's pixels")
			// A phone's canvas in a talk too: it has the height the caption leaves.
			require.Zero(t, got["noGrid"], "at %d px broker 3's replicas are drawn", size.w)
			assert.Greater(t, got["ringed"], 50.0, "at %d px the run's rings are drawn", size.w)
			assert.Zero(t, got["over"], "at %d px pixels of the rings over broker 3's replicas", size.w)
		}
	})

	t.Run("the canvas's pixels fill its content box one for one, neither stretched nor squeezed", func(t *testing.T) {
		tb := open(t, bctx, url)
		press(t, tb, " ") // paused: only the resizes below draw
		poll(t, tb, `document.body.dataset.sim === "paused"`)
		for _, presenter := range []bool{false, true} {
			if presenter {
				press(t, tb, "p")
				poll(t, tb, `document.body.classList.contains("presenter")`)
			}
			for _, dpr := range []float64{1, 1.5, 2, 3} {
				// The smallest phones too (320 px: a canvas under 320 CSS px wide).
				for _, size := range append([]struct{ w, h int64 }{{320, 640}}, viewports...) {
					require.NoError(t, chromedp.Do(tb.ctx, chromedp.EmulateViewport(size.w, size.h, chromedp.EmulateScale(dpr))))
					nextFrames(t, tb)
					// The canvas's pixels over the device pixel ratio against its content box (the
					// bounding box less the border), in CSS pixels; the traffic layer's pixels are
					// the canvas's. A whole pixel's rounding is allowed, not the border's 2. The
					// log strip's likewise.
					got := eval[map[string]float64](t, tb, `(c => {
						const r = c.getBoundingClientRect(), s = getComputedStyle(c), layer = document.querySelector("canvas.traffic-layer");
						return {dw: c.width / devicePixelRatio - (r.width - parseFloat(s.borderLeftWidth) - parseFloat(s.borderRightWidth)),
							dh: c.height / devicePixelRatio - (r.height - parseFloat(s.borderTopWidth) - parseFloat(s.borderBottomWidth)),
							layer: Number(layer.width === c.width && layer.height === c.height), w: c.width, h: c.height};
					})(document.getElementById("cluster-canvas"))`)
					name := fmt.Sprintf("at %d px, device pixel ratio %.1f (presenter %v)", size.w, dpr, presenter)
					assert.True(t, math.Abs(got["dw"]) <= 1 && math.Abs(got["dh"]) <= 1, "%s: the canvas's pixels are its content box's, off by %+.2f × %+.2f CSS px (%v)", name, got["dw"], got["dh"], got)
					assert.Equal(t, 1.0, got["layer"], "%s: the traffic layer has the canvas's pixels", name)
					assert.InDelta(t, 0, logStripPixels(t, tb), 1, "%s: the log strip's pixels are its width times the ratio", name)
				}
			}
		}
		// The device pixel ratio alone changes, the window's size not (a window dragged to a
		// screen of another density): no resize, and still the canvases' pixels follow it,
		// the cluster canvas's, the traffic layer's and the log strip's, not blurred or wasted.
		// Chromium's emulated ratio does not make the page's media queries be evaluated again,
		// as a real screen's change does: a media feature the page does not use, set and
		// cleared, makes it.
		reevaluate := chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
			for _, features := range [][]*emulation.MediaFeature{{{Name: "prefers-contrast", Value: "more"}}, nil} {
				if _, err := cdp.Call(ctx, tg, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{Features: features}); err != nil {
					return err
				}
			}
			return nil
		})
		for _, dpr := range []float64{1, 2, 1.5} {
			require.NoError(t, chromedp.Do(tb.ctx, chromedp.EmulateViewport(800, 900, chromedp.EmulateScale(dpr)), reevaluate))
			nextFrames(t, tb)
			got := eval[map[string]float64](t, tb, `(() => {
				const c = document.getElementById("cluster-canvas"), layer = document.querySelector("canvas.traffic-layer");
				return {canvas: c.width - Math.round(c.clientWidth * devicePixelRatio), layer: Number(layer.width === c.width && layer.height === c.height),
					dpr: devicePixelRatio, w: c.width, cssW: c.clientWidth};
			})()`)
			name := fmt.Sprintf("at 800 px, device pixel ratio changed to %.1f alone", dpr)
			assert.InDelta(t, 0, got["canvas"], 1, "%s: the canvas's pixels are its width times the ratio: %v", name, got)
			assert.Equal(t, 1.0, got["layer"], "%s: the traffic layer has the canvas's pixels: %v", name, got)
			assert.InDelta(t, 0, logStripPixels(t, tb), 1, "%s: the log strip's pixels are its width times the ratio", name)
		}
	})

	t.Run("the log strip's labels keep clear of its markers", func(t *testing.T) {
		// A follower controller killed: for a moment its log end is a cell behind the others',
		// two markers side by side on the controllers' row (presenter mode at 1440 px showed a
		// label written over the neighbouring marker then), then further behind.
		tb := newTab(t, bctx)
		require.NoError(t, chromedp.Do(tb.ctx, chromedp.EmulateViewport(1440, 900),
			chromedp.Navigate(url+"/"+link("1", "0", `{"seed":1,"duration_ms":60000,"cluster":{"brokers":4,"topics":[{"name":"payments","partition_count":12,"replication_factor":3}]},"events":[{"at_ms":15000,"op":"kill_controller","controller":"3000"}]}`))))
		poll(t, tb, `document.getElementById("status").dataset.state === "ready"`)
		press(t, tb, "p")
		poll(t, tb, `document.body.classList.contains("presenter")`)
		// The strip is drawn while on screen; every drawing it records is kept.
		eval[bool](t, tb, `(c => (c.dataset.recordTexts = "1", c.scrollIntoView({block: "center", behavior: "instant"}),
			window.stripSeen = new Set(), window.stripTimer = setInterval(() => c.dataset.texts && window.stripSeen.add(c.dataset.texts), 5), true))(document.getElementById("log-strip"))`)
		// A link opens paused (once its first frame is drawn): played at 10× up to shortly before
		// the kill, then at 1×.
		poll(t, tb, `Number(document.getElementById("cluster-canvas").dataset.frames || 0) >= 1 && document.body.dataset.sim === "paused"`)
		setSpeed(t, tb, 10)
		eval[bool](t, tb, `document.getElementById("play-button").click(), true`)
		poll(t, tb, `document.body.dataset.sim === "playing"`)
		poll(t, tb, `Number(document.getElementById("cluster-canvas").dataset.timeMs) > 12000`)
		setSpeed(t, tb, 1)
		poll(t, tb, `Number(document.getElementById("cluster-canvas").dataset.timeMs) > 18000`)
		var seen []string
		require.NoError(t, json.Unmarshal([]byte(eval[string](t, tb, `(clearInterval(window.stripTimer), JSON.stringify([...window.stripSeen]))`)), &seen))
		require.NotEmpty(t, seen)
		adjacent := false
		for _, text := range seen {
			var drawn []shape
			require.NoError(t, json.Unmarshal([]byte(text), &drawn))
			assert.Empty(t, stripOverlaps(drawn), "the log strip as drawn: %s", text)
			for i, a := range drawn {
				for _, b := range drawn[i+1:] {
					if a.Kind == "marker" && b.Kind == "marker" && a.Y == b.Y && a.X != b.X && math.Abs(a.X-b.X) < 40 {
						adjacent = true
					}
				}
			}
		}
		assert.True(t, adjacent, "two markers of a row a cell apart were drawn at some moment (%d drawings)", len(seen))
		screenshot(t, tb, "log-strip-presenter-1440.png", chromedp.CSS("section.log-strip"))
	})

	t.Run("a small cluster's broker boxes are as tall as their cells need", func(t *testing.T) {
		// Lesson 1: three brokers, one partition, one cell each.
		tb := openLesson(t, bctx, url, "lesson=1&step=1")
		for _, size := range viewports {
			require.NoError(t, chromedp.Do(tb.ctx, chromedp.EmulateViewport(size.w, size.h)))
			nextFrames(t, tb)
			boxes := canvasBoxes(t, tb, "brokerBoxes")
			require.Len(t, boxes, 3)
			bottom := 0.0
			for id, b := range boxes {
				assert.Less(t, b.h, 150.0, "at %d px broker %s's box holds one cell: %+v", size.w, id, b)
				bottom = math.Max(bottom, b.y+b.h)
			}
			canvas := eval[map[string]float64](t, tb, `(r => ({top: r.top, bottom: r.bottom}))(document.getElementById("cluster-canvas").getBoundingClientRect())`)
			// Under the last row: the band the traffic layer's captions are written in.
			assert.InDelta(t, bottom+46, canvas["bottom"], 4, "at %d px the canvas ends under its last broker row", size.w)
		}
	})

	t.Run("on a phone every broker box shows its header and a row of numbered cells, the canvas taller than the screen if it must", func(t *testing.T) {
		// The playground's cluster: four brokers of nine replicas or so. A 320 px phone has
		// room for one column of boxes; squeezed into two thirds of its screen, they were
		// slivers without cells. In presenter mode as well: a speaker's phone or narrow
		// window showed three controller boxes stacked over four slivers of brokers.
		tb := open(t, bctx, url)
		press(t, tb, " ")
		poll(t, tb, `document.body.dataset.sim === "paused"`)
		for _, presenter := range []bool{false, true} {
			if presenter {
				press(t, tb, "p")
				poll(t, tb, `document.body.classList.contains("presenter")`)
			}
			for _, size := range []struct{ w, h int64 }{{320, 640}, {390, 844}} {
				name := fmt.Sprintf("at %d px (presenter %v)", size.w, presenter)
				shapes := drawnShapes(t, tb, size.w, size.h)
				grids := 0
				for _, s := range shapes {
					// A grid with a row of cells big enough for their numbers (layout.ts, LABEL_CELL).
					if s.Kind == "cells" && s.H >= 17 {
						grids++
					}
					assert.NotContains(t, s.Text, "not drawn", "%s a broker's cells are all drawn", name)
					assert.False(t, s.Squeezed, "%s %q is squeezed to fit", name, s.Text)
				}
				assert.Equal(t, 4, grids, "%s every broker's box has a row of numbered cells under its header", name)
				assert.Empty(t, overlaps(shapes), name)
				// The controllers: side by side in one row of compact boxes, apart, inside the
				// canvas, each saying who it is, its role and (running) its epoch in type at
				// least 12 CSS px tall.
				scale := eval[float64](t, tb, `Number(document.querySelector("canvas.traffic-layer").dataset.scale)`)
				canvasW := eval[float64](t, tb, canvasLayoutW)
				var cs []actorBox
				for _, b := range actorBoxes(t, tb) {
					if b.Kind == "controller" {
						cs = append(cs, b)
					}
				}
				require.Len(t, cs, 3, name)
				assert.Equal(t, 1, controllerRows(cs), "%s: the controllers in one row", name)
				for i, a := range cs {
					assert.True(t, a.X >= -0.5 && a.X+a.W <= canvasW+0.5, "%s: controller %d's box %+v inside the canvas's %.1f units", name, a.ID, a, canvasW)
					for _, b := range cs[i+1:] {
						apart := a.X+a.W <= b.X+0.5 || b.X+b.W <= a.X+0.5 || a.Y+a.H <= b.Y+0.5 || b.Y+b.H <= a.Y+0.5
						assert.True(t, apart, "%s: controllers %d and %d overlap: %+v %+v", name, a.ID, b.ID, a, b)
					}
					var texts []string
					for _, s := range shapes {
						if s.Kind == "text" && s.X >= a.X && s.X+s.W <= a.X+a.W+0.5 && s.Y >= a.Y-0.5 && s.Y+s.H <= a.Y+a.H+0.5 {
							texts = append(texts, s.Text)
							assert.GreaterOrEqual(t, s.H*scale, 12.0, "%s: controller %d's %q is %.1f CSS px", name, a.ID, s.Text, s.H*scale)
						}
					}
					assert.Contains(t, texts, fmt.Sprint(a.ID), "%s: controller %d's box names it: %q", name, a.ID, texts)
				}
				active := eval[string](t, tb, `document.getElementById("cluster-canvas").dataset.activeController`)
				if texts := shapesIn(shapes, cs, active); assert.Len(t, texts, 3, "%s: the active controller's box: %q", name, texts) {
					assert.Equal(t, "ACTIVE", texts[1], "%s: the active controller's box says so", name)
					assert.Regexp(t, `^epoch \d+$`, texts[2], "%s: and gives its epoch", name)
				}
				eval[bool](t, tb, `document.getElementById("cluster-canvas").scrollIntoView({block: "start", behavior: "instant"}), true`)
				nextFrames(t, tb)
				if presenter {
					screenshot(t, tb, fmt.Sprintf("canvas-layout-phone-%d-presenter.png", size.w), "")
				} else {
					screenshot(t, tb, fmt.Sprintf("canvas-layout-phone-%d.png", size.w), "")
				}
			}
		}
	})

	t.Run("on a phone the start card does not push the canvas down, and its kill shows what follows", func(t *testing.T) {
		tb := openFirstVisit(t, bctx, url, 390, 844)
		poll(t, tb, `!document.getElementById("welcome").hidden`)
		poll(t, tb, `Number(document.getElementById("cluster-canvas").dataset.frames || 0) >= 2`)
		canvasTop := `document.getElementById("cluster-canvas").getBoundingClientRect().top + scrollY`
		// Paused, so that nothing else moves the canvas between the two measures.
		press(t, tb, " ")
		poll(t, tb, `document.body.dataset.sim === "paused"`)
		nextFrames(t, tb)
		withCard := eval[float64](t, tb, canvasTop)
		card := eval[map[string]float64](t, tb, `(r => ({top: r.top, bottom: r.bottom}))(document.getElementById("welcome").getBoundingClientRect())`)
		assert.LessOrEqual(t, card["bottom"], 844.0, "the card is on screen: %v", card)
		screenshot(t, tb, "welcome-390.png", "")
		eval[bool](t, tb, `document.getElementById("welcome").hidden = true, true`)
		nextFrames(t, tb)
		assert.Equal(t, eval[float64](t, tb, canvasTop), withCard, "the card takes no room above the canvas")
		eval[bool](t, tb, `document.getElementById("welcome").hidden = false, true`)

		// Kill from the card: the canvas comes up, with the newest events under it.
		require.NoError(t, chromedp.Do(tb.ctx, chromedp.Click(chromedp.CSS("#welcome-kill"))))
		logItem(t, tb, "you killed broker")
		nextFrames(t, tb)
		seen := eval[map[string]float64](t, tb, `(() => { const c = document.getElementById("cluster-canvas").getBoundingClientRect(),
			li = document.querySelector("#latest-events li:last-child").getBoundingClientRect();
			return {canvasTop: c.top, canvasBottom: c.bottom, eventTop: li.top, eventBottom: li.bottom, h: innerHeight}; })()`)
		assert.True(t, seen["canvasTop"] >= -1 && seen["canvasBottom"] <= seen["h"] && seen["eventBottom"] <= seen["h"] && seen["eventTop"] >= 0,
			"the canvas and the newest event are on screen together: %v", seen)
		screenshot(t, tb, "welcome-390-killed.png", "")
	})
}

// logStripPixels scrolls the log strip into view, which sizes and draws it (out of view it is
// neither), and returns its backing store's width less its CSS width times the device pixel
// ratio: 0 when its pixels are the screen's.
func logStripPixels(t *testing.T, tb *tab) float64 {
	t.Helper()
	eval[bool](t, tb, `(document.getElementById("log-strip").scrollIntoView({block: "center", behavior: "instant"}), true)`)
	nextFrames(t, tb)
	return eval[float64](t, tb, `(log => log.width - Math.round(log.clientWidth * devicePixelRatio))(document.getElementById("log-strip"))`)
}
