package broker

import "github.com/kraftlab/kraftlab/engine/config"

// vol is class c's cumulative produced bytes per partition at time t: L of a partition that
// has taken writes since an anchor is the anchor plus vol(t) − vol(anchor).
func (tb *tables) vol(c int, t int64) float64 {
	return tb.clsVol[c] + tb.clsRate[c]*float64(t-tb.volAt)/1000
}

// effClass is the class a partition produces at now: its rate class, or the zero class k
// while its leader does not take writes.
func (tb *tables) effClass(p int32) int {
	if tb.pt[p].produce {
		return int(tb.pt[p].cls)
	}
	return tb.k
}

// lambda is a partition's current produce rate in bytes/s.
func (tb *tables) lambda(p int32) float64 { return tb.clsRate[tb.effClass(p)] }

// leaderEnd is L(p, t): the serving leader's log-end offset, or the last one's while there is
// none.
func (tb *tables) leaderEnd(p int32, t int64) float64 {
	if tb.pt[p].produce {
		return tb.pt[p].leoBase + tb.vol(int(tb.pt[p].cls), t) - tb.pt[p].volBase
	}
	return tb.pt[p].leoBase
}

// lagBytes is how far an in-sync follower trails the leader: InSyncLagMs of produce.
func (tb *tables) lagBytes(p int32) float64 { return tb.lambda(p) * tb.p.InSyncLagMs / 1000 }

// logStart is the leader's local log start offset: TieredLocalShare of its local bytes (its given
// size, or LocalRetentionSec of its class's produce) below its end. A follower below it (an empty
// disk) restarts from it, as after OFFSET_OUT_OF_RANGE.
func (tb *tables) logStart(p int32, t int64) float64 {
	return tb.leaderEnd(p, t) - tb.sizes.of(p, tb.clsRate[tb.pt[p].cls]*tb.p.LocalRetentionSec)*tb.p.TieredLocalShare
}

// pos is replica r's log-end offset at time t.
func (tb *tables) pos(r int32, t int64) float64 {
	p := tb.rp[r].rpart
	switch tb.rp[r].rstate {
	case rsLeader:
		return tb.leaderEnd(p, t)
	case rsTracking:
		// leo holds where the follower was when it began tracking (or when its partition's rate
		// last went up): a follower's log never goes back, so it stays there until the leader is
		// InSyncLagMs of produce past it. Without the floor a follower starting to track at the
		// leader's end, or one already tracking when writes start, would fall back λ·InSyncLagMs
		// below a high watermark it had already let pass.
		return max(tb.rp[r].leo, tb.leaderEnd(p, t)-tb.lagBytes(p))
	case rsCatching:
		return tb.leaderEnd(p, t) - (tb.rp[r].leo + tb.groupA(tb.rp[r].grp, t))
	}
	return tb.rp[r].leo
}

// hw is the serving leader's high watermark at t: the lowest log end among the maximal ISR
// and caught-up followers, never below the floor the leader's HW has reached in its epoch
// (hwFloor), and frozen while there is no leader or the ISR is below
// min(min.insync.replicas, replicas). It only reads: what an observer sees, and when it looks,
// leaves the run alone. t must not precede the partition's last event (holdHW).
func (tb *tables) hw(p int32, t int64) float64 {
	if tb.pt[p].hwFrozen || tb.pt[p].leader < 0 {
		return tb.pt[p].hwVal
	}
	v := tb.leaderEnd(p, t)
	base, n, ld := tb.pt[p].rbase, int32(tb.pt[p].rf), int32(tb.pt[p].leader)
	for i := int32(0); i < n; i++ {
		if i == ld {
			continue
		}
		r := base + i
		if tb.pt[p].isrMax&(1<<i) != 0 || tb.rp[r].rstate == rsTracking {
			v = min(v, tb.pos(r, t))
		}
	}
	return max(v, tb.pt[p].hwFloor)
}

