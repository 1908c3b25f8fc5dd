package lab

import (
	"context"
	"sync"
)

// PlanComparison is a plan rehearsed under the current config and under the candidate, on the
// same cluster and seed, each judged by KIP-1358's criteria against the plan under today's
// immediate policy (the baseline, which is the current run itself when the current config is
// today's Kafka).
type PlanComparison struct {
	Plan *Plan `json:"plan"`
	// Current and Candidate are the two configs' runs; their Policy holds the overrides that
	// make each (the candidate's on top of the current's).
	Current   PlanRun `json:"current"`
	Candidate PlanRun `json:"candidate"`
	// Baseline is the immediate run the recovery verdicts compare with.
	Baseline *PlanResult `json:"-"`
}

// PlanRun is one config's run of the plan, with its verdicts.
type PlanRun struct {
	Policy   Policy      `json:"policy"`
	Scenario []byte      `json:"-"`
	Result   *PlanResult `json:"result"`
	Verdicts []Verdict   `json:"verdicts"`
}

// RunPlanComparison runs the plan on doc (the current config: the cluster's properties and
// overrides already applied) and on doc with the candidate's overrides, and the immediate
// baseline when it differs from both, opts.Workers at a time (every core natively). The
// candidate's config holds from the start of its run: the model's controllers read it from
// time 0, not broker by broker as the roll reaches them.
func RunPlanComparison(ctx context.Context, doc []byte, plan *Plan, candidate Policy, opts Options) (*PlanComparison, error) {
	candDoc, err := ApplyOverrides(doc, candidate.Overrides)
	if err != nil {
		return nil, inputErrorf("candidate %q: %w", candidate.Name, err)
	}
	baseDoc, err := ApplyOverrides(doc, ImmediateOverrides())
	if err != nil {
		return nil, err
	}
	var b batch
	cur, cand, base := b.add(doc), b.add(candDoc), b.add(baseDoc)
	results := make([]*PlanResult, len(b.docs))
	errs := make([]error, len(b.docs))
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var mu sync.Mutex
	done := 0
	runOne := func(i int) {
		results[i], errs[i] = RunPlan(ctx, b.docs[i], plan, nil)
		if errs[i] != nil {
			cancel()
			return
		}
		mu.Lock()
		done++
		if opts.Progress != nil {
			opts.Progress(done, len(b.docs))
		}
		mu.Unlock()
	}
	if opts.Workers <= 1 {
		for i := range b.docs {
			if runOne(i); errs[i] != nil {
				return nil, errs[i]
			}
		}
	} else {
		sem := make(chan struct{}, opts.Workers)
		var wg sync.WaitGroup
		for i := range b.docs {
			wg.Add(1)
			sem <- struct{}{}
			go func() {
				defer wg.Done()
				defer func() { <-sem }()
				runOne(i)
			}()
		}
		wg.Wait()
		for _, err := range errs {
			if err != nil {
				return nil, err
			}
		}
	}
	pc := &PlanComparison{Plan: plan, Baseline: results[base]}
	mk := func(name string, i int, d []byte, ovs []Override) PlanRun {
		return PlanRun{Policy: Policy{Name: name, Overrides: ovs}, Scenario: d, Result: results[i],
			Verdicts: Verdicts(results[i].Result, results[base].Result)}
	}
	pc.Current = mk("current", cur, doc, nil)
	pc.Candidate = mk("candidate: "+candidate.Name, cand, candDoc, candidate.Overrides)
	return pc, nil
}
