package lab

import (
	"encoding/csv"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/kraftlab/kraftlab/cluster"
)

// SummaryJSON is a run's summary under the scenario result's names (docs/scenario.md); times
// that never came and figures that could not be measured are -1.
type SummaryJSON struct {
	UnfencedAtMs           int64   `json:"unfenced_at_ms"`
	LeadershipRestoredAtMs int64   `json:"leadership_restored_at_ms"`
	RecoveryTimeMs         int64   `json:"recovery_time_ms"`
	P99SteadyMs            float64 `json:"p99_steady_ms"`
	P99Worst10MinMs        float64 `json:"p99_worst_10min_ms"`
	P99Ratio               float64 `json:"p99_ratio"`
	ProduceTimeouts        int     `json:"produce_timeouts"`
	ProduceErrors          int     `json:"produce_errors"`
	AckedRecordsLost       float64 `json:"acked_records_lost"`
	MaxElectionsPerRun     int     `json:"max_elections_per_run"`
	UncleanElections       int     `json:"unclean_elections"`
	InvariantViolations    int     `json:"invariant_violations"`
}

// SummaryOf converts a cluster summary.
func SummaryOf(s cluster.Summary) SummaryJSON {
	return SummaryJSON{s.UnfencedAtMs, s.LeadershipRestoredAtMs, s.RecoveryTimeMs, round3(s.P99SteadyMs), round3(s.P99Worst10MinMs),
		round3(s.P99Ratio), s.ProduceTimeouts, s.ProduceErrors, s.AckedRecordsLost, s.MaxElectionsPerRun, s.UncleanElections, s.InvariantViolations}
}

// round3 keeps three decimals: the figures are a model's, and more digits only make files
// differ where nothing changed.
func round3(v float64) float64 {
	r, _ := strconv.ParseFloat(strconv.FormatFloat(v, 'f', 3, 64), 64)
	return r
}

// csvHeader is the sweep CSV's fixed columns after the cell number and the axes.
var csvHeader = []string{"unfenced_at_ms", "leadership_restored_at_ms", "recovery_time_ms", "immediate_recovery_time_ms",
	"recovery_ratio", "p99_steady_ms", "p99_worst_10min_ms", "p99_ratio", "produce_timeouts", "max_elections_per_run",
	"verdict_" + CriterionP99, "verdict_" + CriterionTimeouts, "verdict_" + CriterionRecovery, "violation"}

