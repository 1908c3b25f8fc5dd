package scenario

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kraftlab/kraftlab/engine/metadata"
	"github.com/kraftlab/kraftlab/engine/metrics"
)

// The tests here pin the Kafka facts each scripted scenario of testdata shows (section numbers
// are those of docs/kafka-behaviour.md), so that a regression fails with a reason
// rather than only as a golden diff.

func scripted(t *testing.T, name string) *Result {
	t.Helper()
	return runJSON(t, string(readFile(t, filepath.Join("testdata", name+".json"))))
}

func partitionChanges(st StepResult) []*metadata.PartitionChangeRecord {
	return records[*metadata.PartitionChangeRecord](st)
}

func TestElectingANewLeaderWalkThrough(t *testing.T) {
	res := scripted(t, "electing-a-new-leader")
	// §4.4: the last heartbeat was at 4000 ms; fenced 9.0–10.1 s later by the 1125 ms task.
	fence := res.Steps[2].Records
	require.Len(t, fence, 2)
	assert.GreaterOrEqual(t, fence[0].TimeMs, int64(4000+9000))
	assert.LessOrEqual(t, fence[0].TimeMs, int64(4000+10125))
	assert.Equal(t, int64(13500), fence[0].TimeMs, "the first task run after 13000 ms: 12 × 1125")
	pc := fence[0].Record.(*metadata.PartitionChangeRecord)
	assert.Equal(t, int32(2), pc.Leader, "§3.5: the next ISR member in replica order")
	assert.Equal(t, []int32{2, 0}, pc.Isr)
	assert.Equal(t, metadata.FenceFence, fence[1].Record.(*metadata.BrokerRegistrationChangeRecord).Fenced)
	// §3.5: unfencing adds nothing back to the ISR; the leader does (§5).
	assert.Empty(t, partitionChanges(res.Steps[5]))
	assert.Equal(t, []int32{2, 0, 1}, partitionChanges(res.Steps[6])[0].Isr)
	// §2.2/2.4: in the ISR for 200 s, still not the leader; the first electPreferred run is
	// one full interval (300 s) after activation.
	assert.Equal(t, int32(2), res.Steps[8].Partitions[0].Leader)
	runs := res.Steps[9].BalancerRuns
	require.Len(t, runs, 1)
	assert.Equal(t, int64(300000), runs[0].TimeMs)
	assert.Equal(t, []Election{{Topic: "payments", Partition: 0, Leader: 1}}, runs[0].Elections)
	assert.Equal(t, int64(600000), *runs[0].NextRunMs)
	final := res.Partitions[0]
	assert.Equal(t, int32(1), final.Leader)
	assert.Equal(t, int32(2), final.LeaderEpoch, "one bump per leader change; ISR changes bump only the partition epoch")
	assert.Equal(t, int32(3), final.PartitionEpoch)
}

func TestEligibleLeaderReplicasWithMinInsync2(t *testing.T) {
	res := scripted(t, "elr-min-insync-2")
	first := partitionChanges(res.Steps[1])[0]
	assert.Equal(t, []int32{0, 1}, first.Isr)
	assert.Nil(t, first.Elr, "§3.2: an ISR at min.insync.replicas keeps the ELR empty")
	second := partitionChanges(res.Steps[3])[0]
	assert.Equal(t, []int32{0}, second.Isr)
	assert.Equal(t, []int32{1}, second.Elr, "below min.insync.replicas, the leaving replica joins the ELR")
	last := partitionChanges(res.Steps[5])[0]
	assert.Equal(t, metadata.NoLeader, last.Leader)
	assert.Equal(t, []int32{}, last.Isr, "§3.5: with ELR the ISR can become empty")
	assert.Equal(t, []int32{0, 1}, last.Elr)
	assert.Equal(t, []int32{0}, last.LastKnownElr)
	elected := partitionChanges(res.Steps[7])[0]
	assert.Equal(t, int32(1), elected.Leader, "unfencing elects from the ELR (§3.5)")
	assert.Equal(t, []int32{1}, elected.Isr)
	assert.Equal(t, []int32{0}, elected.Elr)
	assert.Equal(t, []int32{}, elected.LastKnownElr)
	assert.Equal(t, int64(1), res.Metrics[metrics.ElectionFromEligibleLeaderReplicasPerSec])
	assert.Equal(t, int64(0), res.Metrics[metrics.UncleanLeaderElectionsPerSec])
}

