package balance

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestHeapPopsInSortedOrder: the lazy order immediate uses yields exactly a full sort's order,
// for sizes around the heap's edge cases.
func TestHeapPopsInSortedOrder(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int{0, 1, 2, 3, 7, 64, 1000, 4097} {
		keys := make([]uint64, n)
		for i := range keys {
			keys[i] = rng.Uint64() % 5000 // duplicates too
		}
		want := slices.Clone(keys)
		slices.Sort(want)
		h := slices.Clone(keys)
		heapify(h)
		got := make([]uint64, 0, n)
		for len(h) > 0 {
			var k uint64
			k, h = popMin(h)
			got = append(got, k)
		}
		require.Equal(t, want, got, "n=%d", n)
	}
}
