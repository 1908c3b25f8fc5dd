package lab

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strconv"

	"github.com/kraftlab/kraftlab/cluster"
	"github.com/kraftlab/kraftlab/engine/config"
	"github.com/kraftlab/kraftlab/engine/metadata"
)

// PlanResult is one run of a plan on one config.
type PlanResult struct {
	// Result is the run's summary, series and violation, as a comparison's runs have them.
	Result *RunResult    `json:"result"`
	Steps  []StepOutcome `json:"steps"`
	// Aborted says why the plan stopped before its end (a wait that timed out, a broker that
	// did not stop); empty when every step ran.
	Aborted string `json:"aborted,omitempty"`
	// LastStartMs is when the plan last started a broker (-1: never); BalancedAtMs the first
	// sample after it at which every broker led at least 99 % of its preferred partitions (-1:
	// not within the run); BalancedAfterMs their difference (-1 when either is missing).
	LastStartMs     int64 `json:"last_start_ms"`
	BalancedAtMs    int64 `json:"balanced_at_ms"`
	BalancedAfterMs int64 `json:"balanced_after_ms"`
	// UnderMinIsr counts, per sample, the partitions whose ISR was smaller than their
	// min.insync.replicas (Kafka's UnderMinIsrPartitionCount); Leaderless those without a
	// leader; UnderReplicated those whose ISR was smaller than their replicas.
	UnderMinIsr     []int `json:"under_min_isr"`
	Leaderless      []int `json:"leaderless"`
	UnderReplicated []int `json:"under_replicated"`
	// AtRisk are the partitions that spent time under min.insync.replicas or without a leader,
	// the longest first.
	AtRisk []PartitionRisk `json:"at_risk"`
	// RolledConfigs are the controller-side static configs the run's roll-controllers steps
	// rolled out (rollout.go); empty when the run's configs held from its start.
	RolledConfigs []string `json:"rolled_configs,omitempty"`
	// RolledInMs is when they took effect: the first poll at which the active controller was
	// one restarted with them (InController); -1 if none became active. 0 without RolledConfigs.
	RolledInMs   int64 `json:"rolled_in_ms"`
	InController int32 `json:"in_controller,omitempty"`
}

// StepOutcome is what one broker's (or, for roll-controllers, one controller's) part of a step did: when it was stopped, was down,
// started, and when the wait for no under-replicated partition ended.
type StepOutcome struct {
	Line      int    `json:"line"`
	Kind      string `json:"kind"`
	Broker    int32  `json:"broker"`
	AtMs      int64  `json:"at_ms"`
	StoppedMs int64  `json:"stopped_ms"`
	StartedMs int64  `json:"started_ms"`
	// ReadyMs is when the broker was running and no partition was under-replicated, or the
	// controller had caught up with the log committed when it started and a controller was
	// active (-1 when the wait timed out).
	ReadyMs  int64 `json:"ready_ms"`
	TimedOut bool  `json:"timed_out,omitempty"`
}

// PartitionRisk is a partition that spent time under min.insync.replicas (acks=all writes
// refused) or without a leader (unavailable), measured at the samples.
type PartitionRisk struct {
	Topic         string `json:"topic"`
	Partition     int32  `json:"partition"`
	UnderMinIsrMs int64  `json:"under_min_isr_ms"`
	LeaderlessMs  int64  `json:"leaderless_ms"`
}

// Name is "topic-partition", as Kafka's tools print it.
func (p PartitionRisk) Name() string { return fmt.Sprintf("%s-%d", p.Topic, p.Partition) }

// Poll intervals of a plan's waits: a stop is checked every second, readiness (no
// under-replicated partition) every 5 s, about as often as operators poll.
const (
	stopPollMs  = 1_000
	readyPollMs = 5_000
)

