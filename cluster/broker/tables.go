package broker

import (
	"fmt"
	"math"

	"github.com/kraftlab/kraftlab/cluster/sim"
	"github.com/kraftlab/kraftlab/engine/config"
	"github.com/kraftlab/kraftlab/engine/controller"
)

// Replica states (rstate). A replica's log-end offset is read from different places depending
// on it; see tables.pos.
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
	// leader only ever raises its HW (Partition.maybeIncrementLeaderHW), even when a counted
	// follower's log end is below it, as when one rejoins or an ISR member's disk is replaced.
	// Only the model's events move it (holdHW); reading the HW does not.
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

// rateClasses are the produce rate classes: K real classes (Rates) plus class K with rate 0,
// which partitions not taking writes belong to, and each class's cumulative volume per
// partition, clsVol at volAt (see the package doc's "Time and cost").
type rateClasses struct {
	k       int
	clsRate []float64 // bytes/s per partition
	clsReq  []float64 // produce requests/s per partition
	clsVol  []float64
	volAt   int64
}

// loadRates reads the class rates from rates and checks them.
func (rc *rateClasses) loadRates(rates Rates) error {
	for c := 0; c < rc.k; c++ {
		r, q := rates.ClassBytesPerSec(c), rates.ClassRequestsPerSec(c)
		if !(r >= 0) || math.IsInf(r, 0) {
			return fmt.Errorf("broker: Rates.ClassBytesPerSec(%d) = %g; must be a finite number ≥ 0", c, r)
		}
		if !(q >= 0) || math.IsInf(q, 0) {
			return fmt.Errorf("broker: Rates.ClassRequestsPerSec(%d) = %g; must be a finite number ≥ 0", c, q)
		}
		rc.clsRate[c], rc.clsReq[c] = r, q
	}
	if rb := rates.RecordBytes(); !(rb > 0) {
		return fmt.Errorf("broker: Rates.RecordBytes() = %g; must be positive", rb)
	}
	return nil
}

// tables are the state every concern of the fleet shares: the brokers, the committed metadata
// (the catalog), the rate classes, the per-partition and per-replica tables, the cut links and
// the fetch sessions. Catch-up, ISR maintenance, roles, the metadata path and the lifecycle
// each keep their own state in their own type and meet here; the reads they share, such as a
// replica's log position (pos) or a partition's high watermark (hw), are tables' methods
// (replica.go). The clock is read here too, never scheduled: only the Fleet schedules events.
type tables struct {
	sim    *sim.Sim
	p      Params
	static config.Values

	brokers []broker
	slotOf  map[int32]int16
	// The committed metadata log decoded once for all brokers.
	cat catalog

	rateClasses

	// Per partition: the fields the metadata path reads on every change sit in one partState
	// (one cache line); the rest stay in parallel slices.
	pt      []partState
	epochSt []float64 // leader-epoch start offset
	route   []route   // when the serving leader last changed, and where the replicas are
	sizes   logSizes  // the starting partitions' local log sizes, when given (Prefill)
	// uniformRF is the replication factor of every partition when all have the same one, so
	// that partition p's replicas start at slot p*uniformRF; 0 when they do not.
	uniformRF uint8
	// topicMinIsr caches min.insync.replicas per topic index (-1: not resolved yet).
	topicMinIsr []int32

	// Per replica slot: the hot fields in one replicaState, the rest in parallel slices.
	rp     []replicaState
	lastCU []int64

	// Per broker slot: oos counts the replicas out of sync, in partitions with a serving leader
	// whose replica there neither leads nor tracks (see OutOfSyncAll); cut[a*n+b] is set while
	// the link between broker slots a and b is down (nil: none).
	oos []int32
	cut []bool

	// sessions are the fetch sessions, by (follower slot, leader slot, fetcher): catch-up
	// (catchUp) moves their members, pos reads a catching-up replica's place from them.
	sessions []session
}

func (tb *tables) now() int64 { return tb.sim.Now() }

// slot returns the broker id's state and slot, or an error naming the unknown id.
func (tb *tables) slot(id int32) (*broker, int, error) {
	s, ok := tb.slotOf[id]
	if !ok {
		return nil, 0, fmt.Errorf("broker: unknown broker id %d; the fleet has %d brokers", id, len(tb.brokers))
	}
	return &tb.brokers[s], int(s), nil
}

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
