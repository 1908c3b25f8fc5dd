package lab

import (
	"context"
	"errors"
)

// Rehearsal is RunPlanComparison stepped by its caller, for a Web Worker: Step lets each run
// advance by a slice of scenario time and returns, so that the worker can post progress and
// read a cancel message between slices. The runs play one after the other on goroutines that
// wait for their turn (only one ever runs), so the figures are RunPlanComparison's.
type Rehearsal struct {
	plan      *Plan
	candidate Policy
	docs      [][]byte // current, candidate, baseline (dedup'd: cur/cand/base index them)
	cur, cand int
	base      int
	runs      []*steppedRun
	next      int // the run being stepped
	ctx       context.Context
	cancel    context.CancelFunc
	bound     int64 // scenario time bound of one run, for progress
}

type steppedRun struct {
	resume chan int64 // the scenario time to run until
	paused chan int64 // the time reached, when it paused
	done   chan struct{}
	res    *PlanResult
	err    error
	now    int64
	start  bool
}

// NewRehearsal prepares the plan's runs under the current config (doc) and the candidate, and
// the immediate baseline when it differs from both.
func NewRehearsal(doc []byte, plan *Plan, candidate Policy) (*Rehearsal, error) {
	probe, err := parseCluster(doc, "the lab runs cluster-mode scenarios")
	if err != nil {
		return nil, err
	}
	if err := plan.Validate(probe.Cluster.Spec.Brokers); err != nil {
		return nil, &InputError{err}
	}
	candDoc, err := ApplyOverrides(doc, candidate.Overrides)
	if err != nil {
		return nil, inputErrorf("candidate %q: %w", candidate.Name, err)
	}
	baseDoc, err := ApplyOverrides(doc, ImmediateOverrides())
	if err != nil {
		return nil, err
	}
	var b batch
	r := &Rehearsal{plan: plan, candidate: candidate, cur: b.add(doc), cand: b.add(candDoc), base: b.add(baseDoc),
		bound: plan.boundMs(len(probe.Cluster.Spec.Brokers))}
	r.docs = b.docs
	r.ctx, r.cancel = context.WithCancel(context.Background())
	for range r.docs {
		r.runs = append(r.runs, &steppedRun{resume: make(chan int64), paused: make(chan int64), done: make(chan struct{})})
	}
	return r, nil
}

// Runs is how many runs the rehearsal plays (two or three).
func (r *Rehearsal) Runs() int { return len(r.runs) }

// Step advances the run being played by up to ms of scenario time (starting the next run when
// one finishes) and returns whether every run is done and the share of the work done, from 0
// to 1 (a run's share is its scenario time over the plan's bound, 1 once finished).
func (r *Rehearsal) Step(ms int64) (done bool, progress float64, err error) {
	if r.next < len(r.runs) {
		s := r.runs[r.next]
		i := r.next
		if !s.start {
			s.start = true
			go func() {
				defer close(s.done)
				target := <-s.resume
				s.res, s.err = RunPlan(r.ctx, r.docs[i], r.plan, func(now int64) {
					if now >= target {
						s.paused <- now
						target = <-s.resume
					}
				})
			}()
		}
		s.resume <- s.now + max(ms, 1)
		select {
		case s.now = <-s.paused:
		case <-s.done:
			if s.err != nil {
				return true, 1, s.err
			}
			r.next++
		}
	}
	p := float64(r.next)
	if r.next < len(r.runs) {
		p += min(1, float64(r.runs[r.next].now)/float64(max(r.bound, 1)))
	}
	return r.next == len(r.runs), p / float64(len(r.runs)), nil
}

// Comparison judges the finished runs, as RunPlanComparison does.
func (r *Rehearsal) Comparison() (*PlanComparison, error) {
	if r.next < len(r.runs) {
		return nil, errors.New("lab: the rehearsal has not finished")
	}
	res := func(i int) *PlanResult { return r.runs[i].res }
	pc := &PlanComparison{Plan: r.plan, Baseline: res(r.base)}
	mk := func(name string, i int, ovs []Override) PlanRun {
		return PlanRun{Policy: Policy{Name: name, Overrides: ovs}, Scenario: r.docs[i], Result: res(i),
			Verdicts: Verdicts(res(i).Result, res(r.base).Result)}
	}
	pc.Current = mk("current", r.cur, nil)
	pc.Candidate = mk("candidate: "+r.candidate.Name, r.cand, r.candidate.Overrides)
	return pc, nil
}

// Close stops a rehearsal that will not be stepped to its end: the paused run's goroutine
// returns at its next check.
func (r *Rehearsal) Close() {
	r.cancel()
	if r.next < len(r.runs) && r.runs[r.next].start {
		s := r.runs[r.next]
		select {
		case s.resume <- s.now:
		case <-s.done:
		}
		<-s.done
	}
}
