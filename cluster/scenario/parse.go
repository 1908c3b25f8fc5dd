package scenario

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/kraftlab/kraftlab/engine/config"
	"github.com/kraftlab/kraftlab/engine/controller"
	"github.com/kraftlab/kraftlab/engine/metadata"
)

// Error is an invalid scenario: the path of the offending field (steps[3].broker, or
// config["min.insync.replicas"] for a name with dots; empty for a file that is not JSON) and
// the problem. Its text is one line, as the CLI prints it.
type Error struct {
	Path string
	Msg  string
}

// Error returns "path: problem", or the problem alone when there is no path.
func (e *Error) Error() string {
	if e.Path == "" {
		return e.Msg
	}
	return e.Path + ": " + e.Msg
}

// Fields of each object of the format, in the order the docs list them.
var (
	topFields       = []string{"mode", "seed", "description", "features", "config", "brokers", "topics", "steps"}
	brokerFields    = []string{"id", "fenced", "in_controlled_shutdown"}
	topicFields     = []string{"name", "partitions", "partition_count", "replication_factor", "config"}
	partitionFields = []string{"replicas", "isr", "leader", "elr", "last_known_elr"}
	// partitionFigureFields are what a cluster-mode starting partition may give beside its
	// replicas: its size and produce rate as measured on a real cluster.
	partitionFigureFields = []string{"size_bytes", "produce_bytes_per_sec"}
	stepFields            = []string{"op", "note"}
	// opFields lists each step op's fields. It is a table, not a map, because a map literal
	// compiles to init code (about 6 KB of the wasm) where a table is static data.
	opFields = opTable{
		{OpAdvance, []string{"ms"}},
		{OpStop, []string{"broker"}},
		{OpFence, []string{"broker"}},
		{OpRegister, []string{"broker", "clean_shutdown", "lost_disk"}},
		{OpUnfence, []string{"broker"}},
		{OpControlledShutdown, []string{"broker"}},
		{OpAlterPartition, []string{"topic", "partition", "isr", "leader_recovery_state", "broker", "leader_epoch", "partition_epoch"}},
		{OpIsrJoin, []string{"broker", "count", "topic", "preferred"}},
		{OpIsrLeave, []string{"broker", "count", "topic", "preferred"}},
		{OpElectPreferred, []string{}},
		{OpElectLeaders, []string{"type", "partitions"}},
		{OpSetConfig, []string{"name", "value", "topic"}},
		{OpSetFeature, []string{"name", "level"}},
		{OpOfflineDir, []string{"broker"}},
		{OpCreateTopic, topicFields},
		{OpDeleteTopic, []string{"name"}},
		{OpDescribe, []string{}},
	}
)

// opTable lists operations with their fields.
type opTable []struct {
	op     string
	fields []string
}

// get returns op's fields, and whether op is in the table.
func (t opTable) get(op string) ([]string, bool) {
	for _, e := range t {
		if e.op == op {
			return e.fields, true
		}
	}
	return nil, false
}

// ops returns the table's operations, sorted.
func (t opTable) ops() []string {
	out := make([]string, 0, len(t))
	for _, e := range t {
		out = append(out, e.op)
	}
	slices.Sort(out)
	return out
}

// Ops returns the step operations, sorted.
func Ops() []string {
	return opFields.ops()
}

// Parse reads and validates a scenario. Every problem is found before anything runs; the
// first one is returned as an *Error. Fields are checked in document order, except that a
// cluster-mode scenario's events are checked in time order (an event may name a topic an
// earlier create_topic makes).
//
// Settings override the file's cluster-level configs (and, in cluster mode, the broker and
// workload parameters they name by Kafka's name), in order, as the CLI's --set does; each is
// validated alone first, and an invalid one is reported under its flag.
func Parse(data []byte, settings ...Setting) (*Scenario, error) {
	root, err := parseTree(data)
	if err != nil {
		return nil, &Error{Msg: err.Error()}
	}
	if err := applySettings(root, settings); err != nil {
		return nil, err
	}
	return parseRoot(root, (*parser).controllerScenario, (*parser).events)
}

// ParseCluster is Parse, without settings, for a reader of cluster-mode scenarios only (the
// playground): a scenario in controller mode is ErrControllerMode, after the mode is checked
// and before anything else is. A program that calls only ParseCluster links neither the
// controller mode's parser nor the settings' code (about 10 KB brotli of the page's wasm).
func ParseCluster(data []byte) (*Scenario, error) {
	root, err := parseTree(data)
	if err != nil {
		return nil, &Error{Msg: err.Error()}
	}
	return parseRoot(root, nil, (*parser).events)
}

// ParseClusterSetup is ParseCluster for a reader that runs its own events instead of the
// file's (the lab's plans): the file's "events" must still be a list, but its entries are not
// read and Events is empty. A program that calls only ParseClusterSetup links no event parser
// (about 10 KB brotli of the rehearsal's wasm).
func ParseClusterSetup(data []byte) (*Scenario, error) {
	root, err := parseTree(data)
	if err != nil {
		return nil, &Error{Msg: err.Error()}
	}
	return parseRoot(root, nil, nil)
}