// planDoc is a scenario for a plan: its own events dropped (the plan drives the cluster) and
// its duration the plan's bound, which sizes nothing but the memory estimate.
func planDoc(doc []byte, plan *Plan, brokers int) ([]byte, error) {
	var root map[string]any
	dec := json.NewDecoder(bytes.NewReader(doc))
	dec.UseNumber()
	if err := dec.Decode(&root); err != nil {
		return nil, err
	}
	root["events"] = []any{}
	root["duration_ms"] = min(plan.boundMs(brokers), maxDurationMs)
	return marshalDoc(root)
}

// planRun drives one cluster through a plan.
type planRun struct {
	r        *Runner
	c        *cluster.Cluster
	res      *PlanResult
	ro       *rollout
	rolled   []int32 // controllers restarted with the rollout's configs
	progress func(nowMs int64) error
	// per-sample observation
	seen    int
	minIsr  []int // by topic index
	risk    map[int32]*PartitionRisk
	lastErr error
}

// RunPlan runs a plan on a scenario (a cluster-mode file; its own events are dropped unread). It is a
// pure function of the file and the plan. progress, if set, gets the scenario time reached
// between polls; an error from it stops the run with that error (RunPlanComparison's stops it
// when its context is done). It takes no context itself: the page's worker plays plans too,
// and a context.Context in the wasm brings time.Time's formatting and parsing into lab.wasm
// (about 140 KB before compression) for no deadline it would use.
func RunPlan(doc []byte, plan *Plan, progress func(nowMs int64) error) (*PlanResult, error) {
	return runPlan(doc, readPlanFile, plan, nil, progress)
}

// runPlan is RunPlan with the file read by read (a PlanSetup's reader, or readPlanFile) and a
// rollout: the configs its roll-controllers steps restart the controllers with (nil: the ones
// they run with).
func runPlan(doc []byte, read reader, plan *Plan, ro *rollout, progress func(nowMs int64) error) (*PlanResult, error) {
	probe, err := read(doc)
	if err != nil {
		return nil, err
	}
	if err := plan.Validate(probe.Cluster.Spec.Brokers); err != nil {
		return nil, &InputError{err}
	}
	pd, err := planDoc(doc, plan, len(probe.Cluster.Spec.Brokers))
	if err != nil {
		return nil, err
	}
	s, err := read(pd) // planDoc left no events
	if err != nil {
		return nil, err
	}
	r, err := newRunner(pd, s)
	if err != nil {
		return nil, err
	}
	p := &planRun{r: r, c: r.c, res: &PlanResult{LastStartMs: -1, BalancedAtMs: -1, BalancedAfterMs: -1},
		progress: progress, risk: map[int32]*PartitionRisk{}, ro: ro}
	if ro != nil {
		p.res.RolledConfigs, p.res.RolledInMs = ro.names, -1
	}
	if err := p.play(plan); err != nil {
		return nil, err
	}
	res := p.res
	res.Result = r.Result()
	res.Result.DurationMs = r.c.Now()
	for _, pr := range p.risk {
		res.AtRisk = append(res.AtRisk, *pr)
	}
	risk := res.AtRisk // sort.Slice, not slices.SortFunc: see "Sorting for the wasm" in doc.go
	sort.Slice(risk, func(i, j int) bool {
		a, b := risk[i], risk[j]
		if c := cmp.Compare(b.UnderMinIsrMs+b.LeaderlessMs, a.UnderMinIsrMs+a.LeaderlessMs); c != 0 {
			return c < 0
		}
		if c := cmp.Compare(a.Topic, b.Topic); c != 0 {
			return c < 0
		}
		return a.Partition < b.Partition
	})
	p.balance()
	return res, nil
}

