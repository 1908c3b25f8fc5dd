package lab

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/kraftlab/kraftlab/cluster"
)

// Rehearsal is RunPlanComparison stepped by its caller, for a Web Worker: Step lets each run
// advance by a slice of scenario time and returns, so that the worker can post progress and
// read a cancel message between slices. The runs play one after the other on goroutines that
// wait for their turn (only one ever runs), so the figures are RunPlanComparison's.
type Rehearsal struct {
	plan      *Plan
	candidate Policy
	docs      [][]byte   // current, candidate, baseline (dedup'd: cur/cand/base index them)
	read      reader     // reads docs: the setup's, whose partitions they share
	rolls     []*rollout // per run: the candidate's rollout (rollout.go), else nil
	cur, cand int
	base      int
	runs      []*steppedRun
	next      int // the run being stepped
	// closed is set by Close, while every run's goroutine waits for its turn; the run that
	// wakes up then stops (RunPlan's progress returns an error).
	closed bool
	bound  int64 // scenario time bound of one run, for progress
	// only, when 0 or more, is the one run this rehearsal plays (PlayOnly); the others come
	// from other workers through Adopt.
	only int
}

// errRehearsalClosed ends the run that was waiting when its rehearsal was closed.
var errRehearsalClosed = errors.New("lab: the rehearsal was closed")

// steppedRun is one run of a Rehearsal and the goroutine that plays it. The stepper sends the
// goroutine the scenario time to run until on resume and then takes one message from paused:
// the time the run reached, or runFinished once runPlan has returned (res and err are set by
// then). One channel each way, without a select, keeps the runtime's select code out of
// rehearse.wasm (20 KB raw; about 1 KB brotli, inside the spread a version string makes), the
// program nearest its size budget (docs/performance.md, "The edit loop").
type steppedRun struct {
	resume   chan int64 // the scenario time to run until
	paused   chan int64 // the time reached, when it paused, or runFinished
	res      *PlanResult
	err      error
	now      int64
	start    bool
	finished bool // the goroutine has sent runFinished and returned
}

// runFinished is what a run's goroutine sends on paused when runPlan has returned: scenario
// time is never negative.
const runFinished = -1

// NewRehearsal prepares the plan's runs under the current config (doc, a cluster-mode file)
// and the candidate, and the immediate baseline when it differs from both.
func NewRehearsal(doc []byte, plan *Plan, candidate Policy) (*Rehearsal, error) {
	return (&PlanSetup{doc: doc}).Rehearsal(plan, candidate)
}

// Rehearsal is NewRehearsal on the setup: the current config's run is the setup's, and the
// candidate's and the baseline's are its file with their overrides, the partitions given apart
// shared by all. Its runs, verdicts and report are those of NewRehearsal on the same cluster
// written as one file. Preparing a run writes and checks its file only: its cluster is built
// when the run is first stepped, so a rehearsal that plays one run (PlayOnly) builds one.
func (s *PlanSetup) Rehearsal(plan *Plan, candidate Policy) (*Rehearsal, error) {
	doc, read := s.doc, s.reader()
	probe, err := read(doc)
	if err != nil {
		return nil, err
	}
	if err := plan.Validate(probe.Cluster.Spec.Brokers); err != nil {
		return nil, &InputError{err}
	}
	candDoc, ro, err := planCandidate(doc, read, plan, candidate)
	if err != nil {
		return nil, err
	}
	baseDoc, err := applyChecked(doc, ImmediateOverrides(), read)
	if err != nil {
		return nil, err
	}
	var b batch
	r := &Rehearsal{plan: plan, candidate: candidate, read: read, cur: b.add(doc), bound: plan.boundMs(len(probe.Cluster.Spec.Brokers))}
	if ro != nil {
		r.cand = b.addApart(candDoc)
	} else {
		r.cand = b.add(candDoc)
	}
	r.base = b.add(baseDoc)
	r.docs, r.only = b.docs, -1
	r.rolls = make([]*rollout, len(r.docs))
	r.rolls[r.cand] = ro
	for range r.docs {
		r.runs = append(r.runs, &steppedRun{resume: make(chan int64), paused: make(chan int64)})
	}
	return r, nil
}

// Runs is how many runs the rehearsal plays (two or three).
func (r *Rehearsal) Runs() int { return len(r.runs) }

// Step advances the run being played by up to ms of scenario time (starting the next run when
// one finishes) and returns whether every run is done and the share of the work done, from 0
// to 1 (a run's share is its scenario time over the plan's bound, 1 once finished).
func (r *Rehearsal) Step(ms int64) (done bool, progress float64, err error) {
	if r.only >= 0 {
		return r.stepOnly(ms)
	}
	if r.next < len(r.runs) {
		if err := r.stepRun(r.next, ms); err != nil {
			return true, 1, err
		}
		if r.runs[r.next].res != nil {
			r.next++
		}
	}
	p := float64(r.next)
	if r.next < len(r.runs) {
		p += min(1, float64(r.runs[r.next].now)/float64(max(r.bound, 1)))
	}
	return r.next == len(r.runs), p / float64(len(r.runs)), nil
}