// ParseClusterSetupWith is ParseClusterSetup for a file whose starting topics' explicit
// partitions are given apart, as structs: partitions[i] stands for cluster.topics[i]'s
// "partitions", which that topic then leaves out (its name and config stay in the file). A nil
// entry leaves the topic as the file has it; nil partitions make it ParseClusterSetup. Of a
// partition, Replicas and the figures (SizeBytes if HasSize, ProduceBytesPerSec if HasRate)
// are read, its other fields not (the cluster mode starts every replica in sync, the preferred
// one leading); they are checked as the file's would be, errors named by the same paths. The
// result is ParseClusterSetup's of the file with those partitions written in. It spares a
// program that holds a large assignment (the lab's imported cluster: 200,000 partitions)
// writing it as text and reading it back; the partitions' slices are shared with the result,
// not copied.
func ParseClusterSetupWith(data []byte, partitions [][]Partition) (*Scenario, error) {
	root, err := parseTree(data)
	if err != nil {
		return nil, &Error{Msg: err.Error()}
	}
	p := newParser(nil)
	if partitions != nil {
		p.given, p.givenTopic = partitions, (*parser).givenPartitions
	}
	return p.root(root, nil)
}

// ErrControllerMode is ParseCluster's error for a scenario in controller mode.
var ErrControllerMode = &Error{Path: "mode", Msg: `"controller" mode is not read here: only cluster-mode scenarios are`}

// parseRoot reads a scenario's tree; controller reads a controller-mode one (nil:
// ErrControllerMode), events a cluster-mode one's events (nil: they are not read). Both are
// passed in, rather than called, so that a program links only the parts its entry point needs.
func parseRoot(root *node, controller func(*parser, *node, *Scenario) *Scenario, events func(*parser, *node, *ClusterScenario) []Event) (*Scenario, error) {
	return newParser(events).root(root, controller)
}

func newParser(events func(*parser, *node, *ClusterScenario) []Event) *parser {
	return &parser{brokers: map[int32]bool{}, topics: map[string]int{}, readEvents: events}
}

// root reads the tree with p, as parseRoot does.
func (p *parser) root(root *node, controller func(*parser, *node, *Scenario) *Scenario) (*Scenario, error) {
	s := p.scenario(root, controller)
	if p.err != nil {
		return nil, p.err
	}
	return s, nil
}

// parser validates the tree. It keeps the first problem only and does nothing once it has
// one, so later checks never see half-read values. For the steps it tracks what is known
// statically: which brokers exist, which topics were ever defined and their partition counts,
// and the clock.
type parser struct {
	err *Error

	brokers       map[int32]bool
	topics        map[string]int // partition count of every topic ever defined (deleted ones too)
	partitions    int
	elrEnabled    bool
	autoRebalance bool
	timeMs        int64

	// controllers is the cluster mode's number of controllers; mem its memory estimate so far.
	controllers int
	mem         memoryEstimate

	// readEvents reads a cluster-mode scenario's events, nil when they are not read (parseRoot).
	readEvents func(*parser, *node, *ClusterScenario) []Event
	// given are the starting topics' partitions given apart (ParseClusterSetupWith), by topic,
	// and givenTopic checks the i-th of them (n its topic in the file): a field rather than a
	// call, so that a program that never gives partitions apart (the playground's wasm) does
	// not link the check.
	given      [][]Partition
	givenTopic func(p *parser, i, topics int, n *node, path string) []Partition
}

func (p *parser) failf(path, format string, args ...any) {
	if p.err == nil {
		p.err = &Error{Path: path, Msg: fmt.Sprintf(format, args...)}
	}
}

// object checks that n is an object with no fields outside allowed.
func (p *parser) object(n *node, path string, allowed []string, hint string) bool {
	if p.err != nil {
		return false
	}
	if n.kind != kindObject {
		p.failf(path, "must be an object, got %s", n.describe())
		return false
	}
	for _, k := range n.keys {
		if !slices.Contains(allowed, k) {
			msg := "unknown field (allowed: " + strings.Join(allowed, ", ") + ")"
			if len(allowed) == 0 {
				msg = "unknown field (this object takes none)"
			}
			p.failf(fieldPath(path, k), "%s%s", msg, hint)
			return false
		}
	}
	return true
}

// array checks that n is an array.
func (p *parser) array(n *node, path string) bool {
	if p.err != nil {
		return false
	}
	if n.kind != kindArray {
		p.failf(path, "must be an array, got %s", n.describe())
		return false
	}
	return true
}

// listed reports an events or steps array longer than MaxListed.
func (p *parser) listed(n *node, path string) bool {
	if len(n.vals) > MaxListed {
		p.failf(path, "lists %d entries; a scenario lists at most %d", len(n.vals), MaxListed)
		return false
	}
	return true
}

// required returns an object's field, reporting it missing if absent.
func (p *parser) required(obj *node, path, key, why string) *node {
	v := obj.get(key)
	if v == nil && p.err == nil {
		p.failf(fieldPath(path, key), "required%s", why)
	}
	return v
}

