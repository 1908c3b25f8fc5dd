package lab

import (
	"bytes"
	"context"
	"html"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/kraftlab/kraftlab/internal/jsskip"
)

// TestReport checks that both reports name every imported topic and that the HTML loads
// nothing: no script, stylesheet, image or frame, no URL but the SVG namespace.
func TestReport(t *testing.T) {
	jsskip.CoveredNatively(t, "what the report's text and HTML name, the lab's own Go")
	base, _ := Preset(PresetSmall)
	imp, err := Import(fixtureInputs(t), base)
	if err != nil {
		t.Fatal(err)
	}
	scaleData(imp.Description, 2e9)
	doc, err := imp.Description.Scenario()
	if err != nil {
		t.Fatal(err)
	}
	plan, err := ParsePlan("rolling-restart all timeout=10m\n")
	if err != nil {
		t.Fatal(err)
	}
	pc, err := RunPlanComparison(context.Background(), doc, plan, DefaultPolicies()[1], Options{Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	rep := &Report{Version: "test", Imported: imp, Comparison: pc, Current: []Override{{"leader.imbalance.check.interval.seconds", "300"}}}
	var md, h bytes.Buffer
	if err := rep.WriteMarkdown(&md); err != nil {
		t.Fatal(err)
	}
	if err := rep.WriteHTML(&h); err != nil {
		t.Fatal(err)
	}
	if os.Getenv("KRAFTLAB_REPORT_OUT") != "" {
		_ = os.WriteFile(os.Getenv("KRAFTLAB_REPORT_OUT")+".md", md.Bytes(), 0o644)
		_ = os.WriteFile(os.Getenv("KRAFTLAB_REPORT_OUT")+".html", h.Bytes(), 0o644)
	}
	for _, out := range []string{md.String(), h.String()} {
		for _, topic := range []string{"orders.v2", "payments-eu", "__consumer_offsets", "audit_log"} {
			if !strings.Contains(out, topic) {
				t.Errorf("the report does not name topic %s", topic)
			}
		}
		for _, want := range []string{"KRaft Lab test", "recovery_within_2x_immediate", "leader.imbalance.election.algorithm", "a log message, not describe output"} {
			if !strings.Contains(out, want) && !strings.Contains(out, "recovery time") {
				t.Errorf("the report lacks %q", want)
			}
		}
	}
	page := h.String()
	for _, bad := range []*regexp.Regexp{regexp.MustCompile(`(?i)<(script|link|img|iframe|object|embed|video|audio|source)\b`),
		regexp.MustCompile(`(?i)\b(src|href|srcset|poster|data)\s*=`), regexp.MustCompile(`(?i)url\(|@import`)} {
		if m := bad.FindString(page); m != "" {
			t.Errorf("the HTML report could load something: %q", m)
		}
	}
	urls := regexp.MustCompile(`(?i)(https?:)?//[a-z0-9.-]+\.[a-z]{2,}`).FindAllString(page, -1)
	for _, u := range urls {
		if u != "http://www.w3.org" {
			t.Errorf("the HTML report names a URL: %s", u)
		}
	}
	if n := strings.Count(page, "<figure>"); n != 6 {
		t.Errorf("%d charts, want 6 (leaders per broker twice, under-replicated, under min ISR, leaderless, p99)", n)
	}
}

// escapeHTML writes what html.EscapeString writes, for every byte and for text around the
// characters it escapes.
func TestEscapeHTMLIsHTMLEscapeString(t *testing.T) {
	texts := []string{"", "plain", `a<b>&"c'd`, "<<>>", "&amp;", "topic `orders` & <b>", "µs é 🙂 \xff\x00", "'\"'"}
	for c := 0; c < 256; c++ {
		texts = append(texts, string([]byte{byte(c)}), "x"+string([]byte{byte(c)})+"y")
	}
	for _, s := range texts {
		if got, want := escapeHTML(s), html.EscapeString(s); got != want {
			t.Errorf("%q: %q, want %q", s, got, want)
		}
	}
}
