package lab

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"strings"
	"testing"

	"github.com/kraftlab/kraftlab/cluster/scenario"
	"github.com/kraftlab/kraftlab/internal/jsskip"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseAxis(t *testing.T) {
	a, err := ParseAxis("leader.imbalance.election.wait.for.sync.threshold.percent=0..20:5")
	require.NoError(t, err)
	assert.Equal(t, []string{"0", "5", "10", "15", "20"}, a.Values)
	a, err = ParseAxis("workload.skew=0.1..0.5:0.1")
	require.NoError(t, err)
	assert.Equal(t, []string{"0.1", "0.2", "0.3", "0.4", "0.5"}, a.Values, "no 0.30000000000000004")
	a, err = ParseAxis("leader.imbalance.election.max.per.run=50, 100,1000")
	require.NoError(t, err)
	assert.Equal(t, Axis{Name: "leader.imbalance.election.max.per.run", Values: []string{"50", "100", "1000"}}, a)
	a, err = ParseAxis("leader.imbalance.election.algorithm=immediate,wait-for-sync")
	require.NoError(t, err)
	assert.Len(t, a.Values, 2)

	for in, want := range map[string]string{
		"max.per.run":    "want NAME=v1,v2,...",
		"=1,2":           "want NAME=v1,v2,...",
		"x=1,,2":         "x: an empty value",
		"x=1,2,1":        "x: value 1 is listed twice",
		"x=10..0:5":      "x: invalid range \"10..0:5\": TO must be at least FROM",
		"x=0..10:0":      "the step must be above 0",
		"x=a..b":         "want FROM..TO:STEP with numbers",
		"x=0..1000000:1": "1000001 values, more than the 400 cells",
	} {
		_, err := ParseAxis(in)
		assert.ErrorContains(t, err, want, in)
	}
}

func TestPlanSweepRefusesBadGrids(t *testing.T) {
	doc := smallDoc(t, nil)
	axis := func(text string) Axis {
		a, err := ParseAxis(text)
		require.NoError(t, err)
		return a
	}
	_, err := PlanSweep(doc, nil, []Axis{axis("leader.imbalance.election.max.per.run=1..21:1"), axis("leader.imbalance.election.wait.for.sync.threshold.percent=0..19:1")})
	assert.ErrorContains(t, err, "grid leader.imbalance.election.wait.for.sync.threshold.percent: 420 cells, more than 400 (leader.imbalance.election.max.per.run has 21 values, leader.imbalance.election.wait.for.sync.threshold.percent has 20 values)")
	_, err = PlanSweep(doc, nil, []Axis{axis("seed=1,2"), axis("seed=3,4")})
	assert.ErrorContains(t, err, "grid seed: the same config is swept twice")
	_, err = PlanSweep(doc, nil, []Axis{axis("seed=1"), axis("workload.skew=1"), axis("broker.rtt_ms=1")})
	assert.ErrorContains(t, err, "grid: give one or two axes")
	_, err = PlanSweep(doc, nil, []Axis{axis("leader.imbalance.election.max.per.run=100,0")})
	assert.ErrorContains(t, err, "grid leader.imbalance.election.max.per.run=0: leader.imbalance.election.max.per.run=0: Invalid value 0")
	_, err = PlanSweep(doc, nil, []Axis{axis("leader.imbalance.election.max.perrun=1")})
	assert.ErrorContains(t, err, `Unknown configuration "leader.imbalance.election.max.perrun"`)
	_, err = PlanSweep(doc, []Override{{"broker.disk_write_bytes_per_sec", "-1"}}, []Axis{axis("seed=1")})
	assert.ErrorContains(t, err, "broker.disk_write_bytes_per_sec=-1")
}

