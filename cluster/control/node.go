package control

import (
	"fmt"

	"github.com/kraftlab/kraftlab/cluster/sim"
	"github.com/kraftlab/kraftlab/engine/config"
	"github.com/kraftlab/kraftlab/engine/controller"
	"github.com/kraftlab/kraftlab/engine/metadata"
)

// brokerObserver is a broker's metadata client as a quorum observer. The broker's view of the
// metadata lives in the embedding layer and outlives the observer's restarts; here is only how
// far it has been delivered.
type brokerObserver struct {
	id      int32
	running bool
	// delivered is the next offset to deliver (Callbacks.OnBrokerCommitted).
	delivered int64
}

// controllerNode is one controller (a quorum voter): its committed image, the snapshots it took,
// and, while it leads, the activation it waits for or the engine controller it runs.
type controllerNode struct {
	id      int32
	idx     int32 // its position in Config.Quorum.Voters, the ID of its sim events
	running bool

	// The committed image (shared or the node's own, see store) and how far the node has got
	// in it: imagePos.applied == its high watermark.
	imagePos
	store   *store
	records int64 // metadata records (not LeaderChangeMessages) the image has absorbed
	restart restartCheck
	// static, when set, is the server.properties the controller was last started with
	// (Start with static configs); nil: Config.Static.
	static *config.Values

	// snap is the content of the latest snapshot the node took or loaded; snaps are the
	// snapshots it took that still read partitions from a committed image (see Snapshot).
	snap  *Snapshot
	snaps snapshotList

	// A leader goes through activation, then runs active; either is unset otherwise.
	activation activation
	active     *activeEngine
	// gen is bumped on activation and resignation, so that stale events do nothing.
	gen uint32
}

// restartCheck compares a restarted controller's rebuilt image with the one it had when killed.
// Start sets booting until the boot's LoadSnapshot; before holds the image the node had when it
// was killed, and beforeOff its offset, until the rebuilt image reaches that offset and can be
// compared with it.
type restartCheck struct {
	booting   bool
	before    *metadata.Image
	beforeOff int64
}

// activation is a new quorum leader waiting to activate its engine controller, as Kafka's
// CompleteActivationEvent waits: until its epoch's LeaderChangeMessage, at offset start, is
// committed.
type activation struct {
	waiting bool
	epoch   int32
	start   int64
}

// activeEngine is the engine controller an active controller runs, and the two events that
// drive it: the periodic task at the engine's next deadline, and a deferred ship of its records
// when they were written inside a quorum hook.
type activeEngine struct {
	engine  *controller.Controller
	epoch   int32
	since   int64 // activation time
	shipped int64 // next engine offset to append to the quorum

	task        sim.Handle
	taskAt      int64
	taskPending bool
	shipPending bool
}

// engine is the node's engine controller, or nil while it is not active.
func (m *controllerNode) engine() *controller.Controller {
	if m.active == nil {
		return nil
	}
	return m.active.engine
}

// replay applies committed entries [from, to) to the node's image, checking that each replays
// and that no partition's epochs go down. A controller in the shared image only moves its
// offset: the shared image replayed them when the cluster first committed them.
func (m *controllerNode) replay(ims *images, from, to int64, entries []metadata.Entry) {
	if m.applied != from {
		ims.iv.violate("controllers apply the committed log without gaps", fmt.Sprintf("node %d's committed image is at offset %d", m.id, m.applied),
			fmt.Sprintf("its high watermark moved from %d to %d", from, to))
	}
	st := m.store
	if st.shared {
		m.advanceShared(ims.iv, to, entries)
		return
	}
	reservePartitions(st.image, len(entries), func(i int) metadata.Record { return entries[i].Record })
	for i := range entries {
		if ims.replayEntry(st, entries[i], m.id) != nil {
			continue
		}
		if _, ok := entries[i].Record.(*metadata.LeaderChangeMessage); !ok {
			m.records++
		}
	}
	m.applied, st.at = to, to
	if m.restart.before != nil && m.applied >= m.restart.beforeOff {
		m.checkNotBelow(ims.iv, present(m.restart.before), m.restart.beforeOff, st.image)
		m.restart.before = nil
	}
}

