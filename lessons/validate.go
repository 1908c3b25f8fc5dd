package lessons

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/kraftlab/kraftlab/cluster"
	"github.com/kraftlab/kraftlab/cluster/control"
	"github.com/kraftlab/kraftlab/cluster/scenario"
	"github.com/kraftlab/kraftlab/engine/config"
)

// validate checks what parsing alone cannot: the scenario, every event action against the
// scenario format's rules (brokers, topics, configs and their values), every broker and
// partition a predicate names, and that the reference actions fit in the scenario's duration.
func validate(l *Lesson, p *lessonParser) error {
	sc, err := scenario.Parse(l.ScenarioJSON)
	if err != nil {
		return p.scenarioError(err)
	}
	if sc.Cluster == nil {
		return p.errf(p.scenarioLine, `scenario: a lesson runs the toy cluster: leave "mode" out or set it to "cluster"`)
	}
	l.Scenario, l.LimitMs = sc, sc.Cluster.DurationMs
	for _, ev := range sc.Cluster.Events {
		l.StartMs = max(l.StartMs, ev.AtMs)
	}
	if l.StartMs > l.LimitMs {
		return p.errf(p.scenarioLine, "start_ms: the first step would start at %d ms, after the scenario's duration_ms (%d)", l.StartMs, l.LimitMs)
	}

	// Every event action becomes an event of one scenario, at the time the reference reaches
	// it, so that the scenario parser checks it exactly as `kraftlab run` would.
	doc, err := scenarioDoc(l.ScenarioJSON)
	if err != nil {
		return p.scenarioError(err)
	}
	var events []json.RawMessage
	if raw, ok := doc["events"]; ok {
		if err := json.Unmarshal(raw, &events); err != nil {
			return p.scenarioError(err)
		}
	}
	setup := len(events)
	var acts []*Action // acts[k] is events[setup+k]
	cursor := l.StartMs
	add := func(a *Action, at int64) error {
		if a.raw == nil {
			return nil
		}
		ev := map[string]any{"at_ms": at}
		for k, v := range a.raw {
			ev[k] = v
		}
		b, err := json.Marshal(ev)
		if err != nil {
			return p.errf(a.Line, "%v", err)
		}
		events = append(events, b)
		acts = append(acts, a)
		return nil
	}
	for _, s := range l.Steps {
		// The demo, the other solutions and the wrong attempts each play from the step's start.
		for _, list := range append(append([][]Action{s.Play}, s.Solutions...), s.Rejects...) {
			playAt := cursor
			for i := range list {
				a := &list[i]
				if err := add(a, playAt); err != nil {
					return err
				}
				if a.Kind == ActWait || a.Kind == ActUntil {
					playAt += a.WaitMs
				}
			}
		}
		for i := range s.Reference {
			a := &s.Reference[i]
			if err := add(a, cursor); err != nil {
				return err
			}
			if a.Kind == ActWait || a.Kind == ActUntil {
				cursor += a.WaitMs
				if cursor > l.LimitMs {
					return p.errf(a.Line, "reference: the reference actions reach %d ms by here, past the scenario's duration_ms (%d); raise duration_ms or shorten the waits", cursor, l.LimitMs)
				}
			}
		}
	}
	doc["events"], _ = json.Marshal(events)
	doc["duration_ms"], _ = json.Marshal(max(l.LimitMs, cursor))
	full, _ := json.Marshal(doc)
	fsc, err := scenario.Parse(full)
	if err != nil {
		return p.eventError(err, setup, acts)
	}
	if len(acts) > 0 {
		l.events = full
	}
	for _, ev := range fsc.Cluster.Events {
		k := ev.Index - setup
		if k < 0 {
			continue
		}
		acts[k].Event, acts[k].event = ev.Event, ev.Index+1
		// Kafka refuses a static config at run time; say so now rather than when the step plays.
		if ev.Op == cluster.OpSetConfig {
			if def, ok := config.Lookup(ev.Name); ok && !def.Dynamic {
				return p.errf(acts[k].Line, "%q: %s is a static config (read from server.properties at start); Kafka refuses to change it at run time: set it in the scenario's \"config\" instead", acts[k].Source, ev.Name)
			}
		}
	}
	// What predicates may name: the cluster's brokers, controllers, and the partitions of its
	// topics and of those the actions create.
	brokers := sc.Cluster.Spec.Brokers
	parts := map[string]int{}
	for _, t := range sc.Cluster.Spec.Topics {
		parts[t.Name] = max(t.PartitionCount, len(t.Replicas))
	}
	for _, ev := range fsc.Cluster.Events {
		if ev.Op == cluster.OpCreateTopic {
			parts[ev.TopicSpec.Name] = max(ev.TopicSpec.PartitionCount, len(ev.TopicSpec.Replicas))
		}
	}
	ref := refChecker{brokers: brokers, parts: parts, controllers: max(sc.Cluster.Spec.Controllers, 1)}
	for _, s := range l.Steps {
		for _, g := range append(slices.Clone(s.Goals), s.Expects...) {
			if err := ref.check(g.Expr); err != nil {
				kind := "goal"
				if !slices.ContainsFunc(s.Goals, func(x Goal) bool { return x.Line == g.Line }) {
					kind = "expect"
				}
				return p.errf(g.Line, "%s: %v", kind, err)
			}
		}
		if q := s.Predict; q != nil {
			for _, o := range q.Options {
				if err := ref.check(o.Expr); err != nil {
					return p.errf(o.Line, "option: %v", err)
				}
			}
			if q.Timed() {
				if err := ref.check(q.When); err != nil {
					return p.errf(q.WhenLine, "when: %v", err)
				}
			}
		}
		all := append(slices.Clone(s.Reference), s.Play...)
		for _, acts := range append(slices.Clone(s.Solutions), s.Rejects...) {
			all = append(all, acts...)
		}
		for _, a := range all {
			if a.Until != nil {
				if err := ref.check(a.Until); err != nil {
					return p.errf(a.Line, "until: %v", err)
				}
			}
		}
	}
	return nil
}

