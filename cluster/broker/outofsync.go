package broker

import (
	"encoding/binary"
	"math/bits"
)

// OutOfSyncAll fills out[slot] with OutOfSync(BrokerID(slot)) for every broker at once (out must
// hold NumBrokers() counts). OutOfSync walks one broker's partitions, a random access into the
// per-partition slices for each; a sampler that wants every broker would pay that brokers times
// over, which at a million partitions and a sample every ten seconds dominates a run. This
// walks the replica states once, in order, eight at a time, and looks further only at the few
// replicas that are neither leading nor tracking.
func (f *Fleet) OutOfSyncAll(out []int) {
	clear(out)
	st := f.rstate
	r := 0
	for ; r+8 <= len(st); r += 8 {
		// rsLeader and rsTracking differ only in their lowest bit, so a replica is in sync when
		// its state with that bit cleared is rsLeader: the XOR leaves a zero byte exactly there.
		w := binary.LittleEndian.Uint64(st[r:])&^lowBits ^ (lowBits * uint64(rsLeader))
		for w != 0 {
			i := bits.TrailingZeros64(w) / 8
			f.countOutOfSync(out, r+i)
			w &^= 0xFF << (8 * i)
		}
	}
	for ; r < len(st); r++ {
		if st[r]&^1 != rsLeader {
			f.countOutOfSync(out, r)
		}
	}
}

// lowBits has the lowest bit of every byte set.
const lowBits = 0x0101010101010101

// countOutOfSync counts replica r, which neither leads nor tracks, if its partition has a leader.
func (f *Fleet) countOutOfSync(out []int, r int) {
	if s, p := f.rb[r], f.rpart[r]; s >= 0 && !f.deleted[p] && f.leader[p] >= 0 {
		out[s]++
	}
}
