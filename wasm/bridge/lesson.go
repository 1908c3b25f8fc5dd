package bridge

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/kraftlab/kraftlab/lessons"
)

// The lesson runner's messages (lesson.*, web/PROTOCOL.md "Lessons"). A lesson's cluster is the
// playground's run: lesson.open loads the lesson's scenario with sim.load's own code and plays
// the earlier steps' reference actions into the run's history, so the canvas, the event log,
// the timeline, scrubbing and export all work on it unchanged, and the state at a step's start
// is the same replay lessons.Checkpoint makes (tested). What this file adds is the step being
// followed: its start mark (goals that count, count from it), its goals' check and the actions
// a step plays (show me, a scripted demo with pauses).

// lessonRun is the lesson being followed, if any.
type lessonRun struct {
	s *Session
	// course is the embedded course, parsed on first use (a few milliseconds); talks the
	// embedded talks, whose scenes open as steps do.
	course, talks []*lessons.Lesson
	l             *lessons.Lesson
	step          int
	mark          lessons.Mark
	// run identifies the session's run when the step was opened (its scenario document, which
	// a new run always replaces): a sim.start or sim.load since then ends the lesson.
	run uintptr
	// script is what lesson.play plays, and next the index of its next action; a pause stops
	// it there until "continue".
	script []lessons.Action
	next   int
	// startActions is how many of the run's recorded actions the step's start holds: undo
	// takes back only the learner's (and Show me's) actions after them.
	startActions int
	// names are the partitions the step's goal picture shows, which the learner's is drawn for.
	names []string
	// watch looks for the moment of the step's timed prediction in the learner's run (nil
	// when the step asks none); watchVersion is the history's version when it was seen, -1
	// before.
	watch        *lessons.Watch
	watchVersion int
}

func registerLessons(b *Bridge, s *Session) {
	r := &lessonRun{s: s}
	b.Register("lesson.list", r.list)
	b.Register("lesson.open", r.open)
	b.Register("lesson.check", r.check)
	b.Register("lesson.play", r.play)
	b.Register("lesson.undo", r.undo)
}

// LessonSummary is one lesson of lesson.list.
type LessonSummary struct {
	// ID is the file's base name (01-electing-a-new-leader), what links use; Number its
	// position in the course, from 1.
	ID      string `json:"id"`
	Number  int    `json:"number"`
	Title   string `json:"title"`
	Summary string `json:"summary"`
	// Minutes is an estimate of the time the lesson takes: reading at 180 words a minute plus
	// two minutes for each step with a goal (the lesson format has no duration of its own).
	Minutes int          `json:"minutes"`
	Steps   []string     `json:"steps"`
	Links   []LessonLink `json:"links"`
}

// LessonLink is a KIP or a Kafka documentation page a lesson draws on.
type LessonLink struct {
	Title string `json:"title"`
	URL   string `json:"url"`
}

// LessonListBody is the reply to lesson.list.
type LessonListBody struct {
	Lessons []LessonSummary `json:"lessons"`
}

// loadCourse decodes the compiled course (lessons.CompiledCourse) on first use: the lessons
// lessons.Course parses, without linking the lesson parser into the page's wasm.
func (r *lessonRun) loadCourse() ([]*lessons.Lesson, error) {
	if r.course == nil {
		c, err := lessons.CompiledCourse()
		if err != nil {
			return nil, fmt.Errorf("internal: the embedded course does not load: %w", err)
		}
		t, err := lessons.CompiledTalks()
		if err != nil {
			return nil, fmt.Errorf("internal: the embedded talks do not load: %w", err)
		}
		r.course, r.talks = c, t
	}
	return r.course, nil
}

func (r *lessonRun) list(body json.RawMessage) (any, error) {
	if err := Decode(body, &struct{}{}); err != nil {
		return nil, err
	}
	course, err := r.loadCourse()
	if err != nil {
		return nil, err
	}
	out := LessonListBody{Lessons: make([]LessonSummary, len(course))}
	for i, l := range course {
		out.Lessons[i] = summarize(l, i+1)
	}
	return out, nil
}

