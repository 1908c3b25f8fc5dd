package control

import (
	"slices"
	"sort"

	"github.com/kraftlab/kraftlab/engine/config"
	"github.com/kraftlab/kraftlab/engine/metadata"
)

// store is a committed image and what depends on it: the offset it is at, the snapshots that
// still read partitions from it and, for the shared image, the controllers behind it and the
// undo journal that shows the image as it was at their offsets.
//
// Every controller that booted with no snapshot replays the same committed log into the same
// empty image, so their committed images differ only in how far each has got (its high
// watermark). They share one image, the cluster's committed image (CommittedView), into which
// images.replayRoot replays each entry once, as the cluster first commits it: a controller in
// it ("a user") is at
// or behind its offset. What a user needs at its own offset, a snapshot it takes there or its
// image for observers, is the shared image with the journal undone back to that offset. A
// controller that loads a snapshot has an image of its own from then on: an image rebuilt from
// a snapshot differs from a replayed one in what the engine reads (registration offsets, the
// order of the imbalanced and leaderless sets), and the engine of a new active controller
// starts from its controller's own image. The journal grows with the lag of the lowest user
// (about 100 bytes a partition change): a controller cut off from the quorum keeps it growing
// until it catches up, downloads a snapshot or is killed.
type store struct {
	// The image, with the snapshots reading partitions from it, copy on write (see Snapshot).
	cowImage
	at int64 // offsets below it are replayed into the image

	shared bool
	users  []*imagePos
	// The journal: what each entry from the lowest user's offset on changed, as it was before
	// it, in offset order; parts[partsFrom:] and heads[headsFrom:] are live.
	parts     []partUndo
	heads     []headUndo
	partsFrom int
	headsFrom int
}

// headKind says what a headUndo undoes.
type headKind uint8

const (
	undoPartitions headKind = iota + 1 // n partitions were created, idx+i at offset off+i
	undoTopic                          // topic idx was created
	undoRemove                         // topic idx was removed
	undoConfig                         // the configs of topic idx (-1: the cluster's) were vals
	undoFeature                        // the ELR feature level was elr
	undoBroker                         // broker idx's registration was reg
)

// headUndo is what the entry at off changed outside the partitions, as it was before it.
type headUndo struct {
	off  int64
	kind headKind
	idx  int32
	n    int32
	elr  int16
	vals *config.Values
	reg  *registration
}

// newStore returns an empty committed image sized for hint partitions, whose snapshots save
// old partitions in chunks from pool.
func newStore(hint int, pool *savedPool) *store {
	im := metadata.NewImage()
	im.ReservePartitions(hint) // see Config.PartitionsHint
	return &store{cowImage: cowImage{image: im, pool: pool}, at: 0}
}

