package broker

import (
	"fmt"
	"math"
)

func (cu *catchUp) nf() int {
	return cu.f.p.NumReplicaFetchers
}

// sessionIndex names the session of (follower slot, leader slot, fetcher).
func (cu *catchUp) sessionIndex(fb, lb int, k int) int {
	return (fb*len(cu.f.brokers)+lb)*cu.nf() + k
}

// sessionBrokers returns a session's follower and leader broker slots.
func (cu *catchUp) sessionBrokers(s int) (fb, lb int) {
	f := cu.f
	rest := s / cu.nf()
	return rest / len(f.brokers), rest % len(f.brokers)
}

// anchor brings a session's group drifts forward to now; it must run before x or n change.
func (cu *catchUp) anchor(ss *session) {
	f := cu.f
	now := f.now()
	if now == ss.at {
		return
	}
	dt := float64(now-ss.at) / 1000
	sh := ss.share()
	for c := range ss.groups {
		if g := &ss.groups[c]; g.live > 0 {
			g.a += (f.clsRate[c] - sh) * dt
		}
	}
	ss.at = now
}

// joinGroup makes follower r catch up a backlog of B bytes in its fetch session.
func (cu *catchUp) joinGroup(r int32, backlog float64) {
	f := cu.f
	p := f.rp[r].rpart
	lr := f.pt[p].rbase + int32(f.pt[p].leader)
	s := cu.sessionIndex(int(f.rp[r].rb), int(f.rp[lr].rb), int(f.pt[p].fetcher))
	ss := &cu.f.sessions[s]
	cu.anchor(ss)
	if ss.groups == nil {
		ss.groups = make([]group, f.k+1)
	}
	c := f.effClass(p)
	g := &ss.groups[c]
	if g.live == 0 {
		g.a, g.h = 0, g.h[:0]
	}
	cu.hgen[r]++
	key := backlog - g.a
	heapPush(&g.h, hent{key: key, r: r, gen: cu.hgen[r]})
	f.rp[r].leo = key
	f.rp[r].grp = int32(s*(f.k+1) + c)
	f.setRState(r, rsCatching)
	g.live++
	ss.n++
	if ss.n == 1 {
		ss.pos = int32(len(cu.active))
		cu.active = append(cu.active, int32(s))
		cu.requestRealloc()
	} else {
		cu.updateX(s)
	}
	cu.reschedule(s)
}

// leaveGroup takes follower r out of its group. The caller has read its position first and
// sets its new state afterwards.
func (cu *catchUp) leaveGroup(r int32) {
	f := cu.f
	g := f.rp[r].grp
	kk := int32(f.k + 1)
	s := int(g / kk)
	ss := &cu.f.sessions[s]
	cu.anchor(ss)
	cu.hgen[r]++
	f.rp[r].grp = -1
	ss.groups[g%kk].live--
	ss.n--
	if ss.n == 0 {
		cu.idleSession(s)
		return
	}
	cu.updateX(s)
	cu.reschedule(s)
}

// idleSession retires a session with no catching-up member.
func (cu *catchUp) idleSession(s int) {
	f := cu.f
	ss := &cu.f.sessions[s]
	cu.setX(s, 0)
	ss.alloc = 0
	f.sim.Cancel(ss.ev)
	ss.ev = noHandle
	for c := range ss.groups {
		ss.groups[c] = group{h: ss.groups[c].h[:0]}
	}
	if ss.pos >= 0 {
		last := cu.active[len(cu.active)-1]
		cu.active[ss.pos] = last
		cu.f.sessions[last].pos = ss.pos
		cu.active = cu.active[:len(cu.active)-1]
		ss.pos = -1
	}
	cu.requestRealloc()
}

// setX changes a session's catch-up rate and the brokers' catch-up loads with it.
func (cu *catchUp) setX(s int, x float64) {
	f := cu.f
	ss := &cu.f.sessions[s]
	d := x - ss.x
	if d == 0 {
		return
	}
	fb, lb := cu.sessionBrokers(s)
	f.brokers[fb].catchIn += d
	f.brokers[lb].catchOut += d
	ss.x = x
}

// updateX applies the protocol cap for the session's current membership; anchored first.
func (cu *catchUp) updateX(s int) {
	cu.setX(s, min(cu.f.sessions[s].alloc, cu.sessionCap(s)))
}

// cycleBytes is the most one fetch response of a session can carry: one
// replica.fetch.max.bytes per member up to replica.fetch.response.max.bytes.
func (cu *catchUp) cycleBytes(n int32) float64 {
	f := cu.f
	return min(f.p.ReplicaFetchResponseMaxBytes, float64(n)*f.p.ReplicaFetchMaxBytes)
}