// WriteCSV writes one row per cell, in cell order: the cell, its axis values, the figures of
// the three criteria (-1 where never measured) and each verdict.
func (s *Sweep) WriteCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(s.CSVHeader()); err != nil {
		return err
	}
	for i := range s.Cells {
		c := &s.Cells[i]
		if c.Result == nil {
			return fmt.Errorf("lab: cell %d has not run", c.Index)
		}
		if err := cw.Write(s.CSVRow(c)); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// CSVHeader is the first row WriteCSV writes.
func (s *Sweep) CSVHeader() []string {
	head := []string{"cell"}
	for _, a := range s.Axes {
		head = append(head, a.Name)
	}
	return append(head, csvHeader...)
}

// CSVRow is a judged cell's row, as WriteCSV writes it (for a sweep written as it runs).
func (s *Sweep) CSVRow(c *Cell) []string {
	sum := SummaryOf(c.Result.Summary)
	row := append([]string{strconv.Itoa(c.Index)}, c.Values...)
	rec := verdictOf(c.Verdicts, CriterionRecovery)
	row = append(row, i64(sum.UnfencedAtMs), i64(sum.LeadershipRestoredAtMs), i64(sum.RecoveryTimeMs),
		i64(c.Baseline.Summary.RecoveryTimeMs), f3(rec.Measured), f3(sum.P99SteadyMs), f3(sum.P99Worst10MinMs),
		f3(sum.P99Ratio), strconv.Itoa(sum.ProduceTimeouts), strconv.Itoa(sum.MaxElectionsPerRun))
	for _, id := range []string{CriterionP99, CriterionTimeouts, CriterionRecovery} {
		row = append(row, string(verdictOf(c.Verdicts, id).Status))
	}
	return append(row, c.Result.Violation)
}

func i64(v int64) string  { return strconv.FormatInt(v, 10) }
func f3(v float64) string { return strconv.FormatFloat(v, 'f', 3, 64) }
func verdictOf(vs []Verdict, id string) Verdict {
	for _, v := range vs {
		if v.Criterion == id {
			return v
		}
	}
	return Verdict{Criterion: id, Status: NotMeasured, Measured: -1}
}

// cellJSON is one cell of the JSON output.
type cellJSON struct {
	Cell                    int         `json:"cell"`
	Values                  []string    `json:"values"`
	Overrides               []string    `json:"overrides"`
	Summary                 SummaryJSON `json:"summary"`
	ImmediateRecoveryTimeMs int64       `json:"immediate_recovery_time_ms"`
	Verdicts                []Verdict   `json:"verdicts"`
	Violation               string      `json:"violation,omitempty"`
}

// WriteJSON writes {"axes": [...], "cells": [...]}: one object per cell, in cell order, with
// its values (in axis order), summary, the immediate baseline's recovery time and the
// verdicts with their figures and the parameters that drive them.
func (s *Sweep) WriteJSON(w io.Writer) error {
	return s.WriteJSONFirst(w, len(s.Cells))
}

// WriteJSONFirst writes the document WriteJSON writes with only the first n cells: those an
// interrupted sweep finished (Stream's count).
func (s *Sweep) WriteJSONFirst(w io.Writer, n int) error {
	out := struct {
		Axes  []Axis     `json:"axes"`
		Cells []cellJSON `json:"cells"`
	}{Axes: s.Axes, Cells: []cellJSON{}}
	for _, c := range s.Cells[:min(max(n, 0), len(s.Cells))] {
		if c.Result == nil {
			return fmt.Errorf("lab: cell %d has not run", c.Index)
		}
		cj := cellJSON{Cell: c.Index, Values: c.Values, Summary: SummaryOf(c.Result.Summary),
			ImmediateRecoveryTimeMs: c.Baseline.Summary.RecoveryTimeMs, Verdicts: roundVerdicts(c.Verdicts), Violation: c.Result.Violation}
		for i, a := range s.Axes {
			cj.Overrides = append(cj.Overrides, a.Name+"="+c.Values[i])
		}
		out.Cells = append(out.Cells, cj)
	}
	return writeJSON(w, out)
}

func roundVerdicts(vs []Verdict) []Verdict {
	out := make([]Verdict, len(vs))
	for i, v := range vs {
		v.Measured = round3(v.Measured)
		out[i] = v
	}
	return out
}

func writeJSON(w io.Writer, v any) error {
	b, err := marshalDoc(v)
	if err != nil {
		return err
	}
	_, err = w.Write(b)
	return err
}

// CellScenario returns a cell's scenario file, which `kraftlab run` replays to the cell's
// figures.
func (s *Sweep) CellScenario(i int) ([]byte, error) {
	if i < 0 || i >= len(s.Cells) {
		return nil, fmt.Errorf("cell %d does not exist; cells are 0 to %d", i, len(s.Cells)-1)
	}
	return s.Cells[i].Scenario, nil
}

// WriteJSON writes the comparison: each policy with its overrides, summary, verdicts and
// time series.
func (c *Comparison) WriteJSON(w io.Writer) error { return writeJSON(w, c.jsonValue()) }

// jsonValue is the comparison as the JSON output holds it.
func (c *Comparison) jsonValue() any {
	type policyJSON struct {
		Name      string      `json:"name"`
		Overrides []Override  `json:"overrides"`
		Summary   SummaryJSON `json:"summary"`
		Verdicts  []Verdict   `json:"verdicts"`
		Violation string      `json:"violation,omitempty"`
		Series    Series      `json:"series"`
	}
	out := struct {
		Seed                    uint64       `json:"seed"`
		ImmediateRecoveryTimeMs int64        `json:"immediate_recovery_time_ms"`
		Policies                []policyJSON `json:"policies"`
	}{Seed: c.Seed, ImmediateRecoveryTimeMs: c.Baseline.Summary.RecoveryTimeMs}
	for _, p := range c.Policies {
		out.Policies = append(out.Policies, policyJSON{Name: p.Policy.Name, Overrides: p.Policy.Overrides, Summary: SummaryOf(p.Result.Summary),
			Verdicts: roundVerdicts(p.Verdicts), Violation: p.Result.Violation, Series: roundSeries(p.Result.Series)})
	}
	return out
}

// WriteJSON writes {"comparison": ..., "variants": [...], "flips": [...]}: the base comparison
// as Comparison.WriteJSON writes it, each variant's verdicts, and the verdicts that flip.
func (s *Sensitivity) WriteJSON(w io.Writer) error {
	variants := make([]Variant, len(s.Variants))
	for i, v := range s.Variants {
		v.Verdicts = append([][]Verdict(nil), v.Verdicts...)
		for j := range v.Verdicts {
			v.Verdicts[j] = roundVerdicts(v.Verdicts[j])
		}
		variants[i] = v
	}
	flips := s.Flips
	if flips == nil {
		flips = []Flip{}
	}
	return writeJSON(w, struct {
		Comparison any       `json:"comparison"`
		Variants   []Variant `json:"variants"`
		Flips      []Flip    `json:"flips"`
	}{s.Base.jsonValue(), variants, flips})
}

func roundSeries(s Series) Series {
	s.P99Ms = append([]float64(nil), s.P99Ms...)
	s.P99Ratio = append([]float64(nil), s.P99Ratio...)
	for i := range s.P99Ms {
		s.P99Ms[i], s.P99Ratio[i] = round3(s.P99Ms[i]), round3(s.P99Ratio[i])
	}
	return s
}

// WriteText writes the verdict table for people: one row per policy and criterion, the
// measured figure, the limit and the outcome, then the parameters behind the verdicts.
func (c *Comparison) WriteText(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "seed %d; immediate recovery time %s\n\n", c.Seed, timeText(c.Baseline.Summary.RecoveryTimeMs))
	fmt.Fprintf(&b, "| policy | criterion | measured | limit | verdict |\n|---|---|---|---|---|\n")
	for _, p := range c.Policies {
		for _, v := range p.Verdicts {
			verdict := string(v.Status)
			if v.Reason != "" {
				verdict += ": " + v.Reason
			}
			if v.Status == Pass && len(v.Unseen) > 0 {
				verdict += " (rests on model defaults: " + strings.Join(v.Unseen, ", ") + ")"
			}
			fmt.Fprintf(&b, "| %s | %s | %s | %s | %s |\n", p.Policy.Name, v.Text, v.MeasuredText, v.Limit, verdict)
		}
	}
	writeDrivers(&b, c.Policies[0].Verdicts)
	_, err := io.WriteString(w, b.String())
	return err
}