// journal notes what replaying e will change, before it is replayed, for the users behind it.
// Replay leaves the image alone when it refuses a record, so a note too many undoes nothing.
func (st *store) journal(e metadata.Entry) {
	im := st.image
	var h headUndo
	switch r := e.Record.(type) {
	case *metadata.PartitionChangeRecord:
		if idx, ok := im.ChangeIndex(r); ok {
			st.parts = append(st.parts, partUndo{off: e.Offset, idx: idx, p: im.Partitions[idx]})
		}
		return
	case *metadata.PartitionRecord:
		idx := int32(len(im.Partitions))
		if n := len(st.heads); n > st.headsFrom {
			// A run of creations (a bootstrap's million) is one note.
			if h := &st.heads[n-1]; h.kind == undoPartitions && h.off+int64(h.n) == e.Offset && h.idx+h.n == idx {
				h.n++
				return
			}
		}
		h = headUndo{kind: undoPartitions, idx: idx, n: 1}
	case *metadata.TopicRecord:
		h = headUndo{kind: undoTopic, idx: int32(len(im.Topics))}
	case *metadata.RemoveTopicRecord:
		t, ok := im.TopicByID(r.TopicID)
		if !ok {
			return
		}
		h = headUndo{kind: undoRemove, idx: t}
	case *metadata.ConfigRecord:
		t, vals := int32(-1), &im.Cluster
		if r.ResourceType == metadata.ResourceTopic {
			var ok bool
			if t, ok = im.TopicByName(r.ResourceName); !ok {
				return
			}
			vals = &im.Topics[t].Configs
		}
		old := vals.Clone()
		h = headUndo{kind: undoConfig, idx: t, vals: &old}
	case *metadata.FeatureLevelRecord:
		if r.Name != config.EligibleLeaderReplicasVersion {
			return
		}
		h = headUndo{kind: undoFeature, elr: im.ElrVersion}
	case *metadata.RegisterBrokerRecord:
		h = headUndo{kind: undoBroker, idx: r.BrokerID, reg: registrationOf(im.Broker(r.BrokerID))}
	case *metadata.BrokerRegistrationChangeRecord:
		h = headUndo{kind: undoBroker, idx: r.BrokerID, reg: registrationOf(im.Broker(r.BrokerID))}
	case *metadata.ClearElrRecord:
		for t := range im.Topics {
			top := &im.Topics[t]
			if top.Deleted || (r.TopicID != "" && top.ID != r.TopicID) {
				continue
			}
			for idx := top.First; idx < top.First+top.Count; idx++ {
				if p := &im.Partitions[idx]; p.ElrLen() > 0 || p.LastKnownElrLen() > 0 {
					st.parts = append(st.parts, partUndo{off: e.Offset, idx: idx, p: *p})
				}
			}
		}
		return
	default:
		return
	}
	h.off = e.Offset
	st.heads = append(st.heads, h)
}

// imagePos is a controller's place in its committed image: offsets below applied are replayed
// for it (it equals the controller's high watermark). The shared image's users are theirs.
type imagePos struct{ applied int64 }

// leave takes the user at pos out of the shared image's users.
func (st *store) leave(pos *imagePos) {
	if i := slices.Index(st.users, pos); i >= 0 {
		st.users = slices.Delete(st.users, i, i+1)
	}
	st.trim()
}

// trim drops the journal below the lowest user's offset: no user will ask for the image there
// again. It compacts once at least half of a journal is dead, so the copying is amortised.
func (st *store) trim() {
	low := st.at
	for _, u := range st.users {
		low = min(low, u.applied)
	}
	for st.partsFrom < len(st.parts) && st.parts[st.partsFrom].off < low {
		st.parts[st.partsFrom] = partUndo{}
		st.partsFrom++
	}
	for st.headsFrom < len(st.heads) && st.heads[st.headsFrom].off < low && !st.heads[st.headsFrom].spans(low) {
		st.heads[st.headsFrom] = headUndo{}
		st.headsFrom++
	}
	if st.partsFrom == len(st.parts) {
		st.parts, st.partsFrom = st.parts[:0], 0
	} else if st.partsFrom >= minTrim && 2*st.partsFrom >= len(st.parts) {
		st.parts = st.parts[:copy(st.parts, st.parts[st.partsFrom:])]
		st.partsFrom = 0
	}
	if st.headsFrom == len(st.heads) {
		st.heads, st.headsFrom = st.heads[:0], 0
	} else if st.headsFrom >= minTrim && 2*st.headsFrom >= len(st.heads) {
		st.heads = st.heads[:copy(st.heads, st.heads[st.headsFrom:])]
		st.headsFrom = 0
	}
}

// spans reports whether a run of partition creations reaches offset off or beyond.
func (h *headUndo) spans(off int64) bool {
	return h.kind == undoPartitions && h.off+int64(h.n) > off
}

