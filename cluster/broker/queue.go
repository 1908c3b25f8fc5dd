package broker

// changeQueue is one broker's decoded metadata changes not applied yet, in log order: a FIFO of
// fixed-size blocks that the fleet's blockPool lends out and takes back. Applying a batch frees
// its blocks for the next broker's changes, so a restart's tens of thousands of changes reuse
// the same few megabytes instead of growing one slice per broker from nothing each time (which
// copied and zeroed over a gigabyte in the million-partition roll).
type changeQueue struct {
	blocks []*changeBlock // blocks[first:] hold the changes
	first  int
	head   int // position of the first change in blocks[first]
}

// queueBlock is how many changes one block holds (40 bytes each).
const queueBlock = 512

// changeBlock is one block of a changeQueue; n of its changes are filled.
type changeBlock struct {
	ch [queueBlock]change
	n  int
}

// blockPool keeps the blocks no queue holds, up to maxFreeBlocks of them.
type blockPool struct{ free []*changeBlock }

// maxFreeBlocks bounds the blocks the pool keeps: 1,024 blocks are 20 MiB, more than a
// broker restart at a million partitions has queued at once; a bootstrap's millions of changes
// go back to the collector instead.
const maxFreeBlocks = 1024

func (bp *blockPool) get() *changeBlock {
	if n := len(bp.free); n > 0 {
		b := bp.free[n-1]
		bp.free[n-1] = nil
		bp.free = bp.free[:n-1]
		return b
	}
	return new(changeBlock)
}

func (bp *blockPool) put(b *changeBlock) {
	if len(bp.free) < maxFreeBlocks {
		b.n = 0
		bp.free = append(bp.free, b)
	}
}

// push appends ch.
func (q *changeQueue) push(bp *blockPool, ch change) {
	n := len(q.blocks)
	if n == 0 || q.blocks[n-1].n == queueBlock {
		q.blocks = append(q.blocks, bp.get())
		n++
	}
	last := q.blocks[n-1]
	last.ch[last.n] = ch
	last.n++
}

// front returns the queued changes from the first on, as far as its block goes: at least one
// unless the queue is empty. The slice aliases the queue until the next pop or drop.
func (q *changeQueue) front() []change {
	if q.first == len(q.blocks) {
		return nil
	}
	b := q.blocks[q.first]
	return b.ch[q.head:b.n]
}

// popN removes the first n changes, which front returned: n must not exceed its length.
func (q *changeQueue) popN(bp *blockPool, n int) {
	if n == 0 {
		return
	}
	q.head += n
	if b := q.blocks[q.first]; q.head == b.n {
		// Done with the block (only the last one can be partly filled; pushes after it start
		// a new one).
		bp.put(b)
		q.blocks[q.first] = nil
		q.first++
		q.head = 0
		switch {
		case q.first == len(q.blocks):
			q.blocks, q.first = q.blocks[:0], 0
		case q.first >= 64 && 2*q.first >= len(q.blocks):
			// A queue that never quite drains: move its live blocks down rather than let
			// the array grow at one end as it empties at the other.
			k := copy(q.blocks, q.blocks[q.first:])
			clear(q.blocks[k:])
			q.blocks, q.first = q.blocks[:k], 0
		}
	}
}

// drop removes every queued change.
func (q *changeQueue) drop(bp *blockPool) {
	for i := q.first; i < len(q.blocks); i++ {
		bp.put(q.blocks[i])
		q.blocks[i] = nil
	}
	q.blocks, q.first, q.head = q.blocks[:0], 0, 0
}

// size is the number of queued changes.
func (q *changeQueue) size() int {
	n := -q.head
	for _, b := range q.blocks[q.first:] {
		n += b.n
	}
	return n
}

// change is one decoded metadata record queued for a broker: the full resulting state of a
// partition (kind chPartition), or of a broker registration (chBroker), at offset off. Each kind
// has its own fields; the other kind's stay zero. It is 40 bytes, and every broker queues
// three of them per partition change at a million partitions.
type change struct {
	off int64
	// Broker changes: the registration's broker epoch.
	brokerEpoch int64
	// Partition changes: the partition index, the receiving broker's replica slot (see
	// queuePartition), and the partition's epochs.
	part        int32
	rep         int32
	leaderEpoch int32
	partEpoch   int32
	kind        uint8
	// Partition changes: the leader's replica position (-1 none) and the ISR as a mask of
	// replica positions.
	leader int8
	isr    uint8
	// Broker changes: the registered|fenced|inCS bits and the broker's slot.
	flags uint8
	slot  int16
}

const (
	chPartition uint8 = iota + 1
	chBroker
)

const (
	flRegistered uint8 = 1 << iota
	flFenced
	flInCS
)
