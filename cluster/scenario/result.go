package scenario

import (
	"bytes"
	"encoding/json"
	"io"
	"slices"
	"strconv"

	"github.com/kraftlab/kraftlab/engine/metadata"
)

// Result is what a run produced: every step's records and responses, then the final state.
// Its JSON form is the CLI's output; fields are written in the order declared here, and empty
// optional fields are left out.
type Result struct {
	// Description is the scenario's own, repeated so that a result explains itself.
	Description string       `json:"description,omitempty"`
	Steps       []StepResult `json:"steps"`
	// Metrics are the controller's metrics at the end, under their JMX names.
	Metrics    Metrics          `json:"metrics"`
	Partitions []PartitionState `json:"partitions"`
	Brokers    []BrokerState    `json:"brokers"`

	// Cluster is a cluster-mode run's result, which replaces all of the above but the
	// description in the JSON and text forms; nil in controller mode.
	Cluster *ClusterResult `json:"-"`
}

// StepResult is one step's outcome.
type StepResult struct {
	Index int    `json:"index"`
	Op    string `json:"op"`
	Note  string `json:"note,omitempty"`
	// TimeMs is the clock at the end of the step.
	TimeMs int64 `json:"time_ms"`
	// Records are the records the step wrote, NoOpRecords excepted: those are only counted,
	// because the controller writes one every 500 ms and they would drown the rest.
	Records     []Record `json:"records,omitempty"`
	NoOpRecords int      `json:"noop_records,omitempty"`
	// BalancerRuns are the electPreferred runs during the step.
	BalancerRuns []BalancerRun `json:"balancer_runs,omitempty"`
	// Error is the rejection of the step's request, if it was rejected.
	Error *StepError `json:"error,omitempty"`
	// Results are per-partition outcomes of elect_leaders, isr_join and isr_leave.
	Results []PartitionResult `json:"results,omitempty"`
	// Partitions is the state a describe step saw.
	Partitions []PartitionState `json:"partitions,omitempty"`
}

// Record is a metadata record with its offset and the time it was written.
type Record struct {
	metadata.Entry
	TimeMs int64
}

// MarshalJSON writes the entry as metadata.Entry does (offset, type, then the fields the record
// sets, in snake_case) with time_ms after the offset.
func (r Record) MarshalJSON() ([]byte, error) {
	enc, err := r.Entry.MarshalJSON()
	if err != nil {
		return nil, err
	}
	cut := bytes.IndexByte(enc, ',') // after {"offset":N, which comes first
	var b bytes.Buffer
	b.Write(enc[:cut])
	b.WriteString(`,"time_ms":` + strconv.FormatInt(r.TimeMs, 10))
	b.Write(enc[cut:])
	return b.Bytes(), nil
}

// StepError is a rejected request: Kafka's error code (or one of the runner's, such as
// CodeBrokerNotRunning) and the message.
type StepError struct {
	Code    string `json:"code"`
	Message string `json:"message,omitempty"`
}

// PartitionResult is one partition's outcome in a response.
type PartitionResult struct {
	Topic     string `json:"topic"`
	Partition int32  `json:"partition"`
	// Error is the error code, or "NONE".
	Error   string `json:"error"`
	Message string `json:"message,omitempty"`
}

// BalancerRun is one electPreferred run.
type BalancerRun struct {
	TimeMs int64 `json:"time_ms"`
	// Controller is the controller that ran it, in cluster mode (the controller mode has one,
	// and leaves this out).
	Controller int32      `json:"controller,omitempty"`
	Elections  []Election `json:"elections"`
	// MoreWork is Kafka's "reschedule immediately": the run reached its cap.
	MoreWork bool `json:"more_work"`
	// DeferredByCap counts candidate partitions left for a later run by the cap.
	DeferredByCap int `json:"deferred_by_cap,omitempty"`
	// GatedBrokers are the brokers the wait-for-sync gate held back, and OutOfSync their
	// out-of-sync preferred partitions.
	GatedBrokers       []int32      `json:"gated_brokers,omitempty"`
	OutOfSync          BrokerValues `json:"out_of_sync,omitempty"`
	EscapeHatchBrokers []int32      `json:"escape_hatch_brokers,omitempty"`
	SkippedByGate      int          `json:"skipped_by_gate,omitempty"`
	// NextRunMs is when the next run is due; absent when none is scheduled (the
	// write-triggered schedule with nothing imbalanced).
	NextRunMs *int64 `json:"next_run_ms,omitempty"`
}

