package broker

import (
	"fmt"

	"github.com/kraftlab/kraftlab/engine/config"
	"github.com/kraftlab/kraftlab/engine/metadata"
	"github.com/kraftlab/kraftlab/internal/hugepage"
)

// Publish decodes committed metadata entries into the fleet's shared catalog and queues, for
// each broker, the changes it must see. Entries already published are skipped, so the assembly may
// hand the same entries to several brokers. Entries must continue the published log without a
// gap. ApplyMetadata publishes too; Publish alone is for entries no running broker applies yet
// (while every broker is down) and for the starting cluster's bootstrap records.
func (f *Fleet) Publish(entries []metadata.Entry) error {
	if len(entries) > 1024 {
		f.reserve(entries)
	}
	for i := range entries {
		if i%warmChunk == 0 {
			f.warmPublish(entries[i:min(i+warmChunk, len(entries))])
		}
		e := entries[i]
		if e.Offset <= f.published {
			continue
		}
		if f.published >= 0 && e.Offset != f.published+1 {
			return fmt.Errorf("broker: metadata entry at offset %d does not follow the published offset %d; entries must come in log order without gaps", e.Offset, f.published)
		}
		if err := f.publishOne(e); err != nil {
			return err
		}
		f.published = e.Offset
	}
	return nil
}

// Published is the offset of the last published metadata entry (-1 before any).
func (f *Fleet) Published() int64 { return f.published }

// AppliedOffset is the last metadata offset a broker has applied; its heartbeats report it.
func (f *Fleet) AppliedOffset(id int32) int64 {
	if s, ok := f.slotOf[id]; ok {
		return f.brokers[s].applied
	}
	return -1
}

// ApplyMetadata makes broker id apply committed metadata up to the last of entries (which are
// published first if needed), in log order, as its metadata loader would. The broker's view of
// its partitions and of the other brokers changes, and its replicas react: becoming leader or
// follower, truncating, moving between fetchers. A broker that is NOT_RUNNING cannot apply
// metadata (ErrNotRunning).
func (f *Fleet) ApplyMetadata(id int32, entries []metadata.Entry) error {
	b, slot, err := f.slot(id)
	if err != nil {
		return err
	}
	if b.state == NotRunning {
		return fmt.Errorf("broker: ApplyMetadata(%d): %w (state %s)", id, ErrNotRunning, b.state)
	}
	if len(entries) == 0 {
		return nil
	}
	if err := f.Publish(entries); err != nil {
		return err
	}
	f.applyUpTo(slot, entries[len(entries)-1].Offset)
	return nil
}

// LoadSnapshot sets a broker's metadata view to the published state, as loading a metadata
// snapshot does: the broker skips straight to the newest state.
func (f *Fleet) LoadSnapshot(id int32) error {
	b, slot, err := f.slot(id)
	if err != nil {
		return err
	}
	if b.state == NotRunning {
		return fmt.Errorf("broker: LoadSnapshot(%d): %w", id, ErrNotRunning)
	}
	f.loadView(slot)
	if b.active {
		f.touchAll(f.replicaParts(b.id))
	}
	return nil
}

// reserve grows the per-partition slices once for the partitions entries create, so that a
// bootstrap of a million partitions does not copy them over and over.
func (f *Fleet) reserve(entries []metadata.Entry) {
	parts, reps := 0, 0
	for i := range entries {
		if r, ok := entries[i].Record.(*metadata.PartitionRecord); ok && entries[i].Offset > f.published {
			parts++
			reps += len(r.Replicas)
		}
	}
	if parts == 0 {
		return
	}
	// Through growAll, so that each element type's growBy is instantiated once, not inlined at
	// every call site (which were 35 KB of the page's wasm); the order does not matter.
	c := &f.cat
	growAll(parts, &f.pt)
	growAll(parts, &c.parts)
	growAll(parts, &f.alter)
	growAll(parts, &f.epochSt)
	growAll(parts, &f.route)
	growAll(parts, &f.mark)
	growAll(reps, &c.rid)
	growAll(reps, &c.rslot)
	growAll(reps, &f.rp)
	growAll(reps, &f.hgen)
	growAll(reps, &f.lastCU)
}

