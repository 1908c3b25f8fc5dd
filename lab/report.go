package lab

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/kraftlab/kraftlab/engine/config"
)

// Report is the document a rehearsal hands to a change review: the cluster as imported, the
// plan, both configs side by side, the verdicts, the timelines, the partitions at risk and the
// model's assumptions. It is built once as blocks (reportBlocks) that WriteMarkdown and
// WriteHTML render, so the two files say the same.
type Report struct {
	// Version is KRaft Lab's version.
	Version string
	// Imported is the import, nil when the cluster came from a scenario or description file.
	Imported *Imported
	// Current are the current config's overrides (the cluster's properties and --set), as
	// applied to every run.
	Current    []Override
	Comparison *PlanComparison
	// Sensitivity says whether the plan was rerun with the assumptions moved; Flips are the
	// verdicts that flipped then.
	Sensitivity bool
	Flips       []Flip
}

// maxRiskRows bounds the partitions-at-risk table per config; the rest are counted.
const maxRiskRows = 50

// block is one piece of the report.
type block struct {
	kind   string // "h1", "h2", "p", "list", "table", "code", "chart"
	text   string
	items  []string
	header []string
	rows   [][]string
	chart  *chart
}

// chart is a timeline: one or more series over the samples' times.
type chart struct {
	title  string
	unit   string
	timeMs []int64
	series []chartSeries
	// marks are the plan's broker starts, drawn as ticks.
	marks []int64
}

type chartSeries struct {
	name   string
	values []float64
}

