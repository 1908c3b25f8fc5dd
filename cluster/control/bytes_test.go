package control

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kraftlab/kraftlab/cluster/sim"
	"github.com/kraftlab/kraftlab/engine/controller"
	"github.com/kraftlab/kraftlab/engine/metadata"
)

// TestImageSnapshotBytesMatchesTheRecords keeps imageSnapshotBytes, which sizes a snapshot
// without building it, equal to the size of the records metadata.Image.SnapshotRecords writes,
// over images with every kind of snapshot record: configs at both levels, fenced and
// unregistered brokers, ELR and LastKnownElr, a recovering partition and a deleted topic.
func TestImageSnapshotBytesMatchesTheRecords(t *testing.T) {
	v := func(s string) *string { return &s }
	im := metadata.NewImage()
	recs := []metadata.Record{
		&metadata.FeatureLevelRecord{Name: "eligible.leader.replicas.version", FeatureLevel: 1},
		&metadata.ConfigRecord{ResourceType: metadata.ResourceBroker, Name: "min.insync.replicas", Value: v("2")},
		&metadata.RegisterBrokerRecord{BrokerID: 1, IncarnationID: "i1", BrokerEpoch: 2, LogDirs: []string{"d1", "d2"}},
		&metadata.RegisterBrokerRecord{BrokerID: 2, IncarnationID: "i2", BrokerEpoch: 3, LogDirs: []string{"d3"}, Fenced: true},
		&metadata.RegisterBrokerRecord{BrokerID: 3, IncarnationID: "i3", BrokerEpoch: 4, LogDirs: []string{"d4"}},
		&metadata.TopicRecord{Name: "kept", TopicID: "K"},
		&metadata.ConfigRecord{ResourceType: metadata.ResourceTopic, ResourceName: "kept", Name: "min.insync.replicas", Value: v("3")},
		&metadata.PartitionRecord{Topic: "kept", TopicID: "K", PartitionID: 0, Replicas: []int32{1, 2, 3}, Isr: []int32{1},
			Leader: 1, LeaderEpoch: 4, PartitionEpoch: 7, Elr: []int32{2}, LastKnownElr: []int32{3}},
		&metadata.PartitionRecord{Topic: "kept", TopicID: "K", PartitionID: 1, Replicas: []int32{3, 1}, Isr: []int32{3},
			Leader: 3, LeaderRecoveryState: metadata.Recovering, Elr: []int32{}, LastKnownElr: []int32{}},
		&metadata.TopicRecord{Name: "gone", TopicID: "G"},
		&metadata.PartitionRecord{Topic: "gone", TopicID: "G", PartitionID: 0, Replicas: []int32{1, 2}, Isr: []int32{1, 2}, Leader: 1,
			Elr: []int32{}, LastKnownElr: []int32{}},
		&metadata.RemoveTopicRecord{Topic: "gone", TopicID: "G"},
	}
	for i, r := range recs {
		require.NoError(t, im.Replay(metadata.Entry{Offset: int64(i), Record: r}))
	}
	assert.Equal(t, snapshotBytes(im.SnapshotRecords()), imageSnapshotBytes(im))
	assert.Equal(t, snapshotBytes(metadata.NewImage().SnapshotRecords()), imageSnapshotBytes(metadata.NewImage()))

	// And the images a running quorum builds, past faults and a topic with thousands of
	// partitions (more than one 8 KiB snapshot batch).
	h := newHarness(t, 3, 3, brokerIDs(4), nil)
	h.startBrokers()
	active, _ := h.waitActive(0, 5000)
	h.run(5000)
	require.NoError(t, h.c.Admin().CreateTopic(controller.CreateTopicRequest{Name: "t", NumPartitions: 3000, ReplicationFactor: 3}))
	h.run(2000)
	require.NoError(t, h.c.Admin().SetConfig("t", "min.insync.replicas", "2"))
	h.brokers[1].stop()
	h.run(30_000)
	for _, id := range h.c.Voters() {
		im := h.image(id)
		assert.Equal(t, snapshotBytes(im.SnapshotRecords()), imageSnapshotBytes(im), "controller %d", id)
	}
	assert.Greater(t, imageSnapshotBytes(h.image(active)), int64(2*snapshotBatchBytes))
}

