package lab

import (
	"context"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kraftlab/kraftlab/internal/jsskip"
)

func TestParsePlan(t *testing.T) {
	p, err := ParsePlan(readFixture(t, "plan.txt"))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range p.Steps {
		got = append(got, s.String())
	}
	want := "rolling-restart 1,2,3,5,6 timeout=10m0s|pause 5m0s|replace-disk 3 down=5m0s timeout=30m0s"
	if strings.Join(got, "|") != want {
		t.Errorf("steps %q, want %q", strings.Join(got, "|"), want)
	}
	for _, c := range []struct{ text, want string }{
		{"reboot 3", `plan, line 1: unknown step "reboot"`},
		{"\nshutdown x", `plan, line 2: shutdown: "x" is not a broker id`},
		{"pause ten", `plan, line 1: pause ten: "ten" is not a duration`},
		{"rolling-restart all down=1m", `rolling-restart: unknown option "down=1m" (allowed: timeout=DURATION)`},
		{"# nothing", "the plan has no step"},
	} {
		if _, err := ParsePlan(c.text); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want %q", c.text, err, c.want)
		}
	}
	if err := p.Validate([]int32{1, 2, 3}); err == nil || err.Error() != "plan, line 4: broker 5 is not one of the cluster's (1, 2, 3)" {
		t.Errorf("validate: %v", err)
	}
}

