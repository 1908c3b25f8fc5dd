// Package cluster is KRaft Lab's toy Kafka cluster: a deterministic discrete-event simulation in
// which the engine runs as the active controller of a controller quorum (cluster/control), brokers
// register, heartbeat, replicate and keep their ISRs (cluster/broker), producers measure what each
// policy costs in produce latency (cluster/workload), and invariant checkers (cluster/check) stop
// the run at the first violation. One virtual clock and one seed drive everything: the same Spec
// and events give the same result, byte for byte.
//
// A Cluster is built from a Spec, driven by Do (one fault or action at the current time) and
// RunUntil (let time pass), and read through Records, BalancerRuns, Samples, Describe and
// Summary. Times are scenario times: 0 is when the cluster is up (the controller active, its
// starting records committed, every broker running), which is a second or two of simulated time
// after the quorum starts.
//
// This package imports engine/ and the other rooms of cluster/; wasm/, web/ and cmd/ import it.
package cluster

import (
	"github.com/kraftlab/kraftlab/cluster/broker"
	"github.com/kraftlab/kraftlab/cluster/workload"
	"github.com/kraftlab/kraftlab/engine/config"
	"github.com/kraftlab/kraftlab/engine/controller"
)

// Spec describes a cluster to build.
type Spec struct {
	Seed uint64
	// Controllers is the number of controller voters: 1, 3 (the default, when 0) or 5.
	Controllers int
	// Brokers are the broker ids; all start registered, unfenced and running.
	Brokers []int32
	Topics  []TopicSpec
	// Static holds the Kafka configs the controllers and brokers start with (their
	// server.properties); set_config changes dynamic ones while the cluster runs.
	Static config.Values
	// ElrVersion is eligible.leader.replicas.version (1, the 4.1 default, or 0).
	ElrVersion int16
	Broker     broker.Params
	Workload   workload.Params
	// SampleMs is how often a Sample is taken (default 10,000 ms).
	SampleMs int64
	// DiscardRecords makes the cluster forget committed metadata records once every node has
	// applied them (and none could need them again after a restart), instead of keeping the
	// whole committed log for Records. A huge run (a million partitions, millions of
	// PartitionChangeRecords) needs it to stay within a few GiB; what is simulated is the same
	// either way, and Records then returns nil. The default (false) keeps every record.
	DiscardRecords bool
	// KeepSamples, above 0, keeps only about the latest KeepSamples samples and workload
	// windows (at least that many, at most twice), so that a run's memory does not grow with
	// its length: Samples then returns the latest ones, and Summary's produce figures cover
	// only the windows kept. What is simulated is the same either way. The default (0) keeps
	// every sample.
	KeepSamples int
}

// TopicSpec is a topic of the starting cluster: either PartitionCount partitions placed with
// Kafka's default placement at ReplicationFactor, or explicit Replicas per partition.
type TopicSpec struct {
	Name              string
	PartitionCount    int
	ReplicationFactor int
	Replicas          [][]int32
	// SizeBytes and ProduceBytesPerSec, when given, hold each partition's local log size and
	// produce rate as measured on a real cluster (one per entry of Replicas), in place of the
	// model's LocalRetentionSec of produce and its lognormal skew. Either is given for every
	// starting topic or for none.
	SizeBytes          []float64
	ProduceBytesPerSec []float64
	Configs            []controller.ConfigEntry
}

// Ops a cluster understands, as the scenario format spells them.
const (
	OpKill            = "kill"
	OpStart           = "start"
	OpShutdown        = "shutdown"
	OpDiskSwap        = "disk_swap"
	OpSlowDisk        = "slow_disk"
	OpKillController  = "kill_controller"
	OpStartController = "start_controller"
	OpCut             = "cut"
	OpHeal            = "heal"
	OpSetConfig       = "set_config"
	OpCreateTopic     = "create_topic"
	OpDeleteTopic     = "delete_topic"
	OpElectLeaders    = "elect_leaders"
	OpSnapshot        = "snapshot"
	OpDescribe        = "describe"
	OpRollingRestart  = "rolling_restart"
)

// Event is one fault or action. Which fields matter depends on Op:
//   - kill, start, shutdown, disk_swap: Broker (disk_swap replaces the disk of a stopped broker:
//     its next start has empty logs, a new directory id and no clean-shutdown file);
//   - slow_disk: Broker and Factor (1 = normal speed, 0.2 = a fifth of the capacity);
//   - kill_controller, start_controller: Controller ("active" or a controller id);
//   - cut, heal: A and B, node names ("broker-0", "controller-3000") or "producers";
//   - set_config: Name, Value and optional Topic;
//   - create_topic: TopicSpec; delete_topic: Name; elect_leaders: Election and Partitions;
//   - snapshot: Controller (a controller id; "active" or empty: the active one);
//   - rolling_restart: Brokers, IntervalMs and DiskSwap: each broker in turn is shut down
//     cleanly (or killed, with DiskSwap), started again, and the next one follows IntervalMs
//     after the previous start.
//   - describe: nothing; the cluster records the partition table (see Describes).
type Event struct {
	Op         string
	Broker     int32
	Controller string
	A, B       string
	Factor     float64
	Name       string
	Value      any
	Topic      string
	TopicSpec  TopicSpec
	Election   controller.Election
	Partitions []controller.TopicPartition
	Brokers    []int32
	IntervalMs int64
	DiskSwap   bool
}
