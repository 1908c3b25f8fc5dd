package quorum

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestHappyPathElectsAppendsAndCommitsByMajority(t *testing.T) {
	h := newHarness(t, 1, 3, nil)
	leader, epoch := h.waitLeader(0, 5000)
	assert.Equal(t, int32(1), epoch, "a fresh cluster elects epoch 1")
	// Unattached voters wait a randomised election timeout in [1000, 2000) before pre-voting.
	require.Len(t, h.elected, 1)
	assert.GreaterOrEqual(t, h.elected[0].atMs, int64(1000))
	assert.Less(t, h.elected[0].atMs, int64(2000+10))

	// The LeaderChangeMessage sits at the epoch start offset.
	st := h.status(leader)
	require.Equal(t, int64(1), st.EndOffset)
	lc := h.entries(leader, 0, 1)[0]
	require.NotNil(t, lc.Control)
	assert.Equal(t, int64(0), lc.Offset)
	assert.Equal(t, epoch, lc.Epoch)
	assert.Equal(t, LeaderChangeBytes, lc.Bytes)
	assert.Equal(t, epoch, lc.Control.Epoch)
	assert.Equal(t, leader, lc.Control.LeaderID)
	assert.Equal(t, voterIDs(3), lc.Control.Voters)
	assert.Contains(t, lc.Control.GrantingVoters, leader)
	assert.GreaterOrEqual(t, len(lc.Control.GrantingVoters), 2, "a majority granted the vote")

	last := h.appendN(leader, 3, 100, "a")
	assert.Equal(t, int64(3), last)
	h.run(20)
	for _, id := range voterIDs(3) {
		s := h.status(id)
		assert.Equal(t, int64(4), s.EndOffset, "node %d log end", id)
		assert.Equal(t, int64(4), s.HighWatermark, "node %d hw", id)
		assert.Equal(t, int64(4), h.applied[id], "node %d applied", id)
		got := h.entries(id, 1, 4)
		assert.Equal(t, []string{"a-0", "a-1", "a-2"}, []string{got[0].Payload, got[1].Payload, got[2].Payload})
	}

	follower := h.others(leader)[0]
	_, err := h.q.Append(follower, Record[string]{Payload: "x", Bytes: 1})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "only the leader accepts Append")
	assert.Contains(t, err.Error(), "Follower")
}

func TestHighWatermarkNeedsAMajorityOfVoters(t *testing.T) {
	h := newHarness(t, 2, 5, nil)
	leader, _ := h.waitLeader(0, 5000)
	h.run(50)
	others := h.others(leader)
	require.NoError(t, h.q.Kill(others[0]))
	require.NoError(t, h.q.Kill(others[1]))
	last := h.appendN(leader, 2, 10, "m")
	h.run(50)
	assert.Equal(t, last+1, h.status(leader).HighWatermark, "3 of 5 voters hold it: committed")

	require.NoError(t, h.q.Kill(others[2]))
	last = h.appendN(leader, 2, 10, "n")
	h.run(50)
	assert.Equal(t, last-1, h.status(leader).HighWatermark, "2 of 5 voters hold it: not committed")

	require.NoError(t, h.q.Start(others[2]))
	h.run(100)
	assert.Equal(t, last+1, h.status(leader).HighWatermark, "a third voter catches up: committed")
}

