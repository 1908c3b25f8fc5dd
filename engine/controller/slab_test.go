package controller

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kraftlab/kraftlab/engine/metadata"
)

// TestSlabRecordsAndListsAreEachTheirOwn fills several chunks: every record and list keeps what
// it was given, a list's capacity is its length (so appending to one copies instead of writing
// into the next), and an empty list stays non-nil.
func TestSlabRecordsAndListsAreEachTheirOwn(t *testing.T) {
	var s slab
	var recs []*metadata.PartitionChangeRecord
	var lists [][]int32
	for i := range int32(3*slabRecords + 7) {
		isr := s.list([]int32{i, i + 1, i + 2})
		r := metadata.NewPartitionChange("t", "id", i)
		r.Isr = isr
		recs = append(recs, s.record(&r))
		lists = append(lists, isr)
	}
	for i, r := range recs {
		n := int32(i)
		require.Equal(t, n, r.PartitionID)
		require.Equal(t, []int32{n, n + 1, n + 2}, r.Isr)
		require.Equal(t, len(lists[i]), cap(lists[i]))
	}
	grown := append(lists[0], 99)
	assert.Equal(t, []int32{1, 2, 3}, lists[1], "appending to one list leaves the next alone")
	assert.Equal(t, []int32{0, 1, 2, 99}, grown)

	empty := s.list([]int32{})
	assert.NotNil(t, empty, "an empty list means 'now empty', not 'unchanged'")
	assert.Empty(t, empty)
	var none *slab
	assert.NotNil(t, none.list(nil), "without a slab, a heap copy, still non-nil")
	assert.Equal(t, []int32{4, 5}, none.list([]int32{4, 5}))
	long := make([]int32, slabInts+1)
	long[slabInts] = 7
	assert.Equal(t, long, s.list(long), "a list longer than a chunk gets its own array")
}