func (r *Report) blocks() []block {
	pc := r.Comparison
	cur, cand := pc.Current, pc.Candidate
	var bs []block
	add := func(b block) { bs = append(bs, b) }
	p := func(format string, args ...any) { add(block{kind: "p", text: fmt.Sprintf(format, args...)}) }

	add(block{kind: "h1", text: "Rollout rehearsal: " + planTitle(pc.Plan)})
	p("KRaft Lab %s, seed %d. The figures are the model's (docs/lab.md says what it assumes), run on the cluster below; they rehearse the change, they do not measure the cluster.",
		r.Version, cur.Result.Result.Seed)
	var summary []string
	for _, run := range []PlanRun{cur, cand} {
		summary = append(summary, fmt.Sprintf("%s: %s; balanced leadership %s after the last start; worst produce p99 %s; %d partitions under min.insync.replicas, %d without a leader at some sample",
			run.Policy.Name, verdictCounts(run.Verdicts), timeOrNever(run.Result.BalancedAfterMs), msFigure(run.Result.Result.Summary.P99Worst10MinMs),
			countRisk(run.Result.AtRisk, true), countRisk(run.Result.AtRisk, false)))
	}
	add(block{kind: "list", items: summary})

	add(block{kind: "h2", text: "The cluster"})
	if imp := r.Imported; imp != nil {
		p("Imported: %s.", imp.Report.Summary)
		add(block{kind: "list", items: imp.Report.Sources})
		if len(imp.Report.Notes) > 0 {
			p("Where the model departs from the imported cluster:")
			add(block{kind: "list", items: imp.Report.Notes})
		}
		t := block{kind: "table", header: []string{"topic", "partitions", "replication factor", "min.insync.replicas"}}
		for _, tp := range imp.Description.Topics {
			t.rows = append(t.rows, []string{tp.Name, strconv.Itoa(tp.Partitions), strconv.Itoa(assignmentRF(tp.Replicas)), strconv.Itoa(tp.MinInsyncReplicas)})
		}
		add(t)
		if len(imp.Report.Unused) == 0 {
			p("Every input line was used (blank lines aside).")
		} else {
			// One table per input, in the import's order.
			for i := 0; i < len(imp.Report.Unused); {
				src := imp.Report.Unused[i].Source
				p("Lines of the %s input not used:", src)
				u := block{kind: "table", header: []string{"line", "text", "why"}}
				for ; i < len(imp.Report.Unused) && imp.Report.Unused[i].Source == src; i++ {
					l := imp.Report.Unused[i]
					u.rows = append(u.rows, []string{strconv.Itoa(l.Line), l.Text, l.Reason})
				}
				add(u)
			}
		}
	} else {
		p("From a scenario file: %d brokers.", len(cur.Result.Result.spec.Brokers))
	}

	add(block{kind: "h2", text: "The plan"})
	add(block{kind: "code", text: strings.TrimSpace(pc.Plan.Text)})
	p("Each broker is stopped (a controlled shutdown, or killed for kill and replace-disk), kept down, started, and the plan waits until it runs and no partition is under-replicated, polling every %s, before the next; a wait past its timeout stops the plan, as an operator's roll would. The cluster runs %s before the first step and %s after the last.",
		msText(readyPollMs), msText(PlanWarmupMs), msText(PlanTailMs))
	p("%s", candidateTiming(pc))

	add(block{kind: "h2", text: "The two configs"})
	add(r.configTable())

	add(block{kind: "h2", text: "Verdicts (KIP-1358's acceptance criteria)"})
	vt := block{kind: "table", header: []string{"criterion", "limit", cur.Policy.Name, cand.Policy.Name}}
	for i, v := range cur.Verdicts {
		vt.rows = append(vt.rows, []string{v.Text, v.Limit, verdictCell(v), verdictCell(cand.Verdicts[i])})
	}
	add(vt)

	add(block{kind: "h2", text: "The rollout, side by side"})
	ft := block{kind: "table", header: []string{"", cur.Policy.Name, cand.Policy.Name}}
	row := func(name string, f func(PlanRun) string) { ft.rows = append(ft.rows, []string{name, f(cur), f(cand)}) }
	row("plan", func(r PlanRun) string {
		if r.Result.Aborted != "" {
			return "stopped: " + r.Result.Aborted
		}
		return "every step ran"
	})
	row("time to balanced leadership (every broker leading ≥ 99 % of its preferred partitions, from the last start)", func(r PlanRun) string { return timeOrNever(r.Result.BalancedAfterMs) })
	row("produce p99, steady", func(r PlanRun) string { return msFigure(r.Result.Result.Summary.P99SteadyMs) })
	row("produce p99, worst minute in the 10 min after the last unfencing", func(r PlanRun) string { return msFigure(r.Result.Result.Summary.P99Worst10MinMs) })
	row("produce p99, worst sample window in the run", func(r PlanRun) string { _, hi := minMax(r.Result.Result.Series.P99Ms); return msFigure(hi) })
	row("produce request timeouts", func(r PlanRun) string { return strconv.Itoa(r.Result.Result.Summary.ProduceTimeouts) })
	row("most preferred elections in one run", func(r PlanRun) string { return strconv.Itoa(r.Result.Result.Summary.MaxElectionsPerRun) })
	row("partitions under min.insync.replicas at some sample", func(r PlanRun) string { return strconv.Itoa(countRisk(r.Result.AtRisk, true)) })
	row("partitions without a leader at some sample", func(r PlanRun) string { return strconv.Itoa(countRisk(r.Result.AtRisk, false)) })
	row("invariant violation", func(r PlanRun) string { return orNone(r.Result.Result.Violation) })
	add(ft)
	st := block{kind: "table", header: []string{"step", "broker", cur.Policy.Name + ": stopped → started → ready", cand.Policy.Name + ": stopped → started → ready"}}
	for i := range max(len(cur.Result.Steps), len(cand.Result.Steps)) {
		var first StepOutcome
		cells := []string{"", ""}
		for k, run := range []PlanRun{cur, cand} {
			if i < len(run.Result.Steps) {
				s := run.Result.Steps[i]
				first = s
				cells[k] = stepCell(s)
			} else {
				cells[k] = "not run"
			}
		}
		st.rows = append(st.rows, []string{fmt.Sprintf("line %d: %s", first.Line, first.Kind), strconv.Itoa(int(first.Broker)), cells[0], cells[1]})
	}
	add(st)

	add(block{kind: "h2", text: "Timelines"})
	for _, run := range []PlanRun{cur, cand} {
		c := &chart{title: "Leaders per broker: " + run.Policy.Name, unit: "partitions", timeMs: run.Result.Result.Series.TimeMs, marks: starts(run.Result)}
		for _, b := range run.Result.Result.Series.Brokers {
			c.series = append(c.series, chartSeries{name: "broker " + strconv.Itoa(int(b.ID)), values: ints(b.Leaders)})
		}
		add(block{kind: "chart", chart: c})
	}
	for _, m := range []struct {
		title, unit string
		get         func(*PlanResult) []float64
	}{
		{"Under-replicated partitions", "partitions", func(r *PlanResult) []float64 { return ints(r.UnderReplicated) }},
		{"Partitions under min.insync.replicas", "partitions", func(r *PlanResult) []float64 { return ints(r.UnderMinIsr) }},
		{"Partitions without a leader", "partitions", func(r *PlanResult) []float64 { return ints(r.Leaderless) }},
		{"Produce p99", "ms", func(r *PlanResult) []float64 { return r.Result.Series.P99Ms }},
	} {
		c := &chart{title: m.title, unit: m.unit, timeMs: longer(cur.Result.Result.Series.TimeMs, cand.Result.Result.Series.TimeMs), marks: starts(cur.Result)}
		for _, run := range []PlanRun{cur, cand} {
			c.series = append(c.series, chartSeries{name: run.Policy.Name, values: m.get(run.Result)})
		}
		add(block{kind: "chart", chart: c})
	}

	add(block{kind: "h2", text: "Partitions at risk"})
	for _, run := range []PlanRun{cur, cand} {
		risk := run.Result.AtRisk
		if len(risk) == 0 {
			p("%s: no partition was under min.insync.replicas or without a leader at any sample.", run.Policy.Name)
			continue
		}
		p("%s: %d partitions, the longest first (time at the samples, every %s):", run.Policy.Name, len(risk), msText(SampleMs))
		t := block{kind: "table", header: []string{"partition", "under min.insync.replicas", "without a leader"}}
		for _, pr := range risk[:min(len(risk), maxRiskRows)] {
			t.rows = append(t.rows, []string{pr.Name(), msText(pr.UnderMinIsrMs), msText(pr.LeaderlessMs)})
		}
		add(t)
		if len(risk) > maxRiskRows {
			p("… and %d more (the JSON output lists them all).", len(risk)-maxRiskRows)
		}
	}

	add(block{kind: "h2", text: "The model's assumptions"})
	var drivers []string
	seen := map[string]bool{}
	for _, v := range cand.Verdicts {
		for _, d := range v.Drivers {
			if seen[d.Key] {
				continue
			}
			seen[d.Key] = true
			where := "the model's default, not from the cluster"
			if d.InScenario {
				where = "set for this cluster"
			}
			drivers = append(drivers, fmt.Sprintf("%s: %s = %s (%s); %s", d.Key, d.Names, number(d.Value), where, d.Source))
		}
	}
	add(block{kind: "list", items: drivers})
	switch {
	case !r.Sensitivity:
		p("The verdicts were not rerun with these moved: `kraftlab lab --plan FILE --sensitivity` does, and lists the verdicts that flip.")
	case len(r.Flips) == 0:
		p("Rerun with each assumption at its low and high value, no verdict flipped.")
	default:
		p("Verdicts that flip when an assumption moves to its low or high value (they rest on it):")
		t := block{kind: "table", header: []string{"config", "criterion", "assumption", "side", "verdict"}}
		for _, f := range r.Flips {
			t.rows = append(t.rows, []string{f.Policy, f.Criterion, f.Key, f.Side, fmt.Sprintf("%s → %s", f.From, f.To)})
		}
		add(t)
	}
	return bs
}

