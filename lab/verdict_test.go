package lab

import (
	"testing"

	"github.com/kraftlab/kraftlab/cluster"
	"github.com/stretchr/testify/assert"
)

// result builds a finished run with the summary given, for judging.
func result(s cluster.Summary, reachedMs int64) *RunResult {
	return &RunResult{DurationMs: reachedMs, ReachedMs: reachedMs, Summary: s, spec: cluster.DefaultSpec(),
		explicit: map[string]bool{"broker.disk_write_bytes_per_sec": true}}
}

func summary(unfenced, recovery int64, ratio float64, timeouts int) cluster.Summary {
	s := cluster.Summary{UnfencedAtMs: unfenced, RecoveryTimeMs: recovery, LeadershipRestoredAtMs: -1,
		P99SteadyMs: 10, P99Worst10MinMs: 10 * ratio, P99Ratio: ratio, ProduceTimeouts: timeouts}
	if unfenced >= 0 && recovery >= 0 {
		s.LeadershipRestoredAtMs = unfenced + recovery
	}
	if ratio < 0 {
		s.P99Worst10MinMs = -1
	}
	return s
}

func TestVerdictsPassAndFail(t *testing.T) {
	base := result(summary(100_000, 100_000, 2.6, 0), 3_600_000)
	good := result(summary(100_000, 200_000, 1.5, 0), 3_600_000)
	vs := Verdicts(good, base)
	assert.Equal(t, []Status{Pass, Pass, Pass}, []Status{vs[0].Status, vs[1].Status, vs[2].Status}, "the limits are inclusive: 1.5× and 2×")
	assert.Equal(t, 1.5, vs[0].Measured)
	assert.Equal(t, "1.50× (15.0 ms / 10.0 ms)", vs[0].MeasuredText)
	assert.Equal(t, 2.0, vs[2].Measured)

	bad := result(summary(100_000, 200_001, 1.51, 3), 3_600_000)
	vs = Verdicts(bad, base)
	assert.Equal(t, []Status{Fail, Fail, Fail}, []Status{vs[0].Status, vs[1].Status, vs[2].Status})
	assert.Equal(t, 3.0, vs[1].Measured)

	// Never restored, and the run outlasted 2× immediate: a fail, not "not measured".
	never := result(summary(100_000, -1, 1.0, 0), 3_600_000)
	assert.Equal(t, Fail, Verdicts(never, base)[2].Status)
}

func TestVerdictsNotMeasured(t *testing.T) {
	base := result(summary(100_000, 100_000, 2.6, 0), 3_600_000)
	cases := []struct {
		name     string
		run      *RunResult
		base     *RunResult
		criteria []Status
		reason   string
	}{
		{"no unfencing", result(summary(-1, -1, -1, 0), 3_600_000), base, []Status{NotMeasured, Pass, NotMeasured}, "no restarted broker was unfenced"},
		{"run ends within 10 minutes of unfencing", result(summary(100_000, 50_000, 1.1, 0), 400_000), base, []Status{NotMeasured, Pass, Pass}, "the criterion covers 10 minutes"},
		{"no baseline", result(summary(100_000, 50_000, 1.1, 0), 3_600_000), nil, []Status{Pass, Pass, NotMeasured}, "no immediate run"},
		{"baseline never restored", result(summary(100_000, 50_000, 1.1, 0), 3_600_000), result(summary(100_000, -1, 1, 0), 3_600_000),
			[]Status{Pass, Pass, NotMeasured}, "immediate did not restore leadership"},
		{"not restored yet, run too short to tell", result(summary(100_000, -1, 1.1, 0), 250_000), base, []Status{NotMeasured, Pass, NotMeasured}, "before leadership returned"},
	}
	for _, c := range cases {
		vs := Verdicts(c.run, c.base)
		got := []Status{vs[0].Status, vs[1].Status, vs[2].Status}
		assert.Equal(t, c.criteria, got, c.name)
		var reasons string
		for _, v := range vs {
			if v.Status == NotMeasured {
				assert.Equal(t, -1.0, v.Measured, c.name)
				assert.NotEmpty(t, v.Reason, "%s: a figure not measured says why", c.name)
			}
			reasons += v.Reason + "|"
		}
		assert.Contains(t, reasons, c.reason, c.name)
	}

	stopped := result(summary(100_000, 50_000, 1.1, 0), 3_600_000)
	stopped.Violation = "leader not in ISR"
	for _, v := range Verdicts(stopped, base) {
		assert.Equal(t, NotMeasured, v.Status, "a run stopped by a violation passes nothing")
	}
}

// Every verdict names the uncertain parameters behind it, and those the scenario left at the
// model's default.
func TestVerdictsListTheirDrivers(t *testing.T) {
	vs := Verdicts(result(summary(100_000, 100_000, 1.0, 0), 3_600_000), result(summary(100_000, 100_000, 1.0, 0), 3_600_000))
	for _, v := range vs {
		assert.NotEmpty(t, v.Drivers, v.Criterion)
		for _, d := range v.Drivers {
			assert.NotEmpty(t, d.Source)
			assert.Equal(t, d.InScenario, !contains(v.Unseen, d.Key))
		}
	}
	p99 := vs[0]
	assert.Equal(t, "disk", p99.Drivers[0].Key)
	assert.True(t, p99.Drivers[0].InScenario)
	assert.Equal(t, 500e6, p99.Drivers[0].Value)
	assert.Contains(t, p99.Unseen, "append_service")
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// TestP99VerdictWordsTheKIPsCriterionAndTheLabsReading: the KIP's criterion as the KIP words it
// (the 10 minutes after unfencing against the prior hour's steady p99, request.timeout.ms ≥
// 30,000) and, named beside it, the stricter reading the lab measures.
func TestP99VerdictWordsTheKIPsCriterionAndTheLabsReading(t *testing.T) {
	v := Verdicts(result(summary(100_000, 100_000, 1.2, 0), 3_600_000), nil)[0]
	assert.Contains(t, v.Text, "KIP-1358: produce p99 over the 10 minutes after unfencing within 1.5× the prior hour's steady p99")
	assert.Contains(t, v.Text, "request.timeout.ms ≥ 30,000")
	assert.Contains(t, v.Text, "stricter worst one-minute p99")
}

// TestP99VerdictWithoutASteadyPeriodSaysWhy: a fault before one sliding window of healthy
// produce leaves no steady p99; the verdict says how much there was and how much is needed.
func TestP99VerdictWithoutASteadyPeriodSaysWhy(t *testing.T) {
	s := summary(100_000, 100_000, -1, 0)
	s.P99SteadyMs, s.P99Ratio, s.SteadyMs, s.SteadyNeedMs = -1, -1, 20_000, 60_000
	v := Verdicts(result(s, 3_600_000), nil)[0]
	assert.Equal(t, NotMeasured, v.Status)
	assert.Equal(t, "no steady period to measure the baseline: 20 s of healthy produce before the first fault, 60 s needed", v.Reason)
}
