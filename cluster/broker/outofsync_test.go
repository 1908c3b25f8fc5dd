package broker

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kraftlab/kraftlab/engine/controller"
)

// walkOutOfSync counts broker id's replicas out of sync the slow, obvious way, by a walk of its
// partitions: the reference the fleet's kept counts are checked against.
func walkOutOfSync(f *Fleet, id int32) int {
	_, slot, err := f.slot(id)
	if err != nil {
		return 0
	}
	n := 0
	for _, p := range f.replicaParts(id) {
		if f.pt[p].deleted || f.pt[p].leader < 0 {
			continue
		}
		if r := f.replicaOf(p, slot); r >= 0 && !inSync(f.rp[r].rstate) {
			n++
		}
	}
	return n
}

// TestOutOfSyncCountsAreKeptRight checks the kept counts (OutOfSync, OutOfSyncAll) against a
// walk of each broker's partitions through a kill (a dead broker's replicas are all out of
// sync while its partitions have other leaders), its restart and catch-up, and a deleted topic.
func TestOutOfSyncCountsAreKeptRight(t *testing.T) {
	h := newHarness(t, setup{brokers: 4, partitions: 201, rates: oneRate(1e6)}) // 603 replicas: not a multiple of 8
	all := make([]int, h.f.NumBrokers())
	check := func(when string) int {
		h.f.OutOfSyncAll(all)
		total := 0
		for s := range all {
			id := h.f.BrokerID(s)
			want := walkOutOfSync(h.f, id)
			assert.Equal(t, want, all[s], "%s: OutOfSyncAll, broker %d", when, id)
			assert.Equal(t, want, h.f.OutOfSync(id), "%s: OutOfSync, broker %d", when, id)
			total += all[s]
		}
		return total
	}
	h.run(10_000)
	assert.Zero(t, check("steady"))
	require.NoError(t, h.f.Kill(2))
	h.run(40_000)
	assert.Positive(t, check("broker 2 down"), "the dead broker's replicas are out of sync")
	require.NoError(t, h.f.Start(2))
	for range 60 {
		h.run(h.s.Now() + 1000)
		check("catching up")
	}
	require.NoError(t, h.f.Kill(3))
	h.run(h.s.Now() + 20_000)
	require.Positive(t, check("broker 3 down"))
	h.ctl(func(c *controller.Controller, now int64) { require.NoError(t, c.DeleteTopic("t", now)) })
	h.run(h.s.Now() + 1000)
	assert.Zero(t, check("topic deleted"), "a deleted topic's replicas count for nothing")
}

// TestReplicaStatesInSyncDifferOnlyInTheLowestBit guards the one-mask test inSync relies on.
func TestReplicaStatesInSyncDifferOnlyInTheLowestBit(t *testing.T) {
	for st := range uint8(8) {
		inSync := st == rsLeader || st == rsTracking
		assert.Equal(t, inSync, st&^1 == rsLeader, "state %d", st)
	}
}
