package scenario

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/kraftlab/kraftlab/cluster"
	"github.com/kraftlab/kraftlab/cluster/control"
	"github.com/kraftlab/kraftlab/engine/config"
	"github.com/kraftlab/kraftlab/engine/controller"
)

// Fields of the cluster mode's objects, in the order the docs list them.
var (
	clusterTopFields = []string{"mode", "seed", "description", "duration_ms", "sample_ms", "features", "config", "cluster", "events", "output"}
	clusterFields    = []string{"controllers", "brokers", "topics", "broker", "workload"}
	eventFields      = []string{"at_ms", "op", "note"}
	outputFields     = []string{"records"}
	// clusterOpFields lists each event op's fields (a table, not a map: see opFields).
	clusterOpFields = opTable{
		{cluster.OpKill, []string{"broker"}},
		{cluster.OpStart, []string{"broker"}},
		{cluster.OpShutdown, []string{"broker"}},
		{cluster.OpDiskSwap, []string{"broker"}},
		{cluster.OpSlowDisk, []string{"broker", "factor"}},
		{cluster.OpKillController, []string{"controller"}},
		{cluster.OpStartController, []string{"controller"}},
		{cluster.OpCut, []string{"a", "b"}},
		{cluster.OpHeal, []string{"a", "b"}},
		{cluster.OpSetConfig, []string{"name", "value", "topic"}},
		{cluster.OpCreateTopic, topicFields},
		{cluster.OpDeleteTopic, []string{"name"}},
		{cluster.OpElectLeaders, []string{"type", "partitions"}},
		{cluster.OpSnapshot, []string{"controller"}},
		{cluster.OpDescribe, []string{}},
		{cluster.OpRollingRestart, []string{"brokers", "interval_ms", "disk_swap"}},
	}
)

// Node names of the cluster mode's events.
const (
	// ActiveController names the active controller in kill_controller and snapshot.
	ActiveController = "active"
	// Producers is the node name of the producers in cut and heal.
	Producers = "producers"
)

// ClusterOps returns the cluster mode's event operations, sorted.
func ClusterOps() []string {
	return clusterOpFields.ops()
}

// clusterScenario reads a cluster-mode scenario. explicitMode says whether the file named its
// mode: a file without one that looks like a controller-mode file gets a hint.
func (p *parser) clusterScenario(root *node, s *Scenario, explicitMode bool) {
	hint := ""
	if !explicitMode && (root.get("steps") != nil || root.get("brokers") != nil || root.get("topics") != nil) {
		// Controller-mode files written before the cluster mode became the default.
		hint = `; a file without "mode" is a cluster-mode scenario: a controller-mode file needs "mode": "controller"`
	}
	if !p.object(root, "", clusterTopFields, hint) {
		return
	}
	p.common(root, s)
	cs := &ClusterScenario{Spec: cluster.DefaultSpec(), Output: Output{Records: true}}
	s.Cluster = cs
	spec := &cs.Spec
	spec.Seed = s.Seed
	for _, f := range s.Features {
		if f.Name == config.EligibleLeaderReplicasVersion {
			spec.ElrVersion = f.Level
		}
	}
	if n := p.required(root, "", "duration_ms", " (how long the cluster runs, in ms)"); n != nil {
		cs.DurationMs = p.integer(n, "duration_ms", 1, MaxTimeMs, fmt.Sprintf("an integer from 1 to %d (7 days)", MaxTimeMs))
	}
	if n := root.get("sample_ms"); n != nil {
		spec.SampleMs = p.integer(n, "sample_ms", 1, MaxTimeMs, fmt.Sprintf("an integer from 1 to %d", MaxTimeMs))
	}
	if c := p.required(root, "", "cluster", " (the controllers, brokers and topics)"); c != nil {
		p.clusterBlock(c, cs)
	}
	p.syncHeartbeat(root, s, cs)
	if n := root.get("events"); n != nil && p.array(n, "events") && p.listed(n, "events") && p.readEvents != nil {
		cs.Events = p.readEvents(p, n, cs)
	}
	if n := root.get("output"); n != nil && p.object(n, "output", outputFields, "") {
		if v := n.get("records"); v != nil {
			cs.Output.Records = p.boolean(v, "output.records")
		}
	}
	spec.Static = s.Config.Clone()
	cs.MemoryBytes = p.mem.bytes()
}

