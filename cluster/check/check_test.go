package check

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kraftlab/kraftlab/engine/balance"
	"github.com/kraftlab/kraftlab/engine/metadata"
)

func image(t *testing.T, leader int32, isr []int32, leaderEpoch, partitionEpoch int32) *metadata.Image {
	t.Helper()
	im := metadata.NewImage()
	require.NoError(t, im.Replay(metadata.Entry{Offset: 0, Record: &metadata.TopicRecord{Name: "t", TopicID: "T"}}))
	require.NoError(t, im.Replay(metadata.Entry{Offset: 1, Record: &metadata.PartitionRecord{TopicID: "T", Topic: "t",
		Replicas: []int32{0, 1, 2}, Isr: isr, Leader: leader, LeaderEpoch: leaderEpoch, PartitionEpoch: partitionEpoch}}))
	return im
}

func TestMetadataCatchesALeaderOutsideTheIsrAndEpochsGoingBack(t *testing.T) {
	m := Metadata{Seed: 42}
	assert.Nil(t, m.Observe(1, image(t, 0, []int32{0, 1}, 3, 5)))
	assert.Nil(t, m.Observe(2, image(t, 1, []int32{1}, 4, 6)))

	v := m.Observe(3, image(t, 2, []int32{0, 1}, 5, 7))
	require.NotNil(t, v)
	assert.Equal(t, RuleLeaderInIsr, v.Rule)
	assert.Equal(t, `invariant "leader-in-isr" broken at 3 ms (seed 42): t-0 is led by broker 2, but its ISR is [0 1]`, v.Error())

	v = m.Observe(4, image(t, 1, []int32{1}, 3, 7))
	require.NotNil(t, v)
	assert.Equal(t, RuleLeaderEpochMonotonic, v.Rule)

	v = m.Observe(5, image(t, 1, []int32{1}, 4, 5))
	require.NotNil(t, v)
	assert.Equal(t, RulePartitionEpochs, v.Rule)
	assert.Nil(t, m.Observe(6, image(t, -1, []int32{}, 9, 9)), "a leaderless partition breaks nothing")
}

func TestBalancerCatchesTheCapAndTheGate(t *testing.T) {
	b := Balancer{Seed: 7}
	im := image(t, 0, []int32{0, 1, 2}, 1, 1) // partition t-0 prefers broker 0
	one := []int32{0}
	assert.Nil(t, b.Observe(balance.Run{TimeMs: 10, Elected: one, Leaders: one, MaxPerRun: 1}, im))

	v := b.Observe(balance.Run{TimeMs: 10, Elected: []int32{0, 0}, Leaders: []int32{0, 0}, MaxPerRun: 1}, im)
	require.NotNil(t, v)
	assert.Equal(t, RuleCap, v.Rule)

	v = b.Observe(balance.Run{TimeMs: 20, Elected: one, Leaders: one, MaxPerRun: 5, GatedBrokers: one}, im)
	require.NotNil(t, v)
	assert.Equal(t, RuleGateHolds, v.Rule)
	assert.Contains(t, v.Error(), "broker 0 is gated in this run")

	assert.Nil(t, b.Observe(balance.Run{TimeMs: 20, Elected: one, Leaders: []int32{1}, MaxPerRun: 5, GatedBrokers: one}, im),
		"a gated broker's partition may still get another leader (a leaderless one)")
	assert.Nil(t, b.Observe(balance.Run{TimeMs: 30, Elected: one, Leaders: one, MaxPerRun: 5, GatedBrokers: one, EscapeHatchBrokers: one}, im),
		"the escape hatch is the one way through the gate")
}
