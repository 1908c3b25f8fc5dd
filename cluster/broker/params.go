package broker

import (
	"fmt"
	"math"
)

// MiB is 2^20 bytes, the unit of Kafka's fetch-size defaults.
const MiB = 1 << 20

// GiB is 2^30 bytes, log.segment.bytes' default.
const GiB = 1 << 30

// Acks is the producers' acknowledgement mode. It decides whether a leader refuses writes
// below min.insync.replicas and which truncated records count as acknowledged losses.
type Acks int8

// The two acknowledgement modes that matter for availability and loss.
const (
	// AcksAll (acks=-1) is acknowledged once the high watermark passes the batch; refused with
	// NOT_ENOUGH_REPLICAS while the ISR is below min.insync.replicas.
	AcksAll Acks = iota
	// AcksLeader (acks=1) is acknowledged on the leader's append alone.
	AcksLeader
)

// String names the mode as the producer config spells it.
func (a Acks) String() string {
	if a == AcksLeader {
		return "1"
	}
	return "all"
}

// Params are the broker-side inputs of the model. Kafka configs keep Kafka's names in their
// doc comments; numbers that are not Kafka defaults are marked [assumption] with where they
// come from (docs/model.md §8 unless said otherwise).
type Params struct {
	// HeartbeatIntervalMs is broker.heartbeat.interval.ms (Kafka default 2,000): the RUNNING,
	// RECOVERY and failure-retry cadence of BrokerLifecycleManager.
	HeartbeatIntervalMs int64
	// StartingHeartbeatMs is the STARTING cadence, 10 ms, hard-coded in BrokerLifecycleManager
	// "so that in the case where there is no recovery work to be done, we start up a bit quicker".
	StartingHeartbeatMs int64
	// ControlledShutdownRetryMs is the delay after the first PENDING_CONTROLLED_SHUTDOWN reply
	// that does not release the broker: 50 ms, hard-coded in BrokerLifecycleManager.
	ControlledShutdownRetryMs int64
	// ProcessStartMs is the time from Start to the first BrokerRegistration request (JVM start,
	// config, sockets). [assumption] 5 s; part of T_boot.
	ProcessStartMs int64
	// LogLoadCleanMs is log loading after a clean shutdown (RECOVERY with a clean-shutdown
	// file). [assumption] 55 s so that T_boot = start → unfence ≈ 60 s clean, as docs/model.md §2 assumes.
	LogLoadCleanMs int64
	// LogRecoveryHardMs, when above 0, fixes log recovery after a hard stop at that time. At 0
	// (the default) the time follows from what the broker holds, as Kafka's LogManager.loadLogs
	// does without a clean-shutdown file: every log is opened (LogRecoveryPerLogMs each,
	// NumRecoveryThreadsPerDataDir at a time) and every segment above the log's recovery point
	// is read back and validated (LogLoader.recoverLog). The recovery point moves when a
	// segment rolls and is flushed (UnifiedLog.roll); Kafka does not flush otherwise by
	// default, so what is re-read is each log's active segment: its log end modulo
	// LogSegmentBytes, read at the disk's read rate.
	LogRecoveryHardMs int64
	// LogRecoveryPerLogMs is the fixed cost of loading one log after a hard stop (opening its
	// segments and indexes, loading its producer state). [assumption] 10 ms; no public number.
	LogRecoveryPerLogMs float64
	// LogSegmentBytes is log.segment.bytes (Kafka default 1 GiB): a log rolls a new segment,
	// flushing the old one, every this many bytes (log.roll.ms, 7 days, is not modelled).
	LogSegmentBytes float64
	// NumRecoveryThreadsPerDataDir is num.recovery.threads.per.data.dir (Kafka default 2 since
	// 4.0, 1 before; ServerLogConfigs): logs loaded in parallel. A broker has one data dir here.
	NumRecoveryThreadsPerDataDir int
	// LogLoadEmptyMs is RECOVERY on a replaced (empty) disk: nothing to load. [assumption] 1 s.
	LogLoadEmptyMs int64
	// ShutdownFlushMs is SHUTTING_DOWN: closing logs and writing the clean-shutdown file.
	// [assumption] 1 s.
	ShutdownFlushMs int64

	// ReplicaLagTimeMaxMs is replica.lag.time.max.ms (Kafka default 30,000); the isr-expiration
	// task runs every half of it (ReplicaManager).
	ReplicaLagTimeMaxMs int64
	// NumReplicaFetchers is num.replica.fetchers (Kafka default 1): fetch sessions per
	// (follower, leader) pair; a partition uses fetcher hash(topic, partition) mod this.
	NumReplicaFetchers int
	// ReplicaFetchMaxBytes is replica.fetch.max.bytes (1 MiB): bytes per partition per fetch.
	// A follower whose backlog is within one such fetch counts as caught up (it reaches the
	// leader's log end, hence the HW and the leader-epoch start, on its next fetch).
	ReplicaFetchMaxBytes float64
	// ReplicaFetchResponseMaxBytes is replica.fetch.response.max.bytes (10 MiB): bytes per
	// fetch response, which bounds a session's bytes per cycle.
	ReplicaFetchResponseMaxBytes float64
	// AlterPartitionRetryMs is the wait before resending an AlterPartition batch the controller
	// did not answer (Kafka retries it indefinitely). [assumption] 100 ms.
	AlterPartitionRetryMs int64

	// DiskWriteBytesPerSec, DiskReadBytesPerSec are each broker's disk capacities.
	// [assumption] 500 MB/s each (AWS gp3 range 125–1,000 MiB/s).
	DiskWriteBytesPerSec, DiskReadBytesPerSec float64
	// NicInBytesPerSec, NicOutBytesPerSec are each broker's network capacities.
	// [assumption] 1,250 MB/s per direction (10 Gb/s).
	NicInBytesPerSec, NicOutBytesPerSec float64
	// CatchUpHeadroomShare is η, the share of a resource's free headroom that unthrottled
	// catch-up takes. [assumption] 0.9 (DataDog autothrottle aims at 90 %; observed ≈250 MB/s).
	CatchUpHeadroomShare float64
	// RttMs is the round trip between brokers. [assumption] 0.5 ms (one AZ).
	RttMs float64
	// InSyncLagMs is how far behind the leader an in-sync follower's log end is, in time at the
	// partition's produce rate: about one fetch round trip. It is what acks=1 loses at a clean
	// leader change. [assumption] 1 ms (RTT + follower append).
	InSyncLagMs float64
	// ConsumerFanout is g, consumer groups reading every partition from its leader (NIC out).
	// Consumers are assumed to read from the page cache. [assumption] 1.
	ConsumerFanout float64

	// LeaderThrottleBytesPerSec is leader.replication.throttled.rate, 0 for none: the catch-up
	// bytes a broker serves to out-of-sync followers (Kafka default: none). Applies only when
	// ThrottleAllReplicas is set.
	LeaderThrottleBytesPerSec float64
	// FollowerThrottleBytesPerSec is follower.replication.throttled.rate, 0 for none.
	FollowerThrottleBytesPerSec float64
	// ThrottleAllReplicas stands for leader/follower.replication.throttled.replicas = "*" on
	// every topic; without it the two rates throttle nothing, as in Kafka (KIP-73). Only
	// replicas out of the ISR are ever throttled.
	ThrottleAllReplicas bool

	// LocalRetentionSec is how many seconds of produce a replica holds locally: an empty
	// replica (a replaced disk) must copy λ × this. [assumption] 13,333 s, so that the model's
	// ingress (50 MB/s as leader + 100 MB/s as follower per broker) holds 2 TB per broker.
	LocalRetentionSec float64
	// TieredLocalShare is the share of that local data an empty follower must copy: 1 without
	// tiered storage, 0.10–0.15 with KIP-1023 (KIP-1303 text).
	TieredLocalShare float64
	// AllocPeriodMs is how often catch-up rates are recomputed while catch-up runs, so that
	// headroom taken back by rejoined partitions is seen. [assumption] 1,000 ms (docs/model.md §1).
	AllocPeriodMs int64

	// Acks is the producers' acks setting. Kafka default: all.
	Acks Acks
}