// holdHW keeps the high watermark the serving leader has now as its floor, and returns it. It
// is Kafka's Partition.maybeIncrementLeaderHW, which the leader runs on every follower fetch, on
// an ISR change and on becoming leader, and which only ever raises the HW
// (UnifiedLog.maybeIncrementHighWatermark): the model's follower fetches are continuous, so
// between events the lowest log end hw reads only grows, and the HW Kafka's leader has is the
// highest value it has read since the epoch began. That value is lost only where an event
// lowers the minimum: a follower that is not in the maximal ISR starts counting
// (holdForJoin), the maximal ISR gains a member behind the others (setIsrMax), a dead ISR
// member's log is emptied (ReplaceDisk). Those events call holdHW first, so the floor is the
// same whoever reads hw in between, and whenever.
func (tb *tables) holdHW(p int32) float64 {
	v := tb.hw(p, tb.now())
	if !tb.pt[p].hwFrozen && tb.pt[p].leader >= 0 {
		tb.pt[p].hwFloor = v
	}
	return v
}

// holdForJoin is holdHW before follower r starts counting towards its partition's high
// watermark as a caught-up replica outside the maximal ISR: its log end may be below the HW
// the leader has, which Kafka's leader then keeps ("wait for this replica to catch up to the
// HW before advancing the HW", Partition.maybeIncrementLeaderHW).
func (tb *tables) holdForJoin(r int32) {
	p := tb.rp[r].rpart
	if ld := tb.pt[p].leader; ld >= 0 && tb.pt[p].isrMax&(1<<(r-tb.pt[p].rbase)) == 0 {
		tb.holdHW(p)
	}
}

// setIsrMax sets the serving leader's maximal ISR. A member it adds that is not caught up may
// end below the high watermark the leader has: the HW is held first, as Kafka's leader never
// lowers it.
func (tb *tables) setIsrMax(p int32, mask uint8) {
	base, n, ld := tb.pt[p].rbase, int32(tb.pt[p].rf), int32(tb.pt[p].leader)
	for i := int32(0); i < n; i++ {
		if i != ld && mask&^tb.pt[p].isrMax&(1<<i) != 0 && tb.rp[base+i].rstate != rsTracking {
			tb.holdHW(p)
			break
		}
	}
	tb.pt[p].isrMax = mask
}

// committedIsr is the ISR the serving leader has from metadata.
func (tb *tables) committedIsr(p int32) uint8 {
	return tb.rp[tb.pt[p].rbase+int32(tb.pt[p].leader)].view.isr
}

// contrib adds (sign 1) or removes (sign -1) a partition's steady load: produce on its leader,
// replication on its leader and in-sync followers.
func (tb *tables) contrib(p int32, sign int32) {
	if !tb.pt[p].produce || tb.pt[p].leader < 0 {
		return
	}
	c := tb.pt[p].cls
	base, n := tb.pt[p].rbase, int32(tb.pt[p].rf)
	lb := &tb.brokers[tb.rp[base+int32(tb.pt[p].leader)].rb]
	lb.leadCnt[c] += sign
	for r := base; r < base+n; r++ {
		if tb.rp[r].rstate == rsTracking {
			tb.brokers[tb.rp[r].rb].trackCnt[c] += sign
			lb.replCnt[c] += sign
		}
	}
}

// setRState changes a follower's state, keeping the tracking load counts right.
func (tb *tables) setRState(r int32, st uint8) {
	old := tb.rp[r].rstate
	if old == st {
		return
	}
	p := tb.rp[r].rpart
	if tb.pt[p].produce && tb.pt[p].leader >= 0 && (old == rsTracking || st == rsTracking) {
		c := tb.pt[p].cls
		lb := &tb.brokers[tb.rp[tb.pt[p].rbase+int32(tb.pt[p].leader)].rb]
		d := int32(1)
		if old == rsTracking {
			d = -1
		}
		tb.brokers[tb.rp[r].rb].trackCnt[c] += d
		lb.replCnt[c] += d
	}
	tb.putRState(r, st)
}

// inSync reports whether a replica state is leading or tracking. rsLeader and rsTracking
// differ only in their lowest bit.
func inSync(st uint8) bool { return st&^1 == rsLeader }

