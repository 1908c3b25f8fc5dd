package lab

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kraftlab/kraftlab/internal/jsskip"
)

func TestCompareSmallCluster(t *testing.T) {
	jsskip.CoveredNatively(t, "the comparison's verdicts and series, rules of the lab's own Go")
	doc := smallDoc(t, func(d *Description) { d.DurationMs = 20 * 60_000 })
	policies := append(DefaultPolicies(), Policy{Name: "cap 5 per 30 s", Overrides: []Override{
		{"leader.imbalance.election.algorithm", "wait-for-sync"},
		{"leader.imbalance.election.max.per.run", "5"},
		{"leader.imbalance.election.throttle.interval.ms", "30000"}}})
	cmp, err := Compare(context.Background(), doc, policies, Options{Workers: 2})
	require.NoError(t, err)
	require.Len(t, cmp.Policies, 3)
	today := cmp.Policies[0]
	assert.Equal(t, cmp.Baseline.Summary, today.Result.Summary, "immediate is today's Kafka: the baseline's figures")
	rec := verdictOf(today.Verdicts, CriterionRecovery)
	assert.Equal(t, Pass, rec.Status)
	assert.Equal(t, 1.0, rec.Measured)
	slow := cmp.Policies[2]
	assert.Equal(t, Fail, verdictOf(slow.Verdicts, CriterionRecovery).Status, "5 per 30 s is ~570 s for 100 partitions")
	assert.Equal(t, 5, slow.Result.Summary.MaxElectionsPerRun)

	// The series show broker 0 losing and regaining its preferred leaderships.
	s := today.Result.Series
	b0 := s.Brokers[0]
	assert.Equal(t, int32(0), b0.ID)
	assert.Equal(t, 100, b0.PreferredLed[0])
	assert.Contains(t, b0.PreferredLed, 0, "led nothing while down")
	assert.Equal(t, 100, b0.PreferredLed[len(b0.PreferredLed)-1])
	assert.NotEmpty(t, s.Runs)
	assert.Len(t, s.P99Ratio, len(s.TimeMs))

	var text, js bytes.Buffer
	require.NoError(t, cmp.WriteText(&text))
	assert.Contains(t, text.String(), "| cap 5 per 30 s | recovery time at most 2× that of immediate |")
	assert.Contains(t, text.String(), "log_recovery_hard: broker.log_recovery_hard_ms = 0 (the model's default, not in the scenario) — 0 by default: derived from what the broker holds")
	require.NoError(t, cmp.WriteJSON(&js))
	var out struct {
		Policies []struct {
			Name     string    `json:"name"`
			Verdicts []Verdict `json:"verdicts"`
			Series   Series    `json:"series"`
		} `json:"policies"`
	}
	require.NoError(t, json.Unmarshal(js.Bytes(), &out))
	require.Len(t, out.Policies, 3)
	assert.Equal(t, "cap 5 per 30 s", out.Policies[2].Name)
	assert.Len(t, out.Policies[2].Verdicts, 3)

	_, err = Compare(context.Background(), doc, []Policy{{Name: "bad", Overrides: []Override{{"leader.imbalance.election.max.per.run", "0"}}}}, Options{})
	assert.ErrorContains(t, err, `policy "bad": leader.imbalance.election.max.per.run=0: Invalid value 0`)
}

func TestSensitivityFlagsFlips(t *testing.T) {
	jsskip.CoveredNatively(t, "the sensitivity reruns against the base verdicts, both in this process")
	doc := smallDoc(t, func(d *Description) { d.DurationMs = 20 * 60_000 })
	s, err := RunSensitivity(context.Background(), doc, DefaultPolicies()[:1], []string{"catch_up_share", "disk"}, Options{Workers: 2})
	require.NoError(t, err)
	require.Len(t, s.Variants, 4)
	assert.Equal(t, []Override{{"broker.catch_up_headroom_share", "0.5"}}, s.Variants[0].Overrides)
	assert.Equal(t, []Override{{"broker.catch_up_headroom_share", "1"}}, s.Variants[1].Overrides)
	assert.Equal(t, []Override{{"broker.disk_write_bytes_per_sec", "250000000"}, {"broker.disk_read_bytes_per_sec", "250000000"}}, s.Variants[2].Overrides,
		"relative ranges scale the scenario's value")
	// Every status that differs from the base is a flip, and nothing else is.
	n := 0
	for _, v := range s.Variants {
		for j, verdict := range v.Verdicts[0] {
			if verdict.Status != s.Base.Policies[0].Verdicts[j].Status {
				n++
				assert.True(t, s.Fragile(s.Base.Policies[0].Policy.Name, verdict.Criterion))
			}
		}
	}
	assert.Len(t, s.Flips, n)
	// Half the catch-up share halves the catch-up rate: the follower load, and so the p99
	// after unfencing, goes down.
	lowP99 := s.Variants[0].Verdicts[0][0].Measured
	assert.Less(t, lowP99, s.Base.Policies[0].Verdicts[0].Measured)

	var text bytes.Buffer
	require.NoError(t, s.WriteText(&text))
	assert.Contains(t, text.String(), "| policy | criterion | base | catch_up_share L/H | disk L/H | robust? |")

	_, err = RunSensitivity(context.Background(), doc, DefaultPolicies(), []string{"moon_phase"}, Options{})
	assert.ErrorContains(t, err, `unknown assumption "moon_phase"; assumptions: disk, nic`)
}
