package cluster

import (
	"encoding/base64"
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/kraftlab/kraftlab/cluster/broker"
	"github.com/kraftlab/kraftlab/cluster/check"
	"github.com/kraftlab/kraftlab/cluster/control"
	"github.com/kraftlab/kraftlab/cluster/sim"
	"github.com/kraftlab/kraftlab/cluster/workload"
	"github.com/kraftlab/kraftlab/engine/config"
	"github.com/kraftlab/kraftlab/engine/controller"
	"github.com/kraftlab/kraftlab/engine/metadata"
)

// bootDeadlineMs bounds how long the quorum may take to elect a controller and commit the
// starting records before New gives up: Kafka's election timeouts make it 1–3 s.
const bootDeadlineMs = 60_000

// maxPartitionsHint bounds the partition count images are sized for up front.
const maxPartitionsHint = 1 << 22

// Cluster is one running toy cluster. It is single-threaded and deterministic.
type Cluster struct {
	spec  Spec
	s     *sim.Sim
	ctl   *control.Controllers
	fleet *broker.Fleet
	work  *workload.Workload

	// t0 is the simulation time of scenario time 0.
	t0 int64
	// view is the committed metadata image, replayed from the committed log (by the controllers:
	// control.Controllers.CommittedView), with counters kept per record so that samples cost
	// O(brokers), not O(partitions).
	view            *metadata.Image
	leaders         brokerCounts // partitions each broker leads
	underReplicated int
	// oosPreferred counts, per broker, the partitions it prefers but neither leads nor is in
	// the ISR of: every sample reports it per broker, and recounting it walked each broker's
	// imbalanced partitions, a cache miss each (a million of them mid-roll at scale).
	oosPreferred brokerCounts
	// observerDown marks brokers whose metadata observer the cluster stopped with the process.
	observerDown map[int32]bool

	meta check.Metadata
	// note carries what beforeCommit saw to afterCommit.
	note commitNote
	bal  check.Balancer
	reps check.Replicas
	dur  check.Durability
	// replicaCursor is where the next sample's rotating replica check starts.
	replicaCursor int
	err           error

	outOfSync []int            // reused by onWindow: out-of-sync replicas by broker slot
	pub       []metadata.Entry // reused by onCommitted: entries to publish

	runs      []BalancerRun
	samples   []Sample
	windows   []workload.Window
	describes []Describe
	// electResults are the answers to elect_leaders events; setupEnd is the committed end
	// when New returned (see SetupEnd).
	electResults []ElectLeadersResult
	setupEnd     int64

	// Summary tracking.
	firstFaultMs       int64
	lastRestarted      int32
	unfencedAtMs       int64
	restoredAtMs       int64
	unclean            int
	electionsSinceLast int
	rolling            *rolling
	bootOffset         int64
	booted             bool

	// obs, when set, is told of every Happening (Observe). runOf maps a partition an
	// electPreferred run elected to the run's number until its leader change commits;
	// manualElection marks those an elect_leaders event asked for. Both exist only while
	// someone observes.
	obs            func(*Happening)
	hap            Happening // lent to obs (tell)
	sent           Happening // lent to obs for each Raft message (tellMessage)
	runOf          map[int32]int
	manualElection map[int32]bool
}

// DefaultSpec returns a Spec with Kafka's and the recovery model's defaults: 3 controllers and
// the default broker and workload parameters. Brokers and topics are left to the caller.
func DefaultSpec() Spec {
	return Spec{Seed: 1, Controllers: 3, ElrVersion: 1, Broker: broker.DefaultParams(),
		Workload: workload.DefaultParams(), SampleMs: 10_000}
}

