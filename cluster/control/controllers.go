package control

import (
	"fmt"
	"io"
	"slices"

	"github.com/kraftlab/kraftlab/cluster/quorum"
	"github.com/kraftlab/kraftlab/cluster/sim"
	"github.com/kraftlab/kraftlab/engine/config"
	"github.com/kraftlab/kraftlab/engine/controller"
	"github.com/kraftlab/kraftlab/engine/metadata"
)

// member is one node of the quorum: a controller (voter) or a broker (observer).
type member struct {
	id      int32
	idx     int32
	voter   bool
	running bool

	// Controllers: the committed image (shared or the node's own, see store) and how far the
	// node has got in it.
	store   *store
	applied int64 // offsets below it are applied to the node's image (== its high watermark)
	records int64 // metadata records (not LeaderChangeMessages) the image has absorbed
	// restarting is set by Start until the boot's LoadSnapshot; before holds the image the node
	// had when it was killed, and beforeOff its offset, until the rebuilt image reaches that
	// offset and can be compared with it.
	restarting bool
	before     *metadata.Image
	beforeOff  int64
	// static, when set, is the server.properties the controller was last started with
	// (StartWith); nil: Config.Static.
	static *config.Values

	// Controllers: the engine while active, and the activation waiting for the epoch's start.
	engine       *controller.Controller
	engineEpoch  int32
	activatedAt  int64
	shipped      int64  // next engine offset to append to the quorum
	gen          uint32 // bumped on activation and resignation, so stale events do nothing
	pending      bool
	pendingEpoch int32
	pendingStart int64 // offset of the epoch's LeaderChangeMessage
	task         sim.Handle
	taskAt       int64
	taskPending  bool
	shipPending  bool

	// snap is the content of the latest snapshot the node took or loaded (controllers); snaps
	// are the snapshots it took that still read partitions from a committed image (see
	// Snapshot).
	snap  *Snapshot
	snaps []*Snapshot

	// Brokers: the next offset to deliver, kept across observer restarts because the broker's
	// view of metadata outlives them.
	delivered int64
}

// pledge is a reply delayed for a commit: offset must commit, in epoch, by waitMs (the estimated
// commit wait) and at the latest by replyMs (when the reply reaches the broker).
type pledge struct {
	offset  int64
	epoch   int32
	waitMs  int64
	replyMs int64
}

// Event kinds Controllers schedules on the sim.
const (
	evActivate int32 = iota + 1 // ID: member index
	evTask                      // ID: member index, Arg: gen
	evShip                      // ID: member index, Arg: gen
)

// Controllers is the controller quorum of one simulated cluster, with the brokers attached as
// observers. It runs on the caller's sim.Sim and, like everything driven by it, is not safe for
// concurrent use.
type Controllers struct {
	sim   *sim.Sim
	cfg   Config
	cb    Callbacks
	obs   Observer
	route route // where the last broker request went, for obs
	// What tellRequest lends obs.Request, reused.
	lentRequest   Request
	lentHeartbeat controller.HeartbeatRequest
	lentReply     controller.HeartbeatReply
	q             *quorum.Quorum[metadata.Record]
	h             *handler
	rand          *sim.Rand // "control": engine seeds
	net           *sim.Rand // "control/network": client message delays
	client        *Client

	members []*member
	byID    map[int32]int32
	voters  []int32 // member indices in Config.Quorum.Voters order
	cuts    map[uint64]struct{}

	// The committed metadata log as the cluster first committed it, from committedBase, and the
	// same entries as metadata.Entry values, so that every node's newly committed stretch can be
	// handed on as a subslice instead of being read and converted again per node.
	committed     []CommittedEntry
	ents          []metadata.Entry
	committedBase int64
	// trim makes the committed log drop what no node can commit again (SetTrimCommitted);
	// trimAt is the retained length at which to look next.
	trim   bool
	trimAt int

	// root is the committed image the controllers that booted with no snapshot share, and the
	// cluster's committed image (CommittedView): ledger replays each entry into it once, as the
	// cluster first commits it. booting is set while quorum.New boots the voters.
	root    *store
	booting bool
	// saved lends the snapshots of every store the chunks they keep old partitions in.
	saved savedPool

	activeByEpoch []int32 // node that activated an engine in each epoch, -1 for none
	pledges       []pledge

	hookDepth   int
	lastSnapped int64 // bytes of the latest controller snapshot, to size broker snapshots
	violations  []Violation
	stats       Stats
	trace       io.Writer

	// Reused buffers.
	qbuf []quorum.Entry[metadata.Record]
	mbuf []metadata.Entry
	// warmBuf holds warmImage's partition indexes; warmSink keeps its reads (see warm.go).
	warmBuf  []int32
	warmSink int32
	recBuf   []quorum.Record[metadata.Record]
}

// handler is Controllers' sim.Handler, a separate type so that its dispatch method is not part of
// the Controllers API.
type handler struct{ c *Controllers }

