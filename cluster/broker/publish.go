package broker

import (
	"fmt"
	"hash/fnv"

	"github.com/kraftlab/kraftlab/engine/config"
	"github.com/kraftlab/kraftlab/engine/metadata"
)

// PartitionIndex returns the index of a topic's partition: its position among the log's
// PartitionRecords, the same index metadata.Image gives it.
func (f *Fleet) PartitionIndex(topic string, partition int32) (int32, bool) {
	t, ok := f.cat.byName[topic]
	if !ok || partition < 0 || partition >= f.cat.topics[t].count {
		return 0, false
	}
	return f.cat.topics[t].first + partition, true
}

// publishOne decodes one committed entry and queues its effect for the brokers.
func (pb *publisher) publishOne(e metadata.Entry) error {
	f := pb.f
	c := &f.cat
	switch r := e.Record.(type) {
	case *metadata.RegisterBrokerRecord:
		if s, ok := f.slotOf[r.BrokerID]; ok {
			c.regs[s] = creg{epoch: r.BrokerEpoch, registered: true, fenced: r.Fenced, inCS: r.InControlledShutdown}
			pb.queueBroker(e.Offset, int(s))
		}
	case *metadata.BrokerRegistrationChangeRecord:
		s, ok := f.slotOf[r.BrokerID]
		if !ok {
			return nil
		}
		reg := &c.regs[s]
		if !reg.registered || reg.epoch != r.BrokerEpoch {
			return fmt.Errorf("broker: offset %d: BrokerRegistrationChangeRecord for broker %d epoch %d, which is not registered", e.Offset, r.BrokerID, r.BrokerEpoch)
		}
		switch r.Fenced {
		case metadata.FenceFence:
			reg.fenced = true
		case metadata.FenceUnfence:
			reg.fenced = false
		}
		if r.InControlledShutdown == 1 {
			reg.inCS = true
		}
		pb.queueBroker(e.Offset, int(s))
	case *metadata.TopicRecord:
		if _, dup := c.byName[r.Name]; dup {
			return fmt.Errorf("broker: offset %d: TopicRecord for existing topic %q", e.Offset, r.Name)
		}
		h := fnv.New32a()
		h.Write([]byte(r.TopicID))
		t := int32(len(c.topics))
		c.topics = append(c.topics, ctopic{name: r.Name, id: r.TopicID, first: int32(len(f.pt)), hash: h.Sum32()})
		c.byName[r.Name], c.byID[r.TopicID] = t, t
	case *metadata.PartitionRecord:
		return pb.publishPartition(e.Offset, r)
	case *metadata.PartitionChangeRecord:
		return pb.publishChange(e.Offset, r)
	case *metadata.RemoveTopicRecord:
		t, ok := c.byID[r.TopicID]
		if !ok {
			return fmt.Errorf("broker: offset %d: RemoveTopicRecord for unknown topic id %s", e.Offset, r.TopicID)
		}
		pb.removeTopic(t)
	case *metadata.ClearElrRecord:
		for t := range c.topics {
			top := &c.topics[t]
			if top.deleted || (r.TopicID != "" && top.id != r.TopicID) {
				continue
			}
			for p := top.first; p < top.first+top.count; p++ {
				if c.parts[p].elr != 0 {
					c.parts[p].elr = 0
					c.parts[p].pe++
					pb.queuePartition(e.Offset, p)
				}
			}
		}
	case *metadata.ConfigRecord:
		level, scope := &c.cluster, config.Cluster
		if r.ResourceType == metadata.ResourceTopic {
			t, ok := c.byName[r.ResourceName]
			if !ok {
				return fmt.Errorf("broker: offset %d: ConfigRecord for unknown topic %q", e.Offset, r.ResourceName)
			}
			level, scope = &c.topics[t].configs, config.Topic
		}
		if r.Value == nil {
			level.Delete(r.Name)
		} else if err := level.Set(r.Name, *r.Value, scope); err != nil {
			return fmt.Errorf("broker: offset %d: %w", e.Offset, err)
		}
		pb.configChanged(r)
	case *metadata.FeatureLevelRecord, *metadata.NoOpRecord, *metadata.LeaderChangeMessage:
	default:
		return fmt.Errorf("broker: offset %d: unknown record %T", e.Offset, e.Record)
	}
	return nil
}

// publishPartition decodes a PartitionRecord: a new partition with its full state.
func (pb *publisher) publishPartition(off int64, r *metadata.PartitionRecord) error {
	f := pb.f
	c := &f.cat
	t, ok := c.byID[r.TopicID]
	if !ok {
		return fmt.Errorf("broker: offset %d: PartitionRecord for unknown topic id %s", off, r.TopicID)
	}
	top := &c.topics[t]
	if top.first+top.count != int32(len(f.pt)) || r.PartitionID != top.count {
		return fmt.Errorf("broker: offset %d: PartitionRecord %s-%d is out of order", off, top.name, r.PartitionID)
	}
	if len(r.Replicas) == 0 || len(r.Replicas) > metadata.MaxReplicas {
		return fmt.Errorf("broker: offset %d: PartitionRecord %s-%d has %d replicas; the model allows 1 to %d", off, top.name, r.PartitionID, len(r.Replicas), metadata.MaxReplicas)
	}
	idx := int32(len(f.pt))
	pb.addPartition(idx, t, r.Replicas)
	isr, ok := f.cat.mask(idx, r.Isr)
	_, okE := f.cat.mask(idx, r.Elr)
	_, okL := f.cat.mask(idx, r.LastKnownElr)
	if !ok || !okE || !okL {
		return fmt.Errorf("broker: offset %d: PartitionRecord %s-%d names a broker that is not a replica", off, top.name, r.PartitionID)
	}
	top.count++
	c.parts[idx].leader, c.parts[idx].le, c.parts[idx].pe, c.parts[idx].isr, c.parts[idx].recov = r.Leader, r.LeaderEpoch, r.PartitionEpoch, isr, r.LeaderRecoveryState
	c.parts[idx].isrOrder = f.cat.order(idx, r.Isr)
	c.parts[idx].elr = elrBits(len(r.Elr) > 0, len(r.LastKnownElr) > 0)
	pb.queuePartition(off, idx)
	return nil
}

