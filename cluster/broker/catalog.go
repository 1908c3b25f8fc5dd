package broker

import (
	"fmt"
	"hash/fnv"
	"slices"

	"github.com/kraftlab/kraftlab/engine/config"
	"github.com/kraftlab/kraftlab/engine/metadata"
)

// catalog is the brokers' shared decoding of the committed metadata log: the part of
// metadata.Image that brokers use (topics, partition state, registrations), kept in flat
// slices beside the Fleet's own. It replays records with Image.Replay's rules — a
// PartitionChangeRecord bumps the partition epoch, and the leader epoch whenever it sets
// Leader — so partition indexes and epochs match the controller's image. It exists instead
// of a metadata.Image because that image costs twice as much memory and time per partition
// and brokers need only this.
type catalog struct {
	topics  []ctopic
	byName  map[string]int32
	byID    map[string]int32
	cluster config.Values

	regs      []creg    // by broker slot
	replicaOf [][]int32 // by broker slot: partitions with a replica there

	// Per partition, in one struct: publishChange and queuePartition read and write them
	// together.
	parts []cpart

	// Per replica slot: the broker id (replica order as in the record), and the broker's slot
	// in the fleet (-1 outside it; replicaState.rb again). queuePartition reads the slots for
	// every change: here they take 2 bytes a replica, and replicaState 32.
	rid   []int32
	rslot []int16

	// lastTopic is the topic topicByID found last (-1 for none): the changes of one batch
	// mostly name the same topic, and comparing its id (usually the very same string) is
	// cheaper than hashing it.
	lastTopic int32
}

// topicByID is byID[id], through lastTopic.
func (c *catalog) topicByID(id string) (int32, bool) {
	if t := c.lastTopic; t >= 0 && int(t) < len(c.topics) && c.topics[t].id == id && !c.topics[t].deleted {
		return t, true
	}
	t, ok := c.byID[id]
	if ok {
		c.lastTopic = t
	}
	return t, ok
}

// cpart is a partition's state as the log has it (its topic index is partState.topic), and
// where its replicas sit in the per-replica slices (partState's rbase and rf again), so that
// decoding and queuing a change read no partState: at a million partitions each read of it
// was a cache miss of its own.
type cpart struct {
	pnum   int32 // the partition's number within its topic
	leader int32 // broker id, -1 none
	le, pe int32
	rbase  int32
	// isrOrder is the ISR in the log's order, as replica positions (see isrOrder); the
	// brokers' views keep only the mask isr, and a leader's AlterPartition needs the order.
	isrOrder isrOrder
	isr      uint8 // ISR as a mask of replica positions
	elr      uint8 // bit 0: ELR non-empty, bit 1: LastKnownElr non-empty
	recov    int8
	rf       uint8
}

// ctopic is a topic's registration.
type ctopic struct {
	name, id     string
	first, count int32
	deleted      bool
	configs      config.Values
	hash         uint32
}

// creg is a broker registration as the log has it.
type creg struct {
	epoch                    int64
	registered, fenced, inCS bool
}

func newCatalog(brokers int) catalog {
	return catalog{byName: map[string]int32{}, byID: map[string]int32{},
		regs: make([]creg, brokers), replicaOf: make([][]int32, brokers), lastTopic: -1}
}

// replicas returns partition p's replica broker ids (aliases the catalog).
func (f *Fleet) replicas(p int32) []int32 {
	return f.cat.rid[f.pt[p].rbase : f.pt[p].rbase+int32(f.pt[p].rf)]
}

// catReplicas is replicas read through the catalog alone (see cpart).
func (c *catalog) catReplicas(p int32) []int32 {
	return c.rid[c.parts[p].rbase : c.parts[p].rbase+int32(c.parts[p].rf)]
}

// topicName is the name of partition p's topic.
func (f *Fleet) topicName(p int32) string { return f.cat.topics[f.pt[p].topic].name }

// replicaParts returns the partitions with a replica on broker id (aliases the catalog).
func (f *Fleet) replicaParts(id int32) []int32 {
	if s, ok := f.slotOf[id]; ok {
		return f.cat.replicaOf[s]
	}
	return nil
}

// PartitionIndex returns the index of a topic's partition: its position among the log's
// PartitionRecords, the same index metadata.Image gives it.
func (f *Fleet) PartitionIndex(topic string, partition int32) (int32, bool) {
	t, ok := f.cat.byName[topic]
	if !ok || partition < 0 || partition >= f.cat.topics[t].count {
		return 0, false
	}
	return f.cat.topics[t].first + partition, true
}

// isrOrder is an ISR in its record's order: replica positions of three bits each, from bit 0,
// with the count in the top four bits (metadata.MaxReplicas positions take 24 bits).
type isrOrder uint32

func (o isrOrder) len() int     { return int(o >> 28) }
func (o isrOrder) at(i int) int { return int(o>>(3*i)) & 7 }