// DefaultParams returns the defaults documented on each field.
func DefaultParams() Params {
	return Params{
		HeartbeatIntervalMs:          2000,
		StartingHeartbeatMs:          10,
		ControlledShutdownRetryMs:    50,
		ProcessStartMs:               5000,
		LogLoadCleanMs:               55000,
		LogRecoveryHardMs:            0,
		LogRecoveryPerLogMs:          10,
		LogSegmentBytes:              GiB,
		NumRecoveryThreadsPerDataDir: 2,
		LogLoadEmptyMs:               1000,
		ShutdownFlushMs:              1000,
		ReplicaLagTimeMaxMs:          30000,
		NumReplicaFetchers:           1,
		ReplicaFetchMaxBytes:         MiB,
		ReplicaFetchResponseMaxBytes: 10 * MiB,
		AlterPartitionRetryMs:        100,
		DiskWriteBytesPerSec:         500e6,
		DiskReadBytesPerSec:          500e6,
		NicInBytesPerSec:             1250e6,
		NicOutBytesPerSec:            1250e6,
		CatchUpHeadroomShare:         0.9,
		RttMs:                        0.5,
		InSyncLagMs:                  1,
		ConsumerFanout:               1,
		LocalRetentionSec:            2e12 / 150e6,
		TieredLocalShare:             1,
		AllocPeriodMs:                1000,
		Acks:                         AcksAll,
	}
}

