// Package check holds the invariant checkers that watch a run of the toy cluster and stop it at
// the first violation, with the seed, the time and the two facts that disagree, so that a
// failing seed can be replayed exactly (the approach of TigerBeetle's simulator).
//
// The checkers here need only the controller's view: committed metadata images and the
// balancer's run reports. They observe; they never change what they watch. This package imports
// engine/ only.
package check

import (
	"fmt"
	"slices"

	"github.com/kraftlab/kraftlab/engine/balance"
	"github.com/kraftlab/kraftlab/engine/metadata"
)

// Violation is a broken invariant: which rule, when, and the two facts that disagree.
type Violation struct {
	Seed     uint64
	AtMs     int64
	Rule     string
	Fact     string
	Conflict string
}

// Error says which invariant broke, when and under which seed, and the two facts that conflict.
func (v *Violation) Error() string {
	return fmt.Sprintf("invariant %q broken at %d ms (seed %d): %s, but %s", v.Rule, v.AtMs, v.Seed, v.Fact, v.Conflict)
}

// Rules checked here.
const (
	RuleLeaderInIsr          = "leader-in-isr"
	RuleLeaderEpochMonotonic = "leader-epoch-never-decreases"
	RulePartitionEpochs      = "partition-epoch-never-decreases"
	RuleGateHolds            = "gated-broker-gains-no-preferred-leadership"
	RuleCap                  = "run-elects-at-most-max-per-run"
)

// Metadata checks committed images over time: a leader is always in its partition's ISR (an
// unclean election forces the ISR to the new leader, so this holds in KRaft too), and leader
// and partition epochs never go down. It remembers each partition's last epochs by topic id
// and partition, so a deleted and recreated topic starts afresh.
type Metadata struct {
	Seed uint64
	last map[string][]epochs
	// lastID and lastSeen are the topic of the previous observation and its entry in last:
	// a committed run of changes mostly names one topic, and a string compare (usually of the
	// very same string) is cheaper than a map lookup.
	lastID   string
	lastSeen []epochs
}

type epochs struct{ leader, partition int32 }

// Observe checks every partition of an image as committed at nowMs and returns the first
// violation, if any.
func (m *Metadata) Observe(nowMs int64, im *metadata.Image) *Violation {
	for t := range im.Topics {
		top := &im.Topics[t]
		if top.Deleted {
			continue
		}
		for i := int32(0); i < top.Count; i++ {
			if v := m.ObservePartition(nowMs, im, top.First+i); v != nil {
				return v
			}
		}
	}
	return nil
}

// ObservePartition checks one partition (an index into im.Partitions) after a change was
// committed: the incremental form of Observe, O(1) per committed record.
func (m *Metadata) ObservePartition(nowMs int64, im *metadata.Image, idx int32) *Violation {
	if m.last == nil {
		m.last = map[string][]epochs{}
	}
	p := &im.Partitions[idx]
	top := &im.Topics[p.Topic]
	seen := m.lastSeen
	if m.lastSeen == nil || m.lastID != top.ID {
		seen = m.last[top.ID]
	}
	if len(seen) < int(top.Count) {
		n := int(top.Count) - len(seen)
		seen = append(seen, make([]epochs, n)...)
		m.last[top.ID] = seen
	}
	m.lastID, m.lastSeen = top.ID, seen
	// The partition's name is formatted only for a violation: this runs on every committed
	// partition change.
	name := func() string { return fmt.Sprintf("%s-%d", top.Name, p.ID) }
	if p.Leader >= 0 && !p.InIsr(p.Leader) {
		return &Violation{Seed: m.Seed, AtMs: nowMs, Rule: RuleLeaderInIsr,
			Fact: fmt.Sprintf("%s is led by broker %d", name(), p.Leader), Conflict: fmt.Sprintf("its ISR is %v", p.Isr())}
	}
	prev := seen[p.ID]
	if p.LeaderEpoch < prev.leader {
		return &Violation{Seed: m.Seed, AtMs: nowMs, Rule: RuleLeaderEpochMonotonic,
			Fact: fmt.Sprintf("%s had leader epoch %d", name(), prev.leader), Conflict: fmt.Sprintf("it now has %d", p.LeaderEpoch)}
	}
	if p.PartitionEpoch < prev.partition {
		return &Violation{Seed: m.Seed, AtMs: nowMs, Rule: RulePartitionEpochs,
			Fact: fmt.Sprintf("%s had partition epoch %d", name(), prev.partition), Conflict: fmt.Sprintf("it now has %d", p.PartitionEpoch)}
	}
	seen[p.ID] = epochs{p.LeaderEpoch, p.PartitionEpoch}
	return nil
}

// Balancer checks electPreferred runs: no run elects more than the cap in force, and a broker the
// gate holds back gains no preferred leadership in that run, except through the escape hatch.
type Balancer struct {
	Seed uint64
}

// Observe checks one run from its own report: the cap it applied and the leader each election
// chose. im names the partitions in the message.
func (b *Balancer) Observe(run balance.Run, im *metadata.Image) *Violation {
	if len(run.Elected) > run.MaxPerRun {
		return &Violation{Seed: b.Seed, AtMs: run.TimeMs, Rule: RuleCap,
			Fact:     fmt.Sprintf("leader.imbalance.election.max.per.run was %d", run.MaxPerRun),
			Conflict: fmt.Sprintf("the run elected %d", len(run.Elected))}
	}
	for i, p := range run.Elected {
		if i >= len(run.Leaders) {
			break
		}
		part := &im.Partitions[p]
		leader := run.Leaders[i]
		if leader == part.Preferred() && slices.Contains(run.GatedBrokers, leader) && !slices.Contains(run.EscapeHatchBrokers, leader) {
			return &Violation{Seed: b.Seed, AtMs: run.TimeMs, Rule: RuleGateHolds,
				Fact:     fmt.Sprintf("broker %d is gated in this run", leader),
				Conflict: fmt.Sprintf("the run made it leader of %s-%d, its preferred partition", im.TopicName(part), part.ID)}
		}
	}
	return nil
}
