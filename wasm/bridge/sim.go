package bridge

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

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
	// Seed drives every random choice of the run: the same request gives the same run. A
	// number, or its decimal text for a seed beyond JavaScript's exact integers (2^53).
	Seed *json.Number `json:"seed,omitempty" ts:"number | string"`
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
	Configs map[string]any `json:"configs,omitempty" ts:"Record<string, ConfigValue>"`
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
	// BudgetMs, when above 0, is the wall time in ms the step may spend running the cluster
	// (0 to MaxBudgetMs): the step stops short of Ms when it is spent, and the frame's timeMs
	// says how far it got. It keeps one step inside an animation frame however much happens
	// in the cluster time asked for. Where a step stops changes no result: the cluster runs
	// the same events whichever times it is run to.
	BudgetMs int64 `json:"budgetMs,omitempty"`
}

// MaxBudgetMs bounds sim.advance's budgetMs: a step is one animation frame's work.
const MaxBudgetMs = 1000

// FrameRequest is the body of sim.frame.
type FrameRequest struct {
	Layout int `json:"layout,omitempty"`
}

// Acts the page can ask for with sim.act; a subset of cluster.Ops (snapshot, describe and
// rolling_restart come only from an imported scenario).
var acts = []string{cluster.OpKill, cluster.OpStart, cluster.OpShutdown, cluster.OpDiskSwap, cluster.OpSlowDisk,
	cluster.OpKillController, cluster.OpStartController, cluster.OpCut, cluster.OpHeal, cluster.OpSetConfig,
	cluster.OpCreateTopic, cluster.OpDeleteTopic, cluster.OpElectLeaders, cluster.OpSnapshot}

// Acts returns the ops sim.act accepts.
func Acts() []string { return slices.Clone(acts) }

// ActRequest is the body of sim.act: one fault or action at the current cluster time.
type ActRequest struct {
	// Op is kill, start, shutdown or disk_swap (with Broker); slow_disk (with Broker and
	// Factor); kill_controller or start_controller (with Controller: an id or "active"); cut
	// or heal (with A and B); set_config (with Name, Value and optionally Topic);
	// create_topic (Topic, Partitions, ReplicationFactor); delete_topic (Topic);
	// elect_leaders (Election, optionally Partitions); snapshot (optionally Controller, the
	// active one when absent).
	Op     string `json:"op" ts:"ActOp"`
	Broker *int32 `json:"broker,omitempty"`
	// Controller is a controller id as text ("3000") or "active".
	Controller string `json:"controller,omitempty"`
	Name       string `json:"name,omitempty"`
	// Value is the config's new value; null deletes the override (back to the static value
	// or the default).
	Value any    `json:"value,omitempty" ts:"ConfigValue"`
	Topic string `json:"topic,omitempty"`
	// Factor is slow_disk's share of the disk's capacity left, in (0, 1]; 1 restores it.
	Factor *float64 `json:"factor,omitempty"`
	// A and B are cut's and heal's nodes: "broker-1", "controller-3000" or "producers".
	A string `json:"a,omitempty"`
	B string `json:"b,omitempty"`
	// Partitions and ReplicationFactor size create_topic's topic.
	Partitions        int `json:"partitions,omitempty"`
	ReplicationFactor int `json:"replicationFactor,omitempty"`
	// Election is elect_leaders' type: "preferred" (the default) or "unclean".
	Election string `json:"election,omitempty" ts:"ElectionType"`
	// Targets are elect_leaders' partitions; none means every partition, as
	// kafka-leader-election.sh --all-topic-partitions asks.
	Targets []TopicPartition `json:"targets,omitempty"`
}

// TopicPartition names one partition in elect_leaders.
type TopicPartition struct {
	Topic     string `json:"topic"`
	Partition int32  `json:"partition"`
}

