package quorum

import "fmt"

// NodeID is a Kafka node.id. Controllers (voters) and brokers (observers) share one id space.
type NodeID int32

// NoNode stands for "no node": no known leader, no vote cast.
const NoNode NodeID = -1

// State is a node's role in the quorum, named as Kafka's QuorumState names its EpochStates.
// Observers are only ever Unattached (looking for the leader) or Follower.
type State uint8

// The states of KRaft's QuorumState (Kafka 4.x, with KIP-996 pre-vote).
const (
	// Unattached: knows the epoch but no leader; a voter waits out its election timeout.
	Unattached State = iota
	// Follower: knows the epoch's leader and fetches from it.
	Follower
	// Prospective: a voter asking for pre-votes without bumping the epoch (KIP-996).
	Prospective
	// Candidate: a voter that bumped the epoch, voted for itself and asks for votes.
	Candidate
	// Leader: the one node that appends to the log in this epoch.
	Leader
	// Resigned: a former leader that gave up (check-quorum) and waits for the next election.
	Resigned
)

var stateNames = [...]string{"Unattached", "Follower", "Prospective", "Candidate", "Leader", "Resigned"}

// String returns Kafka's name for the state.
func (s State) String() string {
	if int(s) < len(stateNames) {
		return stateNames[s]
	}
	return fmt.Sprintf("State(%d)", uint8(s))
}

// LeaderChange is the LeaderChangeMessage control record a leader writes at the start of its
// epoch (LeaderState.appendStartOfEpochControlRecords). Writing it lets the leader commit an entry
// of its own epoch at once, which the high-watermark rule requires before older entries count.
type LeaderChange struct {
	Epoch          int32    // the epoch the record opens
	LeaderID       NodeID   // its leader
	Voters         []NodeID // the voter set
	GrantingVoters []NodeID // the voters that granted the winning vote
}

// LeaderChangeBytes is the size charged for a LeaderChangeMessage batch. Kafka's is on the order
// of a hundred bytes; the exact figure only matters to snapshot and retention byte counts.
const LeaderChangeBytes int32 = 96

// Entry is one record batch in the metadata log: either a control record (Control != nil) or an
// opaque Payload written by the cluster layer.
type Entry[P any] struct {
	Offset  int64         // position in the log
	Epoch   int32         // leader epoch it was written in
	Bytes   int32         // size it stands for (retention, snapshots, fetch sizes)
	Control *LeaderChange // set for a LeaderChangeMessage; Payload is then the zero P
	Payload P             // the embedding layer's record batch
}

// Record is what Append takes: one payload and the bytes it stands for.
type Record[P any] struct {
	Payload P     // stored as the Entry's Payload
	Bytes   int32 // at least 1
}

// SnapshotID names a snapshot as Kafka's OffsetAndEpoch does: it covers offsets below EndOffset,
// and Epoch is the epoch of the entry at EndOffset-1.
type SnapshotID struct {
	EndOffset int64 // first offset not in the snapshot
	Epoch     int32 // epoch of the entry at EndOffset-1
}

// Snapshot is a snapshot a node holds. Data is whatever Hooks.TakeSnapshot produced; nodes that
// download it share the same value, so the cluster layer must treat it as immutable.
type Snapshot struct {
	ID        SnapshotID // what it covers
	Bytes     int64      // its size: FetchSnapshot sends it in chunks, retention counts it
	Data      any        // content from Hooks.TakeSnapshot (nil without it)
	CreatedMs int64      // when this node took or installed it (for metadata.max.retention.ms)
}

// Reason says why a leader stopped leading.
type Reason uint8

// Why leadership ends.
const (
	// ReasonCheckQuorum: a majority of voters had not fetched within 1.5 × fetch timeout.
	ReasonCheckQuorum Reason = iota + 1
	// ReasonHigherEpoch: the node learned of a higher epoch (a vote request, a response, a new leader).
	ReasonHigherEpoch
	// ReasonKilled: the node was killed.
	ReasonKilled
)

