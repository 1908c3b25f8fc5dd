package lab

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"

	"github.com/kraftlab/kraftlab/cluster/scenario"
)

// Description is a cluster as an operator states it, with the event to study. It turns into a
// cluster-mode scenario with Scenario. Rates and sizes are in bytes (MB = 10^6 bytes).
type Description struct {
	// Preset names the preset a description file starts from (ParseDescription); fields the
	// file gives replace the preset's.
	Preset string `json:"preset,omitempty"`
	// Name is free text, the scenario's description.
	Name string `json:"name,omitempty"`
	Seed uint64 `json:"seed"`
	// Controllers is the number of KRaft controller voters: 1, 3 or 5.
	Controllers int `json:"controllers"`
	// Brokers is the number of brokers, ids 0 to Brokers-1 unless BrokerIDs names them.
	Brokers int `json:"brokers"`
	// BrokerIDs, when set, are the brokers' ids as the cluster has them (an imported cluster's,
	// often from 1 and with gaps); Brokers is then their count.
	BrokerIDs []int32 `json:"broker_ids,omitempty"`
	// Topics are the starting topics.
	Topics []Topic `json:"topics"`
	// ReplicationFactor and MinInsyncReplicas apply to every topic that does not set its own;
	// min.insync.replicas is written as the cluster-level config.
	ReplicationFactor int `json:"replication_factor"`
	MinInsyncReplicas int `json:"min_insync_replicas"`
	// ProduceBytesPerSec is the whole cluster's produce rate, spread over the partitions with
	// lognormal skew; each broker leads an equal share.
	ProduceBytesPerSec float64 `json:"produce_bytes_per_sec"`
	// DataBytesPerBroker is the data each broker holds locally (as leader and follower): what a
	// replaced disk must copy back. Partition sizes follow their produce rates, so Skew shapes
	// both (the stragglers are the big, busy partitions).
	DataBytesPerBroker float64 `json:"data_bytes_per_broker"`
	// Skew is σ of the lognormal per-partition rate (0: every partition alike).
	Skew float64 `json:"skew"`
	// DiskBytesPerSec is each broker's disk capacity, read and write; NicBytesPerSec its
	// network capacity per direction.
	DiskBytesPerSec float64 `json:"disk_bytes_per_sec"`
	NicBytesPerSec  float64 `json:"nic_bytes_per_sec"`
	// FollowerThrottleBytesPerSec and LeaderThrottleBytesPerSec are
	// follower.replication.throttled.rate and leader.replication.throttled.rate applied to all
	// replicas ("*"); 0 is no throttle (Kafka's default).
	FollowerThrottleBytesPerSec float64 `json:"follower_throttle_bytes_per_sec"`
	LeaderThrottleBytesPerSec   float64 `json:"leader_throttle_bytes_per_sec"`
	// LogRecoveryHardMs fixes a broker's log recovery after a hard stop; 0 lets the model
	// derive it from what the broker holds (broker.Params.LogRecoveryHardMs).
	LogRecoveryHardMs int64 `json:"log_recovery_hard_ms,omitempty"`
	// Event is what happens to the cluster.
	Event Event `json:"event"`
	// DurationMs is how long the cluster runs (scenario time).
	DurationMs int64 `json:"duration_ms"`
	// Config holds Kafka configs of the controllers (server.properties), as NAME=VALUE
	// overrides: the policy under study, or what ParseProperties read.
	Config []Override `json:"config,omitempty"`
}

// Topic is one starting topic. ReplicationFactor and MinInsyncReplicas of 0 take the
// description's.
type Topic struct {
	Name              string `json:"name"`
	Partitions        int    `json:"partitions"`
	ReplicationFactor int    `json:"replication_factor,omitempty"`
	MinInsyncReplicas int    `json:"min_insync_replicas,omitempty"`
	// Replicas, when set, is the exact assignment: partition i's replicas, the preferred one
	// first (an imported cluster's). Partitions is then its length, and ReplicationFactor is
	// ignored (each partition has its own).
	Replicas [][]int32 `json:"replicas,omitempty"`
	// SizeBytes and ProduceBytesPerSec, when set, are each partition's size and produce rate as
	// measured (an imported cluster's), one per partition of Replicas. Set for one topic, they
	// must be set for every topic; they then take the place of DataBytesPerBroker and Skew.
	SizeBytes          []float64 `json:"size_bytes,omitempty"`
	ProduceBytesPerSec []float64 `json:"produce_bytes_per_sec,omitempty"`
}