// New builds a cluster and runs it until it is up: a controller active, the starting records
// committed, every broker running, the producers started. Its clock then reads 0.
func New(spec Spec) (*Cluster, error) {
	if err := validateSpec(&spec); err != nil {
		return nil, err
	}
	c := &Cluster{spec: spec, s: sim.New(spec.Seed), observerDown: map[int32]bool{},
		firstFaultMs: -1, lastRestarted: -1, unfencedAtMs: -1, restoredAtMs: -1, bootOffset: -1}
	c.meta.Seed, c.bal.Seed, c.reps.Seed, c.dur.Seed = spec.Seed, spec.Seed, spec.Seed, spec.Seed
	// Images are sized for the starting partitions up front (capacity only); the bound keeps
	// an absurd count, which the bootstrap refuses with its own error, from allocating first.
	hint := 0
	for _, t := range spec.Topics {
		n := min(max(t.PartitionCount, len(t.Replicas), 0), maxPartitionsHint)
		hint = min(hint+n, maxPartitionsHint)
	}

	cfg := control.DefaultConfig()
	cfg.Quorum.Voters = control.VoterIDs(spec.Controllers)
	cfg.Static = spec.Static
	cfg.Brokers = slices.Clone(spec.Brokers)
	cfg.Bootstrap = c.bootstrap
	cfg.PartitionsHint = hint
	ctl, err := control.New(c.s, cfg)
	if err != nil {
		return nil, err
	}
	c.ctl = ctl
	c.view = ctl.CommittedView() // the controllers replay it; beforeCommit and afterCommit watch
	ctl.SetCallbacks(control.Callbacks{
		BeforeCommit:      c.beforeCommit,
		AfterCommit:       c.afterCommit,
		OnCommitted:       c.onCommitted,
		OnBrokerCommitted: c.onBrokerCommitted,
		OnBrokerSnapshot:  func(b int32, _ *control.Snapshot) { c.fail(c.fleetErr(c.fleet.LoadSnapshot(b))) },
		OnResigned:        func(node, _ int32, _ int64) { c.takeRuns(c.ctl.EngineOf(node), node) },
		OnViolation:       func(v control.Violation) { c.fail(v) },
	})
	for !c.booted {
		if c.err != nil {
			return nil, c.err
		}
		if c.s.Now() > bootDeadlineMs || !c.s.Step() {
			return nil, fmt.Errorf("cluster: no controller became active and committed the starting records within %d ms", bootDeadlineMs)
		}
	}
	partitions := len(c.view.Partitions)
	if c.work, err = workload.New(c.s, spec.Workload, len(spec.Brokers), partitions); err != nil {
		return nil, fmt.Errorf("workload: %w", err)
	}
	sizes, rates := partitionFigures(spec.Topics)
	if rates != nil {
		if err := c.work.SetPartitionRates(rates); err != nil {
			return nil, err
		}
	}
	if c.fleet, err = broker.New(c.s, spec.Broker, spec.Brokers, spec.Static, ctl.Client(), c.work); err != nil {
		return nil, fmt.Errorf("broker: %w", err)
	}
	c.fleet.SetListener(c)
	if err := c.fleet.Publish(entries(ctl.Committed())); err != nil {
		return nil, err
	}
	// From here on every committed entry reaches the fleet as it is first committed, so the
	// controllers need keep only what a lagging or restarting node may still commit.
	ctl.SetTrimCommitted(spec.DiscardRecords)
	if err := c.fleet.Prefill(sizes); err != nil {
		return nil, err
	}
	for _, id := range spec.Brokers {
		if err := c.fleet.Boot(id); err != nil {
			return nil, err
		}
	}
	c.work.OnWindow(c.onWindow)
	c.work.KeepWindows(spec.KeepSamples)
	if err := c.work.Start(c.fleet); err != nil {
		return nil, err
	}
	c.t0 = c.s.Now()
	c.setupEnd = ctl.CommittedEnd()
	return c, c.err
}