// clusterBlock reads "cluster": the controllers, the brokers (a count or ids), the topics and
// the broker and workload parameters.
func (p *parser) clusterBlock(c *node, cs *ClusterScenario) {
	if !p.object(c, "cluster", clusterFields, "") {
		return
	}
	spec := &cs.Spec
	if n := c.get("controllers"); n != nil {
		spec.Controllers = int(p.integer(n, "cluster.controllers", 1, 5, "1, 3 or 5 (a quorum of controller voters)"))
		if p.err == nil && spec.Controllers%2 == 0 {
			p.failf("cluster.controllers", "must be 1, 3 or 5 (a quorum of controller voters), got %d", spec.Controllers)
		}
	}
	p.controllers = spec.Controllers
	if n := p.required(c, "cluster", "brokers", " (a count, or a list of broker ids)"); n != nil {
		spec.Brokers = p.clusterBrokers(n, "cluster.brokers")
	}
	p.mem.brokers = int64(len(spec.Brokers))
	// A sample is taken every SampleMs (an upper bound, counting one more at each end): its
	// cost is known now.
	if spec.SampleMs > 0 {
		p.mem.samples = cs.DurationMs/spec.SampleMs + 2
	}
	p.checkMemory("sample_ms")
	// The producers write to the starting partitions: a cluster without any cannot run.
	if n := p.required(c, "cluster", "topics", " (the producers need at least one partition)"); n != nil && p.array(n, "cluster.topics") {
		if len(n.vals) == 0 {
			p.failf("cluster.topics", "must list at least one topic (the producers need at least one partition)")
		}
		names := map[string]bool{}
		var tops []Topic
		for i, t := range n.vals {
			path := indexPath("cluster.topics", i)
			rules := topicRules{replicasOnly: true, maxRF: len(spec.Brokers), existingReplicas: true, figures: true,
				hint: "; in cluster mode every replica starts in sync and the preferred replica leads"}
			if p.givenTopic != nil {
				rules.given = p.givenTopic(p, i, len(n.vals), t, path)
			}
			top := p.topic(t, path, rules)
			if p.err == nil && names[top.Name] {
				p.failf(fieldPath(path, "name"), "topic %q is listed twice", top.Name)
			}
			names[top.Name] = true
			spec.Topics = append(spec.Topics, topicSpec(&top))
			p.countTopic(&top)
			p.checkMemory(path)
			tops = append(tops, top)
		}
		p.figuresEverywhere(tops)
	}
	// given maps each parameter given to its path; acks, which both blocks take, only once.
	given := map[string]string{}
	if n := c.get("broker"); n != nil {
		p.params(n, "cluster.broker", brokerParams, spec, given)
	}
	if n := c.get("workload"); n != nil {
		if n.kind == kindObject && n.get("window_ms") != nil {
			p.failf("cluster.workload.window_ms", "not a setting here: the producers' latency window is the sample interval, sample_ms")
		}
		p.params(n, "cluster.workload", workloadParams, spec, given)
	}
	p.crossChecks(spec, given)
}

