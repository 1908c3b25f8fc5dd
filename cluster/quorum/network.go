package quorum

import "github.com/kraftlab/kraftlab/cluster/sim"

// msgKind is a Raft RPC, named after Kafka's ApiKeys.
type msgKind uint8

const (
	msgFetch msgKind = iota + 1
	msgFetchResponse
	msgFetchSnapshot
	msgFetchSnapshotResponse
	msgVote
	msgVoteResponse
	msgBeginQuorumEpoch
	msgEndQuorumEpoch
)

// errCode is the partition-level error of a Fetch or FetchSnapshot response.
type errCode uint8

const (
	errNone               errCode = iota
	errFencedLeaderEpoch          // the requester's epoch is older than ours
	errUnknownLeaderEpoch         // the requester's epoch is newer than ours
	errNotLeader                  // we are not the leader (NOT_LEADER_OR_FOLLOWER)
	errSnapshotNotFound           // FetchSnapshot names a snapshot we no longer hold
)

// message is every RPC in one flat struct, so in-flight messages live in a reusable table rather
// than one allocation each. Fields are used per kind as commented.
type message struct {
	kind    msgKind
	from    int32
	to      int32
	fromInc uint32
	reqID   uint64 // matches a response to its request; for votes, the round
	epoch   int32  // the sender's epoch
	leader  int32  // responses and BeginQuorumEpoch: the sender's known leader (-1 none)
	err     errCode

	offset    int64 // Fetch: fetch offset; Vote: last offset; FetchSnapshot(+Response): position
	lastEpoch int32 // Fetch: last fetched epoch; Vote: last epoch
	hw        int64 // Fetch: the follower's HW; FetchResponse: the leader's HW (-1 unknown)
	preVote   bool
	granted   bool

	runs      []idRun // FetchResponse: the entries, as runs of consecutive arena ids
	diverging bool    // FetchResponse: DivergingEpoch is set
	divEpoch  int32
	divEnd    int64
	snapshot  bool       // FetchResponse: SnapshotId is set
	snapID    SnapshotID // FetchResponse, FetchSnapshot(+Response)
	snapSize  int64      // FetchSnapshotResponse
	chunk     int64      // FetchSnapshotResponse: bytes carried
	data      any        // FetchSnapshotResponse: the snapshot content, on the last chunk

	successors []int32 // EndQuorumEpoch: preferred successors, most up to date first
}

// Event kinds the quorum schedules on the simulation.
const (
	evDeliver int32 = iota + 1 // ID: message slot
	evWake                     // ID: node index
)

// handler is the quorum's sim.Handler. It is a separate unexported type so that the dispatch
// method is not part of the Quorum's API.
type handler[P any] struct{ q *Quorum[P] }

// HandleEvent runs one of the quorum's own events; only the simulation calls it.
func (h *handler[P]) HandleEvent(ev sim.Event) {
	switch ev.Kind {
	case evDeliver:
		h.q.deliver(ev.ID)
	case evWake:
		n := h.q.nodes[ev.ID]
		n.wakePending = false
		h.q.poll(n)
	}
}

// newMsg takes a free message slot. The pointer is valid only until the next newMsg.
func (q *Quorum[P]) newMsg(kind msgKind, from, to *node) (int32, *message) {
	var slot int32
	if k := len(q.freeMsgs); k > 0 {
		slot = q.freeMsgs[k-1]
		q.freeMsgs = q.freeMsgs[:k-1]
	} else {
		slot = int32(len(q.msgs))
		q.msgs = append(q.msgs, message{})
	}
	m := &q.msgs[slot]
	runs := m.runs[:0]
	*m = message{kind: kind, from: from.idx, to: to.idx, fromInc: from.inc, epoch: from.epoch, leader: -1, runs: runs}
	return slot, m
}