// HandleEvent runs one of Controllers' own events; only the simulation calls it.
func (h *handler) HandleEvent(ev sim.Event) {
	c := h.c
	m := c.members[ev.ID]
	switch ev.Kind {
	case evActivate:
		c.maybeActivate(m)
	case evTask:
		if m.engine == nil || uint32(ev.Arg) != m.gen {
			return
		}
		m.taskPending = false
		before := m.engine.Log().NextOffset()
		task := m.engine.RunNextTask(c.sim.Now())
		if task == controller.TaskFenceStaleBroker && c.obs.SessionExpired != nil {
			c.tellSessionExpiry(m, before, c.sim.Now())
		}
		c.afterEngine(m)
	case evShip:
		if m.engine == nil || uint32(ev.Arg) != m.gen {
			return
		}
		m.shipPending = false
		c.ship(m)
	}
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
		sim:   s,
		cfg:   cfg,
		rand:  s.Rand().Child("control"),
		byID:  map[int32]int32{},
		cuts:  map[uint64]struct{}{},
		trace: nil,
	}
	c.net = c.rand.Child("network")
	c.root = newStore(cfg.PartitionsHint, &c.saved)
	c.root.shared = true
	c.h = &handler{c: c}
	c.client = &Client{c: c}
	// The members exist before the quorum does, because the quorum boots its voters (and calls
	// LoadSnapshot on them) inside quorum.New.
	for _, id := range cfg.Quorum.Voters {
		if _, dup := c.byID[int32(id)]; dup {
			break // quorum.New reports the duplicate with its own message
		}
		c.voters = append(c.voters, c.addMember(int32(id), true).idx)
	}
	hooks := quorum.Hooks{
		BecameLeader:  c.onBecameLeader,
		Resigned:      c.onResigned,
		HighWatermark: c.onHighWatermark,
		TakeSnapshot:  c.onTakeSnapshot,
		LoadSnapshot:  c.onLoadSnapshot,
		// Snapshots keep their partitions in the taking controller's image until they are
		// frozen; deleting one lets the controller stop keeping old values for it.
		DeletedSnapshot: c.onDeletedSnapshot,
	}
	c.booting = true
	q, err := quorum.New[metadata.Record](s, cfg.Quorum, hooks)
	c.booting = false
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

func (c *Controllers) addMember(id int32, voter bool) *member {
	// A voter gets its committed image when it boots (onLoadSnapshot), not here.
	m := &member{id: id, idx: int32(len(c.members)), voter: voter, running: true}
	c.members = append(c.members, m)
	c.byID[id] = m.idx
	return m
}

// SetCallbacks installs the callbacks; fields left nil are not called. Set them before running
// the simulation: the fleet that consumes them usually needs Client first, hence the setter.
func (c *Controllers) SetCallbacks(cb Callbacks) { c.cb = cb }

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
	c.addMember(id, false) // with no image: brokers keep their view in the embedding layer
	if err := c.q.AddObserver(quorum.NodeID(id)); err != nil {
		c.members = c.members[:len(c.members)-1]
		delete(c.byID, id)
		return err
	}
	return nil
}

// SetTrace makes the quorum and the controllers write one line per notable event to w (nil turns
// tracing off). Two runs with the same seed and inputs write the same bytes.
func (c *Controllers) SetTrace(w io.Writer) {
	c.trace = w
	c.q.SetTrace(w)
}

func (c *Controllers) tracef(m *member, format string, args ...any) {
	if c.trace == nil {
		return
	}
	fmt.Fprintf(c.trace, "%8d %5d ", c.sim.Now(), m.id)
	fmt.Fprintf(c.trace, format, args...)
	io.WriteString(c.trace, "\n")
}

func (c *Controllers) member(id int32) (*member, error) {
	idx, ok := c.byID[id]
	if !ok {
		return nil, fmt.Errorf("control: node %d is neither a controller %v nor an attached broker", id, c.cfg.Quorum.Voters)
	}
	return c.members[idx], nil
}

func (c *Controllers) memberOf(id quorum.NodeID) *member { return c.members[c.byID[int32(id)]] }

func (c *Controllers) notInHook(what string) error {
	if c.hookDepth > 0 {
		return fmt.Errorf("control: %s called from inside a quorum callback; fault actions must come from outside (schedule a sim event)", what)
	}
	return nil
}

func (c *Controllers) schedule(at int64, kind int32, m *member, arg int64) sim.Handle {
	h, err := c.sim.Schedule(max(at, c.sim.Now()), sim.Event{Target: c.h, Kind: kind, ID: m.idx, Arg: arg})
	if err != nil {
		c.violate("internal", err.Error(), "control only schedules at or after now")
	}
	return h
}

// --- quorum hooks ---------------------------------------------------------------------------

