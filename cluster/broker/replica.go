package broker

import "github.com/kraftlab/kraftlab/engine/config"

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

// logStart is the leader's local log start offset: TieredLocalShare of its local bytes (its given
// size, or LocalRetentionSec of its class's produce) below its end. A follower below it (an empty disk) restarts from it, as after OFFSET_OUT_OF_RANGE.
func (f *Fleet) logStart(p int32, t int64) float64 {
	return f.leaderEnd(p, t) - f.sizes.of(p, f.clsRate[f.pt[p].cls]*f.p.LocalRetentionSec)*f.p.TieredLocalShare
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

// LossToleranceBytes is how far below a high watermark of hw bytes a new leader's log may end
// before acknowledged records count as lost to an invariant check: log positions are float64
// byte counts near 10¹² in long runs, whose rounding (about 10⁻⁴ bytes each) must not pass for
// a lost record, while one lost record (hundreds of bytes) must not pass for rounding.
func LossToleranceBytes(hw float64) float64 { return max(1, 1e-12*hw) }

// linkUp reports whether brokers a and b can reach each other.
func (f *Fleet) linkUp(a, b int) bool {
	if a == b || f.cut == nil {
		return true
	}
	return !f.cut[a*len(f.brokers)+b]
}

// isrPeriod is the isr-expiration task's period.
func (f *Fleet) isrPeriod() int64 { return max(1, f.p.ReplicaLagTimeMaxMs/2) }

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

// groupA is A(t) of group g (session × (k+1) + class).
func (f *Fleet) groupA(g int32, t int64) float64 {
	kk := int32(f.k + 1)
	ss := &f.cu.sessions[g/kk]
	c := g % kk
	return ss.groups[c].a + (f.clsRate[c]-ss.share())*float64(t-ss.at)/1000
}

// replicas returns partition p's replica broker ids (aliases the catalog).
func (f *Fleet) replicas(p int32) []int32 {
	return f.cat.rid[f.pt[p].rbase : f.pt[p].rbase+int32(f.pt[p].rf)]
}

// topicName is the name of partition p's topic.
func (f *Fleet) topicName(p int32) string { return f.cat.topics[f.pt[p].topic].name }

// replicaParts returns the partitions with a replica on broker id (aliases the catalog).
func (f *Fleet) replicaParts(id int32) []int32 {
	if s, ok := f.slotOf[id]; ok {
		return f.cat.replicaOf[s]
	}
	return nil
}

// fetcherOf is Kafka's getFetcherId: a hash of (topic, partition) modulo num.replica.fetchers.
func (f *Fleet) fetcherOf(t int32, pnum int32) uint8 {
	h := (f.cat.topics[t].hash*31 + uint32(pnum)) * 0x9E3779B9
	return uint8(h % uint32(f.p.NumReplicaFetchers))
}
