package control

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kraftlab/kraftlab/cluster/sim"
	"github.com/kraftlab/kraftlab/engine/config"
	"github.com/kraftlab/kraftlab/engine/metadata"
)

// storeLog is a metadata log with every kind of record the shared image's journal undoes:
// registrations and fencing, topics created, configured and deleted, partitions created (in
// runs) and changed, the ELR feature level, and an ELR clear.
func storeLog() []metadata.Entry {
	v := func(s string) *string { return &s }
	rng := rand.New(rand.NewPCG(7, 8))
	var recs []metadata.Record
	add := func(r ...metadata.Record) { recs = append(recs, r...) }
	parts := func(topic, id string, n int32) {
		for p := range n {
			reps := []int32{p%3 + 1, (p+1)%3 + 1, (p+2)%3 + 1}
			add(&metadata.PartitionRecord{Topic: topic, TopicID: id, PartitionID: p, Replicas: reps, Isr: reps, Leader: reps[0],
				Elr: []int32{}, LastKnownElr: []int32{}})
		}
	}
	changes := func(topic, id string, n, count int) {
		for range n {
			p := int32(rng.IntN(count))
			r := metadata.NewPartitionChange(topic, id, p)
			reps := []int32{p%3 + 1, (p+1)%3 + 1, (p+2)%3 + 1}
			switch rng.IntN(4) {
			case 0:
				r.Leader = reps[rng.IntN(3)]
			case 1:
				r.Isr = reps[:1+rng.IntN(3)]
			case 2:
				r.Leader, r.Isr, r.Elr, r.LastKnownElr = reps[0], reps[:1], reps[1:2], reps[2:]
			default:
				r.Leader, r.Isr = reps[1], reps[1:]
			}
			add(&r)
		}
	}
	add(&metadata.FeatureLevelRecord{Name: config.EligibleLeaderReplicasVersion, FeatureLevel: 1},
		&metadata.RegisterBrokerRecord{BrokerID: 1, IncarnationID: "i1", BrokerEpoch: 1, LogDirs: []string{"d1"}},
		&metadata.RegisterBrokerRecord{BrokerID: 2, IncarnationID: "i2", BrokerEpoch: 2, LogDirs: []string{"d2"}},
		&metadata.TopicRecord{Name: "a", TopicID: "A"},
		&metadata.ConfigRecord{ResourceType: metadata.ResourceTopic, ResourceName: "a", Name: "min.insync.replicas", Value: v("2")})
	parts("a", "A", 300)
	add(&metadata.RegisterBrokerRecord{BrokerID: 3, IncarnationID: "i3", BrokerEpoch: 3, LogDirs: []string{"d3"}})
	changes("a", "A", 400, 300)
	add(&metadata.TopicRecord{Name: "b", TopicID: "B"})
	parts("b", "B", 20)
	add(&metadata.BrokerRegistrationChangeRecord{BrokerID: 2, BrokerEpoch: 2, Fenced: metadata.FenceFence},
		&metadata.ConfigRecord{ResourceType: metadata.ResourceBroker, Name: "min.insync.replicas", Value: v("1")})
	changes("b", "B", 100, 20)
	changes("a", "A", 100, 300)
	add(&metadata.RemoveTopicRecord{Topic: "b", TopicID: "B"},
		&metadata.ConfigRecord{ResourceType: metadata.ResourceTopic, ResourceName: "a", Name: "min.insync.replicas", Value: nil},
		&metadata.ConfigRecord{ResourceType: metadata.ResourceTopic, ResourceName: "a", Name: "unclean.leader.election.enable", Value: v("true")},
		&metadata.BrokerRegistrationChangeRecord{BrokerID: 2, BrokerEpoch: 2, Fenced: metadata.FenceUnfence, InControlledShutdown: 1},
		&metadata.RegisterBrokerRecord{BrokerID: 1, IncarnationID: "j1", BrokerEpoch: 900, LogDirs: []string{"e1"}, Fenced: true},
		&metadata.BrokerRegistrationChangeRecord{BrokerID: 1, BrokerEpoch: 900, Fenced: metadata.FenceUnfence})
	changes("a", "A", 200, 300)
	add(&metadata.ClearElrRecord{TopicID: "A", Topic: "a"},
		&metadata.FeatureLevelRecord{Name: config.EligibleLeaderReplicasVersion, FeatureLevel: 0},
		&metadata.TopicRecord{Name: "b", TopicID: "B2"})
	parts("b", "B2", 10)
	changes("a", "A", 200, 300)
	out := make([]metadata.Entry, len(recs))
	for i, r := range recs {
		out[i] = metadata.Entry{Offset: int64(i), Record: r}
	}
	return out
}

