package control

import "github.com/kraftlab/kraftlab/engine/metadata"

// warmChunk is how many committed entries a replay loop warms at a time (warmImage): enough
// to keep the processor's outstanding cache misses busy, few enough that the lines are still
// cached when the replay reaches them.
const warmChunk = 16

// warmImage reads, for the partition changes among the n records rec gives, the state of im
// their replay reads first (metadata.Image.Warm), so that the replay loops of a million
// partitions wait for one batch of cache misses per chunk instead of one miss per entry.
func (c *Controllers) warmImage(im *metadata.Image, n int, rec func(int) metadata.Record) {
	idxs := c.warmBuf[:0]
	for i := range n {
		if pc, ok := rec(i).(*metadata.PartitionChangeRecord); ok {
			if idx, ok := im.ChangeIndex(pc); ok {
				idxs = append(idxs, idx)
			}
		}
	}
	c.warmSink += im.Warm(idxs)
	c.warmBuf = idxs
}
