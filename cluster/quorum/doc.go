// Package quorum models KRaft's Raft metadata quorum (Kafka's raft module: KafkaRaftClient,
// QuorumState, LeaderState, KafkaMetadataLog) on the cluster/sim clock: voters that elect a
// leader with pre-vote and vote, followers and observers that pull the log with long-poll Fetch,
// the high-watermark rule, divergence truncation, snapshots with FetchSnapshot, and faults (kill,
// start, cut and heal links).
//
// It is generic over the payload P that entries carry, so the cluster layer can store engine
// records in it, and it calls back into that layer through Hooks (leadership, high-watermark
// moves, truncation, snapshot production and loading). It must not import engine/; it imports
// only cluster/sim and the standard library.
//
// Entries are stored once, in an arena shared by every node, and a node's log is a list of
// stretches of consecutive arena ids, so a hundred observers cost a few words each rather than
// eight bytes per entry, and fetching, committing and checking a batch cost per stretch rather
// than per entry. Retention (metadata.max.retention.bytes) trims every node's log, observers'
// included, behind its snapshots; the arena drops what no log reaches any more.
//
// As it runs it checks the Raft safety invariants (one leader per epoch, a monotonic high
// watermark, one committed prefix everywhere, no committed entry truncated) and records any
// violation with the run's seed and time so that the failure replays exactly.
package quorum
