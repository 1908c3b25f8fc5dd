package broker

import (
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestChangeQueueIsAFifoAcrossBlocks pushes and pops in uneven steps across block boundaries
// and checks that every change comes out once, in order, and that emptied blocks go back to
// the pool and are lent again.
func TestChangeQueueIsAFifoAcrossBlocks(t *testing.T) {
	var bp blockPool
	var q changeQueue
	next, want := int64(0), int64(0)
	pop := func(n int) {
		for n > 0 {
			chs := q.front()
			require.NotEmpty(t, chs, "the queue has %d changes", q.size())
			k := min(n, len(chs), 7) // never a whole block at once
			for _, ch := range chs[:k] {
				require.Equal(t, want, ch.off)
				want++
			}
			q.popN(&bp, k)
			n -= k
		}
	}
	for round := range 20 {
		for range 300 + 97*round {
			q.push(&bp, change{off: next})
			next++
		}
		require.Equal(t, int(next-want), q.size())
		pop(int(next-want) / 2)
	}
	pop(int(next - want))
	assert.Equal(t, 0, q.size())
	assert.Empty(t, q.front())
	pooled := len(bp.free)
	assert.Positive(t, pooled, "the emptied blocks went back to the pool")
	q.push(&bp, change{off: next})
	assert.Len(t, bp.free, pooled-1, "and the next push borrows one")
	q.drop(&bp)
	assert.Len(t, bp.free, pooled)
	assert.Equal(t, 0, q.size())
}

// TestChangeQueueThatNeverDrainsStaysCompact keeps a queue a few blocks long for many blocks'
// worth of changes: the array of blocks must not grow with the changes that went through it.
func TestChangeQueueThatNeverDrainsStaysCompact(t *testing.T) {
	var bp blockPool
	var q changeQueue
	for i := range 500 * queueBlock {
		q.push(&bp, change{off: int64(i)})
		if i >= 3*queueBlock {
			q.popN(&bp, 1)
		}
	}
	assert.Equal(t, 3*queueBlock, q.size())
	assert.LessOrEqual(t, cap(q.blocks), 256, "500 blocks went through; the array holds a few")
	assert.Equal(t, int64(497*queueBlock), q.front()[0].off)
}

// TestBlockPoolKeepsAtMostMaxFreeBlocks: a bootstrap's queues give back far more blocks than
// the pool keeps; the rest go to the collector.
func TestBlockPoolKeepsAtMostMaxFreeBlocks(t *testing.T) {
	var bp blockPool
	var q changeQueue
	for i := range (maxFreeBlocks + 10) * queueBlock {
		q.push(&bp, change{off: int64(i)})
	}
	q.drop(&bp)
	assert.Len(t, bp.free, maxFreeBlocks)
}

// TestChangeIsFortyBytes: the queued change's size, which its doc and the queue's block sizes
// state; a field added there should be weighed against the million-partition roll's queues.
func TestChangeIsFortyBytes(t *testing.T) {
	assert.Equal(t, uintptr(40), unsafe.Sizeof(change{}))
}