// smallImported is the 4.x fixture cluster with a light load, for plan runs that take a
// second or two.
func smallImported(t testing.TB) []byte {
	base, _ := Preset(PresetSmall)
	imp, err := Import(fixtureInputs(t), base)
	if err != nil {
		t.Fatal(err)
	}
	scaleData(imp.Description, 2e9)
	doc, err := imp.Description.Scenario()
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

// scaleData scales an imported cluster's data to perBroker bytes a broker, each partition
// keeping its share, so that a plan's copies take minutes rather than hours.
func scaleData(d *Description, perBroker float64) {
	scale := perBroker / d.DataBytesPerBroker
	d.DataBytesPerBroker = perBroker
	for i := range d.Topics {
		for p := range d.Topics[i].SizeBytes {
			d.Topics[i].SizeBytes[p] *= scale
		}
	}
}

func TestRunPlanComparison(t *testing.T) {
	jsskip.CoveredNatively(t, "RunPlan against Compare, both in this process")
	plan, err := ParsePlan("rolling-restart 1,2,3,5,6 timeout=10m\nreplace-disk 3 down=2m timeout=20m\n")
	if err != nil {
		t.Fatal(err)
	}
	doc := smallImported(t)
	cand := DefaultPolicies()[1]
	pc, err := RunPlanComparison(context.Background(), doc, plan, cand, Options{Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	for _, run := range []PlanRun{pc.Current, pc.Candidate} {
		r := run.Result
		if r.Aborted != "" {
			t.Errorf("%s: aborted: %s", run.Policy.Name, r.Aborted)
		}
		if len(r.Steps) != 6 {
			t.Fatalf("%s: %d step outcomes, want 6 (five brokers rolled, one disk)", run.Policy.Name, len(r.Steps))
		}
		for i, want := range []int32{1, 2, 3, 5, 6, 3} {
			s := r.Steps[i]
			if s.Broker != want || s.ReadyMs < s.StartedMs || s.StartedMs < s.StoppedMs || s.StoppedMs < s.AtMs {
				t.Errorf("%s: step %d: %+v, want broker %d stopped, started and ready in order", run.Policy.Name, i, s, want)
			}
			if i > 0 && s.AtMs < r.Steps[i-1].ReadyMs {
				t.Errorf("%s: broker %d stopped at %d before broker %d was ready at %d", run.Policy.Name, s.Broker, s.AtMs, r.Steps[i-1].Broker, r.Steps[i-1].ReadyMs)
			}
		}
		if r.Result.Violation != "" {
			t.Errorf("%s: violation %s", run.Policy.Name, r.Result.Violation)
		}
		if len(r.UnderMinIsr) != len(r.Result.Series.TimeMs) {
			t.Errorf("%s: %d under-min-ISR points for %d samples", run.Policy.Name, len(r.UnderMinIsr), len(r.Result.Series.TimeMs))
		}
		if len(run.Verdicts) != 3 {
			t.Errorf("%s: %d verdicts", run.Policy.Name, len(run.Verdicts))
		}
	}
	// The same plan again gives the same figures: one seed, one clock.
	again, err := RunPlanComparison(context.Background(), doc, plan, cand, Options{Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	if a, b := pc.Candidate.Result.Steps, again.Candidate.Result.Steps; len(a) != len(b) || a[len(a)-1] != b[len(b)-1] {
		t.Errorf("not deterministic: %+v vs %+v", a, b)
	}
}

// A rehearsal stepped in slices gives RunPlanComparison's figures, and Close stops one midway.
func TestRehearsalStepsLikeRunPlanComparison(t *testing.T) {
	jsskip.CoveredNatively(t, "the rehearsal's steps against RunPlan, both in this process")
	plan, err := ParsePlan("rolling-restart all timeout=10m\n")
	if err != nil {
		t.Fatal(err)
	}
	doc := smallImported(t)
	cand := DefaultPolicies()[1]
	want, err := RunPlanComparison(context.Background(), doc, plan, cand, Options{Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	r, err := NewRehearsal(doc, plan, cand)
	if err != nil {
		t.Fatal(err)
	}
	last, steps := 0.0, 0
	for {
		done, p, err := r.Step(90_000)
		if err != nil {
			t.Fatal(err)
		}
		if p < last || p > 1 {
			t.Fatalf("progress %v after %v", p, last)
		}
		last, steps = p, steps+1
		if done {
			break
		}
	}
	if steps < 10 || last != 1 {
		t.Errorf("%d steps, progress %v at the end", steps, last)
	}
	got, err := r.Comparison()
	if err != nil {
		t.Fatal(err)
	}
	for i, pair := range [][2]PlanRun{{want.Current, got.Current}, {want.Candidate, got.Candidate}} {
		a, b := pair[0].Result, pair[1].Result
		if !reflect.DeepEqual(a.Steps, b.Steps) || a.BalancedAtMs != b.BalancedAtMs || !reflect.DeepEqual(a.Result.Summary, b.Result.Summary) {
			t.Errorf("run %d: stepped %+v, whole %+v", i, b.Steps, a.Steps)
		}
	}
	// Spread over workers: each plays one run, the first adopts the others' and judges.
	var parts []*Rehearsal
	for i := range r.Runs() {
		w, err := NewRehearsal(doc, plan, cand)
		if err != nil {
			t.Fatal(err)
		}
		if err := w.PlayOnly(i); err != nil {
			t.Fatal(err)
		}
		for {
			done, _, err := w.Step(300_000)
			if err != nil {
				t.Fatal(err)
			}
			if done {
				break
			}
		}
		parts = append(parts, w)
	}
	for i := 1; i < len(parts); i++ {
		data, err := parts[i].Export(i)
		if err != nil {
			t.Fatal(err)
		}
		if err := parts[0].Adopt(i, data); err != nil {
			t.Fatal(err)
		}
	}
	spread, err := parts[0].Comparison()
	if err != nil {
		t.Fatal(err)
	}
	for i, pair := range [][2]PlanRun{{want.Current, spread.Current}, {want.Candidate, spread.Candidate}} {
		a, b := pair[0], pair[1]
		if !reflect.DeepEqual(a.Result.Steps, b.Result.Steps) || !reflect.DeepEqual(a.Result.Result.Summary, b.Result.Result.Summary) ||
			!reflect.DeepEqual(a.Verdicts, b.Verdicts) || !reflect.DeepEqual(a.Result.UnderMinIsr, b.Result.UnderMinIsr) {
			t.Errorf("run %d spread over workers differs from the whole", i)
		}
	}
	if err := parts[0].Adopt(0, nil); err == nil {
		t.Error("adopted the run the worker plays itself")
	}

	half, err := NewRehearsal(doc, plan, cand)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := half.Step(600_000); err != nil {
		t.Fatal(err)
	}
	half.Close()
	if _, err := half.Comparison(); err == nil {
		t.Error("a closed rehearsal gave a comparison")
	}
}

// Close ends the goroutine of every run that has started and not finished, whatever the
// other runs' states: none started, one finished and the next paused, all finished.
func TestRehearsalCloseEndsItsRuns(t *testing.T) {
	jsskip.CoveredNatively(t, "the rehearsal's goroutines, the lab's own Go")
	plan, err := ParsePlan("rolling-restart all timeout=10m\n")
	if err != nil {
		t.Fatal(err)
	}
	doc := smallImported(t)
	cand := DefaultPolicies()[1]
	idle := runtime.NumGoroutine()
	ended := func(what string) {
		t.Helper()
		for range 500 {
			if runtime.NumGoroutine() <= idle {
				return
			}
			time.Sleep(10 * time.Millisecond)
		}
		t.Errorf("%s: %d goroutines after Close, %d before the rehearsal", what, runtime.NumGoroutine(), idle)
	}
	for _, stop := range []struct {
		what string
		at   func(r *Rehearsal) bool
	}{
		{"none started", func(r *Rehearsal) bool { return true }},
		{"the first finished, the second paused", func(r *Rehearsal) bool { return r.next == 1 && r.runs[1].start }},
		{"all finished", func(r *Rehearsal) bool { return r.next == len(r.runs) }},
	} {
		r, err := NewRehearsal(doc, plan, cand)
		if err != nil {
			t.Fatal(err)
		}
		for !stop.at(r) {
			if _, _, err := r.Step(90_000); err != nil {
				t.Fatal(err)
			}
		}
		r.Close()
		ended(stop.what)
	}
}

// The plan's sensitivity reruns it with an assumption moved and lists what flips, against
// the base verdicts; a flip's outcomes are the variant's.
func TestRunPlanSensitivity(t *testing.T) {
	jsskip.CoveredNatively(t, "the plan's sensitivity reruns against its base verdicts, both in this process")
	plan, err := ParsePlan("replace-disk 1 down=1m timeout=20m\n")
	if err != nil {
		t.Fatal(err)
	}
	doc := smallImported(t)
	cand := DefaultPolicies()[1]
	base, err := RunPlanComparison(context.Background(), doc, plan, cand, Options{Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	flips, err := RunPlanSensitivity(context.Background(), doc, plan, cand, []string{"local_data"}, base, Options{Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range flips {
		if f.Key != "local_data" || (f.Side != "low" && f.Side != "high") || f.From == f.To {
			t.Errorf("flip %+v", f)
		}
	}
	if _, err := RunPlanSensitivity(context.Background(), doc, plan, cand, []string{"moon"}, base, Options{}); err == nil || !strings.Contains(err.Error(), `unknown assumption "moon"`) {
		t.Errorf("unknown assumption: %v", err)
	}
}

// TestRollControllersBringsTheCandidateIn checks the rollout of a controller-side config: with
// roll-controllers, the candidate's static configs take effect only once a controller restarted
// with them is active, and the report says when; without it, they hold from the start.
func TestRollControllersBringsTheCandidateIn(t *testing.T) {
	jsskip.CoveredNatively(t, "the rollout's rules, runs with and without roll-controllers in this process")
	doc := smallImported(t)
	cand := DefaultPolicies()[1]
	plan, err := ParsePlan("roll-controllers down=20s\nrolling-restart 1,2 timeout=10m\n")
	if err != nil {
		t.Fatal(err)
	}
	pc, err := RunPlanComparison(context.Background(), doc, plan, cand, Options{Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	for _, run := range []PlanRun{pc.Current, pc.Candidate} {
		r := run.Result
		if r.Aborted != "" {
			t.Fatalf("%s: aborted: %s", run.Policy.Name, r.Aborted)
		}
		if len(r.Steps) != 5 || r.Steps[0].Kind != StepRollControllers || r.Steps[2].Kind != StepRollControllers {
			t.Fatalf("%s: steps %+v, want three controllers then two brokers", run.Policy.Name, r.Steps)
		}
	}
	cr := pc.Candidate.Result
	if len(cr.RolledConfigs) == 0 || !slices.Contains(cr.RolledConfigs, "leader.imbalance.election.algorithm") {
		t.Errorf("rolled configs %v", cr.RolledConfigs)
	}
	// The active controller is rolled last: the candidate comes in when it hands over, after
	// the standbys restarted with it.
	last := cr.Steps[2]
	if cr.RolledInMs < last.StoppedMs || cr.RolledInMs > last.ReadyMs || cr.InController == last.Broker {
		t.Errorf("the candidate took effect at %d on controller %d; the active controller %d stopped at %d and was back at %d",
			cr.RolledInMs, cr.InController, last.Broker, last.StoppedMs, last.ReadyMs)
	}
	if got := candidateTiming(pc); !strings.Contains(got, "at "+clock(cr.RolledInMs)+", when controller") {
		t.Errorf("the report says %q", got)
	}
	if pc.Current.Result.RolledConfigs != nil || pc.Current.Result.RolledInMs != 0 {
		t.Errorf("the current run rolled %v at %d", pc.Current.Result.RolledConfigs, pc.Current.Result.RolledInMs)
	}

	plain, _ := ParsePlan("rolling-restart 1,2 timeout=10m\n")
	pc, err = RunPlanComparison(context.Background(), doc, plain, cand, Options{Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	if pc.Candidate.Result.RolledConfigs != nil || pc.Candidate.Result.RolledInMs != 0 {
		t.Errorf("without roll-controllers the candidate holds from the start; got %v at %d", pc.Candidate.Result.RolledConfigs, pc.Candidate.Result.RolledInMs)
	}
}
