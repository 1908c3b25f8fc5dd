package scenario

import (
	"bytes"
	"encoding/json"
	"io"
	"math"
	"strconv"
)

// ClusterResult is what a cluster-mode run produced. Its JSON form is written field by field
// in the order declared here (see WriteJSON); docs/scenario.md documents it.
type ClusterResult struct {
	Seed       uint64
	DurationMs int64
	// Events are the scenario's events in the order they were applied, each with the error
	// the cluster answered, if any.
	Events []EventResult
	// Records are the records committed after the cluster came up, NoOpRecords excepted
	// (counted in NoOpRecords), in offset order; nil when the scenario's output leaves them
	// out. SetupRecords counts the records committed while it came up, by time 0: the first
	// LeaderChangeMessage and the bootstrap's features, registrations, topics and partitions.
	Records      []Record
	NoOpRecords  int
	SetupRecords int
	// BalancerRuns are the electPreferred runs, on whichever controller was active.
	BalancerRuns []BalancerRun
	Describes    []DescribeResult
	Samples      []SampleResult
	Summary      SummaryResult
	// Violation is the invariant violation that stopped the run early, if any: the result
	// then ends at it.
	Violation string
}

// EventResult is one applied event.
type EventResult struct {
	Index  int        `json:"index"`
	TimeMs int64      `json:"time_ms"`
	Op     string     `json:"op"`
	Note   string     `json:"note,omitempty"`
	Error  *StepError `json:"error,omitempty"`
	// Results are elect_leaders' per-partition outcomes, as in controller mode.
	Results []PartitionResult `json:"results,omitempty"`

	// runs and samples are how many balancer runs and samples came before the event, which
	// places it in the text timeline; describe is its table in Describes, or -1.
	runs, samples, describe int
}

// CodeEventRefused is the error code of an event the cluster itself refused (a broker that is
// already stopped, a rolling restart while one runs); a request the controller refuses
// carries Kafka's code instead.
const CodeEventRefused = "EVENT_REFUSED"

// DescribeResult is the partition table a describe event took.
type DescribeResult struct {
	TimeMs     int64            `json:"time_ms"`
	Partitions []PartitionState `json:"partitions"`
}

// SampleResult is the cluster at one sample time.
type SampleResult struct {
	TimeMs                 int64          `json:"time_ms"`
	Brokers                []BrokerSample `json:"brokers"`
	UnderReplicated        int            `json:"under_replicated"`
	Offline                int            `json:"offline"`
	Elections              int            `json:"elections"`
	ProduceP50Ms           Millis         `json:"produce_p50_ms"`
	ProduceP99Ms           Millis         `json:"produce_p99_ms"`
	ProduceP999Ms          Millis         `json:"produce_p999_ms"`
	ProduceErrors          int            `json:"produce_errors"`
	ProduceTimeouts        int            `json:"produce_timeouts"`
	recordsSincePrevSample int
}

// BrokerSample is one broker in a sample.
type BrokerSample struct {
	ID                 int32  `json:"id"`
	State              string `json:"state"`
	Leaders            int    `json:"leaders"`
	PreferredTotal     int    `json:"preferred_total"`
	PreferredLed       int    `json:"preferred_led"`
	OutOfSync          int    `json:"out_of_sync"`
	OutOfSyncPreferred int    `json:"out_of_sync_preferred"`
	Gated              bool   `json:"gated"`
}

// Millis is a duration in milliseconds as the result writes it: rounded to the microsecond,
// and null when there is no value (no produce request in a window).
type Millis float64

// MarshalJSON writes the rounded number, or null for NaN and infinities.
func (m Millis) MarshalJSON() ([]byte, error) {
	f := float64(m)
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return []byte("null"), nil
	}
	return []byte(formatMillis(f)), nil
}

// formatMillis writes a number with at most three decimals, without trailing zeros.
func formatMillis(f float64) string {
	r := math.Round(f*1000) / 1000
	if r == 0 {
		r = 0 // no "-0"
	}
	return strconv.FormatFloat(r, 'f', -1, 64)
}

// SummaryResult is the run's summary: the cluster's Summary under the scenario format's names.
type SummaryResult struct {
	Fields []SummaryField
}

// SummaryField is one figure of a summary.
type SummaryField struct {
	Name  string
	Value float64
	// Integer figures are written without decimals; Time ones are -1 when the moment never
	// came.
	Integer, Time bool
	// Note, for the text output only, says why a figure is missing.
	Note string
}

