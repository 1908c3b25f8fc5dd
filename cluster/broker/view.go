package broker

import (
	"fmt"

	"github.com/kraftlab/kraftlab/engine/metadata"
)

// SetLink cuts (up=false) or heals the network between brokers a and b. Followers across a cut
// stop fetching, so the leader shrinks them out of the ISR after replica.lag.time.max.ms. The
// assembly decides what else a cut means (controller and metadata reachability).
func (f *Fleet) SetLink(a, b int32, up bool) error {
	_, sa, err := f.slot(a)
	if err != nil {
		return err
	}
	_, sb, err := f.slot(b)
	if err != nil {
		return err
	}
	if sa == sb {
		return fmt.Errorf("broker: SetLink(%d, %d): a broker cannot be cut from itself", a, b)
	}
	n := len(f.brokers)
	if f.cut == nil {
		if up {
			return nil
		}
		f.cut = make([]bool, n*n)
	}
	if f.cut[sa*n+sb] == !up {
		return nil
	}
	f.cut[sa*n+sb], f.cut[sb*n+sa] = !up, !up
	for _, id := range [2]int32{a, b} {
		for _, p := range f.replicaParts(id) {
			f.roles.partitionTouched(p)
		}
	}
	return nil
}

// SetClientLink cuts or heals the network between producers and broker id: partitions it leads
// stop taking writes (producers time out) while replication goes on.
func (f *Fleet) SetClientLink(id int32, up bool) error {
	b, slot, err := f.slot(id)
	if err != nil {
		return err
	}
	if b.clientUp == up {
		return nil
	}
	b.clientUp = up
	for _, p := range f.replicaParts(id) {
		if ld := f.pt[p].leader; ld >= 0 && int(f.rp[f.pt[p].rbase+int32(ld)].rb) == slot {
			f.roles.updateProduce(p)
		}
	}
	f.cu.requestRealloc()
	return nil
}

// ClientReachable reports whether producers can reach broker id.
func (f *Fleet) ClientReachable(id int32) bool {
	if s, ok := f.slotOf[id]; ok {
		return f.brokers[s].clientUp
	}
	return false
}

// Load is one broker's traffic at this moment, with its capacities, as the produce-latency
// model and observers need it. Bytes are per second; requests per second.
type Load struct {
	// State is the broker's lifecycle state.
	State State
	// Active is set while the broker's replicas lead and follow.
	Active bool
	// LeaderBytesPerSec is produce appended as leader.
	LeaderBytesPerSec float64
	// FollowerBytesPerSec is in-sync replication appended as follower.
	FollowerBytesPerSec float64
	// CatchUpInBytesPerSec is catch-up fetched as a follower (out-of-sync replicas).
	CatchUpInBytesPerSec float64
	// CatchUpOutBytesPerSec is catch-up served as a leader, read from disk (old data).
	CatchUpOutBytesPerSec float64
	// ReplicationOutBytesPerSec is served to in-sync followers (from the page cache).
	ReplicationOutBytesPerSec float64
	// ConsumerOutBytesPerSec is ConsumerFanout × leader bytes (consumers read from the cache).
	ConsumerOutBytesPerSec float64
	// DiskWriteBytesPerSec is leader + follower + catch-up-in bytes; DiskWriteCapacity
	// includes the slow-disk factor.
	DiskWriteBytesPerSec float64
	DiskWriteCapacity    float64 // see DiskWriteBytesPerSec
	// DiskReadBytesPerSec is catch-up-out bytes; DiskReadCapacity includes the slow factor.
	DiskReadBytesPerSec float64
	DiskReadCapacity    float64 // see DiskReadBytesPerSec
	// NicInBytesPerSec is leader + follower + catch-up-in bytes, of NicInCapacity.
	NicInBytesPerSec float64
	NicInCapacity    float64 // see NicInBytesPerSec
	// NicOutBytesPerSec is consumer + replication + catch-up-out bytes, of NicOutCapacity.
	NicOutBytesPerSec float64
	NicOutCapacity    float64 // see NicOutBytesPerSec
	// ProduceRequestsPerSec is produce batches to partitions it leads.
	ProduceRequestsPerSec float64
	// FollowerFetchRequestsPerSec is fetches from in-sync followers: one per produce batch per
	// follower, an upper bound (a busy fetch session carries several batches per fetch).
	FollowerFetchRequestsPerSec float64
	// ConsumerFetchRequestsPerSec is ConsumerFanout fetches per produce batch.
	ConsumerFetchRequestsPerSec float64
	// CatchUpFetchRequestsPerSec is one fetch per catch-up session cycle it serves.
	CatchUpFetchRequestsPerSec float64
	// Leaders counts partitions led that take writes.
	Leaders int
}

