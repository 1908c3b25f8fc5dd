package broker

// watchIfIsr puts a follower that stopped being caught up on its leader's watch list if it is
// in the maximal ISR, so the isr-expiration task looks at it.
func (ik *isrKeeper) watchIfIsr(r int32) {
	f := ik.f
	p := f.rp[r].rpart
	if ld := f.pt[p].leader; ld >= 0 && f.pt[p].isrMax&(1<<(r-f.pt[p].rbase)) != 0 {
		ik.addWatch(f.pt[p].rbase+int32(ld), r)
	}
}

// addWatch puts follower r on the watch list of its partition's leader, replica slot lr,
// unless it is there already. A replica another broker's list still holds (the partition's
// leadership moved since) joins this one's too; the old entry is stale from now on (see
// replicaState.watchLd).
func (ik *isrKeeper) addWatch(lr, r int32) {
	f := ik.f
	slot := int(f.rp[lr].rb)
	if ik.watching(slot, r) {
		return
	}
	f.rp[r].watchLd = int8(lr - r)
	b := &f.brokers[slot]
	b.watch = append(b.watch, r)
}

// watching reports whether broker slot's watch list holds replica r for itself: an entry of r
// in that list is current, not left over from an earlier leadership.
func (ik *isrKeeper) watching(slot int, r int32) bool {
	f := ik.f
	d := f.rp[r].watchLd
	return d != 0 && int(f.rp[r+int32(d)].rb) == slot
}

// watchRelevant reports whether replica r still needs its leader (broker slot) to act: an ISR
// member that is not caught up (shrink candidate) or a caught-up follower outside the ISR
// (expansion candidate).
func (ik *isrKeeper) watchRelevant(slot int, r int32) bool {
	f := ik.f
	p := f.rp[r].rpart
	ld := f.pt[p].leader
	if ld < 0 || int(f.rp[f.pt[p].rbase+int32(ld)].rb) != slot || r == f.pt[p].rbase+int32(ld) {
		return false
	}
	in := f.pt[p].isrMax&(1<<(r-f.pt[p].rbase)) != 0
	return in != (f.rp[r].rstate == rsTracking)
}

// isrTick is the isr-expiration task (every replica.lag.time.max.ms / 2): shrink the ISR of
// every led partition with members not caught up for more than replica.lag.time.max.ms. Only
// the watched replicas can be such members, so the task costs what changed, not what is led.
func (ik *isrKeeper) isrTick(slot int) {
	f := ik.f
	b := &f.brokers[slot]
	b.isrTickAt = f.now() + f.isrPeriod()
	b.isrTick = f.at(b.isrTickAt, evIsrTick, int32(slot), int64(b.gen))
	ik.markGen++
	// maybeShrink may append to b.watch (through addWatch) while this loop compacts it in
	// place; index b.watch afresh each time, since an append may move it.
	n, kept := len(b.watch), 0
	for i := 0; i < n; i++ {
		if i%warmChunk == 0 {
			f.warm.warmWatch(b.watch[i:min(i+warmChunk, n)])
		}
		r := b.watch[i]
		if !ik.watching(slot, r) {
			continue // stale: another leader watches it now, or nobody needs to
		}
		if !ik.watchRelevant(slot, r) {
			f.rp[r].watchLd = 0
			continue
		}
		b.watch[kept] = r
		kept++
		if p := f.rp[r].rpart; ik.mark[p] != ik.markGen {
			ik.mark[p] = ik.markGen
			ik.maybeShrink(p)
		}
	}
	added := copy(b.watch[kept:], b.watch[n:])
	b.watch = b.watch[:kept+added]
}

// maybeShrink is Partition.maybeShrinkIsr: drop ISR members whose lastCaughtUpTime is older
// than replica.lag.time.max.ms, unless an ISR change is in flight.
func (ik *isrKeeper) maybeShrink(p int32) {
	f := ik.f
	if f.pt[p].alterSt != alNone || f.pt[p].leader < 0 {
		return
	}
	now := f.now()
	base, n, ld := f.pt[p].rbase, int32(f.pt[p].rf), int32(f.pt[p].leader)
	var out uint8
	for i := int32(0); i < n; i++ {
		r := base + i
		if i == ld || f.pt[p].isrMax&(1<<i) == 0 {
			continue
		}
		if f.rp[r].rstate != rsTracking && now-f.lastCU[r] > f.p.ReplicaLagTimeMaxMs {
			out |= 1 << i
		}
	}
	if out != 0 {
		ik.propose(p, f.pt[p].isrMax&^out, false)
		return
	}
	ik.maybeExpand(p)
}

