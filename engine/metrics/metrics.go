// Package metrics names the controller's metrics as JMX shows them and holds the meters and
// counters the controller accumulates. Gauges are computed from state when read; meters count
// events (a JMX meter's Count; its rates are left to the reader, who knows the time window).
//
// This package imports nothing of KRaft Lab's.
package metrics

import "sort"

// Kafka's existing controller metrics (kafka.controller:type=KafkaController or ControllerStats).
const (
	PreferredReplicaImbalanceCount           = "PreferredReplicaImbalanceCount"
	OfflinePartitionsCount                   = "OfflinePartitionsCount"
	ActiveBrokerCount                        = "ActiveBrokerCount"
	FencedBrokerCount                        = "FencedBrokerCount"
	ControlledShutdownBrokerCount            = "ControlledShutdownBrokerCount"
	GlobalTopicCount                         = "GlobalTopicCount"
	GlobalPartitionCount                     = "GlobalPartitionCount"
	UncleanLeaderElectionsPerSec             = "UncleanLeaderElectionsPerSec"
	ElectionFromEligibleLeaderReplicasPerSec = "ElectionFromEligibleLeaderReplicasPerSec"
)

// The proposal's metrics (KIP-1358 / PR #22934).
const (
	PreferredLeaderElectionsPerRun                   = "PreferredLeaderElectionsPerRun"
	GatedPreferredLeaderBrokerCount                  = "GatedPreferredLeaderBrokerCount"
	PreferredLeaderElectionThrottledRunCount         = "PreferredLeaderElectionThrottledRunCount"
	PreferredLeaderElectionEscapeHatchCount          = "PreferredLeaderElectionEscapeHatchCount"
	OutOfSyncPreferredPartitionCount                 = "OutOfSyncPreferredPartitionCount"
	PreferredLeaderElectionsSkippedByGatePerSec      = "PreferredLeaderElectionsSkippedByGatePerSec"
	PreferredLeaderElectionsDeferredByThrottlePerSec = "PreferredLeaderElectionsDeferredByThrottlePerSec"
)

// Kind is how JMX exposes a metric.
type Kind string

// Metric kinds.
const (
	Gauge   Kind = "gauge"
	Meter   Kind = "meter"
	Counter Kind = "counter"
)

// Info describes a metric for documentation and the UI.
type Info struct {
	Name  string
	MBean string
	Kind  Kind
	// PerBroker gauges carry a broker=<id> tag and are reported as {"<id>": value}.
	PerBroker bool
	Proposal  bool // defined by KIP-1358 / PR #22934, not in Kafka today
	Doc       string
}

func controllerBean(name string) string { return "kafka.controller:type=KafkaController,name=" + name }
func statsBean(name string) string      { return "kafka.controller:type=ControllerStats,name=" + name }

var catalogue = []Info{
	{Name: PreferredReplicaImbalanceCount, MBean: controllerBean(PreferredReplicaImbalanceCount), Kind: Gauge, Doc: "Partitions whose leader is not replicas[0]; leaderless partitions count."},
	{Name: OfflinePartitionsCount, MBean: controllerBean(OfflinePartitionsCount), Kind: Gauge, Doc: "Partitions with no leader."},
	{Name: ActiveBrokerCount, MBean: controllerBean(ActiveBrokerCount), Kind: Gauge, Doc: "Registered brokers that are not fenced (brokers in controlled shutdown included)."},
	{Name: FencedBrokerCount, MBean: controllerBean(FencedBrokerCount), Kind: Gauge, Doc: "Registered brokers that are fenced."},
	{Name: ControlledShutdownBrokerCount, MBean: controllerBean(ControlledShutdownBrokerCount), Kind: Gauge, Doc: "Brokers in controlled shutdown."},
	{Name: GlobalTopicCount, MBean: controllerBean(GlobalTopicCount), Kind: Gauge, Doc: "Topics."},
	{Name: GlobalPartitionCount, MBean: controllerBean(GlobalPartitionCount), Kind: Gauge, Doc: "Partitions."},
	{Name: UncleanLeaderElectionsPerSec, MBean: statsBean(UncleanLeaderElectionsPerSec), Kind: Meter, Doc: "Partition changes that set LeaderRecoveryState to RECOVERING (unclean elections)."},
	{Name: ElectionFromEligibleLeaderReplicasPerSec, MBean: statsBean(ElectionFromEligibleLeaderReplicasPerSec), Kind: Meter, Doc: "Elections whose new leader was in the ELR."},
	{Name: PreferredLeaderElectionsPerRun, MBean: controllerBean(PreferredLeaderElectionsPerRun), Kind: Gauge, Proposal: true, Doc: "Preferred elections in the last electPreferred run."},
	{Name: GatedPreferredLeaderBrokerCount, MBean: controllerBean(GatedPreferredLeaderBrokerCount), Kind: Gauge, Proposal: true, Doc: "Brokers the wait-for-sync gate holds back now."},
	{Name: PreferredLeaderElectionThrottledRunCount, MBean: controllerBean(PreferredLeaderElectionThrottledRunCount), Kind: Counter, Proposal: true, Doc: "Runs that reached max.per.run and deferred the next run by the throttle interval."},
	{Name: PreferredLeaderElectionEscapeHatchCount, MBean: controllerBean(PreferredLeaderElectionEscapeHatchCount), Kind: Counter, Proposal: true, Doc: "Gates released by max.wait.ms."},
	{Name: OutOfSyncPreferredPartitionCount, MBean: controllerBean(OutOfSyncPreferredPartitionCount) + ",broker=<id>", Kind: Gauge, PerBroker: true, Proposal: true, Doc: "For a gated broker: its imbalanced preferred partitions where it is out of the ISR. Registered while the broker is gated."},
	{Name: PreferredLeaderElectionsSkippedByGatePerSec, MBean: statsBean(PreferredLeaderElectionsSkippedByGatePerSec), Kind: Meter, Proposal: true, Doc: "Partitions a gated broker is in sync for but was not elected for, because of the gate."},
	{Name: PreferredLeaderElectionsDeferredByThrottlePerSec, MBean: statsBean(PreferredLeaderElectionsDeferredByThrottlePerSec), Kind: Meter, Proposal: true, Doc: "Candidate partitions left for a later run because the run reached max.per.run."},
}

// Catalogue returns every metric the engine reports, sorted by name.
func Catalogue() []Info {
	out := append([]Info(nil), catalogue...)
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Counts are the meters and counters the controller accumulates over a run.
type Counts struct {
	UncleanLeaderElections int64
	ElectionsFromElr       int64
	ThrottledRuns          int64
	SkippedByGate          int64
	DeferredByThrottle     int64
}
