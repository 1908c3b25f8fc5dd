package control

import (
	"slices"

	"github.com/kraftlab/kraftlab/engine/metadata"
)

// Snapshot is the content of a metadata snapshot a controller took: the records that rebuild its
// committed image at EndOffset. It is shared by every node that downloads it: treat it as
// immutable.
//
// A snapshot does not copy the image's partitions when it is taken, because at a million
// partitions that copy (and the records, a few million small objects) would dominate a run in
// which most snapshots are never read: only a restarting or far-behind node loads one. The
// records of everything but the partitions are built at once (they are few); the partitions are
// read from the committed image the taking controller has (its own or the shared one; see
// store), which keeps the old value of every partition it changes since (copy on write). The snapshot gets its own copy of the partitions
// (it is frozen) as soon as it may be read once its controller has deleted it: a controller
// downloads it (and may restart from it), LatestSnapshot hands it out, an answer carrying it
// is still in flight when the controller deletes it, or the controller replaces its image. A
// broker downloading it reads it only while it loads it (Callbacks.OnBrokerSnapshot).
type Snapshot struct {
	EndOffset int64 // offsets below it are covered
	Epoch     int32 // quorum epoch of the entry at EndOffset-1
	Node      int32 // the controller that took it
	Bytes     int64 // estimated size (records plus batch headers); the quorum uses it

	head   []metadata.Record // feature level, cluster configs, broker registrations
	topics []snapTopic       // live topics in image order
	count  int32             // partitions in the image at EndOffset, deleted topics' included

	// parts holds the partitions once frozen. Until then src's image holds them, except the
	// ones whose bit is set in changed, whose value at EndOffset is in saved (in chunks of
	// savedChunk, so that keeping a few hundred thousand does not copy them over and over).
	// owner is the controller that took it, while src holds its partitions.
	parts   []metadata.Partition
	owner   *snapshotList
	src     *cowImage
	changed []uint64
	saved   [][]savedPartition
	// released is set when its controller deleted it without its content being frozen: nothing
	// can load it any more, and it has no content.
	released bool
}

// snapTopic is one live topic of a snapshot: its TopicRecord and ConfigRecords, and its
// partitions' range in the image.
type snapTopic struct {
	recs        []metadata.Record
	name, id    string
	first, size int32
}

// cowImage is a committed image and the snapshots that still read their partitions from it,
// copy on write: before the image changes a partition, each of them keeps the old value
// (beforeReplay), in chunks from pool.
type cowImage struct {
	image *metadata.Image
	snaps []*Snapshot
	pool  *savedPool
}

// snapshotList is the snapshots a controller took that still read partitions from a committed
// image; each points back at it (Snapshot.owner) to leave it when frozen or released.
type snapshotList []*Snapshot

// savedPartition is a partition's value at a snapshot's EndOffset, saved as its controller's
// image changed it.
type savedPartition struct {
	idx int32
	p   metadata.Partition
}

// reservePartitions makes room in im for the partitions recs create, before they are replayed.
// Image.Replay appends partitions one at a time, and growing a slice of a million of them
// copies it over and over (and touches fresh memory each time); a bootstrap batch or a
// snapshot load creates them all at once. Only the capacity changes.
func reservePartitions(im *metadata.Image, n int, rec func(i int) metadata.Record) {
	if n < minReserve {
		return
	}
	parts := 0
	for i := range n {
		if _, ok := rec(i).(*metadata.PartitionRecord); ok {
			parts++
		}
	}
	im.ReservePartitions(parts)
}

// minReserve is the smallest batch worth counting partitions in.
const minReserve = 1024

// keep saves partition idx's value, about to change in its owner's image, unless the snapshot
// already has it (or the partition is newer than the snapshot).
func (s *Snapshot) keep(idx int32, p *metadata.Partition) {
	if idx >= s.count || s.changed[idx/64]&(1<<(idx%64)) != 0 {
		return
	}
	s.changed[idx/64] |= 1 << (idx % 64)
	if n := len(s.saved); n == 0 || len(s.saved[n-1]) == savedChunk {
		s.saved = append(s.saved, s.src.pool.get())
	}
	last := &s.saved[len(s.saved)-1]
	*last = append(*last, savedPartition{idx: idx, p: *p})
}

// savedChunk is how many saved partitions one chunk of Snapshot.saved holds.
const savedChunk = 4096

// savedPool keeps the chunks of Snapshot.saved that detached snapshots gave back, up to
// maxSavedChunks of them, for the next snapshots to save old partitions in. At a million
// partitions the snapshots a roll takes save over 800 MB of partitions between them, a few
// hundred thousand each; new chunks each time would be that much memory zeroed and then
// collected. The zero savedPool (or a nil one) is ready to use.
type savedPool struct{ free [][]savedPartition }

// maxSavedChunks bounds the chunks a savedPool keeps: about 22 MB.
const maxSavedChunks = 64

func (sp *savedPool) get() []savedPartition {
	if sp != nil {
		if n := len(sp.free); n > 0 {
			c := sp.free[n-1]
			sp.free[n-1] = nil
			sp.free = sp.free[:n-1]
			return c
		}
	}
	return make([]savedPartition, 0, savedChunk)
}

func (sp *savedPool) put(chunks [][]savedPartition) {
	for _, c := range chunks {
		if sp == nil || len(sp.free) >= maxSavedChunks {
			return
		}
		sp.free = append(sp.free, c[:0])
	}
}

// partitions returns the snapshot's partitions, [0, count).
func (s *Snapshot) partitions() []metadata.Partition {
	if s.parts != nil || s.src == nil {
		return s.parts
	}
	parts := slices.Clone(s.src.image.Partitions[:s.count])
	for _, chunk := range s.saved {
		for _, sp := range chunk {
			parts[sp.idx] = sp.p
		}
	}
	return parts
}

