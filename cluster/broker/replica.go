package broker

import (
	"fmt"
	"math"
	"math/bits"
	"slices"
)

// vol is class c's cumulative produced bytes per partition at time t: L of a partition that
// has taken writes since an anchor is the anchor plus vol(t) − vol(anchor).
func (f *Fleet) vol(c int, t int64) float64 {
	return f.clsVol[c] + f.clsRate[c]*float64(t-f.volAt)/1000
}

// effClass is the class a partition produces at now: its rate class, or the zero class k
// while its leader does not take writes.
func (f *Fleet) effClass(p int32) int {
	if f.pt[p].produce {
		return int(f.pt[p].cls)
	}
	return f.k
}

// lambda is a partition's current produce rate in bytes/s.
func (f *Fleet) lambda(p int32) float64 { return f.clsRate[f.effClass(p)] }

// leaderEnd is L(p, t): the serving leader's log-end offset, or the last one's while there is
// none.
func (f *Fleet) leaderEnd(p int32, t int64) float64 {
	if f.pt[p].produce {
		return f.pt[p].leoBase + f.vol(int(f.pt[p].cls), t) - f.pt[p].volBase
	}
	return f.pt[p].leoBase
}

// lagBytes is how far an in-sync follower trails the leader: InSyncLagMs of produce.
func (f *Fleet) lagBytes(p int32) float64 { return f.lambda(p) * f.p.InSyncLagMs / 1000 }

// logStart is the leader's local log start offset: TieredLocalShare of its local bytes below its
// end. A follower below it (an empty disk) restarts from it, as after OFFSET_OUT_OF_RANGE.
func (f *Fleet) logStart(p int32, t int64) float64 {
	return f.leaderEnd(p, t) - f.localBytes(p)*f.p.TieredLocalShare
}

// localBytes is the bytes a partition's leader holds locally: the size SetPartitionSizes gave
// it, or else LocalRetentionSec of its class's produce. Retention keeps it at that size as the
// log grows.
func (f *Fleet) localBytes(p int32) float64 {
	if int(p) < len(f.sizes) {
		return f.sizes[p]
	}
	return f.clsRate[f.pt[p].cls] * f.p.LocalRetentionSec
}

// SetPartitionSizes gives the starting partitions 0 to len(sizes)−1 (their indexes in
// metadata.Image) the local log sizes an operator measured, in bytes, instead of
// LocalRetentionSec of their produce: what Prefill writes and what an empty disk must copy.
// Call it before Prefill.
func (f *Fleet) SetPartitionSizes(sizes []float64) error {
	for i, s := range sizes {
		if !(s >= 0) || math.IsInf(s, 0) {
			return fmt.Errorf("broker: partition %d's size is %g; must be a finite number of bytes ≥ 0", i, s)
		}
	}
	f.sizes = slices.Clone(sizes)
	return nil
}

// pos is replica r's log-end offset at time t.
func (f *Fleet) pos(r int32, t int64) float64 {
	p := f.rp[r].rpart
	switch f.rp[r].rstate {
	case rsLeader:
		return f.leaderEnd(p, t)
	case rsTracking:
		// leo holds where the follower was when it began tracking (or when its partition's rate
		// last went up): a follower's log never goes back, so it stays there until the leader is
		// InSyncLagMs of produce past it. Without the floor a follower starting to track at the
		// leader's end, or one already tracking when writes start, would fall back λ·InSyncLagMs
		// below a high watermark it had already let pass.
		return max(f.rp[r].leo, f.leaderEnd(p, t)-f.lagBytes(p))
	case rsCatching:
		return f.leaderEnd(p, t) - (f.rp[r].leo + f.groupA(f.rp[r].grp, t))
	}
	return f.rp[r].leo
}

