package cluster_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/kraftlab/kraftlab/cluster"
	"github.com/kraftlab/kraftlab/lab"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// loadTest runs the KIP's load test, as the lab's preset defines it (lab.KIPLoadTest: 6
// brokers, 60,000 partitions at replication factor 3, broker 0, the preferred replica of
// 10,000, killed at 20 min), with broker 0 started again at startMs (21 min by default) and
// the overrides given: the policy under test and any model tweak.
func loadTest(t testing.TB, overrides []lab.Override, startMs ...int64) cluster.Summary {
	d := lab.KIPLoadTest()
	if len(startMs) > 0 {
		d.Event.DownMs = startMs[0] - d.Event.AtMs
	}
	d.Config = overrides
	doc, err := d.Scenario()
	require.NoError(t, err)
	res, err := lab.Run(context.Background(), doc, lab.RunOptions{})
	require.NoError(t, err)
	require.Empty(t, res.Violation)
	return res.Summary
}

// The policies compared: today's, and the KIP's example settings.
var (
	immediate   []lab.Override
	waitForSync = []lab.Override{
		{Name: "leader.imbalance.election.algorithm", Value: "wait-for-sync"},
		{Name: "leader.imbalance.election.wait.for.sync.threshold.percent", Value: "5"},
		{Name: "leader.imbalance.election.max.per.run", Value: "200"},
		{Name: "leader.imbalance.election.throttle.interval.ms", Value: "15000"},
	}
)

func BenchmarkKIPLoadTest(b *testing.B) {
	for _, pol := range []struct {
		name string
		cfg  []lab.Override
	}{{"immediate", immediate}, {"wait-for-sync", waitForSync}} {
		b.Run(pol.name, func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				loadTest(b, pol.cfg)
			}
		})
	}
}

func summaryLine(name string, s cluster.Summary) string {
	return fmt.Sprintf("| %s | %d | %d | %d | %.1f | %.1f | %.2f | %d | %d | %.0f |", name, s.UnfencedAtMs, s.LeadershipRestoredAtMs,
		s.RecoveryTimeMs, s.P99SteadyMs, s.P99Worst10MinMs, s.P99Ratio, s.ProduceTimeouts, s.MaxElectionsPerRun, s.AckedRecordsLost)
}

// with returns the overrides followed by more.
func with(base []lab.Override, more ...lab.Override) []lab.Override {
	return append(append([]lab.Override(nil), base...), more...)
}

