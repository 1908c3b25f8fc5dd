// Package scenario is KRaft Lab's scenario format: a JSON file that describes a starting
// cluster and what happens to it, the parser that validates it, the runners that play it, and
// the result format (JSON for programs, text for people). docs/scenario.md documents the format
// as a public interface.
//
// A scenario has one of two modes, both behind the same Parse, Run and Result:
//   - cluster (the default): the toy cluster of package cluster (a controller quorum, brokers
//     with replica logs and resources, producers) runs for duration_ms while timed events
//     (kill, start, disk_swap, set_config...) happen to it; the result is the committed
//     metadata log, the balancer runs, periodic samples and a summary in KIP-1358's terms;
//   - controller: the engine's controller alone, driven step by step (advance the clock, stop
//     or fence a broker, change an ISR, elect leaders...), with brokers that heartbeat on their
//     own and are caught up instantly.
//
// A run is a pure function of the scenario: a virtual clock, the seed as the only source of
// randomness, no goroutines and no map-order dependence, so the same file and seed give
// byte-identical output. This package imports engine/ and cluster/ (the cluster package and
// its rooms); it must not import wasm/, web/ or cmd/.
package scenario

import (
	"github.com/kraftlab/kraftlab/engine/config"
	"github.com/kraftlab/kraftlab/engine/controller"
)

// Modes of a scenario.
const (
	// ModeController runs the engine's controller alone.
	ModeController = "controller"
	// ModeCluster runs the toy cluster (quorum, brokers, producers); a file without a mode
	// is in this mode.
	ModeCluster = "cluster"
)

// Step operations, as the scenario format spells them.
const (
	OpAdvance            = "advance"
	OpStop               = "stop"
	OpFence              = "fence"
	OpRegister           = "register"
	OpUnfence            = "unfence"
	OpControlledShutdown = "controlled_shutdown"
	OpAlterPartition     = "alter_partition"
	OpIsrJoin            = "isr_join"
	OpIsrLeave           = "isr_leave"
	OpElectPreferred     = "elect_preferred"
	OpElectLeaders       = "elect_leaders"
	OpSetConfig          = "set_config"
	OpSetFeature         = "set_feature"
	OpOfflineDir         = "offline_dir"
	OpCreateTopic        = "create_topic"
	OpDeleteTopic        = "delete_topic"
	OpDescribe           = "describe"
)

// Limits of the format. They keep a run bounded in time and memory (the metadata log keeps
// every record, one NoOpRecord per 500 ms included); none of them is a Kafka limit.
const (
	// MaxTimeMs is the latest time a scenario may advance to: 7 days.
	MaxTimeMs = 7 * 24 * 3600 * 1000
	// MaxPartitions bounds the partitions of all topics a scenario lists or creates.
	MaxPartitions = 1_000_000
	// MaxEvents bounds the heartbeats and periodic-task runs of one run.
	MaxEvents = 20_000_000
	// MaxListed bounds the events (cluster mode) or steps (controller mode) a file lists: a
	// run of that many takes seconds and a few hundred MB.
	MaxListed = 100_000
	// MaxFileBytes bounds a scenario file's size; kraftlab reads no more of it.
	MaxFileBytes = 32 << 20
)

// Scenario is a parsed and validated scenario file.
type Scenario struct {
	Mode        string
	Seed        uint64
	Description string
	// Features holds a level for every feature config.Features defines, defaults included.
	Features []Feature
	// Config holds the cluster-level configs, static ones included.
	Config config.Values

	// Brokers, Topics and Steps are the controller mode's.
	Brokers []Broker
	Topics  []Topic
	Steps   []Step

	// Cluster is the cluster mode's part; nil in controller mode.
	Cluster *ClusterScenario
}

// Feature is a finalized feature level.
type Feature struct {
	Name  string
	Level int16
}

// Broker is a broker of the starting cluster. It is registered with one log directory and
// heartbeats on its own.
type Broker struct {
	ID                   int32
	Fenced               bool
	InControlledShutdown bool
}

// Topic is a topic of the starting cluster or of a create_topic step: either explicit
// partitions or a partition count and replication factor.
type Topic struct {
	Name              string
	Partitions        []Partition
	PartitionCount    int
	ReplicationFactor int
	// Config holds the topic-level configs.
	Config config.Values
}

// Partition is one explicit partition. In the starting cluster every list is filled in (the
// defaults applied); in a create_topic step only Replicas is set, as the controller chooses
// the rest.
type Partition struct {
	Replicas     []int32
	Isr          []int32
	Leader       int32
	Elr          []int32
	LastKnownElr []int32
	// SizeBytes and ProduceBytesPerSec are a cluster-mode starting partition's measured local
	// log size and produce rate, when HasSize and HasRate say they were given.
	SizeBytes, ProduceBytesPerSec float64
	HasSize, HasRate              bool
}

// Step is one step. Op says which of the other fields are meaningful; docs/scenario.md lists
// them per op.
type Step struct {
	Op   string
	Note string

	Ms     int64 // advance
	Broker int32 // stop, fence, register, unfence, controlled_shutdown, offline_dir, isr_*
	// HasBroker is set when alter_partition names its sender (by default the leader).
	HasBroker bool

	CleanShutdown bool // register
	LostDisk      bool // register

	Topic     string // alter_partition, isr_*, set_config
	Partition int32  // alter_partition
	Isr       []int32
	// LeaderRecoveryState is metadata.Recovered, metadata.Recovering or
	// metadata.NoRecoveryChange.
	LeaderRecoveryState int8
	// LeaderEpoch and PartitionEpoch override the current epochs when >= 0.
	LeaderEpoch, PartitionEpoch int32

	Count     int  // isr_*: 0 means every partition
	Preferred bool // isr_*

	Election   controller.Election // elect_leaders
	Partitions []controller.TopicPartition

	Name  string // set_config, set_feature, delete_topic
	Value any    // set_config: bool, json.Number or string; nil deletes
	Level int16  // set_feature

	CreateTopic *Topic // create_topic
}