// configTable lists every config either side sets: its value under the current config and
// under the candidate.
func (r *Report) configTable() block {
	t := block{kind: "table", header: []string{"config", "current", "candidate"}}
	cur := map[string]string{}
	var names []string
	for _, o := range r.Current {
		if _, ok := cur[o.Name]; !ok {
			names = append(names, o.Name)
		}
		cur[o.Name] = o.Value
	}
	cand := map[string]string{}
	for _, o := range r.Comparison.Candidate.Policy.Overrides {
		if _, ok := cur[o.Name]; !ok && !slices.Contains(names, o.Name) {
			names = append(names, o.Name)
		}
		cand[o.Name] = o.Value
	}
	for _, n := range names {
		c, ok := cur[n]
		if !ok {
			c = "default"
			if d, found := config.Lookup(n); found {
				c = fmt.Sprintf("%v (default)", d.Default)
			}
		}
		k, ok := cand[n]
		if !ok {
			k = c
		}
		t.rows = append(t.rows, []string{n, c, k})
	}
	return t
}

// candidateTiming says when the candidate took effect in its run (rollout.go).
func candidateTiming(pc *PlanComparison) string {
	r := pc.Candidate.Result
	switch {
	case len(r.RolledConfigs) == 0 && pc.Plan.rollsControllers():
		return "When the candidate took effect: from the start of its run. It changes no controller-side static config, so there was nothing for roll-controllers to bring in; its dynamic configs (kafka-configs.sh --alter --entity-default) and model parameters hold at once."
	case len(r.RolledConfigs) == 0:
		return "When the candidate took effect: from the start of its run, as if rolled out before the plan. Its controller-side static configs (leader.imbalance.*, auto.leader.rebalance.enable) take effect in Kafka only when the active controller restarts with them; add a roll-controllers step to rehearse that rollout itself."
	case r.RolledInMs < 0:
		return fmt.Sprintf("When the candidate took effect: its controller-side static configs (%s) never did: no controller restarted with them became active. Its other configs held from the start.", strings.Join(r.RolledConfigs, ", "))
	}
	return fmt.Sprintf("When the candidate took effect: its controller-side static configs (%s) at %s, when controller %d, restarted with them by roll-controllers, became the active controller (Kafka reads them only at a controller's start: ControllerServer.startup, QuorumController.Builder); until then the controllers ran the current config. Its other configs (dynamic ones, as kafka-configs.sh --alter --entity-default sets them, and model parameters) held from the start.",
		strings.Join(r.RolledConfigs, ", "), clock(r.RolledInMs), r.InController)
}

