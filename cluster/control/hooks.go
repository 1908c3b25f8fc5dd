package control

import (
	"fmt"

	"github.com/kraftlab/kraftlab/cluster/quorum"
	"github.com/kraftlab/kraftlab/engine/metadata"
)

// --- the quorum's hooks ----------------------------------------------------------------------

// quorumHooks is Controllers' side of the quorum: the quorum.Hooks it runs, a separate type so
// that they are not part of the Controllers API. Each hook that may reach the embedding layer
// counts itself in hookDepth.
type quorumHooks struct{ c *Controllers }

func (h *quorumHooks) hooks() quorum.Hooks {
	return quorum.Hooks{
		BecameLeader:  h.becameLeader,
		Resigned:      h.resigned,
		HighWatermark: h.highWatermark,
		TakeSnapshot:  h.takeSnapshot,
		LoadSnapshot:  h.loadSnapshot,
		// Snapshots keep their partitions in the taking controller's image until they are
		// frozen; deleting one lets the controller stop keeping old values for it.
		DeletedSnapshot: h.deletedSnapshot,
	}
}

func (h *quorumHooks) enter() func() {
	h.c.hookDepth++
	return func() { h.c.hookDepth-- }
}

// becameLeader notes the epoch's start; activation waits for it to commit (maybeActivate). The
// hook must not append, so even a single voter, which commits at once, activates from an event.
func (h *quorumHooks) becameLeader(id quorum.NodeID, epoch int32) {
	c := h.c
	m := c.byID[int32(id)].ctl
	st, _ := c.q.Node(id)
	m.activation = activation{waiting: true, epoch: epoch, start: st.EndOffset - 1}
	c.schedule(c.sim.Now(), evActivate, m, int64(epoch))
}

func (h *quorumHooks) resigned(id quorum.NodeID, epoch int32, _ quorum.Reason) {
	defer h.enter()()
	h.c.deactivate(h.c.byID[int32(id)].ctl)
}

// highWatermark applies newly committed entries: into a controller's committed image, or to a
// broker through OnBrokerCommitted; the first node to commit an offset extends the cluster's
// committed log.
//
// A node committing offsets the cluster has already committed (every node but the first, a
// hundred brokers among them) gets them straight from the cluster's committed log. The quorum
// has already checked that its log holds the very same entries there (its "one committed
// prefix" invariant compares every offset); this layer compares the last one, payload and
// epoch, so that a mix-up between the two logs still shows.
func (h *quorumHooks) highWatermark(id quorum.NodeID, from, to int64) {
	defer h.enter()()
	c := h.c
	n := c.byID[int32(id)]
	var entries []metadata.Entry
	if c.log.holds(from, to) {
		entries = c.log.slice(from, to)
		if qe, err := c.q.EntryAt(id, to-1); err != nil {
			c.iv.violate("committed entries are readable", fmt.Sprintf("node %d committed offset %d", id, to-1), err.Error())
		} else {
			c.log.checkLast(&c.iv, int32(id), to-1, qe)
		}
	} else {
		buf, err := c.q.Read(id, from, to, c.log.qbuf[:0])
		c.log.qbuf = buf[:0]
		if err != nil {
			c.iv.violate("committed entries are readable", fmt.Sprintf("node %d's high watermark moved from %d to %d", id, from, to), err.Error())
			return
		}
		entries = c.log.convert(buf)
		defer c.log.releaseBuffers(len(buf))
		c.commitFresh(c.log.extend(&c.iv, int32(id), buf, entries, c.sim.Now()))
	}
	if m := n.ctl; m != nil {
		m.replay(c.images, from, to, entries)
		if m.activation.waiting && to > m.activation.start {
			c.schedule(c.sim.Now(), evActivate, m, int64(m.activation.epoch))
		}
		return
	}
	b := n.brk
	// The entries are consecutive offsets from from; skip those the broker already has.
	start := int(min(max(b.delivered-from, 0), int64(len(entries))))
	if start < len(entries) {
		if entries[start].Offset != b.delivered {
			c.iv.violate("brokers get the committed log without gaps", fmt.Sprintf("broker %d had entries up to offset %d", b.id, b.delivered),
				fmt.Sprintf("its next committed entry is at offset %d", entries[start].Offset))
		}
		b.delivered = to
		if c.cb.OnBrokerCommitted != nil {
			c.cb.OnBrokerCommitted(b.id, entries[start:])
		}
	}
}

// commitFresh takes entries the cluster has just committed for the first time: it replays
// them into the shared committed image (between BeforeCommit and AfterCommit), settles the
// replies waiting for them, hands them to OnCommitted and trims the committed log.
func (c *Controllers) commitFresh(fresh []CommittedEntry) {
	if len(fresh) == 0 {
		return
	}
	c.images.commitRoot(fresh, c.cb.BeforeCommit, c.cb.AfterCommit)
	n := c.log.resolvePledges(fresh)
	c.stats.LostReplies += n.lost
	c.stats.LateReplies += n.late
	c.stats.ShortCommitWaits += n.short
	if c.cb.OnCommitted != nil {
		c.cb.OnCommitted(fresh)
	}
	if c.log.dueTrim() {
		c.trimCommitted()
	}
}

