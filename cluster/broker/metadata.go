package broker

import (
	"fmt"
	"math"
	"slices"

	"github.com/kraftlab/kraftlab/engine/config"
	"github.com/kraftlab/kraftlab/engine/metadata"
)

// AppliedOffset is the last metadata offset a broker has applied; its heartbeats report it.
func (f *Fleet) AppliedOffset(id int32) int64 {
	if s, ok := f.slotOf[id]; ok {
		return f.brokers[s].applied
	}
	return -1
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
	f.pub.loadView(slot)
	if b.active {
		f.roles.touchAll(f.replicaParts(b.id))
	}
	return nil
}

// reserve grows the per-partition slices once for the partitions entries create, so that a
// bootstrap of a million partitions does not copy them over and over.
func (pb *publisher) reserve(entries []metadata.Entry) {
	f := pb.f
	parts, reps := 0, 0
	for i := range entries {
		if r, ok := entries[i].Record.(*metadata.PartitionRecord); ok && entries[i].Offset > pb.published {
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
	growAll(parts, &f.isr.alter)
	growAll(parts, &f.epochSt)
	growAll(parts, &f.route)
	growAll(parts, &f.isr.mark)
	growAll(reps, &c.rid)
	growAll(reps, &c.rslot)
	growAll(reps, &f.rp)
	growAll(reps, &f.cu.hgen)
	growAll(reps, &f.lastCU)
}

// growBy makes room for n more elements, at least doubling the capacity when it grows: the
// committed log reaches the fleet in many batches, and growing each by just what it needs
// would copy the slices once per batch.
func growBy[T any](s []T, n int) []T {
	if cap(s)-len(s) >= n {
		return s
	}
	return slices.Grow(s, max(n, len(s)))
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
func (pb *publisher) addPartition(idx int32, t int32, reps []int32) {
	f := pb.f
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
	f.isr.alter = append(f.isr.alter, alterProposal{})
	f.route = append(f.route, route{changed: f.now(), rbase: base, rf: uint8(len(reps))})
	f.isr.mark = append(f.isr.mark, 0)
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
		f.cu.hgen = append(f.cu.hgen, 0)
		f.lastCU = append(f.lastCU, f.now())
	}
}

// Prefill gives every published partition a full local log on every replica, as a cluster that
// has been running for a while has: sizes[p] bytes for the partitions sizes gives (measured on a
// real cluster: an imported one's), LocalRetentionSec seconds of its class's produce for the
// others. The sizes stay what an empty disk copies (logStart). Call it after publishing the
// starting cluster's records and before booting brokers.
func (f *Fleet) Prefill(sizes []float64) error {
	for i, s := range sizes {
		if !(s >= 0) || math.IsInf(s, 0) {
			return fmt.Errorf("broker: partition %d's size is %g; must be a finite number of bytes ≥ 0", i, s)
		}
	}
	f.sizes = slices.Clone(sizes)
	now := f.now()
	for p := range f.pt {
		size := f.sizes.of(int32(p), f.clsRate[f.pt[p].cls]*f.p.LocalRetentionSec)
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
	return nil
}

// queuePartition queues a partition's new state for each broker holding a replica of it.
func (pb *publisher) queuePartition(off int64, idx int32) {
	f := pb.f
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
			b.queue.push(&pb.blocks, ch)
		}
	}
}

// queueBroker queues a broker registration's new state for every broker.
func (pb *publisher) queueBroker(off int64, slot int) {
	f := pb.f
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
	ch := change{off: off, kind: chBroker, slot: int16(slot), brokerEpoch: reg.epoch, flags: flags}
	for i := range f.brokers {
		f.brokers[i].queue.push(&pb.blocks, ch)
	}
}

// applyUpTo applies a broker's queued changes up to offset. Like Kafka's metadata publisher,
// which hands the broker one delta per batch, it first updates the broker's view with every
// change and only then reacts, so that a leader sees an ISR change and the fencing written in
// the same batch together.
func (pb *publisher) applyUpTo(slot int, offset int64) {
	f := pb.f
	b := &f.brokers[slot]
	pb.tgen++
	pb.touchBuf, pb.peerBuf = pb.touchBuf[:0], pb.peerBuf[:0]
	for {
		// A block of the queue at a time; applying queues nothing, so chs stays valid.
		chs := b.queue.front()
		k := 0
		for ; k < len(chs) && chs[k].off <= offset; k++ {
			if k%warmChunk == 0 {
				f.warm.warmChanges(chs[k:min(k+warmChunk, len(chs))])
			}
			pb.applyChange(b, &chs[k])
		}
		b.queue.popN(&pb.blocks, k)
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
	touched := pb.touchBuf
	for i, p := range touched {
		if i%warmChunk == 0 {
			f.warm.warmParts(touched[i:min(i+warmChunk, len(touched))])
		}
		switch f.pt[p].tkind {
		case touchRole:
			f.roles.partitionTouchedBy(p, slot)
		case touchLeader:
			// Only the ISR or partition epoch changed; it matters to the serving leader alone.
			if ld := f.pt[p].leader; ld >= 0 && int(f.rp[f.pt[p].rbase+int32(ld)].rb) == slot {
				f.roles.leaderViewChanged(p)
			}
		}
	}
	for _, q := range pb.peerBuf {
		f.isr.recheckWatch(slot, q)
	}
}

// applyChange updates broker b's view with one queued change. A partition that needs a
// reaction once the whole batch is applied goes into touchBuf (once a batch, with the
// strongest reaction asked of it); a peer whose registration changed goes into peerBuf.
func (pb *publisher) applyChange(b *broker, ch *change) {
	f := pb.f
	switch ch.kind {
	case chPartition:
		if kind := pb.applyPartition(ch); kind > 0 {
			p := ch.part
			if f.pt[p].tmark != pb.tgen {
				f.pt[p].tmark, f.pt[p].tkind = pb.tgen, 0
				pb.touchBuf = append(pb.touchBuf, p)
			}
			f.pt[p].tkind = max(f.pt[p].tkind, kind)
		}
	case chBroker:
		b.peers[ch.slot] = peerView{epoch: ch.brokerEpoch, registered: ch.flags&flRegistered != 0,
			fenced: ch.flags&flFenced != 0, inCS: ch.flags&flInCS != 0}
		pb.peerBuf = append(pb.peerBuf, ch.slot)
	}
}

// Reactions a partition change asks of the broker that applied it.
const (
	touchNone   uint8 = iota
	touchLeader       // the serving leader's committed ISR or partition epoch changed
	touchRole         // the leader or leader epoch changed: roles may move
)

// loadView copies the published state into a broker's view and drops its queue.
func (pb *publisher) loadView(slot int) {
	f := pb.f
	b := &f.brokers[slot]
	c := &f.cat
	b.queue.drop(&pb.blocks)
	b.applied = pb.published
	for q := range f.brokers {
		reg := &c.regs[q]
		b.peers[q] = peerView{epoch: reg.epoch, registered: reg.registered, fenced: reg.fenced, inCS: reg.inCS}
	}
	parts := c.replicaOf[slot]
	for i, p := range parts {
		if i%warmChunk == 0 {
			f.warm.warmView(parts[i:min(i+warmChunk, len(parts))])
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

// applyPartition updates a broker's view of a partition and says what reaction it needs.
func (pb *publisher) applyPartition(ch *change) uint8 {
	f := pb.f
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
func (pb *publisher) configChanged(r *metadata.ConfigRecord) {
	f := pb.f
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
			f.roles.updateProduce(p)
		}
	}
}