// eventIndexRE is a scenario error's path "events[K].field" or "events[K]".
var eventIndexRE = &lazyRegexp{expr: `^events\[(\d+)\]\.?(.*)$`}

// eventIndex splits a scenario error's path "events[K].field" (or "events[K]") into K's
// digits and the field.
func eventIndex(path string) (k, field string, ok bool) {
	m := eventIndexRE.get().FindStringSubmatch(path)
	if m == nil {
		return "", "", false
	}
	return m[1], m[2], true
}

// eventError places a scenario error about the synthetic events at the action's line.
func (p *lessonParser) eventError(err error, setup int, acts []*Action) error {
	se, ok := err.(*scenario.Error)
	if !ok {
		return p.scenarioError(err)
	}
	num, field, ok := eventIndex(se.Path)
	if !ok {
		return p.scenarioError(err)
	}
	k, _ := strconv.Atoi(num)
	if k < setup || k-setup >= len(acts) {
		return p.scenarioError(err)
	}
	a := acts[k-setup]
	if field != "" {
		field += ": "
	}
	return p.errf(a.Line, "%q: %s%s", a.Source, field, se.Msg)
}

// refChecker checks the brokers, partitions and controllers a predicate names.
type refChecker struct {
	brokers     []int32
	parts       map[string]int
	controllers int
}

func (r refChecker) broker(id int32) error {
	if slices.Contains(r.brokers, id) {
		return nil
	}
	ids := make([]string, len(r.brokers))
	for i, b := range r.brokers {
		ids[i] = strconv.Itoa(int(b))
	}
	return fmt.Errorf("broker %d does not exist (brokers: %s)", id, strings.Join(ids, ", "))
}

func (r refChecker) partition(tp topicPartition) error {
	n, ok := r.parts[tp.Topic]
	if !ok {
		var names []string
		for t := range r.parts {
			names = append(names, t)
		}
		slices.Sort(names)
		return fmt.Errorf("topic %q does not exist (topics: %s)", tp.Topic, strings.Join(names, ", "))
	}
	if int(tp.Partition) >= n {
		return fmt.Errorf("partition %s does not exist (%s has partitions 0 to %d)", tp, tp.Topic, n-1)
	}
	return nil
}

func (r refChecker) check(e Expr) error {
	switch x := e.(type) {
	case *binary:
		if err := r.check(x.l); err != nil {
			return err
		}
		return r.check(x.r)
	case *not:
		return r.check(x.e)
	case *paren:
		return r.check(x.e)
	case *partitionNum:
		return r.partition(x.tp)
	case *partitionSet:
		if err := r.partition(x.tp); err != nil {
			return err
		}
		if x.op == "contains" {
			return r.broker(x.list[0])
		}
		for _, b := range x.list {
			if err := r.broker(b); err != nil {
				return err
			}
		}
	case *recovering:
		return r.partition(x.tp)
	case *brokerState:
		return r.broker(x.id)
	case *brokerCount:
		return r.broker(x.id)
	case *metric:
		if x.broker >= 0 {
			return r.broker(x.broker)
		}
	case *scalar:
		if x.name == "active_controller" && x.v >= 0 {
			first := int32(control.FirstVoterID)
			id := int32(x.v)
			if float64(id) != x.v || id < first || id >= first+int32(r.controllers) {
				return fmt.Errorf("active_controller: controller %s does not exist (controllers: %d to %d)", num(x.v), first, first+int32(r.controllers)-1)
			}
		}
	}
	return nil
}
