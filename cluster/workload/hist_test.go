package workload

import (
	"math"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/kraftlab/kraftlab/cluster/sim"
)

// expo draws a unit exponential by inversion.
func expo(r *sim.Rand) float64 { return -fastLn(1 - r.Float64()) }

func TestHistQuantilesMatchSortedSamples(t *testing.T) {
	r := sim.NewRand(4)
	h := newHist()
	var xs []float64
	for range 20_000 {
		v := 3 + 10*expo(r)
		if r.IntN(100) == 0 {
			v *= 300
		}
		xs = append(xs, v)
		h.add(v)
	}
	slices.Sort(xs)
	for _, q := range []float64{0.5, 0.9, 0.99, 0.999} {
		want := xs[int(math.Ceil(q*float64(len(xs))))-1]
		assert.InEpsilon(t, want, h.quantile(q), 0.016, "q = %g", q)
	}
	assert.Equal(t, xs[len(xs)-1], h.max)
	assert.Equal(t, 0, bucketOf(0))
	assert.Equal(t, histBuckets-1, bucketOf(1e9))
	for _, v := range []float64{0.001, 0.5, 1, 1.7, 13, 999, 120_000} {
		i := bucketOf(v)
		assert.InEpsilon(t, v, bucketMid(i), 0.016, "%g lands in bucket %d", v, i)
	}
}

// TestFastLnMatchesMathLog checks the table logarithm over the values 1 − Float64() takes,
// [2^-53, 1]: the absolute error bounds the error of every exponential draw.
func TestFastLnMatchesMathLog(t *testing.T) {
	r := sim.NewRand(9)
	for range 100_000 {
		v := 1 - r.Float64()
		assert.InDelta(t, math.Log(v), fastLn(v), 2e-7, "v = %g", v)
	}
	for _, v := range []float64{1, 0.999999, 0.75, 0.5, 1e-9, math.Ldexp(1, -53)} {
		assert.InDelta(t, math.Log(v), fastLn(v), 2e-7, "v = %g", v)
	}
}
