package bridge

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"

	"github.com/kraftlab/kraftlab/cluster"
	"github.com/kraftlab/kraftlab/cluster/scenario"
	"github.com/kraftlab/kraftlab/engine/controller"
)

// A run leaves the page, and comes back, as a cluster-mode scenario in the CLI's format
// (docs/scenario.md): the cluster it started with, and the actions as events with at_ms. So a
// run made in the page replays with `kraftlab run`, a scenario file opens in the page, and a
// share link is a scenario and a time. Everything coming in goes through scenario.ParseCluster, the
// CLI's own validation, then through the page's limits.

// MaxScenarioBytes bounds a scenario sim.load reads (a share link or an imported file).
const MaxScenarioBytes = 1 << 20

// docOrder is the order export writes a scenario's fields in, the order docs/scenario.md
// lists them.
var docOrder = []string{"mode", "description", "seed", "duration_ms", "sample_ms", "features", "config", "cluster", "events", "output"}

// startDoc is the scenario document of a sim.start request's cluster (without events and
// duration_ms), spelled as docs/scenario.md spells it.
func startDoc(spec cluster.Spec) map[string]json.RawMessage {
	type topicDoc struct {
		Name              string `json:"name"`
		PartitionCount    int    `json:"partition_count"`
		ReplicationFactor int    `json:"replication_factor"`
	}
	type clusterDoc struct {
		Controllers int        `json:"controllers"`
		Brokers     []int32    `json:"brokers"`
		Topics      []topicDoc `json:"topics"`
	}
	cd := clusterDoc{Controllers: spec.Controllers, Brokers: spec.Brokers}
	for _, t := range spec.Topics {
		cd.Topics = append(cd.Topics, topicDoc{t.Name, t.PartitionCount, t.ReplicationFactor})
	}
	doc := map[string]json.RawMessage{"seed": json.RawMessage(strconv.FormatUint(spec.Seed, 10)), "cluster": mustJSON(cd)}
	if names := spec.Static.Names(); len(names) > 0 {
		var b bytes.Buffer
		b.WriteByte('{')
		for i, n := range names { // sorted, so the document is the same every time
			v, _ := spec.Static.Get(n)
			if i > 0 {
				b.WriteString(", ")
			}
			b.Write(mustJSON(n))
			b.WriteString(": ")
			b.Write(mustJSON(v))
		}
		b.WriteByte('}')
		doc["config"] = b.Bytes()
	}
	return doc
}

func mustJSON(v any) json.RawMessage {
	out, err := json.Marshal(v)
	if err != nil {
		panic(err) // only the bridge's own values reach here; Handle turns a panic into a reply
	}
	return out
}

// writeDoc writes a scenario document: one field a line, and one event a line, so that a diff
// of two exports reads well.
func writeDoc(base map[string]json.RawMessage, hist []action, durationMs int64) []byte {
	var b bytes.Buffer
	b.WriteString("{")
	first := true
	field := func(k string, v []byte) {
		if !first {
			b.WriteString(",")
		}
		first = false
		b.WriteString("\n  ")
		b.Write(mustJSON(k))
		b.WriteString(": ")
		b.Write(v)
	}
	for _, k := range docOrder {
		switch k {
		case "duration_ms":
			field(k, []byte(strconv.FormatInt(max(durationMs, 1), 10)))
		case "events":
			if len(hist) == 0 {
				continue
			}
			var ev bytes.Buffer
			ev.WriteString("[")
			for i, a := range hist {
				if i > 0 {
					ev.WriteString(",")
				}
				ev.WriteString("\n    ")
				if err := json.Compact(&ev, a.Raw); err != nil {
					ev.Write(a.Raw)
				}
			}
			ev.WriteString("\n  ]")
			field(k, ev.Bytes())
		default:
			if v, ok := base[k]; ok {
				var c bytes.Buffer
				if err := json.Compact(&c, v); err != nil {
					c.Write(v)
				}
				field(k, c.Bytes())
			}
		}
	}
	b.WriteString("\n}\n")
	return b.Bytes()
}

