// Package config defines the configuration the engine understands: Kafka's own configs under
// the names, types, defaults and ranges Kafka gives them, the configs proposed by KIP-1358 and
// apache/kafka PR #22934, and the few model options of KRaft Lab itself (prefixed "kraftlab.").
// Values are validated the way Kafka's ConfigDef does it, and rejected with a ConfigError that
// names the config, the value and what is allowed.
//
// This package imports nothing of KRaft Lab's.
package config

import (
	"fmt"
	"sort"
	"strings"
)

// Type is the type of a config's value, as Kafka's ConfigDef.Type names it.
type Type int

// The value types in use. Int is a 32-bit integer and Long a 64-bit one, as in Kafka.
const (
	Boolean Type = iota
	Int
	Long
	String
)

// String returns Kafka's name for the type.
func (t Type) String() string {
	switch t {
	case Boolean:
		return "boolean"
	case Int:
		return "int"
	case Long:
		return "long"
	default:
		return "string"
	}
}

// Source says who defines a config: Kafka today, the KIP, the PR, or KRaft Lab's model.
type Source string

// The sources a config can come from. The UI shows them, because KIP-1358 and PR #22934
// disagree on some names and defaults and a reader must know which one they are looking at.
const (
	Kafka   Source = "Apache Kafka 4.1"
	KIP1358 Source = "KIP-1358"
	PR22934 Source = "apache/kafka PR #22934"
	Model   Source = "KRaft Lab model option (not a Kafka config)"
)

// Scope says where a config may be set.
type Scope int

// Cluster configs are set for the whole cluster (the controller's); Topic configs may also be
// overridden per topic, as min.insync.replicas and unclean.leader.election.enable can.
const (
	Cluster Scope = iota
	Topic
)

// Def is one config definition.
type Def struct {
	Name    string
	Type    Type
	Default any // bool, int64 or string, matching Type
	// Min and Max bound Int and Long values (inclusive); HasMax says whether Max applies.
	Min, Max int64
	HasMax   bool
	// Allowed lists the valid values of a String config; empty means any string.
	Allowed []string
	// Dynamic configs may change while the controller runs and take effect at the next use;
	// static ones are read at start, as Kafka's read-only broker configs are.
	Dynamic bool
	Scope   Scope
	Source  Source
	Doc     string
	// Note records where the KIP and the PR disagree about this config, for the UI.
	Note string
}

// AllowedText describes the valid values for an error message or a form hint.
func (d *Def) AllowedText() string {
	switch d.Type {
	case Boolean:
		return "true or false"
	case String:
		if len(d.Allowed) > 0 {
			return "one of: " + strings.Join(d.Allowed, ", ")
		}
		return "any string"
	default:
		if d.HasMax {
			return fmt.Sprintf("an integer in [%d, %d]", d.Min, d.Max)
		}
		return fmt.Sprintf("an integer of at least %d", d.Min)
	}
}

// Config names used by the engine, spelled as Kafka (or the proposal) spells them.
const (
	AutoLeaderRebalanceEnable                 = "auto.leader.rebalance.enable"
	LeaderImbalanceCheckIntervalSeconds       = "leader.imbalance.check.interval.seconds"
	BrokerSessionTimeoutMs                    = "broker.session.timeout.ms"
	BrokerHeartbeatIntervalMs                 = "broker.heartbeat.interval.ms"
	MinInsyncReplicas                         = "min.insync.replicas"
	UncleanLeaderElectionEnable               = "unclean.leader.election.enable"
	UncleanLeaderElectionIntervalMs           = "unclean.leader.election.interval.ms"
	MetadataMaxIdleIntervalMs                 = "metadata.max.idle.interval.ms"
	LeaderImbalanceElectionAlgorithm          = "leader.imbalance.election.algorithm"
	WaitForSyncThresholdPercent               = "leader.imbalance.election.wait.for.sync.threshold.percent"
	WaitForSyncMaxWaitMs                      = "leader.imbalance.election.wait.for.sync.max.wait.ms"
	LeaderImbalanceElectionMaxPerRun          = "leader.imbalance.election.max.per.run"
	LeaderImbalanceElectionThrottleMs         = "leader.imbalance.election.throttle.interval.ms"
	LeaderImbalanceElectionImmediateMs        = "leader.imbalance.election.immediate.period.ms"
	ModelGateDenominator                      = "kraftlab.gate.denominator"
	ModelLeaderImbalanceSchedule              = "kraftlab.leader.imbalance.schedule"
	AlgorithmImmediate                        = "immediate"
	AlgorithmWaitForSync                      = "wait-for-sync"
	DenominatorImbalanced                     = "imbalanced"
	DenominatorPreferred                      = "preferred"
	SchedulePeriodic                          = "periodic"
	ScheduleWriteTriggered                    = "write-triggered"
	maxInt32                            int64 = 1<<31 - 1
)

// NoKafkaValidator is the note on configs Kafka defines without a validator (KRaftConfigs defines
// broker.heartbeat.interval.ms and broker.session.timeout.ms with none): the model's range is its
// own, since its periodic tasks need a period of at least 1 ms.
const NoKafkaValidator = "Kafka defines this config without a validator (KRaftConfigs); the range here is the model's: its tasks need a period of at least 1 ms."

