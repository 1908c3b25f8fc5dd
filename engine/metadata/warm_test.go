package metadata

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Warm only reads: the image is the same afterwards, and indexes outside it are skipped.
func TestWarmChangesNothing(t *testing.T) {
	im := NewImage()
	var off int64
	replay := func(r Record) {
		require.NoError(t, im.Replay(Entry{Offset: off, Record: r}))
		off++
	}
	replay(&TopicRecord{Name: "t", TopicID: "id-t"})
	for i := int32(0); i < 4; i++ {
		leader := int32(1) // partitions 0 and 2 are led by their preferred replica, 1 and 3 not
		if i%2 == 1 {
			leader = 2
		}
		replay(&PartitionRecord{Topic: "t", TopicID: "id-t", PartitionID: i, Replicas: []int32{1, 2}, Isr: []int32{1, 2}, Leader: leader})
	}
	before := im.Clone()
	im.Warm([]int32{0, 1, 2, 3, -1, 4, 1 << 30})
	assert.Equal(t, before, im)
	assert.Len(t, im.ImbalancedPreferring(1), 2, "the warmed partitions include imbalanced ones")
}