// hw is the serving leader's high watermark at t: the lowest log end among the maximal ISR
// and caught-up followers, frozen while there is no leader or the ISR is below
// min(min.insync.replicas, replicas).
func (f *Fleet) hw(p int32, t int64) float64 {
	if f.pt[p].hwFrozen || f.pt[p].leader < 0 {
		return f.pt[p].hwVal
	}
	v := f.leaderEnd(p, t)
	base, n, ld := f.pt[p].rbase, int32(f.pt[p].rf), int32(f.pt[p].leader)
	for i := int32(0); i < n; i++ {
		if i == ld {
			continue
		}
		r := base + i
		if f.pt[p].isrMax&(1<<i) != 0 || f.rp[r].rstate == rsTracking {
			v = min(v, f.pos(r, t))
		}
	}
	v = max(v, f.pt[p].hwFloor)
	if t >= f.now() {
		f.pt[p].hwFloor = v
	}
	return v
}

// committedIsr is the ISR the serving leader has from metadata.
func (f *Fleet) committedIsr(p int32) uint8 {
	return f.rp[f.pt[p].rbase+int32(f.pt[p].leader)].view.isr
}

// contrib adds (sign 1) or removes (sign -1) a partition's steady load: produce on its leader,
// replication on its leader and in-sync followers.
func (f *Fleet) contrib(p int32, sign int32) {
	if !f.pt[p].produce || f.pt[p].leader < 0 {
		return
	}
	c := f.pt[p].cls
	base, n := f.pt[p].rbase, int32(f.pt[p].rf)
	lb := &f.brokers[f.rp[base+int32(f.pt[p].leader)].rb]
	lb.leadCnt[c] += sign
	for r := base; r < base+n; r++ {
		if f.rp[r].rstate == rsTracking {
			f.brokers[f.rp[r].rb].trackCnt[c] += sign
			lb.replCnt[c] += sign
		}
	}
}

// setRState changes a follower's state, keeping the tracking load counts right.
func (f *Fleet) setRState(r int32, st uint8) {
	old := f.rp[r].rstate
	if old == st {
		return
	}
	p := f.rp[r].rpart
	if f.pt[p].produce && f.pt[p].leader >= 0 && (old == rsTracking || st == rsTracking) {
		c := f.pt[p].cls
		lb := &f.brokers[f.rp[f.pt[p].rbase+int32(f.pt[p].leader)].rb]
		d := int32(1)
		if old == rsTracking {
			d = -1
		}
		f.brokers[f.rp[r].rb].trackCnt[c] += d
		lb.replCnt[c] += d
	}
	f.putRState(r, st)
}

// inSync reports whether a replica state is leading or tracking. rsLeader and rsTracking
// differ only in their lowest bit.
func inSync(st uint8) bool { return st&^1 == rsLeader }

// putRState stores a replica's state, keeping its broker's out-of-sync count (see OutOfSyncAll)
// right: a replica counts while its partition has a serving leader and it neither leads nor
// tracks. freezeAll and startLeader, which take a whole partition out of the count and back,
// write states directly in between.
func (f *Fleet) putRState(r int32, st uint8) {
	if inSync(f.rp[r].rstate) != inSync(st) {
		if s, p := f.rp[r].rb, f.rp[r].rpart; s >= 0 && f.pt[p].leader >= 0 && !f.pt[p].deleted {
			if inSync(st) {
				f.oos[s]--
			} else {
				f.oos[s]++
			}
		}
	}
	f.rp[r].rstate = st
}

// countOutOfSync adds sign for each replica of p that neither leads nor tracks to its broker's
// out-of-sync count: the partition enters the count (sign 1, it got a serving leader) or leaves
// it (-1).
func (f *Fleet) countOutOfSync(p int32, sign int32) {
	base, n := f.pt[p].rbase, int32(f.pt[p].rf)
	for r := base; r < base+n; r++ {
		if s := f.rp[r].rb; s >= 0 && !inSync(f.rp[r].rstate) {
			f.oos[s] += sign
		}
	}
}

