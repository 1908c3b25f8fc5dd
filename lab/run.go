package lab

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/kraftlab/kraftlab/cluster"
	"github.com/kraftlab/kraftlab/cluster/scenario"
)

// Runner plays one cluster-mode scenario step by step, so that its caller decides when to
// report progress and whether to go on: a Web Worker yields to its event loop between steps
// (a cancel message can then arrive), the CLI checks a context. It holds no goroutine, and
// stepping by any sizes gives the same run as scenario.Run and `kraftlab run`.
type Runner struct {
	doc    []byte
	seed   uint64
	cs     *scenario.ClusterScenario
	c      *cluster.Cluster
	next   int // the next event to apply
	done   bool
	result *RunResult
}

// parseCluster reads a scenario the lab runs: a cluster-mode one, a controller-mode one being
// refused with msg. It calls scenario.ParseCluster rather than scenario.Parse, so that lab.wasm
// links neither the controller mode's parser nor the --set settings (10.6 KB brotli).
func parseCluster(doc []byte, msg string) (*scenario.Scenario, error) {
	s, err := scenario.ParseCluster(doc)
	if errors.Is(err, scenario.ErrControllerMode) {
		return nil, &scenario.Error{Path: "mode", Msg: msg}
	}
	return s, err
}

// A reader parses a scenario the lab runs: readFile any cluster-mode file, readPlanFile one
// whose events a plan replaces.
type reader func(doc []byte) (*scenario.Scenario, error)

func readFile(doc []byte) (*scenario.Scenario, error) {
	return parseCluster(doc, "the lab runs cluster-mode scenarios")
}

// readPlanFile reads a file for a plan, which drops the file's events (planDoc): it checks
// everything but them, with scenario.ParseClusterSetupWith, so that rehearse.wasm, which only runs
// plans, links no event parser. Every caller that takes a file from outside the lab checks it
// whole first (RunPlanComparison), or made it itself (Description.PlanSetup).
func readPlanFile(doc []byte) (*scenario.Scenario, error) { return readPlanFileWith(doc, nil) }

// readPlanFileWith is readPlanFile for a file whose starting topics' partitions are given apart
// (PlanSetup; nil: none is).
func readPlanFileWith(doc []byte, parts [][]scenario.Partition) (*scenario.Scenario, error) {
	s, err := scenario.ParseClusterSetupWith(doc, parts)
	if errors.Is(err, scenario.ErrControllerMode) {
		return nil, &scenario.Error{Path: "mode", Msg: "the lab runs cluster-mode scenarios"}
	}
	return s, err
}

// NewRunner parses a cluster-mode scenario, builds its cluster (which brings it up, a second
// or two of simulated time) and checks every event, as `kraftlab run` does, before any
// scenario time passes.
func NewRunner(doc []byte) (*Runner, error) {
	s, err := parseCluster(doc, "the lab runs cluster-mode scenarios (a controller-mode run has no cluster to measure)")
	if err != nil {
		return nil, err
	}
	r, err := newRunner(doc, s)
	if err != nil {
		return nil, err
	}
	for _, ev := range s.Cluster.Events {
		if err := r.c.Validate(ev.Event); err != nil {
			return nil, &scenario.Error{Path: fmt.Sprintf("events[%d]", ev.Index), Msg: err.Error()}
		}
	}
	return r, nil
}

// newRunner builds the cluster of s, the scenario doc holds.
func newRunner(doc []byte, s *scenario.Scenario) (*Runner, error) {
	cs := s.Cluster
	// The lab reads samples, runs and the summary, never the records: what is simulated is
	// the same either way, and a large run's log is most of its memory.
	cs.Spec.DiscardRecords = true
	c, err := cluster.New(cs.Spec)
	if err != nil {
		return nil, &scenario.Error{Path: "cluster", Msg: err.Error()}
	}
	return &Runner{doc: doc, seed: s.Seed, cs: cs, c: c}, nil
}

// NowMs is the scenario time reached; DurationMs where the run ends.
func (r *Runner) NowMs() int64 { return r.c.Now() }

// DurationMs is the scenario's duration.
func (r *Runner) DurationMs() int64 { return r.cs.DurationMs }