// TestSnapshotsBehindTheSharedImage: a controller behind the end of the shared committed image
// takes snapshots, sizes them and sees its image exactly as a controller with an image of its
// own, replayed to the same offset, would: every kind of record between its offset and the
// shared image's end is undone, and the snapshots keep their content as the image moves on.
func TestSnapshotsBehindTheSharedImage(t *testing.T) {
	log := storeLog()
	iv := &invariants{sim: sim.New(1)}
	ims := &images{iv: iv, root: &store{cowImage: cowImage{image: metadata.NewImage()}, shared: true}}
	front := &controllerNode{id: 1, store: ims.root}
	behind := &controllerNode{id: 2, store: ims.root}
	own := &controllerNode{id: 3, store: &store{cowImage: cowImage{image: metadata.NewImage()}}}
	ims.root.users = []*imagePos{&front.imagePos, &behind.imagePos}
	rng := rand.New(rand.NewPCG(1, 2))
	type taken struct {
		s    *Snapshot
		want []metadata.Record
	}
	var snaps []taken
	advance := func(m *controllerNode, to int64) {
		m.replay(ims, m.applied, to, log[m.applied:to])
		require.Empty(t, iv.list)
	}
	for int(ims.root.at) < len(log) {
		end := min(ims.root.at+int64(1+rng.IntN(60)), int64(len(log)))
		for _, e := range log[ims.root.at:end] {
			require.NoError(t, ims.replayRoot(e))
		}
		advance(front, end)
		// Every offset from the controller behind to the end reads as an image of its own.
		ref := own.store.image.Clone()
		for x := behind.applied; x <= end; x++ {
			want := ref.SnapshotRecords()
			s := buildSnapshot(ims.root, x)
			require.Equal(t, want, s.Records(), "offset %d of %d", x, end)
			require.Equal(t, snapshotBytes(want), s.Bytes, "offset %d of %d", x, end)
			if x < end {
				require.NoError(t, ref.Replay(log[x]))
			}
		}
		x := behind.applied + rng.Int64N(end-behind.applied+1)
		advance(behind, x)
		advance(own, x)
		want := own.store.image.SnapshotRecords()
		assert.Equal(t, snapshotBytes(want), behind.snapshotBytes(), "offset %d of %d", x, end)
		assert.Equal(t, want, behind.imageAt(iv).SnapshotRecords(), "offset %d of %d", x, end)
		if rng.IntN(3) == 0 {
			s := behind.takeSnapshot(x, 1)
			assert.Equal(t, snapshotBytes(want), s.Bytes, "offset %d of %d", x, end)
			snaps = append(snaps, taken{s, want})
		}
		for i, tk := range snaps {
			require.Equal(t, tk.want, tk.s.Records(), "snapshot %d at %d, image at %d", i, tk.s.EndOffset, end)
		}
		assert.LessOrEqual(t, len(ims.root.parts)-ims.root.partsFrom, int(end-behind.applied)+300, "the journal covers no more than the lag")
	}
	require.NotEmpty(t, snaps)
	advance(behind, ims.root.at)
	assert.Equal(t, ims.root.partsFrom, len(ims.root.parts), "no user behind: no journal")
	assert.Same(t, ims.root.image, behind.imageAt(iv))
}