var defs = []*Def{
	{Name: AutoLeaderRebalanceEnable, Type: Boolean, Default: true, Scope: Cluster, Source: Kafka,
		Doc: "Registers the controller's periodic electPreferred task. When false there is no automatic preferred election at all; manual ElectLeaders still works."},
	{Name: LeaderImbalanceCheckIntervalSeconds, Type: Long, Default: int64(300), Min: 1, Scope: Cluster, Source: Kafka,
		Doc: "Period of the electPreferred task, measured from the end of the previous run; the first run is one period after the controller becomes active."},
	{Name: BrokerSessionTimeoutMs, Type: Int, Default: int64(9000), Min: 1, HasMax: true, Max: maxInt32, Scope: Cluster, Source: Kafka,
		Doc:  "A broker whose last heartbeat is older than this is fenced by the maybeFenceStaleBroker task, which runs every session/8 ms.",
		Note: NoKafkaValidator},
	{Name: BrokerHeartbeatIntervalMs, Type: Int, Default: int64(2000), Min: 1, HasMax: true, Max: maxInt32, Scope: Cluster, Source: Kafka,
		Doc:  "How often a broker heartbeats to the active controller.",
		Note: NoKafkaValidator},
	{Name: MinInsyncReplicas, Type: Int, Default: int64(1), Min: 1, HasMax: true, Max: maxInt32, Dynamic: true, Scope: Topic, Source: Kafka,
		Doc: "With acks=all, the ISR size below which writes are refused; with ELR, the ISR size below which replicas leaving the ISR join the ELR. Changing it clears the ELR (ClearElrRecord)."},
	{Name: UncleanLeaderElectionEnable, Type: Boolean, Default: false, Dynamic: true, Scope: Topic, Source: Kafka,
		Doc: "Lets a replica outside the ISR (and ELR) become leader when no in-sync replica is left, at the price of losing acknowledged records."},
	{Name: UncleanLeaderElectionIntervalMs, Type: Long, Default: int64(300000), Min: 1, Scope: Cluster, Source: Kafka,
		Doc: "Period of the electUnclean task (an internal config)."},
	{Name: MetadataMaxIdleIntervalMs, Type: Int, Default: int64(500), Min: 0, HasMax: true, Max: maxInt32, Scope: Cluster, Source: Kafka,
		Doc: "How often the active controller writes a NoOpRecord; 0 disables it."},
	{Name: LeaderImbalanceElectionAlgorithm, Type: String, Default: AlgorithmImmediate, Allowed: []string{AlgorithmImmediate, AlgorithmWaitForSync}, Dynamic: true, Scope: Cluster, Source: KIP1358,
		Doc:  "immediate: today's preferred election. wait-for-sync: withhold preferred leadership from a broker while too many of its partitions are out of sync.",
		Note: "The PR lists it as static; here every proposal config is dynamic and takes effect at the next run."},
	{Name: WaitForSyncThresholdPercent, Type: Int, Default: int64(0), Min: 0, HasMax: true, Max: 100, Dynamic: true, Scope: Cluster, Source: KIP1358,
		Doc:  "A broker is gated while the share of its partitions that are out of sync exceeds this percentage; 0 gates on any out-of-sync partition.",
		Note: "The KIP divides by the broker's imbalanced partitions, the PR by all partitions it prefers: see kraftlab.gate.denominator."},
	{Name: WaitForSyncMaxWaitMs, Type: Long, Default: int64(1800000), Min: 0, Dynamic: true, Scope: Cluster, Source: KIP1358,
		Doc:  "Escape hatch: a broker gated this long is released and its in-sync partitions are elected. 0 disables the escape hatch.",
		Note: "0 disables the escape hatch, as the PR says."},
	{Name: LeaderImbalanceElectionMaxPerRun, Type: Int, Default: int64(1000), Min: 1, HasMax: true, Max: maxInt32, Dynamic: true, Scope: Cluster, Source: KIP1358,
		Doc:  "At most this many preferred elections per electPreferred run; a run that reaches it is followed after the throttle interval.",
		Note: "The KIP's default is today's hard-coded 1,000; the PR calls its default unbounded (set 2147483647 for that)."},
	{Name: LeaderImbalanceElectionThrottleMs, Type: Long, Default: int64(0), Min: 0, Dynamic: true, Scope: Cluster, Source: KIP1358,
		Doc:  "After a run that reached max.per.run, the next run is this much later; 0 means the immediate period.",
		Note: "Not in the PR's list of configs."},
	{Name: LeaderImbalanceElectionImmediateMs, Type: Long, Default: int64(10), Min: 1, Dynamic: true, Scope: Cluster, Source: PR22934,
		Doc:  "Delay before the continuation of a run that reported more work (Kafka's PeriodicTask immediate period, 10 ms).",
		Note: "Only the PR names it; the KIP keeps Kafka's fixed 10 ms."},
	{Name: ModelGateDenominator, Type: String, Default: DenominatorImbalanced, Allowed: []string{DenominatorImbalanced, DenominatorPreferred}, Dynamic: true, Scope: Cluster, Source: Model,
		Doc: "How the wait-for-sync gate counts its ratio: imbalanced (the KIP: out-of-sync ÷ the broker's imbalanced partitions) or preferred (the PR: out-of-sync ÷ every partition the broker prefers)."},
	{Name: ModelLeaderImbalanceSchedule, Type: String, Default: SchedulePeriodic, Allowed: []string{SchedulePeriodic, ScheduleWriteTriggered}, Scope: Cluster, Source: Model,
		Doc: "periodic: Kafka 4.0+, a fixed-cadence task whose phase is set by controller activation. write-triggered: Kafka 3.2–3.9, a timer armed by the first write after an imbalance appears."},
}

var byName = func() map[string]*Def {
	m := make(map[string]*Def, len(defs))
	for _, d := range defs {
		m[d.Name] = d
	}
	return m
}()

// Lookup returns the definition of a config, or false for a name the engine does not know.
func Lookup(name string) (*Def, bool) {
	d, ok := byName[name]
	return d, ok
}

// All returns every definition, sorted by name.
func All() []*Def {
	out := append([]*Def(nil), defs...)
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}
