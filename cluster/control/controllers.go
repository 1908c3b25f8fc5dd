package control

import (
	"fmt"
	"io"

	"github.com/kraftlab/kraftlab/cluster/quorum"
	"github.com/kraftlab/kraftlab/cluster/sim"
	"github.com/kraftlab/kraftlab/engine/metadata"
)

// Event kinds Controllers schedules on the sim; each event's ID is a controller's idx.
const (
	evActivate int32 = iota + 1
	evTask           // Arg: gen
	evShip           // Arg: gen
)

// Controllers is the controller quorum of one simulated cluster, with the brokers attached as
// observers. It runs on the caller's sim.Sim and, like everything driven by it, is not safe for
// concurrent use.
type Controllers struct {
	sim    *sim.Sim
	cfg    Config
	cb     Callbacks
	obs    Observer
	q      *quorum.Quorum[metadata.Record]
	rand   *sim.Rand // "control": engine seeds
	net    network
	client *Client
	events handler // the sim.Handler of the events above

	// The nodes: controllers in Config.Quorum.Voters order, brokers in the order attached.
	controllers []*controllerNode
	brokers     []*brokerObserver
	byID        map[int32]node

	log    committedLog
	images *images
	iv     invariants

	activeByEpoch []int32 // node that activated an engine in each epoch, -1 for none
	// hookDepth counts the quorum hooks running: inside one, fault actions fail and an engine's
	// records wait for an evShip event (the quorum must not be appended to from its hooks).
	hookDepth   int
	lastSnapped int64 // bytes of the latest controller snapshot, to size broker snapshots
	stats       Stats
	trace       io.Writer

	recBuf []quorum.Record[metadata.Record] // ship's reused batch
}

// node is one member of the quorum: exactly one of the two is set.
type node struct {
	ctl *controllerNode
	brk *brokerObserver
}

// New builds the controllers (all running, none active yet: the quorum elects a leader within a
// few election timeouts) and attaches cfg.Brokers as observers.
func New(s *sim.Sim, cfg Config) (*Controllers, error) {
	if s == nil {
		return nil, fmt.Errorf("control: the simulation is nil; New needs the run's *sim.Sim")
	}
	cfg.Static = cfg.Static.Clone()
	cfg.Brokers = append([]int32(nil), cfg.Brokers...)
	c := &Controllers{
		sim:  s,
		cfg:  cfg,
		rand: s.Rand().Child("control"),
		byID: map[int32]node{},
	}
	c.iv.sim = s
	c.net = network{cfg: &c.cfg.Quorum, rand: c.rand.Child("network"), cuts: map[uint64]struct{}{}}
	c.images = newImages(cfg.PartitionsHint, &c.iv)
	c.client = &Client{c: c}
	c.events.c = c
	h := &quorumHooks{c}
	// The controllers exist before the quorum does, because the quorum boots its voters (and
	// calls LoadSnapshot on them) inside quorum.New.
	for _, id := range cfg.Quorum.Voters {
		if _, dup := c.byID[int32(id)]; dup {
			break // quorum.New reports the duplicate with its own message
		}
		// A voter gets its committed image when it boots (LoadSnapshot), not here.
		m := &controllerNode{id: int32(id), idx: int32(len(c.controllers)), running: true}
		c.controllers = append(c.controllers, m)
		c.byID[m.id] = node{ctl: m}
	}
	c.images.booting = true
	q, err := quorum.New[metadata.Record](s, cfg.Quorum, h.hooks())
	c.images.booting = false
	if err != nil {
		return nil, err
	}
	c.q = q
	for i, b := range cfg.Brokers {
		if err := c.attach(b); err != nil {
			return nil, fmt.Errorf("control: Config.Brokers[%d]: %w", i, err)
		}
	}
	return c, nil
}

// SetCallbacks installs the callbacks; fields left nil are not called. Set them before running
// the simulation: the fleet that consumes them usually needs Client first, hence the setter.
func (c *Controllers) SetCallbacks(cb Callbacks) {
	c.cb = cb
	c.iv.notify = cb.OnViolation
}

// AddBroker attaches broker id as an observer of the metadata log: it starts fetching at once.
func (c *Controllers) AddBroker(id int32) error {
	if err := c.notInHook("AddBroker"); err != nil {
		return err
	}
	return c.attach(id)
}

func (c *Controllers) attach(id int32) error {
	if id < 0 {
		return fmt.Errorf("control: broker id %d is negative; node ids must be at least 0", id)
	}
	if _, ok := c.byID[id]; ok {
		return fmt.Errorf("control: node %d already exists; a broker id must differ from every controller %v and broker", id, c.cfg.Quorum.Voters)
	}
	// With no image: brokers keep their view in the embedding layer.
	b := &brokerObserver{id: id, running: true}
	c.brokers = append(c.brokers, b)
	c.byID[id] = node{brk: b}
	if err := c.q.AddObserver(quorum.NodeID(id)); err != nil {
		c.brokers = c.brokers[:len(c.brokers)-1]
		delete(c.byID, id)
		return err
	}
	return nil
}

// SetTrace makes the quorum and the controllers write one line per notable event to w (nil turns
// tracing off). Two runs with the same seed and inputs write the same bytes.
func (c *Controllers) SetTrace(w io.Writer) {
	c.trace = w
	c.iv.trace = w
	c.q.SetTrace(w)
}

func (c *Controllers) tracef(id int32, format string, args ...any) {
	if c.trace == nil {
		return
	}
	fmt.Fprintf(c.trace, "%8d %5d ", c.sim.Now(), id)
	fmt.Fprintf(c.trace, format, args...)
	io.WriteString(c.trace, "\n")
}

// node looks up a controller or an attached broker.
func (c *Controllers) node(id int32) (node, error) {
	n, ok := c.byID[id]
	if !ok {
		return node{}, fmt.Errorf("control: node %d is neither a controller %v nor an attached broker", id, c.cfg.Quorum.Voters)
	}
	return n, nil
}

func (c *Controllers) notInHook(what string) error {
	if c.hookDepth > 0 {
		return fmt.Errorf("control: %s called from inside a quorum callback; fault actions must come from outside (schedule a sim event)", what)
	}
	return nil
}

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
	c.images.commitRoot(fresh, c.cb.BeforeCommit, c.cb.AfterCommit, c.cb.WarmCommitted)
	c.log.resolvePledges(fresh, &c.stats)
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
	low := c.log.end()
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
			return
		}
	}
	for _, b := range c.brokers {
		if !see(b.id) {
			return
		}
	}
	c.log.trimTo(low)
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