// ActBody is the reply to sim.act.
type ActBody struct {
	// TimeMs is the cluster time the action was applied at.
	TimeMs int64 `json:"timeMs"`
	// LastHeartbeatMs is, for kill and shutdown, when the active controller last heard from
	// the broker, absent when unknown (no active controller, or no live session); negative
	// when it was before the run's time zero, as a broker's registration at start-up is. The
	// broker is fenced broker.session.timeout.ms after it.
	LastHeartbeatMs *int64 `json:"lastHeartbeatMs,omitempty"`
	// Truncated counts the recorded actions after this time that the action replaced: an
	// action taken after scrubbing back rewrites the future, like typing after an undo.
	Truncated int `json:"truncated,omitempty"`
	// Elections are elect_leaders' per-partition answers, as kafka-leader-election.sh prints
	// them; partitions that needed no election are left out when all were asked for.
	Elections []ElectionResult `json:"elections,omitempty"`
}

// ElectionResult is one partition's answer to elect_leaders: Error is empty on success, else
// Kafka's error code name and message.
type ElectionResult struct {
	Topic     string `json:"topic"`
	Partition int32  `json:"partition"`
	Error     string `json:"error,omitempty"`
	Message   string `json:"message,omitempty"`
}

// Session is the running simulation behind the sim.* messages. There is at most one per
// worker; sim.start and sim.load replace it. Like the Bridge, it is fed one message at a time.
//
// The run is kept as a scenario (the cluster to build and the actions with their cluster
// times, see history.go), because the simulation is deterministic: any earlier moment is
// rebuilt by replaying it, which is how scrubbing back, share links and export work.
type Session struct {
	// live is the cluster being shown; seeking back swaps in another one.
	*live
	info StartBody
	enc  frameEncoder

	// spec is the cluster every rebuild starts from, as scenario.ParseCluster read it from base.
	spec cluster.Spec
	// base is the run's scenario document without events and duration_ms, with its fields
	// as they will be exported (docs/scenario.md, cluster mode).
	base map[string]json.RawMessage
	// hist is the run's actions in time order; the first live.applied of them are applied.
	hist []action
	// horizon is the latest cluster time this history has reached (or an imported scenario's
	// duration): the end of the timeline.
	horizon int64
	// version counts changes to hist, so that the page knows when to fetch it again.
	version int
	// spares are other built clusters of this history, kept as checkpoints (history.go).
	spares []*live
	// traffic collects the shown cluster's happenings for the next frame (live.traffic is it
	// for the shown cluster, nil for the others and while a cluster replays).
	traffic *trafficLog
	// pace splits a budgeted sim.advance into slices (pace.go).
	pace pacer
	// watch, when set, is called every lessons.UntilPollMs of cluster time that runTo lets
	// pass, until it returns false: a lesson's timed prediction looks for the moment its
	// predicate first holds, as an until action would (lesson.go). A new run clears it.
	watch func() bool
}

// live is one built cluster of the run and what reads it: its clock offset and event log.
type live struct {
	c *cluster.Cluster
	// t0 is the quorum's clock reading at cluster time 0: the engine's methods take its time.
	t0  int64
	log *eventLog
	// static are the configs the cluster started with; broker.session.timeout.ms among them
	// words the fencing sentences.
	static config.Values
	// applied counts the history's actions already applied to c.
	applied int
	// limitSaid: the log said that c reached the end of cluster time (maxClusterMs).
	limitSaid bool
	// traffic, when the cluster is the one shown, collects its traffic for the frames.
	traffic *trafficLog
}

// observe takes the cluster's one stream of happenings: the event log reads its sentences
// from it, and the traffic of the cluster shown is drawn from it (Session.showTraffic).
func (lv *live) observe(h *cluster.Happening) {
	lv.log.observe(h)
	if lv.traffic != nil {
		lv.traffic.observe(h)
	}
}