// parseDoc reads a run's document with the CLI's parser.
func parseDoc(base map[string]json.RawMessage, hist []action, durationMs int64) (*scenario.ClusterScenario, error) {
	return parseCluster(writeDoc(base, hist, durationMs))
}

// errControllerMode is what the page is told of a controller-mode scenario.
var errControllerMode = errors.New(`mode: the playground runs cluster-mode scenarios; "controller" mode drives the engine alone (use kraftlab run)`)

// parseCluster reads a scenario with the CLI's parser, in cluster mode only: the playground
// has no use for controller mode, and scenario.ParseCluster keeps that mode's parser out of
// the wasm.
func parseCluster(doc []byte) (*scenario.ClusterScenario, error) {
	s, err := scenario.ParseCluster(doc)
	if errors.Is(err, scenario.ErrControllerMode) {
		return nil, errControllerMode
	}
	if err != nil {
		return nil, err
	}
	return s.Cluster, nil
}

// eventDoc is an action in the scenario format, fields in the order docs/scenario.md uses.
type eventDoc struct {
	AtMs              int64            `json:"at_ms"`
	Op                string           `json:"op"`
	Broker            *int32           `json:"broker,omitempty"`
	Factor            *float64         `json:"factor,omitempty"`
	Controller        string           `json:"controller,omitempty"`
	A                 string           `json:"a,omitempty"`
	B                 string           `json:"b,omitempty"`
	Topic             string           `json:"topic,omitempty"`
	Name              string           `json:"name,omitempty"`
	Value             *json.RawMessage `json:"value,omitempty"`
	PartitionCount    int              `json:"partition_count,omitempty"`
	ReplicationFactor int              `json:"replication_factor,omitempty"`
	Type              string           `json:"type,omitempty"`
	Partitions        []tpDoc          `json:"partitions,omitempty"`
}

type tpDoc struct {
	Topic     string `json:"topic"`
	Partition int32  `json:"partition"`
}

// eventJSON spells an action as a scenario event at atMs.
func eventJSON(atMs int64, ev cluster.Event) json.RawMessage {
	d := eventDoc{AtMs: atMs, Op: ev.Op}
	switch ev.Op {
	case cluster.OpKill, cluster.OpStart, cluster.OpShutdown, cluster.OpDiskSwap:
		d.Broker = &ev.Broker
	case cluster.OpSlowDisk:
		d.Broker, d.Factor = &ev.Broker, &ev.Factor
	case cluster.OpKillController, cluster.OpStartController, cluster.OpSnapshot:
		d.Controller = ev.Controller
	case cluster.OpCut, cluster.OpHeal:
		d.A, d.B = ev.A, ev.B
	case cluster.OpSetConfig:
		d.Topic, d.Name = ev.Topic, ev.Name
		v := mustJSON(ev.Value) // json.Number stays exact; nil is null (delete)
		d.Value = &v
	case cluster.OpCreateTopic:
		d.Name, d.PartitionCount, d.ReplicationFactor = ev.TopicSpec.Name, ev.TopicSpec.PartitionCount, ev.TopicSpec.ReplicationFactor
	case cluster.OpDeleteTopic:
		d.Name = ev.Name
	case cluster.OpElectLeaders:
		d.Type = "preferred"
		if ev.Election == controller.ElectionUnclean {
			d.Type = "unclean"
		}
		for _, tp := range ev.Partitions {
			d.Partitions = append(d.Partitions, tpDoc{tp.Topic, tp.Partition})
		}
	}
	return mustJSON(d)
}

// ExportBody is the reply to sim.export.
type ExportBody struct {
	// Scenario is the run as a cluster-mode scenario file: duration_ms is the end of the
	// timeline (the latest time reached), the actions are its events.
	Scenario string      `json:"scenario"`
	History  HistoryBody `json:"history"`
}