// integer reads a whole number in [lo, hi]; what describes the range for the message.
func (p *parser) integer(n *node, path string, lo, hi int64, what string) int64 {
	if p.err != nil {
		return 0
	}
	v, ok := wholeNumber(n)
	if ok && v >= lo && v <= hi {
		return v
	}
	// A number past the range (1e18 too, which is beyond float64's whole numbers) is named
	// as such, with the limit it passed: "a non-negative integer" alone would be wrong.
	if f, err := strconv.ParseFloat(n.s, 64); n.kind == kindNumber && (err == nil || errors.Is(err, strconv.ErrRange)) &&
		f > float64(hi) && !strings.Contains(what, strconv.FormatInt(hi, 10)) {
		p.failf(path, "must be %s, at most %d; got %s", what, hi, n.describe())
		return 0
	}
	p.failf(path, "must be %s, got %s", what, n.describe())
	return 0
}

// wholeNumber accepts an integer literal, or a number with a zero fraction (2.0, 1e3).
func wholeNumber(n *node) (int64, bool) {
	if n.kind != kindNumber {
		return 0, false
	}
	if v, err := strconv.ParseInt(n.s, 10, 64); err == nil {
		return v, true
	}
	f, err := strconv.ParseFloat(n.s, 64)
	if err != nil || f != math.Trunc(f) || math.Abs(f) > 1<<53 {
		return 0, false
	}
	return int64(f), true
}

func (p *parser) boolean(n *node, path string) bool {
	if p.err != nil {
		return false
	}
	if n.kind != kindBool {
		p.failf(path, "must be true or false, got %s", n.describe())
		return false
	}
	return n.b
}

func (p *parser) str(n *node, path string) string {
	if p.err != nil {
		return ""
	}
	if n.kind != kindString {
		p.failf(path, "must be a string, got %s", n.describe())
		return ""
	}
	return n.s
}

const brokerIDText = "a broker id (an integer from 0 to 2147483647)"

func (p *parser) brokerID(n *node, path string) int32 {
	return int32(p.integer(n, path, 0, math.MaxInt32, brokerIDText))
}

// brokerList reads an array of distinct broker ids.
func (p *parser) brokerList(n *node, path string) []int32 {
	if !p.array(n, path) {
		return nil
	}
	out := make([]int32, 0, len(n.vals))
	for i, v := range n.vals {
		id := p.brokerID(v, indexPath(path, i))
		if p.err == nil && slices.Contains(out, id) {
			p.failf(indexPath(path, i), "broker %d is listed twice", id)
		}
		out = append(out, id)
	}
	return out
}

func (p *parser) scenario(root *node, controller func(*parser, *node, *Scenario) *Scenario) *Scenario {
	s := &Scenario{Mode: ModeCluster}
	if root.kind != kindObject {
		p.failf("", "a scenario must be a JSON object, got %s", root.describe())
		return nil
	}
	// The mode decides which fields exist, so it is checked before the field names.
	m := root.get("mode")
	if m != nil {
		s.Mode = p.str(m, "mode")
		if p.err == nil && s.Mode != ModeController && s.Mode != ModeCluster {
			p.failf("mode", `unknown mode %q (modes: "cluster", the default, and "controller")`, s.Mode)
		}
	}
	if s.Mode == ModeCluster {
		p.clusterScenario(root, s, m != nil)
		return s
	}
	if p.err != nil {
		return nil
	}
	if controller == nil {
		p.err = ErrControllerMode
		return nil
	}
	return controller(p, root, s)
}

// controllerScenario reads the rest of a controller-mode scenario.
func (p *parser) controllerScenario(root *node, s *Scenario) *Scenario {
	if !p.object(root, "", topFields, "") {
		return nil
	}
	p.common(root, s)
	p.autoRebalance = config.Bool(config.AutoLeaderRebalanceEnable, &s.Config)
	if n := root.get("brokers"); n != nil && p.array(n, "brokers") {
		for i, b := range n.vals {
			s.Brokers = append(s.Brokers, p.broker(b, indexPath("brokers", i)))
		}
	}
	if n := root.get("topics"); n != nil && p.array(n, "topics") {
		names := map[string]bool{}
		for i, t := range n.vals {
			path := indexPath("topics", i)
			top := p.topic(t, path, topicRules{maxRF: len(s.Brokers)})
			if p.err == nil && names[top.Name] {
				p.failf(fieldPath(path, "name"), "topic %q is listed twice", top.Name)
			}
			names[top.Name] = true
			s.Topics = append(s.Topics, top)
		}
	}
	if n := root.get("steps"); n != nil && p.array(n, "steps") && p.listed(n, "steps") {
		for i, st := range n.vals {
			s.Steps = append(s.Steps, p.step(st, indexPath("steps", i)))
		}
	}
	return s
}

// common reads the fields both modes share: seed, description, features and config.
func (p *parser) common(root *node, s *Scenario) {
	if n := root.get("seed"); n != nil {
		s.Seed = uint64(p.integer(n, "seed", 0, math.MaxInt64, "a non-negative integer"))
	}
	if n := root.get("description"); n != nil {
		s.Description = p.str(n, "description")
	}
	s.Features = p.features(root.get("features"))
	if n := root.get("config"); n != nil {
		s.Config = p.configs(n, "config", config.Cluster)
	}
}