// TestJournalCompactsAsItsUsersMoveOn: the journal drops what is below its lowest user and
// compacts in place once most of it is dead, keeping what is still above.
func TestJournalCompactsAsItsUsersMoveOn(t *testing.T) {
	a, b := &imagePos{}, &imagePos{}
	st := &store{cowImage: cowImage{image: metadata.NewImage()}, shared: true, users: []*imagePos{a, b}}
	const n = 3 * minTrim
	for off := range int64(n) {
		st.parts = append(st.parts, partUndo{off: off, idx: int32(off)})
		st.heads = append(st.heads, headUndo{off: off, kind: undoFeature, elr: int16(off % 2)})
	}
	st.at = n
	a.applied, b.applied = n, minTrim
	st.trim()
	assert.Equal(t, minTrim, st.partsFrom, "below half dead: dropped, not yet compacted")
	b.applied = 2 * minTrim
	st.trim()
	require.Zero(t, st.partsFrom, "compacted")
	require.Zero(t, st.headsFrom)
	require.Len(t, st.parts, n-2*minTrim)
	assert.Equal(t, int64(2*minTrim), st.parts[0].off)
	assert.Equal(t, int64(2*minTrim), st.heads[0].off)
	st.leave(b)
	assert.Empty(t, st.parts, "with every user at the end, nothing is kept")
	assert.Empty(t, st.heads)
}

// TestSnapshotChunksAreReusedOnlyOnceDetached: a snapshot keeps the old value of each
// partition its image changes in chunks from the store's pool; frozen, it has its own copy and
// gives the chunks back, and the next snapshot's copies on write reuse them without touching
// what the first one froze.
func TestSnapshotChunksAreReusedOnlyOnceDetached(t *testing.T) {
	var pool savedPool
	st := newStore(0, &pool)
	for _, e := range storeLog() {
		require.NoError(t, st.image.Replay(e))
		st.at = e.Offset + 1
	}
	parts := st.image.Partitions
	change := func(s *Snapshot, idx int32) {
		s.keep(idx, &parts[idx]) // what replayEntry does before a change (beforeReplay)
		parts[idx].LeaderEpoch++
	}
	s1 := buildSnapshot(st, st.at)
	st.snaps = append(st.snaps, s1)
	at1 := slices.Clone(parts)
	for i := range parts {
		change(s1, int32(i))
	}
	require.Empty(t, pool.free)
	s1.freeze()
	assert.Equal(t, at1, s1.parts, "frozen at its offset")
	require.Len(t, pool.free, 1, "its chunk went back")

	s2 := buildSnapshot(st, st.at)
	st.snaps = append(st.snaps, s2)
	at2 := slices.Clone(parts)
	for i := range parts {
		change(s2, int32(i))
	}
	assert.Empty(t, pool.free, "the second snapshot took the chunk")
	assert.Equal(t, at1, s1.parts, "and the first one's copy is its own")
	assert.Equal(t, at2, s2.partitions())
	s2.detach()
	assert.Len(t, pool.free, 1)
}

// TestSavedPoolKeepsAtMostMaxSavedChunks: a snapshot that saved more chunks than the pool
// keeps gives the rest to the collector.
func TestSavedPoolKeepsAtMostMaxSavedChunks(t *testing.T) {
	var pool savedPool
	chunks := make([][]savedPartition, maxSavedChunks+3)
	for i := range chunks {
		chunks[i] = append(pool.get(), savedPartition{idx: int32(i)})
	}
	pool.put(chunks)
	assert.Len(t, pool.free, maxSavedChunks)
	assert.Empty(t, pool.get(), "a chunk comes back empty")
	var none *savedPool
	assert.Equal(t, savedChunk, cap(none.get()), "a store without a pool makes its chunks")
	none.put(chunks) // and drops them
}