// clusterBrokers reads a count of brokers (ids 0 to n-1) or a list of distinct ids, and makes
// them the brokers events may name.
func (p *parser) clusterBrokers(n *node, path string) []int32 {
	var ids []int32
	switch n.kind {
	case kindNumber:
		count := p.integer(n, path, 1, MaxBrokers, fmt.Sprintf("a count from 1 to %d, or a list of broker ids", MaxBrokers))
		for i := range int32(count) {
			ids = append(ids, i)
		}
	case kindArray:
		ids = p.brokerList(n, path)
		switch {
		case p.err != nil:
		case len(ids) == 0:
			p.failf(path, "must name at least one broker")
		case len(ids) > MaxBrokers:
			p.failf(path, "lists %d brokers; this model allows at most %d", len(ids), MaxBrokers)
		}
		slices.Sort(ids)
	default:
		p.failf(path, "must be a count of brokers or a list of broker ids, got %s", n.describe())
	}
	controllers := controllerIDs(p.controllers)
	for i, id := range ids {
		if p.err == nil && slices.Contains(controllers, id) {
			p.failf(indexPath(path, i), "%d is a controller's id (controllers: %s); brokers and controllers share one id space", id, joinIDs(controllers, ", "))
		}
		p.brokers[id] = true
	}
	return ids
}

// countTopic adds a topic to the partition and replica counts of the memory estimate.
func (p *parser) countTopic(t *Topic) {
	p.mem.partitions += int64(t.PartitionCount)
	if t.Partitions == nil {
		p.mem.replicas += int64(t.PartitionCount) * int64(t.ReplicationFactor)
		return
	}
	for _, pt := range t.Partitions {
		p.mem.replicas += int64(len(pt.Replicas))
	}
}

// figuresEverywhere checks that a partition figure (size_bytes, produce_bytes_per_sec) given by
// one starting partition is given by all: the model cannot mix measured figures with its own.
func (p *parser) figuresEverywhere(tops []Topic) {
	for _, key := range partitionFigureFields {
		has := func(pt *Partition) bool {
			if key == "size_bytes" {
				return pt.HasSize
			}
			return pt.HasRate
		}
		first := ""
		for i := range tops {
			for j := range tops[i].Partitions {
				if first == "" && has(&tops[i].Partitions[j]) {
					first = indexPath(fieldPath(indexPath("cluster.topics", i), "partitions"), j)
				}
			}
		}
		if first == "" {
			continue
		}
		for i := range tops {
			path := indexPath("cluster.topics", i)
			if tops[i].Partitions == nil {
				p.failf(fieldPath(path, "partition_count"), "must list its partitions with their replicas and %s: %s gives %s, and then every starting partition must", key, first, key)
				return
			}
			for j := range tops[i].Partitions {
				if !has(&tops[i].Partitions[j]) {
					p.failf(fieldPath(indexPath(fieldPath(path, "partitions"), j), key), "required: %s gives %s, and then every starting partition must", first, key)
					return
				}
			}
		}
	}
}

// partitionFigure collects a figure of a topic's partitions: nil when none gives it, else
// one value per partition given or not, so that the cluster's check of every partition giving
// it names the topic.
func partitionFigure(parts []Partition, of func(*Partition) (float64, bool)) []float64 {
	var out []float64
	for i := range parts {
		if v, ok := of(&parts[i]); ok {
			if out == nil {
				out = make([]float64, 0, len(parts))
			}
			out = append(out, v)
		}
	}
	return out
}

// topicSpec converts a parsed topic into the cluster's form.
func topicSpec(t *Topic) cluster.TopicSpec {
	ts := cluster.TopicSpec{Name: t.Name, PartitionCount: t.PartitionCount, ReplicationFactor: t.ReplicationFactor}
	if t.Partitions != nil {
		ts.PartitionCount, ts.ReplicationFactor = 0, 0
		ts.Replicas = make([][]int32, len(t.Partitions))
		for i := range t.Partitions {
			ts.Replicas[i] = t.Partitions[i].Replicas
		}
		ts.SizeBytes = partitionFigure(t.Partitions, func(pt *Partition) (float64, bool) { return pt.SizeBytes, pt.HasSize })
		ts.ProduceBytesPerSec = partitionFigure(t.Partitions, func(pt *Partition) (float64, bool) { return pt.ProduceBytesPerSec, pt.HasRate })
	}
	for _, name := range t.Config.Names() {
		v, _ := t.Config.Get(name)
		ts.Configs = append(ts.Configs, controller.ConfigEntry{Name: name, Value: v})
	}
	return ts
}