// features validates the levels given and returns every feature's level.
func (p *parser) features(n *node) []Feature {
	given := map[string]int16{}
	if n != nil && n.kind != kindObject {
		p.failf("features", "must be an object of feature names and levels, got %s", n.describe())
	}
	if n != nil && p.err == nil {
		for i, name := range n.keys {
			lvl, err := config.CheckFeature(name, n.vals[i].raw())
			if err != nil {
				p.failf(fieldPath("features", name), "%s", err.Error())
				break
			}
			given[name] = lvl
		}
	}
	var out []Feature
	for _, f := range config.Features() {
		lvl, ok := given[f.Name]
		if !ok {
			lvl = f.Default
		}
		out = append(out, Feature{Name: f.Name, Level: lvl})
		if f.Name == config.EligibleLeaderReplicasVersion {
			p.elrEnabled = lvl >= 1
		}
	}
	return out
}

func featureNames() []string {
	var out []string
	for _, f := range config.Features() {
		out = append(out, f.Name)
	}
	return out
}

// configs validates a config object with the engine's rules; a rejected value carries the
// engine's ConfigError text.
func (p *parser) configs(n *node, path string, scope config.Scope) config.Values {
	var v config.Values
	if p.err != nil {
		return v
	}
	if n.kind != kindObject {
		p.failf(path, "must be an object of config names and values, got %s", n.describe())
		return v
	}
	for i, name := range n.keys {
		raw := n.vals[i]
		if raw.kind == kindObject || raw.kind == kindArray || raw.kind == kindNull {
			p.failf(fieldPath(path, name), "must be a string, number or boolean, got %s", raw.describe())
			return v
		}
		if err := v.Set(name, raw.raw(), scope); err != nil {
			p.failf(fieldPath(path, name), "%s%s", err.Error(), paramHint(name))
			return v
		}
	}
	return v
}

func (p *parser) broker(n *node, path string) Broker {
	var b Broker
	if !p.object(n, path, brokerFields, "") {
		return b
	}
	if id := p.required(n, path, "id", ""); id != nil {
		b.ID = p.brokerID(id, fieldPath(path, "id"))
		if p.err == nil && p.brokers[b.ID] {
			p.failf(fieldPath(path, "id"), "broker %d is listed twice", b.ID)
		}
		p.brokers[b.ID] = true
	}
	if f := n.get("fenced"); f != nil {
		b.Fenced = p.boolean(f, fieldPath(path, "fenced"))
	}
	if f := n.get("in_controlled_shutdown"); f != nil {
		b.InControlledShutdown = p.boolean(f, fieldPath(path, "in_controlled_shutdown"))
		if b.InControlledShutdown && b.Fenced {
			p.failf(fieldPath(path, "in_controlled_shutdown"), "a fenced broker cannot be in controlled shutdown (Kafka shuts a fenced broker down at once)")
		}
	}
	return b
}

// topicRules say what a topic object may hold where it appears.
type topicRules struct {
	// inStep: the object is a create_topic step or event, whose fields were checked with the
	// op's.
	inStep bool
	// replicasOnly: explicit partitions give their replicas only; hint says why.
	replicasOnly bool
	hint         string
	// maxRF bounds a starting topic's replication_factor by the brokers it is placed over. A
	// create_topic's is the controller's to check: it places over the brokers active then.
	maxRF int
	// existingReplicas: every replica must be a known broker (cluster mode's brokers are
	// fixed; the controller mode lets a replica name a broker that never registered).
	existingReplicas bool
	// figures: explicit partitions may give partitionFigureFields (the cluster mode's starting
	// topics).
	figures bool
	// given, when not nil, are the topic's explicit partitions given apart
	// (ParseClusterSetupWith) in place of the file's.
	given []Partition
}

// createTopicRules are a controller-mode create_topic step's.
var createTopicRules = topicRules{inStep: true, replicasOnly: true, hint: "; create_topic lets the controller choose the ISR and leader"}

