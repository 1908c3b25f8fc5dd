package cluster

import (
	"slices"
	"strings"

	"github.com/kraftlab/kraftlab/cluster/broker"
	"github.com/kraftlab/kraftlab/cluster/check"
	"github.com/kraftlab/kraftlab/cluster/workload"
	"github.com/kraftlab/kraftlab/engine/metadata"
)

// onWindow takes a sample each time the producers close a latency window, so that a sample's
// latency figures cover exactly its interval (the window is Spec.SampleMs long).
func (c *Cluster) onWindow(w workload.Window) {
	w.StartMs -= c.t0
	w.EndMs -= c.t0
	c.windows = append(c.windows, w)
	s := Sample{TimeMs: w.EndMs, UnderReplicated: c.underReplicated, Offline: len(c.view.Leaderless()),
		Elections: c.electionsSinceLast, ProduceP50Ms: w.P50, ProduceP99Ms: w.P99, ProduceP999Ms: w.P999,
		ProduceErrors: w.Errors, ProduceTimeouts: w.Timeouts}
	c.electionsSinceLast = 0
	engine := c.ctl.ActiveController()
	c.outOfSync = slices.Grow(c.outOfSync[:0], c.fleet.NumBrokers())[:c.fleet.NumBrokers()]
	c.fleet.OutOfSyncAll(c.outOfSync) // one pass for every broker: per broker it costs a pass each
	for _, id := range c.spec.Brokers {
		total := c.view.PreferredCount(id)
		imbalanced := len(c.view.ImbalancedPreferring(id))
		slot, _ := c.fleet.Slot(id)
		bs := BrokerSample{ID: id, State: stateName(c.fleet.State(id)), Leaders: c.leaders.get(id),
			PreferredTotal: total, PreferredLed: total - imbalanced, OutOfSync: c.outOfSync[slot],
			OutOfSyncPreferred: c.oosPreferred.get(id)}
		if engine != nil {
			bs.Gated = engine.Balancer().Gated(id)
		}
		s.Brokers = append(s.Brokers, bs)
	}
	c.samples = append(c.samples, s)
	if keep := c.spec.KeepSamples; keep > 0 && len(c.samples) >= 2*keep {
		// Halve at twice the limit, so that the copy is amortised over keep samples.
		c.samples = dropOldest(c.samples, keep)
		c.windows = dropOldest(c.windows, keep)
	}
	c.checkReplicas(w.EndMs)
}

// replicaChecksPerSample bounds how many partitions each sample checks against the brokers, so
// the cost per sample does not follow the partition count; the slice rotates, covering every
// partition in turn.
const replicaChecksPerSample = 2000

// checkReplicas checks a rotating slice of partitions' serving leaders against the committed
// metadata (cluster/check.Replicas).
func (c *Cluster) checkReplicas(nowMs int64) {
	n := len(c.view.Partitions)
	if n == 0 {
		return
	}
	c.reps.Reserve(n)
	for k := 0; k < min(n, replicaChecksPerSample) && c.err == nil; k++ {
		idx := int32((c.replicaCursor + k) % n)
		p := &c.view.Partitions[idx]
		top := &c.view.Topics[p.Topic]
		if top.Deleted {
			continue
		}
		leader, epoch, hw := c.fleet.Serving(idx)
		if v := c.reps.Observe(nowMs, top.Name, idx, p, check.Serving{Leader: leader, LeaderEpoch: epoch, HighWatermark: hw}); v != nil {
			c.fail(v)
		}
	}
	c.replicaCursor = (c.replicaCursor + min(n, replicaChecksPerSample)) % n
}

// dropOldest keeps the latest keep elements of s, in place, clearing the rest so that what they
// point to can be collected.
func dropOldest[T any](s []T, keep int) []T {
	if len(s) <= keep {
		return s
	}
	n := copy(s, s[len(s)-keep:])
	clear(s[n:])
	return s[:n]
}

// stateName is a broker state's name as samples give it ("running"). The names are made once:
// every sample names every broker's state.
func stateName(s broker.State) string {
	if int(s) < len(stateNames) {
		return stateNames[s]
	}
	return strings.ToLower(s.String())
}

var stateNames = func() []string {
	var names []string
	for s := broker.State(0); ; s++ {
		name := s.String()
		if strings.HasPrefix(name, "State(") {
			return names
		}
		names = append(names, strings.ToLower(name))
	}
}()

