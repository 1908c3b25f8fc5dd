package broker

import (
	"fmt"
	"math"

	"github.com/kraftlab/kraftlab/cluster/sim"
	"github.com/kraftlab/kraftlab/engine/config"
	"github.com/kraftlab/kraftlab/engine/controller"
)

// Replica states (rstate). A replica's log-end offset is read from different places depending
// on it; see Fleet.pos.
const (
	rsDead     uint8 = iota // its broker's replicas are not active: LEO frozen in leo[r]
	rsStalled               // active but not fetching (no leader, epoch mismatch, link cut): frozen
	rsLeader                // the partition's serving leader: LEO = L(p, t)
	rsTracking              // in sync and fetching: LEO = max(leo[r], L − λ·InSyncLagMs)
	rsCatching              // fetching a backlog in a session group: LEO = L − (key + A_g(t))
)

// AlterPartition states of a partition's leader (alterState).
const (
	alNone   uint8 = iota
	alQueued       // waiting in the leader broker's next batch
	alSent         // in the batch in flight
	alAwait        // accepted; waiting for the metadata record that carries it
)

// Event kinds the Fleet schedules on the sim.
const (
	evStart int32 = iota + 1
	evComm
	evRegReply
	evHbReply
	evRecoveryDone
	evShutdownDone
	evIsrTick
	evAlterFlush
	evAlterReply
	evSession
	evAlloc
)

// peerView is one broker's knowledge of another broker's registration, from its own metadata.
type peerView struct {
	epoch      int64
	registered bool
	fenced     bool
	inCS       bool
}

// replicaView is what one replica's broker knows of its partition from the metadata it has
// applied. Its fields sit together because a metadata change writes them together and the
// role checks read them together: one cache line per replica instead of five.
type replicaView struct {
	leader      int8  // replica position of the leader, -1 none
	isr         uint8 // ISR as a mask of replica positions
	in          bool  // the broker has seen the partition
	leaderEpoch int32
	partEpoch   int32
}

// partState is a partition's hot state. Its fields sit together because one metadata change
// reads or writes most of them (applyPartition, partitionTouchedBy, takeover, hw,
// updateProduce): kept in as many parallel slices, each touch of a partition missed the cache
// once per slice. It is 64 bytes, one cache line; a field added here should keep it so.
type partState struct {
	leoBase float64
	volBase float64
	hwVal   float64
	// hwFloor is the highest high watermark the serving leader has had in its epoch: Kafka's
	// leader only ever raises its HW (Partition.maybeIncrementLeaderHW), even when an ISR
	// member's known log end goes back, as it does here while a restarted follower recovers.
	hwFloor float64
	rbase   int32 // first replica slot
	servEp  int32 // the leader epoch the serving leader runs with, -1 none
	// lastEp is the leader epoch the last serving leader ran with: whose high watermark a
	// takeover after a leaderless spell compares the new leader's log with.
	lastEp   int32
	topic    int32  // index into the catalog's topics
	tmark    uint32 // applyUpTo's per-batch dedupe of touched partitions
	rf       uint8
	cls      uint8
	fetcher  uint8
	leader   int8 // serving leader's replica position, -1 none
	lastLd   int8 // the last serving leader, kept while there is none
	produce  bool // the serving leader accepts writes
	deleted  bool
	hwFrozen bool
	isrMax   uint8 // the serving leader's maximal ISR
	alterSt  uint8
	tkind    uint8
}

// alterProposal is a partition's pending AlterPartition proposal: the ISR proposed (a mask of
// replica positions), whether it expands the ISR, and the leader and partition epochs it was
// proposed at. Twelve bytes in one slice, as the AlterPartition loops read them together: one
// cache miss per partition (two for the one in five that straddles a line) instead of four.
type alterProposal struct {
	le, pe int32
	isr    uint8
	expand bool
}