// MarshalJSON writes the fields in order, as one object.
func (s SummaryResult) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, f := range s.Fields {
		if i > 0 {
			b.WriteByte(',')
		}
		writeString(&b, f.Name)
		b.WriteByte(':')
		b.WriteString(f.text())
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// writeExpanded writes the summary as an object with one field per line, at indent: the
// figures people read first are not crammed on one line. value, if given, replaces each
// field's text (compare's ratios).
func (s SummaryResult) writeExpanded(b *bytes.Buffer, indent string, value func(SummaryField) string) {
	b.WriteByte('{')
	for i, f := range s.Fields {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString("\n" + indent + "  ")
		writeString(b, f.Name)
		b.WriteString(": ")
		if value != nil {
			b.WriteString(value(f))
		} else {
			b.WriteString(f.text())
		}
	}
	b.WriteString("\n" + indent + "}")
}

// Get returns a field's value by name.
func (s SummaryResult) Get(name string) (SummaryField, bool) {
	for _, f := range s.Fields {
		if f.Name == name {
			return f, true
		}
	}
	return SummaryField{}, false
}

func (f SummaryField) text() string {
	if f.Integer {
		return strconv.FormatInt(int64(f.Value), 10)
	}
	if math.IsNaN(f.Value) || math.IsInf(f.Value, 0) {
		return "null"
	}
	return formatMillis(f.Value)
}

// writeJSON writes a cluster-mode result (Result.WriteJSON): one field per line at the top
// level, and each event, record, balancer run, sample and partition laid out as the controller
// mode's writer lays them out. It converts element by element, so a result of millions of
// records never exists as one JSON tree in memory.
func (r *ClusterResult) writeJSON(w io.Writer, description string) error {
	var b bytes.Buffer
	first := true
	key := func(k string) {
		if !first {
			b.WriteByte(',')
		}
		first = false
		b.WriteString("\n  ")
		writeString(&b, k)
		b.WriteString(": ")
	}
	scalar := func(k string, v any) error {
		enc, err := json.Marshal(v)
		if err != nil {
			return err
		}
		key(k)
		b.Write(enc)
		return nil
	}
	b.WriteByte('{')
	if description != "" {
		if err := scalar("description", description); err != nil {
			return err
		}
	}
	if err := scalar("seed", r.Seed); err != nil {
		return err
	}
	if err := scalar("duration_ms", r.DurationMs); err != nil {
		return err
	}
	key("events")
	if err := writeList(&b, r.Events, "  "); err != nil {
		return err
	}
	if r.Records != nil {
		key("records")
		if err := writeList(&b, r.Records, "  "); err != nil {
			return err
		}
	}
	if err := scalar("noop_records", r.NoOpRecords); err != nil {
		return err
	}
	if err := scalar("setup_records", r.SetupRecords); err != nil {
		return err
	}
	key("balancer_runs")
	if err := writeList(&b, r.BalancerRuns, "  "); err != nil {
		return err
	}
	key("describes")
	if err := writeList(&b, r.Describes, "  "); err != nil {
		return err
	}
	key("samples")
	if err := writeList(&b, r.Samples, "  "); err != nil {
		return err
	}
	key("summary")
	r.Summary.writeExpanded(&b, "  ", nil)
	if r.Violation != "" {
		if err := scalar("violation", r.Violation); err != nil {
			return err
		}
	}
	b.WriteString("\n}\n")
	_, err := w.Write(b.Bytes())
	return err
}

// writeList writes a JSON array with each element laid out by writeIndented, one element at a
// time.
func writeList[T any](b *bytes.Buffer, list []T, indent string) error {
	if len(list) == 0 {
		b.WriteString("[]")
		return nil
	}
	b.WriteByte('[')
	for i := range list {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString("\n" + indent + "  ")
		if err := writeOne(b, list[i], indent+"  "); err != nil {
			return err
		}
	}
	b.WriteString("\n" + indent + "]")
	return nil
}

func writeOne(b *bytes.Buffer, v any, indent string) error {
	enc, err := json.Marshal(v)
	if err != nil {
		return err
	}
	tree, err := parseTree(enc)
	if err != nil {
		return err
	}
	writeIndented(b, tree, indent)
	return nil
}
