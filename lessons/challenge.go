package lessons

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/kraftlab/kraftlab/cluster"
)

// MaxHints is how many hints a step may have: each is revealed on request, and a fourth is
// better written as the step's text or left to "Show me".
const MaxHints = 3

// Prediction is a question the learner answers before the step's run plays ("which broker
// leads payments-0 after the fence?"). Each option carries a predicate; once the step is done,
// the option that holds is what happened, and the reveal says why, right or wrong. Verify
// checks that exactly one option holds after the reference actions, so the answer comes from
// the simulation, never from the author's memory.
//
// A timed prediction ("how long until broker 1 leads again?") has no options: the learner
// marks a moment on a timeline of the step, from its start to SpanMs later, and the answer is
// the moment When first holds in the learner's run. AnswerMs is the author's answer, which
// Verify requires within ToleranceMs of the moment the reference run gives; a learner's mark
// within ToleranceMs of what happened is right.
type Prediction struct {
	Line     int
	Question string
	Options  []Option
	// Reveal is Markdown: why it happened, shown once the step is done.
	Reveal string

	// When is a timed prediction's moment: the step time at which it first holds. nil for a
	// prediction with options.
	When       Expr
	WhenSource string
	WhenLine   int
	// AnswerMs, ToleranceMs and SpanMs are step times: the author's answer, how far off a
	// mark may be and still be right, and the timeline's length.
	AnswerMs, ToleranceMs, SpanMs int64
}

// Timed reports whether the learner answers on a timeline rather than by an option.
func (p *Prediction) Timed() bool { return p.When != nil }

// Option is one answer to a prediction.
type Option struct {
	Line   int
	Label  string
	Source string
	Expr   Expr
	// Broker is the broker the label names ("Broker 2"): the learner may answer by clicking
	// it on the canvas. -1 when the label names none.
	Broker int32
}

// Answer returns the index of the one option that holds now, or -1 when none or several do,
// with each option's explanation.
func (p *Prediction) Answer(c *cluster.Cluster, m Mark) (int, []string) {
	answer, why := -1, make([]string, len(p.Options))
	for i, o := range p.Options {
		ok, w := Eval(o.Expr, c, m)
		why[i] = w
		if ok {
			if answer >= 0 {
				return -1, why
			}
			answer = i
		}
	}
	return answer, why
}

// optionBroker reads "Broker N" (any case) as broker N, else -1.
func optionBroker(label string) int32 {
	rest, ok := strings.CutPrefix(strings.ToLower(strings.TrimSpace(label)), "broker ")
	if !ok {
		return -1
	}
	n, err := strconv.ParseInt(rest, 10, 32)
	if err != nil || n < 0 {
		return -1
	}
	return int32(n)
}

// Challenge reports whether the step is a challenge: a goal that is a state, reached the
// learner's own way, with other correct solutions besides the reference.
func (s *Step) Challenge() bool { return len(s.Solutions) > 0 }

// Picture is a small view of a cluster state, what a goal looks like: each broker's state and
// leader count, and the partitions the step's goals name (who leads, who is in the ISR). The
// page draws the step's goal picture (the state its reference reaches) beside the learner's
// current one and marks where they differ.
type Picture struct {
	Brokers    []PictureBroker    `json:"brokers"`
	Partitions []PicturePartition `json:"partitions"`
}

// PictureBroker is one broker in a Picture. State is "stopped", "starting" (registering,
// recovering logs, catching up), "fenced", "shutting_down", "gated" or "up".
type PictureBroker struct {
	ID      int32  `json:"id"`
	State   string `json:"state"`
	Leaders int    `json:"leaders"`
}

// PicturePartition is one partition in a Picture; Leader -1 is none.
type PicturePartition struct {
	Name     string  `json:"name"`
	Leader   int32   `json:"leader"`
	Isr      []int32 `json:"isr"`
	Replicas []int32 `json:"replicas"`
}

// maxPicturePartitions: when no goal names a partition, a picture shows every partition of a
// cluster that has at most this many, and none of a larger one.
const maxPicturePartitions = 3

