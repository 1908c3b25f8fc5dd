package workload

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kraftlab/kraftlab/cluster/sim"
)

func TestGroupRatesKeepsFewDistinctRatesExact(t *testing.T) {
	rates := []float64{5, 0, 5, 7, 1e6, 0, 7}
	levels, of := GroupRates(rates, 8)
	for i, r := range rates {
		assert.Equal(t, r, levels[of[i]], "rate %d", i)
	}
	assert.Len(t, levels, 4, "0, 5, 7 and 1e6")
	assert.Zero(t, GroupError(rates, levels, of))
}

func TestGroupRatesBoundsTheErrorAndKeepsTheTotal(t *testing.T) {
	// 10,000 rates over six decades into 48 groups.
	r := sim.NewRand(3)
	rates := make([]float64, 10_000)
	var total float64
	for i := range rates {
		rates[i] = math.Pow(10, 3+6*r.Float64())
		total += rates[i]
	}
	levels, of := GroupRates(rates, 48)
	require.LessOrEqual(t, len(levels), 48)
	var sum float64
	for i := range rates {
		sum += levels[of[i]]
	}
	assert.InDelta(t, total, sum, total*1e-9, "each group's mean keeps the total")
	// Six decades in 48 equal log intervals are 1.33× wide; a member is within that of its mean.
	assert.Less(t, GroupError(rates, levels, of), math.Pow(10, 6.0/48)-1+1e-9)
	assert.Greater(t, GroupError(rates, levels, of), 0.0)
}

func TestSetPartitionRatesGivesEachStartingPartitionItsRate(t *testing.T) {
	s := sim.New(1)
	w, err := New(s, DefaultParams(), 3, 5)
	require.NoError(t, err)
	require.NoError(t, w.SetPartitionRates([]float64{1e6, 0, 3e6, 1e6}))
	for p, want := range []float64{1e6, 0, 3e6, 1e6} {
		assert.Equal(t, want, w.ClassBytesPerSec(w.ClassOf(int32(p))), "partition %d", p)
	}
	assert.Less(t, w.ClassOf(4), DefaultParams().Classes, "a partition beyond the given ones keeps a lognormal class")
	require.ErrorContains(t, w.SetPartitionRates([]float64{1}), "once")

	w, _ = New(s, DefaultParams(), 3, 5)
	require.ErrorContains(t, w.SetPartitionRates([]float64{1, math.NaN()}), "partition 1's produce rate is NaN")
}