// freezeAll stops a partition: every replica's log end is frozen where it is now, catching-up
// followers leave their sessions, and the partition has no serving leader until startLeader.
// It returns the leader's log end at this moment.
func (f *Fleet) freezeAll(p int32) float64 {
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
			f.leaveGroup(r)
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
func (f *Fleet) takeover(p int32, i int8) {
	now := f.now()
	hwOld := f.hw(p, now)
	hadLeader := f.pt[p].leader >= 0
	if hadLeader {
		f.pt[p].lastEp = f.pt[p].servEp
	}
	oldL := f.freezeAll(p)
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
	f.startLeader(p, i)
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

// LossToleranceBytes is how far below a high watermark of hw bytes a new leader's log may end
// before acknowledged records count as lost to an invariant check: log positions are float64
// byte counts near 10¹² in long runs, whose rounding (about 10⁻⁴ bytes each) must not pass for
// a lost record, while one lost record (hundreds of bytes) must not pass for rounding.
func LossToleranceBytes(hw float64) float64 { return max(1, 1e-12*hw) }

// startLeader sets up replica position i, whose log end is frozen in leo, as the serving
// leader: the leader-epoch start is its log end, other replicas above it are truncated, the
// maximal ISR is the committed one, and ISR members get a fresh lastCaughtUpTime, as Kafka's
// makeLeader gives them.
func (f *Fleet) startLeader(p int32, i int8) {
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
	f.updateProduce(p)
}

// updateProduce decides whether the serving leader takes writes (it runs, producers reach it,
// and under acks=all its committed ISR is at least min.insync.replicas) and freezes the high
// watermark while the committed ISR is below min(min.insync.replicas, replicas). A change of
// rate moves catching-up followers to the group of their new rate.
func (f *Fleet) updateProduce(p int32) {
	hwNow := f.pt[p].hwVal
	if !f.pt[p].hwFrozen && f.pt[p].leader >= 0 {
		hwNow = f.hw(p, f.now())
	}
	f.updateProduceHW(p, hwNow)
}

// updateProduceHW is updateProduce with the high watermark as it was before the ISR change
// that prompted the call: a leader that falls below min.insync.replicas keeps that one, as
// Kafka's maybeIncrementLeaderHW refuses to move it while under min ISR.
func (f *Fleet) updateProduceHW(p int32, hwBefore float64) {
	now := f.now()
	want := false
	if ld := f.pt[p].leader; ld >= 0 && !f.pt[p].deleted {
		lb := &f.brokers[f.rp[f.pt[p].rbase+int32(ld)].rb]
		isr := bits.OnesCount8(f.committedIsr(p))
		mi := f.minIsr(p)
		under := isr < min(mi, int(f.pt[p].rf))
		if under && !f.pt[p].hwFrozen {
			f.pt[p].hwVal = hwBefore
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
			f.leaveGroup(r)
			f.putRState(r, rsStalled)
		}
	}
	f.contrib(p, -1)
	f.pt[p].leoBase, f.pt[p].produce = lnow, want
	f.pt[p].volBase = f.vol(int(f.pt[p].cls), now)
	f.contrib(p, 1)
	for j := int32(0); j < n; j++ {
		if moving&(1<<j) != 0 {
			f.joinGroup(base+j, backlog[j])
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
func (f *Fleet) partitionTouched(p int32) { f.partitionTouchedBy(p, -1) }

// partitionTouchedBy is partitionTouched after broker slot's view of p changed (slot -1: any
// input may have). Without a takeover, only that broker's replica has new inputs: every other
// follower's fetch state already follows from its own view, the serving leader and the links,
// because every change to those (a takeover, an activation, a link cut) refreshes them all.
func (f *Fleet) partitionTouchedBy(p int32, slot int) {
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
		f.takeover(p, best)
		all = true
	case best >= 0:
		f.leaderViewChanged(p)
	}
	for i := int32(0); i < n; i++ {
		if int8(i) != f.pt[p].leader && (all || int(f.rp[base+i].rb) == slot) {
			f.refreshFollower(base + i)
		}
	}
}

// leaderViewChanged handles a new committed state seen by the serving leader itself: a
// pending AlterPartition is settled by a newer partition epoch, and the ISR size may change
// whether it takes writes.
func (f *Fleet) leaderViewChanged(p int32) {
	lr := f.pt[p].rbase + int32(f.pt[p].leader)
	// The HW before the change only matters if the change takes the ISR below min ISR.
	hwBefore := f.pt[p].hwVal
	if !f.pt[p].hwFrozen && bits.OnesCount8(f.rp[lr].view.isr) < min(f.minIsr(p), int(f.pt[p].rf)) {
		hwBefore = f.hw(p, f.now())
	}
	switch f.pt[p].alterSt {
	case alAwait, alQueued:
		if f.rp[lr].view.partEpoch > f.alter[p].pe {
			f.pt[p].alterSt = alNone
			f.pt[p].isrMax = f.rp[lr].view.isr | 1<<f.pt[p].leader
		}
	case alNone:
		f.pt[p].isrMax = f.rp[lr].view.isr | 1<<f.pt[p].leader
	}
	f.updateProduceHW(p, hwBefore)
	f.maybeExpand(p)
}

// refreshFollower decides whether a non-leader replica fetches from the serving leader: its
// broker is active, its view names that leader with the same epoch the leader runs, and the
// link between them is up. A replica that starts fetching is in sync if its backlog is within
// one fetch, else it joins its fetch session's catch-up.
func (f *Fleet) refreshFollower(r int32) {
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
				f.leaveGroup(r)
			} else {
				f.lastCU[r] = now
			}
			f.setRState(r, to)
			f.watchIfIsr(r)
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
		f.setRState(r, rsTracking)
		f.caughtUp(r)
	} else {
		f.joinGroup(r, backlog)
		f.watchIfIsr(r)
	}
}

// caughtUp is a follower reaching the leader's log end: it is caught up now, and the leader
// considers adding it to the ISR.
func (f *Fleet) caughtUp(r int32) {
	f.lastCU[r] = f.now()
	p := f.rp[r].rpart
	if ld := f.pt[p].leader; ld >= 0 && f.pt[p].isrMax&(1<<(r-f.pt[p].rbase)) == 0 {
		f.maybeExpand(p)
	}
}

// linkUp reports whether brokers a and b can reach each other.
func (f *Fleet) linkUp(a, b int) bool {
	if a == b || f.cut == nil {
		return true
	}
	return !f.cut[a*len(f.brokers)+b]
}

// activate starts a broker's replicas: each becomes leader or follower per its view, and the
// isr-expiration task starts (every replica.lag.time.max.ms / 2).
// A booted broker starts the task at a random phase so that brokers do not act in lockstep.
func (f *Fleet) activate(slot int, randomPhase bool) {
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
	f.touchAll(f.replicaParts(b.id))
	f.requestRealloc()
}

// deactivate stops a broker's replicas: partitions it led stop taking writes until a new
// leader takes over, its followers stop fetching, and its AlterPartition work is dropped.
func (f *Fleet) deactivate(slot int) {
	b := &f.brokers[slot]
	if !b.active {
		return
	}
	b.active = false
	f.sim.Cancel(b.isrTick)
	b.isrTick = noHandle
	for _, r := range b.watch {
		if f.watching(slot, r) {
			f.rp[r].watchLd = 0
		}
	}
	b.watch = b.watch[:0]
	b.alterQueue, b.alterBatch = b.alterQueue[:0], b.alterBatch[:0]
	f.touchAll(f.replicaParts(b.id))
	f.requestRealloc()
}

// isrPeriod is the isr-expiration task's period.
func (f *Fleet) isrPeriod() int64 { return max(1, f.p.ReplicaLagTimeMaxMs/2) }