// order turns a list of broker ids, all replicas of p, into replica positions in the list's
// order.
func (f *Fleet) order(p int32, ids []int32) isrOrder {
	var o isrOrder
	reps := f.cat.catReplicas(p)
	for _, id := range ids {
		if i := slices.Index(reps, id); i >= 0 {
			o |= isrOrder(i) << (3 * o.len())
			o += 1 << 28
		}
	}
	return o
}

// mask turns a list of broker ids into a mask of replica positions of p; false if one is
// not a replica.
func (f *Fleet) mask(p int32, ids []int32) (uint8, bool) {
	var m uint8
	reps := f.cat.catReplicas(p)
next:
	for _, id := range ids {
		for i, r := range reps {
			if r == id {
				m |= 1 << i
				continue next
			}
		}
		return 0, false
	}
	return m, true
}

// publishOne decodes one committed entry and queues its effect for the brokers.
func (f *Fleet) publishOne(e metadata.Entry) error {
	c := &f.cat
	switch r := e.Record.(type) {
	case *metadata.RegisterBrokerRecord:
		if s, ok := f.slotOf[r.BrokerID]; ok {
			c.regs[s] = creg{epoch: r.BrokerEpoch, registered: true, fenced: r.Fenced, inCS: r.InControlledShutdown}
			f.queueBroker(e.Offset, int(s))
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
		f.queueBroker(e.Offset, int(s))
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
		return f.publishPartition(e.Offset, r)
	case *metadata.PartitionChangeRecord:
		return f.publishChange(e.Offset, r)
	case *metadata.RemoveTopicRecord:
		t, ok := c.byID[r.TopicID]
		if !ok {
			return fmt.Errorf("broker: offset %d: RemoveTopicRecord for unknown topic id %s", e.Offset, r.TopicID)
		}
		f.removeTopic(t)
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
					f.queuePartition(e.Offset, p)
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
		f.configChanged(r)
	case *metadata.FeatureLevelRecord, *metadata.NoOpRecord, *metadata.LeaderChangeMessage:
	default:
		return fmt.Errorf("broker: offset %d: unknown record %T", e.Offset, e.Record)
	}
	return nil
}

// publishPartition decodes a PartitionRecord: a new partition with its full state.
func (f *Fleet) publishPartition(off int64, r *metadata.PartitionRecord) error {
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
	f.addPartition(idx, t, r.Replicas)
	isr, ok := f.mask(idx, r.Isr)
	_, okE := f.mask(idx, r.Elr)
	_, okL := f.mask(idx, r.LastKnownElr)
	if !ok || !okE || !okL {
		return fmt.Errorf("broker: offset %d: PartitionRecord %s-%d names a broker that is not a replica", off, top.name, r.PartitionID)
	}
	top.count++
	c.parts[idx].leader, c.parts[idx].le, c.parts[idx].pe, c.parts[idx].isr, c.parts[idx].recov = r.Leader, r.LeaderEpoch, r.PartitionEpoch, isr, r.LeaderRecoveryState
	c.parts[idx].isrOrder = f.order(idx, r.Isr)
	c.parts[idx].elr = elrBits(len(r.Elr) > 0, len(r.LastKnownElr) > 0)
	f.queuePartition(off, idx)
	return nil
}

// publishChange decodes a PartitionChangeRecord with Image.Replay's epoch rules.
func (f *Fleet) publishChange(off int64, r *metadata.PartitionChangeRecord) error {
	c := &f.cat
	t, ok := c.topicByID(r.TopicID)
	if !ok || r.PartitionID < 0 || r.PartitionID >= c.topics[t].count {
		return fmt.Errorf("broker: offset %d: PartitionChangeRecord for unknown partition %s-%d", off, r.Topic, r.PartitionID)
	}
	p := c.topics[t].first + r.PartitionID
	isr := c.parts[p].isr
	if r.Isr != nil {
		if isr, ok = f.mask(p, r.Isr); !ok {
			return fmt.Errorf("broker: offset %d: PartitionChangeRecord %s-%d names a broker that is not a replica", off, r.Topic, r.PartitionID)
		}
		c.parts[p].isrOrder = f.order(p, r.Isr)
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
	f.queuePartition(off, p)
	return nil
}

func elrBits(elr, lke bool) uint8 {
	var b uint8
	if elr {
		b |= 1
	}
	if lke {
		b |= 2
	}
	return b
}

// removeTopic retires a deleted topic's partitions: their replicas stop everywhere.
func (f *Fleet) removeTopic(t int32) {
	c := &f.cat
	top := &c.topics[t]
	for p := top.first; p < top.first+top.count; p++ {
		if !f.pt[p].deleted {
			f.freezeAll(p)
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

// fetcherOf is Kafka's getFetcherId: a hash of (topic, partition) modulo num.replica.fetchers.
func (f *Fleet) fetcherOf(t int32, pnum int32) uint8 {
	h := (f.cat.topics[t].hash*31 + uint32(pnum)) * 0x9E3779B9
	return uint8(h % uint32(f.p.NumReplicaFetchers))
}