func TestUncleanElectionEnabledOnOneTopic(t *testing.T) {
	res := scripted(t, "unclean-topic-level")
	pcs := partitionChanges(res.Steps[0])
	require.Len(t, pcs, 2)
	safe, risky := pcs[0], pcs[1]
	assert.Equal(t, metadata.NoLeader, safe.Leader)
	assert.Equal(t, []int32{0}, safe.Elr)
	assert.Equal(t, int32(1), risky.Leader, "§3.1: fencing elects uncleanly at once where the topic allows it")
	assert.Equal(t, []int32{1}, risky.Isr)
	assert.Equal(t, metadata.Recovering, risky.LeaderRecoveryState)
	assert.Equal(t, int64(1), res.Metrics[metrics.UncleanLeaderElectionsPerSec])
	assert.Equal(t, "RECOVERING", res.Steps[1].Partitions[1].LeaderRecoveryState)
	assert.Equal(t, metadata.Recovered, partitionChanges(res.Steps[2])[0].LeaderRecoveryState)
	assert.Empty(t, res.Partitions[1].LeaderRecoveryState)
}

func TestLastKnownLeaderElection(t *testing.T) {
	res := scripted(t, "last-known-leader")
	assert.Equal(t, []int32{0}, res.Steps[2].Partitions[0].LastKnownElr)
	unclean := partitionChanges(res.Steps[3])
	require.Len(t, unclean, 1)
	assert.Equal(t, []int32{}, unclean[0].Elr, "§3.6: an unclean restart under ELR leaves the ELR")
	cleanup, register := res.Steps[3].Records[0], res.Steps[3].Records[1]
	assert.Equal(t, cleanup.Offset+1, register.Offset, "§3.6: the cleanup precedes the RegisterBrokerRecord")
	assert.Equal(t, cleanup.Offset, register.Record.(*metadata.RegisterBrokerRecord).BrokerEpoch,
		"§4.2: the epoch is the offset where the registration batch starts")
	elected := partitionChanges(res.Steps[5])[0]
	assert.Equal(t, int32(0), elected.Leader, "§3.3: the last known leader, with ISR and ELR empty")
	assert.Equal(t, []int32{0}, elected.Isr)
	assert.Equal(t, metadata.Recovering, elected.LeaderRecoveryState, "counted as unclean")
	assert.Equal(t, []int32{}, elected.LastKnownElr)
}

func TestControlledShutdownRelease(t *testing.T) {
	res := scripted(t, "controlled-shutdown")
	assert.Equal(t, int64(2000), res.Steps[0].Records[0].TimeMs, "broker 3 leads nothing: released at its first heartbeat")
	cs := res.Steps[1].Records
	assert.Equal(t, int8(1), cs[0].Record.(*metadata.BrokerRegistrationChangeRecord).InControlledShutdown, "§4.3: the mark first, then the moves")
	assert.Equal(t, int32(2), cs[1].Record.(*metadata.PartitionChangeRecord).Leader)
	assert.Empty(t, res.Steps[2].Records, "§4.3: not released while an active broker is behind the shutdown batch")
	released := res.Steps[3].Records
	require.Len(t, released, 1)
	assert.Equal(t, int64(8000), released[0].TimeMs)
	assert.Equal(t, metadata.FenceFence, released[0].Record.(*metadata.BrokerRegistrationChangeRecord).Fenced)
	assert.Equal(t, []PartitionResult{{Topic: "events", Partition: 0, Error: "NONE"}}, res.Steps[8].Results)
	assert.Equal(t, StateStopped, brokerState(res, 3).State)
}