// String names the reason for traces.
func (r Reason) String() string {
	switch r {
	case ReasonCheckQuorum:
		return "check-quorum"
	case ReasonHigherEpoch:
		return "higher-epoch"
	case ReasonKilled:
		return "killed"
	}
	return fmt.Sprintf("Reason(%d)", uint8(r))
}

// Hooks are the calls the quorum makes into the embedding layer. Every field is optional. They
// run synchronously inside the simulation (and already during New, AddObserver and Start, which
// boot nodes), and must not call back into the quorum's fault or append methods; read-only
// methods such as Read and Node are fine.
type Hooks struct {
	// BecameLeader fires when node wins epoch's election, after its LeaderChangeMessage is written.
	BecameLeader func(node NodeID, epoch int32)
	// Resigned fires when node stops being leader of epoch, for any Reason.
	Resigned func(node NodeID, epoch int32, why Reason)
	// StateChanged fires on every role change, for traces and the UI.
	StateChanged func(node NodeID, from, to State, epoch int32)
	// HighWatermark fires when node's high watermark moves from from to to: entries [from, to)
	// are committed on that node and can be applied, in order, with Read.
	HighWatermark func(node NodeID, from, to int64)
	// Truncated fires when node removes its entries at offsets >= offset (uncommitted entries of a
	// lost leader, reverted after a DivergingEpoch).
	Truncated func(node NodeID, offset int64)
	// TakeSnapshot produces the snapshot content for node covering offsets below id.EndOffset.
	// Without it a snapshot carries no data and is sized as the log bytes it replaces.
	TakeSnapshot func(node NodeID, id SnapshotID) (data any, bytes int64)
	// LoadSnapshot fires when node's applied state must be replaced by snap: after downloading it
	// with FetchSnapshot, and on every start (its latest snapshot, or the zero Snapshot when it
	// has none, meaning "start from nothing"). The node's high watermark is then
	// snap.ID.EndOffset, and later moves are reported by HighWatermark.
	LoadSnapshot func(node NodeID, snap Snapshot)
	// DeletedSnapshot fires when node stops holding snap: retention deleted it, or a snapshot
	// the node downloaded replaced it. inFlight says that a FetchSnapshot answer carrying its
	// Data is still on its way to a follower, which will load that Data on arrival. The
	// embedding layer can release what it keeps for the snapshot's content unless inFlight.
	DeletedSnapshot func(node NodeID, snap Snapshot, inFlight bool)
}

// NodeStatus is a read-only view of one node for tests, traces and the UI.
type NodeStatus struct {
	ID             NodeID     // the node
	Voter          bool       // a controller in controller.quorum.voters, not a broker
	Running        bool       // false between Kill and Start
	State          State      // its role (the last one, while stopped)
	Epoch          int32      // its current epoch
	LeaderID       NodeID     // the leader it knows for Epoch, or NoNode
	VotedFor       NodeID     // whom it voted for in Epoch, or NoNode
	LogStartOffset int64      // first offset still in its log (after snapshots and retention)
	EndOffset      int64      // next offset it will write (log end offset)
	LastEpoch      int32      // epoch of its last entry (or of the snapshot it starts from)
	HighWatermark  int64      // offsets below it are committed, as far as it knows
	Snapshot       SnapshotID // its latest snapshot, if HasSnapshot
	HasSnapshot    bool       // whether it holds any snapshot
}

// Stats counts what happened in the run, for benchmarks and the UI.
type Stats struct {
	Elections           int64 // leaders elected
	Resignations        int64 // leaderships ended, any reason
	Truncations         int64 // divergence truncations that removed entries
	SnapshotsTaken      int64 // by the size or interval policy, or on demand
	SnapshotsLoaded     int64 // installs after FetchSnapshot
	FetchSnapshotChunks int64 // FetchSnapshot round trips answered with data
	MessagesSent        int64 // every RPC posted, including dropped ones
	MessagesDropped     int64 // dead endpoint or cut link
	RequestTimeouts     int64 // fetches that got no answer within controller.quorum.request.timeout.ms
}
