package workload

import "math"

// The latency histogram is log-linear, as HdrHistogram's: each power of two of milliseconds
// from 2^histMinExp (≈ 7.6 µs) to 2^histMaxExp (≈ 262 s) is split into 2^histSubBits equal
// buckets (≤ 1.6 % wide), and a value's bucket comes from its float64 exponent and top
// mantissa bits, with no logarithm. Window and sliding percentiles then cost a scan of a fixed
// array instead of a sort of samples.
const (
	histSubBits = 6
	histMinExp  = -17
	histMaxExp  = 18
	histBuckets = (histMaxExp - histMinExp) << histSubBits
)

// hist counts latencies (ms) in log-linear buckets. Latencies fill a narrow band of the
// buckets (a few powers of two), so a hist keeps the band it has used, lo to hi, and its
// percentiles, merges and resets walk only that band: a window closes every 10 simulated
// seconds, and walking all of the buckets several times each was a tenth of a quiet run.
type hist struct {
	c      []uint32
	n      int
	max    float64
	lo, hi int // the buckets used are within [lo, hi] (when n > 0)
}

func newHist() *hist { return &hist{c: make([]uint32, histBuckets)} }

// bucketOf is the bucket of v: bucket (e − histMinExp)·2^s + top s mantissa bits holds
// [2^(e−1)·(1 + k/2^s), 2^(e−1)·(1 + (k+1)/2^s)).
func bucketOf(v float64) int {
	bits := math.Float64bits(v)
	e := int(bits>>52&0x7ff) - 1022 // v = 1.f × 2^(e−1)
	if v <= 0 || e <= histMinExp {
		return 0
	}
	if e > histMaxExp {
		return histBuckets - 1
	}
	return (e-histMinExp-1)<<histSubBits + int(bits>>(52-histSubBits)&(1<<histSubBits-1))
}

// bucketMid is the middle of bucket i.
func bucketMid(i int) float64 {
	e := i>>histSubBits + histMinExp + 1
	k := i & (1<<histSubBits - 1)
	return math.Ldexp(1+(float64(k)+0.5)/(1<<histSubBits), e-1)
}

func (h *hist) add(v float64) {
	if h.c == nil {
		h.c = make([]uint32, histBuckets)
	}
	b := bucketOf(v)
	h.c[b]++
	h.widen(b, b)
	h.n++
	h.max = max(h.max, v)
}

// widen makes the used band take in [lo, hi]; call it before n counts what was added.
func (h *hist) widen(lo, hi int) {
	if h.n == 0 {
		h.lo, h.hi = lo, hi
		return
	}
	h.lo, h.hi = min(h.lo, lo), max(h.hi, hi)
}

// quantile returns the nearest-rank q-quantile as the middle of its bucket (within ±0.8 %,
// and never above the largest value seen), or 0 for an empty histogram.
func (h *hist) quantile(q float64) float64 {
	if h.n == 0 {
		return 0
	}
	rank := uint32(max(1, math.Ceil(q*float64(h.n))))
	var seen uint32
	for i := h.lo; i <= h.hi; i++ {
		seen += h.c[i]
		if seen >= rank {
			return min(bucketMid(i), h.max)
		}
	}
	return h.max
}

func (h *hist) merge(o *hist) {
	if h.c == nil {
		h.c = make([]uint32, histBuckets)
	}
	if o.n == 0 {
		return
	}
	for i := o.lo; i <= o.hi; i++ {
		h.c[i] += o.c[i]
	}
	h.widen(o.lo, o.hi)
	h.n += o.n
	h.max = max(h.max, o.max)
}

func (h *hist) reset() {
	if h.n > 0 {
		clear(h.c[h.lo : h.hi+1])
	}
	h.n, h.max = 0, 0
}