// onBecameLeader notes the epoch's start; activation waits for it to commit (maybeActivate).
// The hook must not append, so even a single voter, which commits at once, activates from an
// event.
func (c *Controllers) onBecameLeader(id quorum.NodeID, epoch int32) {
	m := c.memberOf(id)
	st, _ := c.q.Node(id)
	m.pending, m.pendingEpoch, m.pendingStart = true, epoch, st.EndOffset-1
	c.schedule(c.sim.Now(), evActivate, m, int64(epoch))
}

func (c *Controllers) onResigned(id quorum.NodeID, epoch int32, _ quorum.Reason) {
	c.hookDepth++
	defer func() { c.hookDepth-- }()
	c.deactivate(c.memberOf(id))
}

// deactivate discards a node's engine and any activation it was waiting for. Its committed image
// is unaffected: it only ever held committed records.
func (c *Controllers) deactivate(m *member) {
	m.pending = false
	if m.engine == nil {
		return
	}
	epoch := m.engineEpoch
	m.engine = nil
	m.gen++
	if m.taskPending {
		c.sim.Cancel(m.task)
		m.taskPending = false
	}
	m.shipPending = false
	c.stats.Resignations++
	c.tracef(m, "controller deactivated epoch=%d", epoch)
	if c.cb.OnResigned != nil {
		c.cb.OnResigned(m.id, epoch, c.sim.Now())
	}
}

// onHighWatermark applies newly committed entries: into a controller's committed image, or to a
// broker through OnBrokerCommitted; the first node to commit an offset extends the cluster's
// committed log.
//
// A node committing offsets the cluster has already committed (every node but the first, a
// hundred brokers among them) gets them straight from the cluster's committed log. The quorum
// has already checked that its log holds the very same entries there (its "one committed
// prefix" invariant compares every offset); this layer compares the last one, payload and
// epoch, so that a mix-up between the two logs still shows.
func (c *Controllers) onHighWatermark(id quorum.NodeID, from, to int64) {
	c.hookDepth++
	defer func() { c.hookDepth-- }()
	m := c.memberOf(id)
	var entries []metadata.Entry
	if from >= c.committedBase && to <= c.CommittedEnd() {
		entries = c.ents[from-c.committedBase : to-c.committedBase]
		c.checkLast(m, to-1)
	} else {
		buf, err := c.q.Read(id, from, to, c.qbuf[:0])
		c.qbuf = buf[:0]
		if err != nil {
			c.violate("committed entries are readable", fmt.Sprintf("node %d's high watermark moved from %d to %d", m.id, from, to), err.Error())
			return
		}
		entries = c.convert(buf)
		defer c.releaseBuffers(len(buf))
		c.ledger(m, buf, entries)
	}
	if m.voter {
		c.replay(m, from, to, entries)
		if m.pending && to > m.pendingStart {
			c.schedule(c.sim.Now(), evActivate, m, int64(m.pendingEpoch))
		}
		return
	}
	// The entries are consecutive offsets from from; skip those the broker already has.
	start := int(min(max(m.delivered-from, 0), int64(len(entries))))
	if start < len(entries) {
		if entries[start].Offset != m.delivered {
			c.violate("brokers get the committed log without gaps", fmt.Sprintf("broker %d had entries up to offset %d", m.id, m.delivered),
				fmt.Sprintf("its next committed entry is at offset %d", entries[start].Offset))
		}
		m.delivered = to
		if c.cb.OnBrokerCommitted != nil {
			c.cb.OnBrokerCommitted(m.id, entries[start:])
		}
	}
}

// releaseBuffers clears the first n entries of the reused read buffers, so that they do not keep
// records alive once the log has moved on, and drops buffers a burst (a bootstrap) made large.
func (c *Controllers) releaseBuffers(n int) {
	clear(c.qbuf[:n])
	clear(c.mbuf[:n])
	if cap(c.qbuf) > maxKeptBuffer {
		c.qbuf, c.mbuf = nil, nil
	}
}

// maxKeptBuffer is the largest read buffer kept for reuse, in entries.
const maxKeptBuffer = 1 << 16

// checkLast compares node m's entry at offset, just committed, with the cluster's committed log.
func (c *Controllers) checkLast(m *member, offset int64) {
	qe, err := c.q.EntryAt(quorum.NodeID(m.id), offset)
	if err != nil {
		c.violate("committed entries are readable", fmt.Sprintf("node %d committed offset %d", m.id, offset), err.Error())
		return
	}
	have := &c.committed[offset-c.committedBase]
	same := qe.Payload == have.Record
	if qe.Control != nil {
		lc, ok := have.Record.(*metadata.LeaderChangeMessage)
		same = ok && lc.Epoch == qe.Control.Epoch
	}
	if !same || qe.Epoch != have.Epoch {
		rec := "LeaderChangeMessage"
		if qe.Control == nil {
			rec = qe.Payload.Type()
		}
		c.violate("one committed metadata log", fmt.Sprintf("offset %d was committed as %s of epoch %d at t=%d ms", offset, have.Record.Type(), have.Epoch, have.CommitMs),
			fmt.Sprintf("node %d commits %s of epoch %d there", m.id, rec, qe.Epoch))
	}
}

