package bridge

import (
	"encoding/binary"

	"github.com/kraftlab/kraftlab/cluster"
	"github.com/kraftlab/kraftlab/engine/metadata"
)

// A frame's partition arrays, kept from one frame to the next.
//
// The page asks for a frame every animation frame, and between two of them a handful of
// partitions change, out of up to 100,000. So the encoder keeps the previous frame's arrays
// (the ISR and state words in buf[:8n]) with each partition's contribution to the counts, and
// rewrites only the partitions changed since: their 8 bytes, and the counts less their old
// contribution plus their new one. The rewrite runs the same code as a full pass (put, count),
// so the two cannot write different bytes.
//
// What changed comes from the committed metadata log. The frame reads the cluster's committed
// image (cluster.View, control's CommittedView), and that image changes only by replaying
// committed entries, each once, in offset order, as the cluster first commits them: it never
// goes back (an uncommitted tail a new quorum leader truncates never reached it), and it is at
// CommittedEnd. So the entries from the previous frame's end to the current one are exactly
// what was replayed into it since, and a PartitionChangeRecord names the one partition it
// changed. The encoder falls back to a full pass whenever it cannot show that this holds:
//
//   - another cluster (a reset, a scrub back to a checkpoint, an import) or none kept yet: the
//     cluster is remembered by pointer, which keeps it alive (until the next frame, which a
//     scrub or a reset asks for at once), so that no other cluster can take its address;
//   - another layout (a topic created or deleted: partitions appear, or all of a topic's
//     leave the counts), or any record that changes partitions other than one at a time
//     (PartitionRecord, TopicRecord, RemoveTopicRecord, ClearElrRecord) or that this file does
//     not know;
//   - the committed log no longer holds the entries since the previous frame (trimmed);
//   - two live topics with one id (Replay finds a change's topic by id, and the encoder would
//     have to guess which one it meant; ids are random 128-bit values, so this never happens
//     in practice, but it is checked rather than assumed);
//   - more than an eighth of the partitions changed, when one sequential pass is as cheap.

// leadNone is a partCount.lead for a partition with no leader (an offline one). NoSlot there
// means a leader the frame has no slot for, counted nowhere, as before.
const leadNone = 0xFE

// partCount is what one partition adds to the frame's counts.
type partCount struct {
	// lead is the leader's broker slot, leadNone or NoSlot; isr the ISR's bitmask over
	// replica positions; under: the ISR is smaller than the replica list; live: the topic is
	// not deleted (a deleted topic's partitions count nowhere).
	lead, isr   uint8
	under, live bool
}

// brokerCounts are the counts of one broker slot.
type brokerCounts struct{ leaders, replicas, outOfSync int }

// partState is what buf[:8n] and the counts were built from.
type partState struct {
	// c is the cluster they describe (nil: none yet), end its committed end then, key the
	// layout key, n the partitions and stride the largest replication factor.
	c      *cluster.Cluster
	end    int64
	key    [3]int
	n      int
	stride int
	// exact: no two live topics share an id (see above).
	exact   bool
	parts   []partCount
	brokers []brokerCounts
	offline int
	under   int
	changed []int32 // reused by changes
	// Counters for the tests: frames built by a full pass and by rewriting changes, and the
	// partitions rewritten by the latest frame (-1 after a full pass).
	fulls, deltas, rewrote int
}

// fill brings the arrays and counts up to date with view and returns the attachment: 8n
// bytes, plus the replicas array when withLayout. slots is the number of broker slots.
func (e *frameEncoder) fill(c *cluster.Cluster, view *metadata.Image, key [3]int, slots int, withLayout bool) []byte {
	st := &e.parts
	if changed, ok := e.changes(c, view, key); ok {
		e.grow(8*st.n, 8*st.n)
		buf := e.buf[:8*st.n]
		for _, i := range changed {
			p := &view.Partitions[i]
			e.count(st.parts[i], p.Replicas(), -1)
			st.parts[i] = e.put(buf, st.n, int(i), p, view.Topics[p.Topic].Deleted)
			e.count(st.parts[i], p.Replicas(), +1)
		}
		st.deltas++
		st.rewrote = len(changed)
	} else {
		e.rebuild(c, view, key, slots)
	}
	st.end = c.Controllers().CommittedEnd()
	n, stride := st.n, st.stride
	if !withLayout {
		return e.buf[:8*n]
	}
	// The replicas array goes with the layout only, once per layout change (the page keeps
	// it), so it is written whole.
	size := 8*n + stride*n
	e.grow(size, 8*n)
	buf := e.buf[:size]
	for i := range view.Partitions {
		reps := view.Partitions[i].Replicas()
		row := buf[8*n+stride*i : 8*n+stride*(i+1)]
		for k := range row {
			row[k] = NoSlot
			if k < len(reps) && int(reps[k]) < len(e.slotByID) {
				row[k] = e.slotByID[reps[k]]
			}
		}
	}
	return buf
}