// play runs the warm-up, the steps and the tail. A violation ends it early (the result says
// so); only a cancelled context or a simulation failure is an error.
func (p *planRun) play(plan *Plan) error {
	if stop, err := p.advance(PlanWarmupMs); stop || err != nil {
		return err
	}
	brokers := p.c.BrokerIDs()
	slices.Sort(brokers)
	for _, st := range plan.Steps {
		ids := st.Brokers
		if st.Kind == StepRollingRestart && ids == nil {
			ids = brokers
		}
		if st.Kind == StepPause {
			if stop, err := p.advance(p.c.Now() + st.DownMs); stop || err != nil {
				return err
			}
			continue
		}
		if st.Kind == StepRollControllers {
			if stop, err := p.rollControllers(st); stop || err != nil {
				return err
			}
			if p.res.Aborted != "" || p.c.Err() != nil {
				break
			}
			continue
		}
		for _, id := range ids {
			stop, err := p.restart(st, id)
			if err != nil {
				return err
			}
			if stop || p.res.Aborted != "" {
				break
			}
		}
		if p.res.Aborted != "" || p.c.Err() != nil {
			break
		}
	}
	_, err := p.advance(p.c.Now() + PlanTailMs)
	return err
}

// restart stops one broker as the step says, keeps it down, starts it and waits until it runs
// and no partition is under-replicated.
func (p *planRun) restart(st PlanStep, id int32) (stop bool, err error) {
	out := StepOutcome{Line: st.Line, Kind: st.Kind, Broker: id, AtMs: p.c.Now(), StoppedMs: -1, StartedMs: -1, ReadyMs: -1}
	defer func() { p.res.Steps = append(p.res.Steps, out) }()
	op := cluster.OpKill
	if st.Kind == StepRollingRestart || st.Kind == StepShutdown {
		op = cluster.OpShutdown
	}
	if err := p.c.Do(cluster.Event{Op: op, Broker: id}); err != nil {
		p.res.Aborted = fmt.Sprintf("line %d: broker %d could not be stopped: %v", st.Line, id, err)
		return p.c.Err() != nil, nil
	}
	deadline := p.c.Now() + st.TimeoutMs
	stopped, stop, err := p.waitFor(stopPollMs, deadline, func() bool {
		v, _ := p.c.BrokerNow(id)
		return v.State == "not_running"
	})
	if stop || err != nil {
		return stop, err
	}
	if !stopped {
		out.TimedOut = true
		p.res.Aborted = fmt.Sprintf("line %d: broker %d had not stopped after %s", st.Line, id, msText(st.TimeoutMs))
		return false, nil
	}
	out.StoppedMs = p.c.Now()
	if st.Kind == StepReplaceDisk {
		if err := p.c.Do(cluster.Event{Op: cluster.OpDiskSwap, Broker: id}); err != nil {
			p.res.Aborted = fmt.Sprintf("line %d: broker %d's disk could not be replaced: %v", st.Line, id, err)
			return p.c.Err() != nil, nil
		}
	}
	if stop, err := p.advance(p.c.Now() + st.DownMs); stop || err != nil {
		return stop, err
	}
	if err := p.c.Do(cluster.Event{Op: cluster.OpStart, Broker: id}); err != nil {
		p.res.Aborted = fmt.Sprintf("line %d: broker %d could not be started: %v", st.Line, id, err)
		return p.c.Err() != nil, nil
	}
	out.StartedMs = p.c.Now()
	p.res.LastStartMs = out.StartedMs
	ready, stop, err := p.waitFor(readyPollMs, out.StartedMs+st.TimeoutMs, func() bool {
		v, _ := p.c.BrokerNow(id)
		return v.State == "running" && !v.Fenced && p.c.UnderReplicated() == 0
	})
	if stop || err != nil {
		return stop, err
	}
	if !ready {
		out.TimedOut = true
		p.res.Aborted = fmt.Sprintf("line %d: after broker %d started, %s still under-replicated at the %s timeout; the plan stops there, as an operator's roll would",
			st.Line, id, plural(p.c.UnderReplicated(), "partition was", "partitions were"), msText(st.TimeoutMs))
		return false, nil
	}
	out.ReadyMs = p.c.Now()
	return false, nil
}

