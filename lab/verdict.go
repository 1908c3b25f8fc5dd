package lab

import (
	"fmt"
)

// Criteria: KIP-1358's acceptance criteria, by id.
const (
	// CriterionP99: produce p99 within 1.5× of steady state over the 10 minutes after
	// unfencing (the worst sliding window wholly inside them).
	CriterionP99 = "p99_within_1.5x_steady"
	// CriterionTimeouts: no produce request timeout during the run.
	CriterionTimeouts = "no_produce_timeout"
	// CriterionRecovery: recovery time (unfencing to leadership restored) at most 2× that of
	// `immediate` on the same cluster and seed.
	CriterionRecovery = "recovery_within_2x_immediate"
)

// Limits of the criteria.
const (
	MaxP99Ratio           = 1.5
	MaxRecoveryRatio      = 2.0
	p99WindowAfterUnfence = 600_000
)

// Status is a verdict's outcome. NotMeasured is never a pass: it says the run could not tell.
type Status string

// The outcomes.
const (
	Pass        Status = "pass"
	Fail        Status = "fail"
	NotMeasured Status = "not measured"
)

// Verdict is one criterion judged on one run: the measured figure, the limit, the outcome
// and, when not measured, why. Drivers are the uncertain model parameters the figure rests
// on, with their values, so that no pass is shown without what it depends on.
type Verdict struct {
	Criterion string  `json:"criterion"`
	Text      string  `json:"text"`
	Measured  float64 `json:"measured"`
	// MeasuredText is the figure for people ("2.61× (33.8 ms / 12.9 ms)").
	MeasuredText string   `json:"measured_text"`
	Limit        string   `json:"limit"`
	Status       Status   `json:"status" ts:"VerdictStatus"`
	Reason       string   `json:"reason,omitempty"`
	Drivers      []Driver `json:"drivers"`
	// Unseen lists the drivers left at the model's default (not in the scenario): a pass
	// that rests on them is shown with them.
	Unseen []string `json:"unseen_assumptions"`
}

// Verdicts judges a run by the three criteria. baseline is the `immediate` run on the same
// cluster and seed (nil when there is none: the recovery criterion is then not measured).
func Verdicts(run, baseline *RunResult) []Verdict {
	return []Verdict{p99Verdict(run), timeoutVerdict(run), recoveryVerdict(run, baseline)}
}

func newVerdict(run *RunResult, criterion, text, limit string) Verdict {
	v := Verdict{Criterion: criterion, Text: text, Limit: limit, Status: NotMeasured, Measured: -1, MeasuredText: "—",
		Drivers: drivers(criterion, &run.spec, run.explicit), Unseen: []string{}}
	for _, d := range v.Drivers {
		if !d.InScenario {
			v.Unseen = append(v.Unseen, d.Key)
		}
	}
	return v
}

func p99Verdict(run *RunResult) Verdict {
	v := newVerdict(run, CriterionP99, "produce p99 within 1.5× of steady state over the 10 minutes after unfencing", fmt.Sprintf("≤ %.1f×", MaxP99Ratio))
	s := run.Summary
	switch {
	case run.Violation != "":
		v.Reason = "the run stopped at an invariant violation"
	case s.UnfencedAtMs < 0:
		v.Reason = "no restarted broker was unfenced in the run"
	case s.P99SteadyMs <= 0:
		v.Reason = fmt.Sprintf("no steady period to measure the baseline: %.0f s of healthy produce before the first fault, %.0f s needed",
			float64(s.SteadyMs)/1000, float64(s.SteadyNeedMs)/1000)
	case run.ReachedMs < s.UnfencedAtMs+p99WindowAfterUnfence:
		v.Reason = fmt.Sprintf("the run ends %s after unfencing; the criterion covers 10 minutes", minutes(run.ReachedMs-s.UnfencedAtMs))
	case s.P99Worst10MinMs <= 0:
		v.Reason = "no complete sliding window in the 10 minutes after unfencing"
	default:
		v.Measured = s.P99Ratio
		v.MeasuredText = fmt.Sprintf("%.2f× (%.1f ms / %.1f ms)", s.P99Ratio, s.P99Worst10MinMs, s.P99SteadyMs)
		v.Status = status(s.P99Ratio <= MaxP99Ratio)
	}
	return v
}

func timeoutVerdict(run *RunResult) Verdict {
	v := newVerdict(run, CriterionTimeouts, "no produce timeout", "0")
	if run.Violation != "" {
		v.Reason = "the run stopped at an invariant violation"
		return v
	}
	v.Measured = float64(run.Summary.ProduceTimeouts)
	v.MeasuredText = fmt.Sprintf("%d", run.Summary.ProduceTimeouts)
	v.Status = status(run.Summary.ProduceTimeouts == 0)
	return v
}

func recoveryVerdict(run, base *RunResult) Verdict {
	v := newVerdict(run, CriterionRecovery, "recovery time at most 2× that of immediate", fmt.Sprintf("≤ %.0f× immediate", MaxRecoveryRatio))
	s := run.Summary
	switch {
	case run.Violation != "":
		v.Reason = "the run stopped at an invariant violation"
		return v
	case base == nil:
		v.Reason = "no immediate run on the same cluster to compare with"
		return v
	case base.Violation != "":
		v.Reason = "the immediate run stopped at an invariant violation"
		return v
	case s.UnfencedAtMs < 0:
		v.Reason = "no restarted broker was unfenced in the run"
		return v
	case base.Summary.RecoveryTimeMs < 0:
		v.Reason = "immediate did not restore leadership within the run"
		return v
	}
	b := base.Summary.RecoveryTimeMs
	v.Limit = fmt.Sprintf("≤ %.0f× immediate (%s)", MaxRecoveryRatio, seconds(b))
	limit := int64(MaxRecoveryRatio * float64(b))
	if s.RecoveryTimeMs < 0 {
		// Not restored by the end: a fail once the run has outlasted the limit, else unknown.
		waited := run.ReachedMs - s.UnfencedAtMs
		if waited > limit {
			v.Measured = -1
			v.MeasuredText = fmt.Sprintf("not restored %s after unfencing", seconds(waited))
			v.Status = Fail
		} else {
			v.Reason = fmt.Sprintf("the run ends %s after unfencing, before leadership returned and before the limit", seconds(waited))
		}
		return v
	}
	v.Status = status(s.RecoveryTimeMs <= limit)
	if b == 0 {
		// Immediate took no time at all, so no ratio exists; any wait exceeds 2 × 0.
		v.MeasuredText = fmt.Sprintf("%s (immediate: 0 s)", seconds(s.RecoveryTimeMs))
		return v
	}
	v.Measured = float64(s.RecoveryTimeMs) / float64(b)
	v.MeasuredText = fmt.Sprintf("%.2f× (%s / %s)", v.Measured, seconds(s.RecoveryTimeMs), seconds(b))
	return v
}

func status(ok bool) Status {
	if ok {
		return Pass
	}
	return Fail
}

func seconds(ms int64) string { return fmt.Sprintf("%.1f s", float64(ms)/1000) }

func minutes(ms int64) string { return fmt.Sprintf("%.1f min", float64(ms)/60_000) }
