package controller

import (
	"encoding/base64"
	"math/rand/v2"

	"github.com/kraftlab/kraftlab/engine/config"
	"github.com/kraftlab/kraftlab/engine/metadata"
)

// maxTopicNameLength is Kafka's Topic.MAX_NAME_LENGTH.
const maxTopicNameLength = 249

// ValidateTopicName applies Kafka's topic-name rules (Topic.validate).
func ValidateTopicName(name string) error {
	if name == "" || name == "." || name == ".." {
		return apiErr(InvalidTopic, "Topic name %q is illegal: it can't be empty, '.' or '..'", name)
	}
	if len(name) > maxTopicNameLength {
		return apiErr(InvalidTopic, "Topic name is illegal, it can't be longer than %d characters, topic name: %s", maxTopicNameLength, name)
	}
	for _, r := range name {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '_' || r == '-') {
			return apiErr(InvalidTopic, "Topic name %q is illegal, it contains a character other than ASCII alphanumerics, '.', '_' and '-'", name)
		}
	}
	return nil
}

// NewTopicID returns a random topic id from the controller's seeded source, written as Kafka
// writes a Uuid: 16 bytes in URL-safe base64 without padding.
func (c *Controller) NewTopicID() string {
	var b [16]byte
	for i := 0; i < 16; i += 8 {
		v := c.rng.Uint64()
		for j := 0; j < 8; j++ {
			b[i+j] = byte(v >> (8 * j))
		}
	}
	return base64.RawURLEncoding.EncodeToString(b[:])
}

// PlaceReplicas assigns replicas as Kafka's StripedReplicaPlacer does on a cluster without racks
// (StripedReplicaPlacer.place and RackList.place). The usable brokers are split into unfenced and
// fenced; each list is shuffled by the seeded source and read from a random offset that moves one
// further along for every partition. A partition takes rf brokers, unfenced ones first and fenced
// ones only when the unfenced are used up, so a fenced broker is never replicas[0], the leader.
// After as many partitions as there are unfenced brokers both lists are reshuffled. Leaderships
// spread evenly and placement depends on the seeded source.
//
// Kafka refuses, in this order: no unfenced broker ("All brokers are currently fenced."), then a
// replication factor above the number of usable brokers, fenced ones counted ("... only M
// broker(s) are registered."), each prefixed by ReplicationControlManager.createTopic's
// "Unable to replicate the partition rf time(s): ".
func (c *Controller) PlaceReplicas(unfenced, fenced []int32, partitions, rf int) ([][]int32, error) {
	if rf < 1 || rf > metadata.MaxReplicas {
		return nil, apiErr(InvalidReplicationFactor, "Replication factor must be between 1 and %d in this model, got %d", metadata.MaxReplicas, rf)
	}
	if partitions < 1 {
		return nil, apiErr(InvalidPartitions, "Number of partitions was set to an invalid non-positive value.")
	}
	if len(unfenced) == 0 {
		return nil, apiErr(InvalidReplicationFactor, "Unable to replicate the partition %d time(s): All brokers are currently fenced.", rf)
	}
	if total := len(unfenced) + len(fenced); rf > total {
		return nil, apiErr(InvalidReplicationFactor, "Unable to replicate the partition %d time(s): The target replication factor of %d cannot be reached because only %d broker(s) are registered.", rf, rf, total)
	}
	up, down := newStripe(unfenced), newStripe(fenced)
	up.shuffle(c.rng)
	down.shuffle(c.rng)
	n := len(unfenced)
	out := make([][]int32, partitions)
	// Every list is cut from one array, each with its capacity capped at rf so that an
	// append to one copies it as if it had its own: a topic of 60,000 partitions is one
	// allocation rather than 60,000 small objects for the GC to track.
	all := make([]int32, partitions*rf)
	for p := 0; p < partitions; p++ {
		if p > 0 && p%n == 0 && n > 1 {
			up.shuffle(c.rng)
			down.shuffle(c.rng)
		}
		reps := all[p*rf : p*rf : (p+1)*rf]
		reps = up.take(reps, rf)
		if len(reps) < rf {
			reps = down.take(reps, rf)
		}
		out[p] = reps
	}
	return out, nil
}

// stripe is one of StripedReplicaPlacer's broker lists: brokers in a shuffled order and the
// offset the next partition starts from.
type stripe struct {
	ids    []int32
	offset int
}

func newStripe(ids []int32) stripe { return stripe{ids: append([]int32(nil), ids...)} }

// shuffle reorders the list and picks a new starting offset; an empty list draws nothing from
// the source, so a cluster with no fenced broker places as it did before fenced brokers counted.
func (s *stripe) shuffle(rng *rand.Rand) {
	if n := len(s.ids); n > 0 {
		rng.Shuffle(n, func(i, j int) { s.ids[i], s.ids[j] = s.ids[j], s.ids[i] })
		s.offset = rng.IntN(n)
	}
}