// post sends the message in slot; it arrives after the network delay plus jitter, in order with
// earlier messages on the same link, unless the link is cut or an endpoint is down by then.
func (q *Quorum[P]) post(slot int32) {
	m := &q.msgs[slot]
	q.stats.MessagesSent++
	if q.isCut(q.nodes[m.from], q.nodes[m.to]) {
		q.stats.MessagesDropped++
		if q.onMessage != nil {
			q.tell(m, -1)
		}
		q.freeMsg(slot)
		return
	}
	at := q.sim.Now() + q.cfg.NetworkDelayMs
	if q.cfg.NetworkJitterMs > 0 {
		at += q.net.Between(0, q.cfg.NetworkJitterMs+1)
		if last := q.linkClock(q.nodes[m.from], q.nodes[m.to]); last != nil {
			at = max(at, *last)
			*last = at
		}
	}
	if q.onMessage != nil {
		q.tell(m, at)
	}
	q.schedule(at, sim.Event{Target: q.h, Kind: evDeliver, ID: slot})
}

// linkClock is the latest delivery time on the directed link from → to. Every RPC has a voter at
// one end (observers only talk to voters), so the clocks live in small per-node arrays indexed by
// the voter rather than in a map keyed by node pairs.
func (q *Quorum[P]) linkClock(from, to *node) *int64 {
	switch {
	case from.voter():
		return &to.linkFromVoter[from.voterIdx]
	case to.voter():
		return &from.linkToVoter[to.voterIdx]
	}
	return nil
}

// freeMsg returns slot to the free list. It clears only what the scans of q.msgs read (kind,
// runs, data: compact and deletedSnapshot) and what could keep memory alive (successors);
// newMsg sets the rest. Zeroing the whole message, which has pointers, costs a bulk write
// barrier while the GC marks, which in wasm is a good part of a run.
func (q *Quorum[P]) freeMsg(slot int32) {
	m := &q.msgs[slot]
	m.kind, m.runs, m.data, m.successors = 0, m.runs[:0], nil, nil
	q.freeMsgs = append(q.freeMsgs, slot)
}

func (q *Quorum[P]) deliver(slot int32) {
	m := q.msgs[slot] // a copy: handling may grow q.msgs
	from, to := q.nodes[m.from], q.nodes[m.to]
	if !to.running || !from.running || from.inc != m.fromInc || q.isCut(from, to) {
		q.stats.MessagesDropped++
	} else {
		q.handle(to, &m)
		q.poll(to)
	}
	q.freeMsg(slot)
}

func (q *Quorum[P]) handle(n *node, m *message) {
	switch m.kind {
	case msgFetch:
		q.onFetch(n, m)
	case msgFetchResponse:
		q.onFetchResponse(n, m)
	case msgFetchSnapshot:
		q.onFetchSnapshot(n, m)
	case msgFetchSnapshotResponse:
		q.onFetchSnapshotResponse(n, m)
	case msgVote:
		q.onVote(n, m)
	case msgVoteResponse:
		q.onVoteResponse(n, m)
	case msgBeginQuorumEpoch:
		q.onBeginQuorumEpoch(n, m)
	case msgEndQuorumEpoch:
		q.onEndQuorumEpoch(n, m)
	}
}

// schedule queues a quorum event. Its times are computed from validated settings and never lie in
// the past, so a refusal is a model bug and is recorded as a violation rather than ignored.
func (q *Quorum[P]) schedule(at int64, ev sim.Event) (sim.Handle, bool) {
	h, err := q.sim.Schedule(at, ev)
	if err != nil {
		q.violate("internal", err.Error(), "the quorum only schedules at or after now")
		return h, false
	}
	return h, true
}

// arm makes sure node n wakes by time at. An earlier pending wake is kept: waking early is
// harmless (the node polls and re-arms), and it saves a cancel per message.
func (q *Quorum[P]) arm(n *node, at int64) {
	if at == never || (n.wakePending && n.wakeAt <= at) {
		return
	}
	if n.wakePending {
		q.sim.Cancel(n.wake)
	}
	at = max(at, q.sim.Now())
	if h, ok := q.schedule(at, sim.Event{Target: q.h, Kind: evWake, ID: n.idx}); ok {
		n.wake, n.wakeAt, n.wakePending = h, at, true
	}
}

func (q *Quorum[P]) nextReq() uint64 {
	q.reqSeq++
	return q.reqSeq
}
