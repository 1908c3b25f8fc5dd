package lessons

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/kraftlab/kraftlab/cluster/scenario"
)

// maxLessonBytes bounds a lesson file; a lesson is a page of text, not a data set.
const maxLessonBytes = 1 << 20

// Opener reads a file a lesson refers to (a scenario next to it), by a path relative to the
// lesson's directory. Nil means the lesson may not refer to files.
type Opener func(name string) ([]byte, error)

// Parse reads and validates a lesson. file names it in errors (and its base name is the
// lesson's ID); open reads a scenario the header refers to. Every problem is an *Error with
// the file and line.
func Parse(file string, data []byte, open Opener) (*Lesson, error) {
	return parse(file, data, open, false)
}

func parse(file string, data []byte, open Opener, talk bool) (*Lesson, error) {
	l := &Lesson{File: file, ID: strings.TrimSuffix(path.Base(file), path.Ext(file)), Talk: talk}
	p := &lessonParser{l: l, lines: strings.Split(strings.ReplaceAll(string(data), "\r\n", "\n"), "\n")}
	if len(data) > maxLessonBytes {
		return nil, p.errf(0, "the file is %d bytes; a lesson may have at most %d", len(data), maxLessonBytes)
	}
	if err := p.parse(open); err != nil {
		return nil, err
	}
	if err := validateTalk(l, p); err != nil {
		return nil, err
	}
	return l, nil
}

type lessonParser struct {
	l     *Lesson
	lines []string
	// scenarioLine is the line of the scenario's first JSON line (or of the header's
	// scenario: entry when it names a file), to place scenario errors.
	scenarioLine int
	// scenarioInline is set when the scenario is a fenced block in the file.
	scenarioInline bool
	startMsSet     bool
}

func (p *lessonParser) errf(line int, format string, args ...any) *Error {
	return &Error{File: p.l.File, Line: line, Msg: fmt.Sprintf(format, args...)}
}

// linkRE is a links: entry, "- [Title](https://...)" and optional trailing whitespace.
var linkRE = &lazyRegexp{expr: `^- \[([^\]]+)\]\((https?://[^ )]+)\)\s*$`}

// parseLink reads a links: entry: the title runs to the first ']' and the URL, http:// or
// https:// and at least one more character, to the first space or ')', which must be its
// closing ')'.
func parseLink(line string) (title, url string, ok bool) {
	m := linkRE.get().FindStringSubmatch(line)
	if m == nil {
		return "", "", false
	}
	return m[1], m[2], true
}

// Header keys, in the order docs/lessons.md lists them.
var headerKeys = []string{"title", "summary", "links", "scenario", "start_ms"}