// take appends consecutive brokers of the list, from one past the offset, until reps has rf
// members or the list is used up, and moves the offset on by one for the next partition.
func (s *stripe) take(reps []int32, rf int) []int32 {
	n := len(s.ids)
	if n == 0 {
		return reps
	}
	s.offset = (s.offset + 1) % n
	for j := 0; j < n && len(reps) < rf; j++ {
		reps = append(reps, s.ids[(s.offset+j)%n])
	}
	return reps
}

// UsableBrokers splits the registered brokers that may receive new replicas into unfenced and
// fenced, as ClusterControlManager.usableBrokers does: every registered broker except one in
// controlled shutdown (BrokerHeartbeatState.shuttingDown), fenced ones included. A broker that
// stopped without deregistering stays registered and fenced, so it still gets replicas.
func (c *Controller) UsableBrokers() (unfenced, fenced []int32) {
	for _, id := range c.image.BrokerIDs() {
		b := c.image.Broker(id)
		switch {
		case b == nil || !b.Registered || c.shuttingDown(id):
		case b.Fenced:
			fenced = append(fenced, id)
		default:
			unfenced = append(unfenced, id)
		}
	}
	return unfenced, fenced
}

// shuttingDown is BrokerHeartbeatState.shuttingDown: the broker's heartbeat asked for a
// controlled shutdown (or it was replayed in one when this controller activated) and it has not
// been fenced since. The registration's InControlledShutdown flag alone does not exclude it.
func (c *Controller) shuttingDown(id int32) bool {
	s := c.sessions[id]
	return s != nil && s.controlledShutdownOffset >= 0 && !c.image.Broker(id).Fenced
}

// CreateTopicRequest is one topic of a CreateTopics request.
type CreateTopicRequest struct {
	Name              string
	NumPartitions     int
	ReplicationFactor int
	// Assignments, when set, gives each partition's replicas and overrides the two counts.
	Assignments [][]int32
	Configs     []ConfigEntry
}

// ConfigEntry is one config of a request, in the order given.
type ConfigEntry struct {
	Name  string
	Value any
}

// CreateTopic creates a topic: a TopicRecord, its ConfigRecords, then a PartitionRecord per
// partition whose ISR is the active assigned replicas, led by the first of them. Without an
// assignment the replicas are placed over the usable brokers (UsableBrokers, PlaceReplicas).
func (c *Controller) CreateTopic(req CreateTopicRequest, nowMs int64) error {
	if err := ValidateTopicName(req.Name); err != nil {
		return err
	}
	if _, exists := c.image.TopicByName(req.Name); exists {
		return apiErr(TopicAlreadyExists, "Topic '%s' already exists.", req.Name)
	}
	var topicConfigs config.Values
	for _, e := range req.Configs {
		if err := topicConfigs.Set(e.Name, e.Value, config.Topic); err != nil {
			return &APIError{Code: InvalidConfig, Message: err.Error()}
		}
	}
	assignments, manual := req.Assignments, req.Assignments != nil
	if !manual {
		unfenced, fenced := c.UsableBrokers()
		var err error
		if assignments, err = c.PlaceReplicas(unfenced, fenced, req.NumPartitions, req.ReplicationFactor); err != nil {
			return err
		}
	}
	if err := c.checkAssignments(assignments); err != nil {
		return err
	}
	parts := make([]*metadata.PartitionRecord, len(assignments))
	for i, reps := range assignments {
		var isr []int32
		for _, r := range reps {
			if c.isActive(r) {
				isr = append(isr, r)
			}
		}
		// ReplicationControlManager.createTopic: the ISR is the active replicas, led by the
		// first; with none, a manual assignment is refused for that partition, a placed one
		// (whose first replica the placer took unfenced, so this is Kafka's safety net) for its
		// replication factor.
		if len(isr) == 0 && manual {
			return apiErr(InvalidReplicaAssignment, "All brokers specified in the manual partition assignment for partition %d are fenced or in controlled shutdown.", i)
		}
		if len(isr) == 0 {
			return apiErr(InvalidReplicationFactor, "Unable to replicate the partition %d time(s): All brokers are currently fenced or in controlled shutdown.", len(reps))
		}
		parts[i] = &metadata.PartitionRecord{Topic: req.Name, PartitionID: int32(i), Replicas: append([]int32(nil), reps...),
			Isr: isr, Leader: isr[0], Elr: []int32{}, LastKnownElr: []int32{}}
	}
	defer c.afterWrite(nowMs)
	id := c.NewTopicID()
	c.append(&metadata.TopicRecord{Name: req.Name, TopicID: id})
	for _, name := range topicConfigs.Names() {
		v, _ := topicConfigs.Get(name)
		c.append(configRecord(metadata.ResourceTopic, req.Name, name, v))
	}
	for _, p := range parts {
		p.TopicID = id
		c.append(p)
	}
	return nil
}