// pastAt returns st's image as it was at offset x (x <= st.at, and no lower than the journal
// reaches: a user's offset). It reads the journal: use it before the journal is trimmed again.
func (st *store) pastAt(x int64) *past {
	p := present(st.image)
	if x >= st.at {
		return p
	}
	heads := st.heads[st.headsFrom:]
	countSet, topicsSet, elrSet, clusterSet := false, false, false, false
	for i := sort.Search(len(heads), func(i int) bool { return heads[i].off >= x || heads[i].spans(x) }); i < len(heads); i++ {
		h := &heads[i]
		switch h.kind {
		case undoPartitions:
			if !countSet {
				p.count, countSet = h.idx+int32(max(x-h.off, 0)), true
			}
		case undoTopic:
			if !topicsSet {
				p.topics, topicsSet = h.idx, true
			}
		case undoRemove:
			if p.live == nil {
				p.live = map[int32]bool{}
			}
			p.live[h.idx] = true
		case undoConfig:
			if h.idx < 0 {
				if !clusterSet {
					p.cluster, clusterSet = h.vals, true
				}
				break
			}
			if p.configs == nil {
				p.configs = map[int32]*config.Values{}
			}
			if _, ok := p.configs[h.idx]; !ok {
				p.configs[h.idx] = h.vals
			}
		case undoFeature:
			if !elrSet {
				p.elr, elrSet = h.elr, true
			}
		case undoBroker:
			if p.regs == nil {
				p.regs = map[int32]*registration{}
			}
			if _, ok := p.regs[h.idx]; !ok {
				p.regs[h.idx] = h.reg
			}
		}
	}
	parts := st.parts[st.partsFrom:]
	p.undo = parts[sort.Search(len(parts), func(i int) bool { return parts[i].off >= x }):]
	if len(p.undo) > 0 {
		p.parts = make(map[int32]*metadata.Partition, len(p.undo))
		for i := range p.undo {
			u := &p.undo[i]
			if _, ok := p.parts[u.idx]; !ok {
				p.parts[u.idx] = &u.p
			}
		}
	}
	return p
}

// buildSnapshot captures st's image as it was at offset end (its end, or a user's offset behind
// it), reading its partitions from st's image, not yet attached to a controller.
func buildSnapshot(st *store, end int64) *Snapshot {
	im := st.image
	p := st.pastAt(end)
	s := &Snapshot{EndOffset: end, count: p.count, src: &st.cowImage}
	s.head = append(s.head, &metadata.FeatureLevelRecord{Name: config.EligibleLeaderReplicasVersion, FeatureLevel: p.elr})
	s.head = appendConfigs(s.head, metadata.ResourceBroker, "", p.cluster)
	for _, id := range im.BrokerIDs() {
		if b := p.registration(id); b.registered {
			s.head = append(s.head, &metadata.RegisterBrokerRecord{BrokerID: id, IncarnationID: b.incarnation, BrokerEpoch: b.epoch,
				LogDirs: slices.Clone(b.logDirs), Fenced: b.fenced, InControlledShutdown: b.inControlled})
		}
	}
	var n int64
	for _, r := range s.head {
		n += int64(RecordBytes(r))
	}
	for t := range p.topics {
		top := &im.Topics[t]
		live, size, configs := p.topic(t)
		if !live {
			continue
		}
		st := snapTopic{name: top.Name, id: top.ID, first: top.First, size: size}
		st.recs = append(st.recs, &metadata.TopicRecord{Name: top.Name, TopicID: top.ID})
		st.recs = appendConfigs(st.recs, metadata.ResourceTopic, top.Name, configs)
		for _, r := range st.recs {
			n += int64(RecordBytes(r))
		}
		s.topics = append(s.topics, st)
		n += rangeBytes(top, size, p)
	}
	s.Bytes = withBatchHeaders(n)
	s.changed = make([]uint64, (s.count+63)/64)
	for i := range p.undo {
		s.keep(p.undo[i].idx, &p.undo[i].p) // the first note of a partition is its value at end
	}
	return s
}

// appendConfigs writes one resource's configs as ConfigRecords, as a metadata snapshot does.
func appendConfigs(out []metadata.Record, resType int8, name string, v *config.Values) []metadata.Record {
	for _, k := range v.Names() {
		val, _ := v.Get(k)
		text := metadata.ConfigText(val)
		out = append(out, &metadata.ConfigRecord{ResourceType: resType, ResourceName: name, Name: k, Value: &text})
	}
	return out
}

// minTrim is the smallest dead prefix worth dropping: of the shared image's journal, and of the
// retained committed log.
const minTrim = 4096
