package scenario

import (
	"fmt"
	"strings"

	"github.com/kraftlab/kraftlab/cluster"
	"github.com/kraftlab/kraftlab/cluster/control"
)

// ClusterScenario is the cluster mode's part of a scenario: the cluster to build, how long it
// runs and what happens to it.
type ClusterScenario struct {
	// DurationMs is how long the cluster runs, in scenario time (0 is when it is up).
	DurationMs int64
	// Spec is the cluster to build. Spec.Seed is the scenario's seed, Spec.Static its config
	// and Spec.ElrVersion its eligible.leader.replicas.version.
	Spec cluster.Spec
	// Events are sorted by AtMs; events at the same time keep their order in the file.
	Events []Event
	// Output says what the result holds.
	Output Output
	// MemoryBytes estimates the memory the run needs (see MemoryLimit).
	MemoryBytes int64
}

// Event is one event of a cluster-mode scenario.
type Event struct {
	cluster.Event
	// AtMs is when it happens, from 0 to the duration.
	AtMs int64
	// Index is the event's position in the file's events array, which names it in errors
	// and results (events[3]).
	Index int
	Note  string
}

// Output says which optional parts a cluster-mode result holds.
type Output struct {
	// Records: the committed records are listed (true by default). A large run's log holds
	// millions of records; false leaves them out and keeps only their count.
	Records bool
}

// Limits of the cluster mode, on top of the format's.
const (
	// MaxBrokers bounds the brokers of a cluster. Brokers and controllers share one id space
	// and controllers are numbered from 3000 (control.FirstVoterID), so a count of brokers
	// stays below it.
	MaxBrokers = control.FirstVoterID
	// MemoryLimit is the most memory a cluster-mode scenario may be estimated to need: 2 GiB,
	// what a browser tab or a small CI runner can give it.
	MemoryLimit int64 = 2 << 30
	// BytesPerReplica is the estimate's cost of one replica over a whole run: brokers'
	// replica state, the controllers' images, the metadata log and the producers' rates. The
	// lead measured 1.2 GB for 1,000,000 partitions at replication factor 3.
	BytesPerReplica = 400
	// bytesPerSampleBroker and bytesPerSample are the estimate's cost of a sample: a
	// BrokerSample per broker and the cluster's figures, held by the cluster and the result.
	bytesPerSampleBroker = 128
	bytesPerSample       = 256
	// bytesPerDescribedPartition is the estimate's cost of a partition in a describe's table,
	// held by the cluster and the result.
	bytesPerDescribedPartition = 400
)

// memoryEstimate adds up what a cluster-mode run holds: replicas, samples and describe tables.
type memoryEstimate struct {
	replicas, partitions int64
	samples, brokers     int64
	// describedPartitions sums, over the describes, the partitions defined by then (deleted
	// topics included: an upper bound).
	describedPartitions int64
}

func (m *memoryEstimate) bytes() int64 {
	return m.replicas*BytesPerReplica + m.samples*(m.brokers*bytesPerSampleBroker+bytesPerSample) +
		m.describedPartitions*bytesPerDescribedPartition
}

// text explains an estimate in an error message.
func (m *memoryEstimate) text() string {
	var parts []string
	if m.replicas > 0 {
		parts = append(parts, fmt.Sprintf("%d replicas at %d bytes", m.replicas, BytesPerReplica))
	}
	if m.samples*m.brokers > 0 {
		parts = append(parts, fmt.Sprintf("%d samples of %d brokers", m.samples, m.brokers))
	}
	if m.describedPartitions > 0 {
		parts = append(parts, fmt.Sprintf("%d partitions in describes", m.describedPartitions))
	}
	return fmt.Sprintf("about %s (%s)", gib(m.bytes()), strings.Join(parts, ", "))
}

func gib(b int64) string { return fmt.Sprintf("%.2f GiB", float64(b)/(1<<30)) }

// checkMemory refuses a scenario whose estimate passes MemoryLimit, at the field that passed it.
func (p *parser) checkMemory(path string) {
	if p.err == nil && p.mem.bytes() > MemoryLimit {
		p.failf(path, "the scenario is too large: the simulation would need %s, above the limit of %s; use fewer partitions, brokers, samples or describes",
			p.mem.text(), gib(MemoryLimit))
	}
}