func summarize(l *lessons.Lesson, number int) LessonSummary {
	sum := LessonSummary{ID: l.ID, Number: number, Title: l.Title, Summary: l.Summary, Minutes: EstimateMinutes(l),
		Steps: make([]string, len(l.Steps)), Links: []LessonLink{}}
	for i, s := range l.Steps {
		sum.Steps[i] = s.Title
	}
	for _, k := range l.Links {
		sum.Links = append(sum.Links, LessonLink{Title: k.Title, URL: k.URL})
	}
	return sum
}

// EstimateMinutes is a lesson's time as the index shows it: its words read at 180 a minute,
// plus two minutes for each step that asks the learner to do something.
func EstimateMinutes(l *lessons.Lesson) int {
	words := len(strings.Fields(l.Intro))
	doing := 0
	for _, s := range l.Steps {
		words += len(strings.Fields(s.Text)) + len(strings.Fields(s.Task))
		if !s.Sandbox() {
			doing++
		}
	}
	return max(1, (words+179)/180+2*doing)
}

// find looks a lesson up by ID (01-electing-a-new-leader), file name or number ("1", "01").
func (r *lessonRun) find(name string) (*lessons.Lesson, int, error) {
	course, err := r.loadCourse()
	if err != nil {
		return nil, 0, err
	}
	ids := make([]string, len(course))
	for i, l := range course {
		ids[i] = l.ID
		if name == l.ID || name == l.ID+".md" {
			return l, i + 1, nil
		}
	}
	// A talk opens the same way; it has no number in the course.
	for _, t := range r.talks {
		if name == t.ID || name == t.ID+".md" {
			return t, 0, nil
		}
	}
	if n, err := strconv.Atoi(name); err == nil && n >= 1 && n <= len(course) && len(name) <= 3 {
		return course[n-1], n, nil
	}
	return nil, 0, fmt.Errorf("lesson: %q is not a lesson of the course; allowed: a number from 1 to %d or one of %s",
		name, len(course), strings.Join(ids, ", "))
}

// LessonOpenRequest is the body of lesson.open.
type LessonOpenRequest struct {
	// Lesson is the lesson's ID, file name or number in the course (from 1).
	Lesson string `json:"lesson"`
	// Step is the step to open, from 0.
	Step int `json:"step"`
}

// LessonStep is one step as the page shows it. Text, Task and Hints are Markdown.
type LessonStep struct {
	Title string   `json:"title"`
	Text  string   `json:"text"`
	Task  string   `json:"task"`
	Goals []string `json:"goals"`
	Hints []string `json:"hints"`
	// Sandbox: the step has no goal, the learner explores.
	Sandbox bool `json:"sandbox"`
	// Demo: the step has a play: list (a scripted demo with Pauses questions).
	Demo   bool `json:"demo"`
	Pauses int  `json:"pauses"`
	// Reference is the reference actions as written, for the curious ("kill 1").
	Reference []string `json:"reference"`
	// Predict is the question asked before the run plays, nil when the step asks none.
	Predict *LessonPredict `json:"predict,omitempty"`
	// Challenge: the goal is a state the learner reaches their own way (other solutions are
	// checked in CI).
	Challenge bool `json:"challenge"`
	// Picture is the state the step's reference reaches, drawn as the goal; nil for a sandbox.
	Picture *lessons.Picture `json:"picture,omitempty"`
	// Caption is a talk scene's caption (Markdown), "" in a lesson.
	Caption string `json:"caption,omitempty"`
}

// LessonPredict is a step's prediction as the page asks it.
type LessonPredict struct {
	Question string         `json:"question"`
	Options  []LessonOption `json:"options"`
	// Reveal is Markdown: what happened and why, shown once the step is done.
	Reveal string `json:"reveal"`
	// Timeline is set when the learner answers by marking a moment on a timeline of the step
	// instead of choosing an option.
	Timeline *LessonTimeline `json:"timeline,omitempty"`
}

// LessonTimeline is a timed prediction's timeline: SpanMs of step time from the step's start,
// and how far from what happens a mark may be and still be right. The answer is what happens
// in the learner's run (LessonCheckBody.WhenMs), never sent ahead.
type LessonTimeline struct {
	SpanMs      int64 `json:"spanMs"`
	ToleranceMs int64 `json:"toleranceMs"`
}