// Kinds of event a description studies.
const (
	// EventRestart stops one broker (killed, or shut down cleanly with Clean) and starts it
	// DownMs later.
	EventRestart = "restart"
	// EventDiskSwap kills one broker, replaces its disk and starts it DownMs later, empty.
	EventDiskSwap = "disk_swap"
	// EventRollingRestart restarts brokers 0 to Brokers-1 in turn, IntervalMs apart, each shut
	// down cleanly (or, with DiskSwap, killed and given a new disk).
	EventRollingRestart = "rolling_restart"
)

// Event is the event a description studies.
type Event struct {
	Kind string `json:"kind"`
	// AtMs is when it starts.
	AtMs int64 `json:"at_ms"`
	// Broker is the restarted broker (restart, disk_swap); DownMs how long it stays down.
	Broker int32 `json:"broker"`
	DownMs int64 `json:"down_ms"`
	// Clean makes a restart a controlled shutdown instead of a kill.
	Clean bool `json:"clean,omitempty"`
	// Brokers, IntervalMs and DiskSwap describe a rolling restart.
	Brokers    int   `json:"brokers,omitempty"`
	IntervalMs int64 `json:"interval_ms,omitempty"`
	DiskSwap   bool  `json:"disk_swap,omitempty"`
}

// FieldError is an invalid description field: its path (topics[1].partitions), the value and
// what is allowed, in the manner of Kafka's ConfigException.
type FieldError struct {
	Field   string
	Value   string
	Allowed string
}

// Error writes "field: invalid value V: what is allowed".
func (e *FieldError) Error() string {
	return fmt.Sprintf("%s: invalid value %s: %s", e.Field, e.Value, e.Allowed)
}

// Limits of a description, from the scenario format's.
const (
	maxBrokers    = scenario.MaxBrokers
	maxRF         = 8
	maxDurationMs = scenario.MaxTimeMs
)