// showTraffic makes the shown cluster's traffic the frames', from now on: what it did while
// it replayed is not news.
func (s *Session) showTraffic() {
	s.live.traffic = s.traffic
	s.traffic.clear(s.c.Now())
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
	// The cluster is built from the scenario document the run exports, read by the CLI's own
	// parser, so that `kraftlab run` on an export builds exactly this cluster.
	base := startDoc(spec)
	cs, err := parseDoc(base, nil, 1)
	if err != nil {
		return nil, fmt.Errorf("internal: the start request's scenario does not parse: %w", err)
	}
	if err := s.replace(cs.Spec, info, base, nil, 0); err != nil {
		return nil, err
	}
	return s.info, nil
}

// replace builds a new run and makes it the session's, keeping the old one if it fails.
func (s *Session) replace(spec cluster.Spec, info StartBody, base map[string]json.RawMessage, hist []action, horizon int64) error {
	ns := &Session{info: info, spec: spec, base: base, hist: hist, horizon: horizon, version: s.version + 1}
	ns.enc.layout = s.enc.layout // a new cluster always gets a new layout version
	lv, err := ns.build()
	if err != nil {
		return err
	}
	ns.live = lv
	ns.traffic = newTrafficLog(lv.c.Now())
	lv.traffic = ns.traffic
	ns.info.Controllers = lv.c.Controllers().Voters()
	*s = *ns
	// Building a cluster leaves garbage about half the size of what it keeps (at 100,000
	// partitions 150 MB in use for 92 MB live), and the old run is garbage now too. Collected
	// here, the collector's next goal follows the new run's live heap; left to the pacer, it
	// follows a collection from the middle of the build, and the heap grows to that goal
	// first. In the page the heap's high-water mark is the worker's memory: a wasm's linear
	// memory never shrinks. Under Node at 100,000 partitions, 60 s of play at 10x: 164 MB
	// of heap instead of 222.
	runtime.GC()
	return nil
}

// build makes a fresh cluster of the run at cluster time 0, with no action applied.
func (s *Session) build() (*live, error) {
	spec := s.spec
	spec.KeepSamples = keptSamples
	c, err := cluster.New(spec)
	if err != nil {
		return nil, err
	}
	lv := &live{c: c, static: s.spec.Static, t0: clockOffset(c)}
	lv.log = newEventLog(lv)
	c.Observe(lv.observe)
	lv.log.add(LogEvent{TimeMs: 0, Kind: KindAction, Text: startSentence(s.info, s.spec)})
	return lv, nil
}

// keptSamples is how many of the latest samples (one per 10 s of cluster time) a cluster of
// the page keeps: a frame shows the latest only, and the page's charts keep their own history.
const keptSamples = 360

