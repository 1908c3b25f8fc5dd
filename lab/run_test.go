package lab

import (
	"context"
	"testing"

	"github.com/kraftlab/kraftlab/cluster/scenario"
	"github.com/kraftlab/kraftlab/internal/jsskip"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// smallDoc is the small preset's scenario, shortened where a test needs speed.
func smallDoc(t testing.TB, edit func(*Description)) []byte {
	t.Helper()
	d, err := Preset(PresetSmall)
	require.NoError(t, err)
	if edit != nil {
		edit(d)
	}
	doc, err := d.Scenario()
	require.NoError(t, err)
	return doc
}

// A lab run, stepped in uneven chunks, gives the summary `kraftlab run` (scenario.Run) gives
// for the same file: the exported scenario replays to the same numbers.
func TestRunMatchesScenarioRun(t *testing.T) {
	jsskip.CoveredNatively(t, "a stepped lab run against scenario.Run, both in this process")
	doc := smallDoc(t, nil)
	doc, err := ApplyOverrides(doc, []Override{{"leader.imbalance.election.algorithm", "wait-for-sync"}, {"leader.imbalance.election.max.per.run", "50"}})
	require.NoError(t, err)

	r, err := NewRunner(doc)
	require.NoError(t, err)
	steps := []int64{1, 7_777, 250_000, 33}
	for i := 0; !r.Done(); i++ {
		_, err := r.Step(steps[i%len(steps)])
		require.NoError(t, err)
	}
	got := r.Result()

	s, err := scenario.Parse(doc)
	require.NoError(t, err)
	want, err := scenario.Run(s)
	require.NoError(t, err)
	sum := SummaryOf(got.Summary)
	for _, f := range want.Cluster.Summary.Fields {
		switch f.Name {
		case scenario.SummaryRecoveryTimeMs:
			assert.Equal(t, f.Value, float64(sum.RecoveryTimeMs), f.Name)
		case scenario.SummaryUnfencedAtMs:
			assert.Equal(t, f.Value, float64(sum.UnfencedAtMs), f.Name)
		case scenario.SummaryP99Worst10MinMs:
			assert.InDelta(t, f.Value, got.Summary.P99Worst10MinMs, 1e-9, f.Name)
		case scenario.SummaryMaxElectionsPerRun:
			assert.Equal(t, f.Value, float64(sum.MaxElectionsPerRun), f.Name)
		}
	}
	assert.Greater(t, got.Summary.RecoveryTimeMs, int64(0), "the small preset's broker gets its leadership back")
	assert.LessOrEqual(t, got.Summary.MaxElectionsPerRun, 50)
	assert.Len(t, got.Series.TimeMs, int(got.DurationMs/SampleMs))
	require.Len(t, got.Series.Brokers, 3)
	assert.Equal(t, 100, got.Series.Brokers[0].PreferredTotal)
}

func TestRunCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	calls := 0
	_, err := Run(ctx, smallDoc(t, nil), RunOptions{StepMs: 60_000, Progress: func(now, total int64) {
		calls++
		assert.Equal(t, int64(30*60_000), total)
		if now >= 120_000 {
			cancel()
		}
	}})
	assert.ErrorIs(t, err, context.Canceled)
	assert.Equal(t, 2, calls, "the run stops at the first check after the cancel")
}
