// Package broker models the brokers of KRaft Lab's toy cluster: their lifecycle as Kafka's
// BrokerLifecycleManager drives it (register, catch up on metadata, recover logs, unfence, run,
// controlled shutdown), the replicas they hold (log-end offsets, high watermarks, leader-epoch
// start offsets), follower catch-up through fetch sessions, ISR maintenance on the leader
// (isr-expiration shrink, expansion at the high watermark, one AlterPartition in flight per
// partition), per-broker resources shared between client traffic and catch-up, replication
// throttles, and the accounting of acknowledged records lost to truncation.
//
// All brokers live in one Fleet, because replication couples them: a follower's progress is a
// share of its leader's and its own headroom. State is kept in flat slices indexed by
// partition (the index metadata.Image gives it) and by replica slot (partition × stride +
// position in the replica list), so a million partitions cost a few hundred bytes each and no
// pointers the garbage collector must walk.
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