func (p *lessonParser) parse(open Opener) error {
	n := len(p.lines)
	if n == 0 || strings.TrimSpace(p.lines[0]) != "---" {
		return p.errf(1, `a lesson starts with a header between "---" lines (title:, summary:, links:, scenario:)`)
	}
	i := 1
	scenarioRef := ""
	inLinks := false
	for ; i < n && strings.TrimSpace(p.lines[i]) != "---"; i++ {
		line := p.lines[i]
		ln := i + 1
		if strings.TrimSpace(line) == "" {
			continue
		}
		if inLinks && strings.HasPrefix(line, "- ") {
			title, url, ok := parseLink(line)
			if !ok {
				return p.errf(ln, "links: write a link as \"- [Title](https://...)\", got %q", line)
			}
			p.l.Links = append(p.l.Links, Link{Title: title, URL: url})
			continue
		}
		inLinks = false
		key, val, ok := strings.Cut(line, ":")
		key, val = strings.TrimSpace(key), strings.TrimSpace(val)
		if !ok {
			return p.errf(ln, "header: expected \"key: value\", got %q (keys: %s)", line, strings.Join(headerKeys, ", "))
		}
		switch key {
		case "title":
			p.l.Title = val
		case "summary":
			p.l.Summary = val
		case "links":
			if val != "" {
				return p.errf(ln, "links: list the links on the following lines, one \"- [Title](https://...)\" each")
			}
			inLinks = true
		case "scenario":
			scenarioRef, p.scenarioLine = val, ln
		case "start_ms":
			v, err := strconv.ParseInt(strings.ReplaceAll(val, "_", ""), 10, 64)
			if err != nil || v < 0 {
				return p.errf(ln, "start_ms: must be a time in milliseconds, 0 or more, got %q", val)
			}
			p.l.StartMs, p.startMsSet = v, true
		default:
			return p.errf(ln, "header: unknown key %q (known: %s)", key, strings.Join(headerKeys, ", "))
		}
	}
	if i >= n {
		return p.errf(1, `the header is not closed: add a "---" line after it`)
	}
	if p.l.Title == "" {
		return p.errf(2, "header: title: missing; every lesson has a title")
	}
	if p.l.Summary == "" {
		return p.errf(2, "header: summary: missing; every lesson has a one-line summary")
	}
	i++
	// The intro runs to the first step heading; a ```json scenario block in it is the scenario.
	var intro []string
	for ; i < n && !strings.HasPrefix(p.lines[i], "## "); i++ {
		if t := strings.TrimSpace(p.lines[i]); t == "```json scenario" || t == "```scenario" {
			start := i + 1
			j := start
			for j < n && strings.TrimSpace(p.lines[j]) != "```" {
				j++
			}
			if j >= n {
				return p.errf(i+1, "scenario: the fenced block is not closed with ```")
			}
			if p.scenarioInline || scenarioRef != "" {
				return p.errf(i+1, "scenario: given twice; a lesson has one starting scenario (a block or the header's scenario: file)")
			}
			p.l.ScenarioJSON = []byte(strings.Join(p.lines[start:j], "\n"))
			p.scenarioInline, p.scenarioLine = true, start+1
			i = j
			continue
		}
		intro = append(intro, p.lines[i])
	}
	p.l.Intro = strings.TrimSpace(strings.Join(intro, "\n"))
	if err := checkModelMarks(p.l.Intro); err != nil {
		return p.errf(i, "introduction: %v", err)
	}
	if scenarioRef != "" {
		if open == nil {
			return p.errf(p.scenarioLine, "scenario: %q: this lesson cannot refer to files here; put the scenario in a ```json scenario block", scenarioRef)
		}
		if strings.Contains(scenarioRef, "..") || path.IsAbs(scenarioRef) {
			return p.errf(p.scenarioLine, "scenario: %q: name a file next to the lesson (no .. or absolute paths)", scenarioRef)
		}
		data, err := open(scenarioRef)
		if err != nil {
			return p.errf(p.scenarioLine, "scenario: cannot read %q: %v", scenarioRef, err)
		}
		p.l.ScenarioJSON = data
	}
	if p.l.ScenarioJSON == nil {
		return p.errf(i, "scenario: missing; give the starting scenario in a ```json scenario block before the first step, or as scenario: FILE in the header")
	}
	for i < n {
		var err error
		if i, err = p.step(i); err != nil {
			return err
		}
	}
	if len(p.l.Steps) == 0 {
		return p.errf(len(p.lines), `steps: none; a step starts with a "## Title" line`)
	}
	return nil
}

