package quorum

import "fmt"

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

// ledgerRow records the first commit of an offset anywhere: which entry, and who saw it when.
type ledgerRow struct {
	id    int64
	epoch int32
	node  NodeID
	atMs  int64
}

// invariants holds what the checker remembers across nodes: the committed prefix as first seen
// (the ledger), the leader of each epoch, and the violations found.
type invariants struct {
	seed       uint64
	base       int64 // offset of rows[0]
	rows       []ledgerRow
	leaders    []NodeID // by epoch; NoNode where none was elected
	violations []Violation
}

func (v *invariants) end() int64 { return v.base + int64(len(v.rows)) }

func (v *invariants) trimBelow(offset int64) {
	if k := offset - v.base; k > 0 && k <= int64(len(v.rows)) {
		v.rows = v.rows[:copy(v.rows, v.rows[k:])]
		v.base = offset
	}
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
	r := q.inv.rows[offset-q.inv.base]
	return fmt.Sprintf("node %d committed offset %d as epoch %d entry #%d at t=%d ms", r.node, offset, r.epoch, r.id, r.atMs)
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
	for o := max(q.inv.base, n.log.start); o < q.inv.end(); o++ {
		if q.inv.rows[o-q.inv.base].id != n.log.id(o) {
			q.violate("leader completeness", q.describeRow(o), q.describe(n, o)+fmt.Sprintf(" as it becomes leader of epoch %d", n.epoch))
			return
		}
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
	var bytes int64
	for o := max(from, n.log.start); o < to; o++ {
		id := n.log.id(o)
		e := q.arena.get(id)
		bytes += int64(e.Bytes)
		switch end := q.inv.end(); {
		case o < q.inv.base:
		case o < end:
			if q.inv.rows[o-q.inv.base].id != id {
				q.violate("one committed prefix", q.describeRow(o), q.describe(n, o)+fmt.Sprintf(" and commits it (high watermark -> %d)", to))
			}
		case o == end:
			q.inv.rows = append(q.inv.rows, ledgerRow{id: id, epoch: e.Epoch, node: n.id, atMs: q.sim.Now()})
		default:
			q.violate("one committed prefix", fmt.Sprintf("the committed prefix ends at offset %d", end),
				fmt.Sprintf("node %d commits offset %d", n.id, o))
		}
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
	for o := max(to, q.inv.base, n.log.start); o < min(n.log.end(), q.inv.end()); o++ {
		if q.inv.rows[o-q.inv.base].id == n.log.id(o) {
			q.violate("committed entries are never truncated", q.describeRow(o), q.describe(n, o)+fmt.Sprintf(" and truncates to offset %d", to))
			return
		}
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
	case last >= q.inv.base && q.inv.rows[last-q.inv.base].epoch != id.Epoch:
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
		for o := max(q.inv.base, n.log.start); o < min(n.log.end(), n.hw, q.inv.end()); o++ {
			if q.inv.rows[o-q.inv.base].id != n.log.id(o) {
				q.violate("one committed prefix", q.describeRow(o), q.describe(n, o)+" below its high watermark")
				break
			}
		}
	}
	return q.Err()
}