// DiskWriteUtil, DiskReadUtil, NicInUtil and NicOutUtil are the resources' utilisations ρ
// (may exceed 1 when demand exceeds capacity).
func (l *Load) DiskWriteUtil() float64 { return l.DiskWriteBytesPerSec / l.DiskWriteCapacity }

// DiskReadUtil is the disk read utilisation.
func (l *Load) DiskReadUtil() float64 { return l.DiskReadBytesPerSec / l.DiskReadCapacity }

// NicInUtil is the inbound network utilisation.
func (l *Load) NicInUtil() float64 { return l.NicInBytesPerSec / l.NicInCapacity }

// NicOutUtil is the outbound network utilisation.
func (l *Load) NicOutUtil() float64 { return l.NicOutBytesPerSec / l.NicOutCapacity }

// Loads fills out[slot] for every broker (len(out) must be NumBrokers()). It costs O(brokers ×
// classes + active sessions), so a sampler can call it once per step.
func (f *Fleet) Loads(out []Load) {
	for b := range f.brokers {
		br := &f.brokers[b]
		l := &out[b]
		*l = Load{State: br.state, Active: br.active}
		var preq, freq float64
		for c := 0; c < f.k; c++ {
			r, q := f.clsRate[c], f.clsReq[c]
			l.LeaderBytesPerSec += float64(br.leadCnt[c]) * r
			l.FollowerBytesPerSec += float64(br.trackCnt[c]) * r
			l.ReplicationOutBytesPerSec += float64(br.replCnt[c]) * r
			preq += float64(br.leadCnt[c]) * q
			freq += float64(br.replCnt[c]) * q
			l.Leaders += int(br.leadCnt[c])
		}
		l.CatchUpInBytesPerSec, l.CatchUpOutBytesPerSec = max(0, br.catchIn), max(0, br.catchOut)
		l.ConsumerOutBytesPerSec = f.p.ConsumerFanout * l.LeaderBytesPerSec
		l.DiskWriteBytesPerSec = l.LeaderBytesPerSec + l.FollowerBytesPerSec + l.CatchUpInBytesPerSec
		l.DiskReadBytesPerSec = l.CatchUpOutBytesPerSec
		l.NicInBytesPerSec = l.DiskWriteBytesPerSec
		l.NicOutBytesPerSec = l.ConsumerOutBytesPerSec + l.ReplicationOutBytesPerSec + l.CatchUpOutBytesPerSec
		l.DiskWriteCapacity, l.DiskReadCapacity = f.cu.writeRate(b), f.cu.readRate(b)
		l.NicInCapacity, l.NicOutCapacity = f.p.NicInBytesPerSec, f.p.NicOutBytesPerSec
		l.ProduceRequestsPerSec, l.FollowerFetchRequestsPerSec = preq, freq
		l.ConsumerFetchRequestsPerSec = f.p.ConsumerFanout * preq
	}
	for _, s := range f.cu.active {
		if c := f.cu.cycleMs(int(s)); c > 0 {
			_, lb := f.cu.sessionBrokers(int(s))
			out[lb].CatchUpFetchRequestsPerSec += 1000 / c
		}
	}
}

// PathStatus says whether a produce request to a partition can complete now.
type PathStatus uint8

// The produce path's states.
const (
	// PathOK: a leader takes writes; latency comes from its stages and, under acks=all, its
	// in-sync followers.
	PathOK PathStatus = iota
	// PathNoLeader: no broker serves the partition (leader stopped, not yet replaced): the
	// producer gets NOT_LEADER_OR_FOLLOWER or a refused connection and retries after backoff.
	PathNoLeader
	// PathUnreachable: the leader runs but producers cannot reach it: requests time out.
	PathUnreachable
	// PathNotEnoughReplicas: acks=all and the ISR is below min.insync.replicas: refused with
	// NOT_ENOUGH_REPLICAS, retried after backoff.
	PathNotEnoughReplicas
	// PathDeleted: the partition's topic was deleted; producers no longer write to it.
	PathDeleted
)