// Validate checks every field and returns the first problem as a *FieldError.
func (d *Description) Validate() error {
	fail := func(field string, v any, allowed string) error {
		return &FieldError{Field: field, Value: fmt.Sprint(v), Allowed: allowed}
	}
	num := func(field string, v float64, min float64, open bool, allowed string) error {
		if math.IsNaN(v) || math.IsInf(v, 0) || v < min || (open && v == min) {
			return fail(field, strconv.FormatFloat(v, 'g', -1, 64), allowed)
		}
		return nil
	}
	if d.Controllers != 1 && d.Controllers != 3 && d.Controllers != 5 {
		return fail("controllers", d.Controllers, "must be 1, 3 or 5 (a KRaft quorum of controller voters)")
	}
	if d.Brokers < 1 || d.Brokers > maxBrokers {
		return fail("brokers", d.Brokers, fmt.Sprintf("must be an integer from 1 to %d", maxBrokers))
	}
	if err := d.validateBrokerIDs(); err != nil {
		return err
	}
	rfMax := min(d.Brokers, maxRF)
	if d.ReplicationFactor < 1 || d.ReplicationFactor > rfMax {
		return fail("replication_factor", d.ReplicationFactor, fmt.Sprintf("must be an integer from 1 to %d (at most the brokers, and the model's limit of %d)", rfMax, maxRF))
	}
	if d.MinInsyncReplicas < 1 || d.MinInsyncReplicas > d.ReplicationFactor {
		return fail("min_insync_replicas", d.MinInsyncReplicas, fmt.Sprintf("must be an integer from 1 to the replication factor (%d)", d.ReplicationFactor))
	}
	if len(d.Topics) == 0 {
		return fail("topics", "[]", "must list at least one topic (the producers write to the starting partitions)")
	}
	seen := map[string]bool{}
	total := 0
	for i, t := range d.Topics {
		at := fmt.Sprintf("topics[%d]", i)
		if t.Name == "" || seen[t.Name] {
			return fail(at+".name", strconv.Quote(t.Name), "must be a non-empty name, different from the other topics'")
		}
		seen[t.Name] = true
		if err := d.validateAssignment(at, t); err != nil {
			return err
		}
		if err := d.validateFigures(at, t); err != nil {
			return err
		}
		if t.Partitions < 1 || t.Partitions > scenario.MaxPartitions {
			return fail(at+".partitions", t.Partitions, fmt.Sprintf("must be an integer from 1 to %d", scenario.MaxPartitions))
		}
		total += t.Partitions
		if t.ReplicationFactor != 0 && (t.ReplicationFactor < 1 || t.ReplicationFactor > rfMax) {
			return fail(at+".replication_factor", t.ReplicationFactor, fmt.Sprintf("must be 0 (the description's) or an integer from 1 to %d", rfMax))
		}
		rf := d.topicRF(t)
		if t.MinInsyncReplicas != 0 && (t.MinInsyncReplicas < 1 || t.MinInsyncReplicas > rf) {
			return fail(at+".min_insync_replicas", t.MinInsyncReplicas, fmt.Sprintf("must be 0 (the description's) or an integer from 1 to the topic's replication factor (%d)", rf))
		}
	}
	if total > scenario.MaxPartitions {
		return fail("topics", total, fmt.Sprintf("partitions over all topics must be at most %d", scenario.MaxPartitions))
	}
	if err := num("produce_bytes_per_sec", d.ProduceBytesPerSec, 0, true, "must be a rate in bytes per second above 0"); err != nil {
		return err
	}
	if err := num("data_bytes_per_broker", d.DataBytesPerBroker, 0, false, "must be a size in bytes, 0 or more"); err != nil {
		return err
	}
	if err := num("skew", d.Skew, 0, false, "must be σ of a lognormal from 0 (uniform) to 5"); err != nil || d.Skew > 5 {
		return fail("skew", strconv.FormatFloat(d.Skew, 'g', -1, 64), "must be σ of a lognormal from 0 (uniform) to 5")
	}
	if err := num("disk_bytes_per_sec", d.DiskBytesPerSec, 0, true, "must be a rate in bytes per second above 0"); err != nil {
		return err
	}
	if err := num("nic_bytes_per_sec", d.NicBytesPerSec, 0, true, "must be a rate in bytes per second above 0"); err != nil {
		return err
	}
	if err := num("follower_throttle_bytes_per_sec", d.FollowerThrottleBytesPerSec, 0, false, "must be a rate in bytes per second, 0 or more (0: no throttle)"); err != nil {
		return err
	}
	if err := num("leader_throttle_bytes_per_sec", d.LeaderThrottleBytesPerSec, 0, false, "must be a rate in bytes per second, 0 or more (0: no throttle)"); err != nil {
		return err
	}
	if d.LogRecoveryHardMs < 0 || d.LogRecoveryHardMs > maxDurationMs {
		return fail("log_recovery_hard_ms", d.LogRecoveryHardMs, fmt.Sprintf("must be an integer from 0 (derived from what the broker holds) to %d", int64(maxDurationMs)))
	}
	if d.DurationMs < 1 || d.DurationMs > maxDurationMs {
		return fail("duration_ms", d.DurationMs, fmt.Sprintf("must be an integer from 1 to %d (7 days)", int64(maxDurationMs)))
	}
	return d.Event.validate(d)
}

