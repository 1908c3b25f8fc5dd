package quorum

import "sort"

// arena stores every entry ever written once, by id; node logs refer to entries by id. Committed
// entries are identical on every node that holds them, so sharing them costs a hundred observers
// nothing per entry. Ids grow with creation time, and every node's log holds ids in increasing
// order, which is what lets compaction drop a prefix.
//
// Each entry is kept with cum, the total Bytes of every entry from the first ever written
// through it, so the bytes of any run of consecutive ids are one subtraction: fetch sizes,
// retention and snapshot sizes cost O(1) per run instead of O(1) per entry.
//
// The entries live in chunks of arenaChunk, so that the arena never copies what it holds: a
// run that writes tens of thousands of records (a broker's fencing) would otherwise copy the
// whole arena each time append grew it by a quarter, and every copy is bytes allocated for
// the collector to pace on (in the wasm, one thread marks, and every pointer copied pays a
// write barrier). The chunks compaction frees are kept for the entries to come.
type arena[P any] struct {
	base    int64 // id of the first entry held
	baseCum int64 // total Bytes of the entries below base
	first   int64 // id of chunks[0][0]: base rounded down to a multiple of arenaChunk
	end     int64 // id of the next entry
	chunks  [][]arenaSlot[P]
	spare   [][]arenaSlot[P] // emptied chunks, for the next ones
}

// arenaSlot is one entry with the total Bytes of every entry through it.
type arenaSlot[P any] struct {
	e   Entry[P]
	cum int64
}

// arenaChunk is the number of entries per chunk of the arena (about 200 KB of them).
const (
	arenaShift = 12
	arenaChunk = 1 << arenaShift
)

func (a *arena[P]) slot(id int64) *arenaSlot[P] {
	i := id - a.first
	return &a.chunks[i>>arenaShift][i&(arenaChunk-1)]
}

func (a *arena[P]) add(e Entry[P]) int64 {
	if a.end-a.first == int64(len(a.chunks))<<arenaShift {
		a.chunks = append(a.chunks, a.newChunk())
	}
	id := a.end
	a.end++
	*a.slot(id) = arenaSlot[P]{e: e, cum: a.cumBefore(id) + int64(e.Bytes)}
	return id
}

// newChunk returns an empty chunk, a spare one if there is one.
func (a *arena[P]) newChunk() []arenaSlot[P] {
	n := len(a.spare)
	if n == 0 {
		return make([]arenaSlot[P], arenaChunk)
	}
	c := a.spare[n-1]
	a.spare = a.spare[:n-1]
	return c
}

func (a *arena[P]) get(id int64) *Entry[P] { return &a.slot(id).e }

func (a *arena[P]) next() int64 { return a.end }

// len is the number of entries held.
func (a *arena[P]) len() int64 { return a.end - a.base }

// cumBefore is the total Bytes of the entries with ids below id.
func (a *arena[P]) cumBefore(id int64) int64 {
	if id == a.base {
		return a.baseCum
	}
	return a.slot(id - 1).cum
}

// bytes is the total Bytes of the n entries with ids [id, id+n).
func (a *arena[P]) bytes(id, n int64) int64 {
	if n <= 0 {
		return 0
	}
	return a.slot(id+n-1).cum - a.cumBefore(id)
}

// fit is how many of the n entries with ids from id fit, in order, in budget bytes.
func (a *arena[P]) fit(id, n, budget int64) int64 {
	before := a.cumBefore(id)
	return int64(sort.Search(int(n), func(k int) bool { return a.slot(id+int64(k)).cum-before > budget }))
}

// sameEpoch is how many of the n entries with ids from id share the first one's epoch. A run of
// consecutive ids is a stretch of one log, whose epochs never go down, so it is a binary search.
func (a *arena[P]) sameEpoch(id, n int64) int64 {
	e := a.get(id).Epoch
	if a.get(id+n-1).Epoch == e {
		return n
	}
	return int64(sort.Search(int(n), func(k int) bool { return a.get(id+int64(k)).Epoch != e }))
}

// appendRange appends the n entries with ids from id to dst.
func (a *arena[P]) appendRange(dst []Entry[P], id, n int64) []Entry[P] {
	for end := id + n; id < end; id++ {
		dst = append(dst, *a.get(id))
	}
	return dst
}

// dropBelow forgets entries with ids below id, which no log or message references any more.
// Their slots are cleared, so that no payload stays reachable through them, and the chunks
// wholly below id are kept for the entries to come, up to as many as remain in use.
func (a *arena[P]) dropBelow(id int64) {
	if id <= a.base {
		return
	}
	a.baseCum = a.cumBefore(id)
	for x := a.base - a.first; x < id-a.first; {
		c := a.chunks[x>>arenaShift]
		from := x & (arenaChunk - 1)
		to := min(arenaChunk, from+id-a.first-x)
		clear(c[from:to])
		x += to - from
	}
	k := int((id - a.first) >> arenaShift) // chunks wholly below id
	for _, c := range a.chunks[:k] {
		if len(a.spare) < len(a.chunks)-k {
			a.spare = append(a.spare, c)
		}
	}
	n := copy(a.chunks, a.chunks[k:])
	clear(a.chunks[n:])
	a.chunks = a.chunks[:n]
	a.first += int64(k) << arenaShift
	a.base = id
}

