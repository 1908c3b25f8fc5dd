package controller

import (
	"encoding/base64"

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

// PlaceReplicas assigns replicas as Kafka's StripedReplicaPlacer does on a cluster without racks:
// each partition takes rf consecutive brokers of a shuffled list, starting one further along
// than the previous partition, and the list is reshuffled after every len(brokers) partitions.
// So leaderships (replicas[0]) spread evenly and placement depends on the seeded source.
func (c *Controller) PlaceReplicas(brokers []int32, partitions, rf int) ([][]int32, error) {
	if rf < 1 || rf > metadata.MaxReplicas {
		return nil, apiErr(InvalidReplicationFactor, "Replication factor must be between 1 and %d in this model, got %d", metadata.MaxReplicas, rf)
	}
	if rf > len(brokers) {
		return nil, apiErr(InvalidReplicationFactor, "Unable to replicate the partition %d time(s): The target replication factor of %d cannot be reached because only %d broker(s) are registered.", rf, rf, len(brokers))
	}
	if partitions < 1 {
		return nil, apiErr(InvalidPartitions, "Number of partitions was set to an invalid non-positive value.")
	}
	list := append([]int32(nil), brokers...)
	n := len(list)
	shuffle := func() int {
		c.rng.Shuffle(n, func(i, j int) { list[i], list[j] = list[j], list[i] })
		return c.rng.IntN(n)
	}
	offset := shuffle()
	out := make([][]int32, partitions)
	for p := 0; p < partitions; p++ {
		if p > 0 && p%n == 0 && n > 1 {
			offset = shuffle()
		}
		offset = (offset + 1) % n
		reps := make([]int32, rf)
		for j := range reps {
			reps[j] = list[(offset+j)%n]
		}
		out[p] = reps
	}
	return out, nil
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
// partition whose ISR is the active assigned replicas, led by the first of them.
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
	assignments := req.Assignments
	if assignments == nil {
		var usable []int32
		for _, id := range c.image.BrokerIDs() {
			if c.isActive(id) {
				usable = append(usable, id)
			}
		}
		var err error
		if assignments, err = c.PlaceReplicas(usable, req.NumPartitions, req.ReplicationFactor); err != nil {
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
		if len(isr) == 0 {
			return apiErr(InvalidReplicationFactor, "All brokers specified in the manual partition assignment for partition %d are fenced or in controlled shutdown.", i)
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
