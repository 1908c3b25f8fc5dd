package quorum

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// epochsLog builds a log whose entries have the given epochs, one byte each, ids = offsets.
func epochsLog(epochs ...int32) *replicaLog {
	l := &replicaLog{}
	for i, e := range epochs {
		l.append(int64(i), 1, e, 1)
	}
	return l
}

func TestEndOffsetForEpochIsWhereTheNextEpochStarts(t *testing.T) {
	l := epochsLog(1, 1, 3, 3, 3, 4)
	cases := []struct {
		ask       int32
		wantEpoch int32
		wantEnd   int64
		ok        bool
	}{
		{0, 0, 0, false},
		{1, 1, 2, true},
		{2, 1, 2, true}, // no epoch 2 here: the largest below it is 1, which ends at 2
		{3, 3, 5, true},
		{4, 4, 6, true},
		{9, 4, 6, true},
	}
	for _, c := range cases {
		e, end, ok := l.endOffsetForEpoch(c.ask)
		assert.Equal(t, c.ok, ok, "epoch %d", c.ask)
		if c.ok {
			assert.Equal(t, c.wantEpoch, e, "epoch %d", c.ask)
			assert.Equal(t, c.wantEnd, end, "epoch %d", c.ask)
		}
	}
	assert.Equal(t, int32(4), l.lastEpoch())
	assert.Equal(t, int32(3), l.epochAt(4))
}

func TestTruncateAndPrefixDeleteKeepTheEpochCacheHonest(t *testing.T) {
	l := epochsLog(1, 1, 3, 3, 3, 4)
	l.truncate(3, 3)
	assert.Equal(t, int64(3), l.end())
	assert.Equal(t, int64(3), l.bytes)
	assert.Equal(t, []epochStart{{1, 0}, {3, 2}}, l.epochs)

	l.deletePrefix(2, 2)
	assert.Equal(t, int64(2), l.start)
	assert.Equal(t, int64(3), l.end())
	assert.Equal(t, int64(2), l.id(2))
	assert.Equal(t, int32(1), l.epochAt(1), "the epoch of the entry just below the log start is kept")

	l.deletePrefix(3, 1)
	assert.Equal(t, int32(3), l.lastEpoch(), "an empty log still knows its last epoch")
	assert.Equal(t, []epochStart{{3, 2}}, l.epochs)
}

func TestResetToSnapshotStartsTheLogAtItsEnd(t *testing.T) {
	l := epochsLog(1, 2, 2)
	l.resetTo(SnapshotID{EndOffset: 10, Epoch: 5})
	assert.Equal(t, int64(10), l.start)
	assert.Equal(t, int64(10), l.end())
	assert.Equal(t, int32(5), l.lastEpoch())
	assert.Equal(t, int32(5), l.epochAt(9))
	l.append(99, 1, 6, 1)
	e, end, ok := l.endOffsetForEpoch(5)
	assert.True(t, ok)
	assert.Equal(t, int32(5), e)
	assert.Equal(t, int64(10), end)
}

func TestSpansFollowRunsOfConsecutiveIds(t *testing.T) {
	l := &replicaLog{}
	l.append(10, 3, 1, 30) // offsets 0-2 hold ids 10-12
	l.append(13, 2, 1, 20) // continues the span
	l.append(40, 2, 2, 20) // a gap in ids: a new span at offset 5
	assert.Len(t, l.spans, 2)
	assert.Equal(t, int64(7), l.end())
	assert.Equal(t, int64(14), l.id(4))
	assert.Equal(t, int64(41), l.id(6))
	assert.Equal(t, idRun{id: 11, n: 4}, l.run(1, 7), "a run stops at the span's end")
	assert.Equal(t, idRun{id: 40, n: 1}, l.run(5, 6), "and at the limit")

	l.truncate(5, 20)
	assert.Len(t, l.spans, 1)
	l.append(60, 1, 3, 10)
	assert.Equal(t, int64(60), l.id(5))
	l.deletePrefix(5, 50)
	assert.Len(t, l.spans, 1, "spans wholly below the new start go")
	assert.Equal(t, int64(60), l.id(5))
	assert.Equal(t, int64(10), l.bytes)
}

func TestArenaSizesRunsFromCumulativeBytes(t *testing.T) {
	var a arena[int]
	for i := range 10 {
		a.add(Entry[int]{Bytes: int32(i + 1)}) // ids 0-9 hold 1..10 bytes
	}
	assert.Equal(t, int64(2+3+4), a.bytes(1, 3))
	assert.Equal(t, int64(3), a.fit(1, 9, 9), "2+3+4 fit in 9 bytes")
	assert.Equal(t, int64(2), a.fit(1, 9, 8))
	assert.Equal(t, int64(0), a.fit(1, 9, 1))
	a.dropBelow(4)
	assert.Equal(t, int64(5+6), a.bytes(4, 2), "sizes survive compaction")
	assert.Equal(t, int64(10), a.bytes(9, 1))
}

func TestArenaAcrossChunks(t *testing.T) {
	var a arena[*int]
	n := int64(3*arenaChunk + 10)
	for i := range n {
		v := int(i)
		assert.Equal(t, i, a.add(Entry[*int]{Offset: i, Bytes: 1, Payload: &v}))
	}
	assert.Equal(t, n, a.len())
	assert.Equal(t, int64(arenaChunk+2), a.bytes(arenaChunk-1, arenaChunk+2), "a run over a chunk boundary")
	assert.Equal(t, int64(5), a.fit(arenaChunk-2, 100, 5))
	assert.Equal(t, int64(arenaChunk), a.get(arenaChunk).Offset)
	got := a.appendRange(nil, arenaChunk-1, 3)
	assert.Equal(t, []int64{arenaChunk - 1, arenaChunk, arenaChunk + 1}, []int64{got[0].Offset, got[1].Offset, got[2].Offset})

	a.dropBelow(2*arenaChunk + 5)
	assert.Len(t, a.chunks, 2, "the chunks wholly below the drop go")
	assert.Len(t, a.spare, 2, "and are kept for what comes")
	alive := 0
	for _, c := range a.spare {
		for i := range c {
			if c[i].e.Payload != nil {
				alive++
			}
		}
	}
	assert.Zero(t, alive, "a dropped entry keeps no payload alive")
	assert.Nil(t, a.chunks[0][4].e.Payload)
	assert.Equal(t, 2*arenaChunk+5, *a.get(2*arenaChunk + 5).Payload)
	assert.Equal(t, int64(3), a.bytes(2*arenaChunk+5, 3), "sizes survive compaction")

	for i := n; i < n+arenaChunk; i++ {
		a.add(Entry[*int]{Offset: i, Bytes: 2})
	}
	assert.Len(t, a.spare, 1, "a new chunk comes from the spares")
	assert.Equal(t, int64(4), a.bytes(n+arenaChunk-2, 2))
	assert.Equal(t, n+arenaChunk, a.next())
}
