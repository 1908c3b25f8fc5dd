// Package metadata holds KRaft's metadata records as the metadata log has them, the log itself
// (records with offsets), and the image that replaying the log builds: brokers, topics and
// partitions in flat arrays, with the indexes the controller keeps (imbalanced partitions,
// leaderless partitions, each broker's replicas).
//
// This package imports only engine/config. It does no I/O and keeps no clock.
package metadata

import (
	"fmt"
	"strconv"
)

// Record is one metadata record. Type returns the name Kafka gives the record's schema.
type Record interface {
	Type() string
}

// Sentinel values of PartitionChangeRecord, as Kafka's schema defines them.
const (
	// NoLeader is Leader = -1: the partition has no leader.
	NoLeader int32 = -1
	// NoLeaderChange is Leader = -2 in a PartitionChangeRecord: the leader is unchanged.
	NoLeaderChange int32 = -2
	// NoRecoveryChange is LeaderRecoveryState = -1 in a PartitionChangeRecord.
	NoRecoveryChange int8 = -1
)

// LeaderRecoveryState values: RECOVERING marks a leader chosen by an unclean election.
const (
	Recovered  int8 = 0
	Recovering int8 = 1
)

// Fencing changes carried by BrokerRegistrationChangeRecord (BrokerRegistrationFencingChange).
const (
	FenceNone    int8 = 0
	FenceFence   int8 = 1
	FenceUnfence int8 = -1
)

// RegisterBrokerRecord registers a broker incarnation. Its BrokerEpoch is the offset of the
// batch that registered it. A new incarnation starts fenced.
type RegisterBrokerRecord struct {
	BrokerID             int32    `json:"broker"`
	IncarnationID        string   `json:"incarnation_id"`
	BrokerEpoch          int64    `json:"broker_epoch"`
	LogDirs              []string `json:"log_dirs"`
	Fenced               bool     `json:"fenced"`
	InControlledShutdown bool     `json:"in_controlled_shutdown"`
}

// BrokerRegistrationChangeRecord fences or unfences a broker, marks it in controlled shutdown,
// or changes its online log directories. Only the fields that change are set.
type BrokerRegistrationChangeRecord struct {
	BrokerID    int32 `json:"broker"`
	BrokerEpoch int64 `json:"broker_epoch"`
	// Fenced is FenceNone, FenceFence or FenceUnfence.
	Fenced int8 `json:"-"`
	// InControlledShutdown is 1 when the broker enters controlled shutdown, else 0 (no change).
	InControlledShutdown int8 `json:"-"`
	// LogDirs, when non-nil, replaces the broker's online log directories.
	LogDirs []string `json:"log_dirs,omitempty"`
}

// TopicRecord creates a topic.
type TopicRecord struct {
	Name    string `json:"topic"`
	TopicID string `json:"topic_id"`
}

// PartitionRecord creates a partition with its full state.
type PartitionRecord struct {
	Topic               string  `json:"topic"`
	TopicID             string  `json:"-"`
	PartitionID         int32   `json:"partition"`
	Replicas            []int32 `json:"replicas"`
	Isr                 []int32 `json:"isr"`
	Leader              int32   `json:"leader"`
	LeaderRecoveryState int8    `json:"leader_recovery_state"`
	LeaderEpoch         int32   `json:"leader_epoch"`
	PartitionEpoch      int32   `json:"partition_epoch"`
	Elr                 []int32 `json:"elr"`
	LastKnownElr        []int32 `json:"last_known_elr"`
}

// PartitionChangeRecord changes a partition, carrying only the fields that change: a nil
// slice, Leader = NoLeaderChange and LeaderRecoveryState = NoRecoveryChange mean "unchanged".
// Replaying it bumps the partition epoch, and the leader epoch whenever Leader is set.
type PartitionChangeRecord struct {
	Topic               string
	TopicID             string
	PartitionID         int32
	Leader              int32
	Isr                 []int32
	Elr                 []int32
	LastKnownElr        []int32
	LeaderRecoveryState int8
}