// crossChecks applies the rules that relate two parameters, naming the one the file gave (the
// second if it gave both), then the Params' own Validate as a backstop (its message names the
// Go field, translated here).
func (p *parser) crossChecks(spec *cluster.Spec, given map[string]string) {
	if p.err != nil {
		return
	}
	// at returns the path of the second field if given, else of the first, else of the default.
	at := func(first, second, def string) string {
		for _, name := range []string{second, first} {
			if path, ok := given[name]; ok {
				return path
			}
		}
		return def
	}
	b, w := &spec.Broker, &spec.Workload
	switch {
	case b.ReplicaFetchResponseMaxBytes < b.ReplicaFetchMaxBytes:
		p.failf(at("replica_fetch_max_bytes", "replica_fetch_response_max_bytes", "cluster.broker"),
			"replica_fetch_response_max_bytes (%.0f) is below replica_fetch_max_bytes (%.0f): a fetch response must hold at least one partition's fetch",
			b.ReplicaFetchResponseMaxBytes, b.ReplicaFetchMaxBytes)
	case w.RetryBackoffMaxMs < w.RetryBackoffMs:
		p.failf(at("retry_backoff_ms", "retry_backoff_max_ms", "cluster.workload"),
			"retry_backoff_max_ms (%g) is below retry_backoff_ms (%g)", w.RetryBackoffMaxMs, w.RetryBackoffMs)
	case w.DeliveryTimeoutMs < w.RequestTimeoutMs:
		p.failf(at("request_timeout_ms", "delivery_timeout_ms", "cluster.workload"),
			"delivery_timeout_ms (%d) is below request_timeout_ms (%d): a record must be given at least one request's time", w.DeliveryTimeoutMs, w.RequestTimeoutMs)
	case spec.SampleMs%w.StepMs != 0:
		// The producers' latency window is the sample interval, drawn in steps of step_ms.
		path := "sample_ms"
		if stepPath, ok := given["step_ms"]; ok {
			path = stepPath
		}
		p.failf(path, "sample_ms (%d) is not a multiple of step_ms (%d): a sample's latency window is made of whole steps", spec.SampleMs, w.StepMs)
	}
	w.WindowMs = spec.SampleMs
	if p.err != nil {
		return
	}
	if err := b.Validate(); err != nil {
		p.failf("cluster.broker", "%s", goNamesToSnake(err.Error(), brokerParams))
	} else if err := w.Validate(); err != nil {
		p.failf("cluster.workload", "%s", goNamesToSnake(err.Error(), workloadParams))
	}
}

// goNamesToSnake rewrites the Go field names of a Params error into the scenario's names.
func goNamesToSnake(msg string, table []param) string {
	for i := range table {
		msg = strings.ReplaceAll(msg, table[i].goName+" ", table[i].name()+" ")
	}
	return msg
}

// syncHeartbeat makes broker.heartbeat.interval.ms one setting: Kafka's brokers read it, and
// so do the cluster's (broker.Params.HeartbeatIntervalMs), so "config" and
// "cluster.broker.heartbeat_interval_ms" may not disagree, and either one sets both.
func (p *parser) syncHeartbeat(root *node, s *Scenario, cs *ClusterScenario) {
	if p.err != nil {
		return
	}
	v, inConfig := s.Config.Get(config.BrokerHeartbeatIntervalMs)
	inBlock := false
	if c := root.get("cluster"); c != nil {
		if b := c.get("broker"); b != nil && b.get("heartbeat_interval_ms") != nil {
			inBlock = true
		}
	}
	switch {
	case inConfig && inBlock && v.(int64) != cs.Spec.Broker.HeartbeatIntervalMs:
		p.failf("cluster.broker.heartbeat_interval_ms", "is %d but config[%q] is %d: they are the same setting; give it once",
			cs.Spec.Broker.HeartbeatIntervalMs, config.BrokerHeartbeatIntervalMs, v)
	case inConfig:
		cs.Spec.Broker.HeartbeatIntervalMs = v.(int64)
	case inBlock:
		if err := s.Config.Set(config.BrokerHeartbeatIntervalMs, cs.Spec.Broker.HeartbeatIntervalMs, config.Cluster); err != nil {
			p.failf("cluster.broker.heartbeat_interval_ms", "%s", err.Error())
		}
	}
}