// rollControllers restarts every controller in turn, the standbys in id order and the active
// one last (so that leadership moves once), each down for the step's DownMs and started with
// the rollout's configs, and waits after each until it has caught up with the log committed
// when it started and a controller is active.
func (p *planRun) rollControllers(st PlanStep) (stop bool, err error) {
	ctl := p.c.Controllers()
	active, _, _ := ctl.Active()
	var order []int32
	for _, id := range ctl.Voters() {
		if id != active {
			order = append(order, id)
		}
	}
	slices.Sort(order)
	if slices.Contains(ctl.Voters(), active) {
		order = append(order, active)
	}
	for _, id := range order {
		out := StepOutcome{Line: st.Line, Kind: st.Kind, Broker: id, AtMs: p.c.Now(), StoppedMs: -1, StartedMs: -1, ReadyMs: -1}
		stop, err := p.rollController(st, id, &out)
		p.res.Steps = append(p.res.Steps, out)
		if stop || err != nil || p.res.Aborted != "" {
			return stop, err
		}
	}
	return false, nil
}

// rollController restarts one controller for rollControllers.
func (p *planRun) rollController(st PlanStep, id int32, out *StepOutcome) (stop bool, err error) {
	ctl := p.c.Controllers()
	name := strconv.Itoa(int(id))
	if err := p.c.Do(cluster.Event{Op: cluster.OpKillController, Controller: name}); err != nil {
		p.res.Aborted = fmt.Sprintf("line %d: controller %d could not be stopped: %v", st.Line, id, err)
		return p.c.Err() != nil, nil
	}
	out.StoppedMs = p.c.Now()
	if stop, err := p.advance(p.c.Now() + st.DownMs); stop || err != nil {
		return stop, err
	}
	if p.ro != nil {
		err = ctl.Start(id, p.ro.static)
		p.rolled = append(p.rolled, id)
	} else {
		err = p.c.Do(cluster.Event{Op: cluster.OpStartController, Controller: name})
	}
	if err != nil {
		p.res.Aborted = fmt.Sprintf("line %d: controller %d could not be started: %v", st.Line, id, err)
		return p.c.Err() != nil, nil
	}
	out.StartedMs = p.c.Now()
	target := int64(-1)
	if a, _, ok := ctl.Active(); ok {
		if v, err := ctl.Node(a); err == nil {
			target = v.HighWatermark
		}
	}
	ready, stop, err := p.waitFor(stopPollMs, out.StartedMs+st.TimeoutMs, func() bool {
		v, err := ctl.Node(id)
		_, _, ok := ctl.Active()
		return err == nil && ok && v.Running && v.Applied >= target
	})
	if stop || err != nil {
		return stop, err
	}
	if !ready {
		out.TimedOut = true
		p.res.Aborted = fmt.Sprintf("line %d: controller %d had not caught up with the metadata log %s after its start; the plan stops there", st.Line, id, msText(st.TimeoutMs))
		return false, nil
	}
	out.ReadyMs = p.c.Now()
	return false, nil
}

// noteRolledIn records when a controller restarted with the rollout's configs first became
// the active one.
func (p *planRun) noteRolledIn() {
	if p.ro == nil || p.res.RolledInMs >= 0 || len(p.rolled) == 0 {
		return
	}
	if a, _, ok := p.c.Controllers().Active(); ok && slices.Contains(p.rolled, a) {
		p.res.RolledInMs, p.res.InController = p.c.Now(), a
	}
}

// waitFor polls cond every pollMs until it holds or deadline passes.
func (p *planRun) waitFor(pollMs, deadline int64, cond func() bool) (ok, stop bool, err error) {
	for {
		if cond() {
			return true, false, nil
		}
		if p.c.Now() >= deadline {
			return false, false, nil
		}
		if stop, err := p.advance(min(p.c.Now()+pollMs, deadline)); stop || err != nil {
			return false, stop, err
		}
	}
}

