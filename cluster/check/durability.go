package check

import (
	"fmt"
	"slices"
)

// RuleAckedNeverLost is the durability rule Durability enforces.
const RuleAckedNeverLost = "acks-all-record-never-lost-without-unclean-election"

// Durability checks that a record acknowledged with acks=all is lost only through an unclean
// election: a new leader whose log ends below the high watermark its predecessor reached must
// have been chosen by an unclean election committed after that predecessor's epoch. With
// eligible.leader.replicas.version 0 a broker whose disk was replaced may also lose them, as
// in Kafka before KIP-966 (nothing takes it out of the ISR when it restarts empty); AllowDiskLoss
// says so for such a broker. It keeps the leader epochs of the unclean elections, which are
// rare, per partition index.
type Durability struct {
	Seed    uint64
	unclean map[int32][]int32
	lostLog map[int32]bool
}

// ObserveUnclean notes an unclean election (a committed PartitionChangeRecord with
// LeaderRecoveryState RECOVERING) that gave partition idx leader epoch leaderEpoch.
func (d *Durability) ObserveUnclean(idx, leaderEpoch int32) {
	if d.unclean == nil {
		d.unclean = map[int32][]int32{}
	}
	d.unclean[idx] = append(d.unclean[idx], leaderEpoch)
}

// AllowDiskLoss marks broker as having lost its logs with its disk under
// eligible.leader.replicas.version 0, which Kafka does not protect acks=all records from.
func (d *Durability) AllowDiskLoss(broker int32) {
	if d.lostLog == nil {
		d.lostLog = map[int32]bool{}
	}
	d.lostLog[broker] = true
}

// Loss is acknowledged records truncated when broker leader took over partition idx (named
// name) at leaderEpoch from the leader of prevEpoch (-1: unknown), whose high watermark hw
// (bytes) is above the new leader's log end (bytes).
type Loss struct {
	Index, Leader, LeaderEpoch, PrevEpoch int32
	Name                                  string
	HighWatermark, LogEnd, Records        float64
}

// ObserveLoss checks one loss at nowMs and returns a violation unless an unclean election of
// the partition at an epoch after PrevEpoch, up to LeaderEpoch, explains it.
func (d *Durability) ObserveLoss(nowMs int64, l Loss) *Violation {
	if slices.ContainsFunc(d.unclean[l.Index], func(e int32) bool { return e > l.PrevEpoch && e <= l.LeaderEpoch }) {
		return nil
	}
	if d.lostLog[l.Leader] {
		return nil
	}
	return &Violation{Seed: d.Seed, AtMs: nowMs, Rule: RuleAckedNeverLost,
		Fact: fmt.Sprintf("%s's high watermark under leader epoch %d was %.0f bytes, so the records below it were acknowledged with acks=all",
			l.Name, l.PrevEpoch, l.HighWatermark),
		Conflict: fmt.Sprintf("broker %d took over at leader epoch %d with its log ending at %.0f bytes (%.2f records lost) and no unclean election was committed",
			l.Leader, l.LeaderEpoch, l.LogEnd, l.Records)}
}
