package sim

import (
	"math/bits"
	"math/rand/v2"
)

// Rand is a seeded PCG random stream with the few draws the simulation needs. Streams are
// derived by name rather than split off a shared stream, so a consumer's draws depend only on the
// run seed and its own name: adding, removing or reordering other consumers never perturbs it.
type Rand struct {
	seed uint64
	pcg  pcg
	r    *rand.Rand
}

// NewRand returns the stream for seed.
func NewRand(seed uint64) *Rand {
	r := &Rand{seed: seed}
	r.pcg.seed(seed, mix(seed^0x9e3779b97f4a7c15))
	r.r = rand.New(&r.pcg)
	return r
}

// Seed is the seed this stream was built from.
func (r *Rand) Seed() uint64 { return r.seed }

// Child returns the stream named name under this one. The same parent seed and name always give
// the same stream, whatever has been drawn from the parent.
func (r *Rand) Child(name string) *Rand {
	return NewRand(mix(r.seed ^ fnv64(name)))
}

// ChildID returns the stream for one member of a family, e.g. ChildID("node", 3000), so that each
// node's timers are independent of how many other nodes exist.
func (r *Rand) ChildID(name string, id int64) *Rand {
	return NewRand(mix(mix(r.seed^fnv64(name)) + uint64(id)))
}

// Between returns a uniform integer in [lo, hi). An empty range (hi <= lo) returns lo, as Kafka's
// randomElectionTimeoutMs returns the bare timeout when there is no room for jitter.
func (r *Rand) Between(lo, hi int64) int64 {
	if hi <= lo {
		return lo
	}
	return lo + r.r.Int64N(hi-lo)
}

// IntN returns a uniform integer in [0, n); n <= 0 returns 0 so a pick from nothing is harmless.
func (r *Rand) IntN(n int) int {
	if n <= 0 {
		return 0
	}
	return r.r.IntN(n)
}

// Float64 returns a uniform float in [0, 1).
func (r *Rand) Float64() float64 { return r.r.Float64() }

// Uint64 returns 64 uniform random bits. It draws from the PCG directly: the same bits as
// r.r.Uint64, without rand.Rand's interface call, which shows in the workload's sampling
// (several draws a sampled request) under WebAssembly.
func (r *Rand) Uint64() uint64 { return r.pcg.Uint64() }

// Fill sets dst to the stream's next len(dst) draws of Uint64, in order. The workload's
// sampler takes its uniforms this way, a batch at a time: the generator's state stays in
// locals for the whole batch, where a call per draw (two under WebAssembly, whose 128-bit
// multiply is no intrinsic) cost about a tenth of a quiet cluster's time in the page.
func (r *Rand) Fill(dst []uint64) {
	hi, lo := r.pcg.hi, r.pcg.lo
	for i := range dst {
		hi, lo = pcgStep(hi, lo)
		dst[i] = pcgOutput(hi, lo)
	}
	r.pcg.hi, r.pcg.lo = hi, lo
}

// pcg is math/rand/v2's PCG, the 128-bit PCG with the DXSM output function, with its state
// in reach of Fill. TestPCGIsTheLibrarys checks that its stream is rand.PCG's, seed for seed:
// every seeded run depends on it.
type pcg struct{ hi, lo uint64 }

// seed sets the state as rand.PCG.Seed(seed1, seed2) does.
func (p *pcg) seed(seed1, seed2 uint64) { p.hi, p.lo = seed1, seed2 }

// Uint64 is rand.PCG.Uint64: rand.Rand draws through it as its Source.
func (p *pcg) Uint64() uint64 {
	p.hi, p.lo = pcgStep(p.hi, p.lo)
	return pcgOutput(p.hi, p.lo)
}

// pcgStep advances the 128-bit state hi:lo: state × mul + inc, modulo 2^128, with PCG's
// default 128-bit multiplier and increment. It is small enough to inline into Fill's loop.
func pcgStep(hi, lo uint64) (uint64, uint64) {
	const (
		mulHi = 2549297995355413924
		mulLo = 4865540595714422341
		incHi = 6364136223846793005
		incLo = 1442695040888963407
	)
	h, l := bits.Mul64(lo, mulLo)
	l, c := bits.Add64(l, incLo, 0)
	return h + hi*mulLo + lo*mulHi + incHi + c, l
}

// pcgOutput is the DXSM ("double xorshift multiply") output of the state hi:lo.
func pcgOutput(hi, lo uint64) uint64 {
	const cheapMul = 0xda942042e4dd58b5
	hi ^= hi >> 32
	hi *= cheapMul
	hi ^= hi >> 48
	return hi * (lo | 1)
}

// mix is the SplitMix64 finaliser: it spreads nearby seeds (1, 2, 3...) into unrelated streams.
func mix(z uint64) uint64 {
	z += 0x9e3779b97f4a7c15
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// fnv64 is FNV-1a, used to turn a stream name into seed bits.
func fnv64(s string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= 1099511628211
	}
	return h
}