// TestSnapshotsKeepTheirContentAsTheImageMovesOn takes snapshots of a controller's image and
// keeps replaying into it: every change of a partition, a new topic, a deleted one, configs,
// fencing and an ELR clear must leave each snapshot's records as SnapshotRecords wrote them at
// the snapshot's offset, attached to the image, frozen, or frozen by a LatestSnapshot call.
func TestSnapshotsKeepTheirContentAsTheImageMovesOn(t *testing.T) {
	v := func(s string) *string { return &s }
	iv := &invariants{sim: sim.New(1)}
	ims := &images{iv: iv}
	m := &controllerNode{store: &store{cowImage: cowImage{image: metadata.NewImage()}}}
	off := int64(0)
	apply := func(recs ...metadata.Record) {
		es := make([]metadata.Entry, len(recs))
		for i, r := range recs {
			es[i] = metadata.Entry{Offset: off + int64(i), Record: r}
		}
		m.replay(ims, off, off+int64(len(es)), es)
		off += int64(len(es))
		require.Empty(t, iv.list)
	}
	change := func(p int32, leader int32, isr ...int32) metadata.Record {
		r := metadata.NewPartitionChange("a", "A", p)
		r.Leader, r.Isr = leader, isr
		return &r
	}
	apply(&metadata.RegisterBrokerRecord{BrokerID: 1, IncarnationID: "i1", BrokerEpoch: 1, LogDirs: []string{"d1"}},
		&metadata.RegisterBrokerRecord{BrokerID: 2, IncarnationID: "i2", BrokerEpoch: 2, LogDirs: []string{"d2"}},
		&metadata.RegisterBrokerRecord{BrokerID: 3, IncarnationID: "i3", BrokerEpoch: 3, LogDirs: []string{"d3"}},
		&metadata.TopicRecord{Name: "a", TopicID: "A"},
		&metadata.ConfigRecord{ResourceType: metadata.ResourceTopic, ResourceName: "a", Name: "min.insync.replicas", Value: v("2")})
	for p := range int32(200) {
		apply(&metadata.PartitionRecord{Topic: "a", TopicID: "A", PartitionID: p, Replicas: []int32{p%3 + 1, (p+1)%3 + 1, (p+2)%3 + 1},
			Isr: []int32{p%3 + 1, (p+1)%3 + 1, (p+2)%3 + 1}, Leader: p%3 + 1, Elr: []int32{}, LastKnownElr: []int32{}})
	}
	type taken struct {
		s    *Snapshot
		want []metadata.Record
	}
	var snaps []taken
	snap := func() {
		s := m.takeSnapshot(off, 1)
		want := m.store.image.SnapshotRecords()
		assert.Equal(t, snapshotBytes(want), s.Bytes)
		snaps = append(snaps, taken{s, want})
	}
	check := func(when string) {
		for i, tk := range snaps {
			assert.Equal(t, tk.want, tk.s.Records(), "%s: snapshot %d", when, i)
			// Loading it without building its records rebuilds the same image.
			im := metadata.NewImage()
			n, err := tk.s.replayInto(im)
			require.NoError(t, err)
			assert.Equal(t, int64(len(tk.want)), n)
			assert.Equal(t, tk.want, im.SnapshotRecords(), "%s: snapshot %d loaded", when, i)
		}
	}
	snap()
	for p := range int32(50) {
		apply(change(p, (p+1)%3+1, (p+1)%3+1, (p+2)%3+1))
	}
	check("partitions changed")
	snap()
	apply(&metadata.TopicRecord{Name: "b", TopicID: "B"},
		&metadata.PartitionRecord{Topic: "b", TopicID: "B", PartitionID: 0, Replicas: []int32{1, 2}, Isr: []int32{1, 2}, Leader: 1,
			Elr: []int32{}, LastKnownElr: []int32{}},
		&metadata.BrokerRegistrationChangeRecord{BrokerID: 2, BrokerEpoch: 2, Fenced: metadata.FenceFence},
		&metadata.ConfigRecord{ResourceType: metadata.ResourceBroker, Name: "min.insync.replicas", Value: v("1")},
		change(7, metadata.NoLeaderChange, 2), change(120, 2, 2, 3))
	check("a topic created, a broker fenced, configs set")
	snap()
	apply(&metadata.RemoveTopicRecord{Topic: "b", TopicID: "B"}, change(8, 3, 3))
	check("a topic deleted")
	require.Len(t, m.snaps, 3, "all three still read partitions from the image")
	snaps[0].s.freeze()
	require.Len(t, m.snaps, 2)
	apply(change(9, 1, 1))
	check("one frozen")
	apply(&metadata.ClearElrRecord{})
	assert.Empty(t, m.snaps, "a record that changes partitions wholesale freezes every snapshot")
	apply(change(10, 2, 2))
	check("all frozen")

	// A snapshot that nobody else can load any more is released when deleted.
	s := m.takeSnapshot(off, 1)
	s.detach()
	s.released = true
	assert.Nil(t, s.Records())
	assert.Empty(t, m.snaps)
}
