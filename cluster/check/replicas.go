package check

import (
	"fmt"
	"slices"

	"github.com/kraftlab/kraftlab/engine/metadata"
)

// Rules the replica checker enforces.
const (
	RuleOneLeaderPerEpoch = "one-leader-per-partition-and-leader-epoch"
	RuleLeaderNotAhead    = "serving-leader-never-ahead-of-committed-metadata"
	RuleHighWatermark     = "high-watermark-never-decreases"
)

// Serving is what a partition's serving leader reports: who it is, with which epoch, and its high
// watermark (in bytes).
type Serving struct {
	Leader        int32
	LeaderEpoch   int32
	HighWatermark float64
}

// Replicas checks what brokers do against the committed metadata: a leader epoch names one
// leader, ever; the serving leader never runs an epoch the controller has not committed (and,
// at the committed epoch, is the committed leader); and within one leader epoch the high
// watermark never goes down (a new leader may start lower, so epochs are compared only to
// themselves). It remembers one leader and one high watermark per partition.
type Replicas struct {
	Seed uint64
	seen []leaderSeen // by partition index
}

// leaderSeen is the latest leader seen serving a partition: its epoch, the broker and its high
// watermark.
type leaderSeen struct {
	epoch, owner int32
	hw           float64
}

// Reserve makes room for partitions [0, n) at once, so that the first pass over a cluster of
// tens of thousands of partitions does not grow the tables one partition at a time.
func (r *Replicas) Reserve(n int) {
	if n > len(r.seen) {
		r.seen = slices.Grow(r.seen, n-len(r.seen))
	}
}

// Observe checks partition idx of topic, whose committed registration is p, against what its
// serving leader reports. The partition's name is only formatted for a violation, so checking
// thousands of partitions per sample allocates nothing.
func (r *Replicas) Observe(nowMs int64, topic string, idx int32, p *metadata.Partition, s Serving) *Violation {
	name := func() string { return fmt.Sprintf("%s-%d", topic, p.ID) }
	for int(idx) >= len(r.seen) {
		r.seen = append(r.seen, leaderSeen{epoch: -1, owner: -1})
	}
	last := &r.seen[idx]
	if s.Leader < 0 {
		return nil
	}
	if s.LeaderEpoch > p.LeaderEpoch || (s.LeaderEpoch == p.LeaderEpoch && s.Leader != p.Leader) {
		return &Violation{Seed: r.Seed, AtMs: nowMs, Rule: RuleLeaderNotAhead,
			Fact:     fmt.Sprintf("the committed metadata has %s led by broker %d at leader epoch %d", name(), p.Leader, p.LeaderEpoch),
			Conflict: fmt.Sprintf("broker %d serves it at leader epoch %d", s.Leader, s.LeaderEpoch)}
	}
	switch {
	case s.LeaderEpoch == last.epoch:
		if s.Leader != last.owner {
			return &Violation{Seed: r.Seed, AtMs: nowMs, Rule: RuleOneLeaderPerEpoch,
				Fact:     fmt.Sprintf("broker %d led %s at leader epoch %d", last.owner, name(), s.LeaderEpoch),
				Conflict: fmt.Sprintf("broker %d now leads it at the same epoch", s.Leader)}
		}
		if s.HighWatermark < last.hw {
			return &Violation{Seed: r.Seed, AtMs: nowMs, Rule: RuleHighWatermark,
				Fact:     fmt.Sprintf("%s's high watermark was %.0f bytes at leader epoch %d", name(), last.hw, s.LeaderEpoch),
				Conflict: fmt.Sprintf("it is now %.0f bytes at the same epoch", s.HighWatermark)}
		}
	case s.LeaderEpoch < last.epoch:
		// An older leader still serving until it applies the change: nothing new to learn.
		return nil
	}
	*last = leaderSeen{epoch: s.LeaderEpoch, owner: s.Leader, hw: s.HighWatermark}
	return nil
}