// route is what the latency sampler's PartitionPath reads first for a partition: when its
// serving leader last changed, and where its replicas sit (partState's rbase and rf again).
// Sixteen bytes a partition, so that the sampler's random picks mostly find it in the L2 cache
// at the KIP load test's 60,000 partitions; knowing the replicas' place from it, PartitionPath
// asks for their cache lines together with the partition's state instead of after it.
type route struct {
	changed int64
	rbase   int32
	rf      uint8
}

// replicaState is a replica slot's hot state, 32 bytes, for the same reason as partState: a
// partition's replicas are adjacent slots, so its three replicas take two cache lines rather
// than one or two in each of seven slices.
type replicaState struct {
	leo   float64
	view  replicaView // the replica's broker's view of the partition, from metadata
	rpart int32
	grp   int32
	rb    int16 // broker slot, -1 for a broker outside the fleet
	// watchLd says whose watch list holds the replica: the leader's replica slot is
	// r+watchLd (0: no list). A list entry of r in another broker's list is stale: the
	// partition's leadership moved and the new leader watches it now. Naming the owner, not
	// just flagging the replica, is what lets the new leader watch a replica the old one
	// still lists. A leader never watches itself, so 0 is free to mean none.
	watchLd int8
	// rstate is written through putRState, which keeps the out-of-sync counts.
	rstate uint8
}

// broker is one broker's lifecycle, metadata view and per-broker bookkeeping.
type broker struct {
	id    int32
	state State
	// gen changes on every kill and start, so events of an older incarnation are ignored.
	gen uint32
	rng *sim.Rand

	epoch        int64
	registered   bool
	incarnations int
	// prevEpoch is the clean-shutdown file's broker epoch; -1 when there is none.
	prevEpoch    int64
	logDirGen    int
	needRecovery bool // the last stop was hard: logs must be recovered
	emptyDisk    bool // the disk was replaced: start with empty logs
	ready        bool // readyToUnfence: logs recovered
	active       bool // replicas act as leaders and followers
	clientUp     bool // producers can reach it
	slow         float64
	throttleL    float64
	throttleF    float64

	heartbeatChannel
	brokerView
	leaderIsr
	brokerLoads
}

// heartbeatChannel is a broker's one channel to the controller, as BrokerLifecycleManager's
// single "communication" event: a registration or a heartbeat in flight, the next one due, and
// the last replies.
type heartbeatChannel struct {
	comm          sim.Handle
	inFlight      bool
	nextImmediate bool
	gotCSReply    bool
	regEpoch      int64
	regErr        error
	hbReply       controller.HeartbeatReply
	hbErr         error
}

// brokerView is how far a broker has applied the committed metadata, the changes queued for
// it, and what it knows of the other brokers' registrations.
type brokerView struct {
	applied int64
	queue   changeQueue
	peers   []peerView // by broker slot
}

// leaderIsr is a broker's ISR maintenance as a leader (see isrKeeper): its isr-expiration task,
// its watch list, and its AlterPartition batches.
type leaderIsr struct {
	isrTick     sim.Handle
	isrTickAt   int64
	watch       []int32 // replica slots whose ISR membership may need a change
	alterQueue  []int32 // partitions queued for the next AlterPartition batch
	alterBatch  []int32 // partitions of the batch in flight
	alterReqs   []controller.AlterPartitionRequest
	alterErrs   []error
	alterIsrBuf []int32
	alterBusy   bool
	alterFlush  bool
	alterErr    error
}

// brokerLoads are a broker's loads by rate class: producing partitions led, tracking followers
// held, and tracking followers served as a leader (bytes are counts × class rates), and its
// catch-up traffic.
type brokerLoads struct {
	leadCnt  []int32
	trackCnt []int32
	replCnt  []int32
	catchIn  float64 // catch-up bytes/s fetched as a follower
	catchOut float64 // catch-up bytes/s served as a leader
}

// noHandle is the zero sim.Handle: no event.
var noHandle sim.Handle

