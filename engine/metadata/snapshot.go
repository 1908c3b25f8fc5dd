package metadata

import (
	"maps"
	"slices"

	"github.com/kraftlab/kraftlab/engine/config"
)

// Clone returns an independent deep copy of the image. The partitions are one flat slice with no
// pointers, so the copy costs a few large copies, not one allocation per partition.
func (im *Image) Clone() *Image {
	c := *im
	c.Topics = slices.Clone(im.Topics)
	for i := range c.Topics {
		c.Topics[i].Configs = im.Topics[i].Configs.Clone()
	}
	c.Partitions = slices.Clone(im.Partitions)
	c.Cluster = im.Cluster.Clone()
	c.topicByID = maps.Clone(im.topicByID)
	c.topicByName = maps.Clone(im.topicByName)
	c.brokers = slices.Clone(im.brokers)
	for i := range c.brokers {
		b := &c.brokers[i]
		b.LogDirs = slices.Clone(b.LogDirs)
		b.RegisteredDirs = slices.Clone(b.RegisteredDirs)
		b.replicaOf = slices.Clone(b.replicaOf)
		b.imbalanced = slices.Clone(b.imbalanced)
		b.imbKeys = slices.Clone(b.imbKeys)
		b.imbFlags = slices.Clone(b.imbFlags)
	}
	c.slotOf = maps.Clone(im.slotOf)
	c.denseSlot = slices.Clone(im.denseSlot)
	c.sortedSlots = slices.Clone(im.sortedSlots)
	c.imbPos = slices.Clone(im.imbPos)
	c.noLeader = slices.Clone(im.noLeader)
	c.noLeaderPos = slices.Clone(im.noLeaderPos)
	return &c
}

// SnapshotRecords writes the image as the records that rebuild it, as Kafka's snapshot generator
// writes a metadata snapshot: features, cluster configs, broker registrations, then each live
// topic with its configs and partitions. Replaying them into an empty image yields the same
// brokers, topics, partitions and configs (deleted topics are gone, as in a Kafka snapshot).
func (im *Image) SnapshotRecords() []Record {
	var out []Record
	out = append(out, &FeatureLevelRecord{Name: config.EligibleLeaderReplicasVersion, FeatureLevel: im.ElrVersion})
	out = appendConfigs(out, ResourceBroker, "", &im.Cluster)
	for _, s := range im.sortedSlots {
		b := &im.brokers[s]
		if b.Registered {
			out = append(out, &RegisterBrokerRecord{BrokerID: b.ID, IncarnationID: b.IncarnationID, BrokerEpoch: b.Epoch,
				LogDirs: slices.Clone(b.LogDirs), Fenced: b.Fenced, InControlledShutdown: b.InControlledShutdown})
		}
	}
	for t := range im.Topics {
		top := &im.Topics[t]
		if top.Deleted {
			continue
		}
		out = append(out, &TopicRecord{Name: top.Name, TopicID: top.ID})
		out = appendConfigs(out, ResourceTopic, top.Name, &top.Configs)
		for i := top.First; i < top.First+top.Count; i++ {
			p := &im.Partitions[i]
			out = append(out, &PartitionRecord{Topic: top.Name, TopicID: top.ID, PartitionID: p.ID,
				Replicas: slices.Clone(p.Replicas()), Isr: p.Isr(), Leader: p.Leader, LeaderRecoveryState: p.Recovery(),
				LeaderEpoch: p.LeaderEpoch, PartitionEpoch: p.PartitionEpoch, Elr: p.Elr(), LastKnownElr: p.LastKnownElr()})
		}
	}
	return out
}

func appendConfigs(out []Record, resType int8, name string, v *config.Values) []Record {
	for _, n := range v.Names() {
		val, _ := v.Get(n)
		s := configText(val)
		out = append(out, &ConfigRecord{ResourceType: resType, ResourceName: name, Name: n, Value: &s})
	}
	return out
}
