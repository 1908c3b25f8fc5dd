package quorum

// arena stores every entry ever written once, by id; node logs hold only ids. Committed entries
// are identical on every node that holds them, so sharing them keeps a hundred observers' logs at
// eight bytes an entry each. Ids grow with creation time, and every node's log holds ids in
// increasing order, which is what lets compaction drop a prefix.
type arena[P any] struct {
	base int64 // id of ents[0]
	ents []Entry[P]
}

func (a *arena[P]) add(e Entry[P]) int64 {
	a.ents = append(a.ents, e)
	return a.base + int64(len(a.ents)) - 1
}

func (a *arena[P]) get(id int64) *Entry[P] { return &a.ents[id-a.base] }

func (a *arena[P]) next() int64 { return a.base + int64(len(a.ents)) }

// dropBelow forgets entries with ids below id, which no log or message references any more.
func (a *arena[P]) dropBelow(id int64) {
	n := id - a.base
	if n <= 0 {
		return
	}
	var zero Entry[P]
	for i := range n {
		a.ents[i] = zero
	}
	a.ents = append(a.ents[:0], a.ents[n:]...)
	a.base = id
}

// epochStart is one row of the leader-epoch cache: epoch began at offset start.
type epochStart struct {
	epoch int32
	start int64
}

// replicaLog is one node's durable copy of the metadata log: survives Kill. It holds entries
// [start, start+len(ids)), the leader-epoch cache (Kafka's LeaderEpochFileCache) that divergence
// detection reads, and the entry bytes it holds, which retention counts.
type replicaLog struct {
	start  int64
	ids    []int64
	epochs []epochStart
	bytes  int64
}

func (l *replicaLog) end() int64 { return l.start + int64(len(l.ids)) }

func (l *replicaLog) id(offset int64) int64 { return l.ids[offset-l.start] }

// lastEpoch is Kafka's lastFetchedEpoch: the epoch of the last entry, or of the snapshot the log
// starts from when it is empty, or 0 for a brand-new log.
func (l *replicaLog) lastEpoch() int32 {
	if len(l.epochs) == 0 {
		return 0
	}
	return l.epochs[len(l.epochs)-1].epoch
}

// epochAt is the epoch of the entry at offset (which may lie just below start, in the snapshot).
func (l *replicaLog) epochAt(offset int64) int32 {
	e := int32(0)
	for _, r := range l.epochs {
		if r.start > offset {
			break
		}
		e = r.epoch
	}
	return e
}

// endOffsetForEpoch answers what Kafka's log.endOffsetForEpoch does: the largest epoch at or below
// epoch that this log knows, and the offset where it ends (where the next epoch starts, or the log
// end). ok is false when the log knows no such epoch.
func (l *replicaLog) endOffsetForEpoch(epoch int32) (int32, int64, bool) {
	for i := len(l.epochs) - 1; i >= 0; i-- {
		if l.epochs[i].epoch <= epoch {
			end := l.end()
			if i+1 < len(l.epochs) {
				end = l.epochs[i+1].start
			}
			return l.epochs[i].epoch, end, true
		}
	}
	return 0, 0, false
}

func (l *replicaLog) append(id int64, epoch int32, bytes int32) {
	if len(l.epochs) == 0 || l.epochs[len(l.epochs)-1].epoch < epoch {
		l.epochs = append(l.epochs, epochStart{epoch: epoch, start: l.end()})
	}
	l.ids = append(l.ids, id)
	l.bytes += int64(bytes)
}

// truncate removes entries at offsets >= to; removedBytes is what they held.
func (l *replicaLog) truncate(to int64, removedBytes int64) {
	l.ids = l.ids[:to-l.start]
	l.bytes -= removedBytes
	for len(l.epochs) > 0 && l.epochs[len(l.epochs)-1].start >= to {
		l.epochs = l.epochs[:len(l.epochs)-1]
	}
}

// deletePrefix moves the log start up to to, dropping the entries below it. The epoch row that
// covers to-1 is kept so the log still knows the epoch its snapshot ends in.
func (l *replicaLog) deletePrefix(to int64, removedBytes int64) {
	n := copy(l.ids, l.ids[to-l.start:])
	l.ids = l.ids[:n]
	l.start = to
	l.bytes -= removedBytes
	k := 0
	for k+1 < len(l.epochs) && l.epochs[k+1].start <= to-1 {
		k++
	}
	l.epochs = append(l.epochs[:0], l.epochs[k:]...)
}

// resetTo empties the log so that it starts where snapshot id ends, as a follower does after
// installing a snapshot it fetched (Kafka's truncateToLatestSnapshot). The one epoch row it keeps
// says that the entry at EndOffset-1, inside the snapshot, has the snapshot's epoch.
func (l *replicaLog) resetTo(id SnapshotID) {
	l.ids = l.ids[:0]
	l.start = id.EndOffset
	l.bytes = 0
	l.epochs = append(l.epochs[:0], epochStart{epoch: id.Epoch, start: id.EndOffset - 1})
}
