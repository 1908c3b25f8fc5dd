package control

import "github.com/kraftlab/kraftlab/engine/metadata"

// warmChunk is how many records a replay loop warms at a time (see warmImage).
const warmChunk = 16

// warmImage reads, for the partition changes among the n records rec gives, the state of st
// their replay reads first: the copy-on-write bits of the snapshots reading from its image
// (beforeReplay). The replay loops of a million partitions then wait for one batch of cache
// misses per chunk instead of one miss per entry. For the shared image,
// Callbacks.WarmCommitted warms what its readers read. (The image's own state is the
// engine's, which has no such devices.)
func (ims *images) warmImage(st *store, n int, rec func(int) metadata.Record, warm func([]int32)) {
	im := st.image
	idxs := ims.warmBuf[:0]
	for i := range n {
		if pc, ok := rec(i).(*metadata.PartitionChangeRecord); ok {
			if idx, ok := im.ChangeIndex(pc); ok {
				idxs = append(idxs, idx)
			}
		}
	}
	var sink int32
	for _, s := range st.snaps {
		for _, idx := range idxs {
			if idx < s.count {
				sink += int32(s.changed[idx/64])
			}
		}
	}
	ims.warmSink += sink
	ims.warmBuf = idxs
	if st == ims.root && warm != nil {
		warm(idxs)
	}
}
