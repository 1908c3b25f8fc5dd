package lessons

import (
	"regexp"
	"strings"
	"testing"
)

// The model's figures are marked the same way in every lesson and talk (docs/lessons.md,
// "Figures from the model"). TestModelFiguresAreMarked finds the unmarked ones mechanically:
// in every sentence a learner or a room reads (introductions, step texts, tasks, hints,
// prediction questions, options and reveals, captions) that speaks of what the model assumes
// rather than what Kafka's code or defaults fix (log recovery and loading, catch-up and
// copying, replication lag, latency, the workload's rates), every number with a unit must be
// inside a {model: ...} mark, or be one of the reviewed exceptions below, each with the
// reason it is not the model's.

// modelTopicRE matches a sentence about the model's assumptions.
var modelTopicRE = regexp.MustCompile(`(?i)(recover|log load|loads? (its|the) log|loading|catch(es|ing)? up|caught up|\bcop(y|ies|ying|ied)\b|backlog|process start|latenc|\bp99\b|\btrail|\blag\b|in this model|the model's|skew|heartbeat went|takes over|after the start|records lost|are lost|lost for good|\bunfenced\b.*\bafter\b)`)

// figureRE matches a number with a unit of time, size, rate or records.
var figureRE = regexp.MustCompile(`(?i)(\d[\d,.]*\s*(ms|s|min|minutes?|seconds?|hours?|MB/s|MB|GB|TB|kB|records)\b|\b(an|a|one|two|three|four|five|ten|several|a few) (seconds?|minutes?|hours?)\b|\ba second or two\b)`)

// modelMarkRE is a marked figure; codeRE a code span (config names and values are Kafka's).
var (
	modelMarkRE = regexp.MustCompile(`\{model:[^}]*\}`)
	codeRE      = regexp.MustCompile("`[^`]*`")
	sentenceRE  = regexp.MustCompile(`[.;!?]\s+|\n\s*\n`)
)

// notModelFigures are sentences (a distinctive part of each) whose figures were reviewed and
// are not the model's: Kafka's configs and defaults, the scenario's own settings, or what the
// lesson's cluster is set up with.
var notModelFigures = map[string]string{
	"start it 100 s later":  "the wait the step asks the learner for",
	"comes at 600 s":        "the periodic run's schedule: leader.imbalance.check.interval.seconds",
	"the run 10 ms later":   "Kafka's rescheduling of a run that reached its cap",
	"10 minutes of produce": "the scenario's local_retention_sec",
	"30 s apart":            "leader.imbalance.check.interval.seconds in the scenario",
}

// readText is every piece of text of a lesson or talk a person reads, with where it is.
func readText(l *Lesson) map[string]string {
	out := map[string]string{l.File + " introduction": l.Intro}
	for _, s := range l.Steps {
		at := l.File + " step " + s.Title
		parts := []string{s.Text, s.Task, s.Caption}
		parts = append(parts, s.Hints...)
		if q := s.Predict; q != nil {
			parts = append(parts, q.Question, q.Reveal)
			for _, o := range q.Options {
				parts = append(parts, o.Label)
			}
		}
		out[at] = strings.Join(parts, "\n\n")
	}
	return out
}

// unmarkedModelFigures returns the sentences of text that speak of the model's assumptions and
// quote a figure outside a {model: } mark.
func unmarkedModelFigures(text string) []string {
	var out []string
	for _, sentence := range sentenceRE.Split(text, -1) {
		plain := strings.Join(strings.Fields(codeRE.ReplaceAllString(modelMarkRE.ReplaceAllString(sentence, ""), "")), " ")
		if !modelTopicRE.MatchString(plain) || !figureRE.MatchString(plain) {
			continue
		}
		for k := range notModelFigures {
			plain = strings.ReplaceAll(plain, k, "")
		}
		if figureRE.MatchString(plain) {
			out = append(out, strings.Join(strings.Fields(sentence), " "))
		}
	}
	return out
}

func TestModelFiguresAreMarked(t *testing.T) {
	course, err := Course()
	if err != nil {
		t.Fatal(err)
	}
	talks, err := Talks()
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range append(course, talks...) {
		for at, text := range readText(l) {
			for _, s := range unmarkedModelFigures(text) {
				t.Errorf("%s: a figure of the model's assumptions without a {model: } mark: %q", at, s)
			}
		}
	}
}

// TestUnmarkedModelFigures: the audit's rule on its own, and every reviewed exception still
// names a sentence of the course (a stale one would hide nothing, silently).
func TestUnmarkedModelFigures(t *testing.T) {
	for text, want := range map[string]int{
		"It recovers its logs in 120 s.":                        1,
		"It recovers its logs in {model: 120 s}.":               0,
		"Log recovery after a hard stop takes a second or two.": 1,
		"The fence comes 9 s after the last heartbeat.":         0, // Kafka's session timeout: not a model topic
		"It copies `10 MB` of data. Then 5 s pass.":             0, // code is Kafka's; the figure is in another sentence
		"Broker 2 copies 10 minutes of produce.":                0, // a reviewed exception
	} {
		if got := unmarkedModelFigures(text); len(got) != want {
			t.Errorf("%q: %d unmarked figures %q, want %d", text, len(got), got, want)
		}
	}
	course, err := Course()
	if err != nil {
		t.Fatal(err)
	}
	talks, err := Talks()
	if err != nil {
		t.Fatal(err)
	}
	for k := range notModelFigures {
		found := false
		for _, l := range append(course, talks...) {
			for _, text := range readText(l) {
				found = found || strings.Contains(strings.Join(strings.Fields(text), " "), k)
			}
		}
		if !found {
			t.Errorf("notModelFigures: %q is in no lesson or talk any more; remove it", k)
		}
	}
}