// TestKIPLoadTestComparison runs today's policy and the proposal on the KIP's load test, plus
// the variants that show what drives the latency after unfencing, and prints the table the
// docs/reference.md reports, and asserts the model's findings that docs/model.md §9 states, with
// tolerances.
func TestKIPLoadTestComparison(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the 60-minute load test several times")
	}
	throttle := func(rate string) []lab.Override {
		return []lab.Override{{Name: "follower.replication.throttled.rate", Value: rate}, {Name: "broker.throttle_all_replicas", Value: "true"}}
	}
	fast := with(waitForSync, lab.Override{Name: "leader.imbalance.election.max.per.run", Value: "1000"},
		lab.Override{Name: "leader.imbalance.election.throttle.interval.ms", Value: "5000"})
	// Today's tick is at 25:00 (every 300 s from activation). Broker 0 started at 21:00 is
	// unfenced at 23:05 and done catching up before it; started at 22:45 it is unfenced just
	// before the tick, which then falls in the middle of its catch-up.
	const late = 22*60_000 + 45_000
	rows := []struct {
		name  string
		cfg   []lab.Override
		start int64
	}{
		{"immediate (today)", immediate, 0},
		{"immediate, tick during catch-up", immediate, late},
		{"wait-for-sync (KIP's example), tick during catch-up", waitForSync, late},
		{"wait-for-sync, threshold 5 %, max.per.run 200, throttle 15 s (the KIP's example)", waitForSync, 0},
		{"wait-for-sync, threshold 5 %, max.per.run 1000, throttle 5 s", fast, 0},
		{"immediate + follower throttle 150 MB/s", with(immediate, throttle("150000000")...), 0},
		{"wait-for-sync (KIP's example) + follower throttle 150 MB/s", with(waitForSync, throttle("150000000")...), 0},
		{"immediate + follower throttle 50 MB/s (below the 100 MB/s inflow: the throttle trap)", with(immediate, throttle("50000000")...), 0},
	}
	var out []string
	sums := map[string]cluster.Summary{}
	for _, r := range rows {
		start := r.start
		if start == 0 {
			start = 21 * 60_000
		}
		s := loadTest(t, r.cfg, start)
		sums[r.name] = s
		out = append(out, summaryLine(r.name, s))
	}
	t.Logf("\n| policy | unfenced at (ms) | leadership restored at (ms) | recovery (ms) | steady p99 (ms) | worst 10-min p99 (ms) | ratio | produce timeouts | max elections per run | acked records lost |\n|---|---|---|---|---|---|---|---|---|---|\n%s", strings.Join(out, "\n"))

	// The structure: bursts of Kafka's cap today, the proposal's cap with it.
	today, proposal := sums["immediate (today)"], sums["wait-for-sync, threshold 5 %, max.per.run 200, throttle 15 s (the KIP's example)"]
	assert.Equal(t, 1000, today.MaxElectionsPerRun, "today: bursts of Kafka's 1,000 per run")
	assert.LessOrEqual(t, proposal.MaxElectionsPerRun, 200, "the proposal: at most max.per.run")

	// The findings docs/model.md §9 states, each with a tolerance wide enough for a model
	// tweak and narrow enough that a change overturning the claim fails until the doc changes.
	lateToday := sums["immediate, tick during catch-up"]
	lateGate := sums["wait-for-sync (KIP's example), tick during catch-up"]
	fastRun := sums["wait-for-sync, threshold 5 %, max.per.run 1000, throttle 5 s"]
	throttledToday := sums["immediate + follower throttle 150 MB/s"]
	throttledGate := sums["wait-for-sync (KIP's example) + follower throttle 150 MB/s"]
	trap := sums["immediate + follower throttle 50 MB/s (below the 100 MB/s inflow: the throttle trap)"]
	for _, s := range []cluster.Summary{today, lateToday, lateGate, proposal, fastRun, throttledToday, throttledGate} {
		require.Positive(t, s.RecoveryTimeMs, "every policy but the trap restores leadership")
		require.Positive(t, s.P99SteadyMs)
	}
	// 1. The rise comes from the acks=all wait on the catching-up follower, not from who leads:
	// 2-4x steady today, and the gate moves it by less than 10 % even when today's tick falls
	// in the middle of the catch-up.
	for _, s := range []cluster.Summary{today, lateToday} {
		assert.InDelta(t, 3, s.P99Ratio, 1, "§9.1: today's worst p99 is 2-4x steady")
	}
	assert.InEpsilon(t, lateToday.P99Ratio, lateGate.P99Ratio, 0.10, "§9.1: the gate changes the worst p99 by less than 10 %")
	assert.InEpsilon(t, today.P99Ratio, proposal.P99Ratio, 0.10, "§9.1: the gate changes the worst p99 by less than 10 %")
	// 2. A follower throttle above the inflow brings the ratio under 1.5 with either policy,
	// without lengthening today's recovery.
	assert.LessOrEqual(t, throttledToday.P99Ratio, 1.5, "§9.2: a throttle above the inflow keeps p99 within 1.5x")
	assert.LessOrEqual(t, throttledGate.P99Ratio, 1.5, "§9.2: with either policy")
	assert.InEpsilon(t, float64(today.RecoveryTimeMs), float64(throttledToday.RecoveryTimeMs), 0.10, "§9.2: at no cost in recovery time")
	// 3. A throttle below the inflow is the throttle trap.
	assert.Equal(t, int64(-1), trap.LeadershipRestoredAtMs, "§9.3: a throttle below the inflow never lets the broker back in sync")
	// 4. The KIP's example cap takes more than twice today's recovery for a broker preferred
	// for 10,000 partitions; max.per.run 1000 with a 5 s throttle stays within 2x.
	assert.Greater(t, proposal.RecoveryTimeMs, 2*today.RecoveryTimeMs, "§9.4: 200 per 15 s is slower than 2x today")
	assert.LessOrEqual(t, fastRun.RecoveryTimeMs, 2*today.RecoveryTimeMs, "§9.4: 1000 per 5 s stays within 2x today")
	// 5. Today's recovery depends on where the 300 s tick falls after unfencing.
	assert.Greater(t, lateToday.RecoveryTimeMs, today.RecoveryTimeMs+60_000, "§9.5: the tick's phase moves today's recovery")
}
