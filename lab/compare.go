package lab

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/kraftlab/kraftlab/engine/config"
)

// Policy is a set of overrides under a name: "immediate (today)", "wait-for-sync, KIP example".
type Policy struct {
	Name      string     `json:"name"`
	Overrides []Override `json:"overrides"`
}

// DefaultPolicies are today's policy and the KIP's example settings (threshold 5 %,
// max.per.run 200, throttle 15 s), the comparison docs/reference.md's load-test table starts with.
func DefaultPolicies() []Policy {
	return []Policy{
		{Name: "immediate (today)", Overrides: []Override{{config.LeaderImbalanceElectionAlgorithm, config.AlgorithmImmediate}}},
		{Name: "wait-for-sync (the KIP's example)", Overrides: []Override{
			{config.LeaderImbalanceElectionAlgorithm, config.AlgorithmWaitForSync},
			{config.WaitForSyncThresholdPercent, "5"},
			{config.LeaderImbalanceElectionMaxPerRun, "200"},
			{config.LeaderImbalanceElectionThrottleMs, "15000"}}},
	}
}

// ImmediateOverrides turn any scenario into today's Kafka: the algorithm immediate and every
// config of KIP-1358 and PR #22934 at its default (max.per.run included, which immediate also
// applies: 1,000 is Kafka's MAX_ELECTIONS_PER_IMBALANCE). The recovery criterion's baseline is
// the scenario under these.
func ImmediateOverrides() []Override {
	var out []Override
	for _, d := range config.All() {
		if (d.Source == config.KIP1358 || d.Source == config.PR22934) && d.Name != config.LeaderImbalanceElectionAlgorithm {
			out = append(out, Override{d.Name, fmt.Sprint(d.Default)})
		}
	}
	return append(out, Override{config.LeaderImbalanceElectionAlgorithm, config.AlgorithmImmediate})
}

// PolicyRun is one policy's run in a comparison.
type PolicyRun struct {
	Policy Policy `json:"policy"`
	// Scenario is the file the run played (overrides applied): `kraftlab run` replays it.
	Scenario []byte     `json:"-"`
	Result   *RunResult `json:"result"`
	Verdicts []Verdict  `json:"verdicts"`
}

// Comparison is two or more policies run on the same cluster and seed, with the immediate
// baseline that the recovery criterion needs.
type Comparison struct {
	Seed     uint64      `json:"seed"`
	Policies []PolicyRun `json:"policies"`
	// Baseline is the immediate run (one of the policies' when one of them is exactly it).
	Baseline *RunResult `json:"-"`
}

// Options tune Compare, Sweep.Run and Sensitivity.
type Options struct {
	// Workers is how many runs go at once, each on its own goroutine; 0 or 1 runs them one
	// after the other on the caller's (what a Web Worker does: the page runs one worker per
	// core instead). Results never depend on it.
	Workers int
	// Progress, if set, is called after each run with the runs done and the total, from one
	// goroutine at a time.
	Progress func(done, total int)
}

// Compare runs each policy on the scenario, and the immediate baseline, and judges every run.
func Compare(ctx context.Context, doc []byte, policies []Policy, opts Options) (*Comparison, error) {
	if len(policies) == 0 {
		return nil, inputErrorf("compare: give at least one policy")
	}
	var b batch
	idx := make([]int, len(policies))
	docs := make([][]byte, len(policies))
	for i, p := range policies {
		d, err := ApplyOverrides(doc, p.Overrides)
		if err != nil {
			return nil, inputErrorf("policy %q: %w", p.Name, err)
		}
		docs[i], idx[i] = d, b.add(d)
	}
	baseDoc, err := ApplyOverrides(doc, ImmediateOverrides())
	if err != nil {
		return nil, err
	}
	baseIdx := b.add(baseDoc)
	res, err := b.run(ctx, opts, nil)
	if err != nil {
		return nil, err
	}
	cmp := &Comparison{Seed: res[baseIdx].Seed, Baseline: res[baseIdx]}
	for i, p := range policies {
		r := res[idx[i]]
		cmp.Policies = append(cmp.Policies, PolicyRun{Policy: p, Scenario: docs[i], Result: r, Verdicts: Verdicts(r, cmp.Baseline)})
	}
	return cmp, nil
}

// batch is a set of distinct scenarios to run: the same file asked for twice (a policy that is
// the baseline) runs once.
type batch struct {
	docs  [][]byte
	index map[string]int
}

// addApart adds a run that must not be merged with an equal file (a plan's candidate whose
// configs arrive by its rollout, not by its file).
func (b *batch) addApart(doc []byte) int {
	b.docs = append(b.docs, doc)
	return len(b.docs) - 1
}

func (b *batch) add(doc []byte) int {
	if b.index == nil {
		b.index = map[string]int{}
	}
	if i, ok := b.index[string(doc)]; ok {
		return i
	}
	b.docs = append(b.docs, doc)
	b.index[string(doc)] = len(b.docs) - 1
	return len(b.docs) - 1
}

// run plays every scenario, opts.Workers at a time, and returns the results in the batch's
// order whatever the order they finish in. The first error (by index, so the same one every
// time) is returned. onRun, if set, is told of each run as it finishes, one call at a time.
func (b *batch) run(ctx context.Context, opts Options, onRun func(i int, r *RunResult)) ([]*RunResult, error) {
	// Each run looks at ctx every simulated second (about a tenth of a second of the largest
	// preset's work), so that an interrupt stops a batch within a second; results do not
	// depend on the step.
	each := RunOptions{StepMs: 1000}
	n := len(b.docs)
	out := make([]*RunResult, n)
	errs := make([]error, n)
	var mu sync.Mutex
	done := 0
	finish := func(i int) {
		mu.Lock()
		defer mu.Unlock()
		if onRun != nil {
			onRun(i, out[i])
		}
		done++
		if opts.Progress != nil {
			opts.Progress(done, n)
		}
	}
	if opts.Workers <= 1 {
		for i, d := range b.docs {
			if out[i], errs[i] = Run(ctx, d, each); errs[i] != nil {
				return nil, errs[i]
			}
			finish(i)
		}
		return out, nil
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	jobs := make(chan int)
	var wg sync.WaitGroup
	for range min(opts.Workers, n) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range jobs {
				out[i], errs[i] = Run(ctx, b.docs[i], each)
				if errs[i] != nil {
					cancel()
					continue
				}
				finish(i)
			}
		}()
	}
	for i := range n {
		jobs <- i
	}
	close(jobs)
	wg.Wait()
	// A run cancelled because another failed reports the cancellation; the cause comes first
	// unless the caller cancelled.
	var first error
	for _, err := range errs {
		if err != nil && !errors.Is(err, context.Canceled) {
			return nil, err
		}
		if err != nil && first == nil {
			first = err
		}
	}
	if first != nil {
		return nil, first
	}
	return out, nil
}