// A real grid on the small cluster: cells in row-major order, one shared baseline, the same
// bytes whatever the number of workers, and each cell's scenario replays to its figures.
func TestSweepSmallGrid(t *testing.T) {
	jsskip.CoveredNatively(t, "a sweep on one worker against two, and each cell against its replay, all in this process")
	doc := smallDoc(t, func(d *Description) { d.DurationMs = 20 * 60_000 })
	axes := []Axis{
		{Name: "leader.imbalance.election.max.per.run", Values: []string{"10", "1000"}},
		{Name: "leader.imbalance.election.throttle.interval.ms", Values: []string{"0", "30000"}},
	}
	base := []Override{{"leader.imbalance.election.algorithm", "wait-for-sync"}}
	outputs := map[int][2]string{}
	var sweep *Sweep
	for _, workers := range []int{1, 3} {
		s, err := PlanSweep(doc, base, axes)
		require.NoError(t, err)
		assert.Equal(t, 5, s.Runs(), "four cells and one immediate baseline they share")
		progress := 0
		require.NoError(t, s.Run(context.Background(), Options{Workers: workers, Progress: func(done, total int) {
			progress++
			assert.Equal(t, 5, total)
			assert.Equal(t, progress, done)
		}}))
		assert.Equal(t, 5, progress)
		var c, j bytes.Buffer
		require.NoError(t, s.WriteCSV(&c))
		require.NoError(t, s.WriteJSON(&j))
		outputs[workers] = [2]string{c.String(), j.String()}
		sweep = s
	}
	assert.Equal(t, outputs[1], outputs[3], "the output does not depend on the workers")

	rows, err := csv.NewReader(strings.NewReader(outputs[1][0])).ReadAll()
	require.NoError(t, err)
	require.Len(t, rows, 5)
	assert.Equal(t, []string{"cell", "leader.imbalance.election.max.per.run", "leader.imbalance.election.throttle.interval.ms"}, rows[0][:3])
	assert.Equal(t, [][]string{{"0", "10", "0"}, {"1", "10", "30000"}, {"2", "1000", "0"}, {"3", "1000", "30000"}},
		[][]string{rows[1][:3], rows[2][:3], rows[3][:3], rows[4][:3]}, "row-major, the first axis slowest")

	// The cap and throttle pace the broker's 100 preferred partitions: max.per.run 10 with a
	// 30 s throttle takes longer than 1000 in one go.
	slow, fast := sweep.Cells[1].Result.Summary, sweep.Cells[3].Result.Summary
	assert.Greater(t, slow.RecoveryTimeMs, fast.RecoveryTimeMs)
	assert.Equal(t, 10, slow.MaxElectionsPerRun)
	assert.Equal(t, Fail, verdictOf(sweep.Cells[1].Verdicts, CriterionRecovery).Status, "10 per 30 s is 270 s of ramp, above 2× immediate")
	assert.Equal(t, Pass, verdictOf(sweep.Cells[3].Verdicts, CriterionRecovery).Status)

	var js struct {
		Cells []cellJSON `json:"cells"`
	}
	require.NoError(t, json.Unmarshal([]byte(outputs[1][1]), &js))
	require.Len(t, js.Cells, 4)
	assert.Equal(t, []string{"leader.imbalance.election.max.per.run=10", "leader.imbalance.election.throttle.interval.ms=30000"}, js.Cells[1].Overrides)
	assert.Equal(t, slow.RecoveryTimeMs, js.Cells[1].Summary.RecoveryTimeMs)

	// The exported scenario of a cell replays, with `kraftlab run`'s runner, to its figures.
	sc, err := sweep.CellScenario(1)
	require.NoError(t, err)
	parsedCell, err := scenario.Parse(sc)
	require.NoError(t, err)
	replay, err := scenario.Run(parsedCell)
	require.NoError(t, err)
	rec, _ := replay.Cluster.Summary.Get(scenario.SummaryRecoveryTimeMs)
	assert.Equal(t, float64(slow.RecoveryTimeMs), rec.Value)
	_, err = sweep.CellScenario(4)
	assert.ErrorContains(t, err, "cell 4 does not exist; cells are 0 to 3")
}
