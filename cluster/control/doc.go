// Package control is KRaft Lab's controller quorum with a real controller on it: N controller
// nodes (1, 3 or 5 voters) on a cluster/quorum Raft log of engine metadata records, the brokers
// attached as observers of that log, and the engine/controller state machine running on
// whichever node is the active controller, as Kafka's QuorumController runs on the Raft leader.
//
// # What each node holds
//
// Every controller node has a committed image at its high watermark (the quorum's HighWatermark
// hook moves it), rebuilt from the records of a snapshot when it loads one, and answers the
// quorum's TakeSnapshot with it as SnapshotRecords. So a controller's image only ever holds
// committed records and needs no undo when its uncommitted tail is truncated. The controllers
// that booted with no snapshot share one image, the cluster's committed image (CommittedView),
// replayed once per entry as the cluster first commits it; each is at or behind its end, and
// sees it at its own offset through an undo journal kept from the lowest of them on. A
// controller that loads a snapshot (a restart, a FetchSnapshot download) has an image of its
// own from then on, and so does a killed one. Brokers are observers: their committed entries go to the embedding layer
// through Callbacks.OnBrokerCommitted, in log order, and a snapshot a broker downloads through
// Callbacks.OnBrokerSnapshot (a separate callback, because a snapshot replaces a broker's view
// rather than extending it).
//
// # Data layout
//
//	Controllers
//	├─ controllers[i]  controllerNode (a voter, in Config.Quorum.Voters order)
//	│                  ├─ imagePos + store ──▶ images.root (shared, with its undo journal)
//	│                  │                   └─▶ a store of its own (after a snapshot load or a kill)
//	│                  ├─ snaps: snapshotList ──▶ Snapshot ──src──▶ cowImage (copy on write)
//	│                  ├─ activation   waiting for its epoch's LeaderChangeMessage to commit
//	│                  └─ active       *activeEngine: the engine controller, task and ship events
//	├─ brokers[j]      brokerObserver (delivered offset)
//	├─ log             committedLog: the cluster's committed entries, and pledged replies
//	├─ images          the shared committed image (CommittedView) and the snapshot chunk pool
//	├─ net             network: request delays and cut links
//	└─ iv              invariants: the violations found
//
// An engine's steps are explicit (activation.go): the quorum's BecameLeader hook sets
// controllerNode.activation, an evActivate event activates once the epoch's
// LeaderChangeMessage commits, every engine call ends in afterEngine (ship the records, keep the
// task event at the engine's next deadline), and Resigned or Kill deactivates. A committed
// entry reaches the embedding layer in a fixed order: BeforeCommit, the replay into
// CommittedView, AfterCommit, then OnCommitted for the batch (see Callbacks).
//
// The files are layered: each refers only to what it and the files before it declare
// (cluster's TestNoBackArrows holds the order): invariants, snapshot, past, bytes, store,
// committed, images, node, network, observe, config, controllers, activation, hooks, client,
// view, ops, logview, setup.
//
// # Becoming active
//
// A node that wins an election (BecameLeader) does not serve requests at once. As Kafka's
// CompleteActivationEvent, it waits until its LeaderChangeMessage is committed, which commits
// its whole log, then creates the engine controller with controller.Restore from a clone of its
// committed image, the quorum's end offset as the next offset, and a seed derived from the run
// seed and the epoch, and calls Activate: the periodic tasks are first due one period after
// activation, so their phase moves with every failover. Over a log with no metadata records the
// first controller to activate writes Config.Bootstrap's records first, as Kafka writes its
// bootstrap metadata. Resigning, for any reason, discards the engine.
//
// # Writes
//
// After every engine call the records it wrote are appended to the quorum on the active node,
// as one batch, and the quorum must assign the offsets the engine gave them. Periodic tasks run
// from one sim event kept at the engine's NextDeadline. Brokers reach the active controller
// through Client (cluster/broker's ControllerClient): a request is handled at once by the engine
// of the controller the broker's observer believes leads, and the reply is delayed by the network
// there and back plus, when the request leaves records uncommitted, an estimate of the commit
// wait (see Client). Operators act on the active controller directly (ElectLeaders, CreateTopic,
// ...), outside the network model.
//
// # Memory at scale
//
// The cluster's committed log (Committed) is kept whole by default; SetTrimCommitted keeps only
// what some node may still commit (from the lowest high watermark or latest snapshot end), for
// runs of millions of records. Nodes committing offsets the cluster already committed get them
// from that log rather than reading and converting them again. A snapshot keeps its partitions
// in its controller's image, copy on write, until it may be read after that controller deleted
// it (see Snapshot), so taking one costs no copy of a million partitions.
//
// # Invariants
//
// As it runs, the package checks that the committed metadata log is one prefix on every node
// (on top of the quorum's own check of every node's entry at every offset, it compares the
// records a node is first to commit, and the last record of every later commit, with the
// cluster's committed log), that no controller's
// committed image lowers a partition's leader or partition epoch, that at most one engine
// controller activates per quorum epoch, that engine and quorum offsets agree, and that every
// committed record replays. A violation is recorded with the seed, the time and the two facts
// that disagree (Err, Violations, Callbacks.OnViolation); the caller stops the run.
//
// Determinism follows cluster/sim's rules: time only from the sim, randomness only from named
// streams under the run's seed ("control"), no goroutines, and no iteration over maps.
//
// The package imports cluster/sim, cluster/quorum, cluster/broker (for its ControllerClient
// interface and ErrUnreachable) and engine/. It must not import cluster/scenario, cluster/workload,
// wasm or web.
package control
