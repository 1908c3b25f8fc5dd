package cluster

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kraftlab/kraftlab/engine/controller"
)

// TestElectLeadersAnswersPerPartition: an elect_leaders event keeps Kafka's per-partition answer,
// an error code where the election cannot happen.
func TestElectLeadersAnswersPerPartition(t *testing.T) {
	c, err := New(smallSpec(2, []int32{1, 2, 0}, []int32{2, 0, 1}))
	require.NoError(t, err)
	require.NoError(t, c.RunUntil(30_000))
	require.NoError(t, c.Do(Event{Op: OpElectLeaders, Election: controller.ElectionPreferred,
		Partitions: []controller.TopicPartition{{Topic: "payments", Partition: 1}, {Topic: "nope", Partition: 0}}}))
	all := c.ElectLeadersResults()
	require.Len(t, all, 1)
	assert.Equal(t, int64(30_000), all[0].TimeMs)
	require.Len(t, all[0].Results, 2)
	byName := map[string]*controller.APIError{}
	for _, r := range all[0].Results {
		byName[r.Topic] = r.Error
	}
	require.Contains(t, byName, "payments")
	require.NotNil(t, byName["payments"], "payments-1 is led by its preferred replica already")
	assert.Equal(t, controller.ElectionNotNeeded, byName["payments"].Code)
	require.NotNil(t, byName["nope"])
	assert.Equal(t, controller.UnknownTopicOrPartition, byName["nope"].Code)
}

// TestBalancerRunsNamePartitionsAndSetupEnds: each election of a run is named topic-partition as
// the running controller's image had it, and SetupEnd is where the bootstrap's commits ended.
func TestBalancerRunsNamePartitionsAndSetupEnds(t *testing.T) {
	s := smallSpec(4)
	s.Topics = []TopicSpec{{Name: "a", PartitionCount: 30, ReplicationFactor: 3}, {Name: "b", PartitionCount: 30, ReplicationFactor: 3}}
	c, err := New(s)
	require.NoError(t, err)
	assert.Equal(t, c.Controllers().CommittedEnd(), c.SetupEnd(), "nothing committed between New's end and now")
	setup := c.SetupEnd()
	assert.Greater(t, setup, int64(60), "the bootstrap's 60 partitions and more")

	require.NoError(t, c.RunUntil(10_000))
	require.NoError(t, c.Do(Event{Op: OpKill, Broker: 1}))
	require.NoError(t, c.RunUntil(60_000))
	require.NoError(t, c.Do(Event{Op: OpStart, Broker: 1}))
	require.NoError(t, c.RunUntil(700_000))
	require.NoError(t, c.Err())
	assert.Equal(t, setup, c.SetupEnd(), "the boundary does not move")

	elected := 0
	for _, run := range c.BalancerRuns() {
		require.Len(t, run.Partitions, len(run.Elected))
		for i, idx := range run.Elected {
			p := &c.View().Partitions[idx]
			assert.Equal(t, controller.TopicPartition{Topic: c.View().TopicName(p), Partition: p.ID}, run.Partitions[i])
			elected++
		}
	}
	assert.Positive(t, elected, "broker 1 got preferred leaderships back")
}