// Fleet is every broker of the cluster and every replica they hold. It is a sim.Handler: it
// schedules its own timers (heartbeats, recovery, isr-expiration, AlterPartition batches,
// catch-up) on the sim it was given.
type Fleet struct {
	sim    *sim.Sim
	p      Params
	static config.Values
	client ControllerClient
	rates  Rates
	lis    Listener

	brokers []broker
	slotOf  map[int32]int16
	// The committed metadata log decoded once for all brokers, and the path it takes to them.
	cat catalog
	pub publisher

	// Rate classes: K real classes plus class K with rate 0 (partitions not taking writes).
	k       int
	clsRate []float64
	clsReq  []float64
	clsVol  []float64
	volAt   int64

	// Per partition: the fields the metadata path reads on every change sit in one partState
	// (one cache line); the rest stay in parallel slices.
	pt      []partState
	epochSt []float64 // leader-epoch start offset
	route   []route   // when the serving leader last changed, and where the replicas are
	sizes   logSizes  // the starting partitions' local log sizes, when given (Prefill)
	// uniformRF is the replication factor of every partition when all have the same one, so
	// that partition p's replicas start at slot p*uniformRF; 0 when they do not.
	uniformRF uint8

	// Per replica slot: the hot fields in one replicaState, the rest in parallel slices.
	rp     []replicaState
	lastCU []int64

	// cut[a*n+b] is set while the link between broker slots a and b is down (nil: none).
	cut []bool

	// cu is follower catch-up through fetch sessions; isr is ISR maintenance on the leaders.
	cu    catchUp
	isr   isrKeeper
	life  lifecycle
	roles roles

	// topicMinIsr caches min.insync.replicas per topic index (-1: not resolved yet).
	topicMinIsr []int32

	// oos counts, by broker slot, the replicas out of sync: partitions with a serving leader
	// whose replica there neither leads nor tracks (see OutOfSyncAll).
	oos []int32

	stats Stats
	warm  warmer
	// notes records when each restarted broker's catch-up began (catchup_status.go).
	notes catchUpNotes
}

// catchUp is follower catch-up through fetch sessions (see the package doc's "Time and cost"):
// every session, by (follower slot, leader slot, fetcher), the ones with catching-up members, the
// event that reallocates their rates, and each replica slot's heap generation. It moves the
// replicas of the fleet's tables, f.
type catchUp struct {
	f        *Fleet
	sessions []session
	active   []int32
	allocEv  sim.Handle
	allocAt  int64
	scratch  allocScratch
	hgen     []uint32 // by replica slot: the generation of its current heap entry
}

// publisher is the path committed metadata takes to the brokers, as Kafka's MetadataLoader and
// its publishers: each record decoded once into the catalog (Publish), queued as a change for
// every broker it concerns, and applied to each broker's view in batches up to the offset the
// broker has reached (ApplyMetadata), the roles it changes re-derived once per batch.
type publisher struct {
	f *Fleet
	// blocks lends the brokers' metadata queues their blocks.
	blocks    blockPool
	published int64 // the last offset published into the catalog
	// A batch's touched partitions (deduped by partState.tmark == tgen) and peers whose
	// registration changed.
	tgen     uint32
	touchBuf []int32
	peerBuf  []int16
}

// lifecycle drives each broker through its states as Kafka's BrokerLifecycleManager does:
// registration, heartbeats on one channel to the controller, log recovery, unfencing,
// controlled shutdown. Its state is each broker's (broker.state and heartbeatChannel); the
// exported Fleet methods (Boot, Start, Kill, ...) are its entry points.
type lifecycle struct{ f *Fleet }

// roles makes each partition's replicas take up the roles their brokers' metadata gives them:
// the serving leader (takeover, produce, high watermark) and followers tracking it, catching up
// a backlog, or stalled. It re-derives a partition's roles when its metadata, a link or a
// broker's state changes (partitionTouchedBy), on the fleet's tables, f.
type roles struct{ f *Fleet }

// warmer reads, ahead of the fleet's big loops, the cache lines they will use (see warm.go):
// sink keeps those reads from being optimised away and means nothing; idx is warmPublish's
// buffer.
type warmer struct {
	f    *Fleet
	sink int32
	idx  []int32
}

