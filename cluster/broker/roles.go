package broker

import "math/bits"

// freezeAll stops a partition: every replica's log end is frozen where it is now, catching-up
// followers leave their sessions, and the partition has no serving leader until startLeader.
// It returns the leader's log end at this moment.
func (ro *roles) freezeAll(p int32) float64 {
	f := ro.f
	now := f.now()
	oldL := f.leaderEnd(p, now)
	f.contrib(p, -1)
	if f.pt[p].leader >= 0 && !f.pt[p].deleted {
		f.countOutOfSync(p, -1) // no serving leader from here on; the states below change uncounted
	}
	base, n := f.pt[p].rbase, int32(f.pt[p].rf)
	for r := base; r < base+n; r++ {
		switch f.rp[r].rstate {
		case rsLeader, rsTracking:
			f.rp[r].leo = f.pos(r, now)
			if f.rp[r].rstate == rsTracking {
				f.lastCU[r] = now
			}
		case rsCatching:
			f.rp[r].leo = f.pos(r, now)
			f.cu.leaveGroup(r)
		default:
			continue
		}
		f.rp[r].rstate = rsStalled
	}
	f.pt[p].leader, f.pt[p].produce, f.pt[p].leoBase, f.pt[p].servEp = -1, false, oldL, -1
	return oldL
}

// takeover makes replica position i the partition's serving leader (i = -1: none). Records
// above the new leader's log end are truncated everywhere; those that were acknowledged count
// as lost: every one under acks=1, and under acks=all those below the old high watermark,
// which only an unclean election can lose.
func (ro *roles) takeover(p int32, i int8) {
	f := ro.f
	now := f.now()
	hwOld := f.hw(p, now)
	hadLeader := f.pt[p].leader >= 0
	if hadLeader {
		f.pt[p].lastEp = f.pt[p].servEp
	}
	oldL := ro.freezeAll(p)
	if i < 0 {
		f.pt[p].hwFrozen, f.pt[p].hwVal = true, hwOld
		if hadLeader {
			f.route[p].changed = now
		}
		f.pt[p].alterSt = alNone
		return
	}
	r := f.pt[p].rbase + int32(i)
	fn := f.rp[r].leo
	var lost float64
	if fn < oldL {
		acked := oldL - fn
		if f.p.Acks == AcksAll {
			acked = max(0, hwOld-fn)
		}
		if hwOld > fn+1e-6*max(1, hwOld) {
			f.stats.UncleanTakeovers++
		}
		lost = acked / f.rates.RecordBytes()
		f.stats.LostAckedRecords += lost
	}
	ro.startLeader(p, i)
	if f.p.Acks == AcksAll && hwOld-fn > LossToleranceBytes(hwOld) {
		if ll, ok := f.lis.(LossListener); ok {
			ll.AckedRecordsLost(AckedLoss{Partition: p, Topic: f.topicName(p), PartitionID: f.cat.parts[p].pnum,
				Leader: f.cat.rid[r], LeaderEpoch: f.pt[p].servEp, PrevLeaderEpoch: f.pt[p].lastEp,
				HighWatermark: hwOld, LogEnd: fn, Records: lost}, now)
		}
	}
	if last := f.pt[p].lastLd; last >= 0 && last != i {
		f.stats.LeaderChanges++
	}
	f.pt[p].lastLd = i
}