// convert turns quorum entries into metadata entries in a reused buffer. A LeaderChangeMessage
// becomes the cluster committed log's record for that offset when it has one, so every node
// delivers the very same record value.
func (c *Controllers) convert(es []quorum.Entry[metadata.Record]) []metadata.Entry {
	out := c.mbuf[:0]
	for i := range es {
		e := &es[i]
		rec := e.Payload
		if e.Control != nil {
			rec = c.leaderChange(e)
		}
		out = append(out, metadata.Entry{Offset: e.Offset, Record: rec})
	}
	c.mbuf = out[:0]
	return out
}

func (c *Controllers) leaderChange(e *quorum.Entry[metadata.Record]) metadata.Record {
	if i := e.Offset - c.committedBase; i >= 0 && i < int64(len(c.committed)) {
		if lc, ok := c.committed[i].Record.(*metadata.LeaderChangeMessage); ok && lc.Epoch == e.Control.Epoch {
			return lc
		}
	}
	lc := &metadata.LeaderChangeMessage{Epoch: e.Control.Epoch, LeaderID: int32(e.Control.LeaderID),
		Voters: make([]int32, len(e.Control.Voters)), GrantingVoters: make([]int32, len(e.Control.GrantingVoters))}
	for i, v := range e.Control.Voters {
		lc.Voters[i] = int32(v)
	}
	for i, v := range e.Control.GrantingVoters {
		lc.GrantingVoters[i] = int32(v)
	}
	return lc
}

// ledger checks a node's newly committed entries against the cluster's committed log and extends
// that log with offsets no node had committed yet.
func (c *Controllers) ledger(m *member, es []quorum.Entry[metadata.Record], entries []metadata.Entry) {
	end := c.committedBase + int64(len(c.committed))
	grew := len(c.committed)
	if n := len(entries); n > 0 {
		// A bootstrap commits a million entries at once: size the logs once rather than let
		// append copy them over and over, growing them by a quarter at a time. Only entries
		// past the committed end are new; other nodes commit the same ones again later.
		if fresh := int(entries[n-1].Offset - end + 1); fresh >= bigCommit {
			c.committed = slices.Grow(c.committed, fresh)
			c.ents = slices.Grow(c.ents, fresh)
		}
	}
	for i := range entries {
		e := &entries[i]
		switch {
		case e.Offset < c.committedBase:
		case e.Offset < end:
			have := &c.committed[e.Offset-c.committedBase]
			if have.Record != e.Record || have.Epoch != es[i].Epoch {
				c.violate("one committed metadata log", fmt.Sprintf("offset %d was committed as %s of epoch %d at t=%d ms", e.Offset, have.Record.Type(), have.Epoch, have.CommitMs),
					fmt.Sprintf("node %d commits %s of epoch %d there", m.id, e.Record.Type(), es[i].Epoch))
			}
		case e.Offset == end:
			c.committed = append(c.committed, CommittedEntry{Entry: *e, Epoch: es[i].Epoch, CommitMs: c.sim.Now()})
			c.ents = append(c.ents, *e)
			end++
		default:
			c.violate("one committed metadata log", fmt.Sprintf("the committed log ends at offset %d", end),
				fmt.Sprintf("node %d commits offset %d", m.id, e.Offset))
		}
	}
	if len(c.committed) > grew {
		fresh := c.committed[grew:]
		c.commitRoot(fresh)
		c.resolvePledges(fresh)
		if c.cb.OnCommitted != nil {
			c.cb.OnCommitted(fresh)
		}
		if c.trim && len(c.committed) >= c.trimAt {
			c.trimCommitted()
		}
	}
}

// bigCommit is the number of entries committed at once from which ledger sizes the committed
// log up front.
const bigCommit = 4096

// trimCommitted drops the committed entries below the lowest offset any node may still commit:
// a running node commits from its high watermark on, and a restarted one from its latest
// snapshot (or from offset 0 without one). Every check that reads the committed log therefore
// still sees every entry it will be asked about. It looks every minTrim new entries, and drops
// only when at least half the retained log goes, so the copying is amortised.
func (c *Controllers) trimCommitted() {
	low := c.CommittedEnd()
	for _, m := range c.members {
		st, err := c.q.Node(quorum.NodeID(m.id))
		if err != nil {
			return
		}
		restart := int64(0)
		if st.HasSnapshot {
			restart = st.Snapshot.EndOffset
		}
		low = min(low, st.HighWatermark, restart)
	}
	if 2*(low-c.committedBase) >= int64(len(c.committed)) {
		c.DropCommittedBefore(low)
	}
	c.trimAt = len(c.committed) + minTrim
}

// minTrim is the smallest retained committed log worth trimming.
const minTrim = 4096