// LessonOption is one answer; Broker is the broker a click on the canvas answers with, -1 for none.
type LessonOption struct {
	Label  string `json:"label"`
	Broker int32  `json:"broker"`
}

// LessonOpenBody is the reply to lesson.open: the run (as sim.load's reply: the page treats it
// as a new cluster), the lesson with every step's text (so that back and forward need no text
// from the worker), the step opened and its goals' check at its start.
type LessonOpenBody struct {
	Run    LoadBody      `json:"run"`
	Lesson LessonSummary `json:"lesson"`
	Intro  string        `json:"intro"`
	Steps  []LessonStep  `json:"steps"`
	Step   int           `json:"step"`
	// Next is the next lesson's ID, "" after the last and in a talk.
	Next string `json:"next"`
	// Talk: this is a talk, its steps scenes (lesson.open opens one at its start).
	Talk  bool            `json:"talk"`
	Check LessonCheckBody `json:"check"`
}

func (r *lessonRun) open(body json.RawMessage) (any, error) {
	var req LessonOpenRequest
	if err := Decode(body, &req); err != nil {
		return nil, err
	}
	l, number, err := r.find(req.Lesson)
	if err != nil {
		return nil, err
	}
	if req.Step < 0 || req.Step >= len(l.Steps) {
		return nil, fmt.Errorf("step: %d is not allowed; lesson %s has steps 0 to %d", req.Step, l.ID, len(l.Steps)-1)
	}
	run, err := r.start(l, req.Step)
	if err != nil {
		return nil, err
	}
	out := LessonOpenBody{Run: run, Lesson: summarize(l, number), Intro: l.Intro, Step: req.Step, Check: r.status()}
	for _, s := range l.Steps {
		st := LessonStep{Title: s.Title, Text: s.Text, Task: s.Task, Hints: append([]string{}, s.Hints...),
			Sandbox: s.Sandbox(), Demo: len(s.Play) > 0, Goals: []string{}, Reference: []string{},
			Challenge: s.Challenge(), Picture: s.Picture, Caption: s.Caption}
		if q := s.Predict; q != nil {
			st.Predict = &LessonPredict{Question: q.Question, Reveal: q.Reveal, Options: []LessonOption{}}
			if q.Timed() {
				st.Predict.Timeline = &LessonTimeline{SpanMs: q.SpanMs, ToleranceMs: q.ToleranceMs}
			}
			for _, o := range q.Options {
				st.Predict.Options = append(st.Predict.Options, LessonOption{Label: o.Label, Broker: o.Broker})
			}
		}
		for _, g := range s.Goals {
			st.Goals = append(st.Goals, g.Source)
		}
		for _, a := range s.Play {
			if a.Kind == lessons.ActPause {
				st.Pauses++
			}
		}
		for _, a := range s.Reference {
			st.Reference = append(st.Reference, a.Source)
		}
		out.Steps = append(out.Steps, st)
	}
	out.Talk = l.Talk
	if course, _ := r.loadCourse(); !l.Talk && number < len(course) {
		out.Next = course[number].ID
	}
	return out, nil
}