// startLeader sets up replica position i, whose log end is frozen in leo, as the serving
// leader: the leader-epoch start is its log end, other replicas above it are truncated, the
// maximal ISR is the committed one, and ISR members get a fresh lastCaughtUpTime, as Kafka's
// makeLeader gives them.
func (ro *roles) startLeader(p int32, i int8) {
	f := ro.f
	now := f.now()
	base, n := f.pt[p].rbase, int32(f.pt[p].rf)
	r := base + int32(i)
	fn := f.rp[r].leo
	for j := base; j < base+n; j++ {
		if j != r && f.rp[j].leo > fn {
			f.stats.TruncatedBytes += f.rp[j].leo - fn
			f.rp[j].leo = fn
		}
	}
	f.pt[p].leader = i
	f.rp[r].rstate = rsLeader // before the partition enters the out-of-sync count, below
	f.pt[p].leoBase, f.epochSt[p], f.pt[p].hwFrozen, f.pt[p].hwVal, f.pt[p].hwFloor = fn, fn, false, fn, 0
	f.pt[p].servEp = f.rp[r].view.leaderEpoch
	f.pt[p].isrMax = f.rp[r].view.isr | 1<<i
	f.pt[p].alterSt = alNone
	f.route[p].changed = now
	for j := int32(0); j < n; j++ {
		if f.pt[p].isrMax&(1<<j) != 0 {
			f.lastCU[base+j] = now
		}
	}
	if !f.pt[p].deleted {
		f.countOutOfSync(p, 1)
	}
	f.contrib(p, 1)
	ro.updateProduce(p)
}

// updateProduce decides whether the serving leader takes writes (it runs, producers reach it,
// and under acks=all its committed ISR is at least min.insync.replicas) and freezes the high
// watermark while the committed ISR is below min(min.insync.replicas, replicas). A change of
// rate moves catching-up followers to the group of their new rate.
func (ro *roles) updateProduce(p int32) {
	f := ro.f
	hwNow := f.pt[p].hwVal
	if !f.pt[p].hwFrozen && f.pt[p].leader >= 0 {
		hwNow = f.holdHW(p)
	}
	ro.updateProduceHW(p, hwNow)
}

// updateProduceHW is updateProduce with the high watermark as it was before the ISR change
// that prompted the call: a leader that falls below min.insync.replicas keeps that one, as
// Kafka's maybeIncrementLeaderHW refuses to move it while under min ISR.
func (ro *roles) updateProduceHW(p int32, hwBefore float64) {
	f := ro.f
	now := f.now()
	want := false
	if ld := f.pt[p].leader; ld >= 0 && !f.pt[p].deleted {
		lb := &f.brokers[f.rp[f.pt[p].rbase+int32(ld)].rb]
		isr := bits.OnesCount8(f.committedIsr(p))
		mi := f.minIsr(p)
		under := isr < min(mi, int(f.pt[p].rf))
		if under && !f.pt[p].hwFrozen {
			// The floor keeps the frozen HW, so that it does not go back when the ISR recovers.
			f.pt[p].hwVal, f.pt[p].hwFloor = hwBefore, max(f.pt[p].hwFloor, hwBefore)
			f.pt[p].hwFrozen = true
		} else if !under && f.pt[p].hwFrozen {
			f.pt[p].hwFrozen = false
		}
		want = lb.active && lb.clientUp && (f.p.Acks == AcksLeader || isr >= mi)
	}
	if want == f.pt[p].produce {
		return
	}
	// Catching-up followers change rate class: take them out with their backlogs. Tracking
	// followers keep their log end as a floor: a higher rate would otherwise put them further
	// behind at once.
	base, n := f.pt[p].rbase, int32(f.pt[p].rf)
	var backlog [8]float64
	var moving uint8
	lnow := f.leaderEnd(p, now)
	for j := int32(0); j < n; j++ {
		r := base + j
		if f.rp[r].rstate == rsTracking {
			f.rp[r].leo = f.pos(r, now)
		}
		if f.rp[r].rstate == rsCatching {
			backlog[j] = lnow - f.pos(r, now)
			moving |= 1 << j
			f.cu.leaveGroup(r)
			f.putRState(r, rsStalled)
		}
	}
	f.contrib(p, -1)
	f.pt[p].leoBase, f.pt[p].produce = lnow, want
	f.pt[p].volBase = f.vol(int(f.pt[p].cls), now)
	f.contrib(p, 1)
	for j := int32(0); j < n; j++ {
		if moving&(1<<j) != 0 {
			f.cu.joinGroup(base+j, backlog[j])
		}
	}
}

