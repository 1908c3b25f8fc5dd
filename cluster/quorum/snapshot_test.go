package quorum

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// snapshotHarness snapshots often and keeps no log past the newest snapshot, so the log start
// offset moves and a lagging node must load a snapshot. TakeSnapshot records what it was asked.
func snapshotHarness(t *testing.T, seed uint64, snapBytes int64) (*harness, *[]SnapshotID) {
	var taken []SnapshotID
	h := newHarness(t, seed, 3, func(c *Config) {
		c.MaxBytesBetweenSnapshots = 64 << 10
		c.RetentionBytes = 0
	})
	h.q.hooks.TakeSnapshot = func(n NodeID, id SnapshotID) (any, int64) {
		taken = append(taken, id)
		return fmt.Sprintf("image@%d", id.EndOffset), snapBytes
	}
	return h, &taken
}

func TestFarBehindFollowerLoadsTheLeadersSnapshotInChunks(t *testing.T) {
	const snapBytes = 3<<20 + 512<<10 // 3.5 MiB: four FetchSnapshot round trips at 1 MiB each
	h, taken := snapshotHarness(t, 11, snapBytes)
	leader, _ := h.waitLeader(0, 5000)
	h.run(50)
	lagger := h.others(leader)[0]
	require.NoError(t, h.q.Kill(lagger))

	for i := range 40 {
		h.appendN(leader, 10, 1024, fmt.Sprint("b", i))
		h.run(100)
	}
	ls := h.status(leader)
	require.True(t, ls.HasSnapshot)
	assert.Positive(t, ls.LogStartOffset, "retention moved the log start offset up to a snapshot")
	assert.NotEmpty(t, *taken)
	for _, id := range *taken {
		assert.Equal(t, int32(1), id.Epoch)
	}

	chunksBefore := h.q.Stats().FetchSnapshotChunks
	loadsBefore := len(h.loads)
	require.NoError(t, h.q.Start(lagger))
	h.run(3000)

	st := h.status(lagger)
	ls = h.status(leader)
	loads := h.loads[loadsBefore:]
	require.Len(t, loads, 2, "one load on start (from nothing), one after the download")
	assert.Equal(t, load{lagger, Snapshot{}}, loads[0])
	got := loads[1]
	assert.Equal(t, lagger, got.node)
	assert.Equal(t, fmt.Sprintf("image@%d", got.snap.ID.EndOffset), got.snap.Data, "the follower gets the leader's snapshot content")
	assert.Equal(t, int64(snapBytes), got.snap.Bytes)
	assert.Equal(t, int64(4), h.q.Stats().FetchSnapshotChunks-chunksBefore)
	assert.Equal(t, int64(1), h.q.Stats().SnapshotsLoaded)
	assert.Equal(t, got.snap.ID.EndOffset, st.LogStartOffset)

	// Then it fetched the tail and is in step with the leader.
	assert.Equal(t, ls.EndOffset, st.EndOffset)
	assert.Equal(t, ls.HighWatermark, st.HighWatermark)
	assert.Equal(t, h.entries(leader, st.LogStartOffset, ls.EndOffset), h.entries(lagger, st.LogStartOffset, st.EndOffset))
	require.NoError(t, h.q.Check())
}

func TestSnapshotDownloadTakesOneRoundTripPerChunk(t *testing.T) {
	h, _ := snapshotHarness(t, 12, 10<<20) // 10 chunks
	h.q.cfg.NetworkJitterMs = 0
	leader, _ := h.waitLeader(0, 5000)
	h.run(50) // the lagger learns who leads, so it restarts as a Follower and fetches at once
	lagger := h.others(leader)[0]
	require.NoError(t, h.q.Kill(lagger))
	for i := range 30 {
		h.appendN(leader, 10, 1024, fmt.Sprint("c", i))
		h.run(100)
	}
	require.Positive(t, h.status(leader).LogStartOffset)
	var loadedAt int64 = -1
	record := h.q.hooks.LoadSnapshot
	h.q.hooks.LoadSnapshot = func(n NodeID, s Snapshot) {
		record(n, s)
		if s.ID.EndOffset > 0 {
			loadedAt = h.s.Now()
		}
	}
	start := h.s.Now()
	require.NoError(t, h.q.Start(lagger))
	h.run(1000)
	// Fetch → SnapshotId (1 round trip), then 10 FetchSnapshot round trips of 1 ms each way.
	require.NotEqual(t, int64(-1), loadedAt)
	assert.Equal(t, start+2*11, loadedAt)
}