// replay applies committed entries to a controller's image, checking that each replays and that
// no partition's epochs go down. A controller in the shared image only moves its offset: ledger
// replayed them there when the cluster first committed them.
func (c *Controllers) replay(m *member, from, to int64, entries []metadata.Entry) {
	if m.applied != from {
		c.violate("controllers apply the committed log without gaps", fmt.Sprintf("node %d's committed image is at offset %d", m.id, m.applied),
			fmt.Sprintf("its high watermark moved from %d to %d", from, to))
	}
	st := m.store
	if st.shared {
		c.advanceShared(m, to, entries)
		return
	}
	reservePartitions(st.image, len(entries), func(i int) metadata.Record { return entries[i].Record })
	for i := range entries {
		if i%warmChunk == 0 {
			chunk := entries[i:min(i+warmChunk, len(entries))]
			c.warmImage(st, len(chunk), func(j int) metadata.Record { return chunk[j].Record })
		}
		if c.replayEntry(st, entries[i], m) != nil {
			continue
		}
		if _, ok := entries[i].Record.(*metadata.LeaderChangeMessage); !ok {
			m.records++
		}
	}
	m.applied, st.at = to, to
	if m.before != nil && m.applied >= m.beforeOff {
		c.checkNotBelow(m, present(m.before), m.beforeOff, st.image)
		m.before = nil
	}
}

// advanceShared moves a controller in the shared image to offset to, past entries.
func (c *Controllers) advanceShared(m *member, to int64, entries []metadata.Entry) {
	st := m.store
	if to > st.at {
		c.violate("controllers apply the committed log without gaps", fmt.Sprintf("the shared committed image is at offset %d", st.at),
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

// commitRoot replays entries the cluster has just committed into the shared committed image,
// through Callbacks.OnCommittedEntry when set, so that its caller sees the image before and
// after each.
func (c *Controllers) commitRoot(fresh []CommittedEntry) {
	reservePartitions(c.root.image, len(fresh), func(i int) metadata.Record { return fresh[i].Record })
	replay := c.replayRoot // one method value a batch: passed per entry, it was an allocation each
	for i := range fresh {
		if i%warmChunk == 0 {
			chunk := fresh[i:min(i+warmChunk, len(fresh))]
			c.warmImage(c.root, len(chunk), func(j int) metadata.Record { return chunk[j].Record })
		}
		if c.cb.OnCommittedEntry != nil {
			c.cb.OnCommittedEntry(fresh[i], replay)
		} else {
			_ = c.replayRoot(fresh[i].Entry)
		}
	}
}

// replayRoot replays one newly committed entry into the shared committed image, noting first
// what it changes for the controllers behind it.
func (c *Controllers) replayRoot(e metadata.Entry) error {
	st := c.root
	if e.Offset != st.at {
		c.violate("controllers apply the committed log without gaps", fmt.Sprintf("the shared committed image is at offset %d", st.at),
			fmt.Sprintf("the cluster commits offset %d", e.Offset))
	}
	if len(st.users) > 0 {
		st.journal(e)
	}
	err := c.replayEntry(st, e, nil)
	st.at = e.Offset + 1
	return err
}

// replayEntry replays one committed entry into st's image: the snapshots reading from it keep
// what it changes, and a partition's epochs must not go down. m is the node whose own image it
// is, or nil for the shared one (for the messages).
func (c *Controllers) replayEntry(st *store, e metadata.Entry, m *member) error {
	im := st.image
	var idx int32 = -1
	var le, pe int32
	if pc, ok := e.Record.(*metadata.PartitionChangeRecord); ok {
		if p, ok := im.ChangeIndex(pc); ok {
			idx, le, pe = p, im.Partitions[p].LeaderEpoch, im.Partitions[p].PartitionEpoch
		}
	}
	if len(st.snaps) > 0 {
		c.beforeReplay(st, e.Record, idx)
	}
	if err := im.Replay(e); err != nil {
		c.violate("committed records replay", fmt.Sprintf("%s is at offset %d", whose(m), e.Offset), err.Error())
		return err
	}
	if idx >= 0 {
		p := &im.Partitions[idx]
		if p.LeaderEpoch < le || p.PartitionEpoch < pe {
			c.violate("partition epochs never go down", fmt.Sprintf("%s had %s-%d at leader epoch %d, partition epoch %d", whose(m), im.TopicName(p), p.ID, le, pe),
				fmt.Sprintf("offset %d leaves it at leader epoch %d, partition epoch %d", e.Offset, p.LeaderEpoch, p.PartitionEpoch))
		}
	}
	st.at = e.Offset + 1
	return nil
}

// whose names the committed image replayEntry replays into, for its messages.
func whose(m *member) string {
	if m == nil {
		return "the shared committed image"
	}
	return fmt.Sprintf("node %d's committed image", m.id)
}

// imageAt is m's committed image at its offset, for reading now: its own image, the shared one
// when m is at its end, or else one rebuilt from the shared image as it was at m's offset (as
// a snapshot there would rebuild it; Snapshot.replayInto).
func (c *Controllers) imageAt(m *member) *metadata.Image {
	st := m.store
	if st == nil {
		return metadata.NewImage()
	}
	if !st.shared || m.applied >= st.at {
		return st.image
	}
	im := metadata.NewImage()
	if _, err := buildSnapshot(st, m.applied).replayInto(im); err != nil {
		c.violate("snapshot records replay", fmt.Sprintf("node %d's committed image is rebuilt at offset %d", m.id, m.applied), err.Error())
	}
	return im
}

// pastOf is m's committed image at its offset, for reading now (see imageAt), as the shared
// image's past when m is behind it.
func (c *Controllers) pastOf(m *member) *past {
	switch {
	case m.store == nil:
		return present(metadata.NewImage())
	case m.store.shared:
		return m.store.pastAt(m.applied)
	}
	return present(m.store.image)
}

// bytesAt is the size of a snapshot of m's committed image at its offset.
func (c *Controllers) bytesAt(m *member) int64 {
	if st := m.store; st.shared && m.applied < st.at {
		return buildSnapshot(st, m.applied).Bytes
	}
	return imageSnapshotBytes(m.store.image)
}

// leaveRoot gives m an image of its own, at its offset, in place of the shared one: when it is
// killed, so the shared journal does not wait for it.
func (c *Controllers) leaveRoot(m *member) {
	st := m.store
	if st == nil || !st.shared {
		return
	}
	im := c.imageAt(m)
	if im == st.image {
		im = im.Clone()
	}
	st.leave(m)
	m.store = &store{image: im, at: m.applied, pool: &c.saved}
}

// checkNotBelow compares a node's image at offset now with an older image of the same node at
// offset off <= now (seen as it was then): no partition of a topic both know may have lower
// epochs.
func (c *Controllers) checkNotBelow(m *member, old *past, off int64, cur *metadata.Image) {
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
				c.violate("partition epochs never go down", fmt.Sprintf("node %d's committed image had %s-%d at leader epoch %d, partition epoch %d at offset %d", m.id, top.Name, i, a.LeaderEpoch, a.PartitionEpoch, off),
					fmt.Sprintf("at offset %d it has leader epoch %d, partition epoch %d", m.applied, b.LeaderEpoch, b.PartitionEpoch))
				return
			}
		}
	}
}

