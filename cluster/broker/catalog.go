package broker

import (
	"slices"

	"github.com/kraftlab/kraftlab/engine/config"
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
	// isrOrder is the ISR in the log's order, as replica positions; the brokers' views keep
	// only the mask isr, and a leader's AlterPartition needs the order.
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

// catReplicas is replicas read through the catalog alone (see cpart).
func (c *catalog) catReplicas(p int32) []int32 {
	return c.rid[c.parts[p].rbase : c.parts[p].rbase+int32(c.parts[p].rf)]
}

// isrOrder is an ISR in its record's order: n replica positions, three bits each from bit 0
// of pos (metadata.MaxReplicas positions take 24 bits).
type isrOrder struct {
	pos uint32
	n   uint8
}

func (o isrOrder) len() int     { return int(o.n) }
func (o isrOrder) at(i int) int { return int(o.pos>>(3*i)) & 7 }

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

// order turns a list of broker ids, all replicas of p, into replica positions in the list's
// order.
func (c *catalog) order(p int32, ids []int32) isrOrder {
	var o isrOrder
	reps := c.catReplicas(p)
	for _, id := range ids {
		if i := slices.Index(reps, id); i >= 0 {
			o.pos |= uint32(i) << (3 * o.n)
			o.n++
		}
	}
	return o
}

// mask turns a list of broker ids into a mask of replica positions of p; false if one is
// not a replica.
func (c *catalog) mask(p int32, ids []int32) (uint8, bool) {
	var m uint8
	reps := c.catReplicas(p)
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
