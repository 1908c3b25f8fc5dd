package cluster

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestBrokerCountsKeepEveryID(t *testing.T) {
	var b brokerCounts
	for _, id := range []int32{3, 0, maxDenseID - 1, maxDenseID, 1 << 30, -1} {
		b.add(id, 2)
		b.add(id, -1)
	}
	b.add(3, 5)
	for id, want := range map[int32]int{3: 6, 0: 1, maxDenseID - 1: 1, maxDenseID: 1, 1 << 30: 1, -1: 1, 7: 0, 1 << 20: 0} {
		assert.Equal(t, want, b.get(id), "broker %d", id)
	}
	assert.Len(t, b.dense, maxDenseID, "ids past the bound stay out of the slice")
}
