package metadata

import (
	"math/rand/v2"
	"testing"
)

// benchImage is an image of n partitions of one topic over brokers brokers at replication
// factor 3, each led by its preferred replica, as the scale run's bootstrap leaves it.
func benchImage(b *testing.B, n int, brokers int32) *Image {
	b.Helper()
	im := NewImage()
	im.ReservePartitions(n)
	if err := im.Replay(Entry{0, &TopicRecord{Name: "big", TopicID: "B"}}); err != nil {
		b.Fatal(err)
	}
	for p := range n {
		reps := []int32{int32(p) % brokers, int32(p+1) % brokers, int32(p+2) % brokers}
		r := &PartitionRecord{Topic: "big", TopicID: "B", PartitionID: int32(p), Replicas: reps, Isr: reps, Leader: reps[0]}
		if err := im.Replay(Entry{int64(p + 1), r}); err != nil {
			b.Fatal(err)
		}
	}
	return im
}

// benchChanges is a rolling restart's mix of changes to random partitions of im: one broker
// leaves and rejoins ISRs, and a third of the changes move a leader off the preferred
// replica and back.
func benchChanges(im *Image, n int) []Entry {
	rng := rand.New(rand.NewPCG(3, 4))
	out := make([]Entry, n)
	away := make([]bool, len(im.Partitions))
	for i := range out {
		idx := rng.IntN(len(im.Partitions))
		p := &im.Partitions[idx]
		r := NewPartitionChange("big", "B", p.ID)
		if i%3 == 0 {
			r.Leader = p.Replicas()[0]
			if !away[idx] {
				r.Leader = p.Replicas()[1]
			}
			away[idx] = !away[idx]
		} else {
			r.Isr = p.Replicas()[:2+i%2]
		}
		out[i] = Entry{Offset: int64(len(im.Partitions) + 1 + i), Record: &r}
	}
	return out
}

// BenchmarkReplayChanges replays PartitionChangeRecords into a million-partition image, as every
// committed image does through a rolling restart; ns/op is per record.
func BenchmarkReplayChanges(b *testing.B) {
	im := benchImage(b, 1_000_000, 100)
	es := benchChanges(im, 1<<20)
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		if err := im.Replay(es[i%len(es)]); err != nil {
			b.Fatal(err)
		}
	}
}
