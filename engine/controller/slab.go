package controller

import "github.com/kraftlab/kraftlab/engine/metadata"

// slab hands out the PartitionChangeRecords the controller writes, and their ISR and ELR lists,
// from chunks instead of one heap allocation each. A controller writes millions of them in a
// large run (the 1M-partition roll writes eight million), and each was two or three small
// allocations. A chunk lives while any record or list in it does; records are written, logged,
// committed and trimmed in order, so a chunk's contents go out of use together and the chunks
// keep little alive that one allocation each would not.
//
// A written record is never changed again, so sharing a chunk is safe: each list is a full
// slice expression (its capacity is its length), and an append to it copies rather than
// writing into its neighbour.
type slab struct {
	records []metadata.PartitionChangeRecord
	lists   []int32
}

// Chunk sizes: big enough that the allocation is rare, small enough that a chunk a few live
// records hold costs little (a record is about 150 bytes).
const (
	slabRecords = 256
	slabInts    = 4096
)

// record returns a pointer to a copy of r in the slab.
func (s *slab) record(r *metadata.PartitionChangeRecord) *metadata.PartitionChangeRecord {
	if len(s.records) == cap(s.records) {
		s.records = make([]metadata.PartitionChangeRecord, 0, slabRecords)
	}
	s.records = append(s.records, *r)
	return &s.records[len(s.records)-1]
}

// list copies l into the slab for a record that is written. An empty list stays a non-nil empty
// list, because in a record it means "now empty", not "unchanged". A nil slab copies to the heap.
func (s *slab) list(l []int32) []int32 {
	if s == nil || len(l) > slabInts {
		return append(make([]int32, 0, len(l)), l...)
	}
	if s.lists == nil || cap(s.lists)-len(s.lists) < len(l) {
		s.lists = make([]int32, 0, slabInts)
	}
	start := len(s.lists)
	s.lists = append(s.lists, l...)
	return s.lists[start:len(s.lists):len(s.lists)]
}