// maybeExpand is Partition.maybeExpandIsr: add one caught-up, ISR-eligible follower (not
// fenced, not in controlled shutdown, with the broker epoch the leader's metadata has), unless
// an ISR change is in flight. Ineligible caught-up followers are watched until their broker's
// registration changes.
func (ik *isrKeeper) maybeExpand(p int32) {
	f := ik.f
	ld := f.pt[p].leader
	if ld < 0 || f.pt[p].alterSt != alNone {
		return
	}
	base, n := f.pt[p].rbase, int32(f.pt[p].rf)
	lb := int(f.rp[base+int32(ld)].rb)
	for i := int32(0); i < n; i++ {
		r := base + i
		if int8(i) == ld || f.pt[p].isrMax&(1<<i) != 0 || f.rp[r].rstate != rsTracking {
			continue
		}
		if !ik.eligible(lb, int(f.rp[r].rb)) {
			ik.addWatch(base+int32(ld), r)
			continue
		}
		ik.propose(p, f.pt[p].isrMax|1<<i, true)
		return
	}
}

// eligible is isReplicaIsrEligible as the leader (broker slot lb) sees follower broker fb.
func (ik *isrKeeper) eligible(lb, fb int) bool {
	f := ik.f
	pv := &f.brokers[lb].peers[fb]
	fbr := &f.brokers[fb]
	return pv.registered && !pv.fenced && !pv.inCS && fbr.registered && pv.epoch == fbr.epoch
}

// recheckWatch retries expansions for caught-up followers on broker peer after the leader
// (slot) saw peer's registration change. Only a change that makes peer ISR-eligible can let
// one in: Kafka's leader looks again at a follower's next fetch (maybeExpandIsr), and for a
// follower that is still fenced, in controlled shutdown or of another broker epoch, it
// refuses again. So a change that leaves peer ineligible costs nothing here.
func (ik *isrKeeper) recheckWatch(slot int, peer int16) {
	f := ik.f
	if !ik.eligible(slot, int(peer)) {
		return
	}
	b := &f.brokers[slot]
	for i := 0; i < len(b.watch); i++ {
		if i%warmChunk == 0 {
			f.warm.warmWatch(b.watch[i:min(i+warmChunk, len(b.watch))])
		}
		r := b.watch[i]
		if f.rp[r].rb == peer && f.rp[r].rstate == rsTracking && ik.watching(slot, r) {
			ik.maybeExpand(f.rp[r].rpart)
		}
	}
}

// propose queues an AlterPartition for p with the ISR mask. An expansion enlarges the maximal
// ISR at once (prepareIsrExpand); a shrink keeps it until the change is committed.
func (ik *isrKeeper) propose(p int32, mask uint8, expand bool) {
	f := ik.f
	lr := f.pt[p].rbase + int32(f.pt[p].leader)
	slot := int(f.rp[lr].rb)
	f.pt[p].alterSt = alQueued
	ik.alter[p] = alterProposal{le: f.rp[lr].view.leaderEpoch, pe: f.rp[lr].view.partEpoch, isr: mask, expand: expand}
	if expand {
		f.setIsrMax(p, mask)
	}
	b := &f.brokers[slot]
	b.alterQueue = append(b.alterQueue, p)
	if !b.alterBusy && !b.alterFlush {
		b.alterFlush = true
		f.at(f.now(), evAlterFlush, int32(slot), int64(b.gen))
	}
}

// appendProposedIsr appends the ISR of p's proposal to dst in the order Kafka's leader sends
// it: the committed ISR's members that stay, in the committed order, then the one joining.
// Partition.prepareIsrExpand sends partitionState.isr + newInSyncReplicaId and
// prepareIsrShrink partitionState.isr -- outOfSyncReplicaIds; Scala's sets of up to four
// members keep insertion order, so broker 1 rejoining [2,0] is sent, and recorded, as [2,0,1].
func (ik *isrKeeper) appendProposedIsr(dst []int32, p int32) []int32 {
	f := ik.f
	reps, mask := f.replicas(p), ik.alter[p].isr
	ord := f.cat.parts[p].isrOrder
	var listed uint8
	for i := range ord.len() {
		if pos := ord.at(i); mask&(1<<pos) != 0 {
			dst = append(dst, reps[pos])
			listed |= 1 << pos
		}
	}
	for i := range reps {
		if mask&^listed&(1<<i) != 0 {
			dst = append(dst, reps[i])
		}
	}
	return dst
}

func popcount(m uint8) int {
	n := 0
	for ; m != 0; m &= m - 1 {
		n++
	}
	return n
}

// watchPartition watches every follower of p whose ISR membership and catch-up state disagree.
func (ik *isrKeeper) watchPartition(slot int, p int32) {
	f := ik.f
	base, n := f.pt[p].rbase, int32(f.pt[p].rf)
	for r := base; r < base+n; r++ {
		if ik.watchRelevant(slot, r) {
			ik.addWatch(f.pt[p].rbase+int32(f.pt[p].leader), r)
		}
	}
}

// caughtUp is a follower reaching the leader's log end: it is caught up now, and the leader
// considers adding it to the ISR.
func (ik *isrKeeper) caughtUp(r int32) {
	f := ik.f
	f.lastCU[r] = f.now()
	p := f.rp[r].rpart
	if ld := f.pt[p].leader; ld >= 0 && f.pt[p].isrMax&(1<<(r-f.pt[p].rbase)) == 0 {
		ik.maybeExpand(p)
	}
}