// readRate and writeRate are a broker's disk rates in bytes/s, slowed by its factor.
func (cu *catchUp) readRate(b int) float64 {
	f := cu.f
	return f.p.DiskReadBytesPerSec * f.brokers[b].slow
}
func (cu *catchUp) writeRate(b int) float64 {
	f := cu.f
	return f.p.DiskWriteBytesPerSec * f.brokers[b].slow
}

// sessionCap is the fetch protocol's limit on a session's catch-up: a full response per cycle,
// where a cycle is a round trip, the leader reading the bytes and the follower appending them
// before it fetches again (docs/model.md §3).
func (cu *catchUp) sessionCap(s int) float64 {
	f := cu.f
	ss := &cu.f.sessions[s]
	if ss.n <= 0 {
		return 0
	}
	fb, lb := cu.sessionBrokers(s)
	bytes := cu.cycleBytes(ss.n)
	c := f.p.RttMs/1000 + bytes/cu.readRate(lb) + bytes/cu.writeRate(fb)
	return bytes / c
}

// cycleMs is a session's fetch cycle at its current catch-up rate: the time an in-sync
// partition of the session waits behind catch-up bytes (docs/model.md §6: H(f, p) is uniform on
// [0, cycle]). A throttled session carries fewer bytes per cycle, so its cycle is shorter.
func (cu *catchUp) cycleMs(s int) float64 {
	f := cu.f
	ss := &cu.f.sessions[s]
	if ss.n <= 0 || ss.x <= 0 {
		return 0
	}
	fb, lb := cu.sessionBrokers(s)
	rtt := f.p.RttMs / 1000
	per := 1/cu.readRate(lb) + 1/cu.writeRate(fb)
	maxB := cu.cycleBytes(ss.n)
	b := maxB
	if den := 1 - ss.x*per; den > 0 {
		b = min(maxB, ss.x*rtt/den)
	}
	return (rtt + b*per) * 1000
}

// reschedule sets a session's single event at its earliest rejoin: the time the smallest
// backlog of any of its groups falls to one fetch. A group whose backlog grows (λ ≥ x/n, the
// throttle trap) schedules nothing.
func (cu *catchUp) reschedule(s int) {
	f := cu.f
	ss := &cu.f.sessions[s]
	f.sim.Cancel(ss.ev)
	ss.ev = noHandle
	if ss.n <= 0 {
		return
	}
	now := f.now()
	sh := ss.share()
	dt := float64(now-ss.at) / 1000
	thr := f.p.ReplicaFetchMaxBytes
	best := int64(math.MaxInt64)
	for c := range ss.groups {
		g := &ss.groups[c]
		if g.live == 0 {
			continue
		}
		top, ok := cu.top(g)
		if !ok {
			continue
		}
		drift := f.clsRate[c] - sh
		b := top.key + g.a + drift*dt
		if b <= thr+1+math.Abs(drift)*0.001 {
			best = now
			break
		}
		if drift >= 0 {
			continue
		}
		wait := (b - thr) / -drift * 1000
		if wait > 1e13 {
			continue
		}
		best = min(best, now+int64(math.Ceil(wait)))
	}
	if best != math.MaxInt64 {
		ss.ev = f.at(best, evSession, int32(s), 0)
	}
}

// top returns a group's smallest current entry, dropping stale ones.
func (cu *catchUp) top(g *group) (hent, bool) {
	for len(g.h) > 0 {
		e := g.h[0]
		if cu.hgen[e.r] == e.gen {
			return e, true
		}
		heapPop(&g.h)
	}
	return hent{}, false
}

// sessionEvent rejoins every member of the session whose backlog is within one fetch.
func (cu *catchUp) sessionEvent(s int) {
	f := cu.f
	ss := &cu.f.sessions[s]
	ss.ev = noHandle
	if ss.n <= 0 {
		return
	}
	cu.anchor(ss)
	thr := f.p.ReplicaFetchMaxBytes
	done := cu.scratch.rejoined[:0]
	for c := range ss.groups {
		g := &ss.groups[c]
		tol := 1 + math.Abs(f.clsRate[c]-ss.share())*0.001
		for g.live > 0 {
			top, ok := cu.top(g)
			if !ok || top.key+g.a > thr+tol {
				break
			}
			heapPop(&g.h)
			r := top.r
			f.holdForJoin(r)
			// Its log end as it leaves the group is its floor as a tracking follower (pos).
			f.rp[r].leo = f.pos(r, f.now())
			cu.hgen[r]++
			f.rp[r].grp = -1
			g.live--
			ss.n--
			f.setRState(r, rsTracking)
			f.stats.Rejoins++
			done = append(done, r)
		}
		if len(g.h) > 64 && len(g.h) > 4*int(g.live) {
			cu.compact(g)
		}
	}
	cu.scratch.rejoined = done
	if ss.n == 0 {
		cu.idleSession(s)
	} else {
		cu.updateX(s)
		cu.reschedule(s)
	}
	for _, r := range done {
		f.isr.caughtUp(r)
	}
}

