package quorum

import "fmt"

// Kill stops node. Its log, snapshots and election state survive; everything else is lost, and
// messages in flight to or from it are dropped.
func (q *Quorum[P]) Kill(id NodeID) error {
	n, err := q.running(id)
	if err != nil {
		return err
	}
	if q.trace != nil {
		q.tracef(n, "kill (was %s epoch=%d)", n.state, n.epoch)
	}
	n.running = false
	if n.state == Leader {
		q.endLeadership(n, ReasonKilled)
	}
	n.fetch = fetcher{}
	if n.wakePending {
		q.sim.Cancel(n.wake)
		n.wakePending = false
	}
	return nil
}

// Start restarts a killed node from its durable state: it reloads its latest snapshot, and comes
// back Resigned if it was the leader, a Follower if it knew a leader, Unattached otherwise.
func (q *Quorum[P]) Start(id NodeID) error {
	n, err := q.lookup(id)
	if err != nil {
		return err
	}
	if n.running {
		return fmt.Errorf("quorum: node %d is already running; Kill it first", id)
	}
	q.boot(n)
	return nil
}

func (q *Quorum[P]) linkKey(a, b *node) uint64 {
	lo, hi := a.idx, b.idx
	if lo > hi {
		lo, hi = hi, lo
	}
	return uint64(lo)<<32 | uint64(hi)
}

func (q *Quorum[P]) pair(a, b NodeID) (*node, *node, error) {
	na, err := q.lookup(a)
	if err != nil {
		return nil, nil, err
	}
	nb, err := q.lookup(b)
	if err != nil {
		return nil, nil, err
	}
	if na == nb {
		return nil, nil, fmt.Errorf("quorum: link %d-%d joins a node to itself; name two different nodes", a, b)
	}
	return na, nb, nil
}

// Cut drops every message between a and b, in both directions, until Heal.
func (q *Quorum[P]) Cut(a, b NodeID) error {
	na, nb, err := q.pair(a, b)
	if err != nil {
		return err
	}
	q.cuts[q.linkKey(na, nb)] = struct{}{}
	if q.trace != nil {
		q.tracef(na, "cut %d", b)
	}
	return nil
}

// Heal restores the link between a and b.
func (q *Quorum[P]) Heal(a, b NodeID) error {
	na, nb, err := q.pair(a, b)
	if err != nil {
		return err
	}
	delete(q.cuts, q.linkKey(na, nb))
	if q.trace != nil {
		q.tracef(na, "heal %d", b)
	}
	return nil
}

// HealAll restores every link.
func (q *Quorum[P]) HealAll() {
	clear(q.cuts)
	if q.trace != nil {
		fmt.Fprintf(q.trace, "%8d       heal all\n", q.sim.Now())
	}
}

func (q *Quorum[P]) isCut(a, b *node) bool {
	if len(q.cuts) == 0 {
		return false
	}
	_, cut := q.cuts[q.linkKey(a, b)]
	return cut
}