// NewPartitionChange returns a change record for a partition that changes nothing yet.
func NewPartitionChange(topic, topicID string, partition int32) PartitionChangeRecord {
	return PartitionChangeRecord{Topic: topic, TopicID: topicID, PartitionID: partition,
		Leader: NoLeaderChange, LeaderRecoveryState: NoRecoveryChange}
}

// IsNoOp reports whether the record would change nothing, in which case Kafka writes nothing.
func (r *PartitionChangeRecord) IsNoOp() bool {
	return r.Leader == NoLeaderChange && r.Isr == nil && r.Elr == nil && r.LastKnownElr == nil &&
		r.LeaderRecoveryState == NoRecoveryChange
}

// RemoveTopicRecord deletes a topic and all its partitions.
type RemoveTopicRecord struct {
	Topic   string `json:"topic"`
	TopicID string `json:"topic_id"`
}

// ClearElrRecord clears the ELR and LastKnownElr of one topic's partitions, or of every
// partition when Topic is empty. It is written when min.insync.replicas changes under ELR.
type ClearElrRecord struct {
	Topic   string `json:"topic,omitempty"`
	TopicID string `json:"topic_id,omitempty"`
}

// NoOpRecord is written every metadata.max.idle.interval.ms so the log keeps advancing.
type NoOpRecord struct{}

// Config resource types as Kafka's ConfigResource.Type numbers them.
const (
	ResourceTopic  int8 = 2
	ResourceBroker int8 = 4
)

// ConfigRecord sets (or with Value nil, removes) one config on a topic or, with an empty
// ResourceName and ResourceBroker, at the cluster level.
type ConfigRecord struct {
	ResourceType int8    `json:"resource_type"`
	ResourceName string  `json:"resource_name"`
	Name         string  `json:"name"`
	Value        *string `json:"value"`
}

// FeatureLevelRecord sets a finalized feature's level.
type FeatureLevelRecord struct {
	Name         string `json:"name"`
	FeatureLevel int16  `json:"feature_level"`
}

// LeaderChangeMessage is the control record a new quorum leader writes at the start of its
// epoch. The engine never writes it; the controller quorum does.
type LeaderChangeMessage struct {
	Epoch          int32   `json:"epoch"`
	LeaderID       int32   `json:"leader"`
	Voters         []int32 `json:"voters"`
	GrantingVoters []int32 `json:"granting_voters"`
}

// Type implements Record.
func (RegisterBrokerRecord) Type() string { return "RegisterBrokerRecord" }

// Type implements Record.
func (BrokerRegistrationChangeRecord) Type() string { return "BrokerRegistrationChangeRecord" }

// Type implements Record.
func (TopicRecord) Type() string { return "TopicRecord" }

// Type implements Record.
func (PartitionRecord) Type() string { return "PartitionRecord" }

// Type implements Record.
func (PartitionChangeRecord) Type() string { return "PartitionChangeRecord" }

// Type implements Record.
func (RemoveTopicRecord) Type() string { return "RemoveTopicRecord" }

// Type implements Record.
func (ClearElrRecord) Type() string { return "ClearElrRecord" }

// Type implements Record.
func (NoOpRecord) Type() string { return "NoOpRecord" }

// Type implements Record.
func (ConfigRecord) Type() string { return "ConfigRecord" }

// Type implements Record.
func (FeatureLevelRecord) Type() string { return "FeatureLevelRecord" }

// Type implements Record.
func (LeaderChangeMessage) Type() string { return "LeaderChangeMessage" }

// configText writes a typed config value as the string Kafka stores in a ConfigRecord.
func configText(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case bool:
		if x {
			return "true"
		}
		return "false"
	case int64:
		return strconv.FormatInt(x, 10)
	}
	return fmt.Sprint(v)
}

// ConfigText is configText for the controller, which writes ConfigRecords too.
func ConfigText(v any) string { return configText(v) }
