package sim

import "math/bits"

// The queue orders events by (time, scheduling order) in two parts. Events due within window
// milliseconds of the queue's base (the clock) sit in per-millisecond buckets, a ring indexed by
// time mod window: each bucket is a FIFO list, so events due at the same millisecond leave in
// the order they were scheduled, and taking the next event is a bitmap search and an unlink
// instead of a heap sift. Nearly every event a cluster schedules is due within a few seconds
// (network delays, fetch waits, heartbeats), and in the 1M-partition run the heap's sift was
// 5 % of the time, most of it mispredicted branches. Events due later wait in a 4-ary min-heap
// of (time, sequence) and move into their bucket as the clock comes within window of them.
//
// Moving them is what keeps the order exact. A far event is scheduled before any event that
// can be put straight into the same bucket: that can only happen once its time is within
// window of the clock, and the clock never moves without first moving every far event that
// has come within window into its bucket, in (time, sequence) order (advance). So a bucket's
// list is always in scheduling order.

// window is how many milliseconds ahead of the clock the buckets reach: a power of two, past
// the 2 s heartbeat and fetch timeouts that make up the longer delays most runs schedule.
const window = 4096

// item is one far event's heap entry. It is kept small (24 bytes) because sifting moves items
// around; the Event itself stays put in its slot.
type item struct {
	at   int64
	seq  uint64
	slot int32
}

// Where a slot's event waits, in slot.pos: an index into the heap, or one of these.
const (
	posFree   = -1 // the slot holds no event
	posBucket = -2 // the event is in the bucket for slot.at
)

// slot holds a scheduled event and where it waits, which is what lets Cancel remove an event
// without searching: its heap position, or its neighbours in its bucket's list.
type slot struct {
	ev         Event
	at         int64
	pos        int32
	gen        uint32
	prev, next int32 // bucket list links, -1 at the ends
}

// bucket is one millisecond's FIFO list of slots, -1 when empty.
type bucket struct{ head, tail int32 }

// queue holds the waiting events (see the comment at the top of the file). Freed slots are
// reused, so a steady-state run allocates nothing per event.
type queue struct {
	base     int64 // the clock: every bucketed event has base <= at < base+window
	buckets  [window]bucket
	occupied [window / 64]uint64 // bit i: buckets[i] is not empty
	near     int                 // events in buckets
	heap     []item              // events due at base+window or later
	slots    []slot
	free     []int32
}

// newQueue returns an empty queue at time 0.
func newQueue() *queue {
	q := &queue{}
	for i := range q.buckets {
		q.buckets[i] = bucket{head: -1, tail: -1}
	}
	return q
}

// len is the number of waiting events.
func (q *queue) len() int { return q.near + len(q.heap) }

// push stores ev, due at at >= q.base, and returns its handle.
func (q *queue) push(at int64, seq uint64, ev Event) Handle {
	var s int32
	if n := len(q.free); n > 0 {
		s = q.free[n-1]
		q.free = q.free[:n-1]
	} else {
		s = int32(len(q.slots))
		q.slots = append(q.slots, slot{})
	}
	sl := &q.slots[s]
	sl.ev = ev
	sl.at = at
	sl.gen++
	if at-q.base < window {
		q.link(s)
	} else {
		sl.pos = int32(len(q.heap))
		q.heap = append(q.heap, item{at: at, seq: seq, slot: s})
		q.up(len(q.heap) - 1)
	}
	return Handle{slot: s, gen: sl.gen}
}

// link appends slot s to the tail of its bucket.
func (q *queue) link(s int32) {
	sl := &q.slots[s]
	i := sl.at & (window - 1)
	b := &q.buckets[i]
	sl.pos, sl.prev, sl.next = posBucket, b.tail, -1
	if b.tail >= 0 {
		q.slots[b.tail].next = s
	} else {
		b.head = s
		q.occupied[i/64] |= 1 << (i % 64)
	}
	b.tail = s
	q.near++
}

// unlink takes slot s out of its bucket's list.
func (q *queue) unlink(s int32) {
	sl := &q.slots[s]
	i := sl.at & (window - 1)
	b := &q.buckets[i]
	if sl.prev >= 0 {
		q.slots[sl.prev].next = sl.next
	} else {
		b.head = sl.next
	}
	if sl.next >= 0 {
		q.slots[sl.next].prev = sl.prev
	} else {
		b.tail = sl.prev
	}
	if b.head < 0 {
		q.occupied[i/64] &^= 1 << (i % 64)
	}
	q.near--
}