// validateSpec fills defaults and checks what the parts do not check themselves.
func validateSpec(spec *Spec) error {
	if spec.Controllers == 0 {
		spec.Controllers = 3
	}
	if spec.Controllers != 1 && spec.Controllers != 3 && spec.Controllers != 5 {
		return fmt.Errorf("controllers: %d is not allowed; a KRaft quorum here has 1, 3 or 5 voters", spec.Controllers)
	}
	if len(spec.Brokers) == 0 {
		return errors.New("brokers: a cluster needs at least one broker")
	}
	for i, id := range spec.Brokers {
		if id < 0 || id >= control.FirstVoterID {
			return fmt.Errorf("brokers[%d]: broker id %d is out of range; allowed: 0 to %d (controller ids start at %d)", i, id, control.FirstVoterID-1, control.FirstVoterID)
		}
		if slices.Contains(spec.Brokers[:i], id) {
			return fmt.Errorf("brokers[%d]: broker id %d is listed twice", i, id)
		}
	}
	if spec.SampleMs <= 0 {
		return fmt.Errorf("sample_ms: %d is not allowed; it must be a positive number of milliseconds", spec.SampleMs)
	}
	if spec.ElrVersion < 0 || spec.ElrVersion > 1 {
		return fmt.Errorf("%s: level %d is not allowed; allowed: 0 or 1", config.EligibleLeaderReplicasVersion, spec.ElrVersion)
	}
	spec.Workload.WindowMs = spec.SampleMs
	seen := map[string]bool{}
	for i, t := range spec.Topics {
		if err := controller.ValidateTopicName(t.Name); err != nil {
			return fmt.Errorf("topics[%d].name: %v", i, err)
		}
		if seen[t.Name] {
			return fmt.Errorf("topics[%d].name: topic %q is listed twice", i, t.Name)
		}
		seen[t.Name] = true
		for p, reps := range t.Replicas {
			for _, r := range reps {
				if !slices.Contains(spec.Brokers, r) {
					return fmt.Errorf("topics[%d].partitions[%d].replicas: broker %d is not one of the cluster's brokers", i, p, r)
				}
			}
		}
	}
	for _, fig := range []struct {
		name string
		of   func(t *TopicSpec) []float64
	}{
		{"size_bytes", func(t *TopicSpec) []float64 { return t.SizeBytes }},
		{"produce_bytes_per_sec", func(t *TopicSpec) []float64 { return t.ProduceBytesPerSec }},
	} {
		given := slices.IndexFunc(spec.Topics, func(t TopicSpec) bool { return fig.of(&t) != nil })
		if given < 0 {
			continue
		}
		for i := range spec.Topics {
			t := &spec.Topics[i]
			v := fig.of(t)
			if v == nil || len(v) != len(t.Replicas) {
				return fmt.Errorf("topics[%d]: gives %s for %d of its %d partitions; as topics[%d] gives it, every partition of every starting topic must (each listed with its replicas)",
					i, fig.name, len(v), max(len(t.Replicas), t.PartitionCount), given)
			}
			for p, x := range v {
				if !(x >= 0) || math.IsInf(x, 0) {
					return fmt.Errorf("topics[%d].partitions[%d].%s: %g is not allowed; it must be a finite number ≥ 0", i, p, fig.name, x)
				}
			}
		}
	}
	return nil
}

// partitionFigures flattens the starting topics' given sizes and rates in partition index
// order (the bootstrap's), or returns nil for those not given (validateSpec checked that a
// figure is given for every partition or none).
func partitionFigures(topics []TopicSpec) (sizes, rates []float64) {
	for _, t := range topics {
		if t.SizeBytes != nil {
			sizes = append(sizes, t.SizeBytes...)
		}
		if t.ProduceBytesPerSec != nil {
			rates = append(rates, t.ProduceBytesPerSec...)
		}
	}
	return sizes, rates
}