// Election is one leader a balancer run elected.
type Election struct {
	Topic     string `json:"topic"`
	Partition int32  `json:"partition"`
	Leader    int32  `json:"leader"`
}

// BrokerValue is a per-broker figure.
type BrokerValue struct {
	Broker int32
	Value  int
}

// BrokerValues is written as a JSON object keyed by broker id, like a per-broker gauge, in
// broker order.
type BrokerValues []BrokerValue

// MarshalJSON writes {"<broker>": value, ...}.
func (bv BrokerValues) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, v := range bv {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`"` + strconv.Itoa(int(v.Broker)) + `":` + strconv.Itoa(v.Value))
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// PartitionState is a partition as kafka-topics.sh --describe shows it, with its epochs.
type PartitionState struct {
	Topic          string  `json:"topic"`
	Partition      int32   `json:"partition"`
	Leader         int32   `json:"leader"`
	LeaderEpoch    int32   `json:"leader_epoch"`
	PartitionEpoch int32   `json:"partition_epoch"`
	Replicas       []int32 `json:"replicas"`
	Isr            []int32 `json:"isr"`
	Elr            []int32 `json:"elr"`
	LastKnownElr   []int32 `json:"last_known_elr"`
	// LeaderRecoveryState is "RECOVERING" after an unclean election until the leader reports
	// it has recovered; absent otherwise.
	LeaderRecoveryState string `json:"leader_recovery_state,omitempty"`
}

// Broker states in a result.
const (
	StateUnfenced           = "unfenced"
	StateFenced             = "fenced"
	StateControlledShutdown = "controlled_shutdown"
	// StateStopped is a broker that does not heartbeat, whatever its registration says.
	StateStopped = "stopped"
)

// BrokerState is a registered broker at the end of the run.
type BrokerState struct {
	ID    int32  `json:"id"`
	Epoch int64  `json:"epoch"`
	State string `json:"state"`
}

// Metrics are the controller's metrics by JMX name. A per-broker gauge is an object keyed by
// broker id.
type Metrics map[string]any

// MarshalJSON writes the metrics sorted by name, per-broker gauges in broker order.
func (m Metrics) MarshalJSON() ([]byte, error) {
	names := make([]string, 0, len(m))
	for n := range m {
		names = append(names, n)
	}
	slices.Sort(names)
	var b bytes.Buffer
	b.WriteByte('{')
	for i, n := range names {
		if i > 0 {
			b.WriteByte(',')
		}
		writeString(&b, n)
		b.WriteByte(':')
		enc, err := metricJSON(m[n])
		if err != nil {
			return nil, err
		}
		b.Write(enc)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// metricJSON writes one metric's value; a per-broker gauge becomes an object in broker order.
func metricJSON(v any) ([]byte, error) {
	if per, ok := v.(map[string]int); ok {
		v = perBroker(per)
	}
	return json.Marshal(v)
}

func perBroker(m map[string]int) BrokerValues {
	out := make(BrokerValues, 0, len(m))
	for k, v := range m {
		id, _ := strconv.Atoi(k) // the engine keys per-broker gauges by broker id
		out = append(out, BrokerValue{Broker: int32(id), Value: v})
	}
	slices.SortFunc(out, func(a, b BrokerValue) int { return int(a.Broker) - int(b.Broker) })
	return out
}

// WriteJSON writes the result as indented JSON, with each record, partition and other flat
// object on one line, followed by a newline. A cluster-mode result has its own fields
// (ClusterResult); docs/scenario.md documents both.
func (r *Result) WriteJSON(w io.Writer) error {
	if r.Cluster != nil {
		return r.Cluster.writeJSON(w, r.Description)
	}
	r.fillEmpty()
	compact, err := json.Marshal(r)
	if err != nil {
		return err
	}
	tree, err := parseTree(compact)
	if err != nil {
		return err
	}
	var b bytes.Buffer
	writeIndented(&b, tree, "")
	b.WriteByte('\n')
	_, err = w.Write(b.Bytes())
	return err
}

// fillEmpty makes the required lists [] rather than null.
func (r *Result) fillEmpty() {
	if r.Steps == nil {
		r.Steps = []StepResult{}
	}
	if r.Partitions == nil {
		r.Partitions = []PartitionState{}
	}
	if r.Brokers == nil {
		r.Brokers = []BrokerState{}
	}
	if r.Metrics == nil {
		r.Metrics = Metrics{}
	}
}