func (s *Session) export(body json.RawMessage) (any, error) {
	if err := s.decodeLive(body, &struct{}{}); err != nil {
		return nil, err
	}
	h := s.history()
	return ExportBody{Scenario: string(writeDoc(s.base, s.hist, h.HorizonMs)), History: h}, nil
}

// LoadRequest is the body of sim.load.
type LoadRequest struct {
	// Scenario is a cluster-mode scenario document (a JSON object, or a string holding one).
	Scenario json.RawMessage `json:"scenario"`
	// TimeMs is the cluster time to show once loaded, 0 to MaxSeekMs.
	TimeMs int64 `json:"timeMs,omitempty"`
	// ReplayToMs is the time the page means to reach next, with sim.seek in slices that keep it
	// answering (a share link's t): not run here, only held, like TimeMs, to MaxReplayWork.
	ReplayToMs int64 `json:"replayToMs,omitempty"`
}

// MaxReplayWork bounds what a link may ask the page to replay, in hours of cluster time
// weighted by the cluster's size (replayWork): 7 days of a cluster of 10,000 partitions, a few
// minutes of the worker's time. The weight is a fit to native runs of an hour (0.5 s for 4
// brokers and 12 partitions, 0.5 s for 8 and 10,000, 3.4 s for 64 and 100,000), rounded up: a
// cluster of 100,000 partitions may be replayed up to 36 hours.
const MaxReplayWork = 7 * 24 * (1 + 10_000.0/15_000)

// replayWork is the cost of running a cluster of the given size for ms of cluster time, in
// hours of the default cluster's.
func replayWork(partitions int, ms int64) float64 {
	return float64(ms) / 3_600_000 * (1 + float64(partitions)/15_000)
}

// replayLimit refuses a replay the page cannot do in reasonable time, naming the longest it can.
func replayLimit(partitions int, ms int64) error {
	if replayWork(partitions, ms) <= MaxReplayWork {
		return nil
	}
	most := int64(MaxReplayWork / (1 + float64(partitions)/15_000) * 3_600_000)
	return fmt.Errorf("replayToMs: replaying %s of a cluster of %s partitions is more than the page can do in reasonable time; allowed for this cluster: up to %s (kraftlab run replays any length)",
		hoursText(ms), thousands(int64(partitions)), hoursText(most))
}

// hoursText writes a span of cluster time in hours, or days when it is whole days.
func hoursText(ms int64) string {
	const hour, day = 3_600_000, 24 * 3_600_000
	switch {
	case ms >= day && ms%day == 0:
		return fmt.Sprintf("%d days", ms/day)
	case ms >= hour:
		return fmt.Sprintf("%d h %02d min", ms/hour, ms%hour/60_000)
	default:
		return fmt.Sprintf("%d min", ms/60_000)
	}
}

// LoadBody is the reply to sim.load: the cluster, as sim.start's reply, and the timeline's end.
type LoadBody struct {
	StartBody
	HorizonMs int64 `json:"horizonMs"`
	Actions   int   `json:"actions"`
}