// pendingEvent is an event whose shape has been checked, waiting for its time-order check.
type pendingEvent struct {
	n     *node
	index int
	atMs  int64
	op    string
	note  string
}

// events reads the events: first each one's shape, op and time in document order, then,
// sorted stably by time, the fields, so that an event may name a topic an earlier (in time)
// create_topic makes.
func (p *parser) events(n *node, cs *ClusterScenario) []Event {
	var pending []pendingEvent
	for i, en := range n.vals {
		path := indexPath("events", i)
		if p.err != nil {
			return nil
		}
		if en.kind != kindObject {
			p.failf(path, "must be an object, got %s", en.describe())
			return nil
		}
		ops := " (ops: " + strings.Join(ClusterOps(), ", ") + ")"
		opNode := p.required(en, path, "op", ops)
		if opNode == nil {
			return nil
		}
		op := p.str(opNode, fieldPath(path, "op"))
		fields, ok := clusterOpFields.get(op)
		if p.err == nil && !ok {
			hint := ""
			if _, isStep := opFields.get(op); isStep {
				hint = fmt.Sprintf(`; %q is a controller-mode step`, op)
			}
			p.failf(fieldPath(path, "op"), "unknown op %q%s%s", op, ops, hint)
		}
		if !p.object(en, path, append(slices.Clone(eventFields), fields...), "") {
			return nil
		}
		pe := pendingEvent{n: en, index: i, op: op}
		if at := p.required(en, path, "at_ms", ""); at != nil {
			pe.atMs = p.integer(at, fieldPath(path, "at_ms"), 0, cs.DurationMs,
				fmt.Sprintf("an integer from 0 to duration_ms (%d)", cs.DurationMs))
		}
		if note := en.get("note"); note != nil {
			pe.note = p.str(note, fieldPath(path, "note"))
		}
		pending = append(pending, pe)
	}
	// sort.SliceStable, not slices.SortStableFunc: the generic sort would be compiled again for
	// this one struct type, about 7 KB of every wasm, for a list of a few events sorted once.
	sort.SliceStable(pending, func(i, j int) bool { return pending[i].atMs < pending[j].atMs })
	out := make([]Event, 0, len(pending))
	for _, pe := range pending {
		ev := p.event(pe, cs)
		if p.err != nil {
			return nil
		}
		out = append(out, ev)
	}
	return out
}

