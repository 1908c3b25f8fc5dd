package broker

import (
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kraftlab/kraftlab/engine/config"
	"github.com/kraftlab/kraftlab/engine/controller"
	"github.com/kraftlab/kraftlab/engine/metadata"
)

// TestMinIsrConfigChangeStopsAcksAllWrites: raising min.insync.replicas on the topic to 3 makes
// a leader with two in-sync replicas refuse acks=all writes.
func TestMinIsrConfigChangeStopsAcksAllWrites(t *testing.T) {
	h := newHarness(t, setup{brokers: 3, partitions: 1})
	h.run(10_000)
	require.NoError(t, h.f.SetLink(1, 3, false))
	h.run(60_000)
	require.Equal(t, []int32{1, 2}, h.ctlIsr(0))
	assert.True(t, h.part(0).Producing, "2 in sync ≥ min.insync.replicas 2")
	h.ctl(func(c *controller.Controller, now int64) {
		require.NoError(t, c.SetConfig("t", config.MinInsyncReplicas, int64(3), now))
	})
	assert.False(t, h.part(0).Producing)
	var path Path
	h.f.PartitionPath(0, &path)
	assert.Equal(t, PathNotEnoughReplicas, path.Status)
	require.NoError(t, h.f.SetLink(1, 3, true))
	h.runFor(5000)
	assert.Equal(t, []int32{1, 2, 3}, h.ctlIsr(0))
	assert.True(t, h.part(0).Producing)
}

// TestDeletedTopicStopsEverything: deleting the topic stops its replicas and its load.
func TestDeletedTopicStopsEverything(t *testing.T) {
	h := newHarness(t, setup{brokers: 3, partitions: 3})
	h.run(10_000)
	h.ctl(func(c *controller.Controller, now int64) { require.NoError(t, c.DeleteTopic("t", now)) })
	var path Path
	h.f.PartitionPath(1, &path)
	assert.Equal(t, PathDeleted, path.Status)
	loads := make([]Load, 3)
	h.f.Loads(loads)
	for _, l := range loads {
		assert.Zero(t, l.LeaderBytesPerSec+l.FollowerBytesPerSec)
	}
	h.runFor(60_000)
	assert.Zero(t, h.f.Stats().IsrShrinks)
}

// TestRatesChangedKeepsLogsContinuous: doubling every rate doubles the loads from now on and
// leaves log ends where they were.
func TestRatesChangedKeepsLogsContinuous(t *testing.T) {
	rates := oneRate(100_000)
	h := newHarness(t, setup{brokers: 3, partitions: 3, rates: rates})
	h.run(10_000)
	before := h.part(0).LogEnd
	rates.bytes[0] = 200_000
	require.NoError(t, h.f.RatesChanged())
	assert.Equal(t, before, h.part(0).LogEnd)
	h.runFor(1000)
	assert.InDelta(t, before+200_000, h.part(0).LogEnd, 1e-6)
	loads := make([]Load, 3)
	h.f.Loads(loads)
	assert.InDelta(t, 200_000, loads[0].LeaderBytesPerSec, 1e-9)
	assert.InDelta(t, 400_000, loads[0].FollowerBytesPerSec, 1e-9)
	rates.bytes[0] = -1
	assert.ErrorContains(t, h.f.RatesChanged(), "ClassBytesPerSec(0) = -1")
}

// TestApplyMetadataChecksOrderAndState: entries must continue the published log, and a
// stopped broker cannot apply metadata.
func TestApplyMetadataChecksOrderAndState(t *testing.T) {
	h := newHarness(t, setup{brokers: 3, partitions: 3})
	next := h.f.Published() + 1
	ok := []metadata.Entry{{Offset: next, Record: &metadata.NoOpRecord{}}}
	gap := []metadata.Entry{{Offset: next + 2, Record: &metadata.NoOpRecord{}}}
	assert.ErrorContains(t, h.f.Publish(gap), "does not follow the published offset")
	require.NoError(t, h.f.ApplyMetadata(1, ok))
	assert.Equal(t, next, h.f.AppliedOffset(1))
	assert.Equal(t, next-1, h.f.AppliedOffset(2), "each broker has its own applied offset")
	require.NoError(t, h.f.ApplyMetadata(2, ok), "published entries can be applied by others")
	require.NoError(t, h.f.Kill(3))
	assert.ErrorIs(t, h.f.ApplyMetadata(3, ok), ErrNotRunning)
	assert.ErrorContains(t, h.f.ApplyMetadata(9, ok), "unknown broker id 9")
}

// TestHotStateSizes keeps the hot per-partition and per-replica structs at the sizes their
// comments promise: a partState in one cache line, a replicaState in half of one.
func TestHotStateSizes(t *testing.T) {
	require.Equal(t, uintptr(64), unsafe.Sizeof(partState{}))
	require.Equal(t, uintptr(32), unsafe.Sizeof(replicaState{}))
}

// The fleet knows when every partition has the same replication factor (its replicas then
// start at slot p*rf, which PartitionPath and the warming passes use) and forgets it for good
// when one does not; PartitionPath answers for every partition either way.
func TestUniformReplicationFactor(t *testing.T) {
	even := newHarness(t, setup{brokers: 3, partitions: 5})
	assert.Equal(t, uint8(3), even.f.uniformRF)
	mixed := newHarness(t, setup{brokers: 3, partitions: 5, assign: func(p int) []int32 {
		if p == 2 {
			return []int32{3, 1}
		}
		return []int32{int32(p%3 + 1), int32((p+1)%3 + 1), int32((p+2)%3 + 1)}
	}})
	assert.Equal(t, uint8(0), mixed.f.uniformRF)
	for _, h := range []*harness{even, mixed} {
		h.runFor(10_000)
		for p := int32(0); p < 5; p++ {
			var path Path
			h.f.PartitionPath(p, &path)
			assert.Equal(t, PathOK, path.Status, "partition %d", p)
			assert.Equal(t, h.part(p).Leader, h.ids[path.Leader], "partition %d: the path names the leader's slot", p)
		}
	}
}