// growBy makes room for n more elements, at least doubling the capacity when it grows: the
// committed log reaches the fleet in many batches, and growing each by just what it needs
// would copy the slices once per batch.
func growBy[T any](s []T, n int) []T {
	if cap(s)-len(s) >= n {
		return s
	}
	return hugepage.Grow(s, max(n, len(s)))
}

// growAll applies growBy to each slice. Not inlined, for the same reason reserve groups its
// slices: this is boot-time code, and each inlined copy costs the page's wasm bytes.
//
//go:noinline
func growAll[T any](n int, ss ...*[]T) {
	for _, s := range ss {
		*s = growBy(*s, n)
	}
}

// addPartition grows the per-partition and per-replica slices for a new partition of topic t.
func (f *Fleet) addPartition(idx int32, t int32, reps []int32) {
	c := &f.cat
	base := int32(len(f.rp))
	if rf := uint8(len(reps)); idx == 0 {
		f.uniformRF = rf
	} else if rf != f.uniformRF || base != idx*int32(rf) {
		f.uniformRF = 0
	}
	cl := f.rates.ClassOf(idx)
	if cl < 0 || cl >= f.k {
		cl = 0 // a Rates bug; keep the model running with the first class
	}
	pnum := c.topics[t].count
	c.parts = append(c.parts, cpart{pnum: pnum, leader: -1, rbase: base, rf: uint8(len(reps))})
	f.pt = append(f.pt, partState{rbase: base, rf: uint8(len(reps)), cls: uint8(cl), fetcher: f.fetcherOf(t, pnum),
		topic: t, leader: -1, lastLd: -1, lastEp: -1, servEp: -1, hwFrozen: true, alterSt: alNone})
	f.epochSt = append(f.epochSt, 0)
	f.alter = append(f.alter, alterProposal{})
	f.route = append(f.route, route{changed: f.now(), rbase: base, rf: uint8(len(reps))})
	f.mark = append(f.mark, 0)
	for _, id := range reps {
		s, ok := f.slotOf[id]
		if !ok {
			s = -1
		} else {
			c.replicaOf[s] = append(c.replicaOf[s], idx)
		}
		c.rid = append(c.rid, id)
		c.rslot = append(c.rslot, s)
		f.rp = append(f.rp, replicaState{rpart: idx, rb: s, rstate: rsDead, grp: -1,
			view: replicaView{leader: -1, leaderEpoch: -1, partEpoch: -1}})
		f.hgen = append(f.hgen, 0)
		f.lastCU = append(f.lastCU, f.now())
	}
}

// Prefill gives every published partition a full local log (localBytes: its given size, or
// LocalRetentionSec seconds of its class's produce) on every replica, as a cluster that has been running for a while has. Call
// it after publishing the starting cluster's records and before booting brokers.
func (f *Fleet) Prefill() {
	now := f.now()
	for p := range f.pt {
		size := f.localBytes(int32(p))
		f.pt[p].leoBase = size
		f.pt[p].volBase = f.vol(int(f.effClass(int32(p))), now)
		f.epochSt[p] = size
		f.pt[p].hwVal = size
		base, n := f.pt[p].rbase, int32(f.pt[p].rf)
		for r := base; r < base+n; r++ {
			if f.rp[r].rstate == rsDead || f.rp[r].rstate == rsStalled {
				f.rp[r].leo = size
			}
		}
	}
}

// queuePartition queues a partition's new state for each broker holding a replica of it.
func (f *Fleet) queuePartition(off int64, idx int32) {
	c := &f.cat
	cp := &c.parts[idx]
	ch := change{off: off, part: idx, kind: chPartition, leader: -1, isr: cp.isr,
		leaderEpoch: cp.le, partEpoch: cp.pe}
	for i, id := range c.catReplicas(idx) {
		if id == cp.leader {
			ch.leader = int8(i)
		}
	}
	// Each broker's copy names its own replica slot, so that applying it need not search the
	// partition's replicas for the broker again. The catalog alone says where they are.
	base, n := cp.rbase, int32(cp.rf)
	for r := base; r < base+n; r++ {
		if s := c.rslot[r]; s >= 0 {
			b := &f.brokers[s]
			ch.rep = r
			b.queue.push(&f.blocks, ch)
		}
	}
}