// stepRun lets run i advance by up to ms of scenario time, starting its goroutine the first
// time; the run's res is set once it has finished.
func (r *Rehearsal) stepRun(i int, ms int64) error {
	s := r.runs[i]
	if s.finished {
		return s.err
	}
	if !s.start {
		s.start = true
		go func() {
			target := <-s.resume
			res, err := runPlan(r.docs[i], r.read, r.plan, r.rolls[i], func(now int64) error {
				if now >= target {
					s.paused <- now
					target = <-s.resume
				}
				if r.closed {
					return errRehearsalClosed
				}
				return nil
			})
			s.err = err
			if err == nil {
				s.res = res
			}
			s.paused <- runFinished
		}()
	}
	s.resume <- s.now + max(ms, 1)
	if now := <-s.paused; now != runFinished {
		s.now = now
	} else {
		s.finished = true
	}
	return s.err
}

// Comparison judges the finished runs, as RunPlanComparison does.
func (r *Rehearsal) Comparison() (*PlanComparison, error) {
	for _, s := range r.runs {
		if s.res == nil {
			return nil, errors.New("lab: the rehearsal has not finished")
		}
	}
	res := func(i int) *PlanResult { return r.runs[i].res }
	pc := &PlanComparison{Plan: r.plan, Baseline: res(r.base)}
	mk := func(name string, i int, ovs []Override) PlanRun {
		return PlanRun{Policy: Policy{Name: name, Overrides: ovs}, Scenario: r.docs[i], Result: res(i),
			Verdicts: Verdicts(res(i).Result, res(r.base).Result)}
	}
	pc.Current = mk("current", r.cur, nil)
	pc.Candidate = mk(candidateName(r.candidate.Name), r.cand, r.candidate.Overrides)
	return pc, nil
}

// PlayOnly restricts the rehearsal to run i, 0 to Runs()-1: a page spreads the runs over its
// workers, each playing one, and gathers them in one with Export and Adopt.
func (r *Rehearsal) PlayOnly(i int) error {
	if i < 0 || i >= len(r.runs) || r.next > 0 || r.runs[0].start {
		return fmt.Errorf("lab: run %d: the rehearsal has runs 0 to %d and must not have started", i, len(r.runs)-1)
	}
	r.only, r.next = i, i
	return nil
}

// stepOnly steps the one run PlayOnly chose.
func (r *Rehearsal) stepOnly(ms int64) (bool, float64, error) {
	s := r.runs[r.only]
	if s.res != nil {
		return true, 1, nil
	}
	if err := r.stepRun(r.only, ms); err != nil {
		return true, 1, err
	}
	if s.res != nil {
		return true, 1, nil
	}
	return false, min(1, float64(s.now)/float64(max(r.bound, 1))), nil
}

// planExport is a finished run as Export writes it: the result, and its summary (which
// RunResult's JSON leaves out).
type planExport struct {
	Result  *PlanResult     `json:"result"`
	Summary cluster.Summary `json:"summary"`
}

// Export writes the finished run i, for another worker's Adopt.
func (r *Rehearsal) Export(i int) ([]byte, error) {
	if i < 0 || i >= len(r.runs) || r.runs[i].res == nil {
		return nil, fmt.Errorf("lab: run %d has not finished", i)
	}
	res := r.runs[i].res
	return json.Marshal(planExport{Result: res, Summary: res.Result.Summary})
}

// Adopt takes run i's result from another worker's Export. The parts JSON does not carry (the
// cluster the run built, the parameters its file states: what the verdicts' drivers read) come
// from this rehearsal's own copy of the run's scenario, which is the same file.
func (r *Rehearsal) Adopt(i int, data []byte) error {
	if i < 0 || i >= len(r.runs) || i == r.only {
		return fmt.Errorf("lab: run %d: cannot adopt it (runs 0 to %d; this worker plays %d)", i, len(r.runs)-1, r.only)
	}
	var e planExport
	if err := json.Unmarshal(data, &e); err != nil || e.Result == nil || e.Result.Result == nil {
		return fmt.Errorf("lab: run %d: not an exported run: %v", i, err)
	}
	s, err := r.read(r.docs[i])
	if err != nil {
		return err
	}
	e.Result.Result.Summary, e.Result.Result.spec, e.Result.Result.explicit = e.Summary, s.Cluster.Spec, explicitParams(r.docs[i])
	r.runs[i].res = e.Result
	return nil
}

// Close stops a rehearsal that will not be stepped to its end: the paused run's goroutine
// returns at its next check.
func (r *Rehearsal) Close() {
	r.closed = true
	for _, s := range r.runs {
		if !s.start || s.finished {
			continue
		}
		// The goroutine is waiting for its turn: it wakes up, sees closed, returns, and says so.
		s.resume <- s.now
		<-s.paused
		s.finished = true
	}
}
