package cluster

// brokerCounts is a count per broker id, kept as records commit (partitions led, out-of-sync
// preferred partitions). It is a slice indexed by id for the ids clusters use (small, dense
// numbers), with a map for the rest: it changes twice per committed partition change, and a
// map's hashing was most of that cost at a million partitions.
type brokerCounts struct {
	dense  []int
	sparse map[int32]int
}

// maxDenseID bounds the slice: a larger id (Kafka allows any non-negative int) goes in the map.
const maxDenseID = 1 << 16

// add adds d to id's count.
func (b *brokerCounts) add(id int32, d int) {
	if id >= 0 && id < maxDenseID {
		if int(id) >= len(b.dense) {
			b.dense = append(b.dense, make([]int, int(id)+1-len(b.dense))...)
		}
		b.dense[id] += d
		return
	}
	if b.sparse == nil {
		b.sparse = map[int32]int{}
	}
	b.sparse[id] += d
}

// get is id's count, 0 for an id never counted.
func (b *brokerCounts) get(id int32) int {
	if id >= 0 && int(id) < len(b.dense) {
		return b.dense[id]
	}
	return b.sparse[id]
}
