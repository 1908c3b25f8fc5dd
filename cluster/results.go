package cluster

import (
	"github.com/kraftlab/kraftlab/engine/balance"
	"github.com/kraftlab/kraftlab/engine/controller"
	"github.com/kraftlab/kraftlab/engine/metadata"
)

// Record is a committed metadata record with the scenario time it was committed.
type Record struct {
	metadata.Entry
	TimeMs int64
	// Epoch is the quorum epoch of the controller that wrote it.
	Epoch int32
}

// BalancerRun is one electPreferred run, at scenario time, with the leader each election chose
// (Leaders[i] for Run.Elected[i]) and the controller that ran it.
type BalancerRun struct {
	balance.Run
	Leaders    []int32
	Controller int32
	// Partitions names Run.Elected[i] as topic and partition, taken from the image of the
	// controller that ran it when it ran: Run.Elected holds indexes into that image, which
	// the committed view need not share (a failover drops uncommitted topics, and a topic
	// created afterwards may take other slots).
	Partitions []controller.TopicPartition
}

// ElectLeadersResult is the answer to one elect_leaders event: Kafka's per-partition result
// (the error code and message, or none) for each partition the request named, or for those
// an all-partitions request tried.
type ElectLeadersResult struct {
	TimeMs  int64
	Results []controller.ElectionResult
}

// BrokerSample is one broker at a sample time.
type BrokerSample struct {
	ID    int32
	State string // not_running, starting, recovery, running, shutting_down: the broker's own state
	// Leaders counts partitions it leads; PreferredTotal those it is the preferred replica of,
	// PreferredLed those of them it leads.
	Leaders, PreferredTotal, PreferredLed int
	// OutOfSync counts its replicas outside the ISR; OutOfSyncPreferred those of its preferred
	// partitions.
	OutOfSync, OutOfSyncPreferred int
	// Gated is whether the wait-for-sync gate holds it back.
	Gated bool
}

// Sample is the cluster every Spec.SampleMs.
type Sample struct {
	TimeMs  int64
	Brokers []BrokerSample
	// UnderReplicated counts partitions whose ISR is smaller than their replicas; Offline those
	// without a leader.
	UnderReplicated, Offline int
	// Elections counts preferred elections since the previous sample.
	Elections int
	// Produce latency percentiles (ms) over the sample's window, and errors and request
	// timeouts in it.
	ProduceP50Ms, ProduceP99Ms, ProduceP999Ms float64
	ProduceErrors, ProduceTimeouts            int
}

// Describe is a partition table taken by a describe event.
type Describe struct {
	TimeMs     int64
	Partitions []PartitionState
}

// PartitionState is a partition as kafka-topics.sh --describe shows it.
type PartitionState struct {
	Topic          string
	Partition      int32
	Leader         int32
	LeaderEpoch    int32
	PartitionEpoch int32
	Replicas       []int32
	Isr            []int32
	Elr            []int32
	LastKnownElr   []int32
	Recovering     bool
}

// Summary is what a run comes to, in the terms of KIP-1358's acceptance criteria. Times that
// never happened are -1.
type Summary struct {
	// UnfencedAtMs is when the last restarted broker was unfenced (running again).
	UnfencedAtMs int64
	// LeadershipRestoredAtMs is when, after that, it first led at least 99 % of its preferred
	// partitions; RecoveryTimeMs is the difference.
	LeadershipRestoredAtMs, RecoveryTimeMs int64
	// P99SteadyMs is the produce p99 over the hour (or the whole run) before the first fault:
	// the median of the sample windows' p99s. P99Worst10MinMs is the worst p99 of the sliding
	// windows (a minute by default) that lie wholly in the 10 minutes after unfencing; P99Ratio
	// their ratio. Each is -1 when there is nothing to measure: no unfencing, or less healthy
	// produce before the first fault than SteadyNeedMs, so that the baseline would be the
	// start-up's few windows rather than a steady period.
	P99SteadyMs, P99Worst10MinMs, P99Ratio float64
	// SteadyMs is how much healthy produce time before the first fault (in the hour before it)
	// the steady p99 has to go on; SteadyNeedMs how much it needs: one sliding window, the span
	// each p99 after unfencing is taken over, so that both sides of the ratio see as much time.
	SteadyMs, SteadyNeedMs int64
	ProduceTimeouts        int
	ProduceErrors          int
	AckedRecordsLost       float64
	MaxElectionsPerRun     int
	UncleanElections       int
	InvariantViolations    int
}