// advanceShared moves a controller in the shared image to offset to, past entries.
func (m *controllerNode) advanceShared(iv *invariants, to int64, entries []metadata.Entry) {
	st := m.store
	if to > st.at {
		iv.violate("controllers apply the committed log without gaps", fmt.Sprintf("the shared committed image is at offset %d", st.at),
			fmt.Sprintf("node %d's high watermark moves to %d", m.id, to))
	}
	for i := range entries {
		if _, ok := entries[i].Record.(*metadata.LeaderChangeMessage); !ok {
			m.records++
		}
	}
	m.applied = to
	st.trim() // the journal below the lowest controller in it is done with
}

// imageAt is the node's committed image at its offset, for reading now: its own image, the
// shared one when the node is at its end, or else one rebuilt from the shared image as it was at
// the node's offset (as a snapshot there would rebuild it; Snapshot.replayInto).
func (m *controllerNode) imageAt(iv *invariants) *metadata.Image {
	st := m.store
	if st == nil {
		return metadata.NewImage()
	}
	if !st.shared || m.applied >= st.at {
		return st.image
	}
	im := metadata.NewImage()
	if _, err := buildSnapshot(st, m.applied).replayInto(im); err != nil {
		iv.violate("snapshot records replay", fmt.Sprintf("node %d's committed image is rebuilt at offset %d", m.id, m.applied), err.Error())
	}
	return im
}

// past is the node's committed image at its offset, for reading now (see imageAt), as the
// shared image's past when the node is behind it.
func (m *controllerNode) past() *past {
	switch {
	case m.store == nil:
		return present(metadata.NewImage())
	case m.store.shared:
		return m.store.pastAt(m.applied)
	}
	return present(m.store.image)
}

// snapshotBytes is the size of a snapshot of the node's committed image at its offset.
func (m *controllerNode) snapshotBytes() int64 {
	if st := m.store; st.shared && m.applied < st.at {
		return buildSnapshot(st, m.applied).Bytes
	}
	return imageSnapshotBytes(m.store.image)
}

// leaveRoot gives the node an image of its own, at its offset, in place of the shared one: when
// it is killed, so the shared journal does not wait for it.
func (m *controllerNode) leaveRoot(ims *images) {
	st := m.store
	if st == nil || !st.shared {
		return
	}
	im := m.imageAt(ims.iv)
	if im == st.image {
		im = im.Clone()
	}
	st.leave(&m.imagePos)
	m.store = &store{cowImage: cowImage{image: im, pool: &ims.saved}, at: m.applied}
}

// checkNotBelow compares the node's image at its offset now with an older image of the same
// node at offset off <= now (seen as it was then): no partition of a topic both know may have
// lower epochs.
func (m *controllerNode) checkNotBelow(iv *invariants, old *past, off int64, cur *metadata.Image) {
	for t := range old.topics {
		top := &old.im.Topics[t]
		live, size, _ := old.topic(t)
		if !live {
			continue
		}
		nt, ok := cur.TopicByName(top.Name)
		if !ok || cur.Topics[nt].ID != top.ID {
			continue // deleted since: gone is not lower
		}
		for i := int32(0); i < size; i++ {
			a, b := old.partition(top.First+i), &cur.Partitions[cur.Topics[nt].First+i]
			if b.LeaderEpoch < a.LeaderEpoch || b.PartitionEpoch < a.PartitionEpoch {
				iv.violate("partition epochs never go down", fmt.Sprintf("node %d's committed image had %s-%d at leader epoch %d, partition epoch %d at offset %d", m.id, top.Name, i, a.LeaderEpoch, a.PartitionEpoch, off),
					fmt.Sprintf("at offset %d it has leader epoch %d, partition epoch %d", m.applied, b.LeaderEpoch, b.PartitionEpoch))
				return
			}
		}
	}
}