// onTakeSnapshot returns a controller's committed image as records. A broker's snapshot carries
// no content: the broker's view lives in the embedding layer and outlives its observer, so the
// only reader of a broker's own snapshot (its observer's restart) never needs it. It is sized
// like the latest controller snapshot, which covers about the same state.
func (c *Controllers) onTakeSnapshot(id quorum.NodeID, sid quorum.SnapshotID) (any, int64) {
	m := c.memberOf(id)
	if !m.voter {
		if c.lastSnapped == 0 {
			for _, v := range c.voters {
				if cm := c.members[v]; cm.store != nil {
					c.lastSnapped = max(c.lastSnapped, c.bytesAt(cm))
				}
			}
		}
		return nil, c.lastSnapped
	}
	if m.applied != sid.EndOffset {
		c.violate("snapshots are taken at the committed image", fmt.Sprintf("node %d's committed image is at offset %d", m.id, m.applied),
			fmt.Sprintf("the quorum asks it for a snapshot ending at %d", sid.EndOffset))
	}
	snap := c.takeSnapshot(m, sid.EndOffset, sid.Epoch)
	c.lastSnapped = snap.Bytes
	m.snap = snap
	c.stats.SnapshotsTaken++
	return snap, snap.Bytes
}

// onLoadSnapshot replaces a node's applied state: on every boot (with its latest snapshot, or the
// zero Snapshot) and after a FetchSnapshot download.
func (c *Controllers) onLoadSnapshot(id quorum.NodeID, qs quorum.Snapshot) {
	c.hookDepth++
	defer func() { c.hookDepth-- }()
	m := c.memberOf(id)
	end := qs.ID.EndOffset
	data, _ := qs.Data.(*Snapshot)
	if !m.voter {
		if end <= m.delivered {
			// A restart reloading a snapshot the broker's view is already past: nothing to do.
			if end > 0 && end < m.delivered {
				c.stats.SnapshotsDropped++
			}
			return
		}
		if data == nil {
			c.violate("snapshots a broker loads have content", fmt.Sprintf("broker %d has applied up to offset %d", m.id, m.delivered),
				fmt.Sprintf("it must load a snapshot ending at %d that carries no records", end))
			return
		}
		c.checkKept(m, data)
		m.delivered = end
		c.stats.SnapshotsLoaded++
		if c.cb.OnBrokerSnapshot != nil {
			c.cb.OnBrokerSnapshot(m.id, data)
		}
		return
	}
	if c.booting && end == 0 && !m.restarting {
		// A voter's first boot with no snapshot: it starts at offset 0 of the shared image.
		m.store, m.applied, m.records, m.snap = c.root, 0, 0, data
		c.root.users = append(c.root.users, m)
		return
	}
	// The snapshots m took read their partitions from the image it is about to leave (the one
	// being loaded, on a restart, among them): they get their own copy now.
	c.freezeSnapshots(m)
	oldSt, oldOff := m.store, m.applied
	old := c.pastOf(m)
	st := newStore(c.cfg.PartitionsHint, &c.saved)
	im := st.image
	var records int64
	if end > 0 {
		if data == nil {
			c.violate("snapshots a controller loads have content", fmt.Sprintf("node %d must rebuild its committed image", m.id),
				fmt.Sprintf("its snapshot ending at %d carries no records", end))
		} else {
			c.checkKept(m, data)
			if data.owner != nil && data.owner != m {
				// Downloaded: the controller keeps it as its latest snapshot, to restart from.
				data.freeze()
			}
			n, err := data.replayInto(im)
			if err != nil {
				c.violate("snapshot records replay", fmt.Sprintf("node %d loads the snapshot ending at %d taken by node %d", m.id, end, data.Node), err.Error())
			}
			records = n
		}
	}
	st.at = end
	m.store, m.applied, m.records, m.snap = st, end, records, data
	if oldSt != nil && oldSt.shared {
		// After the checks below: leaving may drop the journal that old reads.
		defer oldSt.leave(m)
	}
	switch {
	case m.restarting:
		// A new process: its image restarts from the snapshot and catches up by replay. It is
		// compared with what the node had before the kill (its own image since; see Kill) once
		// it is back at that offset.
		m.restarting = false
		if oldOff > end && m.before == nil {
			m.before, m.beforeOff = old.im, oldOff
		} else if oldOff <= end {
			c.checkNotBelow(m, old, oldOff, im)
		}
	case end < oldOff:
		c.violate("a snapshot download moves a controller forward", fmt.Sprintf("node %d's committed image is at offset %d", m.id, oldOff),
			fmt.Sprintf("it loads a snapshot ending at %d", end))
	default:
		if end > 0 {
			c.stats.SnapshotsLoaded++
		}
		c.checkNotBelow(m, old, oldOff, im)
	}
}