func (c *Controller) checkAssignments(assignments [][]int32) error {
	if len(assignments) == 0 {
		return apiErr(InvalidPartitions, "Number of partitions was set to an invalid non-positive value.")
	}
	for i, reps := range assignments {
		if len(reps) == 0 || len(reps) > metadata.MaxReplicas {
			return apiErr(InvalidReplicaAssignment, "Partition %d has %d replicas; this model allows 1 to %d.", i, len(reps), metadata.MaxReplicas)
		}
		for j, r := range reps {
			if b := c.image.Broker(r); b == nil || !b.Registered {
				return apiErr(InvalidReplicaAssignment, "The manual partition assignment includes broker %d, but no broker with that ID is registered.", r)
			}
			for _, s := range reps[:j] {
				if s == r {
					return apiErr(InvalidReplicaAssignment, "The manual partition assignment includes the broker %d more than once.", r)
				}
			}
		}
	}
	return nil
}

// DeleteTopic removes a topic with one RemoveTopicRecord.
func (c *Controller) DeleteTopic(name string, nowMs int64) error {
	t, ok := c.image.TopicByName(name)
	if !ok {
		return apiErr(UnknownTopicOrPartition, "This server does not host this topic-partition: %s", name)
	}
	defer c.afterWrite(nowMs)
	c.append(&metadata.RemoveTopicRecord{Topic: name, TopicID: c.image.Topics[t].ID})
	return nil
}

// SetConfig handles one IncrementalAlterConfigs SET (or DELETE when value is nil) at the cluster
// level (topic "") or on a topic. Static configs cannot change while the controller runs. A change
// of min.insync.replicas under ELR also clears the affected ELRs with a ClearElrRecord.
func (c *Controller) SetConfig(topic, name string, value any, nowMs int64) error {
	def, ok := config.Lookup(name)
	if !ok {
		return &APIError{Code: InvalidConfig, Message: config.UnknownError(name).Error()}
	}
	resType, level, scope := metadata.ResourceBroker, &c.image.Cluster, config.Cluster
	var topicID string
	if topic != "" {
		t, ok := c.image.TopicByName(topic)
		if !ok {
			return apiErr(UnknownTopicOrPartition, "Topic %s does not exist", topic)
		}
		resType, level, scope, topicID = metadata.ResourceTopic, &c.image.Topics[t].Configs, config.Topic, c.image.Topics[t].ID
	}
	if !def.Dynamic && scope == config.Cluster {
		return apiErr(InvalidRequest, "Cannot update these configs dynamically: Set(%s)", name)
	}
	if name == config.MinInsyncReplicas && value == nil && topic == "" && c.image.ElrEnabled() {
		return apiErr(InvalidConfig, "Cluster-level min.insync.replicas cannot be removed while ELR is enabled.")
	}
	var parsed any
	if value != nil {
		probe := level.Clone()
		if err := probe.Set(name, value, scope); err != nil {
			return &APIError{Code: InvalidConfig, Message: err.Error()}
		}
		parsed, _ = probe.Get(name)
	}
	defer c.afterWrite(nowMs)
	c.append(configRecord(resType, topic, name, parsed))
	if name == config.MinInsyncReplicas && c.image.ElrEnabled() {
		c.append(&metadata.ClearElrRecord{Topic: topic, TopicID: topicID})
	}
	return nil
}

// SetFeature sets a finalized feature level, as UpdateFeatures does.
func (c *Controller) SetFeature(name string, level any, nowMs int64) error {
	lvl, err := config.CheckFeature(name, level)
	if err != nil {
		return &APIError{Code: InvalidRequest, Message: err.Error()}
	}
	defer c.afterWrite(nowMs)
	if name == config.EligibleLeaderReplicasVersion && lvl >= 1 && !c.image.ElrEnabled() {
		// maybeGenerateElrSafetyRecords: ELR needs a cluster-level min.insync.replicas, so the
		// controller writes its own value before turning the feature on.
		if _, set := c.image.Cluster.Get(config.MinInsyncReplicas); !set {
			c.append(configRecord(metadata.ResourceBroker, "", config.MinInsyncReplicas, config.Resolve(config.MinInsyncReplicas, &c.static)))
		}
	}
	c.append(&metadata.FeatureLevelRecord{Name: name, FeatureLevel: lvl})
	return nil
}

// configRecord writes a typed value as the string Kafka stores; nil removes the config.
func configRecord(resType int8, resName, name string, v any) *metadata.ConfigRecord {
	rec := &metadata.ConfigRecord{ResourceType: resType, ResourceName: resName, Name: name}
	if v != nil {
		s := metadata.ConfigText(v)
		rec.Value = &s
	}
	return rec
}