// queueBroker queues a broker registration's new state for every broker.
func (f *Fleet) queueBroker(off int64, slot int) {
	reg := &f.cat.regs[slot]
	var flags uint8
	if reg.registered {
		flags |= flRegistered
	}
	if reg.fenced {
		flags |= flFenced
	}
	if reg.inCS {
		flags |= flInCS
	}
	ch := brokerChange(off, slot, reg.epoch, flags)
	for i := range f.brokers {
		f.brokers[i].queue.push(&f.blocks, ch)
	}
}

// applyUpTo applies a broker's queued changes up to offset. Like Kafka's metadata publisher,
// which hands the broker one delta per batch, it first updates the broker's view with every
// change and only then reacts, so that a leader sees an ISR change and the fencing written in
// the same batch together.
func (f *Fleet) applyUpTo(slot int, offset int64) {
	b := &f.brokers[slot]
	f.tgen++
	f.touchBuf, f.peerBuf = f.touchBuf[:0], f.peerBuf[:0]
	for {
		// A block of the queue at a time; applying queues nothing, so chs stays valid.
		chs := b.queue.front()
		k := 0
		for ; k < len(chs) && chs[k].off <= offset; k++ {
			if k%warmChunk == 0 {
				f.warmChanges(chs[k:min(k+warmChunk, len(chs))])
			}
			f.applyChange(b, &chs[k])
		}
		b.queue.popN(&f.blocks, k)
		if k == 0 || k < len(chs) {
			break
		}
	}
	if offset > b.applied {
		b.applied = offset
	}
	if !b.active {
		return
	}
	touched := f.touchBuf
	for i, p := range touched {
		if i%warmChunk == 0 {
			f.warmParts(touched[i:min(i+warmChunk, len(touched))])
		}
		switch f.pt[p].tkind {
		case touchRole:
			f.partitionTouchedBy(p, slot)
		case touchLeader:
			// Only the ISR or partition epoch changed; it matters to the serving leader alone.
			if ld := f.pt[p].leader; ld >= 0 && int(f.rp[f.pt[p].rbase+int32(ld)].rb) == slot {
				f.leaderViewChanged(p)
			}
		}
	}
	for _, q := range f.peerBuf {
		f.recheckWatch(slot, q)
	}
}

// applyChange updates broker b's view with one queued change. A partition that needs a
// reaction once the whole batch is applied goes into touchBuf (once a batch, with the
// strongest reaction asked of it); a peer whose registration changed goes into peerBuf.
func (f *Fleet) applyChange(b *broker, ch *change) {
	switch ch.kind {
	case chPartition:
		if kind := f.applyPartition(ch); kind > 0 {
			p := ch.part
			if f.pt[p].tmark != f.tgen {
				f.pt[p].tmark, f.pt[p].tkind = f.tgen, 0
				f.touchBuf = append(f.touchBuf, p)
			}
			f.pt[p].tkind = max(f.pt[p].tkind, kind)
		}
	case chBroker:
		b.peers[ch.part] = peerView{epoch: ch.brokerEpoch(), registered: ch.flags&flRegistered != 0,
			fenced: ch.flags&flFenced != 0, inCS: ch.flags&flInCS != 0}
		f.peerBuf = append(f.peerBuf, int16(ch.part))
	}
}

// bigBuffer is the capacity above which a per-broker buffer (the AlterPartition batch's) is
// released once empty rather than kept for reuse: a burst of ISR changes grows it once.
const bigBuffer = 4096

// Reactions a partition change asks of the broker that applied it.
const (
	touchNone   uint8 = iota
	touchLeader       // the serving leader's committed ISR or partition epoch changed
	touchRole         // the leader or leader epoch changed: roles may move
)