func TestDiskSwapUnderElr(t *testing.T) {
	res := scripted(t, "disk-swap")
	fenced := res.Steps[2].Records
	assert.Equal(t, int64(10125), fenced[0].TimeMs)
	assert.Equal(t, int64(10135), fenced[3].TimeMs, "§2.2: one stale broker per run, the next 10 ms later")
	assert.Empty(t, partitionChanges(res.Steps[4]), "a clean restart keeps broker 1 in the ELR")
	swap := partitionChanges(res.Steps[5])
	require.Len(t, swap, 2)
	for _, pc := range swap {
		assert.Equal(t, []int32{1}, pc.Elr, "§3.6: the unclean restart of a new disk leaves the ELR")
	}
	for _, p := range res.Partitions {
		assert.Equal(t, []int32{1}, p.Elr)
	}
}

func TestWaitForSyncGate(t *testing.T) {
	res := scripted(t, "wait-for-sync-gate")
	run := func(step int) BalancerRun {
		require.Len(t, res.Steps[step].BalancerRuns, 1)
		return res.Steps[step].BalancerRuns[0]
	}
	first := run(9)
	assert.Empty(t, first.Elections)
	assert.Equal(t, []int32{1, 2}, first.GatedBrokers, "50% out of sync is over the 20% threshold")
	assert.Equal(t, BrokerValues{{1, 5}, {2, 5}}, first.OutOfSync)
	assert.Equal(t, 10, first.SkippedByGate)
	second := run(12)
	assert.Empty(t, second.Elections, "hysteresis: one run under the threshold is not enough")
	assert.Equal(t, []int32{1, 2}, second.GatedBrokers)
	third := run(14)
	assert.Len(t, third.Elections, 9, "released after two runs under the threshold: its in-sync partitions")
	for _, e := range third.Elections {
		assert.Equal(t, int32(1), e.Leader)
	}
	assert.Equal(t, []int32{2}, third.GatedBrokers)
	hatch := run(16)
	assert.Equal(t, []int32{2}, hatch.EscapeHatchBrokers, "gated for max.wait.ms")
	assert.Len(t, hatch.Elections, 5, "the escape hatch elects only the in-sync partitions")
	assert.Equal(t, int64(1), res.Metrics[metrics.PreferredLeaderElectionEscapeHatchCount])
}

func TestMaxPerRunWithThrottle(t *testing.T) {
	res := scripted(t, "max-per-run-throttle")
	runs := res.Steps[5].BalancerRuns
	require.Len(t, runs, 3)
	want := []struct {
		at, next int64
		n        int
		more     bool
		deferred int
	}{{300000, 302000, 4, true, 6}, {302000, 304000, 4, true, 2}, {304000, 604000, 2, false, 0}}
	for i, w := range want {
		assert.Equal(t, w.at, runs[i].TimeMs)
		assert.Equal(t, w.next, *runs[i].NextRunMs)
		assert.Len(t, runs[i].Elections, w.n)
		assert.Equal(t, w.more, runs[i].MoreWork)
		assert.Equal(t, w.deferred, runs[i].DeferredByCap)
	}
	assert.Equal(t, int64(2), res.Metrics[metrics.PreferredLeaderElectionThrottledRunCount])
	assert.Equal(t, int64(8), res.Metrics[metrics.PreferredLeaderElectionsDeferredByThrottlePerSec])
	assert.Equal(t, 0, res.Metrics[metrics.PreferredReplicaImbalanceCount])
}

func TestPeriodicAndWriteTriggeredSchedules(t *testing.T) {
	fenceAt := int64(109125)
	periodic := scripted(t, "schedule-periodic")
	require.Len(t, periodic.Steps[2].Records, 2)
	assert.Equal(t, fenceAt, periodic.Steps[2].Records[0].TimeMs)
	runs := periodic.Steps[6].BalancerRuns
	require.Len(t, runs, 1)
	assert.Equal(t, int64(300000), runs[0].TimeMs, "§2.2: 4.0+ runs on activation's phase")

	triggered := scripted(t, "schedule-write-triggered")
	runs = triggered.Steps[6].BalancerRuns
	require.Len(t, runs, 1)
	assert.Equal(t, fenceAt+300000, runs[0].TimeMs, "§2.3: 3.x armed the timer at the fencing write")
	assert.Nil(t, runs[0].NextRunMs, "balanced again: nothing arms the timer")
	assert.Len(t, runs[0].Elections, 1)
}

