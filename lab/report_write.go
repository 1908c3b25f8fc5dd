package lab

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

// WriteMarkdown writes the report as Markdown; a timeline is a sparkline per series.
func (r *Report) WriteMarkdown(w io.Writer) error {
	var b strings.Builder
	for _, bl := range r.blocks() {
		switch bl.kind {
		case "h1":
			b.WriteString("# " + bl.text + "\n\n")
		case "h2":
			b.WriteString("## " + bl.text + "\n\n")
		case "p":
			b.WriteString(bl.text + "\n\n")
		case "list":
			for _, it := range bl.items {
				b.WriteString("- " + it + "\n")
			}
			b.WriteString("\n")
		case "code":
			b.WriteString("```\n" + bl.text + "\n```\n\n")
		case "table":
			b.WriteString("| " + strings.Join(mdCells(bl.header), " | ") + " |\n|" + strings.Repeat("---|", len(bl.header)) + "\n")
			for _, row := range bl.rows {
				b.WriteString("| " + strings.Join(mdCells(row), " | ") + " |\n")
			}
			b.WriteString("\n")
		case "chart":
			c := bl.chart
			fmt.Fprintf(&b, "**%s** (%s; %s to %s, one column per %s):\n\n```\n", c.title, c.unit, clock(first(c.timeMs)), clock(last(c.timeMs)), msText(sparkStep(c.timeMs)))
			width := 0
			for _, s := range c.series {
				width = max(width, len(s.name))
			}
			for _, s := range c.series {
				lo, hi := minMax(s.values)
				fmt.Fprintf(&b, "%-*s %s  %s … %s\n", width, s.name, sparkline(s.values), figure(lo), figure(hi))
			}
			b.WriteString("```\n\n")
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// mdCells escapes table cells: a pipe would end the cell.
func mdCells(cells []string) []string {
	out := make([]string, len(cells))
	for i, c := range cells {
		out[i] = strings.ReplaceAll(strings.ReplaceAll(c, "|", `\|`), "\n", " ")
	}
	return out
}

// sparkColumns is a sparkline's width.
const sparkColumns = 72

func sparkStep(t []int64) int64 {
	if len(t) < 2 {
		return SampleMs
	}
	return max(SampleMs, (last(t)-first(t))/sparkColumns)
}

// sparkline draws values in at most sparkColumns columns, each the largest value of its
// samples (a spike stays visible), on eight levels from 0 to the series' maximum.
func sparkline(v []float64) string {
	levels := []rune("▁▂▃▄▅▆▇█")
	n := min(len(v), sparkColumns)
	if n == 0 {
		return ""
	}
	_, hi := minMax(v)
	var b strings.Builder
	for c := range n {
		from, to := c*len(v)/n, (c+1)*len(v)/n
		m := v[from]
		for _, x := range v[from:to] {
			m = max(m, x)
		}
		i := 0
		if hi > 0 && m > 0 {
			i = min(len(levels)-1, int(math.Ceil(m/hi*float64(len(levels)-1))))
		}
		b.WriteRune(levels[i])
	}
	return b.String()
}

func minMax(v []float64) (lo, hi float64) {
	if len(v) == 0 {
		return 0, 0
	}
	lo, hi = v[0], v[0]
	for _, x := range v {
		lo, hi = min(lo, x), max(hi, x)
	}
	return lo, hi
}

func first(t []int64) int64 {
	if len(t) == 0 {
		return 0
	}
	return t[0]
}

func last(t []int64) int64 {
	if len(t) == 0 {
		return 0
	}
	return t[len(t)-1]
}

// reportCSS is the HTML report's only style: inline, so the file needs nothing else.
const reportCSS = `body{font:15px/1.5 system-ui,-apple-system,"Segoe UI",sans-serif;color:#1b1f24;max-width:1100px;margin:2rem auto;padding:0 1rem}
h1{font-size:1.6rem;line-height:1.25}h2{font-size:1.25rem;margin-top:2rem;border-bottom:1px solid #d0d7de;padding-bottom:.2rem}
table{border-collapse:collapse;margin:.5rem 0 1rem;font-size:.9rem;display:block;overflow-x:auto}
th,td{border:1px solid #d0d7de;padding:.3rem .5rem;text-align:left;vertical-align:top}th{background:#f3f5f7}
li,td,p{overflow-wrap:anywhere}pre{background:#f3f5f7;padding:.6rem;overflow-x:auto}figure{margin:1rem 0;overflow-x:auto}figcaption{font-weight:600;margin-bottom:.3rem}
figure>svg{width:100%;min-width:720px;height:auto;font:13px system-ui,sans-serif}.legend{font-size:.85rem;display:flex;flex-wrap:wrap;gap:.2rem 1rem}
@media print{body{margin:0;max-width:none}}`

// palette colours series; leaders per broker cycle through it.
var palette = []string{"#0969da", "#cf222e", "#1a7f37", "#8250df", "#bf8700", "#1b7c83", "#e16f24", "#57606a", "#bf3989", "#0550ae"}

// WriteHTML writes the report as one self-contained HTML file: inline CSS, charts as inline
// SVG, no script and nothing loaded from anywhere.
func (r *Report) WriteHTML(w io.Writer) error {
	var b strings.Builder
	e := escapeHTML
	bs := r.blocks()
	b.WriteString("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n")
	fmt.Fprintf(&b, "<title>%s</title>\n<style>\n%s\n</style>\n</head>\n<body>\n", e(bs[0].text), reportCSS)
	for _, bl := range bs {
		switch bl.kind {
		case "h1", "h2":
			fmt.Fprintf(&b, "<%s>%s</%s>\n", bl.kind, e(bl.text), bl.kind)
		case "p":
			fmt.Fprintf(&b, "<p>%s</p>\n", inlineCode(e(bl.text)))
		case "list":
			b.WriteString("<ul>\n")
			for _, it := range bl.items {
				fmt.Fprintf(&b, "<li>%s</li>\n", e(it))
			}
			b.WriteString("</ul>\n")
		case "code":
			fmt.Fprintf(&b, "<pre>%s</pre>\n", e(bl.text))
		case "table":
			b.WriteString("<table>\n<thead><tr>")
			for _, h := range bl.header {
				fmt.Fprintf(&b, "<th>%s</th>", e(h))
			}
			b.WriteString("</tr></thead>\n<tbody>\n")
			for _, row := range bl.rows {
				b.WriteString("<tr>")
				for _, c := range row {
					fmt.Fprintf(&b, "<td>%s</td>", e(c))
				}
				b.WriteString("</tr>\n")
			}
			b.WriteString("</tbody>\n</table>\n")
		case "chart":
			writeSVGChart(&b, bl.chart)
		}
	}
	b.WriteString("</body>\n</html>\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// escapeHTML escapes text for HTML as html.EscapeString does: the same five characters, the
// same entities (TestEscapeHTMLIsHTMLEscapeString). It is written out because importing html
// links its package initialisation: the escaper, a strings.Replacer, and the unescaper's table
// of 2,000-odd entity names. That cost rehearse.wasm about 22 KB brotli (108 KB raw) and
// lab.wasm 16 KB, near their 1 MB budgets (docs/performance.md, "The edit loop").
func escapeHTML(s string) string {
	if !strings.ContainsAny(s, `&'<>"`) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '&':
			b.WriteString("&amp;")
		case '\'':
			b.WriteString("&#39;")
		case '<':
			b.WriteString("&lt;")
		case '>':
			b.WriteString("&gt;")
		case '"':
			b.WriteString("&#34;")
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// inlineCode turns `x` into <code>x</code> in escaped text.
func inlineCode(s string) string {
	parts := strings.Split(s, "`")
	if len(parts)%2 == 0 {
		return s
	}
	var b strings.Builder
	for i, p := range parts {
		if i%2 == 1 {
			b.WriteString("<code>" + p + "</code>")
		} else {
			b.WriteString(p)
		}
	}
	return b.String()
}

// writeSVGChart draws a timeline as an inline SVG line chart: time across (h:mm), the value up,
// the plan's broker starts as ticks along the top.
func writeSVGChart(b *strings.Builder, c *chart) {
	const width, height, left, right, top, bottom = 960.0, 260.0, 56.0, 12.0, 14.0, 28.0
	e := escapeHTML
	t0, t1 := first(c.timeMs), last(c.timeMs)
	if t1 <= t0 {
		t1 = t0 + 1
	}
	hi := 0.0
	for _, s := range c.series {
		_, h := minMax(s.values)
		hi = max(hi, h)
	}
	hi = niceCeil(hi)
	x := func(ms int64) float64 { return left + (width-left-right)*float64(ms-t0)/float64(t1-t0) }
	y := func(v float64) float64 { return top + (height-top-bottom)*(1-v/hi) }
	fmt.Fprintf(b, "<figure>\n<figcaption>%s (%s)</figcaption>\n", e(c.title), e(c.unit))
	fmt.Fprintf(b, "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 %g %g\" role=\"img\" aria-label=\"%s\">\n", width, height, e(c.title))
	for i := 0; i <= 4; i++ {
		v := hi * float64(i) / 4
		fmt.Fprintf(b, "<line x1=\"%g\" x2=\"%g\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#d0d7de\"/><text x=\"%g\" y=\"%.1f\" text-anchor=\"end\" fill=\"#57606a\">%s</text>\n",
			left, width-right, y(v), y(v), left-4, y(v)+4, figure(v))
	}
	ticks := 6
	for i := 0; i <= ticks; i++ {
		ms := t0 + (t1-t0)*int64(i)/int64(ticks)
		anchor := "middle" // the first and last labels stay inside the chart
		if i == 0 {
			anchor = "start"
		} else if i == ticks {
			anchor = "end"
		}
		fmt.Fprintf(b, "<text x=\"%.1f\" y=\"%g\" text-anchor=\"%s\" fill=\"#57606a\">%s</text>\n", x(ms), height-8, anchor, clock(ms)[:len(clock(ms))-3])
	}
	for _, m := range c.marks {
		if m >= t0 && m <= t1 {
			fmt.Fprintf(b, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%g\" y2=\"%g\" stroke=\"#57606a\"/>\n", x(m), x(m), top-8, top)
		}
	}
	for i, s := range c.series {
		var pts strings.Builder
		for k, v := range s.values {
			if k >= len(c.timeMs) {
				break
			}
			fmt.Fprintf(&pts, "%.1f,%.1f ", x(c.timeMs[k]), y(max(v, 0)))
		}
		// The second of two series (the candidate) is dashed: where the configs agree, both
		// lines stay visible.
		dash := ""
		if len(c.series) == 2 && i == 1 {
			dash = ` stroke-dasharray="6 4"`
		}
		fmt.Fprintf(b, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"1.5\"%s points=\"%s\"><title>%s</title></polyline>\n",
			palette[i%len(palette)], dash, strings.TrimSpace(pts.String()), e(s.name))
	}
	b.WriteString("</svg>\n<div class=\"legend\">")
	for i, s := range c.series {
		lo, h := minMax(s.values)
		// The swatch is an SVG rect, not a styled element: a page whose Content-Security-Policy
		// refuses inline styles (the lab page, showing this report) still colours it.
		fmt.Fprintf(b, "<span><svg width=\"14\" height=\"6\" aria-hidden=\"true\"><rect width=\"14\" height=\"4\" y=\"1\" fill=\"%s\"/></svg> %s (%s … %s)</span>",
			palette[i%len(palette)], e(s.name), figure(lo), figure(h))
	}
	b.WriteString("</div>\n</figure>\n")
}

// niceCeil rounds a chart's maximum up to 1, 2 or 5 times a power of ten (1 for an empty chart).
func niceCeil(v float64) float64 {
	if v <= 0 {
		return 1
	}
	p := math.Pow(10, math.Floor(math.Log10(v)))
	for _, m := range []float64{1, 2, 5, 10} {
		if v <= m*p {
			return m * p
		}
	}
	return 10 * p
}

// figure writes a chart value for people: whole numbers with thousands separators (30,010),
// others to three significant digits (0.75, 10.4).
func figure(v float64) string {
	if v == math.Trunc(v) || math.Abs(v) >= 1000 {
		n := int64(math.Round(v))
		neg := n < 0
		if neg {
			n = -n
		}
		digits := strconv.FormatInt(n, 10)
		var b strings.Builder
		if neg {
			b.WriteByte('-')
		}
		for i, c := range digits {
			if i > 0 && (len(digits)-i)%3 == 0 {
				b.WriteByte(',')
			}
			b.WriteRune(c)
		}
		return b.String()
	}
	return strconv.FormatFloat(v, 'g', 3, 64)
}