// bootstrap writes the starting cluster on the first active controller: features, every broker
// registered and unfenced, the topics with their configs and partitions, all replicas in sync
// and the preferred replica leading.
func (c *Cluster) bootstrap(e *controller.Controller, nowMs int64) error {
	base := e.Log().NextOffset()
	// Sized once for the partitions (a million at scale), with room for the rest.
	n := 2 + len(c.spec.Brokers)
	for _, t := range c.spec.Topics {
		n += 1 + len(t.Configs) + min(max(t.PartitionCount, len(t.Replicas), 0), maxPartitionsHint)
	}
	recs := make([]metadata.Record, 0, n)
	recs = append(recs, &metadata.FeatureLevelRecord{Name: config.EligibleLeaderReplicasVersion, FeatureLevel: c.spec.ElrVersion})
	if c.spec.ElrVersion >= 1 {
		// Kafka writes the cluster-level min.insync.replicas at bootstrap under ELR (KAFKA-16540).
		recs = append(recs, &metadata.ConfigRecord{ResourceType: metadata.ResourceBroker, Name: config.MinInsyncReplicas,
			Value: ptr(metadata.ConfigText(config.Resolve(config.MinInsyncReplicas, &c.spec.Static)))})
	}
	rng := c.s.Rand().Child("bootstrap")
	for _, id := range c.spec.Brokers {
		recs = append(recs, &metadata.RegisterBrokerRecord{BrokerID: id, IncarnationID: uuid(rng),
			BrokerEpoch: base + int64(len(recs)), LogDirs: []string{uuid(rng)}})
	}
	for i, t := range c.spec.Topics {
		assign := t.Replicas
		if assign == nil {
			var err error
			if assign, err = e.PlaceReplicas(c.spec.Brokers, nil, t.PartitionCount, t.ReplicationFactor); err != nil {
				return fmt.Errorf("topics[%d]: %w", i, err)
			}
		}
		id := e.NewTopicID()
		recs = append(recs, &metadata.TopicRecord{Name: t.Name, TopicID: id})
		var vals config.Values
		for _, ce := range t.Configs {
			if err := vals.Set(ce.Name, ce.Value, config.Topic); err != nil {
				return fmt.Errorf("topics[%d].config: %w", i, err)
			}
		}
		for _, n := range vals.Names() {
			v, _ := vals.Get(n)
			recs = append(recs, &metadata.ConfigRecord{ResourceType: metadata.ResourceTopic, ResourceName: t.Name, Name: n, Value: ptr(metadata.ConfigText(v))})
		}
		// The records' replica and ISR lists are copies cut from one array, each capped at its
		// length (an append copies it, as a clone's would): one allocation for the topic rather
		// than two small objects per partition for the GC to track.
		size := 0
		for _, reps := range assign {
			size += 2 * len(reps)
		}
		lists := make([]int32, 0, size)
		for p, reps := range assign {
			r := len(lists)
			lists = append(lists, reps...)
			i := len(lists)
			lists = append(lists, reps...)
			recs = append(recs, &metadata.PartitionRecord{Topic: t.Name, TopicID: id, PartitionID: int32(p),
				Replicas: lists[r:i:i], Isr: lists[i:len(lists):len(lists)], Leader: reps[0], Elr: []int32{}, LastKnownElr: []int32{}})
		}
	}
	// Room for the partitions first: the engine's image appends them one at a time (see
	// reserve). Only the capacity of its partition slice changes.
	reserve(e.Image(), len(recs), func(i int) metadata.Record { return recs[i] })
	if err := e.Bootstrap(recs); err != nil {
		return err
	}
	c.bootOffset = e.Log().NextOffset() - 1
	return nil
}

func ptr(s string) *string { return &s }

// uuid draws a Kafka-style Uuid (16 bytes, URL-safe base64) from a seeded stream.
func uuid(r *sim.Rand) string {
	var b [16]byte
	for i := 0; i < 16; i += 8 {
		v := r.Uint64()
		for j := 0; j < 8; j++ {
			b[i+j] = byte(v >> (8 * j))
		}
	}
	return base64.RawURLEncoding.EncodeToString(b[:])
}

func entries(ces []control.CommittedEntry) []metadata.Entry {
	out := make([]metadata.Entry, len(ces))
	for i := range ces {
		out[i] = ces[i].Entry
	}
	return out
}

// reserve makes room in im for the partitions recs create. Image.Replay appends partitions one
// at a time, and growing a slice of a million of them copies it over and over (and touches fresh
// memory each time), when a bootstrap creates them all at once. Only the capacity changes, by
// at least doubling it, since the committed log arrives in many batches.
func reserve(im *metadata.Image, n int, rec func(i int) metadata.Record) {
	if n < 1024 {
		return
	}
	parts := 0
	for i := range n {
		if _, ok := rec(i).(*metadata.PartitionRecord); ok {
			parts++
		}
	}
	im.ReservePartitions(parts)
}