// partitionTouched re-derives a partition's roles after a view or liveness change: the
// serving leader is the active replica that, in its own view, leads with the highest epoch;
// followers fetch from it if their view agrees.
//
// A replica whose view is older than the epoch a leader has already served does not serve
// again: a deposed leader that has not yet applied its deposition (cut off from the
// controllers, say) still believes it leads, but in Kafka no follower of the newer epoch
// fetches from it or truncates to it, so it can neither acknowledge acks=all records nor
// destroy the newer leader's. The model leaves such a zombie out (producers find no leader
// rather than one that cannot commit), instead of letting it take over and truncate every
// replica to its stale log.
func (ro *roles) partitionTouched(p int32) { ro.partitionTouchedBy(p, -1) }

// partitionTouchedBy is partitionTouched after broker slot's view of p changed (slot -1: any
// input may have). Without a takeover, only that broker's replica has new inputs: every other
// follower's fetch state already follows from its own view, the serving leader and the links,
// because every change to those (a takeover, an activation, a link cut) refreshes them all.
func (ro *roles) partitionTouchedBy(p int32, slot int) {
	f := ro.f
	if f.pt[p].deleted {
		return
	}
	base, n := f.pt[p].rbase, int32(f.pt[p].rf)
	best, bestEpoch := int8(-1), int32(-1)
	for i := int32(0); i < n; i++ {
		r := base + i
		s := f.rp[r].rb
		if s < 0 || !f.brokers[s].active || !f.rp[r].view.in {
			continue
		}
		if f.rp[r].view.leader == int8(i) && f.rp[r].view.leaderEpoch > bestEpoch {
			best, bestEpoch = int8(i), f.rp[r].view.leaderEpoch
		}
	}
	cur := f.pt[p].leader
	// The newest epoch served so far: the serving leader's, or while none serves the last
	// one's (lastEp is read only then, to spare the common path a cache miss). If even the
	// best candidate is older, none qualifies.
	if floor := f.pt[p].servEp; best >= 0 && (bestEpoch < floor || (cur < 0 && bestEpoch < f.pt[p].lastEp)) {
		best = -1
	}
	all := slot < 0
	switch {
	case best != cur || (best >= 0 && bestEpoch != f.pt[p].servEp):
		ro.takeover(p, best)
		all = true
	case best >= 0:
		ro.leaderViewChanged(p)
	}
	for i := int32(0); i < n; i++ {
		if int8(i) != f.pt[p].leader && (all || int(f.rp[base+i].rb) == slot) {
			ro.refreshFollower(base + i)
		}
	}
}

// leaderViewChanged handles a new committed state seen by the serving leader itself: a
// pending AlterPartition is settled by a newer partition epoch, and the ISR size may change
// whether it takes writes.
func (ro *roles) leaderViewChanged(p int32) {
	f := ro.f
	lr := f.pt[p].rbase + int32(f.pt[p].leader)
	// The HW before the change only matters if the change takes the ISR below min ISR.
	hwBefore := f.pt[p].hwVal
	if !f.pt[p].hwFrozen && bits.OnesCount8(f.rp[lr].view.isr) < min(f.minIsr(p), int(f.pt[p].rf)) {
		hwBefore = f.holdHW(p)
	}
	switch f.pt[p].alterSt {
	case alAwait, alQueued:
		if f.rp[lr].view.partEpoch > f.isr.alter[p].pe {
			f.pt[p].alterSt = alNone
			f.setIsrMax(p, f.rp[lr].view.isr|1<<f.pt[p].leader)
		}
	case alNone:
		f.setIsrMax(p, f.rp[lr].view.isr|1<<f.pt[p].leader)
	}
	ro.updateProduceHW(p, hwBefore)
	f.isr.maybeExpand(p)
}

