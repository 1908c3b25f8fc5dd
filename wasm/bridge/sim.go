package bridge

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/kraftlab/kraftlab/cluster"
	"github.com/kraftlab/kraftlab/engine/config"
	"github.com/kraftlab/kraftlab/engine/controller"
)

// Limits of sim.start. The page offers a small cluster (3–6 brokers, 6–60 partitions); the
// protocol accepts more so that tests and benchmarks can drive large frames through the same
// path. Broker slots travel as one byte in the frame's binary arrays, hence MaxBrokers.
const (
	MaxBrokers    = 64
	MaxPartitions = 100_000
	// MaxAdvanceMs bounds one sim.advance (one day of cluster time): a longer request is
	// almost certainly a page bug, and one reply must not keep the worker busy for minutes.
	MaxAdvanceMs = 86_400_000
)

// Defaults of sim.start, for fields the page leaves out.
const (
	DefaultBrokers           = 4
	DefaultPartitions        = 12
	DefaultReplicationFactor = 3
	DefaultTopic             = "payments"
	DefaultSeed              = 1
)

// StartRequest is the body of sim.start: the cluster to build. Every field is optional.
type StartRequest struct {
	// Seed drives every random choice of the run: the same request gives the same run.
	Seed *uint64 `json:"seed,omitempty"`
	// Controllers is the number of controller voters: 1, 3 (default) or 5.
	Controllers int `json:"controllers,omitempty"`
	// Brokers is the number of brokers; their ids are 1..Brokers, so that a broker's id is
	// also its keyboard shortcut on the page.
	Brokers int `json:"brokers,omitempty"`
	// Topic, Partitions and ReplicationFactor describe the one topic, placed as Kafka's
	// default placer places it.
	Topic             string `json:"topic,omitempty"`
	Partitions        int    `json:"partitions,omitempty"`
	ReplicationFactor int    `json:"replicationFactor,omitempty"`
	// Configs are the controllers' and brokers' static configs (their server.properties),
	// validated as the engine validates them; dynamic ones can change later with set_config.
	Configs map[string]any `json:"configs,omitempty"`
}

// StartBody is the reply to sim.start.
type StartBody struct {
	TimeMs      int64   `json:"timeMs"`
	Seed        uint64  `json:"seed"`
	Controllers []int32 `json:"controllers"`
	Brokers     []int32 `json:"brokers"`
	Topic       string  `json:"topic"`
	Partitions  int     `json:"partitions"`
}

// AdvanceRequest is the body of sim.advance.
type AdvanceRequest struct {
	// Ms is how much cluster time to let pass, 0 to MaxAdvanceMs.
	Ms int64 `json:"ms"`
	// Layout is the partition layout version the page holds (0: none); the frame carries
	// the layout again only when it differs.
	Layout int `json:"layout,omitempty"`
}

// FrameRequest is the body of sim.frame.
type FrameRequest struct {
	Layout int `json:"layout,omitempty"`
}

// Acts the page can ask for with sim.act; a subset of cluster.Ops.
var acts = []string{cluster.OpKill, cluster.OpStart, cluster.OpShutdown, cluster.OpDiskSwap,
	cluster.OpKillController, cluster.OpStartController, cluster.OpSetConfig}

// ActRequest is the body of sim.act: one fault or action at the current cluster time.
type ActRequest struct {
	// Op is kill, start, shutdown or disk_swap (with Broker); kill_controller or
	// start_controller (with Controller: an id or "active"); set_config (with Name, Value and
	// optionally Topic).
	Op     string `json:"op"`
	Broker *int32 `json:"broker,omitempty"`
	// Controller is a controller id as text ("3000") or "active".
	Controller string `json:"controller,omitempty"`
	Name       string `json:"name,omitempty"`
	// Value is the config's new value; null deletes the override (back to the static value
	// or the default).
	Value any    `json:"value,omitempty"`
	Topic string `json:"topic,omitempty"`
}

// ActBody is the reply to sim.act.
type ActBody struct {
	// TimeMs is the cluster time the action was applied at.
	TimeMs int64 `json:"timeMs"`
	// LastHeartbeatMs is, for kill and shutdown, when the active controller last heard from
	// the broker (-1 when unknown): the broker is fenced broker.session.timeout.ms after it.
	LastHeartbeatMs *int64 `json:"lastHeartbeatMs,omitempty"`
}