// putRState stores a replica's state, keeping its broker's out-of-sync count (see OutOfSyncAll)
// right: a replica counts while its partition has a serving leader and it neither leads nor
// tracks. freezeAll and startLeader, which take a whole partition out of the count and back,
// write states directly in between.
func (tb *tables) putRState(r int32, st uint8) {
	if inSync(tb.rp[r].rstate) != inSync(st) {
		if s, p := tb.rp[r].rb, tb.rp[r].rpart; s >= 0 && tb.pt[p].leader >= 0 && !tb.pt[p].deleted {
			if inSync(st) {
				tb.oos[s]--
			} else {
				tb.oos[s]++
			}
		}
	}
	tb.rp[r].rstate = st
}

// countOutOfSync adds sign for each replica of p that neither leads nor tracks to its broker's
// out-of-sync count: the partition enters the count (sign 1, it got a serving leader) or leaves
// it (-1).
func (tb *tables) countOutOfSync(p int32, sign int32) {
	base, n := tb.pt[p].rbase, int32(tb.pt[p].rf)
	for r := base; r < base+n; r++ {
		if s := tb.rp[r].rb; s >= 0 && !inSync(tb.rp[r].rstate) {
			tb.oos[s] += sign
		}
	}
}

// LossToleranceBytes is how far below a high watermark of hw bytes a new leader's log may end
// before acknowledged records count as lost to an invariant check: log positions are float64
// byte counts near 10¹² in long runs, whose rounding (about 10⁻⁴ bytes each) must not pass for
// a lost record, while one lost record (hundreds of bytes) must not pass for rounding.
func LossToleranceBytes(hw float64) float64 { return max(1, 1e-12*hw) }

// linkUp reports whether brokers a and b can reach each other.
func (tb *tables) linkUp(a, b int) bool {
	if a == b || tb.cut == nil {
		return true
	}
	return !tb.cut[a*len(tb.brokers)+b]
}

// isrPeriod is the isr-expiration task's period.
func (tb *tables) isrPeriod() int64 { return max(1, tb.p.ReplicaLagTimeMaxMs/2) }

// replicaOf is the replica slot of broker slot in partition p, or -1.
func (tb *tables) replicaOf(p int32, slot int) int32 {
	base, n := tb.pt[p].rbase, int32(tb.pt[p].rf)
	for r := base; r < base+n; r++ {
		if int(tb.rp[r].rb) == slot {
			return r
		}
	}
	return -1
}

// minIsr resolves min.insync.replicas for a partition: topic, committed cluster configs, then
// the brokers' static configs, then Kafka's default.
func (tb *tables) minIsr(p int32) int {
	t := tb.pt[p].topic
	for int(t) >= len(tb.topicMinIsr) {
		tb.topicMinIsr = append(tb.topicMinIsr, -1)
	}
	if v := tb.topicMinIsr[t]; v >= 0 {
		return int(v)
	}
	top := &tb.cat.topics[t]
	v := int32(config.Int64(config.MinInsyncReplicas, &top.configs, &tb.cat.cluster, &tb.static))
	tb.topicMinIsr[t] = v
	return int(v)
}

// groupA is A(t) of group g (session × (k+1) + class).
func (tb *tables) groupA(g int32, t int64) float64 {
	kk := int32(tb.k + 1)
	ss := &tb.sessions[g/kk]
	c := g % kk
	return ss.groups[c].a + (tb.clsRate[c]-ss.share())*float64(t-ss.at)/1000
}

// replicas returns partition p's replica broker ids (aliases the catalog).
func (tb *tables) replicas(p int32) []int32 {
	return tb.cat.rid[tb.pt[p].rbase : tb.pt[p].rbase+int32(tb.pt[p].rf)]
}

// topicName is the name of partition p's topic.
func (tb *tables) topicName(p int32) string { return tb.cat.topics[tb.pt[p].topic].name }

// replicaParts returns the partitions with a replica on broker id (aliases the catalog).
func (tb *tables) replicaParts(id int32) []int32 {
	if s, ok := tb.slotOf[id]; ok {
		return tb.cat.replicaOf[s]
	}
	return nil
}

// fetcherOf is Kafka's getFetcherId: a hash of (topic, partition) modulo num.replica.fetchers.
func (tb *tables) fetcherOf(t int32, pnum int32) uint8 {
	h := (tb.cat.topics[t].hash*31 + uint32(pnum)) * 0x9E3779B9
	return uint8(h % uint32(tb.p.NumReplicaFetchers))
}
