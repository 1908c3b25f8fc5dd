package scenario

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"strings"
)

// Comparison is one cluster-mode scenario run twice with the same seed, the runs differing
// only in their settings: the CLI's compare.
type Comparison struct {
	Description string
	Seed        uint64
	// Both are the settings the two runs share (compare's --set).
	Both []Setting
	A, B ComparedRun
}

// ComparedRun is one side of a comparison.
type ComparedRun struct {
	Settings  []Setting
	Summary   SummaryResult
	Violation string
}

// Compare parses the scenario twice, with the shared settings and then each side's, runs both
// and returns their summaries. Only a cluster-mode scenario has a summary to compare.
func Compare(data []byte, both, a, b []Setting) (*Comparison, error) {
	cmp := &Comparison{Both: both}
	for i, side := range []*ComparedRun{&cmp.A, &cmp.B} {
		own := [][]Setting{a, b}[i]
		s, err := Parse(data, append(append([]Setting(nil), both...), own...)...)
		if err != nil {
			return nil, err
		}
		if s.Mode != ModeCluster {
			return nil, &Error{Path: "mode", Msg: `compare needs a cluster-mode scenario (a controller-mode run has no summary to compare)`}
		}
		res, err := Run(s)
		if err != nil {
			return nil, err
		}
		cmp.Description, cmp.Seed = s.Description, s.Seed
		*side = ComparedRun{Settings: own, Summary: res.Cluster.Summary, Violation: res.Cluster.Violation}
	}
	return cmp, nil
}

// Ratio is b's figure over a's, or false where it means nothing: a is 0, or either moment
// never came.
func (c *Comparison) Ratio(name string) (float64, bool) {
	fa, okA := c.A.Summary.Get(name)
	fb, okB := c.B.Summary.Get(name)
	if !okA || !okB || fa.Value == 0 || (fa.Time && (fa.Value < 0 || fb.Value < 0)) ||
		math.IsNaN(fa.Value) || math.IsNaN(fb.Value) {
		return 0, false
	}
	return fb.Value / fa.Value, true
}

// WriteJSON writes the comparison: the shared settings, each side's settings, summary and
// violation (if any), then the ratios b/a (null where they mean nothing).
func (c *Comparison) WriteJSON(w io.Writer) error {
	var b bytes.Buffer
	b.WriteString("{\n")
	if c.Description != "" {
		b.WriteString(`  "description": `)
		writeString(&b, c.Description)
		b.WriteString(",\n")
	}
	fmt.Fprintf(&b, "  \"seed\": %d,\n  \"set\": %s,\n", c.Seed, settingsJSON(c.Both))
	for i, side := range []*ComparedRun{&c.A, &c.B} {
		fmt.Fprintf(&b, "  %q: {\n    \"settings\": %s,\n    \"summary\": ", []string{"a", "b"}[i], settingsJSON(side.Settings))
		side.Summary.writeExpanded(&b, "    ", nil)
		if side.Violation != "" {
			b.WriteString(",\n    \"violation\": ")
			writeString(&b, side.Violation)
		}
		b.WriteString("\n  },\n")
	}
	b.WriteString(`  "ratio": `)
	c.A.Summary.writeExpanded(&b, "  ", func(f SummaryField) string {
		if r, ok := c.Ratio(f.Name); ok {
			return formatRatio(r)
		}
		return "null"
	})
	b.WriteString("\n}\n")
	_, err := w.Write(b.Bytes())
	return err
}

// settingsJSON writes settings as one object, in the order given.
func settingsJSON(settings []Setting) string {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, s := range settings {
		if i > 0 {
			b.WriteByte(',')
		}
		writeString(&b, s.Name)
		b.WriteByte(':')
		writeString(&b, s.Value)
	}
	b.WriteByte('}')
	return b.String()
}

// formatRatio writes a ratio with three decimals.
func formatRatio(r float64) string { return fmt.Sprintf("%.3f", r) }

// WriteText writes the two summaries side by side, with b/a, for people.
func (c *Comparison) WriteText(w io.Writer) error {
	var b bytes.Buffer
	if c.Description != "" {
		b.WriteString("# " + strings.ReplaceAll(c.Description, "\n", "\n# ") + "\n")
	}
	fmt.Fprintf(&b, "seed %d\n", c.Seed)
	line := func(label string, settings []Setting) {
		names := make([]string, len(settings))
		for i, s := range settings {
			names[i] = s.String()
		}
		text := strings.Join(names, " ")
		if text == "" {
			text = "(the file as it is)"
		}
		fmt.Fprintf(&b, "%-5s %s\n", label+":", text)
	}
	if len(c.Both) > 0 {
		line("both", c.Both)
	}
	line("a", c.A.Settings)
	line("b", c.B.Settings)
	width := 0
	for _, f := range c.A.Summary.Fields {
		width = max(width, len(f.Name))
	}
	fmt.Fprintf(&b, "\n%-*s %14s %14s %9s\n", width, "", "a", "b", "b/a")
	for i, fa := range c.A.Summary.Fields {
		fb := c.B.Summary.Fields[i]
		ratio := "-"
		if r, ok := c.Ratio(fa.Name); ok {
			ratio = formatRatio(r)
		}
		fmt.Fprintf(&b, "%-*s %14s %14s %9s\n", width, fa.Name, fa.text(), fb.text(), ratio)
	}
	for i, side := range []*ComparedRun{&c.A, &c.B} {
		if side.Violation != "" {
			fmt.Fprintf(&b, "%s stopped: %s\n", []string{"a", "b"}[i], side.Violation)
		}
	}
	_, err := w.Write(b.Bytes())
	return err
}