func planTitle(p *Plan) string {
	var parts []string
	for _, s := range p.Steps {
		parts = append(parts, s.Kind)
	}
	return strings.Join(parts, ", ")
}

func verdictCounts(vs []Verdict) string {
	n := map[Status]int{}
	for _, v := range vs {
		n[v.Status]++
	}
	return fmt.Sprintf("%d pass, %d fail, %d not measured", n[Pass], n[Fail], n[NotMeasured])
}

func verdictCell(v Verdict) string {
	s := string(v.Status)
	if v.MeasuredText != "—" {
		s += " (" + v.MeasuredText + ")"
	}
	if v.Reason != "" {
		s += ": " + v.Reason
	}
	return s
}

func stepCell(s StepOutcome) string {
	at := func(ms int64) string {
		if ms < 0 {
			return "—"
		}
		return clock(ms)
	}
	c := fmt.Sprintf("%s → %s → %s", at(s.StoppedMs), at(s.StartedMs), at(s.ReadyMs))
	if s.TimedOut {
		c += " (timed out)"
	} else if s.ReadyMs >= 0 {
		c += " (waited " + msText(s.ReadyMs-s.StartedMs) + ")"
	}
	return c
}

// clock writes a scenario time as h:mm:ss.
func clock(ms int64) string {
	s := ms / 1000
	return fmt.Sprintf("%d:%02d:%02d", s/3600, s/60%60, s%60)
}

func countRisk(rs []PartitionRisk, underMin bool) int {
	n := 0
	for _, r := range rs {
		if (underMin && r.UnderMinIsrMs > 0) || (!underMin && r.LeaderlessMs > 0) {
			n++
		}
	}
	return n
}

func timeOrNever(ms int64) string {
	if ms < 0 {
		return "not within the run"
	}
	return msText(ms)
}

func msFigure(v float64) string {
	if v < 0 {
		return "not measured"
	}
	return strconv.FormatFloat(v, 'f', 1, 64) + " ms"
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

func ints(v []int) []float64 {
	out := make([]float64, len(v))
	for i, x := range v {
		out[i] = float64(x)
	}
	return out
}

func longer(a, b []int64) []int64 {
	if len(a) >= len(b) {
		return a
	}
	return b
}

func starts(r *PlanResult) []int64 {
	var out []int64
	for _, s := range r.Steps {
		if s.StartedMs >= 0 {
			out = append(out, s.StartedMs)
		}
	}
	return out
}
