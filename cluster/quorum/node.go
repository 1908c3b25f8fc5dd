package quorum

import (
	"math"

	"github.com/kraftlab/kraftlab/cluster/sim"
)

// never is the deadline of a timer that is not running.
const never = math.MaxInt64

// maxVoters bounds the fixed-size per-voter arrays; Config allows at most 5 voters.
const maxVoters = 5

// node is one controller or broker. Its fields split the way Kafka's do: the log, snapshots and
// the election state (Kafka's quorum-state file: epoch, voted-for, leader) survive Kill; the rest
// is rebuilt by Start.
type node struct {
	id       NodeID
	idx      int32
	voterIdx int // position in Config.Voters, or -1 for an observer
	running  bool
	inc      uint32 // incarnation: messages a dead incarnation sent are dropped
	rng      *sim.Rand

	// Durable.
	log      replicaLog
	snaps    []Snapshot // retained snapshots, oldest first
	epoch    int32
	votedFor int32 // node index, -1 for none
	leader   int32 // node index, -1 for unknown

	// Volatile.
	state              State
	hw                 int64
	electionDeadline   int64
	fetchDeadline      int64
	fetch              fetcher
	round              uint64 // id of the current (pre-)vote round
	granted, rejected  uint8  // voter bitmasks for the current round
	lead               leaderState
	bytesSinceSnapshot int64
	lastSnapshotMs     int64
	discovery          int // which voter an observer without a leader asks next

	// Latest delivery time on the links from and to each voter, which keeps every link FIFO
	// when the network adds jitter, as a TCP connection is.
	linkFromVoter [maxVoters]int64
	linkToVoter   [maxVoters]int64

	wakeAt      int64
	wake        sim.Handle
	wakePending bool
}

func (n *node) voter() bool { return n.voterIdx >= 0 }

func (n *node) latestSnapshot() (Snapshot, bool) {
	if len(n.snaps) == 0 {
		return Snapshot{}, false
	}
	return n.snaps[len(n.snaps)-1], true
}

// fetcher is a follower's or observer's single outstanding Fetch or FetchSnapshot, as Kafka's
// RequestManager allows one in-flight request per destination.
type fetcher struct {
	inFlight bool
	reqID    uint64
	sentMs   int64
	retryAt  int64
	snap     snapshotFetch
}

// snapshotFetch tracks a FetchSnapshot download in progress.
type snapshotFetch struct {
	active   bool
	id       SnapshotID
	position int64
}

// leaderState is Kafka's LeaderState: what a leader knows about its voters in this epoch.
type leaderState struct {
	epoch               int32
	epochStart          int64
	hwKnown             bool // the HW has passed epochStart in this epoch; until then responses carry -1
	voterEnd            [maxVoters]int64
	lastFetchMs         [maxVoters]int64
	fetched             uint8 // voters heard from since the check-quorum timer was last reset
	checkQuorumDeadline int64
	beginQuorumNext     int64
	parked              []parkedFetch // long-poll fetches waiting for data, oldest first
	spare               []parkedFetch // reused buffers, so answering fetches allocates nothing
	expired             []parkedFetch
}

// parkedFetch is a Fetch the leader holds in its purgatory until data arrives or the wait ends.
type parkedFetch struct {
	from      int32
	reqID     uint64
	offset    int64
	lastEpoch int32
	hw        int64
	deadline  int64
}