// publishChange decodes a PartitionChangeRecord with Image.Replay's epoch rules.
func (pb *publisher) publishChange(off int64, r *metadata.PartitionChangeRecord) error {
	f := pb.f
	c := &f.cat
	t, ok := c.topicByID(r.TopicID)
	if !ok || r.PartitionID < 0 || r.PartitionID >= c.topics[t].count {
		return fmt.Errorf("broker: offset %d: PartitionChangeRecord for unknown partition %s-%d", off, r.Topic, r.PartitionID)
	}
	p := c.topics[t].first + r.PartitionID
	isr := c.parts[p].isr
	if r.Isr != nil {
		if isr, ok = f.cat.mask(p, r.Isr); !ok {
			return fmt.Errorf("broker: offset %d: PartitionChangeRecord %s-%d names a broker that is not a replica", off, r.Topic, r.PartitionID)
		}
		c.parts[p].isrOrder = f.cat.order(p, r.Isr)
	}
	c.parts[p].pe++
	if r.Leader != metadata.NoLeaderChange {
		c.parts[p].leader = r.Leader
		c.parts[p].le++
	}
	c.parts[p].isr = isr
	if r.Elr != nil {
		c.parts[p].elr = c.parts[p].elr&2 | elrBits(len(r.Elr) > 0, false)
	}
	if r.LastKnownElr != nil {
		c.parts[p].elr = c.parts[p].elr&1 | elrBits(false, len(r.LastKnownElr) > 0)
	}
	if r.LeaderRecoveryState != metadata.NoRecoveryChange {
		c.parts[p].recov = r.LeaderRecoveryState
	}
	pb.queuePartition(off, p)
	return nil
}

// removeTopic retires a deleted topic's partitions: their replicas stop everywhere.
func (pb *publisher) removeTopic(t int32) {
	f := pb.f
	c := &f.cat
	top := &c.topics[t]
	for p := top.first; p < top.first+top.count; p++ {
		if !f.pt[p].deleted {
			f.roles.freezeAll(p)
			f.pt[p].hwFrozen = true
			f.pt[p].deleted = true
		}
	}
	for s := range c.replicaOf {
		kept := c.replicaOf[s][:0]
		for _, p := range c.replicaOf[s] {
			if p < top.first || p >= top.first+top.count {
				kept = append(kept, p)
			}
		}
		c.replicaOf[s] = kept
	}
	top.deleted = true
	delete(c.byName, top.name)
	delete(c.byID, top.id)
}

// Publish decodes committed metadata entries into the fleet's shared catalog and queues, for
// each broker, the changes it must see. Entries already published are skipped, so the assembly may
// hand the same entries to several brokers. Entries must continue the published log without a
// gap. ApplyMetadata publishes too; Publish alone is for entries no running broker applies yet
// (while every broker is down) and for the starting cluster's bootstrap records.
func (f *Fleet) Publish(entries []metadata.Entry) error {
	if len(entries) > 1024 {
		f.pub.reserve(entries)
	}
	for i := range entries {
		if i%warmChunk == 0 {
			f.warm.warmPublish(entries[i:min(i+warmChunk, len(entries))], f.pub.published)
		}
		e := entries[i]
		if e.Offset <= f.pub.published {
			continue
		}
		if f.pub.published >= 0 && e.Offset != f.pub.published+1 {
			return fmt.Errorf("broker: metadata entry at offset %d does not follow the published offset %d; entries must come in log order without gaps", e.Offset, f.pub.published)
		}
		if err := f.pub.publishOne(e); err != nil {
			return err
		}
		f.pub.published = e.Offset
	}
	return nil
}

// Published is the offset of the last published metadata entry (-1 before any).
func (f *Fleet) Published() int64 { return f.pub.published }

// ApplyMetadata makes broker id apply committed metadata up to the last of entries (which are
// published first if needed), in log order, as its metadata loader would. The broker's view of
// its partitions and of the other brokers changes, and its replicas react: becoming leader or
// follower, truncating, moving between fetchers. A broker that is NOT_RUNNING cannot apply
// metadata (ErrNotRunning).
func (f *Fleet) ApplyMetadata(id int32, entries []metadata.Entry) error {
	b, slot, err := f.slot(id)
	if err != nil {
		return err
	}
	if b.state == NotRunning {
		return fmt.Errorf("broker: ApplyMetadata(%d): %w (state %s)", id, ErrNotRunning, b.state)
	}
	if len(entries) == 0 {
		return nil
	}
	if err := f.Publish(entries); err != nil {
		return err
	}
	f.pub.applyUpTo(slot, entries[len(entries)-1].Offset)
	return nil
}