// PicturePartitions are the partitions a step's picture shows: those its goals name, in the
// order they first appear.
func (s *Step) PicturePartitions() []string {
	var out []string
	for _, g := range s.Goals {
		walkExpr(g.Expr, func(e Expr) {
			var tp *topicPartition
			switch a := e.(type) {
			case *partitionNum:
				tp = &a.tp
			case *partitionSet:
				tp = &a.tp
			case *recovering:
				tp = &a.tp
			}
			if tp != nil && !slices.Contains(out, tp.String()) {
				out = append(out, tp.String())
			}
		})
	}
	return out
}

func walkExpr(e Expr, f func(Expr)) {
	f(e)
	switch a := e.(type) {
	case *binary:
		walkExpr(a.l, f)
		walkExpr(a.r, f)
	case *not:
		walkExpr(a.e, f)
	case *paren:
		walkExpr(a.e, f)
	}
}

// Snapshot pictures the cluster now: every broker and the named partitions ("payments-0").
func Snapshot(c *cluster.Cluster, partitions []string) Picture {
	pic := Picture{Brokers: []PictureBroker{}, Partitions: []PicturePartition{}}
	for _, id := range c.BrokerIDs() {
		b, ok := c.BrokerNow(id)
		if !ok {
			continue
		}
		state := "up"
		switch {
		case b.State == "not_running":
			state = "stopped"
		case b.State == "starting" || b.State == "recovery":
			state = "starting"
		case b.State == "shutting_down" || b.State == "pending_controlled_shutdown" || b.InControlledShutdown:
			state = "shutting_down"
		case !b.Registered || b.Fenced:
			state = "fenced"
		case b.Gated:
			state = "gated"
		}
		pic.Brokers = append(pic.Brokers, PictureBroker{ID: id, State: state, Leaders: b.Leaders})
	}
	for _, name := range partitions {
		tp, err := parseTopicPartition("partition", name)
		if err != nil {
			continue
		}
		p, ok := c.PartitionNow(tp.Topic, tp.Partition)
		if !ok {
			continue
		}
		pic.Partitions = append(pic.Partitions, PicturePartition{Name: name, Leader: p.Leader,
			Isr: append([]int32{}, p.Isr...), Replicas: append([]int32{}, p.Replicas...)})
	}
	return pic
}

// GoalPictures replays the lesson and pictures the state each step's reference reaches (nil
// for a sandbox): the goal the page draws. The compiled course carries them, so the page
// shows a goal without replaying anything.
func (l *Lesson) GoalPictures() ([]*Picture, error) {
	c, err := l.Build()
	if err != nil {
		return nil, err
	}
	out := make([]*Picture, len(l.Steps))
	for i, s := range l.Steps {
		if s.From != nil {
			if c, _, err = l.Checkpoint(i); err != nil {
				return nil, err
			}
		}
		if _, err := l.Play(c, s.Reference, MarkNow(c)); err != nil {
			return nil, err
		}
		if !s.Sandbox() {
			names := s.PicturePartitions()
			if all := c.Partitions(); len(names) == 0 && len(all) <= maxPicturePartitions {
				for _, p := range all {
					names = append(names, topicPartition{Topic: p.Topic, Partition: p.Partition}.String())
				}
			}
			p := Snapshot(c, names)
			out[i] = &p
		}
	}
	return out, nil
}

// ModelMark opens a figure that comes from the model's assumptions rather than from Kafka
// (log recovery time, catch-up rates, latencies): "{model: 120 s}". The page draws every such
// figure the same way, with a "model" tag, in every lesson and talk.
const ModelMark = "{model:"

// checkModelMarks checks that every model figure in a text is closed on its line and says
// something.
func checkModelMarks(text string) error {
	for ln, line := range strings.Split(text, "\n") {
		rest := line
		for {
			i := strings.Index(rest, ModelMark)
			if i < 0 {
				break
			}
			rest = rest[i+len(ModelMark):]
			j := strings.IndexByte(rest, '}')
			if j < 0 {
				return fmt.Errorf("text line %d: a %s figure} is not closed with } on its line", ln+1, ModelMark)
			}
			if strings.TrimSpace(rest[:j]) == "" {
				return fmt.Errorf("text line %d: a %s figure} is empty", ln+1, ModelMark)
			}
			rest = rest[j+1:]
		}
	}
	return nil
}