// changes lists the partitions that may have changed since the arrays were built (a partition
// may be listed twice: rewriting it is idempotent), or reports false when a full pass is due.
func (e *frameEncoder) changes(c *cluster.Cluster, view *metadata.Image, key [3]int) ([]int32, bool) {
	st := &e.parts
	if st.c != c || st.key != key || st.n != len(view.Partitions) || !st.exact || len(st.parts) != st.n {
		return nil, false
	}
	ctl := c.Controllers()
	end := ctl.CommittedEnd()
	st.changed = st.changed[:0]
	if end == st.end {
		return st.changed, true
	}
	if end < st.end {
		return nil, false // the committed log only grows; not this cluster's past, then
	}
	ces := ctl.CommittedSince(st.end)
	if int64(len(ces)) != end-st.end || ces[0].Offset != st.end {
		return nil, false // trimmed (SetTrimCommitted): the entries since are not all there
	}
	limit := st.n / 8
	for i := range ces {
		switch r := ces[i].Record.(type) {
		case *metadata.PartitionChangeRecord:
			// Found as Replay found it: by topic id, among live topics.
			t, ok := view.TopicByID(r.TopicID)
			if !ok || r.PartitionID < 0 || r.PartitionID >= view.Topics[t].Count {
				continue // Replay refused it: it changed nothing
			}
			if len(st.changed) >= limit {
				return nil, false
			}
			st.changed = append(st.changed, view.Topics[t].First+r.PartitionID)
		case *metadata.RegisterBrokerRecord, *metadata.BrokerRegistrationChangeRecord, *metadata.ConfigRecord,
			*metadata.FeatureLevelRecord, *metadata.NoOpRecord, *metadata.LeaderChangeMessage:
			// No partition's arrays or counts depend on these.
		default:
			return nil, false
		}
	}
	return st.changed, true
}

// rebuild fills the arrays and counts with one pass over every partition.
func (e *frameEncoder) rebuild(c *cluster.Cluster, view *metadata.Image, key [3]int, slots int) {
	st := &e.parts
	n := len(view.Partitions)
	st.c, st.key, st.n = c, key, n
	st.stride = 1
	for i := range view.Partitions {
		st.stride = max(st.stride, len(view.Partitions[i].Replicas()))
	}
	st.exact = true
	for t := range view.Topics {
		if top := &view.Topics[t]; !top.Deleted {
			if got, ok := view.TopicByID(top.ID); !ok || got != int32(t) {
				st.exact = false
			}
		}
	}
	if cap(st.parts) < n {
		st.parts = make([]partCount, n, n+n/4)
	}
	st.parts = st.parts[:n]
	st.brokers = append(st.brokers[:0], make([]brokerCounts, slots)...)
	st.offline, st.under = 0, 0
	e.grow(8*n, 0)
	buf := e.buf[:8*n]
	for i := range view.Partitions {
		p := &view.Partitions[i]
		pc := e.put(buf, n, i, p, view.Topics[p.Topic].Deleted)
		st.parts[i] = pc
		e.count(pc, p.Replicas(), +1)
	}
	st.fulls++
	st.rewrote = -1
}

// grow makes e.buf hold at least size bytes, keeping its first keep bytes.
func (e *frameEncoder) grow(size, keep int) {
	if cap(e.buf) >= size {
		return
	}
	buf := make([]byte, size, size+size/4)
	copy(buf[:keep], e.buf[:keep])
	e.buf = buf
}

// put writes partition i's ISR word and state bytes into buf (of n partitions) and returns
// what it adds to the counts.
func (e *frameEncoder) put(buf []byte, n, i int, p *metadata.Partition, deleted bool) partCount {
	reps := p.Replicas()
	var isrWord uint32
	var isrMask uint8
	e.scratch = p.AppendIsr(e.scratch[:0])
	for k, b := range e.scratch {
		pos := position(reps, b)
		isrWord |= uint32(pos+1) << (4 * k)
		isrMask |= 1 << pos
	}
	binary.LittleEndian.PutUint32(buf[4*i:], isrWord)
	st := buf[4*n+4*i : 4*n+4*i+4]
	st[0] = NoSlot
	if p.Leader >= 0 {
		if pos := position(reps, p.Leader); pos >= 0 {
			st[0] = uint8(pos)
		}
	}
	e.scratch = p.AppendElr(e.scratch[:0])
	st[1] = mask(reps, e.scratch)
	e.scratch = p.AppendLastKnownElr(e.scratch[:0])
	st[2] = mask(reps, e.scratch)
	st[3] = 0
	if p.Recovery() == metadata.Recovering {
		st[3] |= FlagRecovering
	}
	if deleted {
		st[3] |= FlagDeleted
	}
	pc := partCount{lead: leadNone, isr: isrMask, under: p.IsrLen() < len(reps), live: !deleted}
	if p.Leader >= 0 {
		pc.lead = e.slot(p.Leader)
	}
	return pc
}

// count adds (sign +1) or takes back (-1) one partition's contribution to the counts: its
// leader's leadership (or its being offline), its being under-replicated, and each replica,
// in sync or not. reps is its replica list, which never changes once created.
func (e *frameEncoder) count(pc partCount, reps []int32, sign int) {
	if !pc.live {
		return
	}
	st := &e.parts
	brokers, slots := st.brokers, e.slotByID
	switch pc.lead {
	case leadNone:
		st.offline += sign
	case NoSlot:
	default:
		brokers[pc.lead].leaders += sign
	}
	if pc.under {
		st.under += sign
	}
	for k, b := range reps {
		if b < 0 || int(b) >= len(slots) || slots[b] == NoSlot {
			continue
		}
		bc := &brokers[slots[b]]
		bc.replicas += sign
		if pc.isr&(1<<k) == 0 {
			bc.outOfSync += sign
		}
	}
}