// topic reads a topic of the starting cluster or of a create_topic step or event (whose object
// also holds the step's own fields, already checked).
func (p *parser) topic(n *node, path string, rules topicRules) Topic {
	var t Topic
	if !rules.inStep && !p.object(n, path, topicFields, "") {
		return t
	}
	if name := p.required(n, path, "name", ""); name != nil {
		t.Name = p.str(name, fieldPath(path, "name"))
		if err := controller.ValidateTopicName(t.Name); p.err == nil && err != nil {
			p.failf(fieldPath(path, "name"), "%s", apiMessage(err))
		}
	}
	parts, count, rf := n.get("partitions"), n.get("partition_count"), n.get("replication_factor")
	switch {
	case p.err != nil:
	case rules.given != nil:
		t.Partitions, t.PartitionCount = rules.given, len(rules.given)
	case parts != nil && count != nil:
		p.failf(fieldPath(path, "partition_count"), "give either partitions or partition_count, not both")
	case parts == nil && count == nil:
		p.failf(fieldPath(path, "partitions"), "required (or partition_count with replication_factor)")
	case parts != nil && rf != nil:
		p.failf(fieldPath(path, "replication_factor"), "only goes with partition_count (explicit partitions list their replicas)")
	case parts != nil:
		pp := fieldPath(path, "partitions")
		if p.array(parts, pp) && len(parts.vals) == 0 {
			p.failf(pp, "must list at least one partition")
		}
		for i, pn := range parts.vals {
			t.Partitions = append(t.Partitions, p.partition(pn, indexPath(pp, i), rules))
		}
		t.PartitionCount = len(t.Partitions)
	default:
		t.PartitionCount = int(p.integer(count, fieldPath(path, "partition_count"), 1, MaxPartitions, fmt.Sprintf("an integer from 1 to %d", MaxPartitions)))
		if p.required(n, path, "replication_factor", " with partition_count") != nil {
			t.ReplicationFactor = int(p.integer(rf, fieldPath(path, "replication_factor"), 1, metadata.MaxReplicas,
				fmt.Sprintf("an integer from 1 to %d (this model's limit)", metadata.MaxReplicas)))
		}
		// The starting cluster places replicas over the listed brokers.
		if !rules.inStep && p.err == nil && t.ReplicationFactor > rules.maxRF {
			p.failf(fieldPath(path, "replication_factor"), "%d is more than the %d listed brokers", t.ReplicationFactor, rules.maxRF)
		}
	}
	if c := n.get("config"); c != nil {
		t.Config = p.configs(c, fieldPath(path, "config"), config.Topic)
	}
	p.partitions += t.PartitionCount
	if p.err == nil && p.partitions > MaxPartitions {
		p.failf(path, "the scenario would hold more than %d partitions (this model's limit)", MaxPartitions)
	}
	p.topics[t.Name] = t.PartitionCount
	return t
}

// givenPartitions checks the i-th starting topic's partitions given apart
// (ParseClusterSetupWith; n is the topic in the file, one of topics) by the rules partition
// applies to the file's, naming them by the paths the file's would have.
func (p *parser) givenPartitions(i, topics int, n *node, path string) []Partition {
	// One failf for every problem, its path and message made as strings: each call with its
	// arguments costs the wasm programs that give partitions apart more than the checks do.
	at, msg := fieldPath(path, "partitions"), ""
	var parts []Partition
	switch {
	case len(p.given) != topics:
		at, msg = "cluster.topics", "lists "+strconv.Itoa(topics)+" topics, but partitions are given apart for "+strconv.Itoa(len(p.given))
	case p.given[i] == nil || n.kind != kindObject:
		return nil // the file's own, or not a topic: p.topic reads it
	case n.get("partitions") != nil || n.get("partition_count") != nil || n.get("replication_factor") != nil:
		msg = "are given apart: leave partitions, partition_count and replication_factor out of the file"
	case len(p.given[i]) == 0:
		msg = "must list at least one partition"
	default:
		parts = p.given[i]
	}
	for j := 0; msg == "" && j < len(parts); j++ {
		var in string
		if in, msg = p.givenProblem(&parts[j]); msg != "" {
			at = indexPath(at, j) + in
		}
	}
	if msg != "" {
		p.failf(at, "%s", msg)
		return nil
	}
	return parts
}

// givenProblem is what is wrong with a partition given apart, and where in it ("" if nothing).
func (p *parser) givenProblem(pt *Partition) (at, msg string) {
	if len(pt.Replicas) == 0 || len(pt.Replicas) > metadata.MaxReplicas {
		return ".replicas", "must name 1 to " + strconv.Itoa(metadata.MaxReplicas) + " brokers (this model's limit)"
	}
	for j, b := range pt.Replicas {
		// The path and the id are written only for a problem: for each of 600,000 replicas
		// they were most of the check's time.
		switch {
		case slices.Contains(pt.Replicas[:j], b):
			return indexPath(".replicas", j), "broker " + strconv.Itoa(int(b)) + " is listed twice"
		case !p.brokers[b]:
			return indexPath(".replicas", j), "broker " + strconv.Itoa(int(b)) + " does not exist (" + p.knownBrokers() + ")"
		}
	}
	at, v := ".size_bytes", pt.SizeBytes
	if !pt.HasSize || v >= 0 && !math.IsInf(v, 0) {
		at, v = ".produce_bytes_per_sec", pt.ProduceBytesPerSec
		if !pt.HasRate || v >= 0 && !math.IsInf(v, 0) {
			return "", ""
		}
	}
	return at, "must be a finite number ≥ 0, got " + strconv.FormatFloat(v, 'g', -1, 64)
}

// figure reads an optional number ≥ 0 of a partition, and whether it was given.
func (p *parser) figure(n *node, path, key, what string) (float64, bool) {
	v := n.get(key)
	if v == nil || p.err != nil {
		return 0, false
	}
	x, err := strconv.ParseFloat(v.s, 64)
	if v.kind != kindNumber || err != nil || !(x >= 0) || math.IsInf(x, 0) {
		p.failf(fieldPath(path, key), "must be %s, got %s", what, v.describe())
		return 0, false
	}
	return x, true
}