// Path is what one produce request to a partition meets at this moment.
type Path struct {
	// Status says whether the request can complete.
	Status PathStatus
	// Leader is the serving leader's broker slot (-1 none).
	Leader int32
	// LeaderChangedAtMs is when the serving leader last changed, for the switch window.
	LeaderChangedAtMs int64
	// Followers is how many in-sync followers an acks=all request waits for, listed in
	// Follower (broker slots).
	Followers int
	Follower  [metadata.MaxReplicas]int32 // see Followers
	// HolMs[i] is the fetch cycle of Follower[i]'s session when that session also carries
	// catch-up (head-of-line blocking), else 0.
	HolMs [metadata.MaxReplicas]float64
	// Waiting is set when an ISR member is not caught up, so the high watermark cannot pass an
	// acks=all request until the leader drops that member (or it catches up).
	Waiting bool
	// WaitUntilMs is, when Waiting, the leader's next isr-expiration run that will drop it.
	WaitUntilMs int64
}

// PartitionPath fills out what a produce request to partition p meets now. It allocates
// nothing, for the latency sampler's hot path.
func (f *Fleet) PartitionPath(p int32, out *Path) {
	out.Followers, out.Waiting, out.WaitUntilMs = 0, false, 0
	// The replicas' lines are asked for before the partition's state arrives, from where the
	// layout puts them when every partition has the same replication factor, else from route.
	if rf := int32(f.uniformRF); rf > 0 {
		f.warm.sink += f.rp[p*rf].rpart + f.rp[p*rf+rf-1].rpart
	}
	rt := &f.route[p]
	out.Leader, out.LeaderChangedAtMs = -1, rt.changed
	if f.uniformRF == 0 && rt.rf > 0 {
		f.warm.sink += f.rp[rt.rbase].rpart + f.rp[rt.rbase+int32(rt.rf)-1].rpart
	}
	if f.pt[p].deleted {
		out.Status = PathDeleted
		return
	}
	ld := f.pt[p].leader
	if ld < 0 {
		out.Status = PathNoLeader
		return
	}
	base, n := f.pt[p].rbase, int32(f.pt[p].rf)
	lb := f.rp[base+int32(ld)].rb
	out.Leader = int32(lb)
	if !f.brokers[lb].clientUp {
		out.Status = PathUnreachable
		return
	}
	if !f.pt[p].produce {
		out.Status = PathNotEnoughReplicas
		return
	}
	out.Status = PathOK
	period := f.isrPeriod()
	tick := f.brokers[lb].isrTickAt
	for i := int32(0); i < n; i++ {
		if int8(i) == ld || f.pt[p].isrMax&(1<<i) == 0 {
			continue
		}
		r := base + i
		if f.rp[r].rstate != rsTracking {
			due := f.lastCU[r] + f.p.ReplicaLagTimeMaxMs + 1
			at := tick
			if due > at {
				at += (due - at + period - 1) / period * period
			}
			if !out.Waiting || at < out.WaitUntilMs {
				out.WaitUntilMs = at
			}
			out.Waiting = true
			continue
		}
		fb := f.rp[r].rb
		out.Follower[out.Followers] = int32(fb)
		out.HolMs[out.Followers] = 0
		if s := f.cu.sessionIndex(int(fb), int(lb), int(f.pt[p].fetcher)); f.sessions[s].n > 0 {
			out.HolMs[out.Followers] = f.cu.cycleMs(s)
		}
		out.Followers++
	}
}

// ReplicaState is what a replica is doing.
type ReplicaState uint8

// The replica states.
const (
	// ReplicaDead: its broker's replicas are not running.
	ReplicaDead ReplicaState = iota
	// ReplicaStalled: running but not fetching (no leader, stale epoch, link cut).
	ReplicaStalled
	// ReplicaLeader: the partition's serving leader.
	ReplicaLeader
	// ReplicaInSync: fetching and caught up with the leader.
	ReplicaInSync
	// ReplicaCatchingUp: fetching a backlog.
	ReplicaCatchingUp
)

// The internal replica states are the exported ones.
var _ = [1]struct{}{}[uint8(ReplicaDead)^rsDead|uint8(ReplicaStalled)^rsStalled|uint8(ReplicaLeader)^rsLeader|
	uint8(ReplicaInSync)^rsTracking|uint8(ReplicaCatchingUp)^rsCatching]

var replicaStateNames = [...]string{"dead", "stalled", "leader", "in-sync", "catching-up"}

// String names the state.
func (s ReplicaState) String() string {
	if int(s) < len(replicaStateNames) {
		return replicaStateNames[s]
	}
	return fmt.Sprintf("ReplicaState(%d)", s)
}

