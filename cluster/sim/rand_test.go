package sim

import (
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