// event reads one event's fields.
func (p *parser) event(pe pendingEvent, cs *ClusterScenario) Event {
	path := indexPath("events", pe.index)
	n := pe.n
	ev := Event{Event: cluster.Event{Op: pe.op}, AtMs: pe.atMs, Index: pe.index, Note: pe.note}
	why := fmt.Sprintf(" by op %q", pe.op)
	need := func(key string) *node { return p.required(n, path, key, why) }
	at := func(key string) string { return fieldPath(path, key) }
	switch pe.op {
	case cluster.OpKill, cluster.OpStart, cluster.OpShutdown, cluster.OpDiskSwap:
		if b := need("broker"); b != nil {
			ev.Broker = p.existingBroker(b, at("broker"))
		}
	case cluster.OpSlowDisk:
		if b := need("broker"); b != nil {
			ev.Broker = p.existingBroker(b, at("broker"))
		}
		if f := need("factor"); f != nil && p.err == nil {
			x, err := strconv.ParseFloat(f.s, 64)
			if f.kind != kindNumber || err != nil || !(x > 0 && x <= 1) {
				p.failf(at("factor"), "must be a number in (0, 1], the share of the disk's capacity left (1 is full speed), got %s", f.describe())
			}
			ev.Factor = x
		}
	case cluster.OpKillController:
		if c := need("controller"); c != nil {
			ev.Controller = p.controllerName(c, at("controller"), cs, true)
		}
	case cluster.OpStartController:
		if c := need("controller"); c != nil {
			ev.Controller = p.controllerName(c, at("controller"), cs, false)
		}
	case cluster.OpSnapshot:
		ev.Controller = ActiveController
		if c := n.get("controller"); c != nil {
			ev.Controller = p.controllerName(c, at("controller"), cs, true)
		}
	case cluster.OpCut, cluster.OpHeal:
		if a := need("a"); a != nil {
			ev.A = p.nodeName(a, at("a"), cs)
		}
		if b := need("b"); b != nil {
			ev.B = p.nodeName(b, at("b"), cs)
		}
		switch {
		case p.err != nil:
		case ev.A == ev.B:
			p.failf(at("b"), "is %q, as a is: name two different nodes", ev.B)
		case (ev.A == Producers && strings.HasPrefix(ev.B, "controller-")) || (ev.B == Producers && strings.HasPrefix(ev.A, "controller-")):
			p.failf(at("b"), "producers talk to brokers only: there is no link between %s and %s to %s", ev.A, ev.B, pe.op)
		}
	case cluster.OpSetConfig:
		if name := n.get("name"); name != nil && name.kind == kindString && slices.Contains(ThrottleConfigs, name.s) {
			ev.Name, ev.Value = p.throttleConfig(n, path, need)
			break
		}
		ev.Topic, ev.Name, ev.Value = p.setConfig(n, path, need)
	case cluster.OpCreateTopic:
		t := p.topic(n, path, topicRules{inStep: true, replicasOnly: true, existingReplicas: true,
			hint: "; create_topic lets the controller choose the ISR and leader"})
		ev.TopicSpec = topicSpec(&t)
		p.countTopic(&t)
		p.checkMemory(path)
	case cluster.OpDeleteTopic:
		if name := need("name"); name != nil {
			ev.Name = p.knownTopic(name, at("name"))
		}
	case cluster.OpElectLeaders:
		ev.Election, ev.Partitions = p.electLeaders(n, path, need)
	case cluster.OpDescribe:
		p.mem.describedPartitions += p.mem.partitions
		p.checkMemory(path)
	case cluster.OpRollingRestart:
		ev.Brokers = slices.Clone(cs.Spec.Brokers)
		if bs := n.get("brokers"); bs != nil {
			ev.Brokers = p.brokerList(bs, at("brokers"))
			for i, b := range ev.Brokers {
				if p.err == nil && !p.brokers[b] {
					p.failf(indexPath(at("brokers"), i), "broker %d does not exist (%s)", b, p.knownBrokers())
				}
			}
			if p.err == nil && len(ev.Brokers) == 0 {
				p.failf(at("brokers"), "must name at least one broker (or leave brokers out: all of them, by id)")
			}
		}
		if iv := need("interval_ms"); iv != nil {
			ev.IntervalMs = p.integer(iv, at("interval_ms"), 0, MaxTimeMs, "a non-negative integer (ms from one broker's start to the next one's shutdown)")
		}
		if d := n.get("disk_swap"); d != nil {
			ev.DiskSwap = p.boolean(d, at("disk_swap"))
		}
	}
	return ev
}

// ThrottleConfigs are Kafka's dynamic replication-throttle configs, which set_config changes on
// every broker in cluster mode (they are the brokers' settings, not the controller's).
var ThrottleConfigs = []string{
	"leader.replication.throttled.rate", "follower.replication.throttled.rate",
	"leader.replication.throttled.replicas", "follower.replication.throttled.replicas",
}