// Done says whether the run has reached its end (or stopped at an invariant violation).
func (r *Runner) Done() bool { return r.done }

// Step lets up to ms of scenario time pass, applying the events due on the way, and reports
// whether the run is done. An error is a failure of the simulation itself (a bug), not an
// invariant violation, which ends the run and is reported in the result.
func (r *Runner) Step(ms int64) (bool, error) {
	if r.done {
		return true, nil
	}
	target := min(r.c.Now()+max(ms, 1), r.cs.DurationMs)
	for r.next < len(r.cs.Events) && r.cs.Events[r.next].AtMs <= target {
		ev := r.cs.Events[r.next]
		if stop, err := r.until(ev.AtMs); stop || err != nil {
			return stop, err
		}
		// A refusal (killing a broker that is down) does not stop the run, as in the scenario
		// runner; a violation does.
		if err := r.c.Do(ev.Event); err != nil && r.c.Err() != nil {
			r.done = true
			return true, nil
		}
		r.next++
	}
	if stop, err := r.until(target); stop || err != nil {
		return stop, err
	}
	r.done = r.c.Now() >= r.cs.DurationMs && r.next == len(r.cs.Events)
	return r.done, nil
}

// until runs the cluster to ms; stop is true when an invariant violation ended the run.
func (r *Runner) until(ms int64) (stop bool, err error) {
	if err := r.c.RunUntil(ms); err != nil {
		if r.c.Err() == nil {
			return true, fmt.Errorf("cluster: the run stopped at %d ms: %w", r.c.Now(), err)
		}
		r.done = true
		return true, nil
	}
	return false, nil
}

// Result reads the run's figures: its summary, time series and violation. It may be called
// before the run is done (a partial result).
func (r *Runner) Result() *RunResult {
	res := &RunResult{Seed: r.seed, DurationMs: r.cs.DurationMs, ReachedMs: r.c.Now(), Summary: r.c.Summary(), spec: r.cs.Spec,
		explicit: explicitParams(r.doc)}
	if err := r.c.Err(); err != nil {
		res.Violation = err.Error()
	}
	res.Series = series(r.c, res.Summary)
	return res
}

// Scenario is the scenario file the runner plays, overrides included: `kraftlab run` replays
// it to the same summary.
func (r *Runner) Scenario() []byte { return r.doc }

// RunOptions tune Run.
type RunOptions struct {
	// StepMs is the scenario time between progress reports and cancellation checks (default
	// one simulated minute).
	StepMs int64
	// Progress, if set, is called after each step with the scenario time reached.
	Progress func(nowMs, durationMs int64)
}

// Run plays a scenario to its end: a pure function of the file (seed and overrides
// included), stopped early only by ctx, whose error it then returns.
func Run(ctx context.Context, doc []byte, opts RunOptions) (*RunResult, error) {
	if err := ctx.Err(); err != nil {
		return nil, err // before building the cluster, which alone takes a while for a large one
	}
	r, err := NewRunner(doc)
	if err != nil {
		return nil, err
	}
	step := opts.StepMs
	if step <= 0 {
		step = 60_000
	}
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		done, err := r.Step(step)
		if err != nil {
			return nil, err
		}
		if opts.Progress != nil {
			opts.Progress(r.NowMs(), r.DurationMs())
		}
		if done {
			return r.Result(), nil
		}
	}
}

// RunResult is what one run comes to.
type RunResult struct {
	Seed       uint64 `json:"seed"`
	DurationMs int64  `json:"duration_ms"`
	// ReachedMs is the scenario time the run reached: DurationMs unless a violation stopped it.
	ReachedMs int64           `json:"reached_ms"`
	Summary   cluster.Summary `json:"-"`
	// Violation is the invariant violation that stopped the run, if any.
	Violation string `json:"violation,omitempty"`
	Series    Series `json:"series"`
	// spec is the cluster the run built: the values of the parameters behind its verdicts;
	// explicit the parameters its file states.
	spec     cluster.Spec
	explicit map[string]bool
}