// Validate checks every field and names the first bad one, its value and what is allowed.
func (p *Params) Validate() error {
	posInt := []struct {
		name string
		v    int64
	}{
		{"HeartbeatIntervalMs", p.HeartbeatIntervalMs},
		{"StartingHeartbeatMs", p.StartingHeartbeatMs},
		{"ControlledShutdownRetryMs", p.ControlledShutdownRetryMs},
		{"ReplicaLagTimeMaxMs", p.ReplicaLagTimeMaxMs},
		{"AlterPartitionRetryMs", p.AlterPartitionRetryMs},
		{"AllocPeriodMs", p.AllocPeriodMs},
	}
	for _, f := range posInt {
		if f.v < 1 {
			return fmt.Errorf("broker params: %s = %d; must be at least 1 ms", f.name, f.v)
		}
	}
	nonNegInt := []struct {
		name string
		v    int64
	}{
		{"ProcessStartMs", p.ProcessStartMs},
		{"LogLoadCleanMs", p.LogLoadCleanMs},
		{"LogRecoveryHardMs", p.LogRecoveryHardMs},
		{"LogLoadEmptyMs", p.LogLoadEmptyMs},
		{"ShutdownFlushMs", p.ShutdownFlushMs},
	}
	for _, f := range nonNegInt {
		if f.v < 0 {
			return fmt.Errorf("broker params: %s = %d; must be 0 ms or more", f.name, f.v)
		}
	}
	if p.NumRecoveryThreadsPerDataDir < 1 || p.NumRecoveryThreadsPerDataDir > 1024 {
		return fmt.Errorf("broker params: NumRecoveryThreadsPerDataDir = %d; must be in [1, 1024]", p.NumRecoveryThreadsPerDataDir)
	}
	if p.NumReplicaFetchers < 1 || p.NumReplicaFetchers > 64 {
		return fmt.Errorf("broker params: NumReplicaFetchers = %d; must be in [1, 64]", p.NumReplicaFetchers)
	}
	posFloat := []struct {
		name string
		v    float64
	}{
		{"ReplicaFetchMaxBytes", p.ReplicaFetchMaxBytes},
		{"ReplicaFetchResponseMaxBytes", p.ReplicaFetchResponseMaxBytes},
		{"DiskWriteBytesPerSec", p.DiskWriteBytesPerSec},
		{"DiskReadBytesPerSec", p.DiskReadBytesPerSec},
		{"NicInBytesPerSec", p.NicInBytesPerSec},
		{"NicOutBytesPerSec", p.NicOutBytesPerSec},
		{"RttMs", p.RttMs},
		{"LogSegmentBytes", p.LogSegmentBytes},
	}
	for _, f := range posFloat {
		if !(f.v > 0) || math.IsInf(f.v, 0) {
			return fmt.Errorf("broker params: %s = %g; must be a positive finite number", f.name, f.v)
		}
	}
	nonNegFloat := []struct {
		name string
		v    float64
	}{
		{"InSyncLagMs", p.InSyncLagMs},
		{"LogRecoveryPerLogMs", p.LogRecoveryPerLogMs},
		{"ConsumerFanout", p.ConsumerFanout},
		{"LeaderThrottleBytesPerSec", p.LeaderThrottleBytesPerSec},
		{"FollowerThrottleBytesPerSec", p.FollowerThrottleBytesPerSec},
		{"LocalRetentionSec", p.LocalRetentionSec},
	}
	for _, f := range nonNegFloat {
		if !(f.v >= 0) || math.IsInf(f.v, 0) {
			return fmt.Errorf("broker params: %s = %g; must be a finite number ≥ 0 (0 means none)", f.name, f.v)
		}
	}
	if !(p.CatchUpHeadroomShare > 0 && p.CatchUpHeadroomShare <= 1) {
		return fmt.Errorf("broker params: CatchUpHeadroomShare = %g; must be in (0, 1]", p.CatchUpHeadroomShare)
	}
	if !(p.TieredLocalShare > 0 && p.TieredLocalShare <= 1) {
		return fmt.Errorf("broker params: TieredLocalShare = %g; must be in (0, 1]", p.TieredLocalShare)
	}
	if p.ReplicaFetchResponseMaxBytes < p.ReplicaFetchMaxBytes {
		return fmt.Errorf("broker params: ReplicaFetchResponseMaxBytes = %g is below ReplicaFetchMaxBytes = %g; a response must hold at least one partition's fetch",
			p.ReplicaFetchResponseMaxBytes, p.ReplicaFetchMaxBytes)
	}
	if p.Acks != AcksAll && p.Acks != AcksLeader {
		return fmt.Errorf("broker params: Acks = %d; must be AcksAll or AcksLeader", p.Acks)
	}
	return nil
}
