package metadata

// WarmChunk is how many partitions a loop warms at a time, here (Warm) and in the packages
// that warm their own per-partition state the same way: enough to keep the processor's
// outstanding cache misses busy, few enough that the lines are still cached when the work
// reaches them.
const WarmChunk = 16

// Warm reads, for each partition index in idxs, the image state a replay of a change to it
// reads first: the partition's registration (one cache line: a Partition is 64 bytes, and a
// large image's slice starts on a page), its position in its preferred broker's imbalanced
// set and, when it is there, its flags. It changes nothing
// and its result means nothing; the caller stores it somewhere, so that the reads are kept.
//
// A caller about to replay a batch of partition changes warms them a few at a time: the reads
// of one pass depend on nothing but idxs, so the processor has their cache misses in flight
// together, where the replay, one long chain of work per record, waits for them one by one.
// Out-of-range indexes are skipped (the replay reports them).
func (im *Image) Warm(idxs []int32) int32 {
	var sink int32
	n := int32(len(im.Partitions))
	for _, idx := range idxs {
		if idx >= 0 && idx < n {
			p := &im.Partitions[idx]
			sink += p.Topic + im.imbPos[idx]
		}
	}
	for _, idx := range idxs {
		if idx < 0 || idx >= n {
			continue
		}
		if pos := im.imbPos[idx]; pos >= 0 {
			if b := im.Broker(im.Partitions[idx].Preferred()); b != nil && int(pos) < len(b.imbFlags) {
				sink += int32(b.imbFlags[pos])
			}
		}
	}
	return sink
}