// startSentence is the event log's first line: what was built, so that a reader (or a bug
// report) can tell the run apart from another.
func startSentence(info StartBody, spec cluster.Spec) string {
	ids := make([]string, len(info.Brokers))
	for i, id := range info.Brokers {
		ids[i] = strconv.Itoa(int(id))
	}
	controllers := spec.Controllers
	if controllers == 0 {
		controllers = 3
	}
	var topics []string
	for _, t := range spec.Topics {
		count, rf := t.PartitionCount, t.ReplicationFactor
		if t.Replicas != nil {
			count, rf = len(t.Replicas), 0
			for _, r := range t.Replicas {
				rf = max(rf, len(r))
			}
		}
		topics = append(topics, fmt.Sprintf("%s with %d partitions at replication factor %d", t.Name, count, rf))
	}
	what := "topic "
	if len(topics) > 1 {
		what = "topics "
	}
	text := fmt.Sprintf("cluster started with seed %d: %d controllers, brokers %s, %s%s",
		info.Seed, controllers, joinList(ids), what, joinList(topics))
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
		seed, err := strconv.ParseUint(req.Seed.String(), 10, 64)
		if err != nil {
			return spec, info, fmt.Errorf("seed: %q is not allowed; allowed: a whole number from 0 to %d (the scenario format's range)", req.Seed.String(), int64(math.MaxInt64))
		}
		info.Seed = seed
	}
	if info.Seed > math.MaxInt64 {
		// The scenario format's range: a run the page cannot export would not replay.
		return spec, info, fmt.Errorf("seed: %d is not allowed; allowed: 0 to %d (the scenario format's range)", info.Seed, int64(math.MaxInt64))
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

// decodeLive decodes a sim.* request body into req and checks that a cluster runs: what every
// message about the running cluster needs first.
func (s *Session) decodeLive(body json.RawMessage, req any) error {
	if err := Decode(body, req); err != nil {
		return err
	}
	if s.live == nil {
		return errNoSim
	}
	return nil
}

func (s *Session) advance(body json.RawMessage) (any, error) {
	var req AdvanceRequest
	if err := s.decodeLive(body, &req); err != nil {
		return nil, err
	}
	if req.Ms < 0 || req.Ms > MaxAdvanceMs {
		return nil, BadRequest("ms: %d is not allowed; allowed: 0 to %s", req.Ms, thousands(MaxAdvanceMs))
	}
	if req.BudgetMs < 0 || req.BudgetMs > MaxBudgetMs {
		return nil, BadRequest("budgetMs: %d is not allowed; allowed: 0 (no limit) to %s", req.BudgetMs, thousands(MaxBudgetMs))
	}
	// Cluster time ends at the page's limit (7 days), said once in the log; playing on from
	// there leaves the time where it is.
	to := min(s.c.Now()+req.Ms, maxClusterMs)
	if req.BudgetMs == 0 {
		s.runTo(to)
	} else {
		s.runWithin(to, time.Duration(req.BudgetMs)*time.Millisecond)
	}
	if s.c.Now() >= maxClusterMs && !s.limitSaid {
		s.limitSaid = true
		s.log.add(LogEvent{TimeMs: s.c.Now(), Kind: KindNotice, Text: fmt.Sprintf(
			"the run reached %s ms (7 days) of cluster time, the page's limit: it stops here (Back to 0 or the timeline go back; kraftlab run also ends at 7 days)",
			thousands(maxClusterMs))})
	}
	return s.buildFrame(req.Layout), nil
}

// maxClusterMs is where sim.advance stops: MaxSeekMs (tests lower it).
var maxClusterMs int64 = MaxSeekMs

func (s *Session) frame(body json.RawMessage) (any, error) {
	var req FrameRequest
	if err := s.decodeLive(body, &req); err != nil {
		return nil, err
	}
	return s.buildFrame(req.Layout), nil
}

func (s *Session) buildFrame(layout int) Attached {
	f, data := s.enc.encode(s, layout)
	f.Events, f.EventsDropped = s.log.take()
	f.Traffic = s.traffic.take(f.TimeMs)
	f.Traffic.flows(s.c, s.info.Brokers)
	f.HorizonMs = max(s.horizon, f.TimeMs)
	f.History = s.version
	s.faults(f)
	return Attached{Body: f, Data: data}
}

// faults adds the slowed disks and cut links to a frame. The cluster does not report them,
// but the history holds every slow_disk, cut and heal applied so far.
func (s *Session) faults(f *Frame) {
	slow := map[int32]float64{}
	var cuts [][2]string
	for _, a := range s.hist[:s.applied] {
		switch a.Ev.Op {
		case cluster.OpSlowDisk:
			slow[a.Ev.Broker] = a.Ev.Factor
		case cluster.OpCut, cluster.OpHeal:
			pair := [2]string{min(a.Ev.A, a.Ev.B), max(a.Ev.A, a.Ev.B)}
			cuts = slices.DeleteFunc(cuts, func(c [2]string) bool { return c == pair })
			if a.Ev.Op == cluster.OpCut {
				cuts = append(cuts, pair)
			}
		}
	}
	for i := range f.Brokers {
		if x, ok := slow[f.Brokers[i].ID]; ok && x < 1 {
			f.Brokers[i].DiskFactor = x
		}
	}
	f.Cuts = cuts
}

func (s *Session) act(body json.RawMessage) (any, error) {
	var req ActRequest
	if err := s.decodeLive(body, &req); err != nil {
		return nil, err
	}
	ev, err := s.event(req)
	if err != nil {
		return nil, err
	}
	if err := s.c.Validate(ev); err != nil {
		return nil, err
	}
	if s.c.Err() != nil {
		return nil, fmt.Errorf("the run stopped at an invariant violation; scrub back or restart the cluster: %w", s.c.Err())
	}
	if len(s.hist) >= MaxActions {
		return nil, fmt.Errorf("op: a run holds at most %s actions; export it or restart the cluster", thousands(MaxActions))
	}
	a := action{AtMs: s.c.Now(), Ev: ev, Raw: eventJSON(s.c.Now(), ev)}
	out, err := s.apply(a)
	if err != nil {
		return nil, err
	}
	// The action is kept only once the cluster took it: a refused one is not part of the run.
	out.Truncated = s.record(a)
	return out, nil
}

// event turns an act request into the cluster's event, naming the field of a problem.
func (s *Session) event(req ActRequest) (cluster.Event, error) {
	if !slices.Contains(acts, req.Op) {
		return cluster.Event{}, fmt.Errorf("op: %q is not an action the playground offers; allowed: %s", req.Op, joinList(acts))
	}
	ev := cluster.Event{Op: req.Op, Controller: req.Controller, Name: req.Name, Value: req.Value, Topic: req.Topic, A: req.A, B: req.B}
	switch req.Op {
	case cluster.OpKill, cluster.OpStart, cluster.OpShutdown, cluster.OpDiskSwap, cluster.OpSlowDisk:
		if req.Broker == nil {
			return ev, fmt.Errorf("broker: required for %s", req.Op)
		}
		ev.Broker = *req.Broker
		if req.Op == cluster.OpSlowDisk {
			if req.Factor == nil {
				return ev, errors.New("factor: required for slow_disk (the share of the disk's capacity left, in (0, 1]; 1 is full speed)")
			}
			ev.Factor = *req.Factor
		}
	case cluster.OpKillController, cluster.OpStartController:
		if req.Controller == "" {
			return ev, fmt.Errorf("controller: required for %s (a controller id or \"active\")", req.Op)
		}
	case cluster.OpCut, cluster.OpHeal:
		if req.A == "" || req.B == "" {
			return ev, fmt.Errorf("a: %s needs two nodes, a and b (broker-1, controller-3000 or producers)", req.Op)
		}
	case cluster.OpSetConfig:
		if req.Name == "" {
			return ev, errors.New("name: required for set_config")
		}
		// Numbers arrive as json.Number; the config parser reads them exactly.
	case cluster.OpCreateTopic:
		return s.createTopic(req, ev)
	case cluster.OpDeleteTopic:
		if req.Topic == "" {
			return ev, errors.New("topic: required for delete_topic")
		}
		ev.Name, ev.Topic = req.Topic, ""
		if _, ok := s.c.View().TopicByName(req.Topic); !ok {
			return ev, fmt.Errorf("topic: no topic %q (topics: %s)", req.Topic, s.topicNames())
		}
	case cluster.OpElectLeaders:
		switch req.Election {
		case "", "preferred":
			ev.Election = controller.ElectionPreferred
		case "unclean":
			ev.Election = controller.ElectionUnclean
		default:
			return ev, fmt.Errorf("election: %q is not allowed; allowed: preferred, unclean", req.Election)
		}
		for _, tp := range req.Targets {
			ev.Partitions = append(ev.Partitions, controller.TopicPartition{Topic: tp.Topic, Partition: tp.Partition})
		}
	}
	return ev, nil
}

// createTopic checks create_topic's fields against the frame's limits (the page draws at
// most MaxPartitions partitions, and an ISR fits in 8 replica positions).
func (s *Session) createTopic(req ActRequest, ev cluster.Event) (cluster.Event, error) {
	if err := controller.ValidateTopicName(req.Topic); err != nil {
		return ev, fmt.Errorf("topic: %w", err)
	}
	if _, ok := s.c.View().TopicByName(req.Topic); ok {
		return ev, fmt.Errorf("topic: topic %q already exists", req.Topic)
	}
	room := MaxPartitions - len(s.c.View().Partitions)
	if req.Partitions < 1 || req.Partitions > room {
		return ev, fmt.Errorf("partitions: %d is not allowed; allowed: 1 to %s (the page shows at most %s partitions in all)",
			req.Partitions, thousands(int64(max(room, 1))), thousands(MaxPartitions))
	}
	rf := req.ReplicationFactor
	if maxRF := min(len(s.info.Brokers), 8); rf < 1 || rf > maxRF {
		return ev, fmt.Errorf("replicationFactor: %d is not allowed; allowed: 1 to %d (at most one replica per broker, and at most 8)", rf, maxRF)
	}
	ev.Topic = ""
	ev.TopicSpec = cluster.TopicSpec{Name: req.Topic, PartitionCount: req.Partitions, ReplicationFactor: rf}
	return ev, nil
}

// topicNames lists the live topics for an error message.
func (s *Session) topicNames() string {
	var names []string
	view := s.c.View()
	for i := range view.Topics {
		if !view.Topics[i].Deleted {
			names = append(names, view.Topics[i].Name)
		}
	}
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}

// apply runs one action at the current cluster time, the same way live and in a replay, and
// writes its sentence to the event log.
func (s *Session) apply(a action) (ActBody, error) {
	ev := a.Ev
	out := ActBody{TimeMs: s.c.Now()}
	var activeBefore int32 = -1
	if node, _, ok := s.c.Controllers().Active(); ok {
		activeBefore = node
	}
	if ev.Op == cluster.OpKill || ev.Op == cluster.OpShutdown {
		if hb, ok := s.lastHeartbeat(ev.Broker); ok {
			out.LastHeartbeatMs = &hb
		}
	}
	if ev.Op == cluster.OpElectLeaders {
		// Do drops the per-partition answers; ask the controllers directly, after the same
		// check Do makes, so that the event log can show them.
		if err := s.c.Validate(ev); err != nil {
			return out, err
		}
		if err := s.c.Err(); err != nil {
			return out, err
		}
		res, err := s.c.Controllers().Admin().ElectLeaders(ev.Election, ev.Partitions)
		if err != nil {
			return out, err
		}
		for _, r := range res {
			er := ElectionResult{Topic: r.Topic, Partition: r.Partition}
			if r.Error != nil {
				er.Error, er.Message = string(r.Error.Code), r.Error.Message
			}
			out.Elections = append(out.Elections, er)
		}
	} else if err := s.c.Do(ev); err != nil {
		return out, err
	}
	s.log.action(ActRequest{Op: ev.Op, Controller: ev.Controller}, ev, out, activeBefore)
	return out, nil
}

// lastHeartbeat finds when the active controller last heard from a broker, in cluster time,
// and whether it knows (false with no active controller or no live session). The engine exposes only whether a session is alive at a given time, so the moment
// it would expire is found by bisection: the session dies at lastContact + timeout + 1.
// Asking is read-only, and costs about 30 calls.
func (s *live) lastHeartbeat(broker int32) (int64, bool) {
	e := s.c.Controllers().ActiveController()
	if e == nil {
		return 0, false
	}
	now := s.t0 + s.c.Now()
	if !e.SessionAlive(broker, now) {
		return 0, false
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
	return hi - timeout - 1 - s.t0, true
}

func (s *live) sessionTimeoutMs() int64 {
	return config.Int64(config.BrokerSessionTimeoutMs, &s.static)
}
