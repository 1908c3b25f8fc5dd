package lab

import (
	"context"
	"io"
	"slices"
	"strings"
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
	Policy Policy `json:"policy"`
	// Scenario is the run's file; a PlanSetup's run's leaves out the partitions given apart.
	Scenario []byte      `json:"-"`
	Result   *PlanResult `json:"result"`
	Verdicts []Verdict   `json:"verdicts"`
}

// RunPlanComparison runs the plan on doc (the current config: the cluster's properties and
// overrides already applied) and on doc with the candidate's overrides, and the immediate
// baseline when it differs from both, opts.Workers at a time (every core natively). The
// candidate's controller-side static configs take effect when a controller restarted with them
// becomes active, if the plan has a roll-controllers step; its other configs, and all of them
// without such a step, hold from the start of its run (rollout.go).
func RunPlanComparison(ctx context.Context, doc []byte, plan *Plan, candidate Policy, opts Options) (*PlanComparison, error) {
	if _, err := parseCluster(doc, "the lab runs cluster-mode scenarios"); err != nil {
		return nil, err
	}
	candDoc, ro, err := planCandidate(doc, readPlanFile, plan, candidate)
	if err != nil {
		return nil, err
	}
	baseDoc, err := applyChecked(doc, ImmediateOverrides(), readPlanFile)
	if err != nil {
		return nil, err
	}
	var b batch
	cur, cand, base := b.add(doc), 0, 0
	if ro != nil {
		cand = b.addApart(candDoc)
	} else {
		cand = b.add(candDoc)
	}
	base = b.add(baseDoc)
	rolls := make([]*rollout, len(b.docs))
	rolls[cand] = ro
	results := make([]*PlanResult, len(b.docs))
	errs := make([]error, len(b.docs))
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var mu sync.Mutex
	done := 0
	runOne := func(i int) {
		results[i], errs[i] = runPlan(b.docs[i], readPlanFile, plan, rolls[i], func(int64) error { return ctx.Err() })
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
	pc.Candidate = mk(candidateName(candidate.Name), cand, candDoc, candidate.Overrides)
	return pc, nil
}

// RunPlanSensitivity reruns the plan comparison with each assumption named in keys (all when
// empty) at its low and its high value, and lists the verdicts that flip against base: such a
// verdict rests on that assumption. Flip.Policy is "current" or "candidate".
func RunPlanSensitivity(ctx context.Context, doc []byte, plan *Plan, candidate Policy, keys []string, base *PlanComparison, opts Options) ([]Flip, error) {
	s, err := parseCluster(doc, "the lab runs cluster-mode scenarios")
	if err != nil {
		return nil, err
	}
	chosen := Assumptions
	if len(keys) > 0 {
		chosen = nil
		for _, k := range keys {
			i := slices.IndexFunc(Assumptions, func(a Assumption) bool { return a.Key == k })
			if i < 0 {
				return nil, inputErrorf("sensitivity: unknown assumption %q; assumptions: %s", k, strings.Join(AssumptionKeys(), ", "))
			}
			chosen = append(chosen, Assumptions[i])
		}
	}
	flips := []Flip{}
	for _, a := range chosen {
		low, high := a.variants(&s.Cluster.Spec)
		for _, side := range []struct {
			name string
			ovs  []Override
		}{{"low", low}, {"high", high}} {
			d, err := ApplyOverrides(doc, side.ovs)
			if err != nil {
				return nil, err
			}
			pc, err := RunPlanComparison(ctx, d, plan, candidate, opts)
			if err != nil {
				return nil, err
			}
			for _, pair := range [][2]PlanRun{{base.Current, pc.Current}, {base.Candidate, pc.Candidate}} {
				for j, v := range pair[1].Verdicts {
					if from := pair[0].Verdicts[j].Status; v.Status != from {
						flips = append(flips, Flip{Policy: pair[0].Policy.Name, Criterion: v.Criterion, Key: a.Key, Side: side.name, From: from, To: v.Status})
					}
				}
			}
		}
	}
	return flips, nil
}

// WriteJSON writes the rehearsal: the plan, each config's overrides, summary, verdicts, step
// outcomes, partitions at risk and time series, and the verdicts that flipped under the
// sensitivity runs (nil: not run).
func (pc *PlanComparison) WriteJSON(w io.Writer, flips []Flip) error {
	type runJSON struct {
		Name            string          `json:"name"`
		Overrides       []Override      `json:"overrides"`
		Summary         SummaryJSON     `json:"summary"`
		Verdicts        []Verdict       `json:"verdicts"`
		Violation       string          `json:"violation,omitempty"`
		Aborted         string          `json:"aborted,omitempty"`
		Steps           []StepOutcome   `json:"steps"`
		LastStartMs     int64           `json:"last_start_ms"`
		BalancedAfterMs int64           `json:"balanced_after_ms"`
		AtRisk          []PartitionRisk `json:"at_risk"`
		UnderMinIsr     []int           `json:"under_min_isr"`
		Leaderless      []int           `json:"leaderless"`
		UnderReplicated []int           `json:"under_replicated"`
		Series          Series          `json:"series"`
		RolledConfigs   []string        `json:"rolled_configs,omitempty"`
		RolledInMs      int64           `json:"rolled_in_ms"`
		InController    int32           `json:"in_controller,omitempty"`
	}
	mk := func(r PlanRun) runJSON {
		res := r.Result
		risk := res.AtRisk
		if risk == nil {
			risk = []PartitionRisk{}
		}
		return runJSON{Name: r.Policy.Name, Overrides: r.Policy.Overrides, Summary: SummaryOf(res.Result.Summary), Verdicts: roundVerdicts(r.Verdicts),
			Violation: res.Result.Violation, Aborted: res.Aborted, Steps: res.Steps, LastStartMs: res.LastStartMs, BalancedAfterMs: res.BalancedAfterMs,
			AtRisk: risk, UnderMinIsr: res.UnderMinIsr, Leaderless: res.Leaderless, UnderReplicated: res.UnderReplicated, Series: roundSeries(res.Result.Series),
			RolledConfigs: res.RolledConfigs, RolledInMs: res.RolledInMs, InController: res.InController}
	}
	return writeJSON(w, struct {
		Seed      uint64     `json:"seed"`
		Plan      []PlanStep `json:"plan"`
		Current   runJSON    `json:"current"`
		Candidate runJSON    `json:"candidate"`
		Flips     []Flip     `json:"flips,omitempty"`
	}{pc.Current.Result.Result.Seed, pc.Plan.Steps, mk(pc.Current), mk(pc.Candidate), flips})
}

// candidateName is the candidate's column title: "candidate: NAME", or "candidate" alone when
// the name says no more.
func candidateName(name string) string {
	if name == "" || name == "candidate" {
		return "candidate"
	}
	return "candidate: " + name
}