// partition reads one explicit partition and fills in the defaults. Where only replicas may
// be given (a create_topic; the cluster mode), the rest is the controller's to choose.
func (p *parser) partition(n *node, path string, rules topicRules) Partition {
	var pt Partition
	allowed, hint := partitionFields, ""
	if rules.replicasOnly {
		allowed, hint = partitionFields[:1], rules.hint
	}
	if rules.figures {
		allowed = append(slices.Clone(allowed), partitionFigureFields...)
	}
	if !p.object(n, path, allowed, hint) {
		return pt
	}
	if r := p.required(n, path, "replicas", ""); r != nil {
		rp := fieldPath(path, "replicas")
		pt.Replicas = p.brokerList(r, rp)
		switch {
		case p.err != nil:
		case len(pt.Replicas) == 0:
			p.failf(rp, "must name at least one broker")
		case len(pt.Replicas) > metadata.MaxReplicas:
			p.failf(rp, "has %d replicas; this model allows at most %d", len(pt.Replicas), metadata.MaxReplicas)
		}
		for i, b := range pt.Replicas {
			if rules.existingReplicas && p.err == nil && !p.brokers[b] {
				p.failf(indexPath(rp, i), "broker %d does not exist (%s)", b, p.knownBrokers())
			}
		}
	}
	if rules.figures {
		pt.SizeBytes, pt.HasSize = p.figure(n, path, "size_bytes", "a size in bytes, a finite number ≥ 0 (kafka-log-dirs.sh's size)")
		pt.ProduceBytesPerSec, pt.HasRate = p.figure(n, path, "produce_bytes_per_sec", "a rate in bytes per second, a finite number ≥ 0")
	}
	if rules.replicasOnly {
		return pt
	}
	subset := func(key string, def []int32) []int32 {
		v := n.get(key)
		if v == nil {
			return def
		}
		kp := fieldPath(path, key)
		list := p.brokerList(v, kp)
		for i, b := range list {
			if p.err == nil && !slices.Contains(pt.Replicas, b) {
				p.failf(indexPath(kp, i), "broker %d is not a replica (replicas: %s)", b, joinIDs(pt.Replicas, ", "))
			}
		}
		return list
	}
	pt.Isr = subset("isr", slices.Clone(pt.Replicas))
	pt.Elr = subset("elr", []int32{})
	pt.LastKnownElr = subset("last_known_elr", []int32{})
	for i, b := range pt.Elr {
		if p.err == nil && slices.Contains(pt.Isr, b) {
			p.failf(indexPath(fieldPath(path, "elr"), i), "broker %d is in the ISR; the ELR holds replicas outside it", b)
		}
	}
	if !p.elrEnabled {
		if len(pt.Elr) > 0 {
			p.failf(fieldPath(path, "elr"), "must be empty: eligible.leader.replicas.version is 0")
		} else if len(pt.LastKnownElr) > 0 {
			p.failf(fieldPath(path, "last_known_elr"), "must be empty: eligible.leader.replicas.version is 0")
		}
	}
	pt.Leader = metadata.NoLeader
	if len(pt.Isr) > 0 {
		pt.Leader = pt.Isr[0]
	}
	if l := n.get("leader"); l != nil {
		lp := fieldPath(path, "leader")
		pt.Leader = int32(p.integer(l, lp, -1, math.MaxInt32, "a broker id or -1"))
		if p.err == nil && pt.Leader >= 0 && !slices.Contains(pt.Isr, pt.Leader) {
			p.failf(lp, "broker %d is not in the ISR (isr: %s); the leader must be in the ISR, or -1", pt.Leader, joinIDs(pt.Isr, ", "))
		}
	}
	return pt
}