// onCommitted publishes newly committed entries to the brokers, once the controllers have
// replayed them into the committed view (beforeCommit, afterCommit).
func (c *Cluster) onCommitted(ces []control.CommittedEntry) {
	for i := range ces {
		if c.bootOffset >= 0 && ces[i].Offset >= c.bootOffset {
			c.booted = true
		}
	}
	if c.fleet != nil {
		if cap(c.pub) < len(ces) {
			c.pub = make([]metadata.Entry, 0, len(ces)) // a burst's tens of thousands at once
		}
		for i := range ces {
			c.pub = append(c.pub, ces[i].Entry)
		}
		c.fail(c.fleetErr(c.fleet.Publish(c.pub)))
		clear(c.pub) // keep no records alive in the reused buffer
		c.pub = c.pub[:0]
	}
}

// commitNote is what beforeCommit saw of the committed view before an entry's replay, for
// afterCommit: the partition the entry changes, its value before, and the partition it gives a
// leader (-1: none).
type commitNote struct {
	touched, newLeader int32
	hasBefore          bool
	before             metadata.Partition
}

// beforeCommit notes, before the controllers replay a newly committed entry into the committed
// view, what afterCommit compares it with.
func (c *Cluster) beforeCommit(ce control.CommittedEntry) {
	n := &c.note
	*n = commitNote{touched: -1, newLeader: -1}
	switch r := ce.Record.(type) {
	case *metadata.PartitionChangeRecord:
		if idx, ok := c.view.PartitionIndex(r.Topic, r.PartitionID); ok {
			n.touched = idx
			n.before, n.hasBefore = c.view.Partitions[idx], true
		}
		if r.LeaderRecoveryState == metadata.Recovering {
			c.unclean++
		}
		// A leader set while the partition is RECOVERING came from an unclean election: the
		// record names the state only if it changes (Kafka's meter, and unclean above, miss a
		// second unclean election before the first leader recovered), and the only clean
		// choice, the recovering leader itself, loses nothing.
		if r.Leader >= 0 {
			n.newLeader = n.touched
		}
	case *metadata.RemoveTopicRecord:
		if t, ok := c.view.TopicByName(r.Topic); ok {
			top := c.view.Topics[t]
			for i := top.First; i < top.First+top.Count; i++ {
				c.count(&c.view.Partitions[i], -1)
			}
		}
	}
}

// afterCommit checks the metadata invariants on the partition a newly committed entry touched,
// once the controllers replayed it into the committed view, and keeps the counters.
func (c *Cluster) afterCommit(ce control.CommittedEntry, err error) {
	touched, newLeader := c.note.touched, c.note.newLeader
	var before *metadata.Partition
	if c.note.hasBefore {
		before = &c.note.before // read here only; the next beforeCommit overwrites it
	}
	if err != nil {
		c.fail(fmt.Errorf("cluster: committed record at offset %d does not replay: %w", ce.Offset, err))
		return
	}
	if newLeader >= 0 {
		if p := &c.view.Partitions[newLeader]; p.Recovery() == metadata.Recovering {
			c.dur.ObserveUnclean(newLeader, p.LeaderEpoch)
		}
	}
	if c.obs != nil {
		changed := int32(-1)
		if before != nil {
			changed = touched
		}
		c.tellCommitted(ce, before, changed)
	}
	now := ce.CommitMs - c.t0
	switch r := ce.Record.(type) {
	case *metadata.PartitionRecord:
		touched = int32(len(c.view.Partitions) - 1)
	case *metadata.BrokerRegistrationChangeRecord:
		if r.BrokerID == c.lastRestarted && r.Fenced == metadata.FenceUnfence && c.unfencedAtMs < 0 {
			c.unfencedAtMs = now
		}
	}
	if touched >= 0 {
		if before != nil {
			c.count(before, -1)
		}
		p := &c.view.Partitions[touched]
		c.count(p, +1)
		if v := c.meta.ObservePartition(now, c.view, touched); v != nil {
			c.fail(v)
		}
		c.checkRestored(now)
	}
}

// count adds (sign +1) or removes (-1) a partition's contribution to the sample counters.
func (c *Cluster) count(p *metadata.Partition, sign int) {
	if p.Leader >= 0 {
		c.leaders.add(p.Leader, sign)
	}
	if p.IsrLen() < len(p.Replicas()) {
		c.underReplicated += sign
	}
	// The image's ImbalancedPreferring(pref) holds exactly the partitions preferring pref
	// without a preferred leader; those with pref out of the ISR are the out-of-sync ones.
	if pref := p.Preferred(); pref != metadata.NoLeader && !p.HasPreferredLeader() && !p.InIsr(pref) {
		c.oosPreferred.add(pref, sign)
	}
}