// step parses the step whose heading is at line index i and returns the index after it.
func (p *lessonParser) step(i int) (int, error) {
	n := len(p.lines)
	s := &Step{Index: len(p.l.Steps), Line: i + 1, Title: strings.TrimSpace(strings.TrimPrefix(p.lines[i], "## "))}
	if s.Title == "" {
		return 0, p.errf(i+1, "step: the heading has no title")
	}
	p.l.Steps = append(p.l.Steps, s)
	var text []string
	fenced := false
	for i++; i < n && (fenced || !strings.HasPrefix(p.lines[i], "## ")); i++ {
		line := p.lines[i]
		ln := i + 1
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			fenced = !fenced
		}
		if fenced {
			text = append(text, line)
			continue
		}
		key, val, _ := strings.Cut(line, ":")
		val = strings.TrimSpace(val)
		if p.l.Talk {
			switch {
			case slices.Contains(lessonOnlyKeys, key):
				return 0, p.errf(ln, "%s: a talk's scene has no %s: lines; it has a caption:, a play: list and expect: lines", key, key)
			case key == "caption":
				if val == "" {
					return 0, p.errf(ln, "caption: empty; a scene's caption is what the room reads")
				}
				s.Caption = strings.TrimSpace(s.Caption + " " + val)
				continue
			case key == "play":
				key = "reference" // a scene's play list is what the next scene starts after
			case key == "from":
				if s.From != nil {
					return 0, p.errf(ln, "from: given twice in scene %q", s.Title)
				}
				o, err := parseOrigin(val, ln)
				if err != nil {
					return 0, p.errf(ln, "from: %v", err)
				}
				s.From = o
				continue
			}
		}
		switch key {
		case "do":
			if s.Task != "" {
				return 0, p.errf(ln, "do: given twice in step %q; a step asks one thing", s.Title)
			}
			s.Task = val
		case "goal", "expect":
			e, err := ParseExpr(val)
			if err != nil {
				return 0, p.errf(ln, "%s: %v", key, err)
			}
			g := Goal{Source: val, Line: ln, Expr: e}
			if key == "goal" {
				s.Goals = append(s.Goals, g)
			} else {
				s.Expects = append(s.Expects, g)
			}
		case "hint":
			if val == "" {
				return 0, p.errf(ln, "hint: empty")
			}
			if len(s.Hints) == MaxHints {
				return 0, p.errf(ln, "hint: step %q has more than %d hints; say more in its text, or leave it to Show me", s.Title, MaxHints)
			}
			s.Hints = append(s.Hints, val)
		case "predict":
			if s.Predict != nil {
				return 0, p.errf(ln, "predict: given twice in step %q; a step asks one prediction", s.Title)
			}
			if val == "" {
				return 0, p.errf(ln, "predict: the question is empty")
			}
			s.Predict = &Prediction{Line: ln, Question: val}
		case "option":
			if s.Predict == nil {
				return 0, p.errf(ln, "option: comes after a predict: line")
			}
			label, src, ok := strings.Cut(val, "|")
			label, src = strings.TrimSpace(label), strings.TrimSpace(src)
			if !ok || label == "" || src == "" {
				return 0, p.errf(ln, "option: write it as \"option: Label | PREDICATE\" (option: Broker 2 | leader payments-0 == 2), got %q", val)
			}
			e, err := ParseExpr(src)
			if err != nil {
				return 0, p.errf(ln, "option: %v", err)
			}
			s.Predict.Options = append(s.Predict.Options, Option{Line: ln, Label: label, Source: src, Expr: e, Broker: optionBroker(label)})
		case "when":
			if s.Predict == nil {
				return 0, p.errf(ln, "when: comes after a predict: line")
			}
			e, err := ParseExpr(val)
			if err != nil {
				return 0, p.errf(ln, "when: %v", err)
			}
			s.Predict.When, s.Predict.WhenSource, s.Predict.WhenLine = e, val, ln
		case "answer", "tolerance", "timeline":
			if s.Predict == nil {
				return 0, p.errf(ln, "%s: comes after a predict: line", key)
			}
			ms, err := parseDuration(val)
			if err != nil || ms == 0 {
				return 0, p.errf(ln, "%s: expected a duration after the step's start, more than 0 (90s, 5m), got %q", key, val)
			}
			switch key {
			case "answer":
				s.Predict.AnswerMs = ms
			case "tolerance":
				s.Predict.ToleranceMs = ms
			default:
				s.Predict.SpanMs = ms
			}
		case "reveal":
			if s.Predict == nil {
				return 0, p.errf(ln, "reveal: comes after a predict: line")
			}
			if val == "" {
				return 0, p.errf(ln, "reveal: empty; say what happened and why")
			}
			s.Predict.Reveal = strings.TrimSpace(s.Predict.Reveal + " " + val)
		case "reference", "play", "solution", "reject":
			if val != "" {
				return 0, p.errf(ln, "%s: list the actions on the following lines, one \"- action\" each", key)
			}
			var acts []Action
			for i+1 < n && strings.HasPrefix(p.lines[i+1], "- ") {
				i++
				a, err := parseAction(strings.TrimSpace(p.lines[i][2:]), key == "play")
				if err != nil {
					return 0, p.errf(i+1, "%s: %v", key, err)
				}
				a.Line = i + 1
				acts = append(acts, a)
			}
			if len(acts) == 0 {
				return 0, p.errf(ln, "%s: no actions; list them on the following lines, one \"- action\" each", key)
			}
			switch key {
			case "solution":
				s.Solutions = append(s.Solutions, acts)
			case "reject":
				s.Rejects = append(s.Rejects, acts)
			case "reference":
				if s.Reference != nil {
					return 0, p.errf(ln, "reference: given twice in step %q", s.Title)
				}
				s.Reference = acts
			default:
				if s.Play != nil {
					return 0, p.errf(ln, "play: given twice in step %q", s.Title)
				}
				s.Play = acts
			}
		default:
			text = append(text, line)
		}
	}
	if fenced {
		return 0, p.errf(s.Line, "step %q: a ``` block is not closed", s.Title)
	}
	s.Text = strings.TrimSpace(strings.Join(text, "\n"))
	if len(s.Goals) > 0 && len(s.Reference) == 0 {
		return 0, p.errf(s.Line, "step %q has goals but no reference: actions; give the actions that reach them, so the course test can check them", s.Title)
	}
	if len(s.Expects) > 0 && len(s.Reference) == 0 {
		return 0, p.errf(s.Line, "step %q has expect: lines but no reference: actions", s.Title)
	}
	if (len(s.Solutions) > 0 || len(s.Rejects) > 0) && len(s.Goals) == 0 {
		return 0, p.errf(s.Line, "step %q has solution: or reject: lists but no goal for them to reach", s.Title)
	}
	if len(s.Solutions) > 0 && len(s.Rejects) == 0 {
		return 0, p.errf(s.Line, "step %q is a challenge (it has a solution: list) without a reject: list; give a wrong attempt the check must refuse", s.Title)
	}
	if q := s.Predict; q != nil {
		timed := q.AnswerMs > 0 || q.ToleranceMs > 0 || q.SpanMs > 0
		switch {
		case len(s.Goals) == 0:
			return 0, p.errf(q.Line, "predict: step %q has no goal; a prediction is revealed when the step's goals are met", s.Title)
		case q.Timed() && len(q.Options) > 0:
			return 0, p.errf(q.Line, "predict: a prediction answered on the timeline (when:) has no option: lines")
		case q.Timed() && (q.AnswerMs == 0 || q.ToleranceMs == 0 || q.SpanMs == 0):
			return 0, p.errf(q.Line, "predict: a prediction answered on the timeline needs answer:, tolerance: and timeline: lines (durations after the step's start)")
		case q.Timed() && q.SpanMs < q.AnswerMs+q.ToleranceMs:
			return 0, p.errf(q.Line, "predict: timeline: %d ms is shorter than answer: plus tolerance: (%d ms); the learner must be able to mark past the answer", q.SpanMs, q.AnswerMs+q.ToleranceMs)
		case timed && !q.Timed():
			return 0, p.errf(q.Line, "predict: answer:, tolerance: and timeline: belong to a prediction answered on the timeline; add its when: line")
		case q.Timed() && q.Reveal == "":
			return 0, p.errf(q.Line, "predict: no reveal: line; say what happened and why, for the right answer and the wrong ones")
		case q.Timed():
		case len(q.Options) < 2:
			return 0, p.errf(q.Line, "predict: give at least two option: lines, one \"option: Label | PREDICATE\" each")
		case q.Reveal == "":
			return 0, p.errf(q.Line, "predict: no reveal: line; say what happened and why, for the right answer and the wrong ones")
		}
	}
	// Model figures may be marked wherever the page renders Markdown: the text, caption,
	// task, hints, question and reveal; an option's label is a button's plain text.
	marked := []string{s.Text, s.Caption, s.Task}
	marked = append(marked, s.Hints...)
	if q := s.Predict; q != nil {
		marked = append(marked, q.Question, q.Reveal)
		for _, o := range q.Options {
			if strings.Contains(o.Label, ModelMark) {
				return 0, p.errf(o.Line, "option: a label is plain text and cannot carry a %s figure}; mark the figure in the step's text or the reveal", ModelMark)
			}
		}
	}
	if err := checkModelMarks(strings.Join(marked, "\n")); err != nil {
		return 0, p.errf(s.Line, "step %q: %v", s.Title, err)
	}
	if p.l.Talk {
		switch {
		case s.Caption == "":
			return 0, p.errf(s.Line, "scene %q has no caption: line; the caption is what presenter mode shows", s.Title)
		case hasDigit(s.Caption) && len(s.Expects) == 0:
			return 0, p.errf(s.Line, "scene %q: its caption quotes a number but no expect: line checks it after the play list", s.Title)
		}
	}
	return i, nil
}