func (p *parser) step(n *node, path string) Step {
	var st Step
	if p.err != nil {
		return st
	}
	if n.kind != kindObject {
		p.failf(path, "must be an object, got %s", n.describe())
		return st
	}
	opNode := p.required(n, path, "op", " (ops: "+strings.Join(Ops(), ", ")+")")
	if opNode == nil {
		return st
	}
	st.Op = p.str(opNode, fieldPath(path, "op"))
	fields, ok := opFields.get(st.Op)
	if p.err == nil && !ok {
		p.failf(fieldPath(path, "op"), "unknown op %q (ops: %s)", st.Op, strings.Join(Ops(), ", "))
	}
	if !p.object(n, path, append(slices.Clone(stepFields), fields...), "") {
		return st
	}
	if note := n.get("note"); note != nil {
		st.Note = p.str(note, fieldPath(path, "note"))
	}
	why := fmt.Sprintf(" by op %q", st.Op)
	need := func(key string) *node { return p.required(n, path, key, why) }
	at := func(key string) string { return fieldPath(path, key) }
	broker := func() {
		if b := need("broker"); b != nil {
			st.Broker = p.existingBroker(b, at("broker"))
		}
	}
	switch st.Op {
	case OpAdvance:
		if ms := need("ms"); ms != nil {
			st.Ms = p.integer(ms, at("ms"), 0, MaxTimeMs, "a non-negative integer")
			p.timeMs += st.Ms
			if p.err == nil && p.timeMs > MaxTimeMs {
				p.failf(at("ms"), "the clock would reach %d ms, past this model's limit of %d ms (7 days)", p.timeMs, MaxTimeMs)
			}
		}
	case OpStop, OpFence, OpUnfence, OpControlledShutdown, OpOfflineDir:
		broker()
	case OpRegister:
		if b := need("broker"); b != nil {
			// A broker id not seen before registers for the first time.
			st.Broker = p.brokerID(b, at("broker"))
			p.brokers[st.Broker] = true
		}
		if v := n.get("clean_shutdown"); v != nil {
			st.CleanShutdown = p.boolean(v, at("clean_shutdown"))
		}
		if v := n.get("lost_disk"); v != nil {
			st.LostDisk = p.boolean(v, at("lost_disk"))
		}
		if st.CleanShutdown && st.LostDisk {
			p.failf(at("clean_shutdown"), "cannot be true with lost_disk: a replaced disk has no clean-shutdown file")
		}
	case OpAlterPartition:
		st.LeaderEpoch, st.PartitionEpoch = -1, -1
		st.LeaderRecoveryState = metadata.NoRecoveryChange
		if t := need("topic"); t != nil {
			st.Topic = p.knownTopic(t, at("topic"))
		}
		if pn := need("partition"); pn != nil {
			st.Partition = p.partitionID(pn, at("partition"), st.Topic)
		}
		if isr := need("isr"); isr != nil && p.array(isr, at("isr")) {
			// Any ids: checking the ISR is the controller's job, and its answer is the lesson.
			st.Isr = make([]int32, 0, len(isr.vals))
			for i, v := range isr.vals {
				st.Isr = append(st.Isr, p.brokerID(v, indexPath(at("isr"), i)))
			}
		}
		if v := n.get("leader_recovery_state"); v != nil {
			switch s := p.str(v, at("leader_recovery_state")); {
			case p.err != nil:
			case s == "RECOVERED":
				st.LeaderRecoveryState = metadata.Recovered
			case s == "RECOVERING":
				st.LeaderRecoveryState = metadata.Recovering
			default:
				p.failf(at("leader_recovery_state"), `must be "RECOVERED" or "RECOVERING", got %q`, s)
			}
		}
		if b := n.get("broker"); b != nil {
			st.Broker, st.HasBroker = p.existingBroker(b, at("broker")), true
		}
		if v := n.get("leader_epoch"); v != nil {
			st.LeaderEpoch = int32(p.integer(v, at("leader_epoch"), 0, math.MaxInt32, "a non-negative integer"))
		}
		if v := n.get("partition_epoch"); v != nil {
			st.PartitionEpoch = int32(p.integer(v, at("partition_epoch"), 0, math.MaxInt32, "a non-negative integer"))
		}
	case OpIsrJoin, OpIsrLeave:
		broker()
		if v := n.get("count"); v != nil {
			st.Count = int(p.integer(v, at("count"), 1, math.MaxInt32, "a positive integer"))
		}
		if v := n.get("topic"); v != nil {
			st.Topic = p.knownTopic(v, at("topic"))
		}
		if v := n.get("preferred"); v != nil {
			st.Preferred = p.boolean(v, at("preferred"))
		}
	case OpElectPreferred:
		if !p.autoRebalance {
			p.failf(at("op"), "auto.leader.rebalance.enable is false, so the controller has no electPreferred task to run (use elect_leaders)")
		}
	case OpElectLeaders:
		st.Election, st.Partitions = p.electLeaders(n, path, need)
	case OpSetConfig:
		st.Topic, st.Name, st.Value = p.setConfig(n, path, need)
	case OpSetFeature:
		if name := need("name"); name != nil {
			st.Name = p.str(name, at("name"))
			if p.err == nil && !slices.Contains(featureNames(), st.Name) {
				_, err := config.CheckFeature(st.Name, 0)
				p.failf(at("name"), "%s", err.Error())
			}
		}
		if lvl := need("level"); lvl != nil && p.err == nil {
			l, err := config.CheckFeature(st.Name, lvl.raw())
			if err != nil {
				p.failf(at("level"), "%s", err.Error())
			}
			st.Level = l
		}
	case OpCreateTopic:
		t := p.topic(n, path, createTopicRules)
		st.CreateTopic = &t
	case OpDeleteTopic:
		if name := need("name"); name != nil {
			st.Name = p.knownTopic(name, at("name"))
		}
	case OpDescribe:
	}
	return st
}