// Session is the running simulation behind the sim.* messages. There is at most one per
// worker; sim.start replaces it. Like the Bridge, it is fed one message at a time.
type Session struct {
	c    *cluster.Cluster
	info StartBody
	// static are the configs the cluster started with; broker.session.timeout.ms among them
	// words the fencing sentences.
	static config.Values
	// t0 is the quorum's clock reading at cluster time 0: the engine's methods take its time.
	t0  int64
	log *eventLog
	enc frameEncoder
}

func (s *Session) start(body json.RawMessage) (any, error) {
	var req StartRequest
	if err := Decode(body, &req); err != nil {
		return nil, err
	}
	spec, info, err := buildSpec(req)
	if err != nil {
		return nil, err
	}
	c, err := cluster.New(spec)
	if err != nil {
		return nil, err
	}
	info.Controllers = c.Controllers().Voters()
	ns := &Session{c: c, info: info, static: spec.Static}
	ns.t0 = clockOffset(c)
	ns.log = newEventLog(ns)
	ns.log.add(LogEvent{TimeMs: 0, Kind: KindAction, Text: startSentence(info, spec)})
	*s = *ns
	return info, nil
}

// startSentence is the event log's first line: what was built, so that a reader (or a bug
// report) can tell the run apart from another.
func startSentence(info StartBody, spec cluster.Spec) string {
	ids := make([]string, len(info.Brokers))
	for i, id := range info.Brokers {
		ids[i] = strconv.Itoa(int(id))
	}
	text := fmt.Sprintf("cluster started with seed %d: %d controllers, brokers %s, topic %s with %d partitions at replication factor %d",
		info.Seed, len(info.Controllers), joinList(ids), info.Topic, info.Partitions, spec.Topics[0].ReplicationFactor)
	if names := spec.Static.Names(); len(names) > 0 {
		parts := make([]string, len(names))
		for i, n := range names {
			v, _ := spec.Static.Get(n)
			parts[i] = n + "=" + valueText(v)
		}
		text += "; static configs " + strings.Join(parts, ", ")
	}
	return text
}

// buildSpec turns a start request into a cluster spec, naming the field of the first problem.
func buildSpec(req StartRequest) (cluster.Spec, StartBody, error) {
	spec := cluster.DefaultSpec()
	info := StartBody{Seed: DefaultSeed, Topic: DefaultTopic}
	if req.Seed != nil {
		info.Seed = *req.Seed
	}
	spec.Seed = info.Seed
	if req.Controllers != 0 {
		spec.Controllers = req.Controllers
	}
	if spec.Controllers != 1 && spec.Controllers != 3 && spec.Controllers != 5 {
		return spec, info, fmt.Errorf("controllers: %d is not allowed; a KRaft quorum here has 1, 3 or 5 voters", spec.Controllers)
	}
	brokers := orDefault(req.Brokers, DefaultBrokers)
	if brokers < 1 || brokers > MaxBrokers {
		return spec, info, fmt.Errorf("brokers: %d is not allowed; allowed: 1 to %d", brokers, MaxBrokers)
	}
	for id := int32(1); id <= int32(brokers); id++ {
		spec.Brokers = append(spec.Brokers, id)
	}
	partitions := orDefault(req.Partitions, DefaultPartitions)
	if partitions < 1 || partitions > MaxPartitions {
		return spec, info, fmt.Errorf("partitions: %d is not allowed; allowed: 1 to %s", partitions, thousands(MaxPartitions))
	}
	rf := orDefault(req.ReplicationFactor, DefaultReplicationFactor)
	if maxRF := min(brokers, 8); rf < 1 || rf > maxRF {
		return spec, info, fmt.Errorf("replicationFactor: %d is not allowed; allowed: 1 to %d (at most one replica per broker, and at most 8)", rf, maxRF)
	}
	if req.Topic != "" {
		info.Topic = req.Topic
	}
	if err := controller.ValidateTopicName(info.Topic); err != nil {
		return spec, info, fmt.Errorf("topic: %w", err)
	}
	spec.Topics = []cluster.TopicSpec{{Name: info.Topic, PartitionCount: partitions, ReplicationFactor: rf}}
	names := make([]string, 0, len(req.Configs))
	for n := range req.Configs {
		names = append(names, n)
	}
	sort.Strings(names) // the first error reported must not depend on map order
	for _, n := range names {
		if err := spec.Static.Set(n, req.Configs[n], config.Cluster); err != nil {
			return spec, info, fmt.Errorf("configs[%q]: %w", n, err)
		}
	}
	info.Brokers = slices.Clone(spec.Brokers)
	info.Partitions = partitions
	return spec, info, nil
}

func orDefault(v, d int) int {
	if v == 0 {
		return d
	}
	return v
}

