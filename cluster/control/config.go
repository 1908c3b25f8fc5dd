package control

import (
	"github.com/kraftlab/kraftlab/cluster/quorum"
	"github.com/kraftlab/kraftlab/engine/config"
	"github.com/kraftlab/kraftlab/engine/controller"
	"github.com/kraftlab/kraftlab/engine/metadata"
)

// FirstVoterID is the node id of the first controller in VoterIDs; controllers and brokers share
// one id space, and KRaft Lab numbers controllers from 3000 as Kafka's examples do.
const FirstVoterID = 3000

// VoterIDs returns n controller ids: 3000, 3001, ...
func VoterIDs(n int) []quorum.NodeID {
	ids := make([]quorum.NodeID, n)
	for i := range ids {
		ids[i] = quorum.NodeID(FirstVoterID + i)
	}
	return ids
}

// Config is what New needs.
type Config struct {
	// Quorum is the Raft layer's configuration; Quorum.Voters are the controller ids.
	Quorum quorum.Config
	// Static holds the controllers' static configs (their server.properties), given to every
	// engine controller that activates. Dynamic configs are ConfigRecords in the log.
	Static config.Values
	// Brokers are attached as quorum observers at New; AddBroker attaches more later.
	Brokers []int32
	// Bootstrap, when set, writes the cluster's starting records: it runs on the first
	// controller that activates over a log holding no metadata record, after Restore and
	// before Activate, as Kafka writes its bootstrap metadata at the first activation. It should
	// write through c.Bootstrap (or any engine call); its records are the first batch of the
	// epoch. An error is recorded as a violation (rule "bootstrap"), since the run cannot go on.
	Bootstrap func(c *controller.Controller, nowMs int64) error
	// PartitionsHint is how many partitions the cluster is expected to hold (0: unknown). The
	// controllers size their committed images for it up front, so that a bootstrap of a
	// million partitions, which reaches them in many fetches, does not grow them batch by
	// batch. It changes capacity only, never behaviour.
	PartitionsHint int
}

// DefaultConfig returns Kafka's quorum defaults with three voters (3000, 3001, 3002), the
// engine's defaults as static configs, and no brokers.
func DefaultConfig() Config {
	q := quorum.DefaultConfig()
	q.Voters = VoterIDs(3)
	return Config{Quorum: q}
}

// Callbacks are the calls Controllers makes into the embedding layer. Every field is optional.
// The ones marked "inside a quorum hook" run while the quorum is handling an event: they may
// send Client requests and operator actions (whose records are then appended a moment later, at
// the same virtual time), but Kill, Start, Cut, Heal, HealAll, Snapshot and AddBroker return an
// error there. Slices passed in are only valid during the call.
//
// For each batch of entries the cluster commits for the first time, the calls come in this
// order, entry by entry and then for the batch:
//
//	for each entry e:  BeforeCommit(e) → e is replayed into CommittedView → AfterCommit(e, err)
//	then:              OnCommitted(batch)
type Callbacks struct {
	// OnCommitted gets entries as the cluster first commits them (the leader's high watermark
	// passing them), in log order without gaps, LeaderChangeMessages included (inside a quorum
	// hook). A broker fleet can publish them to its shared image here.
	OnCommitted func(entries []CommittedEntry)
	// BeforeCommit gets each entry as the cluster first commits it, while CommittedView does
	// not hold it yet (inside a quorum hook): the place to read what the entry will change.
	BeforeCommit func(entry CommittedEntry)
	// AfterCommit gets the same entry once it is replayed into CommittedView, with the
	// replay's error (nil: it replayed; otherwise it is also a violation) (inside a quorum
	// hook).
	AfterCommit func(entry CommittedEntry, err error)
	// OnBrokerCommitted gets the entries broker's observer newly committed, in log order
	// without gaps, LeaderChangeMessages included, so the broker's applied offset is the last
	// entry's offset (inside a quorum hook). Entries a broker already had (from before a restart
	// of its observer, or from a snapshot) are not delivered again.
	OnBrokerCommitted func(broker int32, entries []metadata.Entry)
	// OnBrokerSnapshot tells that broker's observer downloaded snap (with FetchSnapshot, being
	// too far behind the leader's log start) and must replace its metadata view with it; later
	// entries continue from snap.EndOffset (inside a quorum hook). Read its records during the
	// call: the content of a snapshot only brokers downloaded is released once the controller
	// that took it deletes it (see Snapshot), since a broker never loads it again.
	OnBrokerSnapshot func(broker int32, snap *Snapshot)
	// OnActivated tells that node activated an engine controller for epoch at nowMs.
	OnActivated func(node int32, epoch int32, nowMs int64)
	// OnResigned tells that node's active engine controller of epoch was discarded at nowMs
	// (inside a quorum hook: the quorum reports every resignation, a Kill's included).
	OnResigned func(node int32, epoch int32, nowMs int64)
	// OnViolation tells of an invariant violation as it is found; the caller should stop the run.
	OnViolation func(v Violation)
}

// Stats counts what the controllers did, for benchmarks, tests and the UI.
type Stats struct {
	Activations  int64 // engine controllers activated
	Resignations int64 // engine controllers discarded
	Bootstraps   int64 // activations that wrote Config.Bootstrap's records
	Requests     int64 // Client requests
	// NotController counts requests answered or failed with NOT_CONTROLLER: the broker knew no
	// leader, its leader was unreachable, or the node it reached was not active.
	NotController int64
	// Timeouts counts requests whose records could not commit: no majority of voters reachable
	// from the active controller.
	Timeouts         int64
	RecordsWritten   int64 // records the engines appended to the quorum
	BytesWritten     int64 // their estimated bytes (RecordBytes plus batch headers)
	SnapshotsTaken   int64 // controller snapshots produced (TakeSnapshot)
	SnapshotsLoaded  int64 // snapshots loaded after FetchSnapshot, controllers and brokers
	SnapshotsDropped int64 // broker snapshot loads skipped because the broker was already past them
	// ShortCommitWaits counts replies whose records committed after the estimated commit wait
	// (see Client). LateReplies counts the subset that reached the broker before their records
	// committed, which Kafka never does. LostReplies counts replies delayed for a commit whose
	// records never committed (the leader was lost within the wait).
	ShortCommitWaits int64
	LateReplies      int64
	LostReplies      int64
}