// Records returns the committed metadata log with scenario times, or nil when the Spec set
// DiscardRecords.
func (c *Cluster) Records() []Record {
	if c.spec.DiscardRecords {
		return nil
	}
	ces := c.ctl.Committed()
	out := make([]Record, len(ces))
	for i, ce := range ces {
		out[i] = Record{Entry: ce.Entry, TimeMs: ce.CommitMs - c.t0, Epoch: ce.Epoch}
	}
	return out
}

// BalancerRuns returns every electPreferred run so far.
func (c *Cluster) BalancerRuns() []BalancerRun { return c.runs }

// ElectLeadersResults returns the answers to the elect_leaders events so far, in order.
func (c *Cluster) ElectLeadersResults() []ElectLeadersResult { return c.electResults }

// SetupEnd is the committed offset at which the cluster's setup ended: everything below it
// (the first LeaderChangeMessage and the bootstrap's features, registrations, topics and
// partitions) was committed while New brought the cluster up, before time 0.
func (c *Cluster) SetupEnd() int64 { return c.setupEnd }

// Samples returns the samples so far.
func (c *Cluster) Samples() []Sample { return c.samples }

// Describes returns the partition tables describe events took.
func (c *Cluster) Describes() []Describe { return c.describes }

// Partitions returns every live partition of the committed view, topic by topic.
func (c *Cluster) Partitions() []PartitionState {
	var out []PartitionState
	for t := range c.view.Topics {
		top := &c.view.Topics[t]
		if top.Deleted {
			continue
		}
		for i := top.First; i < top.First+top.Count; i++ {
			p := &c.view.Partitions[i]
			out = append(out, PartitionState{Topic: top.Name, Partition: p.ID, Leader: p.Leader, LeaderEpoch: p.LeaderEpoch,
				PartitionEpoch: p.PartitionEpoch, Replicas: slices.Clone(p.Replicas()), Isr: p.Isr(), Elr: p.Elr(),
				LastKnownElr: p.LastKnownElr(), Recovering: p.Recovery() == metadata.Recovering})
		}
	}
	return out
}

// Summary computes the run's summary so far.
func (c *Cluster) Summary() Summary {
	s := Summary{UnfencedAtMs: c.unfencedAtMs, LeadershipRestoredAtMs: c.restoredAtMs, RecoveryTimeMs: -1,
		UncleanElections: c.unclean, AckedRecordsLost: c.fleet.Stats().LostAckedRecords}
	if c.unfencedAtMs >= 0 && c.restoredAtMs >= 0 {
		s.RecoveryTimeMs = c.restoredAtMs - c.unfencedAtMs
	}
	if c.err != nil {
		s.InvariantViolations = 1
	}
	for _, r := range c.runs {
		s.MaxElectionsPerRun = max(s.MaxElectionsPerRun, len(r.Elected))
	}
	// Steady state: the windows in the hour before the first fault (or the whole run). Their
	// p99s are combined by the median, which a few noisy windows do not move; with less than a
	// sliding window's span of them there is no steady period to speak of, only start-up.
	var steady []float64
	s.SteadyNeedMs = c.spec.Workload.WindowMs * int64(max(1, c.spec.Workload.SlidingWindows))
	for _, w := range c.windows {
		s.ProduceTimeouts += w.Timeouts
		s.ProduceErrors += w.Errors
		before := c.firstFaultMs < 0 || w.EndMs <= c.firstFaultMs
		if before && (c.firstFaultMs < 0 || w.EndMs > c.firstFaultMs-3_600_000) && w.Samples > 0 {
			steady = append(steady, w.P99)
			s.SteadyMs += w.EndMs - w.StartMs
		}
		// Only sliding windows that lie wholly in the 10 minutes after unfencing count: one that
		// reaches back before it would report the outage, not the recovery.
		span := (w.EndMs - w.StartMs) * int64(max(1, c.spec.Workload.SlidingWindows))
		if c.unfencedAtMs >= 0 && w.EndMs-span >= c.unfencedAtMs && w.EndMs <= c.unfencedAtMs+600_000 {
			s.P99Worst10MinMs = max(s.P99Worst10MinMs, w.SlidingP99)
		}
	}
	s.P99SteadyMs, s.P99Ratio = -1, -1
	if len(steady) > 0 && s.SteadyMs >= s.SteadyNeedMs {
		slices.Sort(steady)
		s.P99SteadyMs = steady[len(steady)/2]
	}
	if c.unfencedAtMs < 0 || s.P99Worst10MinMs == 0 {
		s.P99Worst10MinMs = -1
	}
	if s.P99SteadyMs > 0 && s.P99Worst10MinMs > 0 {
		s.P99Ratio = s.P99Worst10MinMs / s.P99SteadyMs
	}
	return s
}