// jsonLineRE is the "at line N" of encoding/json's and the scenario parser's syntax errors.
var jsonLineRE = &lazyRegexp{expr: `at line (\d+)`}

// jsonErrorLine finds the first "at line N" in a syntax error and returns N's digits.
func jsonErrorLine(msg string) (string, bool) {
	m := jsonLineRE.get().FindStringSubmatch(msg)
	if m == nil {
		return "", false
	}
	return m[1], true
}

// scenarioError places a scenario parse error in the lesson.
func (p *lessonParser) scenarioError(err error) error {
	line := p.scenarioLine
	msg := err.Error()
	if n, found := jsonErrorLine(msg); found && p.scenarioInline {
		if k, e := strconv.Atoi(n); e == nil {
			line += k - 1
		}
	} else if p.scenarioInline {
		// Point at the field's key when the path ends in a plain name we can find.
		if se, ok := err.(*scenario.Error); ok && se.Path != "" {
			line = p.findKey(se.Path, line)
		}
	}
	return p.errf(line, "scenario: %s", msg)
}

// lastKeyRE is the last key of a scenario error's path: a lower-case name after the last '.'
// (or the whole path) less the [N] indexes after it, or a quoted name in a final ["..."].
var lastKeyRE = &lazyRegexp{expr: `(?:\.|^)([a-z_]+)(?:\[\d+\])*$|\["([^"]+)"\]$`}