// clockOffset finds the quorum clock reading at cluster time 0. The cluster reports records in
// cluster time and the quorum in its own clock, so any committed entry gives the difference.
func clockOffset(c *cluster.Cluster) int64 {
	recs := c.Records()
	ces := c.Controllers().Committed()
	if len(recs) == 0 || len(ces) != len(recs) {
		return 0
	}
	last := len(recs) - 1
	return ces[last].CommitMs - recs[last].TimeMs
}

// errNoSim is the answer to sim.* messages before sim.start.
var errNoSim = errors.New("no simulation is running: send sim.start first")

func (s *Session) advance(body json.RawMessage) (any, error) {
	var req AdvanceRequest
	if err := Decode(body, &req); err != nil {
		return nil, err
	}
	if s.c == nil {
		return nil, errNoSim
	}
	if req.Ms < 0 || req.Ms > MaxAdvanceMs {
		return nil, BadRequest("ms: %d is not allowed; allowed: 0 to %s", req.Ms, thousands(MaxAdvanceMs))
	}
	// A run that hit an invariant violation stays stopped at it; the frame says why.
	if s.c.Err() == nil {
		_ = s.c.RunUntil(s.c.Now() + req.Ms)
	}
	return s.buildFrame(req.Layout), nil
}

func (s *Session) frame(body json.RawMessage) (any, error) {
	var req FrameRequest
	if err := Decode(body, &req); err != nil {
		return nil, err
	}
	if s.c == nil {
		return nil, errNoSim
	}
	return s.buildFrame(req.Layout), nil
}

func (s *Session) buildFrame(layout int) Attached {
	f, data := s.enc.encode(s, layout)
	f.Events, f.EventsDropped = s.log.take()
	return Attached{Body: f, Data: data}
}

func (s *Session) act(body json.RawMessage) (any, error) {
	var req ActRequest
	if err := Decode(body, &req); err != nil {
		return nil, err
	}
	if s.c == nil {
		return nil, errNoSim
	}
	if !slices.Contains(acts, req.Op) {
		return nil, fmt.Errorf("op: %q is not an action the playground offers; allowed: %s", req.Op, joinList(acts))
	}
	ev := cluster.Event{Op: req.Op, Controller: req.Controller, Name: req.Name, Value: req.Value, Topic: req.Topic}
	switch req.Op {
	case cluster.OpKill, cluster.OpStart, cluster.OpShutdown, cluster.OpDiskSwap:
		if req.Broker == nil {
			return nil, fmt.Errorf("broker: required for %s", req.Op)
		}
		ev.Broker = *req.Broker
	case cluster.OpKillController, cluster.OpStartController:
		if req.Controller == "" {
			return nil, fmt.Errorf("controller: required for %s (a controller id or \"active\")", req.Op)
		}
	case cluster.OpSetConfig:
		if req.Name == "" {
			return nil, errors.New("name: required for set_config")
		}
		// Numbers arrive as json.Number; the config parser reads them exactly.
	}
	if err := s.c.Validate(ev); err != nil {
		return nil, err
	}
	out := ActBody{TimeMs: s.c.Now()}
	var activeBefore int32 = -1
	if node, _, ok := s.c.Controllers().Active(); ok {
		activeBefore = node
	}
	if req.Op == cluster.OpKill || req.Op == cluster.OpShutdown {
		hb := s.lastHeartbeat(ev.Broker)
		out.LastHeartbeatMs = &hb
	}
	if err := s.c.Do(ev); err != nil {
		return nil, err
	}
	s.log.action(req, ev, out, activeBefore)
	return out, nil
}

// lastHeartbeat finds when the active controller last heard from a broker, in cluster time,
// or -1. The engine exposes only whether a session is alive at a given time, so the moment
// it would expire is found by bisection: the session dies at lastContact + timeout + 1.
// Asking is read-only, and costs about 30 calls.
func (s *Session) lastHeartbeat(broker int32) int64 {
	e := s.c.Controllers().ActiveController()
	if e == nil {
		return -1
	}
	now := s.t0 + s.c.Now()
	if !e.SessionAlive(broker, now) {
		return -1
	}
	timeout := s.sessionTimeoutMs()
	lo, hi := now, now+timeout+1 // alive at lo, dead at hi (the last contact is at or before now)
	for hi-lo > 1 {
		mid := lo + (hi-lo)/2
		if e.SessionAlive(broker, mid) {
			lo = mid
		} else {
			hi = mid
		}
	}
	return hi - timeout - 1 - s.t0
}

func (s *Session) sessionTimeoutMs() int64 {
	return config.Int64(config.BrokerSessionTimeoutMs, &s.static)
}