func TestElectLeadersErrorCodes(t *testing.T) {
	res := scripted(t, "elect-leaders-errors")
	codes := func(step int) []string {
		var out []string
		for _, r := range res.Steps[step].Results {
			out = append(out, r.Error)
		}
		return out
	}
	// ReplicationControlManager.electLeaders answers each named partition: a topic that is gone
	// or never existed, and a partition its topic does not have, get UNKNOWN_TOPIC_OR_PARTITION
	// (electLeader: "No such topic as", "No such partition as") and the others are still handled.
	assert.Equal(t, []string{"ELECTION_NOT_NEEDED", "PREFERRED_LEADER_NOT_AVAILABLE", "NONE", "UNKNOWN_TOPIC_OR_PARTITION",
		"UNKNOWN_TOPIC_OR_PARTITION", "UNKNOWN_TOPIC_OR_PARTITION"}, codes(1))
	assert.Equal(t, "No such partition as t-9", res.Steps[1].Results[5].Message)
	assert.Equal(t, []string{"ELECTION_NOT_NEEDED", "NONE", "ELIGIBLE_LEADERS_NOT_AVAILABLE"}, codes(2))
	unclean := partitionChanges(res.Steps[2])[0]
	assert.Equal(t, metadata.Recovering, unclean.LeaderRecoveryState)
	assert.Equal(t, []int32{0}, unclean.Isr)
	assert.Len(t, codes(3), 3, "all partitions: the two that need no election are left out")
}

func TestAlterPartitionErrorCodes(t *testing.T) {
	res := scripted(t, "alter-partition-errors")
	want := map[int]string{0: "INELIGIBLE_REPLICA", 1: "NOT_CONTROLLER", 3: "FENCED_LEADER_EPOCH", 4: "INVALID_REQUEST",
		5: "INVALID_UPDATE_VERSION", 6: "INVALID_REQUEST"}
	for step, code := range want {
		require.NotNil(t, res.Steps[step].Error, "step %d", step)
		assert.Equal(t, code, res.Steps[step].Error.Code, "step %d", step)
		assert.Empty(t, res.Steps[step].Records)
	}
	assert.Nil(t, res.Steps[8].Error)
	final := res.Partitions[0]
	assert.Equal(t, []int32{0, 1, 2}, final.Isr)
	assert.Equal(t, int32(1), final.LeaderEpoch, "§5: an ISR change does not bump the leader epoch")
	assert.Equal(t, int32(2), final.PartitionEpoch)
}

func TestSetConfigOfMinInsyncClearsElr(t *testing.T) {
	res := scripted(t, "set-config-clears-elr")
	clear0 := records[*metadata.ClearElrRecord](res.Steps[0])
	require.Len(t, clear0, 1)
	assert.Equal(t, "b", clear0[0].Topic)
	assert.Equal(t, []int32{1}, res.Steps[1].Partitions[0].Elr, "topic a is untouched")
	assert.Equal(t, int32(1), res.Steps[1].Partitions[1].PartitionEpoch, "§3.3: the epoch goes up where the ELR changed")
	assert.Equal(t, int32(0), res.Steps[1].Partitions[2].PartitionEpoch, "and only there")
	clear2 := records[*metadata.ClearElrRecord](res.Steps[2])
	require.Len(t, clear2, 1)
	assert.Empty(t, clear2[0].Topic, "cluster level: every topic")
	assert.Empty(t, res.Steps[3].Partitions[0].Elr)
	assert.Equal(t, "INVALID_REQUEST", res.Steps[4].Error.Code)
	assert.Len(t, records[*metadata.ClearElrRecord](res.Steps[5]), 1)
}

func TestInvalidScenariosStopBeforeRunning(t *testing.T) {
	for name, want := range map[string]string{
		"config-error":         `config["min.insync.replicas"]: Invalid value 0 for configuration min.insync.replicas: Value must be at least 1`,
		"unknown-broker-error": `steps[3].broker: broker 7 does not exist (brokers: 0, 1, 2, 5)`,
	} {
		_, err := Parse(readFile(t, filepath.Join("testdata", name+".json")))
		assert.EqualError(t, err, want)
	}
}
