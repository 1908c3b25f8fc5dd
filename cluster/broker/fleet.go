package broker

import (
	"fmt"
	"math"

	"github.com/kraftlab/kraftlab/cluster/sim"
	"github.com/kraftlab/kraftlab/engine/config"
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

// alterProposal is a partition's pending AlterPartition proposal: the ISR proposed (a mask of
// replica positions), whether it expands the ISR, and the leader and partition epochs it was
// proposed at. Twelve bytes in one slice, as the AlterPartition loops read them together: one
// cache miss per partition (two for the one in five that straddles a line) instead of four.
type alterProposal struct {
	le, pe int32
	isr    uint8
	expand bool
}

// noHandle is the zero sim.Handle: no event.
var noHandle sim.Handle

// Fleet is every broker of the cluster and every replica they hold. It is a sim.Handler: it
// schedules its own timers (heartbeats, recovery, isr-expiration, AlterPartition batches,
// catch-up) on the sim it was given.
//
// Its concerns (catchUp, isrKeeper, roles, lifecycle, publisher) hold the Fleet, not only its
// tables, because a step of one runs on into another (a follower's rejoin in catchUp proposes
// an ISR expansion in isrKeeper, an AlterPartition answer may re-derive roles) and because their
// timers are the Fleet's events.
type Fleet struct {
	// tables are the brokers, the catalog, the rate classes and the per-partition,
	// per-replica and per-session tables every concern below reads and writes.
	tables

	client ControllerClient
	rates  Rates
	lis    Listener

	// pub is the path committed metadata takes from the catalog to the brokers.
	pub publisher
	// cu is follower catch-up through fetch sessions; isr is ISR maintenance on the leaders.
	cu    catchUp
	isr   isrKeeper
	life  lifecycle
	roles roles
	warm  warmer

	stats Stats
	// notes records when each restarted broker's catch-up began (catchup_status.go).
	notes catchUpNotes
}

// catchUp is follower catch-up through fetch sessions (see the package doc's "Time and cost"):
// the sessions (in tables) with catching-up members, the event that reallocates their rates, and
// each replica slot's heap generation. It moves the replicas of the fleet's tables, f.
type catchUp struct {
	f       *Fleet
	active  []int32
	allocEv sim.Handle
	allocAt int64
	scratch allocScratch
	hgen    []uint32 // by replica slot: the generation of its current heap entry
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

// warmer reads, ahead of the fleet's big loops, the cache lines of the tables, tb, that they
// will use (see warm.go): sink keeps those reads from being optimised away and means nothing;
// idx is warmPublish's buffer. It needs nothing of the Fleet but its tables.
type warmer struct {
	tb   *tables
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
	f := &Fleet{client: client, rates: rates, tables: tables{sim: s, p: p, static: static.Clone(),
		slotOf: make(map[int32]int16, len(ids)), cat: newCatalog(len(ids)),
		rateClasses: rateClasses{k: k, clsRate: make([]float64, k+1), clsReq: make([]float64, k+1), clsVol: make([]float64, k+1)}}}
	if err := f.loadRates(rates); err != nil {
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
	f.cu.f, f.isr.f, f.life.f, f.roles.f = f, f, f, f
	f.warm.tb = &f.tables
	f.pub = publisher{f: f, published: -1}
	f.sessions = make([]session, n*n*p.NumReplicaFetchers)
	for i := range f.sessions {
		f.sessions[i].pos = -1
	}
	return f, nil
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