func (e *Event) validate(d *Description) error {
	fail := func(field string, v any, allowed string) error {
		return &FieldError{Field: "event." + field, Value: fmt.Sprint(v), Allowed: allowed}
	}
	if e.AtMs < 0 || e.AtMs > d.DurationMs {
		return fail("at_ms", e.AtMs, fmt.Sprintf("must be from 0 to duration_ms (%d)", d.DurationMs))
	}
	switch e.Kind {
	case EventRestart, EventDiskSwap:
		if !d.hasBroker(e.Broker) {
			return fail("broker", e.Broker, d.brokerAllowed())
		}
		if e.DownMs < 0 || e.AtMs+e.DownMs > d.DurationMs {
			return fail("down_ms", e.DownMs, fmt.Sprintf("must be 0 or more, and at_ms + down_ms at most duration_ms (%d)", d.DurationMs))
		}
		if e.Kind == EventDiskSwap && e.Clean {
			return fail("clean", e.Clean, "must be false for a disk swap (the broker is killed and its disk replaced)")
		}
	case EventRollingRestart:
		if e.Brokers < 1 || e.Brokers > d.Brokers {
			return fail("brokers", e.Brokers, fmt.Sprintf("must be from 1 to the cluster's %d brokers", d.Brokers))
		}
		if e.IntervalMs < 0 || e.IntervalMs > d.DurationMs {
			return fail("interval_ms", e.IntervalMs, "must be 0 or more and at most duration_ms")
		}
	default:
		return fail("kind", strconv.Quote(e.Kind), fmt.Sprintf("must be one of: %s, %s, %s", EventRestart, EventDiskSwap, EventRollingRestart))
	}
	return nil
}

func (d *Description) topicRF(t Topic) int {
	if t.Replicas != nil {
		return assignmentRF(t.Replicas)
	}
	if t.ReplicationFactor != 0 {
		return t.ReplicationFactor
	}
	return d.ReplicationFactor
}

// The scenario document, in the field order docs/scenario.md lists, so that an exported
// scenario reads like a hand-written one.
type (
	scenarioDoc struct {
		Seed        uint64         `json:"seed"`
		Description string         `json:"description,omitempty"`
		DurationMs  int64          `json:"duration_ms"`
		SampleMs    int64          `json:"sample_ms"`
		Config      map[string]any `json:"config,omitempty"`
		Cluster     clusterDoc     `json:"cluster"`
		Events      []eventDoc     `json:"events"`
		Output      map[string]any `json:"output"`
	}
	clusterDoc struct {
		Controllers int            `json:"controllers"`
		Brokers     any            `json:"brokers"` // a count, or the ids (BrokerIDs)
		Topics      []topicDoc     `json:"topics"`
		Broker      map[string]any `json:"broker"`
		Workload    map[string]any `json:"workload"`
	}
	topicDoc struct {
		Name              string         `json:"name"`
		PartitionCount    int            `json:"partition_count,omitempty"`
		ReplicationFactor int            `json:"replication_factor,omitempty"`
		Partitions        []partitionDoc `json:"partitions,omitempty"`
		Config            map[string]any `json:"config,omitempty"`
	}
	eventDoc struct {
		AtMs       int64   `json:"at_ms"`
		Op         string  `json:"op"`
		Broker     *int32  `json:"broker,omitempty"`
		Brokers    []int32 `json:"brokers,omitempty"`
		IntervalMs *int64  `json:"interval_ms,omitempty"`
		DiskSwap   bool    `json:"disk_swap,omitempty"`
		Note       string  `json:"note,omitempty"`
	}
)

// SampleMs is the sample interval of the lab's scenarios: the scenario format's default, and
// the producers' latency window.
const SampleMs = 10_000

// Scenario validates the description and writes it as a cluster-mode scenario file, its
// Config overrides applied. The file records what the model needs and nothing the lab
// invented: each description field becomes the scenario field it stands for.
func (d *Description) Scenario() ([]byte, error) {
	doc, err := d.doc()
	if err != nil {
		return nil, err
	}
	for i, t := range d.Topics {
		if t.Replicas != nil {
			doc.Cluster.Topics[i].Partitions = assignmentDoc(t)
		}
	}
	doc.Events = d.events()
	raw, err := marshalDoc(doc)
	if err != nil {
		return nil, err
	}
	if d.BrokerIDs != nil {
		raw = compactLists(raw)
	}
	return d.checked(raw, readFile)
}