// idRun is a stretch of consecutive entries: n entries with consecutive ids from id. Logs and
// fetch responses are lists of runs, because a log is consecutive arena ids except where a
// leader change left dead (truncated) entries in the arena, so a run covers thousands of
// entries and a hundred observers' logs cost a few words each rather than eight bytes an entry.
type idRun struct {
	id int64
	n  int64
}

// span is one run of a node's log: offsets from offset on hold consecutive ids from id, up to
// the next span's offset (or the log end).
type span struct {
	offset int64
	id     int64
}

// epochStart is one row of the leader-epoch cache: epoch began at offset start.
type epochStart struct {
	epoch int32
	start int64
}

// replicaLog is one node's durable copy of the metadata log: survives Kill. It holds entries
// [start, endOff) as spans of consecutive ids, the leader-epoch cache (Kafka's
// LeaderEpochFileCache) that divergence detection reads, and the entry bytes it holds, which
// retention counts. spans[0].offset may lie below start (the prefix deleted inside a span).
type replicaLog struct {
	start  int64
	endOff int64
	spans  []span
	epochs []epochStart
	bytes  int64
}

func (l *replicaLog) end() int64 { return l.endOff }

func (l *replicaLog) empty() bool { return l.endOff == l.start }

// spanAt is the index of the span holding offset, which must lie in [start, end).
func (l *replicaLog) spanAt(offset int64) int {
	// Most lookups are near the end (fetches, commits), and logs have few spans.
	k := len(l.spans) - 1
	if k > 8 && l.spans[k].offset > offset {
		return sort.Search(len(l.spans), func(i int) bool { return l.spans[i].offset > offset }) - 1
	}
	for l.spans[k].offset > offset {
		k--
	}
	return k
}

// spanEnd is the first offset past span k.
func (l *replicaLog) spanEnd(k int) int64 {
	if k+1 < len(l.spans) {
		return l.spans[k+1].offset
	}
	return l.endOff
}

func (l *replicaLog) id(offset int64) int64 {
	s := l.spans[l.spanAt(offset)]
	return s.id + offset - s.offset
}

// run returns the run of consecutive ids that holds offset, cut at to: the id at offset and how
// many entries from offset (at most to-offset) continue it.
func (l *replicaLog) run(offset, to int64) idRun {
	k := l.spanAt(offset)
	s := l.spans[k]
	return idRun{id: s.id + offset - s.offset, n: min(l.spanEnd(k), to) - offset}
}

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

// append adds n entries with consecutive ids from id, all of epoch, holding bytes in total.
func (l *replicaLog) append(id int64, n int64, epoch int32, bytes int64) {
	if n <= 0 {
		return
	}
	if len(l.epochs) == 0 || l.epochs[len(l.epochs)-1].epoch < epoch {
		l.epochs = append(l.epochs, epochStart{epoch: epoch, start: l.end()})
	}
	if k := len(l.spans) - 1; k < 0 || l.empty() || l.spans[k].id+l.endOff-l.spans[k].offset != id {
		if k >= 0 && l.empty() {
			l.spans = l.spans[:0]
		}
		l.spans = append(l.spans, span{offset: l.endOff, id: id})
	}
	l.endOff += n
	l.bytes += bytes
}

// truncate removes entries at offsets >= to; removedBytes is what they held.
func (l *replicaLog) truncate(to int64, removedBytes int64) {
	for len(l.spans) > 1 && l.spans[len(l.spans)-1].offset >= to {
		l.spans = l.spans[:len(l.spans)-1]
	}
	l.endOff = to
	l.bytes -= removedBytes
	for len(l.epochs) > 0 && l.epochs[len(l.epochs)-1].start >= to {
		l.epochs = l.epochs[:len(l.epochs)-1]
	}
}

// deletePrefix moves the log start up to to, dropping the entries below it. The epoch row that
// covers to-1 is kept so the log still knows the epoch its snapshot ends in.
func (l *replicaLog) deletePrefix(to int64, removedBytes int64) {
	k := 0
	for k+1 < len(l.spans) && l.spans[k+1].offset <= to {
		k++
	}
	if k > 0 {
		l.spans = append(l.spans[:0], l.spans[k:]...)
	}
	l.start = to
	l.bytes -= removedBytes
	k = 0
	for k+1 < len(l.epochs) && l.epochs[k+1].start <= to-1 {
		k++
	}
	l.epochs = append(l.epochs[:0], l.epochs[k:]...)
}

// resetTo empties the log so that it starts where snapshot id ends, as a follower does after
// installing a snapshot it fetched (Kafka's truncateToLatestSnapshot). The one epoch row it keeps
// says that the entry at EndOffset-1, inside the snapshot, has the snapshot's epoch.
func (l *replicaLog) resetTo(id SnapshotID) {
	l.spans = l.spans[:0]
	l.start = id.EndOffset
	l.endOff = id.EndOffset
	l.bytes = 0
	l.epochs = append(l.epochs[:0], epochStart{epoch: id.Epoch, start: id.EndOffset - 1})
}