// freeze gives the snapshot its own copy of the partitions and detaches it from its controller.
func (s *Snapshot) freeze() {
	if s.src == nil {
		return
	}
	s.parts = s.partitions()
	s.detach()
}

// detach stops the image it reads from keeping old partition values for the snapshot.
func (s *Snapshot) detach() {
	if l := s.owner; l != nil {
		if i := slices.Index(*l, s); i >= 0 {
			*l = slices.Delete(*l, i, i+1)
		}
	}
	if st := s.src; st != nil {
		if i := slices.Index(st.snaps, s); i >= 0 {
			st.snaps = slices.Delete(st.snaps, i, i+1)
		}
		st.pool.put(s.saved) // nothing reads them once the snapshot is detached
	}
	s.owner, s.src, s.changed, s.saved = nil, nil, nil, nil
}

// Records returns the snapshot's records, as metadata.Image.SnapshotRecords writes them for the
// committed image at EndOffset: the feature level, cluster configs, broker registrations, then
// each live topic with its configs and partitions. The slice is new; the records are shared
// and must not be modified. A snapshot its controller deleted without anyone loading it has
// no records.
func (s *Snapshot) Records() []metadata.Record {
	if s.released {
		return nil
	}
	parts := s.partitions()
	out := slices.Clone(s.head)
	for _, t := range s.topics {
		out = append(out, t.recs...)
		for i := t.first; i < t.first+t.size; i++ {
			p := &parts[i]
			out = append(out, &metadata.PartitionRecord{Topic: t.name, TopicID: t.id, PartitionID: p.ID,
				Replicas: slices.Clone(p.Replicas()), Isr: p.Isr(), Leader: p.Leader, LeaderRecoveryState: p.Recovery(),
				LeaderEpoch: p.LeaderEpoch, PartitionEpoch: p.PartitionEpoch, Elr: p.Elr(), LastKnownElr: p.LastKnownElr()})
		}
	}
	return out
}

// replayInto replays the snapshot's records into im, as replaying Records at EndOffset-1 would,
// without building a record per partition: one reused PartitionRecord stands in for each, since
// Image.Replay copies what it keeps. It returns how many records it replayed and the first
// error, where it stops.
func (s *Snapshot) replayInto(im *metadata.Image) (int64, error) {
	if s.released {
		return 0, nil
	}
	off := s.EndOffset - 1
	var n int64
	replay := func(r metadata.Record) error {
		n++
		return im.Replay(metadata.Entry{Offset: off, Record: r})
	}
	for _, r := range s.head {
		if err := replay(r); err != nil {
			return n, err
		}
	}
	parts := s.partitions()
	live := 0
	for _, t := range s.topics {
		live += int(t.size)
	}
	im.ReservePartitions(live) // see reservePartitions
	var pr metadata.PartitionRecord
	isr, elr, lke := make([]int32, 0, metadata.MaxReplicas), make([]int32, 0, metadata.MaxReplicas), make([]int32, 0, metadata.MaxReplicas)
	for _, t := range s.topics {
		for _, r := range t.recs {
			if err := replay(r); err != nil {
				return n, err
			}
		}
		for i := t.first; i < t.first+t.size; i++ {
			p := &parts[i]
			isr, elr, lke = p.AppendIsr(isr[:0]), p.AppendElr(elr[:0]), p.AppendLastKnownElr(lke[:0])
			pr = metadata.PartitionRecord{Topic: t.name, TopicID: t.id, PartitionID: p.ID, Replicas: p.Replicas(), Isr: isr,
				Leader: p.Leader, LeaderRecoveryState: p.Recovery(), LeaderEpoch: p.LeaderEpoch, PartitionEpoch: p.PartitionEpoch,
				Elr: elr, LastKnownElr: lke}
			if err := replay(&pr); err != nil {
				return n, err
			}
		}
	}
	return n, nil
}

// Entries returns the snapshot's records as log entries, all at offset EndOffset-1: Kafka
// replays a snapshot's records at its last contained offset, so a broker registered in a
// snapshot gets that offset as its registration offset.
func (s *Snapshot) Entries() []metadata.Entry {
	recs := s.Records()
	out := make([]metadata.Entry, len(recs))
	for i, r := range recs {
		out[i] = metadata.Entry{Offset: s.EndOffset - 1, Record: r}
	}
	return out
}

// beforeReplay runs before st's image replays r (idx is the partition a
// PartitionChangeRecord changes, or -1): the snapshots the image still holds partitions for keep
// the old value of what is about to change. A record that may change partitions in place
// without naming one (ClearElrRecord, or a kind this layer does not know) freezes them instead.
func (st *cowImage) beforeReplay(r metadata.Record, idx int32) {
	switch r.(type) {
	case *metadata.PartitionChangeRecord:
		if idx >= 0 {
			p := &st.image.Partitions[idx]
			for _, s := range st.snaps {
				s.keep(idx, p)
			}
		}
	case *metadata.PartitionRecord, *metadata.TopicRecord, *metadata.RemoveTopicRecord, *metadata.ConfigRecord,
		*metadata.FeatureLevelRecord, *metadata.RegisterBrokerRecord, *metadata.BrokerRegistrationChangeRecord,
		*metadata.NoOpRecord, *metadata.LeaderChangeMessage:
		// Partitions are appended, or left alone.
	default:
		for len(st.snaps) > 0 {
			st.snaps[len(st.snaps)-1].freeze()
		}
	}
}