// checkKept: a snapshot being loaded still has its content.
func (c *Controllers) checkKept(m *member, data *Snapshot) {
	if data.released {
		c.violate("snapshot content is kept while it can be loaded", fmt.Sprintf("node %d deleted its snapshot ending at %d with no download in flight", data.Node, data.EndOffset),
			fmt.Sprintf("node %d loads it", m.id))
	}
}

// --- activation and writes ------------------------------------------------------------------

// maybeActivate is Kafka's CompleteActivationEvent: once the leader's LeaderChangeMessage is
// committed, its committed image is its whole log, and the engine starts from a clone of it.
func (c *Controllers) maybeActivate(m *member) {
	if !m.pending || m.engine != nil {
		return
	}
	st, err := c.q.Node(quorum.NodeID(m.id))
	if err != nil || !st.Running || st.State != quorum.Leader || st.Epoch != m.pendingEpoch {
		m.pending = false
		return
	}
	if st.HighWatermark <= m.pendingStart {
		return // the HighWatermark hook schedules another try when it moves
	}
	now := c.sim.Now()
	epoch := m.pendingEpoch
	m.pending = false
	if m.applied != st.EndOffset {
		c.violate("a new controller starts from its whole committed log", fmt.Sprintf("node %d's log ends at %d with high watermark %d", m.id, st.EndOffset, st.HighWatermark),
			fmt.Sprintf("its committed image is at offset %d", m.applied))
		return
	}
	for int(epoch) >= len(c.activeByEpoch) {
		c.activeByEpoch = append(c.activeByEpoch, -1)
	}
	if prev := c.activeByEpoch[epoch]; prev >= 0 {
		c.violate("at most one active controller per epoch", fmt.Sprintf("node %d activated a controller in epoch %d", prev, epoch),
			fmt.Sprintf("node %d activates one in the same epoch", m.id))
		return
	}
	c.activeByEpoch[epoch] = m.id
	seed := c.rand.ChildID("engine", int64(epoch)).Uint64()
	if m.store.shared && m.applied != m.store.at {
		c.violate("a new controller starts from its whole committed log", fmt.Sprintf("node %d's committed image is at offset %d", m.id, m.applied),
			fmt.Sprintf("the shared committed image is at offset %d", m.store.at))
		return
	}
	// A controller reads its static configs when its process starts (Kafka's
	// ControllerServer.startup hands KafkaConfig to QuorumController.Builder), so the engine it
	// activates runs with the configs it was last started with.
	static := c.cfg.Static
	if m.static != nil {
		static = *m.static
	}
	eng := controller.Restore(seed, static, c.imageAt(m).Clone(), st.EndOffset)
	if c.cfg.Bootstrap != nil && m.records == 0 {
		if err := c.cfg.Bootstrap(eng, now); err != nil {
			c.violate("bootstrap", fmt.Sprintf("node %d activates over an empty metadata log in epoch %d", m.id, epoch),
				"Config.Bootstrap failed: "+err.Error())
			return
		}
		c.stats.Bootstraps++
	}
	eng.Activate(now)
	m.engine, m.engineEpoch, m.activatedAt, m.shipped = eng, epoch, now, st.EndOffset
	m.gen++
	c.stats.Activations++
	c.tracef(m, "controller activated epoch=%d next offset=%d", epoch, st.EndOffset)
	c.afterEngine(m)
	if c.cb.OnActivated != nil {
		c.cb.OnActivated(m.id, epoch, now)
	}
}

