package quorum

import (
	"fmt"
	"slices"
)

// Nodes lists every node id: voters in configuration order, then observers in the order added.
func (q *Quorum[P]) Nodes() []NodeID {
	ids := make([]NodeID, len(q.nodes))
	for i, n := range q.nodes {
		ids[i] = n.id
	}
	return ids
}

// Node describes one node.
func (q *Quorum[P]) Node(id NodeID) (NodeStatus, error) {
	n, err := q.lookup(id)
	if err != nil {
		return NodeStatus{}, err
	}
	st := NodeStatus{
		ID: n.id, Voter: n.voter(), Running: n.running, State: n.state, Epoch: n.epoch,
		LeaderID: NoNode, VotedFor: NoNode,
		LogStartOffset: n.log.start, EndOffset: n.log.end(), LastEpoch: n.log.lastEpoch(), HighWatermark: n.hw,
	}
	if n.leader >= 0 {
		st.LeaderID = q.nodes[n.leader].id
	}
	if n.votedFor >= 0 {
		st.VotedFor = q.nodes[n.votedFor].id
	}
	if snap, ok := n.latestSnapshot(); ok {
		st.Snapshot, st.HasSnapshot = snap.ID, true
	}
	return st, nil
}

// Leader returns the running leader with the highest epoch, if any. During a partition an old
// leader may still believe it leads a lower epoch; it is not the one returned.
func (q *Quorum[P]) Leader() (NodeID, int32, bool) {
	best := -1
	for i, n := range q.nodes {
		if n.running && n.state == Leader && (best < 0 || n.epoch > q.nodes[best].epoch) {
			best = i
		}
	}
	if best < 0 {
		return NoNode, 0, false
	}
	return q.nodes[best].id, q.nodes[best].epoch, true
}

// Read appends node's entries at offsets [from, to) to dst and returns it. The range must lie in
// the node's log: at or after its log start offset and at or before its end offset.
func (q *Quorum[P]) Read(id NodeID, from, to int64, dst []Entry[P]) ([]Entry[P], error) {
	n, err := q.lookup(id)
	if err != nil {
		return dst, err
	}
	if from > to || from < n.log.start || to > n.log.end() {
		return dst, fmt.Errorf("quorum: Read(node %d, %d, %d) is outside the log [%d, %d); from must be >= the log start offset and <= to, and to <= the end offset",
			id, from, to, n.log.start, n.log.end())
	}
	dst = slices.Grow(dst, int(to-from)) // one allocation for a bootstrap's read, not one per run
	for o := from; o < to; {
		r := n.log.run(o, to)
		dst = q.arena.appendRange(dst, r.id, r.n)
		o += r.n
	}
	return dst, nil
}

// EntryAt returns node's entry at offset, which must lie in its log.
func (q *Quorum[P]) EntryAt(id NodeID, offset int64) (Entry[P], error) {
	n, err := q.lookup(id)
	if err != nil {
		return Entry[P]{}, err
	}
	if offset < n.log.start || offset >= n.log.end() {
		return Entry[P]{}, fmt.Errorf("quorum: EntryAt(node %d, %d) is outside the log [%d, %d)", id, offset, n.log.start, n.log.end())
	}
	return *q.arena.get(n.log.id(offset)), nil
}