// trimCommitted drops the committed entries below the lowest offset any node may still commit:
// a running node commits from its high watermark on, and a restarted one from its latest
// snapshot (or from offset 0 without one). Every check that reads the committed log therefore
// still sees every entry it will be asked about.
func (c *Controllers) trimCommitted() {
	if low, ok := c.lowestRestart(); ok {
		c.log.trimTo(low)
	}
}

// lowestRestart is the lowest offset any node may still commit (see trimCommitted); ok is
// false when a node cannot be read.
func (c *Controllers) lowestRestart() (low int64, ok bool) {
	low = c.log.end()
	see := func(id int32) bool {
		st, err := c.q.Node(quorum.NodeID(id))
		if err != nil {
			return false
		}
		restart := int64(0)
		if st.HasSnapshot {
			restart = st.Snapshot.EndOffset
		}
		low = min(low, st.HighWatermark, restart)
		return true
	}
	for _, m := range c.controllers {
		if !see(m.id) {
			return 0, false
		}
	}
	for _, b := range c.brokers {
		if !see(b.id) {
			return 0, false
		}
	}
	return low, true
}

// TrimCommittedBelow drops the retained committed entries below offset that no node may still
// commit (the rule SetTrimCommitted applies on its own), for a caller that reads the committed
// log as the run goes and must keep what it has not read yet: it trims between its reads,
// with automatic trimming off. Like automatic trimming it drops only when at least half of
// the retained log goes, so calling it often costs little. What is simulated is the same
// either way.
func (c *Controllers) TrimCommittedBelow(offset int64) {
	low, ok := c.lowestRestart()
	if !ok {
		return
	}
	low = min(low, offset)
	if len(c.log.entries) >= minTrim && 2*(low-c.log.base) >= int64(len(c.log.entries)) {
		c.log.dropBefore(low)
	}
}

// takeSnapshot returns a controller's committed image as records. A broker's snapshot carries no
// content: the broker's view lives in the embedding layer and outlives its observer, so the only
// reader of a broker's own snapshot (its observer's restart) never needs it. It is sized like
// the latest controller snapshot, which covers about the same state.
func (h *quorumHooks) takeSnapshot(id quorum.NodeID, sid quorum.SnapshotID) (any, int64) {
	c := h.c
	m := c.byID[int32(id)].ctl
	if m == nil {
		if c.lastSnapped == 0 {
			for _, v := range c.controllers {
				if v.store != nil {
					c.lastSnapped = max(c.lastSnapped, v.snapshotBytes())
				}
			}
		}
		return nil, c.lastSnapped
	}
	if m.applied != sid.EndOffset {
		c.iv.violate("snapshots are taken at the committed image", fmt.Sprintf("node %d's committed image is at offset %d", m.id, m.applied),
			fmt.Sprintf("the quorum asks it for a snapshot ending at %d", sid.EndOffset))
	}
	snap := m.takeSnapshot(sid.EndOffset, sid.Epoch)
	c.lastSnapped = snap.Bytes
	m.snap = snap
	c.stats.SnapshotsTaken++
	return snap, snap.Bytes
}

// loadSnapshot replaces a node's applied state: on every boot (with its latest snapshot, or the
// zero Snapshot) and after a FetchSnapshot download.
func (h *quorumHooks) loadSnapshot(id quorum.NodeID, qs quorum.Snapshot) {
	defer h.enter()()
	c := h.c
	n := c.byID[int32(id)]
	end := qs.ID.EndOffset
	data, _ := qs.Data.(*Snapshot)
	if m := n.ctl; m != nil {
		if m.loadSnapshot(c.images, end, data) {
			c.stats.SnapshotsLoaded++
		}
		return
	}
	b := n.brk
	if end <= b.delivered {
		// A restart reloading a snapshot the broker's view is already past: nothing to do.
		if end > 0 && end < b.delivered {
			c.stats.SnapshotsDropped++
		}
		return
	}
	if data == nil {
		c.iv.violate("snapshots a broker loads have content", fmt.Sprintf("broker %d has applied up to offset %d", b.id, b.delivered),
			fmt.Sprintf("it must load a snapshot ending at %d that carries no records", end))
		return
	}
	checkKept(&c.iv, b.id, data)
	b.delivered = end
	c.stats.SnapshotsLoaded++
	if c.cb.OnBrokerSnapshot != nil {
		c.cb.OnBrokerSnapshot(b.id, data)
	}
}

// deletedSnapshot: a snapshot the node took and nobody else can load any more is released; one
// whose content is on its way to a follower is frozen.
func (h *quorumHooks) deletedSnapshot(id quorum.NodeID, qs quorum.Snapshot, inFlight bool) {
	s, _ := qs.Data.(*Snapshot)
	m := h.c.byID[int32(id)].ctl
	if s == nil || s.owner == nil || m == nil || s.owner != &m.snaps {
		return
	}
	if inFlight {
		s.freeze()
		return
	}
	s.detach()
	s.released = true
}
