package sim

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
)

func draw(r *Rand, n int) []int64 {
	out := make([]int64, n)
	for i := range out {
		out[i] = r.Between(0, 1_000_000)
	}
	return out
}

func TestSameSeedSameStreamDifferentSeedDifferentStream(t *testing.T) {
	assert.Equal(t, draw(NewRand(42), 20), draw(NewRand(42), 20))
	assert.NotEqual(t, draw(NewRand(42), 20), draw(NewRand(43), 20))
}

func TestChildStreamsDoNotDependOnSiblings(t *testing.T) {
	// Drawing from the parent and from another child must not move child "b".
	quiet := NewRand(9)
	want := draw(quiet.Child("b"), 10)

	busy := NewRand(9)
	draw(busy, 100)
	draw(busy.Child("a"), 100)
	assert.Equal(t, want, draw(busy.Child("b"), 10))

	assert.NotEqual(t, draw(NewRand(9).Child("a"), 10), draw(NewRand(9).Child("b"), 10))
	assert.NotEqual(t, draw(NewRand(9).ChildID("node", 1), 10), draw(NewRand(9).ChildID("node", 2), 10))
	assert.Equal(t, draw(NewRand(9).ChildID("node", 1), 10), draw(NewRand(9).ChildID("node", 1), 10))
}

func TestBetweenStaysInHalfOpenRange(t *testing.T) {
	r := NewRand(3)
	lo, hi := int64(1000), int64(2000)
	sawLo := false
	for range 20000 {
		v := r.Between(lo, hi)
		assert.GreaterOrEqual(t, v, lo)
		assert.Less(t, v, hi)
		sawLo = sawLo || v == lo
	}
	assert.True(t, sawLo, "the lower bound is reachable")
	assert.Equal(t, int64(5), r.Between(5, 5), "an empty range yields its start")
	assert.Equal(t, int64(5), r.Between(5, 1))
	assert.Equal(t, 0, r.IntN(0))
	f := r.Float64()
	assert.True(t, f >= 0 && f < 1)
}

// TestPCGIsTheLibrarys checks that the stream's generator is math/rand/v2's PCG draw for
// draw, through every way of drawing (Uint64, Fill, and rand.Rand's draws on top of it), for
// a spread of seeds: every seeded run, golden and fault seed depends on it.
func TestPCGIsTheLibrarys(t *testing.T) {
	for _, seed := range []uint64{0, 1, 2, 42, 1 << 63, ^uint64(0), 0x9e3779b97f4a7c15} {
		r := NewRand(seed)
		var want rand.PCG
		want.Seed(seed, mix(seed^0x9e3779b97f4a7c15))
		wantRand := rand.New(&want)
		var batch [37]uint64
		for round := 0; round < 50; round++ {
			if got, w := r.Uint64(), want.Uint64(); got != w {
				t.Fatalf("seed %d, round %d: Uint64 %#x, math/rand/v2's PCG %#x", seed, round, got, w)
			}
			r.Fill(batch[:round%len(batch)])
			for i, got := range batch[:round%len(batch)] {
				if w := want.Uint64(); got != w {
					t.Fatalf("seed %d, round %d: Fill[%d] %#x, math/rand/v2's PCG %#x", seed, round, i, got, w)
				}
			}
			if got, w := r.IntN(1000), wantRand.IntN(1000); got != w {
				t.Fatalf("seed %d, round %d: IntN %d, math/rand/v2 %d", seed, round, got, w)
			}
			if got, w := r.Float64(), wantRand.Float64(); got != w {
				t.Fatalf("seed %d, round %d: Float64 %v, math/rand/v2 %v", seed, round, got, w)
			}
		}
	}
}
