package sim

import "math/rand/v2"

// Rand is a seeded PCG random stream with the few draws the simulation needs. Streams are
// derived by name rather than split off a shared stream, so a consumer's draws depend only on the
// run seed and its own name: adding, removing or reordering other consumers never perturbs it.
type Rand struct {
	seed uint64
	pcg  rand.PCG
	r    *rand.Rand
}

// NewRand returns the stream for seed.
func NewRand(seed uint64) *Rand {
	r := &Rand{seed: seed}
	r.pcg.Seed(seed, mix(seed^0x9e3779b97f4a7c15))
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
