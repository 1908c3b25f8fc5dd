package lab

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/kraftlab/kraftlab/cluster/scenario"
)

// Variant is the comparison with one assumption moved to its low or high value.
type Variant struct {
	Key       string     `json:"assumption"`
	Side      string     `json:"side"` // "low" or "high"
	Overrides []Override `json:"overrides"`
	// Verdicts holds each policy's verdicts, in the policies' order.
	Verdicts [][]Verdict `json:"verdicts"`
}

// Flip is a verdict that changes when an assumption moves: the comparison's outcome rests on
// that assumption.
type Flip struct {
	Policy    string `json:"policy"`
	Criterion string `json:"criterion"`
	Key       string `json:"assumption"`
	Side      string `json:"side"`
	From      Status `json:"from"`
	To        Status `json:"to"`
}

// Sensitivity is a comparison repeated with each uncertain parameter at its low and high
// values, and the verdicts that flip.
type Sensitivity struct {
	Base     *Comparison `json:"-"`
	Variants []Variant   `json:"variants"`
	Flips    []Flip      `json:"flips"`
}

// AssumptionKeys lists the keys of Assumptions, for flags and forms.
func AssumptionKeys() []string {
	out := make([]string, len(Assumptions))
	for i, a := range Assumptions {
		out[i] = a.Key
	}
	return out
}

// RunSensitivity runs the comparison of the policies on the scenario, then again with each
// assumption named in keys (all when empty) at its low and then its high value, and lists the
// verdicts that flip. Every run, baselines included, goes in one batch over opts.Workers.
func RunSensitivity(ctx context.Context, doc []byte, policies []Policy, keys []string, opts Options) (*Sensitivity, error) {
	if len(policies) == 0 {
		return nil, inputErrorf("sensitivity: give at least one policy")
	}
	s, err := parseCluster(doc, "the lab runs cluster-mode scenarios")
	if err != nil {
		return nil, err
	}
	if s.Cluster == nil {
		return nil, &scenario.Error{Path: "mode", Msg: "the lab runs cluster-mode scenarios"}
	}
	var chosen []Assumption
	for _, k := range keys {
		i := slices.IndexFunc(Assumptions, func(a Assumption) bool { return a.Key == k })
		if i < 0 {
			return nil, inputErrorf("sensitivity: unknown assumption %q; assumptions: %s", k, strings.Join(AssumptionKeys(), ", "))
		}
		chosen = append(chosen, Assumptions[i])
	}
	if len(keys) == 0 {
		chosen = Assumptions
	}
	// Plan: the base comparison is variant -1; each variant's policies and baseline.
	type plan struct {
		v              Variant
		runs           []int
		base           int
		policyScenario [][]byte
	}
	var b batch
	add := func(extra []Override) (plan, error) {
		var p plan
		for _, pol := range policies {
			d, err := ApplyOverrides(doc, append(slices.Clone(extra), pol.Overrides...))
			if err != nil {
				return p, inputErrorf("policy %q with %v: %w", pol.Name, extra, err)
			}
			p.runs = append(p.runs, b.add(d))
			p.policyScenario = append(p.policyScenario, d)
		}
		bd, err := ApplyOverrides(doc, append(slices.Clone(extra), ImmediateOverrides()...))
		if err != nil {
			return p, err
		}
		p.base = b.add(bd)
		return p, nil
	}
	basePlan, err := add(nil)
	if err != nil {
		return nil, err
	}
	var plans []plan
	for _, a := range chosen {
		low, high := a.variants(&s.Cluster.Spec)
		for _, side := range []struct {
			name string
			ovs  []Override
		}{{"low", low}, {"high", high}} {
			p, err := add(side.ovs)
			if err != nil {
				return nil, err
			}
			p.v = Variant{Key: a.Key, Side: side.name, Overrides: side.ovs}
			plans = append(plans, p)
		}
	}
	res, err := b.run(ctx, opts, nil)
	if err != nil {
		return nil, err
	}
	out := &Sensitivity{Base: &Comparison{Seed: res[basePlan.base].Seed, Baseline: res[basePlan.base]}}
	for i, pol := range policies {
		r := res[basePlan.runs[i]]
		out.Base.Policies = append(out.Base.Policies, PolicyRun{Policy: pol, Scenario: basePlan.policyScenario[i], Result: r, Verdicts: Verdicts(r, out.Base.Baseline)})
	}
	for _, p := range plans {
		for i, pol := range policies {
			vs := Verdicts(res[p.runs[i]], res[p.base])
			p.v.Verdicts = append(p.v.Verdicts, vs)
			for j, v := range vs {
				from := out.Base.Policies[i].Verdicts[j].Status
				if v.Status != from {
					out.Flips = append(out.Flips, Flip{Policy: pol.Name, Criterion: v.Criterion, Key: p.v.Key, Side: p.v.Side, From: from, To: v.Status})
				}
			}
		}
		out.Variants = append(out.Variants, p.v)
	}
	return out, nil
}

// Fragile says whether a policy's verdict on a criterion flips under some assumption.
func (s *Sensitivity) Fragile(policy, criterion string) bool {
	return slices.ContainsFunc(s.Flips, func(f Flip) bool { return f.Policy == policy && f.Criterion == criterion })
}

// WriteText writes the base verdict table, then for each policy and criterion the outcome at
// every assumption's low and high value, with the flips called out.
func (s *Sensitivity) WriteText(w io.Writer) error {
	if err := s.Base.WriteText(w); err != nil {
		return err
	}
	var b strings.Builder
	b.WriteString("\nSensitivity: each assumption at its low and high value (L/H); a verdict that flips rests on it.\n\n| policy | criterion | base |")
	for _, v := range s.Variants {
		if v.Side == "low" {
			fmt.Fprintf(&b, " %s L/H |", v.Key)
		}
	}
	b.WriteString(" robust? |\n|---|---|---|")
	for _, v := range s.Variants {
		if v.Side == "low" {
			b.WriteString("---|")
		}
	}
	b.WriteString("---|\n")
	short := map[Status]string{Pass: "pass", Fail: "fail", NotMeasured: "n/m"}
	for i, p := range s.Base.Policies {
		for j, base := range p.Verdicts {
			fmt.Fprintf(&b, "| %s | %s | %s |", p.Policy.Name, base.Criterion, short[base.Status])
			for k := 0; k+1 < len(s.Variants); k += 2 {
				lo, hi := s.Variants[k].Verdicts[i][j].Status, s.Variants[k+1].Verdicts[i][j].Status
				fmt.Fprintf(&b, " %s/%s |", short[lo], short[hi])
			}
			robust := "yes"
			if s.Fragile(p.Policy.Name, base.Criterion) {
				robust = "NO: flips"
			}
			fmt.Fprintf(&b, " %s |\n", robust)
		}
	}
	b.WriteString("\nRanges tried:\n")
	for k := 0; k+1 < len(s.Variants); k += 2 {
		lo, hi := s.Variants[k], s.Variants[k+1]
		fmt.Fprintf(&b, "  %s: low %s, high %s\n", lo.Key, overridesText(lo.Overrides), overridesText(hi.Overrides))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func overridesText(ovs []Override) string {
	parts := make([]string, len(ovs))
	for i, o := range ovs {
		parts[i] = o.String()
	}
	return strings.Join(parts, " ")
}