func TestSnapshotTriggers(t *testing.T) {
	t.Run("bytes since last snapshot", func(t *testing.T) {
		h := newHarness(t, 13, 3, func(c *Config) { c.MaxBytesBetweenSnapshots = 10_000 })
		leader, _ := h.waitLeader(0, 5000)
		h.appendN(leader, 9, 1000, "a")
		h.run(20)
		assert.False(t, h.status(leader).HasSnapshot, "9096 bytes committed: below the threshold")
		h.appendN(leader, 1, 1000, "b")
		h.run(20)
		st := h.status(leader)
		require.True(t, st.HasSnapshot)
		assert.Equal(t, st.HighWatermark, st.Snapshot.EndOffset)
		assert.Equal(t, int64(0), st.LogStartOffset, "one snapshot and the default retention: the log stays")
	})
	t.Run("interval, checked when data arrives", func(t *testing.T) {
		h := newHarness(t, 14, 3, func(c *Config) { c.MaxSnapshotIntervalMs = 5000 })
		leader, _ := h.waitLeader(0, 5000)
		h.run(6000)
		assert.False(t, h.status(leader).HasSnapshot, "no new data, no snapshot")
		h.appendN(leader, 1, 10, "a")
		h.run(20)
		assert.True(t, h.status(leader).HasSnapshot)
	})
	t.Run("interval 0 disables", func(t *testing.T) {
		h := newHarness(t, 15, 3, func(c *Config) { c.MaxSnapshotIntervalMs = 0 })
		leader, _ := h.waitLeader(0, 5000)
		h.run(6000)
		h.appendN(leader, 1, 10, "a")
		h.run(20)
		assert.False(t, h.status(leader).HasSnapshot)
	})
	t.Run("on demand", func(t *testing.T) {
		h := newHarness(t, 16, 1, nil)
		leader, _ := h.waitLeader(0, 5000)
		h.appendN(leader, 4, 10, "a")
		id, err := h.q.Snapshot(leader)
		require.NoError(t, err)
		assert.Equal(t, SnapshotID{EndOffset: 5, Epoch: 1}, id, "a single voter commits as it appends")
	})
}

func TestRetentionKeepsTheNewestSnapshotAndMovesTheLogStart(t *testing.T) {
	h := newHarness(t, 17, 1, func(c *Config) { c.RetentionBytes = 0 })
	leader, _ := h.waitLeader(0, 5000)
	h.appendN(leader, 4, 10, "a")
	first, err := h.q.Snapshot(leader)
	require.NoError(t, err)
	assert.Equal(t, int64(0), h.status(leader).LogStartOffset, "a lone snapshot is never deleted, so the log stays")
	h.appendN(leader, 4, 10, "b")
	second, err := h.q.Snapshot(leader)
	require.NoError(t, err)
	st := h.status(leader)
	assert.Equal(t, second.EndOffset, st.LogStartOffset)
	assert.Equal(t, second, st.Snapshot)
	assert.Less(t, first.EndOffset, second.EndOffset)
	_, err = h.q.Read(leader, 0, 1, nil)
	require.Error(t, err, "the prefix is gone")

	// A restart reloads the newest snapshot and resumes from it.
	require.NoError(t, h.q.Kill(leader))
	require.NoError(t, h.q.Start(leader))
	assert.Equal(t, load{leader, Snapshot{ID: second, Bytes: h.q.nodes[0].snaps[0].Bytes, CreatedMs: h.q.nodes[0].snaps[0].CreatedMs}}, h.loads[len(h.loads)-1])
	assert.Equal(t, second.EndOffset, h.status(leader).HighWatermark)
}

// TestDeletedSnapshotsAreReported checks the DeletedSnapshot hook: retention deleting old
// snapshots and a downloaded snapshot replacing a follower's own are reported, never a node's
// newest snapshot, and an answer still carrying a snapshot's content marks it in flight.
func TestDeletedSnapshotsAreReported(t *testing.T) {
	h, _ := snapshotHarness(t, 11, 3<<20)
	type deletion struct {
		node     NodeID
		id       SnapshotID
		inFlight bool
	}
	var deleted []deletion
	leader := NoNode
	h.q.hooks.DeletedSnapshot = func(n NodeID, s Snapshot, inFlight bool) {
		if n == leader {
			assert.NotEqual(t, h.status(n).Snapshot, s.ID, "retention never deletes the newest snapshot")
		}
		deleted = append(deleted, deletion{n, s.ID, inFlight})
	}
	leader, _ = h.waitLeader(0, 5000)
	h.run(50)
	lagger := h.others(leader)[0]
	require.NoError(t, h.q.Kill(lagger))
	for i := range 40 {
		h.appendN(leader, 10, 1024, fmt.Sprint("b", i))
		h.run(100)
	}
	require.NotEmpty(t, deleted, "retention deleted older snapshots")
	for _, d := range deleted {
		assert.False(t, d.inFlight, "nobody was downloading")
	}
	// Entries committed past the leader's snapshot, but too few for another one yet.
	h.appendN(leader, 2, 1024, "tail")
	h.run(50)
	require.Greater(t, h.status(leader).HighWatermark, h.status(leader).Snapshot.EndOffset)

	// The lagger downloads that snapshot. Just as the last chunk (the one carrying the
	// content) leaves the leader, the leader snapshots again and retention deletes the old one.
	require.NoError(t, h.q.Start(lagger))
	inFlight := func() bool {
		for i := range h.q.msgs {
			if m := &h.q.msgs[i]; m.kind == msgFetchSnapshotResponse && m.data != nil {
				return true
			}
		}
		return false
	}
	h.stepUntil(inFlight)
	before := len(deleted)
	_, err := h.q.Snapshot(leader)
	require.NoError(t, err)
	require.Len(t, deleted, before+1)
	assert.Equal(t, deletion{leader, deleted[before].id, true}, deleted[before], "its content is on the way to the lagger")
	loads := len(h.loads)
	h.run(h.s.Now() + 100)
	require.Greater(t, len(h.loads), loads)
	assert.Equal(t, deleted[before].id, h.loads[loads].snap.ID, "and the lagger loads it")
}
