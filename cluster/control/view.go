package control

import (
	"fmt"

	"github.com/kraftlab/kraftlab/cluster/quorum"
	"github.com/kraftlab/kraftlab/engine/controller"
	"github.com/kraftlab/kraftlab/engine/metadata"
)

// Everything in this file reads state for observers (results, frames, lesson checks); nothing
// here changes it.

// NodeView is one node as observers see it: its quorum status plus what this layer adds.
type NodeView struct {
	quorum.NodeStatus
	// Applied: for a controller, the offset its committed image is at (offsets below it are
	// replayed); for a broker, the next offset OnBrokerCommitted will deliver.
	Applied int64
	// Active is true while the node runs an active engine controller, of ActiveEpoch since
	// ActivatedMs.
	Active      bool
	ActiveEpoch int32
	ActivatedMs int64
}

// Node describes one controller or broker.
func (c *Controllers) Node(id int32) (NodeView, error) {
	n, err := c.node(id)
	if err != nil {
		return NodeView{}, err
	}
	st, err := c.q.Node(quorum.NodeID(id))
	if err != nil {
		return NodeView{}, err
	}
	v := NodeView{NodeStatus: st}
	if n.brk != nil {
		v.Applied = n.brk.delivered
		return v, nil
	}
	v.Applied = n.ctl.applied
	if a := n.ctl.active; a != nil {
		v.Active, v.ActiveEpoch, v.ActivatedMs = true, a.epoch, a.since
	}
	return v, nil
}

// Voters lists the controller ids in configuration order.
func (c *Controllers) Voters() []int32 {
	out := make([]int32, len(c.controllers))
	for i, m := range c.controllers {
		out[i] = m.id
	}
	return out
}

// Brokers lists the attached broker ids in the order attached.
func (c *Controllers) Brokers() []int32 {
	var out []int32
	for _, b := range c.brokers {
		out = append(out, b.id)
	}
	return out
}

// Active returns the node running the active engine controller and its epoch. While a partitioned
// old leader still believes it leads, two nodes may run engines of different epochs; the higher
// epoch's is the one returned.
func (c *Controllers) Active() (node int32, epoch int32, ok bool) {
	if m := c.activeNode(); m != nil {
		return m.id, m.active.epoch, true
	}
	return -1, 0, false
}

// ActiveController is the active engine controller, or nil. Observers must treat it as
// read-only (Image, Metrics, TaskDeadline, TakeBalancerRuns): every write must go through this
// package, or its records never reach the quorum.
func (c *Controllers) ActiveController() *controller.Controller {
	if m := c.activeNode(); m != nil {
		return m.active.engine
	}
	return nil
}

// EngineOf is the engine controller node runs, or nil when it is not active (read-only, as
// ActiveController). A deposed leader that has not noticed yet still has one.
func (c *Controllers) EngineOf(node int32) *controller.Controller {
	if n, err := c.node(node); err == nil && n.ctl != nil {
		return n.ctl.engine()
	}
	return nil
}

// CommittedImage is a controller's committed image: the state its committed log replays to, at
// NodeView.Applied. Read-only. For a controller sharing the cluster's committed image
// (CommittedView) from behind its end, it is a copy rebuilt as a snapshot at that offset
// would rebuild it (broker registration offsets are the snapshot's).
func (c *Controllers) CommittedImage(node int32) (*metadata.Image, error) {
	n, err := c.node(node)
	if err != nil {
		return nil, err
	}
	if n.ctl == nil {
		return nil, fmt.Errorf("control: node %d is a broker; only controllers %v keep a committed image here", node, c.cfg.Quorum.Voters)
	}
	return n.ctl.imageAt(&c.iv), nil
}

// CommittedView is the cluster's committed image: every entry the cluster has committed
// (CommittedEnd), replayed as it was first committed (see Callbacks.BeforeCommit and AfterCommit).
// Read-only.
func (c *Controllers) CommittedView() *metadata.Image { return c.images.root.image }

// LatestSnapshot is the content of the latest snapshot a controller took or loaded, or nil. It is
// frozen first (see Snapshot), so the caller may keep it.
func (c *Controllers) LatestSnapshot(node int32) *Snapshot {
	if n, err := c.node(node); err == nil && n.ctl != nil {
		if n.ctl.snap != nil {
			n.ctl.snap.freeze()
		}
		return n.ctl.snap
	}
	return nil
}

// Committed returns the retained committed log, oldest first, as the cluster first committed it
// (DropCommittedBefore trims it). The slice aliases internal state: read it, don't keep it across
// simulation steps.
func (c *Controllers) Committed() []CommittedEntry { return c.log.entries }

// CommittedEnd is the offset after the last entry committed anywhere.
func (c *Controllers) CommittedEnd() int64 { return c.log.end() }

// CommittedSince returns the retained committed entries from offset on (aliasing, as Committed).
func (c *Controllers) CommittedSince(offset int64) []CommittedEntry { return c.log.since(offset) }

// DropCommittedBefore forgets retained committed entries below offset, once the caller has
// consumed them, so that a long run stays small. Slices Committed returned before are
// overwritten. Checks that need them (the one-log check of
// lagging nodes, late-reply accounting) are skipped below the retained range.
func (c *Controllers) DropCommittedBefore(offset int64) { c.log.dropBefore(offset) }

// SetTrimCommitted turns automatic trimming of the retained committed log on or off. On, the
// log keeps only the entries some node may still commit (from the lowest high watermark or
// latest snapshot end among all nodes), so a long run's memory stays bounded; Committed and
// CommittedSince then return that tail only. Off (the default) keeps everything.
func (c *Controllers) SetTrimCommitted(on bool) {
	c.log.trim = on
	c.log.trimAt = minTrim
}

// Stats returns the controllers' counters.
func (c *Controllers) Stats() Stats { return c.stats }

// QuorumStats returns the Raft layer's counters.
func (c *Controllers) QuorumStats() quorum.Stats { return c.q.Stats() }

// Config returns the configuration the controllers run with.
func (c *Controllers) Config() Config {
	cfg := c.cfg
	cfg.Quorum = c.q.Config()
	cfg.Static = c.cfg.Static.Clone()
	cfg.Brokers = append([]int32(nil), c.cfg.Brokers...)
	return cfg
}

// Violations returns this layer's invariant violations, in order; the quorum's are in
// QuorumViolations.
func (c *Controllers) Violations() []Violation { return append([]Violation(nil), c.iv.list...) }

// QuorumViolations returns the Raft layer's invariant violations.
func (c *Controllers) QuorumViolations() []quorum.Violation { return c.q.Violations() }

// Err returns the first violation of this layer, else the quorum's first, else nil. A runner
// checks it after each step and stops on the first.
func (c *Controllers) Err() error {
	if len(c.iv.list) > 0 {
		return c.iv.list[0]
	}
	return c.q.Err()
}

// Check sweeps for what incremental checks could miss (the quorum's whole-log sweep, and every
// running controller's committed image against its high watermark) and returns Err.
func (c *Controllers) Check() error {
	_ = c.q.Check()
	for _, m := range c.controllers {
		if !m.running {
			continue
		}
		st, _ := c.q.Node(quorum.NodeID(m.id))
		if m.applied != st.HighWatermark {
			c.iv.violate("controllers apply the committed log without gaps", fmt.Sprintf("node %d's high watermark is %d", m.id, st.HighWatermark),
				fmt.Sprintf("its committed image is at offset %d", m.applied))
		}
	}
	return c.Err()
}
