package hugepage

import (
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// bigLen is a length of int64s past MinBytes.
const bigLen = 2 * MinBytes / 8

func TestGrowKeepsTheElementsAndMakesRoom(t *testing.T) {
	for _, have := range []int{0, 10, bigLen} {
		s := make([]int64, have, have+3)
		for i := range s {
			s[i] = int64(i) * 7
		}
		same := Grow(s, 3)
		assert.Same(t, unsafe.SliceData(s), unsafe.SliceData(same), "room for 3 more: no new array")
		for _, n := range []int{4, bigLen} {
			g := Grow(s, n)
			require.Len(t, g, have)
			assert.GreaterOrEqual(t, cap(g), have+n)
			assert.Equal(t, s, g)
			assert.NotSame(t, unsafe.SliceData(s), unsafe.SliceData(g), "no room for %d more: a new array", n)
		}
	}
	assert.Panics(t, func() { Grow([]int64{}, -1) })
}

func TestCloneCopiesIntoItsOwnArray(t *testing.T) {
	assert.Nil(t, Clone([]int64(nil)))
	assert.NotNil(t, Clone([]int64{}))
	for _, n := range []int{5, bigLen} {
		s := make([]int64, n)
		for i := range s {
			s[i] = int64(i) + 1
		}
		c := Clone(s)
		require.Equal(t, s, c)
		c[0] = -1
		assert.Equal(t, int64(1), s[0], "the clone has its own array")
	}
}

func TestWholePagesStayInsideTheArray(t *testing.T) {
	const p = pageBytes
	for _, tc := range []struct {
		start, n, skip, length uintptr
	}{
		{start: 0, n: p, skip: 0, length: p},
		{start: 4096, n: p, skip: 0, length: 0},                // straddles one boundary only
		{start: 4096, n: 3 * p, skip: p - 4096, length: 2 * p}, // the partial pages at both ends are left out
		{start: 2 * p, n: p - 1, skip: 0, length: 0},
		{start: p + 8, n: 2*p - 8, skip: p - 8, length: p},
	} {
		skip, length := wholePages(tc.start, tc.n)
		assert.Equal(t, tc.skip, skip, "start %#x, %d bytes", tc.start, tc.n)
		assert.Equal(t, tc.length, length, "start %#x, %d bytes", tc.start, tc.n)
		if length > 0 {
			assert.LessOrEqual(t, tc.start+skip+length, tc.start+tc.n)
			assert.Zero(t, (tc.start+skip)%p)
		}
	}
}

// TestGrowByOneStaysLinear grows a large slice one element at a time: each new array is at least
// a quarter larger than the last, so there are few of them.
func TestGrowByOneStaysLinear(t *testing.T) {
	s := make([]int64, 0, bigLen)
	arrays := 0
	for len(s) < 4*bigLen && arrays <= 7 {
		if len(s) == cap(s) {
			arrays++
		}
		s = append(Grow(s, 1), 1)
	}
	assert.Equal(t, 4*bigLen, len(s), "4× the length in steps of at least 1.25× takes at most 7 new arrays")
}