// ReplicaInfo is one replica's state for observers and tests.
type ReplicaInfo struct {
	// State is what the replica does.
	State ReplicaState
	// LogEnd is its log-end offset in bytes; Backlog is how far it trails the leader.
	LogEnd, Backlog float64
	// LastCaughtUpMs is when it last was caught up (as the leader's lastCaughtUpTime).
	LastCaughtUpMs int64
}

// PartitionInfo is one partition's state as its serving leader sees it.
type PartitionInfo struct {
	// Leader is the serving leader's broker id (-1 none).
	Leader int32
	// LeaderEpoch is the epoch the serving leader runs with.
	LeaderEpoch int32
	// Producing is set while the leader takes writes.
	Producing bool
	// LogEnd, HighWatermark and EpochStart are in bytes.
	LogEnd, HighWatermark, EpochStart float64
	// MaximalIsr lists the leader's maximal ISR (committed plus pending expansion) by id.
	MaximalIsr []int32
	// AlterPending is set while an AlterPartition of this partition is queued, in flight or
	// waiting for its metadata record.
	AlterPending bool
	// LeaderChangedAtMs is when the serving leader last changed.
	LeaderChangedAtMs int64
}

// Partition returns partition p's state (p is the index in the metadata image).
func (f *Fleet) Partition(p int32) (PartitionInfo, error) {
	if p < 0 || int(p) >= len(f.pt) {
		return PartitionInfo{}, fmt.Errorf("broker: partition index %d; the image has %d partitions", p, len(f.pt))
	}
	now := f.now()
	info := PartitionInfo{Leader: -1, LeaderEpoch: f.pt[p].servEp, Producing: f.pt[p].produce, LogEnd: f.leaderEnd(p, now),
		HighWatermark: f.hw(p, now), EpochStart: f.epochSt[p], AlterPending: f.pt[p].alterSt != alNone,
		LeaderChangedAtMs: f.route[p].changed}
	if ld := f.pt[p].leader; ld >= 0 {
		info.Leader = f.brokers[f.rp[f.pt[p].rbase+int32(ld)].rb].id
		reps := f.replicas(p)
		for i := range reps {
			if f.pt[p].isrMax&(1<<i) != 0 {
				info.MaximalIsr = append(info.MaximalIsr, reps[i])
			}
		}
	}
	return info, nil
}

// Serving returns who serves partition p (a broker id, -1 for none), under which leader
// epoch, and its high watermark in bytes: the three facts the replica invariants read on
// every sample. Unlike Partition it builds no ISR list, so checking thousands of partitions
// a sample allocates nothing. p must be an index of the metadata image.
func (f *Fleet) Serving(p int32) (leader, leaderEpoch int32, highWatermark float64) {
	leader = -1
	if ld := f.pt[p].leader; ld >= 0 {
		leader = f.brokers[f.rp[f.pt[p].rbase+int32(ld)].rb].id
	}
	return leader, f.pt[p].servEp, f.hw(p, f.now())
}

// Replica returns broker id's replica of partition p.
func (f *Fleet) Replica(p int32, id int32) (ReplicaInfo, error) {
	_, slot, err := f.slot(id)
	if err != nil {
		return ReplicaInfo{}, err
	}
	if p < 0 || int(p) >= len(f.pt) {
		return ReplicaInfo{}, fmt.Errorf("broker: partition index %d; the image has %d partitions", p, len(f.pt))
	}
	r := f.replicaOf(p, slot)
	if r < 0 {
		return ReplicaInfo{}, fmt.Errorf("broker: broker %d holds no replica of partition index %d", id, p)
	}
	now := f.now()
	end := f.pos(r, now)
	return ReplicaInfo{State: ReplicaState(f.rp[r].rstate), LogEnd: end, Backlog: f.leaderEnd(p, now) - end,
		LastCaughtUpMs: f.lastCU[r]}, nil
}

// OutOfSync counts broker id's replicas that are neither leading nor in sync, among
// partitions that have a serving leader: the replicas still to catch up. It reads the count the
// fleet keeps as replica states and serving leaders change (see OutOfSyncAll), so it costs the
// same at any partition count; a lesson's goals ask it of every broker at every check.
func (f *Fleet) OutOfSync(id int32) int {
	_, slot, err := f.slot(id)
	if err != nil {
		return 0
	}
	return int(f.oos[slot])
}

// ActiveSessions is the number of fetch sessions carrying catch-up.
func (f *Fleet) ActiveSessions() int { return len(f.cu.active) }

// Acks is the producers' acks setting the brokers run with (Params.Acks).
func (f *Fleet) Acks() Acks { return f.p.Acks }
