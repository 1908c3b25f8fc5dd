package controller

import (
	"slices"

	"github.com/kraftlab/kraftlab/engine/config"
	"github.com/kraftlab/kraftlab/engine/metadata"
)

// minIsr is the topic's effective min.insync.replicas: min(configured, replication factor).
func (c *Controller) minIsr(p *metadata.Partition) int {
	return min(int(c.topicConfigs(p.Topic).minIsr), len(p.Replicas()))
}

func (c *Controller) uncleanEnabled(p *metadata.Partition) bool {
	return c.topicConfigs(p.Topic).unclean
}

// configCache holds configs resolved against image at a ConfigGeneration.
type configCache struct {
	image    *metadata.Image
	gen      uint64
	topics   []topicCfg
	schedule uint8 // writeTriggered: 0 not resolved, 1 periodic, 2 write-triggered
}

// configCache returns the cache, emptied if the image or its configs changed since it was
// filled.
func (c *Controller) configCache() *configCache {
	cc := &c.cfgCache
	if cc.image != c.image || cc.gen != c.image.ConfigGeneration() {
		cc.image, cc.gen, cc.schedule = c.image, c.image.ConfigGeneration(), 0
		clear(cc.topics)
	}
	return cc
}

// topicCfg is a topic's min.insync.replicas and unclean.leader.election.enable, resolved.
type topicCfg struct {
	resolved bool
	minIsr   int64
	unclean  bool
}

// topicConfigs resolves the configs every partition change reads for topic t, through a cache
// that lasts while the image and its ConfigGeneration stay the same (the static configs never
// change): resolving them anew cost three string-keyed map lookups each, for every change.
func (c *Controller) topicConfigs(t int32) topicCfg {
	cc := c.configCache()
	for int(t) >= len(cc.topics) {
		cc.topics = append(cc.topics, topicCfg{})
	}
	if tc := cc.topics[t]; tc.resolved {
		return tc
	}
	levels := c.levels(&c.image.Topics[t])
	tc := topicCfg{resolved: true, minIsr: config.Int64(config.MinInsyncReplicas, levels...),
		unclean: config.Bool(config.UncleanLeaderElectionEnable, levels...)}
	cc.topics[t] = tc
	return tc
}

// newBuilder prepares a PartitionChangeBuilder for partition idx. It is a value, not a pointer,
// so that a build that writes nothing (the common case in a balancer run) allocates nothing.
func (c *Controller) newBuilder(idx int32, election Election) changeBuilder {
	p := &c.image.Partitions[idx]
	top := &c.image.Topics[p.Topic]
	return changeBuilder{part: p, topic: top.Name, topicID: top.ID, election: election,
		recovery: metadata.NoRecoveryChange, minIsr: c.minIsr(p), elrEnabled: c.image.ElrEnabled(),
		ctl: c, idx: idx, brokerToRemove: -1, brokerToAdd: -1}
}

// write appends a built change, if any, and keeps the election meters.
func (c *Controller) write(res buildResult) bool {
	if !res.changed {
		return false
	}
	c.append(c.slab.record(&res.record))
	if res.record.LeaderRecoveryState == metadata.Recovering {
		c.counts.UncleanLeaderElections++
	}
	if res.fromElr && !res.unclean {
		c.counts.ElectionsFromElr++
	}
	return true
}

// generateLeaderAndIsrUpdates is Kafka's method of the same name: for each partition, remove
// brokerToRemove from the ISR (it is never an acceptable leader), accept brokerToAdd even if its
// registration is still fenced, and elect ONLINE (UNCLEAN where the topic allows it).
func (c *Controller) generateLeaderAndIsrUpdates(brokerToRemove, brokerToAdd int32, partitions []int32, uncleanShutdown []int32) {
	for _, idx := range partitions {
		c.updateLeaderAndIsr(brokerToRemove, brokerToAdd, idx, uncleanShutdown)
	}
}