// compact drops stale heap entries of a group.
func (cu *catchUp) compact(g *group) {
	h := g.h[:0]
	for _, e := range g.h {
		if cu.hgen[e.r] == e.gen {
			h = append(h, e)
		}
	}
	g.h = h
	for i := len(h)/2 - 1; i >= 0; i-- {
		heapDown(h, i)
	}
}

// requestRealloc asks for the catch-up rates to be recomputed now (once per instant).
func (cu *catchUp) requestRealloc() {
	f := cu.f
	now := f.now()
	if cu.allocEv != noHandle && cu.allocAt <= now {
		return
	}
	f.sim.Cancel(cu.allocEv)
	cu.allocAt = now
	cu.allocEv = f.at(now, evAlloc, 0, 0)
}

// steady returns a broker's produce bytes led, in-sync follower bytes and bytes served to
// in-sync followers, per second.
func (cu *catchUp) steady(b int) (lead, follow, repl float64) {
	f := cu.f
	br := &f.brokers[b]
	for c := 0; c < f.k; c++ {
		r := f.clsRate[c]
		lead += float64(br.leadCnt[c]) * r
		follow += float64(br.trackCnt[c]) * r
		repl += float64(br.replCnt[c]) * r
	}
	return
}

// realloc is the catch-up allocator: a max-min fair share over active sessions, each bounded
// by its fetch protocol cap, under per-broker budgets. A follower broker gives catch-up η of
// its free disk-write and NIC-in headroom (at most follower.replication.throttled.rate); a
// leader broker gives η of its disk read and free NIC-out headroom (at most
// leader.replication.throttled.rate). Throttles apply only with ThrottleAllReplicas, and only
// catching-up (out-of-sync) replicas are throttled, as in Kafka.
func (cu *catchUp) realloc() {
	f := cu.f
	if len(cu.active) == 0 {
		return
	}
	now := f.now()
	nb := len(f.brokers)
	sc := &cu.scratch
	grow := func(s []float64, n int) []float64 {
		if cap(s) < n {
			return make([]float64, n)
		}
		return s[:n]
	}
	sc.remF, sc.remL = grow(sc.remF, nb), grow(sc.remL, nb)
	if cap(sc.cntF) < nb {
		sc.cntF, sc.cntL = make([]int32, nb), make([]int32, nb)
	}
	sc.cntF, sc.cntL = sc.cntF[:nb], sc.cntL[:nb]
	eta := f.p.CatchUpHeadroomShare
	for b := range f.brokers {
		br := &f.brokers[b]
		lead, follow, repl := cu.steady(b)
		in := lead + follow
		sc.remF[b] = eta * min(max(0, cu.writeRate(b)-in), max(0, f.p.NicInBytesPerSec-in))
		sc.remL[b] = eta * min(cu.readRate(b), max(0, f.p.NicOutBytesPerSec-f.p.ConsumerFanout*lead-repl))
		if f.p.ThrottleAllReplicas {
			if br.throttleF > 0 {
				sc.remF[b] = min(sc.remF[b], br.throttleF)
			}
			if br.throttleL > 0 {
				sc.remL[b] = min(sc.remL[b], br.throttleL)
			}
		}
	}
	na := len(cu.active)
	sc.rate, sc.capOf = grow(sc.rate, na), grow(sc.capOf, na)
	if cap(sc.frozen) < na {
		sc.frozen = make([]bool, na)
	}
	sc.frozen = sc.frozen[:na]
	for i, s := range cu.active {
		sc.rate[i], sc.capOf[i], sc.frozen[i] = 0, cu.sessionCap(int(s)), false
	}
	for iter := 0; iter <= na+2*nb; iter++ {
		clear(sc.cntF)
		clear(sc.cntL)
		open := 0
		for i, s := range cu.active {
			if !sc.frozen[i] {
				fb, lb := cu.sessionBrokers(int(s))
				sc.cntF[fb]++
				sc.cntL[lb]++
				open++
			}
		}
		if open == 0 {
			break
		}
		inc := math.Inf(1)
		for b := 0; b < nb; b++ {
			if sc.cntF[b] > 0 {
				inc = min(inc, sc.remF[b]/float64(sc.cntF[b]))
			}
			if sc.cntL[b] > 0 {
				inc = min(inc, sc.remL[b]/float64(sc.cntL[b]))
			}
		}
		for i := range cu.active {
			if !sc.frozen[i] {
				inc = min(inc, sc.capOf[i]-sc.rate[i])
			}
		}
		inc = max(inc, 0)
		for i, s := range cu.active {
			if !sc.frozen[i] {
				fb, lb := cu.sessionBrokers(int(s))
				sc.rate[i] += inc
				sc.remF[fb] -= inc
				sc.remL[lb] -= inc
			}
		}
		for i, s := range cu.active {
			if sc.frozen[i] {
				continue
			}
			fb, lb := cu.sessionBrokers(int(s))
			if sc.capOf[i]-sc.rate[i] <= 1e-9*sc.capOf[i]+1e-9 || sc.remF[fb] <= 1e-6 || sc.remL[lb] <= 1e-6 {
				sc.frozen[i] = true
			}
		}
	}
	for i, s := range cu.active {
		ss := &cu.f.sessions[s]
		cu.anchor(ss)
		ss.alloc = sc.rate[i]
		cu.updateX(int(s))
		cu.reschedule(int(s))
	}
	f.noteCatchUps()
	cu.allocAt = now + f.p.AllocPeriodMs
	cu.allocEv = f.at(cu.allocAt, evAlloc, 0, 0)
}

