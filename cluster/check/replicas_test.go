package check

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestReplicasCatchesTwoLeadersAtOneEpochAHighWatermarkGoingBackAndALeaderAhead(t *testing.T) {
	r := Replicas{Seed: 3}
	im := image(t, 1, []int32{1, 2}, 4, 9) // committed: broker 1 leads t-0 at epoch 4
	p := &im.Partitions[0]
	assert.Nil(t, r.Observe(1, "t", 0, p, Serving{Leader: 1, LeaderEpoch: 4, HighWatermark: 100}))
	assert.Nil(t, r.Observe(2, "t", 0, p, Serving{Leader: 1, LeaderEpoch: 4, HighWatermark: 150}))
	assert.Nil(t, r.Observe(3, "t", 0, p, Serving{Leader: 0, LeaderEpoch: 3, HighWatermark: 10}), "an old leader that has not caught up is no violation")

	v := r.Observe(4, "t", 0, p, Serving{Leader: 1, LeaderEpoch: 4, HighWatermark: 120})
	require.NotNil(t, v)
	assert.Equal(t, RuleHighWatermark, v.Rule)

	v = r.Observe(5, "t", 0, p, Serving{Leader: 2, LeaderEpoch: 4, HighWatermark: 150})
	require.NotNil(t, v)
	assert.Equal(t, RuleLeaderNotAhead, v.Rule, "at the committed epoch only the committed leader may serve")

	v = r.Observe(6, "t", 0, p, Serving{Leader: 1, LeaderEpoch: 5, HighWatermark: 150})
	require.NotNil(t, v)
	assert.Equal(t, RuleLeaderNotAhead, v.Rule)
	assert.Contains(t, v.Error(), "broker 1 serves it at leader epoch 5")

	// A committed change of leader: the new epoch starts afresh, lower high watermark and all.
	im2 := image(t, 2, []int32{2}, 5, 10)
	assert.Nil(t, r.Observe(7, "t", 0, &im2.Partitions[0], Serving{Leader: 2, LeaderEpoch: 5, HighWatermark: 90}))
	v = r.Observe(8, "t", 0, &im2.Partitions[0], Serving{Leader: 3, LeaderEpoch: 5, HighWatermark: 95})
	require.NotNil(t, v)
}