// updateLeaderAndIsr is generateLeaderAndIsrUpdates for one partition.
func (c *Controller) updateLeaderAndIsr(brokerToRemove, brokerToAdd int32, idx int32, uncleanShutdown []int32) {
	p := &c.image.Partitions[idx]
	election := ElectionOnline
	if c.uncleanEnabled(p) {
		election = ElectionUnclean
	}
	b := c.newBuilder(idx, election)
	b.brokerToRemove, b.brokerToAdd = brokerToRemove, brokerToAdd
	b.uncleanShutdown = uncleanShutdown
	if brokerToRemove >= 0 && p.InIsr(brokerToRemove) {
		b.targetIsr = without([]int32{}, p.Isr(), brokerToRemove) // non-nil: nil means "unchanged"
	}
	c.write(b.build())
}

// removeFromIsrs is generateLeaderAndIsrUpdates(id, -1, partitions with id in their ISR, nil),
// in one pass: each partition is updated as soon as it is found, while it is in the cache,
// rather than read once to list it and again, a cache miss each time, to update it. Updating a
// partition changes no other partition's ISR, nor the broker's replica list.
func (c *Controller) removeFromIsrs(id int32) {
	parts := c.image.ReplicaPartitions(id)
	for _, idx := range parts {
		if c.image.Partitions[idx].InIsr(id) {
			c.updateLeaderAndIsr(id, -1, idx, nil)
		}
	}
}

// electPartition runs one election of the given kind on a partition and writes its record.
// It returns nil if a record was written.
func (c *Controller) electPartition(idx int32, election Election) *APIError {
	p := &c.image.Partitions[idx]
	if (election == ElectionPreferred && p.HasPreferredLeader()) || (election == ElectionUnclean && p.Leader >= 0) {
		return errElectionNotNeeded
	}
	bld := c.newBuilder(idx, election)
	if c.write(bld.build()) {
		return nil
	}
	if election == ElectionPreferred {
		return errPreferredNotAvailable
	}
	return errEligibleNotAvailable
}

// The answers of an election that wrote nothing. They carry no per-call detail, so they are
// shared values: the balancer gets one for every partition it examines in vain, and allocating
// each would load the garbage collector (which blocks the page in WebAssembly).
var (
	errElectionNotNeeded     = &APIError{Code: ElectionNotNeeded}
	errPreferredNotAvailable = &APIError{Code: PreferredLeaderNotAvailable, Message: "The preferred leader was not available."}
	errEligibleNotAvailable  = &APIError{Code: EligibleLeadersNotAvailable, Message: "Eligible topic partition leaders are not available."}
)

// maybeElectUncleanLeaders is the electUnclean task: UNCLEAN elections for leaderless
// partitions of topics that allow them, at most 1,000 per run.
func (c *Controller) maybeElectUncleanLeaders() bool {
	const maxElections = 1000
	leaderless := slices.Clone(c.image.Leaderless())
	slices.Sort(leaderless)
	written := 0
	for _, idx := range leaderless {
		if written >= maxElections {
			break
		}
		if c.uncleanEnabled(&c.image.Partitions[idx]) && c.electPartition(idx, ElectionUnclean) == nil {
			written++
		}
	}
	return written >= maxElections
}

// TopicPartition names a partition in a request.
type TopicPartition struct {
	Topic     string
	Partition int32
}

// ElectionResult is one partition's outcome in an ElectLeaders response.
type ElectionResult struct {
	TopicPartition
	Error *APIError // nil for NONE
}

// ElectLeaders handles an ElectLeaders request. An empty partition list means every partition,
// as kafka-leader-election.sh --all-topic-partitions asks; the answer then leaves out the
// partitions that needed no election, as Kafka's does.
func (c *Controller) ElectLeaders(election Election, partitions []TopicPartition, nowMs int64) []ElectionResult {
	defer c.afterWrite(nowMs)
	all := len(partitions) == 0
	if all {
		for _, top := range c.image.Topics {
			if top.Deleted {
				continue
			}
			for i := int32(0); i < top.Count; i++ {
				partitions = append(partitions, TopicPartition{top.Name, i})
			}
		}
	}
	out := make([]ElectionResult, 0, len(partitions))
	for _, tp := range partitions {
		if _, ok := c.image.TopicByName(tp.Topic); !ok {
			out = append(out, ElectionResult{tp, apiErr(UnknownTopicOrPartition, "No such topic as %s", tp.Topic)})
			continue
		}
		idx, ok := c.image.PartitionIndex(tp.Topic, tp.Partition)
		if !ok {
			out = append(out, ElectionResult{tp, apiErr(UnknownTopicOrPartition, "No such partition as %s-%d", tp.Topic, tp.Partition)})
			continue
		}
		err := c.electPartition(idx, election)
		if all && err != nil && err.Code == ElectionNotNeeded {
			continue
		}
		out = append(out, ElectionResult{tp, err})
	}
	return out
}