// SetDiskSlowFactor scales a broker's disk read and write capacity (1 = normal, 0.5 = half as
// fast). It takes effect at once for utilisation and catch-up.
func (f *Fleet) SetDiskSlowFactor(id int32, factor float64) error {
	b, _, err := f.slot(id)
	if err != nil {
		return err
	}
	if !(factor > 0 && factor <= 100) {
		return fmt.Errorf("broker: SetDiskSlowFactor(%d, %g): factor must be in (0, 100]", id, factor)
	}
	b.slow = factor
	f.cu.requestRealloc()
	return nil
}

// SetThrottle sets a broker's leader.replication.throttled.rate and
// follower.replication.throttled.rate in bytes/s (0 = none). They only apply while
// ThrottleAllReplicas is set.
func (f *Fleet) SetThrottle(id int32, leaderBytesPerSec, followerBytesPerSec float64) error {
	b, _, err := f.slot(id)
	if err != nil {
		return err
	}
	if !(leaderBytesPerSec >= 0) || !(followerBytesPerSec >= 0) {
		return fmt.Errorf("broker: SetThrottle(%d, %g, %g): rates must be ≥ 0 (0 means no throttle)", id, leaderBytesPerSec, followerBytesPerSec)
	}
	b.throttleL, b.throttleF = leaderBytesPerSec, followerBytesPerSec
	f.cu.requestRealloc()
	return nil
}

// SetThrottleAllReplicas sets or clears leader/follower.replication.throttled.replicas = "*".
func (f *Fleet) SetThrottleAllReplicas(on bool) {
	f.p.ThrottleAllReplicas = on
	f.cu.requestRealloc()
}

// RatesChanged re-reads the class rates from Rates (for example after the workload scaled its
// produce rate). Log ends stay continuous; catch-up drifts and loads change from now on.
func (f *Fleet) RatesChanged() error {
	now := f.now()
	// Tracking followers keep their log ends as floors (see pos): a higher rate must not put
	// them further behind at once. This walks every replica, but rates change rarely.
	for r := range f.rp {
		if f.rp[r].rstate == rsTracking {
			f.rp[r].leo = f.pos(int32(r), now)
		}
	}
	for _, s := range f.cu.active {
		f.cu.anchor(&f.sessions[s])
	}
	for c := 0; c < f.k; c++ {
		f.clsVol[c] = f.vol(c, now)
	}
	f.volAt = now
	if err := f.loadRates(f.rates); err != nil {
		return err
	}
	for _, s := range f.cu.active {
		f.cu.reschedule(int(s))
	}
	f.cu.requestRealloc()
	return nil
}

// CatchUpFlows calls fn once for each pair of brokers with catch-up replication between them:
// the bytes per second the follower fetches from the leader for its out-of-sync replicas, as the
// allocator last granted them (summed over the pair's fetcher threads). Pairs come in session
// order, so the calls are deterministic. It only reads.
func (f *Fleet) CatchUpFlows(fn func(leader, follower int32, bytesPerSec float64)) {
	nf := f.cu.nf()
	for fb := range f.brokers {
		for lb := range f.brokers {
			sum := 0.0
			for k := 0; k < nf; k++ {
				if ss := &f.sessions[f.cu.sessionIndex(fb, lb, k)]; ss.pos >= 0 {
					sum += ss.x
				}
			}
			if sum > 0 {
				fn(f.brokers[lb].id, f.brokers[fb].id, sum)
			}
		}
	}
}

// SteadyReplicationRate is the bytes per second broker id's leaders serve to their in-sync
// followers: the produce rate of each partition it leads, once per in-sync follower.
func (f *Fleet) SteadyReplicationRate(id int32) float64 {
	slot, ok := f.Slot(id)
	if !ok {
		return 0
	}
	_, _, repl := f.cu.steady(slot)
	return repl
}