// refreshFollower decides whether a non-leader replica fetches from the serving leader: its
// broker is active, its view names that leader with the same epoch the leader runs, and the
// link between them is up. A replica that starts fetching is in sync if its backlog is within
// one fetch, else it joins its fetch session's catch-up.
func (ro *roles) refreshFollower(r int32) {
	f := ro.f
	p := f.rp[r].rpart
	s := f.rp[r].rb
	ld := f.pt[p].leader
	fetch := false
	if s >= 0 && f.brokers[s].active && f.rp[r].view.in && ld >= 0 {
		lr := f.pt[p].rbase + int32(ld)
		fetch = f.rp[r].view.leader == ld && f.rp[r].view.leaderEpoch == f.rp[lr].view.leaderEpoch && f.linkUp(int(s), int(f.rp[lr].rb))
	}
	st := f.rp[r].rstate
	if !fetch {
		to := rsStalled
		if s < 0 || !f.brokers[s].active {
			to = rsDead
		}
		if st == rsTracking || st == rsCatching {
			now := f.now()
			f.rp[r].leo = f.pos(r, now)
			if st == rsCatching {
				f.cu.leaveGroup(r)
			} else {
				f.lastCU[r] = now
			}
			f.setRState(r, to)
			f.isr.watchIfIsr(r)
			return
		}
		f.putRState(r, to)
		return
	}
	if st == rsTracking || st == rsCatching {
		return
	}
	now := f.now()
	lnow := f.leaderEnd(p, now)
	fl := f.rp[r].leo
	if ls := f.logStart(p, now); fl < ls {
		fl = ls
	}
	if fl > lnow {
		f.stats.TruncatedBytes += fl - lnow
		fl = lnow
	}
	f.rp[r].leo = fl
	if backlog := lnow - fl; backlog <= f.p.ReplicaFetchMaxBytes {
		f.holdForJoin(r)
		f.setRState(r, rsTracking)
		f.isr.caughtUp(r)
	} else {
		f.cu.joinGroup(r, backlog)
		f.isr.watchIfIsr(r)
	}
}

// activate starts a broker's replicas: each becomes leader or follower per its view, and the
// isr-expiration task starts (every replica.lag.time.max.ms / 2).
// A booted broker starts the task at a random phase so that brokers do not act in lockstep.
func (ro *roles) activate(slot int, randomPhase bool) {
	f := ro.f
	b := &f.brokers[slot]
	if b.active {
		return
	}
	b.active = true
	period := f.isrPeriod()
	b.isrTickAt = f.now() + period
	if randomPhase {
		b.isrTickAt = f.now() + b.rng.Between(1, period+1)
	}
	b.isrTick = f.at(b.isrTickAt, evIsrTick, int32(slot), int64(b.gen))
	ro.touchAll(f.replicaParts(b.id))
	f.cu.requestRealloc()
}

// deactivate stops a broker's replicas: partitions it led stop taking writes until a new
// leader takes over, its followers stop fetching, and its AlterPartition work is dropped.
func (ro *roles) deactivate(slot int) {
	f := ro.f
	b := &f.brokers[slot]
	if !b.active {
		return
	}
	b.active = false
	f.sim.Cancel(b.isrTick)
	b.isrTick = noHandle
	for _, r := range b.watch {
		if f.isr.watching(slot, r) {
			f.rp[r].watchLd = 0
		}
	}
	b.watch = b.watch[:0]
	b.alterQueue, b.alterBatch = b.alterQueue[:0], b.alterBatch[:0]
	ro.touchAll(f.replicaParts(b.id))
	f.cu.requestRealloc()
}

// touchAll re-derives the roles of each partition in ps (partitionTouched), warming them a
// chunk at a time.
func (ro *roles) touchAll(ps []int32) {
	f := ro.f
	for i, p := range ps {
		if i%warmChunk == 0 {
			f.warm.warmParts(ps[i:min(i+warmChunk, len(ps))])
		}
		ro.partitionTouched(p)
	}
}