// electLeaders reads an elect_leaders step's or event's type and partitions.
func (p *parser) electLeaders(n *node, path string, need func(string) *node) (controller.Election, []controller.TopicPartition) {
	at := func(key string) string { return fieldPath(path, key) }
	var election controller.Election
	var parts []controller.TopicPartition
	if t := need("type"); t != nil {
		switch s := p.str(t, at("type")); {
		case p.err != nil:
		case s == "preferred":
			election = controller.ElectionPreferred
		case s == "unclean":
			election = controller.ElectionUnclean
		default:
			p.failf(at("type"), `must be "preferred" or "unclean", got %q`, s)
		}
	}
	if ps := n.get("partitions"); ps != nil && p.array(ps, at("partitions")) {
		for i, tp := range ps.vals {
			tpPath := indexPath(at("partitions"), i)
			if !p.object(tp, tpPath, []string{"topic", "partition"}, "") {
				break
			}
			// A topic or partition that does not exist is not refused here: Kafka's controller
			// answers it with UNKNOWN_TOPIC_OR_PARTITION and handles the others
			// (ReplicationControlManager.electLeader), and so does the run.
			var x controller.TopicPartition
			if t := p.required(tp, tpPath, "topic", ""); t != nil {
				x.Topic = p.str(t, fieldPath(tpPath, "topic"))
			}
			if pn := p.required(tp, tpPath, "partition", ""); pn != nil {
				x.Partition = int32(p.integer(pn, fieldPath(tpPath, "partition"), 0, math.MaxInt32, "a non-negative integer"))
			}
			parts = append(parts, x)
		}
	}
	return election, parts
}

// setConfig reads a set_config step's or event's topic, name and value (bool, json.Number,
// string, or nil to delete).
func (p *parser) setConfig(n *node, path string, need func(string) *node) (topic, name string, value any) {
	at := func(key string) string { return fieldPath(path, key) }
	scope := config.Cluster
	if t := n.get("topic"); t != nil {
		topic = p.knownTopic(t, at("topic"))
		scope = config.Topic
	}
	nameNode := need("name")
	if nameNode == nil {
		return
	}
	name = p.str(nameNode, at("name"))
	if p.err != nil {
		return
	}
	def, ok := config.Lookup(name)
	if !ok {
		p.failf(at("name"), "%s%s", config.UnknownError(name).Error(), paramHint(name))
		return
	}
	var probe config.Values
	if scope == config.Topic && def.Scope != config.Topic {
		err := probe.Set(name, config.Resolve(name), scope)
		p.failf(at("name"), "%s", err.Error())
		return
	}
	v := need("value")
	if v == nil {
		return
	}
	if v.kind == kindObject || v.kind == kindArray {
		p.failf(at("value"), "must be a string, number, boolean or null (null deletes), got %s", v.describe())
		return
	}
	// Whether a static config may change is the controller's answer at run time; the value
	// itself is checked now, so a typo stops the scenario before it runs.
	value = v.raw()
	if value != nil {
		if err := probe.Set(name, value, scope); err != nil {
			p.failf(at("value"), "%s", err.Error())
		}
	}
	return
}

// existingBroker reads a broker id that must be listed or registered by an earlier step.
func (p *parser) existingBroker(n *node, path string) int32 {
	id := p.brokerID(n, path)
	if p.err == nil && !p.brokers[id] {
		p.failf(path, "broker %d does not exist (%s)", id, p.knownBrokers())
	}
	return id
}

// knownBrokers lists the known brokers for a message: "brokers: 0, 1, 2" or "no brokers".
func (p *parser) knownBrokers() string {
	ids := make([]int32, 0, len(p.brokers))
	for b := range p.brokers {
		ids = append(ids, b)
	}
	slices.Sort(ids)
	if len(ids) == 0 {
		return "no brokers"
	}
	if len(ids) > 12 {
		// A cluster given as a count of brokers can have hundreds: the first few say enough.
		return fmt.Sprintf("brokers: %s, ... %d (%d in all)", joinIDs(ids[:10], ", "), ids[len(ids)-1], len(ids))
	}
	return "brokers: " + joinIDs(ids, ", ")
}

// knownTopic reads a topic name that the starting cluster or an earlier create_topic defines.
// A deleted topic stays known: asking about it is how a scenario shows Kafka's answer.
func (p *parser) knownTopic(n *node, path string) string {
	name := p.str(n, path)
	if _, ok := p.topics[name]; p.err == nil && !ok {
		names := make([]string, 0, len(p.topics))
		for t := range p.topics {
			names = append(names, t)
		}
		slices.Sort(names)
		known := "no topics"
		if len(names) > 0 {
			known = "topics: " + strings.Join(names, ", ")
		}
		p.failf(path, "topic %q does not exist (%s)", name, known)
	}
	return name
}

// partitionID reads a partition number of a known topic.
func (p *parser) partitionID(n *node, path, topic string) int32 {
	count := p.topics[topic]
	id := int32(p.integer(n, path, 0, math.MaxInt32, "a non-negative integer"))
	if p.err == nil && int(id) >= count {
		p.failf(path, "topic %q has %d partition(s), numbered from 0 to %d", topic, count, count-1)
	}
	return id
}

// joinIDs writes broker ids with a separator: ", " in messages, "," as kafka-topics.sh does.
func joinIDs(ids []int32, sep string) string {
	s := make([]string, len(ids))
	for i, id := range ids {
		s[i] = strconv.Itoa(int(id))
	}
	return strings.Join(s, sep)
}

// apiMessage is an engine error's message without its code.
func apiMessage(err error) string {
	var ae *controller.APIError
	if errors.As(err, &ae) && ae.Message != "" {
		return ae.Message
	}
	return err.Error()
}
