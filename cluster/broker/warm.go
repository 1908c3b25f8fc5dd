package broker

import "github.com/kraftlab/kraftlab/engine/metadata"

// The loops that walk a broker's partitions (applying a batch of metadata, starting or stopping
// a broker, loading a snapshot) read each partition's state and its replicas' at random places
// in arrays of tens of megabytes: almost every read is a cache miss, and a loop body is too
// long for the processor to run ahead into the next iteration's reads. The loops therefore
// take their partitions in chunks of warmChunk and first read, for the whole chunk,
// one word from each cache line the work will use. Those reads depend on nothing but the
// chunk, so the processor has them in flight together and the chunk's misses cost about one
// wait instead of one each. They change no state; sink only keeps the compiler from
// dropping them. Without them the 1M-partition roll takes about a quarter more CPU time
// (docs/performance.md has the measurement and its command).

// warmChunk is how many partitions a loop warms at a time: enough to keep the processor's
// outstanding cache misses busy, few enough that the lines are still cached when the work
// reaches them.
const warmChunk = 16

// warmChanges reads the partition and replica state applyPartition will read for the queued
// changes qs.
func (w *warmer) warmChanges(qs []change) {
	tb := w.tb
	var sink int32
	for i := range qs {
		if ch := &qs[i]; ch.kind == chPartition {
			sink += tb.pt[ch.part].rbase + tb.rp[ch.rep].rpart
		}
	}
	w.sink += sink
}

// warmParts reads the partition state of ps, then the first and last replica slot of each
// (a partition's replicas are adjacent and span at most two cache lines at the usual
// replication factors), which partitionTouchedBy reads. With one replication factor for
// every partition the replicas' place is known without the partition's state, and both are
// read in one pass.
func (w *warmer) warmParts(ps []int32) {
	tb := w.tb
	var sink int32
	if rf := int32(tb.uniformRF); rf > 0 {
		// The replicas' place follows from p: one pass, every read independent.
		for _, p := range ps {
			sink += tb.pt[p].rbase + tb.rp[p*rf].rpart + tb.rp[p*rf+rf-1].rpart
		}
		w.sink += sink
		return
	}
	for _, p := range ps {
		sink += tb.pt[p].rbase
	}
	for _, p := range ps {
		if r, n := tb.pt[p].rbase, int32(tb.pt[p].rf); n > 0 {
			sink += tb.rp[r].rpart + tb.rp[r+n-1].rpart
		}
	}
	w.sink += sink
}

// warmView reads what loadView reads for the partitions ps: warmParts, and their catalog
// entries.
func (w *warmer) warmView(ps []int32) {
	tb := w.tb
	var sink int32
	for _, p := range ps {
		sink += tb.cat.parts[p].le
	}
	w.sink += sink
	w.warmParts(ps)
}

// warmPublish reads the catalog state publishChange and queuePartition will read for the
// partition changes among es that are not published yet (above offset published): the
// partition's entry, then its replicas' ids and broker slots (in the same pass when the
// replication factor is uniform, as in warmParts).
func (w *warmer) warmPublish(es []metadata.Entry, published int64) {
	tb := w.tb
	c := &tb.cat
	ps := w.idx[:0]
	for i := range es {
		if r, ok := es[i].Record.(*metadata.PartitionChangeRecord); ok && es[i].Offset > published {
			if t, ok := c.topicByID(r.TopicID); ok && r.PartitionID >= 0 && r.PartitionID < c.topics[t].count {
				ps = append(ps, c.topics[t].first+r.PartitionID)
			}
		}
	}
	var sink int32
	rf := int32(tb.uniformRF) // the catalog's replica slots are the fleet's (see warmParts)
	for _, p := range ps {
		sink += c.parts[p].rbase
		if rf > 0 {
			sink += c.rid[p*rf] + int32(c.rslot[p*rf])
		}
	}
	if rf == 0 {
		for _, p := range ps {
			if rb := c.parts[p].rbase; c.parts[p].rf > 0 {
				sink += c.rid[rb] + int32(c.rslot[rb])
			}
		}
	}
	w.sink += sink
	w.idx = ps
}

// warmAlter reads the state flushAlter and alterReply read for the partitions ps: the
// partition's state, its pending AlterPartition (in alter) and catalog entry, then its
// replicas (in the same pass when the replication factor is uniform).
func (w *warmer) warmAlter(ps []int32, alter []alterProposal) {
	tb := w.tb
	var sink int32
	rf := int32(tb.uniformRF)
	for _, p := range ps {
		sink += tb.pt[p].rbase + alter[p].le + tb.cat.parts[p].pnum
		if rf > 0 {
			sink += tb.rp[p*rf].rpart + tb.cat.rid[p*rf]
		}
	}
	if rf == 0 {
		for _, p := range ps {
			if r := tb.pt[p].rbase; tb.pt[p].rf > 0 {
				sink += tb.rp[r].rpart + tb.cat.rid[r]
			}
		}
	}
	w.sink += sink
}

// warmWatch reads the state watchRelevant and recheckWatch read for the watched replicas rs:
// the replica, then its partition's state (in the same pass when
// the replication factor is uniform: replica r is then partition r/rf's).
func (w *warmer) warmWatch(rs []int32) {
	tb := w.tb
	var sink int32
	rf := int32(tb.uniformRF)
	for _, r := range rs {
		sink += tb.rp[r].rpart
		if rf > 0 {
			sink += tb.pt[r/rf].rbase // replica r belongs to partition r/rf
		}
	}
	if rf == 0 {
		for _, r := range rs {
			sink += tb.pt[tb.rp[r].rpart].rbase
		}
	}
	w.sink += sink
}