// start makes the lesson's cluster at step i's start the session's run: the scenario through
// sim.load (the same code as an imported scenario), then the reference actions of the steps
// before i, recorded in the run's history at the times they happened. A talk's scene that
// starts from a lesson's checkpoint starts from that lesson's scenario and steps instead
// (lessons.StartOf), as lessons.Checkpoint builds it.
func (r *lessonRun) start(l *lessons.Lesson, i int) (LoadBody, error) {
	from := l.StartOf(i)
	base := from.Base
	loaded, err := r.s.load(mustJSON(LoadRequest{Scenario: base.ScenarioJSON, TimeMs: base.StartMs}))
	if err != nil {
		return LoadBody{}, fmt.Errorf("%s: scenario: %w", base.File, err)
	}
	r.l, r.step, r.script, r.next, r.watch = l, i, nil, 0, nil
	r.run = reflect.ValueOf(r.s.base).Pointer()
	for _, st := range base.Steps[:from.BaseSteps] {
		if _, err := r.playActions(base, st.Reference, lessons.MarkNow(r.s.c)); err != nil {
			r.l = nil
			return LoadBody{}, err
		}
	}
	for _, st := range l.Steps[from.From:i] {
		if _, err := r.playActions(l, st.Reference, lessons.MarkNow(r.s.c)); err != nil {
			r.l = nil
			return LoadBody{}, err
		}
	}
	// The earlier steps' traffic is the replay's, not news: the step's first frame draws none of it.
	r.s.showTraffic()
	r.mark = lessons.MarkNow(r.s.c)
	r.arm()
	r.startActions = r.s.applied
	r.names = nil
	if p := l.Steps[i].Picture; p != nil {
		for _, pp := range p.Partitions {
			r.names = append(r.names, pp.Name)
		}
	}
	// The step's start is where this run has got to: a lesson's scenario may run on past its
	// start_ms, but nothing the learner could return to lies beyond the step's start yet.
	r.s.horizon = r.s.c.Now()
	out := loaded.(LoadBody)
	out.StartBody = r.s.info
	out.TimeMs = r.s.c.Now()
	out.HorizonMs = max(r.s.horizon, r.s.c.Now())
	out.Actions = len(r.s.hist)
	return out, nil
}

// arm starts watching for the moment of the step's timed prediction, if it asks one: the
// session polls it as time passes (Session.watch), from the step's start on.
func (r *lessonRun) arm() {
	q := r.l.Steps[r.step].Predict
	if q == nil || !q.Timed() {
		return
	}
	r.watch, r.watchVersion = lessons.NewWatch(q.When), -1
	r.s.watch = func() bool {
		if r.s.c.Now() >= r.mark.TimeMs {
			r.watch.Poll(r.s.c, r.mark)
		}
		r.noteWatch()
		return r.watch.Pending()
	}
	r.s.watch()
}

// noteWatch notes the history's version once the moment has come.
func (r *lessonRun) noteWatch() {
	if r.watch != nil && !r.watch.Pending() && r.watchVersion < 0 {
		r.watchVersion = r.s.version
	}
}

// whenMs is the step time of the timed prediction's moment in the learner's run, -1 while it
// has not come. A change to the run's history before the moment (an action taken after a
// scrub back, an undo) makes it another run: the moment is watched for again.
func (r *lessonRun) whenMs() int64 {
	w := r.watch
	switch {
	case w == nil:
		return -1
	case w.Pending():
		if r.s.watch == nil {
			r.arm() // a new run of the same lesson cleared the session's watch
		}
		return -1
	case r.s.version != r.watchVersion && r.s.c.Now() < w.AtMs:
		r.arm()
		return -1
	}
	return w.AtMs - r.mark.TimeMs
}

// active returns the open lesson, or an error when there is none or the run was replaced.
func (r *lessonRun) active() error {
	if r.l == nil {
		return errors.New("no lesson is open: send lesson.open first")
	}
	if r.s.live == nil || reflect.ValueOf(r.s.base).Pointer() != r.run {
		r.l = nil
		return errors.New("no lesson is open: the lesson's cluster was replaced (sim.start or sim.load); send lesson.open to go back to it")
	}
	return nil
}

