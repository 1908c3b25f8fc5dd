package controller

import (
	"slices"

	"github.com/kraftlab/kraftlab/engine/metadata"
)

// Election is the kind of leader election a partition change performs, as Kafka's
// PartitionChangeBuilder.Election names them.
type Election int

// The election kinds. ONLINE keeps a valid leader and otherwise takes the first valid replica;
// PREFERRED tries replicas[0] first; UNCLEAN may fall back to a replica outside the ISR and ELR.
const (
	ElectionOnline Election = iota
	ElectionPreferred
	ElectionUnclean
)

// changeBuilder computes one PartitionChangeRecord the way Kafka's PartitionChangeBuilder does,
// following the order of its build(): ELR targets, election, ELR fields, ISR, last known leader.
type changeBuilder struct {
	part       *metadata.Partition
	topic      string
	topicID    string
	election   Election
	targetIsr  []int32 // nil: the current ISR
	recovery   int8    // target LeaderRecoveryState, or NoRecoveryChange
	minIsr     int
	elrEnabled bool
	// uncleanShutdown lists replicas that restarted uncleanly: they lose ELR eligibility.
	uncleanShutdown []int32
	acceptable      func(broker int32) bool
}

// buildResult is the record (if any) and facts about the election for metrics.
type buildResult struct {
	record   metadata.PartitionChangeRecord
	changed  bool
	unclean  bool // the new leader was chosen by an unclean (or last-known-leader) election
	fromElr  bool // the new leader was in the ELR before the change
	newLeads bool // the record changes the leader
}

func (b *changeBuilder) build() buildResult {
	p := b.part
	curIsr, curElr, curLke := p.Isr(), p.Elr(), p.LastKnownElr()
	targetIsr := b.targetIsr
	if targetIsr == nil {
		targetIsr = curIsr
	}
	// 2. maybePopulateTargetElr.
	targetElr, targetLke := curElr, curLke
	if b.elrEnabled {
		if len(targetIsr) >= b.minIsr {
			targetElr, targetLke = []int32{}, []int32{}
		} else {
			targetElr = electableElr(curIsr, curElr, targetIsr, b.uncleanShutdown)
		}
	}
	// 3. tryElection.
	rec := metadata.NewPartitionChange(b.topic, b.topicID, p.ID)
	res := buildResult{}
	valid := func(r int32) bool {
		if r < 0 {
			return false
		}
		inIsr := slices.Contains(targetIsr, r)
		return (inIsr || (len(targetIsr) == 0 && slices.Contains(targetElr, r))) && b.acceptable(r)
	}
	winner, unclean := b.elect(valid, targetIsr, targetElr, targetLke)
	if winner != p.Leader {
		rec.Leader = winner
		res.newLeads = true
		if unclean {
			rec.Isr = []int32{winner}
			if p.Recovery != metadata.Recovering {
				rec.LeaderRecoveryState = metadata.Recovering
			}
		} else if winner >= 0 && len(targetIsr) == 0 && slices.Contains(targetElr, winner) {
			targetIsr = []int32{winner}
			targetElr = without(targetElr, winner)
		}
		res.unclean = unclean
		res.fromElr = winner >= 0 && slices.Contains(curElr, winner)
	}
	// 5. maybeUpdateRecordElr: an unclean election or disabled ELR clears ELR and LastKnownElr.
	if rec.Isr != nil || !b.elrEnabled {
		targetElr, targetLke = []int32{}, []int32{}
	}
	// 6. The ISR: without ELR it never becomes empty, so the last member stays even if fenced.
	if rec.Isr == nil && !slices.Equal(targetIsr, curIsr) && (len(targetIsr) > 0 || b.elrEnabled) {
		rec.Isr = targetIsr
	}
	// 8. maybeUpdateLastKnownLeader (4.1 rule).
	if b.elrEnabled && !unclean {
		newLeader := p.Leader
		if rec.Leader != metadata.NoLeaderChange {
			newLeader = rec.Leader
		}
		if newLeader == metadata.NoLeader && len(targetLke) == 0 && p.Leader != metadata.NoLeader {
			targetLke = []int32{p.Leader}
		} else if newLeader >= 0 && len(targetLke) > 0 {
			targetLke = []int32{}
		}
	}
	if !slices.Equal(targetElr, curElr) {
		rec.Elr = targetElr
	}
	if !slices.Equal(targetLke, curLke) {
		rec.LastKnownElr = targetLke
	}
	// 9. The leader recovery state target (an AlterPartition may report RECOVERED).
	if b.recovery != metadata.NoRecoveryChange && rec.LeaderRecoveryState == metadata.NoRecoveryChange && b.recovery != p.Recovery {
		rec.LeaderRecoveryState = b.recovery
	}
	// 10. A no-op writes nothing.
	res.record = rec
	res.changed = !rec.IsNoOp()
	return res
}

// elect picks the leader as electPreferredLeader / electAnyLeader do.
func (b *changeBuilder) elect(valid func(int32) bool, targetIsr, targetElr, targetLke []int32) (int32, bool) {
	p := b.part
	replicas := p.Replicas()
	if b.election == ElectionPreferred {
		if valid(replicas[0]) {
			return replicas[0], false
		}
		if valid(p.Leader) {
			return p.Leader, false
		}
		for _, r := range replicas[1:] {
			if valid(r) {
				return r, false
			}
		}
	} else {
		if valid(p.Leader) {
			return p.Leader, false
		}
		for _, r := range replicas {
			if valid(r) {
				return r, false
			}
		}
	}
	// The last known leader (KIP-966, balanced recovery): elected uncleanly when nothing in
	// the ISR or ELR is left.
	if b.elrEnabled && len(targetIsr) == 0 && len(targetElr) == 0 && len(targetLke) == 1 && b.acceptable(targetLke[0]) {
		return targetLke[0], true
	}
	if b.election == ElectionUnclean {
		for _, r := range replicas {
			if b.acceptable(r) {
				return r, true
			}
		}
	}
	return metadata.NoLeader, false
}

// electableElr is (ISR ∪ ELR) − targetIsr − uncleanShutdown, in ascending broker order as
// Kafka's HashSet of small integers iterates.
func electableElr(isr, elr, targetIsr, unclean []int32) []int32 {
	out := make([]int32, 0, len(isr)+len(elr))
	for _, list := range [][]int32{isr, elr} {
		for _, r := range list {
			if !slices.Contains(targetIsr, r) && !slices.Contains(unclean, r) && !slices.Contains(out, r) {
				out = append(out, r)
			}
		}
	}
	slices.Sort(out)
	return out
}

func without(list []int32, x int32) []int32 {
	out := make([]int32, 0, len(list))
	for _, r := range list {
		if r != x {
			out = append(out, r)
		}
	}
	return out
}
