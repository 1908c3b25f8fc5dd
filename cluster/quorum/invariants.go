package quorum

import (
	"fmt"
	"sort"
)

// Violation is a broken safety invariant: the rule, when, under which seed, and the two facts that
// disagree. Replaying the seed reproduces it exactly.
type Violation struct {
	Seed     uint64 // the run's seed: replaying it reproduces the violation
	AtMs     int64  // virtual time of detection
	Rule     string // the invariant, e.g. "one committed prefix"
	Fact     string // what was established first
	Conflict string // what contradicts it
}

// Error renders the violation; Violation is an error so tests can require.NoError on it.
func (v Violation) Error() string {
	return fmt.Sprintf("quorum invariant %q broken at t=%d ms (seed %d): %s, but %s", v.Rule, v.AtMs, v.Seed, v.Fact, v.Conflict)
}

// ledgerSeg records the first commit of a stretch of offsets anywhere: offsets from offset up to
// the next segment (or the ledger's end) were committed by node at atMs with consecutive ids
// from id, all of one epoch. One segment stands for a whole high-watermark move, so the ledger
// costs a few words per commit rather than per entry.
type ledgerSeg struct {
	offset int64
	id     int64
	epoch  int32
	node   NodeID
	atMs   int64
}

// invariants holds what the checker remembers across nodes: the committed prefix as first seen
// (the ledger, offsets [base, endOff)), the leader of each epoch, and the violations found.
type invariants struct {
	seed       uint64
	base       int64 // first offset still recorded
	endOff     int64
	segs       []ledgerSeg // segs[0].offset may lie below base
	leaders    []NodeID    // by epoch; NoNode where none was elected
	violations []Violation
}

func (v *invariants) end() int64 { return v.endOff }

// segAt is the index of the segment holding offset, which must lie in [base, end).
func (v *invariants) segAt(offset int64) int {
	k := len(v.segs) - 1
	if k > 8 && v.segs[k].offset > offset {
		return sort.Search(len(v.segs), func(i int) bool { return v.segs[i].offset > offset }) - 1
	}
	for v.segs[k].offset > offset {
		k--
	}
	return k
}

// idAt is the id committed at offset, and how many offsets from there (up to to) continue the
// same segment.
func (v *invariants) idAt(offset, to int64) (int64, int64) {
	k := v.segAt(offset)
	s := &v.segs[k]
	end := v.endOff
	if k+1 < len(v.segs) {
		end = v.segs[k+1].offset
	}
	return s.id + offset - s.offset, min(end, to) - offset
}

// add records the first commit of n offsets from the ledger's end, with ids from id.
func (v *invariants) add(id, n int64, epoch int32, node NodeID, atMs int64) {
	if k := len(v.segs) - 1; k >= 0 && v.endOff > v.base {
		s := &v.segs[k]
		if s.id+v.endOff-s.offset == id && s.epoch == epoch && s.node == node && s.atMs == atMs {
			v.endOff += n
			return
		}
	}
	if v.endOff == v.base {
		v.segs = v.segs[:0]
	}
	v.segs = append(v.segs, ledgerSeg{offset: v.endOff, id: id, epoch: epoch, node: node, atMs: atMs})
	v.endOff += n
}

func (v *invariants) trimBelow(offset int64) {
	if offset <= v.base || offset > v.endOff {
		return
	}
	k := 0
	for k+1 < len(v.segs) && v.segs[k+1].offset <= offset {
		k++
	}
	if offset == v.endOff {
		k = len(v.segs)
	}
	v.segs = v.segs[:copy(v.segs, v.segs[k:])]
	v.base = offset
}

func (q *Quorum[P]) violate(rule, fact, conflict string) {
	viol := Violation{Seed: q.inv.seed, AtMs: q.sim.Now(), Rule: rule, Fact: fact, Conflict: conflict}
	q.inv.violations = append(q.inv.violations, viol)
	if q.trace != nil {
		fmt.Fprintf(q.trace, "%8d       VIOLATION %s\n", q.sim.Now(), viol.Error())
	}
}

// Violations returns every invariant violation found so far, in order.
func (q *Quorum[P]) Violations() []Violation { return append([]Violation(nil), q.inv.violations...) }

// Err returns the first violation, or nil.
func (q *Quorum[P]) Err() error {
	if len(q.inv.violations) == 0 {
		return nil
	}
	return q.inv.violations[0]
}

func (q *Quorum[P]) describe(n *node, offset int64) string {
	e := q.arena.get(n.log.id(offset))
	return fmt.Sprintf("node %d holds epoch %d entry #%d at offset %d", n.id, e.Epoch, n.log.id(offset), offset)
}

func (q *Quorum[P]) describeRow(offset int64) string {
	s := &q.inv.segs[q.inv.segAt(offset)]
	return fmt.Sprintf("node %d committed offset %d as epoch %d entry #%d at t=%d ms", s.node, offset, s.epoch, s.id+offset-s.offset, s.atMs)
}

// find returns the first offset in [from, to) at which n's log holds the ledger's entry (equal)
// or another one (!equal); the range must lie in both. It steps through stretches where both
// hold consecutive ids, in which the two agree at every offset or at none.
func (q *Quorum[P]) find(n *node, from, to int64, equal bool) (int64, bool) {
	for o := from; o < to; {
		r := n.log.run(o, to)
		id, k := q.inv.idAt(o, o+r.n)
		if (id == r.id) == equal {
			return o, true
		}
		o += k
	}
	return 0, false
}