// playActions plays actions of lesson l (the open one, or the lesson a talk's scene starts
// from) on the session's run until the first pause, returning how many ran. Events go through
// the same path as sim.act (the event log's sentence, the history); waits and untils are
// lessons.Apply's own, so the run is the one lessons.Checkpoint makes.
func (r *lessonRun) playActions(l *lessons.Lesson, acts []lessons.Action, m lessons.Mark) (int, error) {
	r.forgetFuture()
	for i, a := range acts {
		switch a.Kind {
		case lessons.ActPause:
			return i, nil
		case lessons.ActEvent:
			if err := r.s.c.Err(); err != nil {
				return i, fmt.Errorf("%s:%d: %q: the run stopped at an invariant violation: %w", l.File, a.Line, a.Source, err)
			}
			act := action{AtMs: r.s.c.Now(), Ev: a.Event, Raw: eventJSON(r.s.c.Now(), a.Event)}
			if _, err := r.s.apply(act); err != nil {
				return i, fmt.Errorf("%s:%d: %q was refused at %s ms: %w", l.File, a.Line, a.Source, thousands(r.s.c.Now()), err)
			}
			r.s.record(act)
			r.watch.Poll(r.s.c, m)
			r.noteWatch()
		default:
			err := l.ApplyWatching(r.s.c, a, m, r.watch)
			r.noteWatch()
			r.s.horizon = max(r.s.horizon, r.s.c.Now())
			if err != nil {
				return i, err
			}
		}
	}
	return len(acts), nil
}

// forgetFuture drops recorded actions later than the time shown (after a scrub back): a lesson
// action starts a new timeline from here, as a page action does (record), and the cluster must
// not meet the old timeline's actions when time runs on.
func (r *lessonRun) forgetFuture() {
	s := r.s
	if s.applied < len(s.hist) {
		s.hist = s.hist[:s.applied:s.applied]
		s.horizon = s.c.Now()
		s.version++
	}
}

// LessonGoal is one goal's truth now.
type LessonGoal struct {
	Goal  string `json:"goal"`
	Holds bool   `json:"holds"`
	// Explain says the current value and what the goal asks: "leader of payments-0 is 1, goal == 2".
	Explain string `json:"explain"`
}

// LessonCheckBody is the reply to lesson.check, and part of lesson.open's and lesson.play's.
type LessonCheckBody struct {
	Lesson string       `json:"lesson"`
	Step   int          `json:"step"`
	TimeMs int64        `json:"timeMs"`
	Goals  []LessonGoal `json:"goals"`
	// Done: every goal holds (never for a sandbox, which has none).
	Done bool `json:"done"`
	// StepTimeMs is the cluster time since the step's start (negative after a scrub back
	// before it).
	StepTimeMs int64 `json:"stepTimeMs"`
	// Paused is the question a scripted demo stopped at, "" when none is waiting.
	Paused string `json:"paused,omitempty"`
	// Answer is the index of the prediction's option that holds now (what happened, once the
	// step is done), -1 when none or several do or the step asks none.
	Answer int `json:"answer"`
	// Now pictures the learner's state as the step's goal picture is drawn; nil for a sandbox.
	Now *lessons.Picture `json:"now,omitempty"`
	// Undoable: the learner has acted since the step's start, at or before the time shown.
	Undoable bool `json:"undoable"`
	// WhenMs is the step time at which a timed prediction's moment came in this run, -1
	// before it (or when the step asks none).
	WhenMs int64 `json:"whenMs"`
}

func (r *lessonRun) status() LessonCheckBody {
	st := r.l.Steps[r.step]
	rs := st.Check(r.s.c, r.mark)
	out := LessonCheckBody{Lesson: r.l.ID, Step: r.step, TimeMs: r.s.c.Now(), Goals: make([]LessonGoal, len(rs)),
		Done: lessons.Done(rs), StepTimeMs: r.s.c.Now() - r.mark.TimeMs}
	for i, g := range rs {
		out.Goals[i] = LessonGoal{Goal: g.Goal, Holds: g.Holds, Explain: g.Explain}
	}
	if r.next < len(r.script) && r.script[r.next].Kind == lessons.ActPause {
		out.Paused = r.script[r.next].Pause
	}
	out.Answer = -1
	if st.Predict != nil {
		out.Answer, _ = st.Predict.Answer(r.s.c, r.mark)
	}
	if st.Picture != nil {
		now := lessons.Snapshot(r.s.c, r.names)
		out.Now = &now
	}
	out.Undoable = r.s.applied > r.startActions
	out.WhenMs = r.whenMs()
	return out
}

