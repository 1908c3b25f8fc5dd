package control

import "github.com/kraftlab/kraftlab/engine/metadata"

// warmImage reads, for the partition changes among the n records rec gives, the state of st
// their replay reads first: its image's (metadata.Image.Warm) and the copy-on-write bits of the
// snapshots reading from it (beforeReplay). The replay loops of a million partitions then wait
// for one batch of cache misses per chunk instead of one miss per entry. For the shared image,
// Callbacks.WarmCommitted warms what its readers read.
func (c *Controllers) warmImage(st *store, n int, rec func(int) metadata.Record) {
	im := st.image
	idxs := c.warmBuf[:0]
	for i := range n {
		if pc, ok := rec(i).(*metadata.PartitionChangeRecord); ok {
			if idx, ok := im.ChangeIndex(pc); ok {
				idxs = append(idxs, idx)
			}
		}
	}
	sink := im.Warm(idxs)
	for _, s := range st.snaps {
		for _, idx := range idxs {
			if idx < s.count {
				sink += int32(s.changed[idx/64])
			}
		}
	}
	c.warmSink += sink
	c.warmBuf = idxs
	if st == c.root && c.cb.WarmCommitted != nil {
		c.cb.WarmCommitted(idxs)
	}
}