// checkNewLeader: at most one leader per epoch, and (Raft's leader completeness) the new leader
// holds every committed entry its log still covers.
func (q *Quorum[P]) checkNewLeader(n *node) {
	for int(n.epoch) >= len(q.inv.leaders) {
		q.inv.leaders = append(q.inv.leaders, NoNode)
	}
	if prev := q.inv.leaders[n.epoch]; prev != NoNode && prev != n.id {
		q.violate("one leader per epoch", fmt.Sprintf("node %d was elected leader of epoch %d", prev, n.epoch),
			fmt.Sprintf("node %d was elected leader of the same epoch", n.id))
	}
	q.inv.leaders[n.epoch] = n.id
	if end := q.inv.end(); end > n.log.end() {
		q.violate("leader completeness", q.describeRow(end-1),
			fmt.Sprintf("node %d became leader of epoch %d with log end offset %d", n.id, n.epoch, n.log.end()))
		return
	}
	if o, ok := q.find(n, max(q.inv.base, n.log.start), q.inv.end(), false); ok {
		q.violate("leader completeness", q.describeRow(o), q.describe(n, o)+fmt.Sprintf(" as it becomes leader of epoch %d", n.epoch))
	}
}

// checkCommit runs as n's high watermark moves from from to to. Every node must commit the same
// entry at each offset; the first commit of an offset anywhere goes in the ledger. It returns the
// bytes committed, for the snapshot policy.
func (q *Quorum[P]) checkCommit(n *node, from, to int64) int64 {
	if to < from {
		q.violate("high watermark never decreases", fmt.Sprintf("node %d had high watermark %d", n.id, from),
			fmt.Sprintf("it was set to %d", to))
		return 0
	}
	// Offsets go by in stretches where n's log holds consecutive ids and the ledger has one
	// segment (or nothing yet), so that a stretch agrees with the ledger everywhere or nowhere.
	var bytes int64
	for o := max(from, n.log.start); o < to; {
		r := n.log.run(o, to)
		switch end := q.inv.end(); {
		case o < q.inv.base:
			r.n = min(r.n, q.inv.base-o)
		case o < end:
			var id int64
			id, r.n = q.inv.idAt(o, o+r.n)
			if id != r.id {
				q.violate("one committed prefix", q.describeRow(o), q.describe(n, o)+fmt.Sprintf(" and commits it (high watermark -> %d)", to))
			}
		case o == end:
			r.n = q.arena.sameEpoch(r.id, r.n)
			q.inv.add(r.id, r.n, q.arena.get(r.id).Epoch, n.id, q.sim.Now())
		default:
			q.violate("one committed prefix", fmt.Sprintf("the committed prefix ends at offset %d", end),
				fmt.Sprintf("node %d commits offset %d", n.id, o))
		}
		bytes += q.arena.bytes(r.id, r.n)
		o += r.n
	}
	return bytes
}

// checkTruncation: a truncation may only remove uncommitted entries.
func (q *Quorum[P]) checkTruncation(n *node, to int64) {
	if to < n.hw {
		q.violate("committed entries are never truncated", fmt.Sprintf("node %d has high watermark %d", n.id, n.hw),
			fmt.Sprintf("it truncates its log to offset %d", to))
		return
	}
	if o, ok := q.find(n, max(to, q.inv.base, n.log.start), min(n.log.end(), q.inv.end()), true); ok {
		q.violate("committed entries are never truncated", q.describeRow(o), q.describe(n, o)+fmt.Sprintf(" and truncates to offset %d", to))
	}
}

// checkInstall: a downloaded snapshot must cover only committed offsets, ending in the epoch the
// ledger recorded for its last offset.
func (q *Quorum[P]) checkInstall(n *node, id SnapshotID) {
	last := id.EndOffset - 1
	switch {
	case last >= q.inv.end():
		q.violate("snapshots hold only committed data", fmt.Sprintf("the committed prefix ends at offset %d", q.inv.end()),
			fmt.Sprintf("node %d installs a snapshot ending at %d", n.id, id.EndOffset))
	case last >= q.inv.base && q.inv.segs[q.inv.segAt(last)].epoch != id.Epoch:
		q.violate("snapshots hold only committed data", q.describeRow(last),
			fmt.Sprintf("node %d installs a snapshot whose last entry has epoch %d", n.id, id.Epoch))
	}
}

// Check sweeps every node for the invariants that incremental checks could miss, records any new
// violation, and returns the first violation of the run (nil if none).
func (q *Quorum[P]) Check() error {
	for _, n := range q.nodes {
		if n.running && (n.hw > n.log.end() || n.hw < n.log.start) {
			q.violate("high watermark within the log", fmt.Sprintf("node %d has log [%d, %d)", n.id, n.log.start, n.log.end()),
				fmt.Sprintf("its high watermark is %d", n.hw))
		}
		if o, ok := q.find(n, max(q.inv.base, n.log.start), min(n.log.end(), n.hw, q.inv.end()), false); ok {
			q.violate("one committed prefix", q.describeRow(o), q.describe(n, o)+" below its high watermark")
		}
	}
	return q.Err()
}