// undo takes back the last action applied since the step's start: the run goes back to the
// moment it was taken, as if it never had been (the history and its checkpoints, history.go,
// rebuild that moment), and it leaves the history, with any recorded after it.
func (r *lessonRun) undo(body json.RawMessage) (any, error) {
	if err := Decode(body, &struct{}{}); err != nil {
		return nil, err
	}
	if err := r.active(); err != nil {
		return nil, err
	}
	s := r.s
	if s.applied <= r.startActions {
		return nil, errors.New("nothing to undo: no action since the step's start")
	}
	r.script, r.next = nil, 0
	at := s.hist[s.applied-1].AtMs
	s.hist = s.hist[: s.applied-1 : s.applied-1]
	s.spares = slices.DeleteFunc(s.spares, func(lv *live) bool { return lv.c.Now() >= at })
	s.horizon = at
	s.version++
	// The live cluster has applied the action: it cannot be a checkpoint of this history. A
	// spare from before it, or a fresh cluster, replays to the action's moment.
	from := -1
	for i, lv := range s.spares {
		if lv.c.Err() == nil && (from < 0 || lv.c.Now() > s.spares[from].c.Now()) {
			from = i
		}
	}
	// The replay's lines are the page's log already, but for those no frame has carried yet:
	// a Show me plays its actions before any frame, and an undo right after it goes back past
	// lines the page was never told. Those from before the undone action go with the next
	// frame; the action's own, and what followed it, are no longer the run's.
	unsent := s.log.setAside()
	s.live.traffic = nil
	if from >= 0 {
		s.live = s.spares[from]
		s.spares = slices.Delete(s.spares, from, from+1)
	} else {
		lv, err := s.build()
		if err != nil {
			return nil, err
		}
		s.live = lv
	}
	s.runTo(at)
	s.log.rewound(unsent, at-1) // the action's own lines, at its moment, are undone with it
	s.showTraffic()
	return r.status(), nil
}

func (r *lessonRun) check(body json.RawMessage) (any, error) {
	if err := Decode(body, &struct{}{}); err != nil {
		return nil, err
	}
	if err := r.active(); err != nil {
		return nil, err
	}
	return r.status(), nil
}

// LessonPlayRequest is the body of lesson.play.
type LessonPlayRequest struct {
	// What is "reference" (show me: the step's reference actions), "demo" (the step's play:
	// list, up to its first pause) or "continue" (a demo from the pause it stopped at).
	What string `json:"what" ts:"LessonPlay"`
}

// LessonPlayBody is the reply to lesson.play.
type LessonPlayBody struct {
	// Ran is how many actions played; Finished that the script has no more.
	Ran      int  `json:"ran"`
	Finished bool `json:"finished"`
	// Check is the step's check once they played; its Paused is the demo's question, if any.
	Check LessonCheckBody `json:"check"`
}

func (r *lessonRun) play(body json.RawMessage) (any, error) {
	var req LessonPlayRequest
	if err := Decode(body, &req); err != nil {
		return nil, err
	}
	if err := r.active(); err != nil {
		return nil, err
	}
	st := r.l.Steps[r.step]
	switch req.What {
	case "reference":
		r.script, r.next = st.Reference, 0
	case "demo":
		if len(st.Play) == 0 {
			return nil, fmt.Errorf("what: step %d of lesson %s has no demo (no play: list)", r.step, r.l.ID)
		}
		r.script, r.next = st.Play, 0
	case "continue":
		if r.next >= len(r.script) || r.script[r.next].Kind != lessons.ActPause {
			return nil, errors.New("what: nothing to continue: no demo is waiting at a pause")
		}
		r.next++ // past the pause
	default:
		return nil, BadRequest(`what: %q is not allowed; allowed: "reference", "demo", "continue"`, req.What)
	}
	n, err := r.playActions(r.l, r.script[r.next:], r.mark)
	r.next += n
	if err != nil {
		r.script, r.next = nil, 0
		return nil, err
	}
	if req.What == "reference" {
		// The page plays the reference again from the step's start (Show me, a talk's scene),
		// drawing its traffic as it happens; what the worker's own play sent is not news.
		r.s.showTraffic()
	}
	out := LessonPlayBody{Ran: n, Finished: r.next >= len(r.script), Check: r.status()}
	if out.Finished {
		r.script, r.next = nil, 0
	}
	return out, nil
}