// AlterPartitionRequest is one partition of an AlterPartition request from its leader.
type AlterPartitionRequest struct {
	BrokerID       int32
	BrokerEpoch    int64
	Topic          string
	Partition      int32
	LeaderEpoch    int32
	PartitionEpoch int32
	NewIsr         []int32
	// LeaderRecoveryState is what the leader reports; RECOVERED after an unclean leader has
	// recovered, or NoRecoveryChange to keep the current state.
	LeaderRecoveryState int8
}

// AlterPartitions handles one AlterPartition request of many partitions, as Kafka's request
// carries them: errs[i] gets AlterPartition's answer for reqs[i] (errs must be as long).
// Partitions are handled in order.
func (c *Controller) AlterPartitions(reqs []AlterPartitionRequest, errs []error, nowMs int64) {
	for i := range reqs {
		errs[i] = c.AlterPartition(reqs[i], nowMs)
	}
}

// AlterPartition validates and applies a leader's ISR change, in Kafka's order of checks.
func (c *Controller) AlterPartition(req AlterPartitionRequest, nowMs int64) error {
	b := c.image.Broker(req.BrokerID)
	if b == nil || !b.Registered || b.Epoch != req.BrokerEpoch {
		return apiErr(StaleBrokerEpoch, "Broker %d epoch %d is not the registered one", req.BrokerID, req.BrokerEpoch)
	}
	idx, ok := c.image.PartitionIndex(req.Topic, req.Partition)
	if !ok {
		return apiErr(UnknownTopicOrPartition, "No such partition as %s-%d", req.Topic, req.Partition)
	}
	p := &c.image.Partitions[idx]
	switch {
	case req.LeaderEpoch > p.LeaderEpoch || req.PartitionEpoch > p.PartitionEpoch:
		return apiErr(NotController, "epochs newer than the controller's")
	case req.LeaderEpoch < p.LeaderEpoch:
		return apiErr(FencedLeaderEpoch, "leader epoch %d is older than %d", req.LeaderEpoch, p.LeaderEpoch)
	case req.BrokerID != p.Leader:
		return apiErr(InvalidRequest, "broker %d is not the leader of %s-%d (leader %d)", req.BrokerID, req.Topic, req.Partition, p.Leader)
	case req.PartitionEpoch < p.PartitionEpoch:
		return apiErr(InvalidUpdateVersion, "partition epoch %d is older than %d", req.PartitionEpoch, p.PartitionEpoch)
	}
	for i, r := range req.NewIsr {
		if !p.IsReplica(r) || slices.Contains(req.NewIsr[:i], r) {
			return apiErr(InvalidRequest, "ISR %s is not a set of the replicas %s", list(req.NewIsr), list(p.Replicas()))
		}
	}
	if !slices.Contains(req.NewIsr, p.Leader) {
		return apiErr(InvalidRequest, "ISR %s does not contain the leader %d", list(req.NewIsr), p.Leader)
	}
	if req.LeaderRecoveryState == metadata.Recovering && len(req.NewIsr) > 1 {
		return apiErr(InvalidRequest, "a RECOVERING leader cannot have more than one ISR member")
	}
	if p.Recovery() == metadata.Recovered && req.LeaderRecoveryState == metadata.Recovering {
		return apiErr(InvalidRequest, "RECOVERED cannot change back to RECOVERING")
	}
	for _, r := range req.NewIsr {
		if !c.isActive(r) {
			return apiErr(IneligibleReplica, "replica %d is fenced, shutting down or not registered", r)
		}
	}
	defer c.afterWrite(nowMs)
	election := ElectionOnline
	if c.uncleanEnabled(p) {
		election = ElectionUnclean
	}
	bld := c.newBuilder(idx, election)
	bld.targetIsr = req.NewIsr // only read: a record written gets its own copy
	bld.recovery = req.LeaderRecoveryState
	c.write(bld.build())
	return nil
}