// checkRestored notes when the last restarted broker, once unfenced, leads at least 99 % of
// its preferred partitions again.
func (c *Cluster) checkRestored(nowMs int64) {
	if c.unfencedAtMs < 0 || c.restoredAtMs >= 0 {
		return
	}
	total := c.view.PreferredCount(c.lastRestarted)
	led := total - len(c.view.ImbalancedPreferring(c.lastRestarted))
	if total == 0 || float64(led) >= 0.99*float64(total) {
		c.restoredAtMs = nowMs
	}
}

func (c *Cluster) onBrokerCommitted(b int32, es []metadata.Entry) {
	if c.fleet != nil && c.fleet.State(b) != broker.NotRunning {
		// The fleet decodes each record once, when it is first committed (onCommitted), and a
		// broker's applying then only needs the offset it reaches: handing it just the last
		// entry saves a hundred brokers a pass over entries already published.
		if last := len(es) - 1; last > 0 && es[last].Offset <= c.fleet.Published() {
			es = es[last:]
		}
		c.fail(c.fleetErr(c.fleet.ApplyMetadata(b, es)))
	}
}

func (c *Cluster) fleetErr(err error) error {
	if err != nil {
		return fmt.Errorf("cluster: brokers: %w", err)
	}
	return nil
}

// fail records the first error; the run stops at it.
func (c *Cluster) fail(err error) {
	if err != nil && c.err == nil {
		c.err = err
	}
}

// takeRuns collects the electPreferred runs an engine controller made, checking each.
func (c *Cluster) takeRuns(e *controller.Controller, node int32) {
	if e == nil {
		return
	}
	for _, r := range e.TakeBalancerRuns() {
		r.TimeMs -= c.t0
		if r.NextRunMs >= 0 {
			r.NextRunMs -= c.t0
		}
		im := e.Image()
		names := make([]controller.TopicPartition, len(r.Elected))
		for i, idx := range r.Elected {
			names[i] = controller.TopicPartition{Topic: "?", Partition: idx}
			if int(idx) < len(im.Partitions) {
				p := &im.Partitions[idx]
				names[i] = controller.TopicPartition{Topic: im.TopicName(p), Partition: p.ID}
			}
		}
		c.runs = append(c.runs, BalancerRun{Run: r, Leaders: r.Leaders, Controller: node, Partitions: names})
		if c.obs != nil {
			c.tellRun(len(c.runs), &c.runs[len(c.runs)-1])
		}
		c.electionsSinceLast += len(r.Elected)
		if v := c.bal.Observe(r, e.Image()); v != nil {
			c.fail(v)
		}
	}
}

// Now is the scenario time in milliseconds.
func (c *Cluster) Now() int64 { return c.s.Now() - c.t0 }

// Err is the first invariant violation or internal error, if any.
func (c *Cluster) Err() error { return c.err }

// RunUntil lets time pass until scenario time ms, stopping at the first violation.
func (c *Cluster) RunUntil(ms int64) error {
	target := c.t0 + ms
	if target < c.s.Now() {
		return fmt.Errorf("cluster: cannot run until %d ms: the clock is at %d ms", ms, c.Now())
	}
	for c.err == nil {
		next, ok := c.s.NextAt()
		if !ok || next > target {
			break
		}
		c.s.Step()
		if node, _, ok := c.ctl.Active(); ok {
			c.takeRuns(c.ctl.ActiveController(), node)
		}
	}
	if c.err != nil {
		return c.err
	}
	_, err := c.s.RunUntil(target)
	return err
}

// Controllers exposes the controller quorum for observers (read-only use).
func (c *Cluster) Controllers() *control.Controllers { return c.ctl }

// Fleet exposes the brokers for observers (read-only use).
func (c *Cluster) Fleet() *broker.Fleet { return c.fleet }

// View is the committed metadata image (read-only).
func (c *Cluster) View() *metadata.Image { return c.view }
