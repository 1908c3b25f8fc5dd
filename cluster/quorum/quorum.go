package quorum

import (
	"fmt"
	"io"

	"github.com/kraftlab/kraftlab/cluster/sim"
)

// Quorum is the metadata quorum of one simulated cluster: its voters, its observers, the network
// between them and the invariant checker. It runs on the caller's sim.Sim and is not safe for
// concurrent use, like everything driven by the simulation.
type Quorum[P any] struct {
	cfg      Config
	sim      *sim.Sim
	hooks    Hooks
	h        *handler[P]
	rand     *sim.Rand
	nodes    []*node
	byID     map[NodeID]int32
	voters   []int32 // node indices, in Config.Voters order
	majority int

	arena    arena[P]
	msgs     []message
	freeMsgs []int32
	cuts     map[uint64]struct{}
	net      *sim.Rand
	reqSeq   uint64

	inv   invariants
	stats Stats
	trace io.Writer
	// onMessage, when set, is told of every message sent (ObserveMessages).
	onMessage func(*Message)
	lent      Message // the Message lent to onMessage
}

// New builds the quorum's voters on s, all running and Unattached at epoch 0, as a freshly
// formatted KRaft cluster starts. Observers join with AddObserver.
func New[P any](s *sim.Sim, cfg Config, hooks Hooks) (*Quorum[P], error) {
	if s == nil {
		return nil, fmt.Errorf("quorum: the simulation is nil; New needs the run's *sim.Sim")
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	cfg.Voters = append([]NodeID(nil), cfg.Voters...)
	q := &Quorum[P]{
		cfg:      cfg,
		sim:      s,
		hooks:    hooks,
		rand:     s.Rand().Child("quorum"),
		byID:     make(map[NodeID]int32),
		majority: len(cfg.Voters)/2 + 1,
		cuts:     make(map[uint64]struct{}),
	}
	q.net = q.rand.Child("network")
	q.h = &handler[P]{q: q}
	q.inv.seed = s.Seed()
	for i, id := range cfg.Voters {
		n := q.addNode(id, i)
		q.voters = append(q.voters, n.idx)
	}
	for _, idx := range q.voters {
		q.boot(q.nodes[idx])
	}
	return q, nil
}

func (q *Quorum[P]) addNode(id NodeID, voterIdx int) *node {
	n := &node{
		id:       id,
		idx:      int32(len(q.nodes)),
		voterIdx: voterIdx,
		rng:      q.rand.ChildID("node", int64(id)),
		votedFor: -1,
		leader:   -1,
	}
	q.nodes = append(q.nodes, n)
	q.byID[id] = n.idx
	return n
}

// boot starts a node from its durable state, as a process start does.
func (q *Quorum[P]) boot(n *node) {
	now := q.sim.Now()
	n.running = true
	n.inc++
	// The high watermark is volatile in KRaft: a restarted node knows only that its latest
	// snapshot is committed, and learns the rest from the leader.
	n.hw = 0
	if snap, ok := n.latestSnapshot(); ok {
		n.hw = snap.ID.EndOffset
	}
	n.bytesSinceSnapshot = 0
	n.lastSnapshotMs = now
	n.fetch = fetcher{retryAt: now}
	n.state = Unattached
	if q.trace != nil {
		q.tracef(n, "start epoch=%d leader=%s voted=%s log=[%d,%d) hw=%d", n.epoch, q.name(n.leader), q.name(n.votedFor), n.log.start, n.log.end(), n.hw)
	}
	if q.hooks.LoadSnapshot != nil {
		// The embedding layer lost the node's applied state with the process; it reloads from
		// the latest snapshot, or from nothing (the zero Snapshot) when there is none.
		snap, _ := n.latestSnapshot()
		q.hooks.LoadSnapshot(n.id, snap)
	}
	switch {
	case n.voter() && n.leader == n.idx:
		// Kafka restarts a former leader as Resigned in the same epoch, so it cannot vote for
		// someone else in the epoch it led.
		q.become(n, Resigned, 0)
		n.electionDeadline = now + q.electionTimeout(n)
	case n.leader >= 0:
		q.toFollower(n, n.epoch, n.leader, 0)
	default:
		q.toUnattached(n, n.epoch, 0)
	}
	q.poll(n)
}

// AddObserver starts a broker that replicates the log without voting. Kafka brokers are
// observers of the metadata quorum: they find the leader through the voters and fetch from it.
func (q *Quorum[P]) AddObserver(id NodeID) error {
	if id < 0 {
		return fmt.Errorf("quorum: observer id %d is negative; node ids must be at least 0", id)
	}
	if _, ok := q.byID[id]; ok {
		return fmt.Errorf("quorum: node %d already exists; observer ids must differ from every voter and observer", id)
	}
	n := q.addNode(id, -1)
	n.discovery = int(n.idx) % len(q.voters)
	q.boot(n)
	return nil
}

// SetTrace makes the quorum write one line per notable event (role changes, appends, commits,
// truncations, snapshots, faults, invariant violations) to w; nil turns tracing off. Two runs
// with the same seed and inputs write the same bytes.
func (q *Quorum[P]) SetTrace(w io.Writer) { q.trace = w }

// Config returns the settings the quorum runs with.
func (q *Quorum[P]) Config() Config {
	c := q.cfg
	c.Voters = append([]NodeID(nil), q.cfg.Voters...)
	return c
}

// Stats returns the run's counters.
func (q *Quorum[P]) Stats() Stats { return q.stats }

func (q *Quorum[P]) lookup(id NodeID) (*node, error) {
	idx, ok := q.byID[id]
	if !ok {
		return nil, fmt.Errorf("quorum: node %d is neither a voter %v nor an observer", id, q.cfg.Voters)
	}
	return q.nodes[idx], nil
}

func (q *Quorum[P]) running(id NodeID) (*node, error) {
	n, err := q.lookup(id)
	if err != nil {
		return nil, err
	}
	if !n.running {
		return nil, fmt.Errorf("quorum: node %d is stopped; Start it first", id)
	}
	return n, nil
}

// name renders a node index for traces and errors.
func (q *Quorum[P]) name(idx int32) string {
	if idx < 0 {
		return "none"
	}
	return fmt.Sprint(q.nodes[idx].id)
}

// Append writes records to the log of node, which must be the running leader, one entry per
// record, and returns the offset of the last one. Only the leader accepts writes, as only
// KafkaRaftClient's leader accepts prepareAppend.
func (q *Quorum[P]) Append(id NodeID, records ...Record[P]) (int64, error) {
	n, err := q.running(id)
	if err != nil {
		return 0, err
	}
	if n.state != Leader {
		return 0, fmt.Errorf("quorum: node %d is %s in epoch %d (leader %s); only the leader accepts Append", id, n.state, n.epoch, q.name(n.leader))
	}
	if len(records) == 0 {
		return 0, fmt.Errorf("quorum: Append to node %d has no records; pass at least one", id)
	}
	for i, r := range records {
		if r.Bytes < 1 {
			return 0, fmt.Errorf("quorum: records[%d].Bytes = %d; a record must be at least 1 byte", i, r.Bytes)
		}
	}
	first := n.log.end()
	for _, r := range records {
		q.appendLocal(n, Entry[P]{Epoch: n.epoch, Bytes: r.Bytes, Payload: r.Payload})
	}
	if q.trace != nil {
		q.tracef(n, "append [%d,%d) epoch=%d", first, n.log.end(), n.epoch)
	}
	q.leaderLogGrew(n)
	return n.log.end() - 1, nil
}

// appendLocal writes a new entry at the end of leader n's log.
func (q *Quorum[P]) appendLocal(n *node, e Entry[P]) {
	e.Offset = n.log.end()
	id := q.arena.add(e)
	n.log.append(id, 1, e.Epoch, int64(e.Bytes))
}

// Snapshot makes node take a snapshot at its high watermark now, as an operator-triggered or
// test-triggered snapshot, and returns its id.
func (q *Quorum[P]) Snapshot(id NodeID) (SnapshotID, error) {
	n, err := q.running(id)
	if err != nil {
		return SnapshotID{}, err
	}
	snap, ok := q.takeSnapshot(n)
	if !ok {
		return SnapshotID{}, fmt.Errorf("quorum: node %d has nothing committed past its latest snapshot (high watermark %d); nothing to snapshot", id, n.hw)
	}
	return snap, nil
}

func (q *Quorum[P]) tracef(n *node, format string, args ...any) {
	fmt.Fprintf(q.trace, "%8d %5d ", q.sim.Now(), n.id)
	fmt.Fprintf(q.trace, format, args...)
	io.WriteString(q.trace, "\n")
}
