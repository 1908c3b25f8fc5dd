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

	// The LeaderAcceptor: the controller's rule for partition idx, with brokerToRemove never
	// acceptable and brokerToAdd acceptable even while still fenced (-1: none). accept, when
	// set, replaces the rule; only tests of the builder alone set it. The rule is a method over
	// fields rather than a closure so that a build allocates nothing.
	ctl                         *Controller
	idx                         int32
	brokerToRemove, brokerToAdd int32
	accept                      func(broker int32) bool
}

func (b *changeBuilder) acceptable(r int32) bool {
	if b.accept != nil {
		return b.accept(r)
	}
	return r != b.brokerToRemove && (r == b.brokerToAdd || b.ctl.isActive(r)) && b.ctl.image.ReplicaDirOnline(r, b.idx)
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
	// The lists live in stack buffers: most builds (a balancer examining a partition whose
	// preferred replica is out of sync) write nothing, and must not allocate. The record gets
	// owned copies at the end, and only if it is written; no buffer is ever stored in it, or
	// escape analysis would move every buffer to the heap.
	var isrBuf, elrBuf, lkeBuf, targetElrBuf, withoutBuf, oneBuf [metadata.MaxReplicas]int32
	curIsr, curElr, curLke := p.AppendIsr(isrBuf[:0]), p.AppendElr(elrBuf[:0]), p.AppendLastKnownElr(lkeBuf[:0])
	targetIsr := b.targetIsr
	if targetIsr == nil {
		targetIsr = curIsr
	}
	empty := targetElrBuf[:0:0]
	// 2. maybePopulateTargetElr.
	targetElr, targetLke := curElr, curLke
	if b.elrEnabled {
		if len(targetIsr) >= b.minIsr {
			targetElr, targetLke = empty, empty
		} else {
			targetElr = electableElr(targetElrBuf[:0], curIsr, curElr, targetIsr, b.uncleanShutdown)
		}
	}
	// 3. tryElection.
	leader, recovery := metadata.NoLeaderChange, metadata.NoRecoveryChange
	var recIsr []int32 // set when the election forces the ISR
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
		leader = winner
		res.newLeads = true
		if unclean {
			oneBuf[0] = winner
			recIsr = oneBuf[:1]
			if p.Recovery() != metadata.Recovering {
				recovery = metadata.Recovering
			}
		} else if winner >= 0 && len(targetIsr) == 0 && slices.Contains(targetElr, winner) {
			oneBuf[0] = winner
			targetIsr = oneBuf[:1]
			targetElr = without(withoutBuf[:0], targetElr, winner)
		}
		res.unclean = unclean
		res.fromElr = winner >= 0 && slices.Contains(curElr, winner)
	}
	// 5. maybeUpdateRecordElr: an unclean election or disabled ELR clears ELR and LastKnownElr.
	if recIsr != nil || !b.elrEnabled {
		targetElr, targetLke = empty, empty
	}
	// 6. The ISR: without ELR it never becomes empty, so the last member stays even if fenced.
	if recIsr == nil && !slices.Equal(targetIsr, curIsr) && (len(targetIsr) > 0 || b.elrEnabled) {
		recIsr = targetIsr
	}
	// 8. maybeUpdateLastKnownLeader (4.1 rule).
	var lastLeader [1]int32
	if b.elrEnabled && !unclean {
		newLeader := p.Leader
		if leader != metadata.NoLeaderChange {
			newLeader = leader
		}
		if newLeader == metadata.NoLeader && len(targetLke) == 0 && p.Leader != metadata.NoLeader {
			lastLeader[0] = p.Leader
			targetLke = lastLeader[:]
		} else if newLeader >= 0 && len(targetLke) > 0 {
			targetLke = empty
		}
	}
	setElr, setLke := !slices.Equal(targetElr, curElr), !slices.Equal(targetLke, curLke)
	// 9. The leader recovery state target (an AlterPartition may report RECOVERED).
	if b.recovery != metadata.NoRecoveryChange && recovery == metadata.NoRecoveryChange && b.recovery != p.Recovery() {
		recovery = b.recovery
	}
	// 10. A no-op writes nothing.
	res.changed = leader != metadata.NoLeaderChange || recIsr != nil || setElr || setLke || recovery != metadata.NoRecoveryChange
	if !res.changed {
		return res
	}
	rec := metadata.NewPartitionChange(b.topic, b.topicID, p.ID)
	rec.Leader, rec.LeaderRecoveryState = leader, recovery
	var lists *slab
	if b.ctl != nil {
		lists = &b.ctl.slab
	}
	if recIsr != nil {
		rec.Isr = lists.list(recIsr)
	}
	if setElr {
		rec.Elr = lists.list(targetElr)
	}
	if setLke {
		rec.LastKnownElr = lists.list(targetLke)
	}
	res.record = rec
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

// electableElr appends (ISR ∪ ELR) − targetIsr − uncleanShutdown to out, in ascending broker
// order as Kafka's HashSet of small integers iterates.
func electableElr(out, isr, elr, targetIsr, unclean []int32) []int32 {
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

// without appends list minus x to out.
func without(out, list []int32, x int32) []int32 {
	for _, r := range list {
		if r != x {
			out = append(out, r)
		}
	}
	return out
}