func (s *Session) load(body json.RawMessage) (any, error) {
	var req LoadRequest
	if err := Decode(body, &req); err != nil {
		return nil, err
	}
	doc := []byte(req.Scenario)
	var text string
	if len(doc) > 0 && doc[0] == '"' && json.Unmarshal(doc, &text) == nil {
		doc = []byte(text)
	}
	if len(bytes.TrimSpace(doc)) == 0 || bytes.Equal(bytes.TrimSpace(doc), []byte("null")) {
		return nil, errors.New("scenario: required (a cluster-mode scenario, docs/scenario.md)")
	}
	if len(doc) > MaxScenarioBytes {
		return nil, fmt.Errorf("scenario: %s bytes is too large; allowed: up to %s bytes", thousands(int64(len(doc))), thousands(MaxScenarioBytes))
	}
	if req.TimeMs < 0 || req.TimeMs > MaxSeekMs {
		return nil, fmt.Errorf("timeMs: %d is not allowed; allowed: 0 to %s", req.TimeMs, thousands(MaxSeekMs))
	}
	if req.ReplayToMs < 0 || req.ReplayToMs > MaxSeekMs {
		return nil, fmt.Errorf("replayToMs: %d is not allowed; allowed: 0 to %s (7 days)", req.ReplayToMs, thousands(MaxSeekMs))
	}
	cs, err := parseCluster(doc)
	if err != nil {
		return nil, err
	}
	if err := pageLimits(cs); err != nil {
		return nil, err
	}
	var root map[string]json.RawMessage
	if err := json.Unmarshal(doc, &root); err != nil {
		return nil, fmt.Errorf("scenario: %w", err) // Parse read it, so this is not expected
	}
	var raws []json.RawMessage
	if ev, ok := root["events"]; ok {
		if err := json.Unmarshal(ev, &raws); err != nil {
			return nil, fmt.Errorf("events: %w", err)
		}
	}
	base := map[string]json.RawMessage{}
	for k, v := range root {
		if k != "events" && k != "duration_ms" {
			base[k] = v
		}
	}
	hist := make([]action, len(cs.Events))
	for i, ev := range cs.Events {
		raw := eventJSON(ev.AtMs, ev.Event)
		if ev.Index < len(raws) {
			raw = raws[ev.Index]
		}
		hist[i] = action{AtMs: ev.AtMs, Ev: ev.Event, Raw: raw}
	}
	sortActions(hist)
	info := StartBody{Seed: cs.Spec.Seed, Brokers: append([]int32(nil), cs.Spec.Brokers...), Topic: cs.Spec.Topics[0].Name}
	for _, t := range cs.Spec.Topics {
		info.Partitions += topicPartitions(t)
	}
	if err := replayLimit(info.Partitions, max(req.TimeMs, req.ReplayToMs)); err != nil {
		return nil, err
	}
	if err := s.replace(cs.Spec, info, base, hist, cs.DurationMs); err != nil {
		return nil, err
	}
	s.runTo(req.TimeMs)
	s.log.keepLatest()
	s.showTraffic()
	return LoadBody{StartBody: s.info, HorizonMs: max(s.horizon, s.c.Now()), Actions: len(hist)}, nil
}

func topicPartitions(t cluster.TopicSpec) int {
	if t.Replicas != nil {
		return len(t.Replicas)
	}
	return t.PartitionCount
}

// pageLimits refuses a scenario the page cannot show: the frame numbers broker slots in a
// byte and ISR members in a nibble, and draws at most MaxPartitions partitions.
func pageLimits(cs *scenario.ClusterScenario) error {
	if n := len(cs.Spec.Brokers); n > MaxBrokers {
		return fmt.Errorf("cluster.brokers: %d brokers are too many for the page; allowed: 1 to %d (kraftlab run takes more)", n, MaxBrokers)
	}
	total := 0
	check := func(path string, t cluster.TopicSpec) error {
		total += topicPartitions(t)
		rf := t.ReplicationFactor
		for _, r := range t.Replicas {
			rf = max(rf, len(r))
		}
		if rf > 8 {
			return fmt.Errorf("%s: replication factor %d is too large for the page; allowed: 1 to 8", path, rf)
		}
		if total > MaxPartitions {
			return fmt.Errorf("%s: %s partitions in all are too many for the page; allowed: up to %s (kraftlab run takes more)", path, thousands(int64(total)), thousands(MaxPartitions))
		}
		return nil
	}
	for i, t := range cs.Spec.Topics {
		if err := check(fmt.Sprintf("cluster.topics[%d]", i), t); err != nil {
			return err
		}
	}
	for _, ev := range cs.Events {
		if ev.Op == cluster.OpCreateTopic {
			if err := check(fmt.Sprintf("events[%d]", ev.Index), ev.TopicSpec); err != nil {
				return err
			}
		}
	}
	if n := len(cs.Events); n > MaxActions {
		return fmt.Errorf("events: %s events are too many for the page; allowed: up to %s", thousands(int64(n)), thousands(MaxActions))
	}
	return nil
}