// writeDrivers lists the model's assumptions behind the verdicts, once.
func writeDrivers(b *strings.Builder, vs []Verdict) {
	b.WriteString("\nThe verdicts rest on these uncertain model parameters (`kraftlab lab --sensitivity` moves them):\n")
	seen := map[string]bool{}
	for _, v := range vs {
		for _, d := range v.Drivers {
			if seen[d.Key] {
				continue
			}
			seen[d.Key] = true
			var crit []string
			for _, v2 := range vs {
				for _, d2 := range v2.Drivers {
					if d2.Key == d.Key {
						crit = append(crit, v2.Criterion)
					}
				}
			}
			where := "the model's default, not in the scenario"
			if d.InScenario {
				where = "set in the scenario"
			}
			fmt.Fprintf(b, "  %s: %s = %s (%s) — %s; drives %s\n", d.Key, d.Names, number(d.Value), where, d.Source, strings.Join(crit, ", "))
		}
	}
}

// number writes a parameter's value for people: whole numbers in full, others to 4 digits.
func number(v float64) string {
	if v == float64(int64(v)) {
		return strconv.FormatInt(int64(v), 10)
	}
	return strconv.FormatFloat(v, 'g', 4, 64)
}

func timeText(ms int64) string {
	if ms < 0 {
		return "never"
	}
	return seconds(ms)
}