// isrKeeper is ISR maintenance on the leaders, as Kafka's Partition and
// DefaultAlterPartitionManager do it: each leader's watch list and isr-expiration task, the
// proposals (by partition), and the AlterPartition batches (in each broker's state). It reads
// and moves the replicas of the fleet's tables, f.
type isrKeeper struct {
	f     *Fleet
	alter []alterProposal // by partition: the pending proposal, while partState.alterSt says there is one
	// mark and markGen dedupe the partitions one isr-expiration pass looks at.
	mark    []uint32
	markGen uint32
}

// Stats are cumulative counters of what the brokers did.
type Stats struct {
	// IsrShrinks and IsrExpands count AlterPartition proposals the controller accepted.
	IsrShrinks, IsrExpands int64
	// AlterPartitionErrors counts partitions an AlterPartition answer refused.
	AlterPartitionErrors int64
	// AlterPartitionTimeouts counts batches that got no answer and were resent.
	AlterPartitionTimeouts int64
	// LeaderChanges counts takeovers by a serving leader other than the previous one (the
	// first leader of a partition is not a change).
	LeaderChanges int64
	// Rejoins counts catch-up completions: followers that were catching up a backlog in a
	// fetch session and reached the leader's log end. (Followers within one fetch of the leader
	// when they start fetching are in sync at once and not counted.)
	Rejoins int64
	// TruncatedBytes is log data removed from replicas above a new leader's log end.
	TruncatedBytes float64
	// LostAckedRecords counts acknowledged records that were truncated away: acks=1 records
	// above the new leader's log end, and acks=all records only after an unclean election.
	LostAckedRecords float64
	// UncleanTakeovers counts new leaders whose log ended below the old high watermark.
	UncleanTakeovers int64
	// HeartbeatsSent counts BrokerHeartbeat requests of all brokers.
	HeartbeatsSent int64
}

// New returns a fleet of brokers with the given ids, all NOT_RUNNING, talking to the
// controller through client and producing at the rates of rates. static holds cluster-level
// configs the brokers know from their own server.properties (for example min.insync.replicas);
// committed ConfigRecords override them.
func New(s *sim.Sim, p Params, ids []int32, static config.Values, client ControllerClient, rates Rates) (*Fleet, error) {
	if s == nil {
		return nil, fmt.Errorf("broker: sim is nil; a Fleet needs the run's sim for its clock and events")
	}
	if client == nil {
		return nil, fmt.Errorf("broker: ControllerClient is nil; brokers need a way to the controller")
	}
	if rates == nil {
		return nil, fmt.Errorf("broker: Rates is nil; brokers need the produce workload")
	}
	if err := p.Validate(); err != nil {
		return nil, err
	}
	if len(ids) == 0 || len(ids) > math.MaxInt16 {
		return nil, fmt.Errorf("broker: %d broker ids; must be between 1 and %d", len(ids), math.MaxInt16)
	}
	k := rates.NumClasses()
	if k < 1 || k > MaxClasses {
		return nil, fmt.Errorf("broker: Rates.NumClasses() = %d; must be in [1, %d]", k, MaxClasses)
	}
	f := &Fleet{sim: s, p: p, static: static.Clone(), client: client, rates: rates,
		slotOf: make(map[int32]int16, len(ids)), cat: newCatalog(len(ids)), k: k}
	f.clsRate = make([]float64, k+1)
	f.clsReq = make([]float64, k+1)
	f.clsVol = make([]float64, k+1)
	if err := f.loadRates(); err != nil {
		return nil, err
	}
	root := s.Rand().Child("broker")
	n := len(ids)
	f.brokers = make([]broker, n)
	for i, id := range ids {
		if id < 0 {
			return nil, fmt.Errorf("broker: broker id %d is negative; ids must be 0 or more", id)
		}
		if _, dup := f.slotOf[id]; dup {
			return nil, fmt.Errorf("broker: broker id %d is listed twice", id)
		}
		f.slotOf[id] = int16(i)
		f.brokers[i] = broker{id: id, epoch: -1, prevEpoch: -1, clientUp: true, slow: 1,
			rng:       root.ChildID("broker", int64(id)),
			throttleL: p.LeaderThrottleBytesPerSec, throttleF: p.FollowerThrottleBytesPerSec,
			brokerView:  brokerView{applied: -1, peers: make([]peerView, n)},
			brokerLoads: brokerLoads{leadCnt: make([]int32, k+1), trackCnt: make([]int32, k+1), replCnt: make([]int32, k+1)}}
	}
	f.oos = make([]int32, n)
	f.cu.f, f.isr.f, f.life.f, f.roles.f, f.warm.f = f, f, f, f, f
	f.pub = publisher{f: f, published: -1}
	f.cu.sessions = make([]session, n*n*p.NumReplicaFetchers)
	for i := range f.cu.sessions {
		f.cu.sessions[i].pos = -1
	}
	return f, nil
}

