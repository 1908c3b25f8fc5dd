// Package broker models the brokers of KRaft Lab's toy cluster: their lifecycle as Kafka's
// BrokerLifecycleManager drives it (register, catch up on metadata, recover logs, unfence, run,
// controlled shutdown), the replicas they hold (log-end offsets, high watermarks, leader-epoch
// start offsets), follower catch-up through fetch sessions, ISR maintenance on the leader
// (isr-expiration shrink, expansion at the high watermark, one AlterPartition in flight per
// partition), per-broker resources shared between client traffic and catch-up, replication
// throttles, and the accounting of acknowledged records lost to truncation.
//
// All brokers live in one Fleet, because replication couples them: a follower's progress is a
// share of its leader's and its own headroom.
//
// # Data layout
//
// State is kept in flat tables indexed by partition (the index metadata.Image gives it) and by
// replica slot (a partition's replicas are adjacent slots from partState.rbase, in replica-list
// order), so a million partitions cost a few hundred bytes each and no pointers the garbage
// collector must walk. The fields one step reads together share a struct (one cache line for
// partState, half of one for replicaState); the rest are parallel slices.
//
//	Fleet
//	├─ tables         the state every concern shares (tables.go; its shared reads in replica.go)
//	│  ├─ brokers[slot]  broker: lifecycle state, heartbeatChannel, brokerView (applied offset,
//	│  │                 queue of changes, peers), leaderIsr (watch list, AlterPartition batch),
//	│  │                 brokerLoads · oos[slot] · cut[slot×n+slot]
//	│  ├─ cat            catalog: the committed metadata decoded once for all brokers:
//	│  │                 parts[p] cpart (leader, epochs, ISR as a mask and in the log's
//	│  │                 order) · rid[r], rslot[r] (replica ids, their brokers' slots)
//	│  ├─ rateClasses    per class c: clsRate[c], clsReq[c], cumulative volume clsVol[c]
//	│  ├─ per partition p        pt[p] partState · epochSt[p] · route[p]
//	│  │                          │ rbase, rf
//	│  │                          ▼
//	│  ├─ per replica slot r     rp[r] replicaState (leo, view, rstate) · lastCU[r]
//	│  └─ sessions[(follower, leader, fetcher)]  fetch sessions → groups by rate class
//	├─ pub            publisher: catalog → each broker's queue → each broker's view
//	├─ cu             catchUp: sessions with catching-up members, rate allocation, hgen[r]
//	├─ isr            isrKeeper: proposals alter[p], isr-expiration passes
//	├─ roles          roles: leaders and followers taking up their roles, produce, HW
//	├─ life           lifecycle: registration, heartbeats, recovery, shutdown
//	└─ warm           warmer: cache warming of the big loops
//
// Each concern keeps its own state in its own type and reaches the shared tables, and the
// other concerns, through the Fleet; the reads every concern needs (a replica's log position,
// a partition's high watermark, its replicas, min.insync.replicas, whether a link is up) are
// methods of tables, and only the Fleet schedules events (Fleet.at), as the sim's handler.
//
// The Fleet's exported methods are the assembly's entry points, each in the file of the concern it
// drives: lifecycle.go for lifecycle (Boot, Start, Kill, ControlledShutdown, ReplaceDisk, State,
// Epoch, HardRecoveryMs), metadata.go and publish.go for publisher (Publish, Published,
// PartitionIndex, ApplyMetadata, LoadSnapshot, Prefill, AppliedOffset), catchup.go for catchUp
// (RatesChanged, SetThrottle, SetThrottleAllReplicas, SetDiskSlowFactor, CatchUpFlows,
// SteadyReplicationRate), catchup_status.go for CatchUp and CatchUpBegan, and view.go and
// outofsync.go for the network links and what producers and observers read. They stay on the
// Fleet, one handle for the assembly, because a call runs on across concerns: Boot loads the
// broker's view (publisher), sets its state (lifecycle) and activates its replicas (roles).
//
// # Following one broker's restart and one ISR change
//
// A restart goes through the files in order: lifecycle.go (Start: register, heartbeat, recover
// logs, unfence) → metadata.go (the broker applies the records it missed: publisher.applyUpTo)
// → roles.go (its replicas take up their roles: roles.refreshFollower) → catchup.go (a follower
// behind its leader joins a fetch session's group, catchUp.joinGroup, and rejoins when the
// group's heap says so) → isr.go (isrKeeper.caughtUp proposes the ISR expansion) → alter.go
// (the AlterPartition round trip; the controller's record comes back through publish.go). An
// ISR shrink starts in isr.go's isr-expiration task (isrKeeper.isrTick) and takes the same way
// back.
//
// The files are layered: each refers only to what it and the files before it declare
// (cluster's TestNoBackArrows holds the order): state, params, client, queue, catalog,
// sessions, catchup_notes, tables, replica, fleet, warm, isr, catchup_status, catchup, roles,
// alter, metadata, publish, lifecycle, outofsync, view, events.
//
// # Time and cost
//
// Log positions are not advanced tick by tick. Between rate changes every quantity moves
// linearly, so positions are evaluated in closed form when needed:
//
//   - A leader's log-end offset grows at its partition's produce rate λ. Rates come from a
//     small number of rate classes (Rates), and each class keeps its cumulative volume V_c(t),
//     so a partition's LEO is an anchor plus V_c(t) − V_c(anchor).
//   - A follower that is catching up belongs to a fetch session (follower broker, leader
//     broker, fetcher id). The session's catch-up rate x is split equally among its members
//     (KIP-227's fair rotation), so within one rate class the backlogs B_p evolve as
//     dB/dt = λ_c − x/n and keep their order. Each (session, class) group stores its members
//     in a min-heap of B_p − A(t), where A(t) is the group's accumulated drift; the next ISR
//     rejoin of the group is the heap's minimum reaching replica.fetch.max.bytes, found in
//     O(log n). A session has one scheduled event: its earliest rejoin.
//   - The catch-up rates themselves are set by a max-min fair allocation over active sessions
//     (per-broker headroom, throttles, the fetch protocol's bytes per cycle), recomputed when
//     the set of active sessions changes and every AllocPeriodMs while any catch-up runs.
//
// So the work grows with fetch sessions, ISR changes, elections and metadata records, not with
// partitions × clock ticks.
//
// # Talking to the controller and the metadata log
//
// A broker reaches the active controller only through ControllerClient, whose calls return the
// engine/controller reply plus the delay after which the broker sees it; the assembly decides
// routing, reachability and delay. Committed metadata reaches brokers through ApplyMetadata in
// log order; the Fleet decodes each record once into a shared image and queues what each
// broker must see, so every broker has its own applied offset and its own (possibly stale) view
// of its replicas' partitions and of the other brokers' registrations.
//
// The package imports cluster/sim, engine/controller, engine/metadata and engine/config. It
// must not import cluster/workload, cluster/quorum, cluster/scenario, wasm or web.
package broker