// lastKey returns the last key of a scenario error's path: cluster.topics[0] gives topics,
// config["min.insync.replicas"] gives min.insync.replicas.
func lastKey(path string) (string, bool) {
	m := lastKeyRE.get().FindStringSubmatch(path)
	switch {
	case m == nil:
		return "", false
	case m[1] != "":
		return m[1], true
	default:
		return m[2], true
	}
}

// findKey returns the first line of the scenario block, from its start, that holds the path's
// last key; the block's start when it finds none.
func (p *lessonParser) findKey(path string, from int) int {
	key, ok := lastKey(path)
	if !ok {
		return from
	}
	for i := from - 1; i < len(p.lines) && strings.TrimSpace(p.lines[i]) != "```"; i++ {
		if strings.Contains(p.lines[i], `"`+key+`"`) {
			return i + 1
		}
	}
	return from
}

// scenarioDoc is the scenario JSON as an object, to add the actions as events.
func scenarioDoc(data []byte) (map[string]json.RawMessage, error) {
	var doc map[string]json.RawMessage
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	if err := d.Decode(&doc); err != nil {
		return nil, err
	}
	return doc, nil
}

// lazyRegexp is a regular expression compiled on its first use. Only the native side parses
// lessons (the page loads the compiled course, lessons/compiled.json). A regexp compiled at
// package init would link package regexp into the page's wasm (about 370 KB before
// compression) for code it never runs; compiled here, it is linked only where a parse is.
type lazyRegexp struct {
	expr string
	once sync.Once
	re   *regexp.Regexp
}

func (l *lazyRegexp) get() *regexp.Regexp {
	l.once.Do(func() { l.re = regexp.MustCompile(l.expr) })
	return l.re
}