// Series are a run's time series, one point per sample (every SampleMs), for the charts of
// the comparison: leadership returning per broker, out-of-sync replicas, the gate, elections
// and produce p99 against its steady value.
type Series struct {
	TimeMs  []int64        `json:"time_ms"`
	Brokers []BrokerSeries `json:"brokers"`
	// Elections counts preferred elections since the previous sample.
	Elections []int `json:"elections"`
	// P99Ms is the sample window's produce p99; P99Ratio the same over the summary's steady
	// p99 (-1 while no steady value is known).
	P99Ms    []float64 `json:"p99_ms"`
	P99Ratio []float64 `json:"p99_ratio"`
	// ProduceTimeouts counts request timeouts in the sample's window.
	ProduceTimeouts []int `json:"produce_timeouts"`
	// Runs are the electPreferred runs that elected or gated something: when, how many
	// elections, how many brokers the gate held.
	Runs []RunPoint `json:"runs" ts:"RunPoint[] | null"`
}

// BrokerSeries is one broker's series.
type BrokerSeries struct {
	ID int32 `json:"id"`
	// PreferredTotal is the partitions it is the preferred replica of; PreferredLed how many
	// of them it leads at each sample (leadership returning).
	PreferredTotal int    `json:"preferred_total"`
	PreferredLed   []int  `json:"preferred_led"`
	Leaders        []int  `json:"leaders"`
	OutOfSync      []int  `json:"out_of_sync"`
	Gated          []bool `json:"gated"`
}

// RunPoint is one electPreferred run.
type RunPoint struct {
	TimeMs       int64 `json:"time_ms"`
	Elections    int   `json:"elections"`
	GatedBrokers int   `json:"gated_brokers"`
}

func series(c *cluster.Cluster, sum cluster.Summary) Series {
	samples := c.Samples()
	var s Series
	byID := map[int32]int{}
	for _, smp := range samples {
		s.TimeMs = append(s.TimeMs, smp.TimeMs)
		s.Elections = append(s.Elections, smp.Elections)
		s.P99Ms = append(s.P99Ms, smp.ProduceP99Ms)
		ratio := -1.0
		if sum.P99SteadyMs > 0 {
			ratio = smp.ProduceP99Ms / sum.P99SteadyMs
		}
		s.P99Ratio = append(s.P99Ratio, ratio)
		s.ProduceTimeouts = append(s.ProduceTimeouts, smp.ProduceTimeouts)
		for _, b := range smp.Brokers {
			i, ok := byID[b.ID]
			if !ok {
				i = len(s.Brokers)
				byID[b.ID] = i
				s.Brokers = append(s.Brokers, BrokerSeries{ID: b.ID})
			}
			bs := &s.Brokers[i]
			bs.PreferredTotal = b.PreferredTotal
			bs.PreferredLed = append(bs.PreferredLed, b.PreferredLed)
			bs.Leaders = append(bs.Leaders, b.Leaders)
			bs.OutOfSync = append(bs.OutOfSync, b.OutOfSync)
			bs.Gated = append(bs.Gated, b.Gated)
		}
	}
	for _, run := range c.BalancerRuns() {
		if len(run.Elected) == 0 && len(run.GatedBrokers) == 0 {
			continue
		}
		s.Runs = append(s.Runs, RunPoint{TimeMs: run.TimeMs, Elections: len(run.Elected), GatedBrokers: len(run.GatedBrokers)})
	}
	return s
}

// explicitParams lists the block parameters a scenario file states, as broker.PARAM and
// workload.PARAM (a Kafka spelling counts for its parameter).
func explicitParams(doc []byte) map[string]bool {
	var root struct {
		Cluster map[string]json.RawMessage `json:"cluster"`
	}
	out := map[string]bool{}
	if json.NewDecoder(bytes.NewReader(doc)).Decode(&root) != nil {
		return out
	}
	for _, block := range []string{"broker", "workload"} {
		var m map[string]json.RawMessage
		if json.Unmarshal(root.Cluster[block], &m) != nil {
			continue
		}
		for k := range m {
			if a, ok := aliasOf(k); ok {
				k = a.param
			}
			out[block+"."+k] = true
		}
	}
	return out
}
