package cluster

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// record collects the stream of c.
func record(c *Cluster) *[]Happening {
	var hs []Happening
	c.Observe(func(h *Happening) { hs = append(hs, *h) })
	return &hs
}

// first returns the index of the first happening from index from on that matches, or -1.
func first(hs []Happening, from int, match func(*Happening) bool) int {
	for i := from; i < len(hs); i++ {
		if match(&hs[i]) {
			return i
		}
	}
	return -1
}

func TestTheStreamTellsCauseBeforeEffect(t *testing.T) {
	c, err := New(smallSpec(1, []int32{1, 2, 0}))
	require.NoError(t, err)
	hs := record(c)
	require.NoError(t, c.RunUntil(10_000))
	require.NoError(t, c.Do(Event{Op: OpKill, Broker: 1}))
	killedAt := c.Now()
	require.NoError(t, c.RunUntil(killedAt+15_000))
	require.NoError(t, c.Do(Event{Op: OpKillController, Controller: "active"}))
	require.NoError(t, c.RunUntil(c.Now()+10_000))
	s := *hs

	for i := range s {
		if i > 0 {
			require.GreaterOrEqual(t, s[i].AtMs, s[i-1].AtMs, "happening %d (%+v) is earlier than the one before it", i, s[i])
		}
		if s[i].Kind == Sent && s[i].ArriveMs >= 0 {
			require.GreaterOrEqual(t, s[i].ArriveMs, s[i].AtMs, "a message arrives after it is sent: %+v", s[i])
		}
	}
	heartbeat := func(from int) int {
		return first(s, from, func(h *Happening) bool {
			return h.Kind == Sent && h.API == "BrokerHeartbeat" && !h.Response && h.From == 1 && h.AtMs > killedAt
		})
	}
	before := first(s, 0, func(h *Happening) bool { return h.Kind == Sent && h.API == "BrokerHeartbeat" && h.From == 1 })
	require.GreaterOrEqual(t, before, 0, "broker 1 heartbeats while it runs")
	assert.Equal(t, "ready: unfence me", s[before].Note())
	assert.Equal(t, -1, heartbeat(0), "a killed broker sends no heartbeats")

	expired := first(s, 0, func(h *Happening) bool { return h.Decision == DecisionSessionExpired && h.Brokers[0] == 1 })
	fenced := first(s, 0, func(h *Happening) bool { return h.Decision == DecisionFenced && h.Brokers[0] == 1 })
	moved := first(s, 0, func(h *Happening) bool { return h.Decision == DecisionLeader && h.OldLeader == 1 })
	require.True(t, expired >= 0 && fenced >= 0 && moved >= 0, "session expiry %d, fence %d, leader move %d", expired, fenced, moved)
	assert.Less(t, expired, fenced, "the session check writes the fence before it commits")
	assert.Less(t, expired, moved, "the leader moves because of the fence")
	assert.Equal(t, s[fenced].AtMs, s[moved].AtMs, "the fence and its leader changes commit together")
	assert.Greater(t, s[fenced].AtMs, s[expired].AtMs, "the fence commits after a round of fetches")
	assert.Equal(t, ElectionOnline, s[moved].Election)
	assert.Equal(t, "fence of broker 1", s[moved].Trigger)
	assert.Equal(t, int32(2), s[moved].Leader)
	assert.Contains(t, s[moved].Reason, "payments-0: leader moved from broker 1 to broker 2")
	committed := first(s, expired, func(h *Happening) bool { return h.Kind == Committed && h.Record == "BrokerRegistrationChangeRecord" })
	assert.Equal(t, fenced-1, committed, "the fence decision follows its record's commit")
	assert.Equal(t, s[committed].Offset, s[committed].Entry.Offset, "a commit carries its entry")
	assert.Equal(t, s[committed].Record, s[committed].Entry.Record.Type())
	assert.GreaterOrEqual(t, s[expired].SilentMs, int64(9_000), "the session expired after broker.session.timeout.ms of silence")
	change := first(s, expired, func(h *Happening) bool { return h.Kind == Committed && h.Record == "PartitionChangeRecord" })
	assert.Less(t, change, moved, "the leader move follows its record's commit")

	// The controller failover: votes travel, then the new leader announces its epoch.
	vote := first(s, moved, func(h *Happening) bool {
		return h.Kind == Sent && h.API == "Vote" && !h.Response && !strings.HasPrefix(h.Note(), "pre-vote")
	})
	granted := first(s, vote, func(h *Happening) bool { return h.API == "Vote" && h.Response && h.Note() == "granted" })
	begin := first(s, granted, func(h *Happening) bool { return h.API == "BeginQuorumEpoch" })
	leader := first(s, begin, func(h *Happening) bool { return h.Decision == DecisionQuorumLeader })
	require.True(t, vote >= 0 && granted > vote && begin > granted && leader > begin,
		"vote %d, granted %d, BeginQuorumEpoch %d, new quorum leader %d", vote, granted, begin, leader)
}