// throttleConfig reads a set_config of a throttle: a rate in bytes per second (0: none), or
// for the replicas lists "*" (every replica) or "" (none), the two forms the model has.
func (p *parser) throttleConfig(n *node, path string, need func(string) *node) (string, any) {
	at := func(key string) string { return fieldPath(path, key) }
	name := n.get("name").s
	if n.get("topic") != nil {
		p.failf(at("topic"), "%s applies to every broker and topic in this model; leave topic out", name)
		return name, nil
	}
	v := need("value")
	if v == nil {
		return name, nil
	}
	if strings.HasSuffix(name, ".replicas") {
		if v.kind != kindString || (v.s != "*" && v.s != "") {
			p.failf(at("value"), `must be "*" (throttle every replica) or "" (none): the model has no per-replica lists, got %s`, v.describe())
		}
		return name, v.s
	}
	def := config.Def{Name: name, Type: config.Long, Min: 0}
	if v.kind == kindObject || v.kind == kindArray || v.kind == kindNull {
		p.failf(at("value"), "must be a rate in bytes per second (0: no throttle), got %s", v.describe())
		return name, nil
	}
	if _, err := def.Parse(v.raw()); err != nil {
		p.failf(at("value"), "%s", err.Error())
	}
	return name, v.raw()
}

// controllerName reads "active" (where allowed) or a controller id, as a number or a string.
func (p *parser) controllerName(n *node, path string, cs *ClusterScenario, activeOK bool) string {
	if p.err != nil {
		return ""
	}
	ids := controllerIDs(cs.Spec.Controllers)
	allowed := "a controller id (" + joinIDs(ids, ", ") + ")"
	if activeOK {
		allowed = `"active" or ` + allowed
	}
	if n.kind == kindString && n.s == ActiveController {
		if !activeOK {
			p.failf(path, `must be %s: the active controller is running, so name the one to start`, allowed)
		}
		return ActiveController
	}
	text := n.s
	id, err := strconv.ParseInt(text, 10, 32)
	if (n.kind != kindString && n.kind != kindNumber) || err != nil || !slices.Contains(ids, int32(id)) {
		p.failf(path, "must be %s, got %s", allowed, n.describe())
		return ""
	}
	return strconv.FormatInt(id, 10)
}

// controllerIDs are the ids of n controllers, as cluster/control numbers them.
func controllerIDs(n int) []int32 {
	var out []int32
	for _, id := range control.VoterIDs(n) {
		out = append(out, int32(id))
	}
	return out
}

// nodeName reads a node of the network: "broker-N" for an existing broker, "controller-N" for
// a controller, or "producers".
func (p *parser) nodeName(n *node, path string, cs *ClusterScenario) string {
	s := p.str(n, path)
	if p.err != nil {
		return ""
	}
	ids := controllerIDs(cs.Spec.Controllers)
	if s == Producers {
		return s
	}
	if rest, ok := strings.CutPrefix(s, "broker-"); ok {
		if id, err := strconv.ParseInt(rest, 10, 32); err == nil && strconv.FormatInt(id, 10) == rest {
			if !p.brokers[int32(id)] {
				p.failf(path, "broker %d does not exist (%s)", id, p.knownBrokers())
			}
			return s
		}
	}
	if rest, ok := strings.CutPrefix(s, "controller-"); ok {
		if id, err := strconv.ParseInt(rest, 10, 32); err == nil && strconv.FormatInt(id, 10) == rest {
			if !slices.Contains(ids, int32(id)) {
				p.failf(path, "controller %d does not exist (controllers: %s)", id, joinIDs(ids, ", "))
			}
			return s
		}
	}
	p.failf(path, `must be a node name: "broker-N", "controller-N" or "producers", got %q`, s)
	return ""
}