// TestLeaderKillElectsNewLeaderWithinKafkaTimeouts checks the failover window the configs imply.
// A follower last heard from the leader at most FetchMaxWait (plus a round trip) before the kill,
// so it turns Prospective no earlier than kill + fetch timeout − max wait − a round trip. The two
// survivors time out close together and may both pass pre-vote and split the vote; the retry
// comes after one randomised election timeout, so the new leader is in place by kill + fetch
// timeout + 2 × election timeout (+ a few round trips), at epoch +1 or, after a split, +2.
func TestLeaderKillElectsNewLeaderWithinKafkaTimeouts(t *testing.T) {
	splits := 0
	for seed := uint64(1); seed <= 20; seed++ {
		h := newHarness(t, seed, 3, nil)
		cfg := h.q.Config()
		rtt := 2 * (cfg.NetworkDelayMs + cfg.NetworkJitterMs)
		old, epoch := h.waitLeader(0, 5000)
		h.run(h.q.rand.Child("idle").Between(0, 3000)) // kill at a random point of the fetch cycle
		killAt := h.s.Now()
		require.NoError(t, h.q.Kill(old))
		next, nextEpoch := h.waitLeader(epoch, 10_000)
		at := h.elected[len(h.elected)-1].atMs

		assert.NotEqual(t, old, next, "seed %d", seed)
		assert.Contains(t, []int32{epoch + 1, epoch + 2}, nextEpoch, "seed %d", seed)
		if nextEpoch == epoch+2 {
			splits++
		}
		lo := killAt + cfg.FetchTimeoutMs - cfg.FetchMaxWaitMs - rtt
		hi := killAt + cfg.FetchTimeoutMs + 2*cfg.ElectionTimeoutMs + 5*rtt
		assert.GreaterOrEqual(t, at, lo, "seed %d: elected %d ms after the kill", seed, at-killAt)
		assert.LessOrEqual(t, at, hi, "seed %d: elected %d ms after the kill", seed, at-killAt)
		assert.Equal(t, ReasonKilled, h.resigns[len(h.resigns)-1].why)
	}
	// Both outcomes occur: network jitter decides whether the survivors race.
	assert.Greater(t, splits, 0)
	assert.Less(t, splits, 20)
}

func TestUncommittedEntriesAreRevertedOnTheOldLeader(t *testing.T) {
	h := newHarness(t, 3, 3, nil)
	old, epoch := h.waitLeader(0, 5000)
	h.appendN(old, 2, 10, "committed")
	h.run(20)
	hw := h.status(old).HighWatermark
	require.Equal(t, int64(3), hw)

	// The leader is cut off; it still accepts writes it can never commit.
	for _, f := range h.others(old) {
		require.NoError(t, h.q.Cut(old, f))
	}
	h.appendN(old, 3, 10, "lost")
	h.run(100)
	assert.Equal(t, hw, h.status(old).HighWatermark)
	assert.Equal(t, hw+3, h.status(old).EndOffset)
	require.NoError(t, h.q.Kill(old))
	h.q.HealAll()

	next, _ := h.waitLeader(epoch, 10_000)
	h.appendN(next, 2, 10, "new")
	h.run(20)

	require.NoError(t, h.q.Start(old))
	h.run(5000)
	require.NotEmpty(t, h.truncs)
	assert.Equal(t, truncation{old, hw}, h.truncs[0], "the lost entries are cut back to the old high watermark")

	oldSt, nextSt := h.status(old), h.status(next)
	assert.Equal(t, nextSt.EndOffset, oldSt.EndOffset)
	assert.Equal(t, nextSt.HighWatermark, oldSt.HighWatermark)
	assert.Equal(t, Follower, oldSt.State)
	a, b := h.entries(old, 0, oldSt.EndOffset), h.entries(next, 0, nextSt.EndOffset)
	assert.Equal(t, b, a)
	for _, e := range a {
		assert.NotContains(t, e.Payload, "lost")
	}
	require.NoError(t, h.q.Check())
}

func TestCheckQuorumResignsALeaderCutFromTheMajority(t *testing.T) {
	h := newHarness(t, 4, 3, nil)
	cfg := h.q.Config()
	old, epoch := h.waitLeader(0, 5000)
	h.run(1234)
	cutAt := h.s.Now()
	for _, f := range h.others(old) {
		require.NoError(t, h.q.Cut(old, f))
	}
	h.run(cfg.CheckQuorumTimeoutMs() + 100)

	require.NotEmpty(t, h.resigns)
	r := h.resigns[0]
	assert.Equal(t, resignation{old, epoch, ReasonCheckQuorum, r.atMs}, r)
	assert.Equal(t, int64(3000), cfg.CheckQuorumTimeoutMs(), "1.5 × controller.quorum.fetch.timeout.ms")
	// The timer restarts on every voter fetch; idle followers re-fetch every FetchMaxWait.
	assert.LessOrEqual(t, r.atMs, cutAt+cfg.CheckQuorumTimeoutMs())
	rtt := 2 * (cfg.NetworkDelayMs + cfg.NetworkJitterMs)
	assert.GreaterOrEqual(t, r.atMs, cutAt+cfg.CheckQuorumTimeoutMs()-cfg.FetchMaxWaitMs-rtt)
	assert.Equal(t, Resigned, h.status(old).State)

	next, nextEpoch := h.waitLeader(epoch, 5000)
	assert.NotEqual(t, old, next)
	h.q.HealAll()
	h.run(3000)
	st := h.status(old)
	assert.Equal(t, Follower, st.State)
	assert.Equal(t, next, st.LeaderID)
	assert.Equal(t, nextEpoch, st.Epoch)
}