func TestObservingChangesNothing(t *testing.T) {
	run := func(observe bool) (*Cluster, int) {
		c, err := New(smallSpec(7, []int32{1, 2, 0}, []int32{2, 0, 1}, []int32{0, 1, 2}))
		require.NoError(t, err)
		n := 0
		if observe {
			c.Observe(func(*Happening) { n++ })
		}
		for _, step := range []struct {
			at int64
			ev Event
		}{
			{5_000, Event{Op: OpKill, Broker: 1}},
			{30_000, Event{Op: OpStart, Broker: 1}},
			{60_000, Event{Op: OpKillController, Controller: "active"}},
			{70_000, Event{Op: OpSnapshot}},
			{80_000, Event{Op: OpShutdown, Broker: 2}},
			{120_000, Event{Op: OpStart, Broker: 2}},
		} {
			require.NoError(t, c.RunUntil(step.at))
			require.NoError(t, c.Do(step.ev))
		}
		require.NoError(t, c.RunUntil(400_000))
		return c, n
	}
	plain, _ := run(false)
	watched, n := run(true)
	assert.Greater(t, n, 1000, "the observer saw the run")
	assert.Equal(t, plain.Records(), watched.Records())
	assert.Equal(t, plain.Samples(), watched.Samples())
	assert.Equal(t, plain.BalancerRuns(), watched.BalancerRuns())
	assert.Equal(t, plain.Summary(), watched.Summary())
	assert.Equal(t, plain.Now(), watched.Now())
}

func TestABalancerRunSaysWhatTheGateWithheld(t *testing.T) {
	spec := smallSpec(11)
	spec.Topics = []TopicSpec{{Name: "events", PartitionCount: 60, ReplicationFactor: 3}}
	for k, v := range map[string]any{
		"leader.imbalance.election.algorithm":                       "wait-for-sync",
		"leader.imbalance.election.wait.for.sync.threshold.percent": 5.0,
		"leader.imbalance.check.interval.seconds":                   30.0,
	} {
		require.NoError(t, spec.Static.Set(k, v, 0))
	}
	spec.Broker.LocalRetentionSec = 600
	c, err := New(spec)
	require.NoError(t, err)
	hs := record(c)
	require.NoError(t, c.RunUntil(60_000))
	require.NoError(t, c.Do(Event{Op: OpKill, Broker: 2}))
	require.NoError(t, c.Do(Event{Op: OpDiskSwap, Broker: 2}))
	require.NoError(t, c.RunUntil(90_000))
	require.NoError(t, c.Do(Event{Op: OpStart, Broker: 2}))
	require.NoError(t, c.RunUntil(200_000))
	gated := first(*hs, 0, func(h *Happening) bool {
		return h.Decision == DecisionBalancerRun && len(h.Brokers) == 1 && h.Brokers[0] == 2 && h.Withheld > 0
	})
	require.GreaterOrEqual(t, gated, 0, "a run while broker 2 catches up holds its leaderships back")
	h := (*hs)[gated]
	assert.Contains(t, h.Reason, "the wait-for-sync gate holds back broker 2")
	assert.Equal(t, 0, h.Elected)
}