// advance runs the cluster to ms, a second at a time at most between progress calls and
// samples' observation. stop is true when a violation ended the run.
func (p *planRun) advance(ms int64) (stop bool, err error) {
	for p.c.Now() < ms {
		next := min(ms, p.c.Now()+60_000)
		if err := p.c.RunUntil(next); err != nil {
			if p.c.Err() != nil {
				p.observe()
				return true, nil
			}
			return true, fmt.Errorf("cluster: the run stopped at %d ms: %w", p.c.Now(), err)
		}
		p.observe()
		p.noteRolledIn()
		if p.progress != nil {
			if err := p.progress(p.c.Now()); err != nil {
				return true, err
			}
		}
	}
	return p.c.Err() != nil, nil
}

// observe reads the samples taken since the last call: at each, the partitions under
// min.insync.replicas or without a leader, by name.
func (p *planRun) observe() {
	samples := p.c.Samples()
	view := p.c.View()
	for ; p.seen < len(samples); p.seen++ {
		s := samples[p.seen]
		interval := int64(SampleMs)
		if p.seen > 0 {
			interval = s.TimeMs - samples[p.seen-1].TimeMs
		}
		under, leaderless := 0, 0
		for i := range view.Partitions {
			part := &view.Partitions[i]
			top := &view.Topics[part.Topic]
			if top.Deleted {
				continue
			}
			noLeader := part.Leader == metadata.NoLeader
			short := part.IsrLen() < p.topicMinIsr(part.Topic, len(part.Replicas()))
			if !noLeader && !short {
				continue
			}
			r := p.risk[int32(i)]
			if r == nil {
				r = &PartitionRisk{Topic: top.Name, Partition: part.ID}
				p.risk[int32(i)] = r
			}
			if short {
				under++
				r.UnderMinIsrMs += interval
			}
			if noLeader {
				leaderless++
				r.LeaderlessMs += interval
			}
		}
		p.res.UnderMinIsr = append(p.res.UnderMinIsr, under)
		p.res.Leaderless = append(p.res.Leaderless, leaderless)
		p.res.UnderReplicated = append(p.res.UnderReplicated, s.UnderReplicated)
	}
}

// topicMinIsr is a topic's min.insync.replicas (the topic's config, else the cluster's), capped
// at the partition's replicas as the controller caps it (Controller.minIsr).
func (p *planRun) topicMinIsr(t int32, replicas int) int {
	for int(t) >= len(p.minIsr) {
		p.minIsr = append(p.minIsr, 0)
	}
	if p.minIsr[t] == 0 {
		top := &p.c.View().Topics[t]
		p.minIsr[t] = int(config.Int64(config.MinInsyncReplicas, &top.Configs, &p.r.cs.Spec.Static))
	}
	return min(p.minIsr[t], replicas)
}

// balance finds the first sample after the last start at which every broker led at least 99 %
// of its preferred partitions.
func (p *planRun) balance() {
	res := p.res
	if res.LastStartMs < 0 {
		return
	}
	for _, s := range p.c.Samples() {
		if s.TimeMs < res.LastStartMs {
			continue
		}
		ok := true
		for _, b := range s.Brokers {
			if float64(b.PreferredLed) < 0.99*float64(b.PreferredTotal) {
				ok = false
				break
			}
		}
		if ok {
			res.BalancedAtMs, res.BalancedAfterMs = s.TimeMs, s.TimeMs-res.LastStartMs
			return
		}
	}
}

// msText writes a duration for people: 10 min, 45 s, 1 h 5 min.
func msText(ms int64) string {
	switch {
	case ms < 0:
		return "—"
	case ms < 60_000:
		return fmt.Sprintf("%.0f s", float64(ms)/1000)
	case ms < 3_600_000:
		if ms%60_000 == 0 {
			return fmt.Sprintf("%d min", ms/60_000)
		}
		return fmt.Sprintf("%d min %d s", ms/60_000, ms%60_000/1000)
	}
	return fmt.Sprintf("%d h %d min", ms/3_600_000, ms%3_600_000/60_000)
}
