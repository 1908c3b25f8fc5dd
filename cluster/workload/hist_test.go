package workload

import (
	"math"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

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

// TestFastLnIsTheFrexpFormula pins fastLn, which reads v's exponent off its bits, to the same
// formula through math.Frexp, bit for bit: the sampled latencies (and so every recorded
// result) must not move with how the exponent is read.
func TestFastLnIsTheFrexpFormula(t *testing.T) {
	viaFrexp := func(v float64) float64 {
		m, e := math.Frexp(v)
		x := (m - 0.5) * 2 * lnTableSize
		i := min(int(x), lnTableSize-1)
		frac := x - float64(i)
		return float64(e)*math.Ln2 + lnTable[i] + frac*(lnTable[i+1]-lnTable[i])
	}
	r := sim.NewRand(11)
	for range 100_000 {
		v := 1 - r.Float64()
		require.Equal(t, viaFrexp(v), fastLn(v), "v = %g", v)
	}
	for _, v := range []float64{1, 0.5, 0.75, math.Nextafter(1, 0), math.Ldexp(1, -32), math.Ldexp(1, -53)} {
		require.Equal(t, viaFrexp(v), fastLn(v), "v = %g", v)
	}
}

// TestClassOfIsTheLinearScan checks the bisection against the scan it replaced, on weights
// with empty classes (repeated cumulative values) and on draws that land exactly on a bound.
func TestClassOfIsTheLinearScan(t *testing.T) {
	scan := func(cum []float64, x float64) int {
		c := 0
		for c < len(cum)-1 && cum[c] <= x {
			c++
		}
		return c
	}
	r := sim.NewRand(5)
	for range 2000 {
		cum := make([]float64, 1+r.IntN(20))
		total := 0.0
		for i := range cum {
			if r.IntN(3) > 0 { // a third of the classes are empty
				total += float64(1 + r.IntN(5))
			}
			cum[i] = total
		}
		for range 20 {
			x := r.Float64() * total
			if r.IntN(4) == 0 {
				x = cum[r.IntN(len(cum))]
			}
			require.Equal(t, scan(cum, x), classOf(cum, x), "cum %v, x %v", cum, x)
		}
	}
}