// TestPreVoteKeepsAnIsolatedFollowerFromDisruptingTheLeader is KIP-996 at work: a voter cut off
// from the leader alone keeps timing out, but the other follower, still fetching, refuses its
// pre-votes, so the epoch never moves.
func TestPreVoteKeepsAnIsolatedFollowerFromDisruptingTheLeader(t *testing.T) {
	h := newHarness(t, 5, 3, nil)
	leader, epoch := h.waitLeader(0, 5000)
	lonely := h.others(leader)[0]
	require.NoError(t, h.q.Cut(leader, lonely))
	sawProspective := false
	for range 200 {
		h.run(50)
		sawProspective = sawProspective || h.status(lonely).State == Prospective
	}
	assert.True(t, sawProspective, "the isolated voter does try")
	id, e, ok := h.q.Leader()
	require.True(t, ok)
	assert.Equal(t, leader, id)
	assert.Equal(t, epoch, e)
	assert.Len(t, h.elected, 1)
	assert.Equal(t, epoch, h.status(lonely).Epoch)
}

func TestSuccessorBackoffIsStrictExponential(t *testing.T) {
	h := newHarness(t, 1, 3, nil)
	assert.Equal(t, int64(0), h.q.successorBackoff(0, 2), "the most up-to-date successor stands at once")
	assert.Equal(t, int64(500), h.q.successorBackoff(1, 2))
	assert.Equal(t, int64(250), h.q.successorBackoff(1, 3))
	assert.Equal(t, int64(500), h.q.successorBackoff(2, 3))
	assert.Equal(t, int64(125), h.q.successorBackoff(1, 4))
	assert.Equal(t, int64(1000), h.q.successorBackoff(4, 4), "not a successor: the maximum")
}

func TestObserversFollowTheLeaderAndCatchUp(t *testing.T) {
	h := newHarness(t, 6, 3, nil)
	for i := range 5 {
		require.NoError(t, h.q.AddObserver(NodeID(i)))
	}
	leader, _ := h.waitLeader(0, 5000)
	h.appendN(leader, 10, 100, "x")
	h.run(50)
	want := h.status(leader)
	for i := range 5 {
		st := h.status(NodeID(i))
		assert.False(t, st.Voter)
		assert.Equal(t, Follower, st.State)
		assert.Equal(t, leader, st.LeaderID)
		assert.Equal(t, want.EndOffset, st.EndOffset)
		assert.Equal(t, want.HighWatermark, st.HighWatermark)
	}

	// A broker cut from the leader falls behind, then catches up after the heal.
	require.NoError(t, h.q.Cut(leader, 2))
	h.appendN(leader, 10, 100, "y")
	h.run(3000)
	assert.Less(t, h.status(2).HighWatermark, h.status(leader).HighWatermark)
	require.NoError(t, h.q.Heal(leader, 2))
	// A late broker finds the leader through the voters and replicates from offset 0.
	require.NoError(t, h.q.AddObserver(99))
	h.run(3000)
	want = h.status(leader)
	for _, id := range []NodeID{2, 99} {
		st := h.status(id)
		assert.Equal(t, want.HighWatermark, st.HighWatermark, "observer %d", id)
		assert.Equal(t, h.entries(leader, 0, want.EndOffset), h.entries(id, 0, st.EndOffset), "observer %d", id)
	}
	for _, e := range h.elected {
		assert.GreaterOrEqual(t, e.node, NodeID(3000), "observers never lead")
	}
}

func TestObserversFollowTheNewLeaderAfterFailover(t *testing.T) {
	h := newHarness(t, 7, 3, nil)
	require.NoError(t, h.q.AddObserver(1))
	old, epoch := h.waitLeader(0, 5000)
	h.run(100)
	require.NoError(t, h.q.Kill(old))
	next, nextEpoch := h.waitLeader(epoch, 10_000)
	h.appendN(next, 1, 10, "after")
	h.run(3000)
	st := h.status(1)
	assert.Equal(t, next, st.LeaderID)
	assert.Equal(t, nextEpoch, st.Epoch)
	assert.Equal(t, h.status(next).HighWatermark, st.HighWatermark)
}