// PlanSetup is a plan's scenario for the described cluster: Scenario's file without its events
// (a plan replaces them), the current config's overrides applied after the description's own,
// and each imported topic's explicit partitions (Topic.Replicas and its figures) kept apart as
// structs instead of written into the file (scenario.ParseClusterSetupWith reads the two). A
// 200,000-partition assignment written as text and read back is seconds of a page's worker;
// kept apart it is checked in milliseconds, and the file holds the rest (a few KB). The page's
// rehearsal builds its runs here, so rehearse.wasm links neither the event parser nor the
// event writer.
func (d *Description) PlanSetup(current []Override) (*PlanSetup, error) {
	doc, err := d.doc()
	if err != nil {
		return nil, err
	}
	doc.Events = []eventDoc{}
	s := &PlanSetup{parts: make([][]scenario.Partition, len(d.Topics))}
	for i, t := range d.Topics {
		if t.Replicas != nil {
			s.parts[i] = partitionsOf(t)
		}
	}
	raw, err := marshalDoc(doc)
	if err != nil {
		return nil, err
	}
	read := s.reader()
	if raw, err = d.checked(raw, read); err != nil {
		return nil, err
	}
	if s.doc, err = applyChecked(raw, current, read); err != nil {
		return nil, err
	}
	return s, nil
}

// PlanSetup is a plan's scenario: a cluster-mode file and, when it comes from a Description
// (Description.PlanSetup), the starting topics' explicit partitions given apart. A rehearsal's
// runs share the partitions and differ in the file alone (the overrides change no topic).
type PlanSetup struct {
	doc []byte
	// parts are each starting topic's partitions given apart, by topic (nil: the file's own).
	parts [][]scenario.Partition
}

// reader reads the setup's files: a file of it with the partitions given apart.
func (s *PlanSetup) reader() reader {
	return func(doc []byte) (*scenario.Scenario, error) { return readPlanFileWith(doc, s.parts) }
}

// partitionsOf is a topic's explicit partitions as the scenario's structs: what assignmentDoc
// writes into a file.
func partitionsOf(t Topic) []scenario.Partition {
	out := make([]scenario.Partition, len(t.Replicas))
	for i, r := range t.Replicas {
		out[i] = scenario.Partition{Replicas: r}
		if t.SizeBytes != nil {
			out[i].SizeBytes, out[i].HasSize = t.SizeBytes[i], true
		}
		if t.ProduceBytesPerSec != nil {
			out[i].ProduceBytesPerSec, out[i].HasRate = t.ProduceBytesPerSec[i], true
		}
	}
	return out
}

// checked checks a file of the description with read and applies its Config overrides.
func (d *Description) checked(raw []byte, read reader) ([]byte, error) {
	if _, err := read(raw); err != nil {
		return nil, err
	}
	return applyChecked(raw, d.Config, read)
}

// doc validates the description and writes its file, but for the events and the explicit
// partitions of Topic.Replicas (Scenario writes them in, PlanSetup keeps them apart).
func (d *Description) doc() (*scenarioDoc, error) {
	if err := d.Validate(); err != nil {
		return nil, err
	}
	perBroker := d.ProduceBytesPerSec / float64(d.Brokers)
	// Each broker writes its led bytes once per replica it holds: led × the mean replication
	// factor (by partitions), so it holds DataBytesPerBroker after retention × that.
	var replicas, partitions float64
	for _, t := range d.Topics {
		replicas += float64(d.topicReplicas(t))
		partitions += float64(t.Partitions)
	}
	retention := d.DataBytesPerBroker / (perBroker * (replicas / partitions))
	doc := &scenarioDoc{
		Seed: d.Seed, Description: d.Name, DurationMs: d.DurationMs, SampleMs: SampleMs,
		Config: map[string]any{"min.insync.replicas": d.MinInsyncReplicas},
		Cluster: clusterDoc{
			Controllers: d.Controllers, Brokers: d.brokersDoc(),
			Broker: map[string]any{
				"disk_write_bytes_per_sec": d.DiskBytesPerSec, "disk_read_bytes_per_sec": d.DiskBytesPerSec,
				"nic_in_bytes_per_sec": d.NicBytesPerSec, "nic_out_bytes_per_sec": d.NicBytesPerSec,
				"local_retention_sec": retention,
			},
			Workload: map[string]any{"bytes_per_sec_per_broker": perBroker, "skew": d.Skew},
		},
		Output: map[string]any{"records": false},
	}
	if d.FollowerThrottleBytesPerSec > 0 || d.LeaderThrottleBytesPerSec > 0 {
		doc.Cluster.Broker["follower.replication.throttled.rate"] = d.FollowerThrottleBytesPerSec
		doc.Cluster.Broker["leader.replication.throttled.rate"] = d.LeaderThrottleBytesPerSec
		doc.Cluster.Broker["throttle_all_replicas"] = true
	}
	if d.LogRecoveryHardMs > 0 {
		doc.Cluster.Broker["log_recovery_hard_ms"] = d.LogRecoveryHardMs
	}
	for _, t := range d.Topics {
		td := topicDoc{Name: t.Name, PartitionCount: t.Partitions, ReplicationFactor: d.topicRF(t)}
		if t.Replicas != nil {
			td = topicDoc{Name: t.Name}
		}
		if t.MinInsyncReplicas != 0 {
			td.Config = map[string]any{"min.insync.replicas": t.MinInsyncReplicas}
		}
		doc.Cluster.Topics = append(doc.Cluster.Topics, td)
	}
	return doc, nil
}