// afterEngine runs after every engine call: ship its records, then keep the task event at the
// engine's next deadline.
func (c *Controllers) afterEngine(m *member) {
	c.ship(m)
	if m.engine == nil {
		return
	}
	at, ok := m.engine.NextDeadline()
	if ok && m.taskPending && at == m.taskAt {
		return
	}
	if m.taskPending {
		c.sim.Cancel(m.task)
		m.taskPending = false
	}
	if ok {
		m.taskAt = max(at, c.sim.Now())
		m.task = c.schedule(m.taskAt, evTask, m, int64(m.gen))
		m.taskPending = true
	}
}

// ship appends the engine's new records to the quorum as one batch and checks that the quorum
// gives them the offsets the engine did. Inside a quorum hook it waits for an event at the same
// time, since hooks must not append.
func (c *Controllers) ship(m *member) {
	if m.engine == nil {
		return
	}
	if c.hookDepth > 0 {
		if !m.shipPending {
			m.shipPending = true
			c.schedule(c.sim.Now(), evShip, m, int64(m.gen))
		}
		return
	}
	log := m.engine.Log()
	es := log.Since(m.shipped)
	if len(es) == 0 {
		return
	}
	recs := slices.Grow(c.recBuf[:0], len(es)) // sized once: a bootstrap ships a million
	var bytes int64
	for i, e := range es {
		b := RecordBytes(e.Record)
		if i == 0 {
			b += BatchHeaderBytes
		}
		bytes += int64(b)
		recs = append(recs, quorum.Record[metadata.Record]{Payload: e.Record, Bytes: b})
	}
	first, n := es[0].Offset, int64(len(es))
	last, err := c.q.Append(quorum.NodeID(m.id), recs...)
	clear(recs)
	c.recBuf = recs[:0]
	if err != nil {
		c.violate("the active controller leads the quorum", fmt.Sprintf("node %d runs the active controller of epoch %d", m.id, m.engineEpoch), err.Error())
		return
	}
	if last-n+1 != first {
		c.violate("engine and quorum offsets agree", fmt.Sprintf("the engine on node %d wrote offsets [%d, %d)", m.id, first, first+n),
			fmt.Sprintf("the quorum stored them at [%d, %d)", last-n+1, last+1))
	}
	c.stats.RecordsWritten += n
	c.stats.BytesWritten += bytes
	if m.engine == nil {
		return // a hook during Append (none today) discarded it
	}
	m.shipped = log.NextOffset()
	// The engine never reads its own past records: drop them so a long run stays small. In
	// chunks, because dropping copies the rest and the next append grows a new slice.
	if m.shipped-log.StartOffset() >= 256 {
		_ = log.DropBefore(m.shipped)
	}
}

// resolvePledges settles delayed replies whose offsets the cluster just committed.
func (c *Controllers) resolvePledges(fresh []CommittedEntry) {
	if len(c.pledges) == 0 {
		return
	}
	end := fresh[len(fresh)-1].Offset + 1
	kept := c.pledges[:0]
	for _, p := range c.pledges {
		if p.offset >= end {
			kept = append(kept, p)
			continue
		}
		i := p.offset - c.committedBase
		switch {
		case i < 0:
			// Dropped from the retained log before it could be compared: nothing to say.
		case c.committed[i].Epoch != p.epoch:
			c.stats.LostReplies++
		case c.committed[i].CommitMs > p.replyMs:
			c.stats.LateReplies++
			c.stats.ShortCommitWaits++
		case c.committed[i].CommitMs > p.waitMs:
			c.stats.ShortCommitWaits++
		}
	}
	c.pledges = kept
}

// violate records a broken invariant.
func (c *Controllers) violate(rule, fact, conflict string) {
	v := Violation{Seed: c.sim.Seed(), AtMs: c.sim.Now(), Rule: rule, Fact: fact, Conflict: conflict}
	c.violations = append(c.violations, v)
	if c.trace != nil {
		fmt.Fprintf(c.trace, "%8d       VIOLATION %s\n", c.sim.Now(), v.Error())
	}
	if c.cb.OnViolation != nil {
		c.cb.OnViolation(v)
	}
}