// nextBucket is the index of the first non-empty bucket at or after the clock's; there must be
// one (q.near > 0). Buckets before the clock's index in the ring hold the latest times.
func (q *queue) nextBucket() int {
	start := int(q.base & (window - 1))
	w := start / 64
	if word := q.occupied[w] &^ (1<<(start%64) - 1); word != 0 {
		return w*64 + bits.TrailingZeros64(word)
	}
	for k := 1; k <= len(q.occupied); k++ {
		w := (start/64 + k) % len(q.occupied)
		if word := q.occupied[w]; word != 0 {
			return w*64 + bits.TrailingZeros64(word)
		}
	}
	panic("sim: queue has bucketed events but no bucket is occupied")
}

// peek is the time of the next event, if there is one.
func (q *queue) peek() (int64, bool) {
	if q.near > 0 {
		return q.slots[q.buckets[q.nextBucket()].head].at, true
	}
	if len(q.heap) > 0 {
		return q.heap[0].at, true
	}
	return 0, false
}

// pop takes the next event out of the queue, moves the clock to its time and returns both.
func (q *queue) pop() (int64, Event, bool) {
	if q.near == 0 {
		if len(q.heap) == 0 {
			return 0, Event{}, false
		}
		q.advance(q.heap[0].at) // brings it (and all due with it) into the buckets
	}
	s := q.buckets[q.nextBucket()].head
	q.unlink(s)
	at, ev := q.slots[s].at, q.release(s)
	q.advance(at)
	return at, ev, true
}

// advance moves the clock to now, which no waiting event may precede, first moving every far
// event due before now+window into its bucket in (time, sequence) order.
func (q *queue) advance(now int64) {
	for len(q.heap) > 0 && q.heap[0].at-now < window {
		s := q.heap[0].slot
		q.removeHeap(0)
		q.link(s)
	}
	q.base = now
}

// cancel removes the event h names and reports whether it was still waiting.
func (q *queue) cancel(h Handle) bool {
	if h.gen == 0 || h.slot < 0 || int(h.slot) >= len(q.slots) {
		return false
	}
	sl := &q.slots[h.slot]
	switch {
	case sl.gen != h.gen || sl.pos == posFree:
		return false
	case sl.pos == posBucket:
		q.unlink(h.slot)
	default:
		q.removeHeap(int(sl.pos))
	}
	q.release(h.slot)
	return true
}

// release frees slot s, whose event has left the buckets or the heap, and returns the event.
func (q *queue) release(s int32) Event {
	sl := &q.slots[s]
	ev := sl.ev
	sl.ev = Event{} // drop the Target reference so a freed slot keeps nothing alive
	sl.pos = posFree
	q.free = append(q.free, s)
	return ev
}

// arity is the far heap's branching factor: a 4-ary heap is half as deep as a binary one, and
// its children share a cache line or two.
const arity = 4

func before(a, b *item) bool {
	if a.at != b.at {
		return a.at < b.at
	}
	return a.seq < b.seq
}

// place puts it at heap position i and tells its slot where it now lives.
func (q *queue) place(i int, it item) {
	q.heap[i] = it
	q.slots[it.slot].pos = int32(i)
}

// up moves the item at i towards the root, shifting parents down into the hole it leaves.
func (q *queue) up(i int) {
	it := q.heap[i]
	for i > 0 {
		parent := (i - 1) / arity
		if !before(&it, &q.heap[parent]) {
			break
		}
		q.place(i, q.heap[parent])
		i = parent
	}
	q.place(i, it)
}

// down moves the item at i towards the leaves, shifting the smallest child up each step.
func (q *queue) down(i int) {
	it := q.heap[i]
	n := len(q.heap)
	for {
		first := arity*i + 1
		if first >= n {
			break
		}
		best := first
		last := min(first+arity, n)
		for c := first + 1; c < last; c++ {
			if before(&q.heap[c], &q.heap[best]) {
				best = c
			}
		}
		if !before(&q.heap[best], &it) {
			break
		}
		q.place(i, q.heap[best])
		i = best
	}
	q.place(i, it)
}

// removeHeap takes the item at heap position i out of the heap; its slot stays allocated.
func (q *queue) removeHeap(i int) {
	last := len(q.heap) - 1
	if i != last {
		q.place(i, q.heap[last])
	}
	q.heap = q.heap[:last]
	if i != last {
		q.down(i)
		q.up(i)
	}
}
