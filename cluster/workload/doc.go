// Package workload is KRaft Lab's producer workload and its produce-latency model
// (docs/model.md §5–8).
//
// The workload gives every partition a produce rate drawn from a lognormal skew, quantised
// into a few equal-probability rate classes (each class carries the lognormal's conditional
// mean over its quantile band, so the total rate and the spread are kept). Classes are what
// let cluster/broker compute catch-up in closed form; Workload implements broker.Rates.
//
// The latency model samples a bounded number of produce requests per sampling window, in
// proportion to request rate, and gives each a latency built from Kafka's request-time
// decomposition:
//
//	T = T_client + Q_net(L) + Q_io(L) + A(L) + max over in-sync followers f of
//	    (RTT + A(f) + H(f, p)) + T_move
//
// where T_client is linger plus a client round trip, Q_net and Q_io are Erlang-C waits of
// the leader's network threads and request handlers at their utilisation, A(b) is the append
// stage, exponential with mean s_a / (1 − ρ_dw(b)), H(f, p) is the head-of-line wait of a
// follower whose fetch session also carries catch-up (uniform over the session's fetch cycle),
// and T_move is the client's penalty inside a switch window after the leader changed (KIP-951
// on: the rest of the window; off: a chain of retry backoffs). Requests that cannot complete
// (no leader, producers cut off, NOT_ENOUGH_REPLICAS, the high watermark held by a stalled
// ISR member) are retried as the Java producer does (retry.backoff.ms doubling to
// retry.backoff.max.ms with ±20 % jitter, request.timeout.ms, delivery.timeout.ms), so their
// latency includes the outage. Each window reports p50/p99/p99.9 of the requests that
// completed in it, over it and over a sliding span, plus errors, timeouts and retries.
//
// It imports cluster/sim and cluster/broker (for the Load and Path types); it reads the
// cluster through the Cluster interface, which *broker.Fleet implements.
package workload