// loadRates reads the class rates from Rates and checks them.
func (f *Fleet) loadRates() error {
	for c := 0; c < f.k; c++ {
		r, q := f.rates.ClassBytesPerSec(c), f.rates.ClassRequestsPerSec(c)
		if !(r >= 0) || math.IsInf(r, 0) {
			return fmt.Errorf("broker: Rates.ClassBytesPerSec(%d) = %g; must be a finite number ≥ 0", c, r)
		}
		if !(q >= 0) || math.IsInf(q, 0) {
			return fmt.Errorf("broker: Rates.ClassRequestsPerSec(%d) = %g; must be a finite number ≥ 0", c, q)
		}
		f.clsRate[c], f.clsReq[c] = r, q
	}
	if rb := f.rates.RecordBytes(); !(rb > 0) {
		return fmt.Errorf("broker: Rates.RecordBytes() = %g; must be positive", rb)
	}
	return nil
}

// SetListener installs the lifecycle listener (nil removes it).
func (f *Fleet) SetListener(l Listener) { f.lis = l }

// Params returns the parameters the fleet runs with.
func (f *Fleet) Params() Params { return f.p }

// NumBrokers is the number of brokers; broker slots are 0..NumBrokers()-1 in the order of the
// ids given to New.
func (f *Fleet) NumBrokers() int { return len(f.brokers) }

// BrokerID is the id of the broker in slot.
func (f *Fleet) BrokerID(slot int) int32 { return f.brokers[slot].id }

// Slot returns the slot of broker id.
func (f *Fleet) Slot(id int32) (int, bool) {
	s, ok := f.slotOf[id]
	return int(s), ok
}

// NumPartitions is the number of partitions published so far (deleted ones included).
func (f *Fleet) NumPartitions() int { return len(f.pt) }

// Stats returns the cumulative counters.
func (f *Fleet) Stats() Stats { return f.stats }

func (f *Fleet) slot(id int32) (*broker, int, error) {
	s, ok := f.slotOf[id]
	if !ok {
		return nil, 0, fmt.Errorf("broker: unknown broker id %d; the fleet has %d brokers", id, len(f.brokers))
	}
	return &f.brokers[s], int(s), nil
}

func (f *Fleet) now() int64 { return f.sim.Now() }

// at schedules one of the fleet's events; scheduling at or after now cannot fail.
func (f *Fleet) at(t int64, kind int32, id int32, arg int64) sim.Handle {
	if t < f.now() {
		t = f.now()
	}
	h, err := f.sim.Schedule(t, sim.Event{Target: f, Kind: kind, ID: id, Arg: arg})
	if err != nil {
		panic("broker: " + err.Error())
	}
	return h
}

// bigBuffer is the capacity above which a per-broker buffer (the AlterPartition batch's) is
// released once empty rather than kept for reuse: a burst of ISR changes grows it once.
const bigBuffer = 4096

// logSizes are the starting partitions' local log sizes as measured on a real cluster, by
// partition index (Prefill); the partitions past its end have none.
type logSizes []float64

// of is partition p's local log size: its given one, or else def.
func (s logSizes) of(p int32, def float64) float64 {
	if int(p) < len(s) {
		return s[p]
	}
	return def
}