// takeSnapshot captures the node's committed image (at its offset) as a snapshot attached to
// it: the records metadata.Image.SnapshotRecords would write, but for the partitions, which stay
// in the image until they change or the snapshot is frozen. TestSnapshotRecordsMatchTheImage
// keeps the two in step.
func (m *controllerNode) takeSnapshot(end int64, epoch int32) *Snapshot {
	s := buildSnapshot(m.store, end)
	s.Epoch, s.Node, s.owner = epoch, m.id, &m.snaps
	m.snaps = append(m.snaps, s)
	m.store.snaps = append(m.store.snaps, s)
	return s
}

// freezeSnapshots freezes every snapshot that reads partitions from the node's image.
func (m *controllerNode) freezeSnapshots() {
	for len(m.snaps) > 0 {
		m.snaps[len(m.snaps)-1].freeze()
	}
}

// loadSnapshot replaces the node's committed image with one rebuilt from data, which ends at
// end (0: no snapshot, an empty image): on every boot and after a FetchSnapshot download. It
// returns whether it counts as a snapshot loaded.
func (m *controllerNode) loadSnapshot(ims *images, end int64, data *Snapshot) (loaded bool) {
	iv := ims.iv
	if ims.booting && end == 0 && !m.restart.booting {
		// A voter's first boot with no snapshot: it starts at offset 0 of the shared image.
		m.store, m.applied, m.records, m.snap = ims.root, 0, 0, data
		ims.root.users = append(ims.root.users, &m.imagePos)
		return false
	}
	// The snapshots m took read their partitions from the image it is about to leave (the one
	// being loaded, on a restart, among them): they get their own copy now.
	m.freezeSnapshots()
	oldSt, oldOff := m.store, m.applied
	old := m.past()
	st := ims.newStore()
	im := st.image
	var records int64
	if end > 0 {
		if data == nil {
			iv.violate("snapshots a controller loads have content", fmt.Sprintf("node %d must rebuild its committed image", m.id),
				fmt.Sprintf("its snapshot ending at %d carries no records", end))
		} else {
			checkKept(iv, m.id, data)
			if data.owner != nil && data.owner != &m.snaps {
				// Downloaded: the controller keeps it as its latest snapshot, to restart from.
				data.freeze()
			}
			n, err := data.replayInto(im)
			if err != nil {
				iv.violate("snapshot records replay", fmt.Sprintf("node %d loads the snapshot ending at %d taken by node %d", m.id, end, data.Node), err.Error())
			}
			records = n
		}
	}
	st.at = end
	m.store, m.applied, m.records, m.snap = st, end, records, data
	if oldSt != nil && oldSt.shared {
		// After the checks below: leaving may drop the journal that old reads.
		defer oldSt.leave(&m.imagePos)
	}
	switch {
	case m.restart.booting:
		// A new process: its image restarts from the snapshot and catches up by replay. It is
		// compared with what the node had before the kill (its own image since; see Kill) once
		// it is back at that offset.
		m.restart.booting = false
		if oldOff > end && m.restart.before == nil {
			m.restart.before, m.restart.beforeOff = old.im, oldOff
		} else if oldOff <= end {
			m.checkNotBelow(iv, old, oldOff, im)
		}
	case end < oldOff:
		iv.violate("a snapshot download moves a controller forward", fmt.Sprintf("node %d's committed image is at offset %d", m.id, oldOff),
			fmt.Sprintf("it loads a snapshot ending at %d", end))
	default:
		m.checkNotBelow(iv, old, oldOff, im)
		return end > 0
	}
	return false
}

// checkKept: a snapshot node loads still has its content.
func checkKept(iv *invariants, node int32, data *Snapshot) {
	if data.released {
		iv.violate("snapshot content is kept while it can be loaded", fmt.Sprintf("node %d deleted its snapshot ending at %d with no download in flight", data.Node, data.EndOffset),
			fmt.Sprintf("node %d loads it", node))
	}
}