// loadView copies the published state into a broker's view and drops its queue.
func (f *Fleet) loadView(slot int) {
	b := &f.brokers[slot]
	c := &f.cat
	b.queue.drop(&f.blocks)
	b.applied = f.published
	for q := range f.brokers {
		reg := &c.regs[q]
		b.peers[q] = peerView{epoch: reg.epoch, registered: reg.registered, fenced: reg.fenced, inCS: reg.inCS}
	}
	parts := c.replicaOf[slot]
	for i, p := range parts {
		if i%warmChunk == 0 {
			f.warmView(parts[i:min(i+warmChunk, len(parts))])
		}
		r := f.replicaOf(p, slot)
		if r < 0 || f.pt[p].deleted {
			continue
		}
		f.rp[r].view.leaderEpoch, f.rp[r].view.partEpoch, f.rp[r].view.isr, f.rp[r].view.leader = c.parts[p].le, c.parts[p].pe, c.parts[p].isr, -1
		for i, id := range f.replicas(p) {
			if id == c.parts[p].leader {
				f.rp[r].view.leader = int8(i)
			}
		}
		f.rp[r].view.in = true
	}
}

// replicaOf is the replica slot of broker slot in partition p, or -1.
func (f *Fleet) replicaOf(p int32, slot int) int32 {
	base, n := f.pt[p].rbase, int32(f.pt[p].rf)
	for r := base; r < base+n; r++ {
		if int(f.rp[r].rb) == slot {
			return r
		}
	}
	return -1
}

// applyPartition updates a broker's view of a partition and says what reaction it needs.
func (f *Fleet) applyPartition(ch *change) uint8 {
	p := ch.part
	if f.pt[p].deleted {
		return touchNone
	}
	r := ch.rep // queuePartition queued it for this broker's replica
	roleSame := f.rp[r].view.in && f.rp[r].view.leader == ch.leader && f.rp[r].view.leaderEpoch == ch.leaderEpoch
	f.rp[r].view = replicaView{leader: ch.leader, isr: ch.isr, in: true, leaderEpoch: ch.leaderEpoch, partEpoch: ch.partEpoch}
	switch {
	case !roleSame:
		return touchRole
	case f.pt[p].leader >= 0 && f.pt[p].rbase+int32(f.pt[p].leader) == r:
		return touchLeader
	}
	// A follower seeing only an ISR change does nothing: its fetching depends on the leader
	// and epoch alone.
	return touchNone
}

// configChanged re-reads min.insync.replicas for the partitions a ConfigRecord touches.
func (f *Fleet) configChanged(r *metadata.ConfigRecord) {
	if r.Name != config.MinInsyncReplicas {
		return
	}
	for i := range f.topicMinIsr {
		f.topicMinIsr[i] = -1 // resolved again on next use
	}
	lo, hi := int32(0), int32(len(f.pt))
	if r.ResourceType == metadata.ResourceTopic {
		t, ok := f.cat.byName[r.ResourceName]
		if !ok {
			return
		}
		lo, hi = f.cat.topics[t].first, f.cat.topics[t].first+f.cat.topics[t].count
	}
	for p := lo; p < hi; p++ {
		if !f.pt[p].deleted && f.pt[p].leader >= 0 {
			f.updateProduce(p)
		}
	}
}

// minIsr resolves min.insync.replicas for a partition: topic, committed cluster configs, then
// the brokers' static configs, then Kafka's default.
func (f *Fleet) minIsr(p int32) int {
	t := f.pt[p].topic
	for int(t) >= len(f.topicMinIsr) {
		f.topicMinIsr = append(f.topicMinIsr, -1)
	}
	if v := f.topicMinIsr[t]; v >= 0 {
		return int(v)
	}
	top := &f.cat.topics[t]
	v := int32(config.Int64(config.MinInsyncReplicas, &top.configs, &f.cat.cluster, &f.static))
	f.topicMinIsr[t] = v
	return int(v)
}