func TestFaultAndInputErrorsNameTheProblem(t *testing.T) {
	h := newHarness(t, 8, 3, nil)
	leader, _ := h.waitLeader(0, 5000)

	err := h.q.Kill(42)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "node 42 is neither a voter")

	require.NoError(t, h.q.Kill(leader))
	err = h.q.Kill(leader)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "is stopped")
	require.NoError(t, h.q.Start(leader))
	err = h.q.Start(leader)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "already running")

	err = h.q.Cut(3000, 3000)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "joins a node to itself")

	err = h.q.AddObserver(3001)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "node 3001 already exists")
	err = h.q.AddObserver(-3)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "observer id -3 is negative")

	_, err = h.q.Read(3000, 0, 99, nil)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "outside the log")

	leader, _ = h.waitLeader(0, 10_000)
	_, err = h.q.Append(leader)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "no records")
	_, err = h.q.Append(leader, Record[string]{Payload: "a", Bytes: 5}, Record[string]{Payload: "b", Bytes: 0})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "records[1].Bytes = 0")
	h.run(50)
	_, err = h.q.Snapshot(leader)
	require.NoError(t, err, "the LeaderChangeMessage is committed, so there is something to snapshot")
	_, err = h.q.Snapshot(leader)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "nothing committed past its latest snapshot")
}

// TestInvariantCheckerCatchesADivergentCommittedEntry proves the checker can fail: a follower's
// committed entry is swapped behind the quorum's back, and Check names the seed, time and facts.
func TestInvariantCheckerCatchesADivergentCommittedEntry(t *testing.T) {
	h := newHarness(t, 9, 3, nil)
	leader, _ := h.waitLeader(0, 5000)
	h.appendN(leader, 3, 10, "v")
	h.run(20)
	f := h.q.nodes[h.q.byID[h.others(leader)[0]]]
	f.log.replace(2, h.q.arena.add(Entry[string]{Offset: 2, Epoch: 9, Bytes: 10, Payload: "forged"}))

	err := h.q.Check()
	require.Error(t, err)
	var v Violation
	require.ErrorAs(t, err, &v)
	assert.Equal(t, "one committed prefix", v.Rule)
	assert.Equal(t, uint64(9), v.Seed)
	assert.Equal(t, h.s.Now(), v.AtMs)
	assert.Contains(t, v.Error(), "seed 9")
	assert.Contains(t, v.Conflict, "epoch 9")
	assert.Contains(t, v.Fact, "committed offset 2")
}

// TestNewLeaderCommitsNothingOlderBeforeItsOwnEpoch stages the case LeaderState's epoch-start rule
// exists for. Entry E of epoch 1 reaches A (leader) and B but is not yet committed when A dies.
// B wins epoch 2 and writes its LeaderChangeMessage right after E. When A comes back it fetches
// from B with its end offset just past E: a majority (A, B) now holds E, yet B must not commit
// it until a majority also holds an entry of epoch 2, or a later leader could still erase it.
func TestNewLeaderCommitsNothingOlderBeforeItsOwnEpoch(t *testing.T) {
	h := newHarness(t, 21, 3, func(c *Config) { c.NetworkJitterMs = 0 })
	a, _ := h.waitLeader(0, 5000)
	h.run(50)
	b, c := h.others(a)[0], h.others(a)[1]
	require.NoError(t, h.q.Cut(a, c))

	e := h.appendN(a, 1, 10, "E")
	h.stepUntil(func() bool { return h.status(b).EndOffset == e+1 })
	require.NoError(t, h.q.Kill(a)) // B's next fetch, which would have committed E, is lost
	require.Equal(t, e, h.status(b).HighWatermark, "E is on two of three voters but not committed")

	h.stepUntil(func() bool { id, _, ok := h.q.Leader(); return ok && id == b })
	require.NoError(t, h.q.Cut(b, c)) // C never fetches, so only A can complete B's majority
	epochStart := h.status(b).EndOffset - 1
	require.Equal(t, e+1, epochStart)
	before := len(h.hwSeen[b])

	require.NoError(t, h.q.Start(a))
	h.run(2500)
	st := h.status(a)
	require.Equal(t, Follower, st.State)
	require.Equal(t, b, st.LeaderID)
	moves := h.hwSeen[b][before:]
	require.NotEmpty(t, moves, "B commits once A holds its LeaderChangeMessage")
	assert.NotContains(t, moves, epochStart, "B never commits E on its own")
	assert.Equal(t, epochStart+1, moves[0])
	assert.Empty(t, h.truncs)
}
