package sim

// item is one heap entry. It is kept small (24 bytes) because sifting moves items around; the
// Event itself stays put in its slot.
type item struct {
	at   int64
	seq  uint64
	slot int32
}

// slot holds a scheduled event and where its item currently sits in the heap, which is what lets
// Cancel remove an event in O(log n) without searching. pos is -1 while the slot is free.
type slot struct {
	ev  Event
	pos int32
	gen uint32
}

// queue is a 4-ary min-heap of items ordered by (at, seq), with a slot table that maps handles to
// heap positions. Freed slots are reused, so a steady-state run allocates nothing per event.
type queue struct {
	heap  []item
	slots []slot
	free  []int32
}

// arity is the heap's branching factor. A 4-ary heap is half as deep as a binary one and its
// children share a cache line or two, which matters once a million events are pending.
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

// push stores ev and returns its handle.
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
	sl.gen++
	sl.pos = int32(len(q.heap))
	q.heap = append(q.heap, item{at: at, seq: seq, slot: s})
	q.up(len(q.heap) - 1)
	return Handle{slot: s, gen: sl.gen}
}

// removeAt takes the item at heap position i out of the heap and frees its slot.
func (q *queue) removeAt(i int) (item, Event) {
	it := q.heap[i]
	last := len(q.heap) - 1
	if i != last {
		q.place(i, q.heap[last])
	}
	q.heap = q.heap[:last]
	if i != last {
		q.down(i)
		q.up(i)
	}
	sl := &q.slots[it.slot]
	ev := sl.ev
	sl.ev = Event{} // drop the Target reference so a freed slot keeps nothing alive
	sl.pos = -1
	q.free = append(q.free, it.slot)
	return it, ev
}

// live reports whether h names an event that is still waiting, and where it sits.
func (q *queue) live(h Handle) (int, bool) {
	if h.gen == 0 || h.slot < 0 || int(h.slot) >= len(q.slots) {
		return 0, false
	}
	sl := &q.slots[h.slot]
	if sl.gen != h.gen || sl.pos < 0 {
		return 0, false
	}
	return int(sl.pos), true
}