// events writes the description's event.
func (d *Description) events() []eventDoc {
	e := d.Event
	at := func(ms int64, op string, note string) eventDoc {
		b := e.Broker
		return eventDoc{AtMs: ms, Op: op, Broker: &b, Note: note}
	}
	switch e.Kind {
	case EventRestart:
		stop := "kill"
		if e.Clean {
			stop = "shutdown"
		}
		return []eventDoc{at(e.AtMs, stop, ""), at(e.AtMs+e.DownMs, "start", "")}
	case EventDiskSwap:
		return []eventDoc{at(e.AtMs, "kill", ""), at(e.AtMs, "disk_swap", "a new, empty disk"), at(e.AtMs+e.DownMs, "start", "")}
	case EventRollingRestart:
		ids := make([]int32, e.Brokers)
		for i := range ids {
			ids[i] = d.brokerID(i)
		}
		iv := e.IntervalMs
		return []eventDoc{{AtMs: e.AtMs, Op: "rolling_restart", Brokers: ids, IntervalMs: &iv, DiskSwap: e.DiskSwap}}
	}
	return nil
}

// marshalDoc writes a document as indented JSON, numbers in Go's shortest round-trip form
// (so 13333.333333333334 reads back as the same float64).
func marshalDoc(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// ParseDescription reads a description file: a JSON object {"lab": {...}} whose "preset"
// (default "small") names the starting point and whose other fields replace the preset's.
// Unknown fields are errors.
func ParseDescription(data []byte) (*Description, error) {
	var wrap struct {
		Lab json.RawMessage `json:"lab"`
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&wrap); err != nil || wrap.Lab == nil {
		return nil, inputErrorf(`lab: a description file is a JSON object {"lab": {...}}: %v`, errOr(err, "no \"lab\" field"))
	}
	var head struct {
		Preset string `json:"preset"`
	}
	if err := json.Unmarshal(wrap.Lab, &head); err != nil {
		return nil, inputErrorf("lab: %v", err)
	}
	if head.Preset == "" {
		head.Preset = PresetSmall
	}
	d, err := Preset(head.Preset)
	if err != nil {
		return nil, inputErrorf("lab.preset: %w", err)
	}
	// A list the file gives replaces the preset's rather than merging into it element by
	// element; an object (the event) merges, so {"event": {"kind": "disk_swap"}} keeps the
	// preset's times.
	var probe map[string]json.RawMessage
	_ = json.Unmarshal(wrap.Lab, &probe)
	if _, ok := probe["topics"]; ok {
		d.Topics = nil
	}
	if _, ok := probe["config"]; ok {
		d.Config = nil
	}
	dec = json.NewDecoder(bytes.NewReader(wrap.Lab))
	dec.DisallowUnknownFields()
	if err := dec.Decode(d); err != nil {
		return nil, inputErrorf("lab: %v", err)
	}
	if err := d.Validate(); err != nil {
		return nil, inputErrorf("lab.%w", err)
	}
	return d, nil
}

// IsDescription says whether a file is a description ({"lab": ...}) rather than a scenario.
func IsDescription(data []byte) bool {
	var probe map[string]json.RawMessage
	if json.Unmarshal(data, &probe) != nil {
		return false
	}
	_, ok := probe["lab"]
	return ok
}

func errOr(err error, msg string) string {
	if err != nil {
		return err.Error()
	}
	return msg
}
