package controller

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kraftlab/kraftlab/engine/metadata"
)

// TestCreateTopicPlacesOnFencedBrokersButNeverFirst pins Kafka's
// ReplicationControlManagerTest.testCreateTopicsISRInvariants: brokers 0, 1 and 2 registered,
// broker 2 fenced and broker 1 marked in controlled shutdown by its registration alone. The
// placer (StripedReplicaPlacer.place over ClusterControlManager.usableBrokers) takes every
// registered broker whose heartbeat state is not shutting down, fenced ones too, and never puts
// a fenced one first; the ISR is the active replicas (ReplicationControlManager.createTopic,
// isActive). Kafka's MockRandom gives replicas [1,0,2], ISR [0], leader 0.
func TestCreateTopicPlacesOnFencedBrokersButNeverFirst(t *testing.T) {
	for seed := uint64(1); seed <= 8; seed++ {
		f := newFixture(t, nil, 0, 1, 2)
		f.c.rng = rand.New(rand.NewPCG(seed, seed))
		f.fence(2)
		b := f.c.Image().Broker(1)
		require.NoError(t, f.c.Bootstrap([]metadata.Record{&metadata.BrokerRegistrationChangeRecord{BrokerID: 1, BrokerEpoch: b.Epoch, InControlledShutdown: 1}}))
		require.NoError(t, f.c.CreateTopic(CreateTopicRequest{Name: "foo", NumPartitions: 1, ReplicationFactor: 3}, 10))
		p := f.p("foo", 0)
		reps := p.Replicas()
		assert.ElementsMatch(t, []int32{0, 1}, reps[:2], "seed %d: the unfenced brokers first, in the placer's order", seed)
		assert.Equal(t, int32(2), reps[2], "seed %d: the fenced broker is placed, last", seed)
		assert.Equal(t, []int32{0}, p.Isr(), "seed %d: broker 2 is fenced and broker 1 in controlled shutdown", seed)
		assert.Equal(t, int32(0), p.Leader)
	}
}

// TestCreateTopicLeavesOutBrokersShuttingDown: a broker whose heartbeat asked for a controlled
// shutdown is not usable (BrokerHeartbeatManager.UsableBrokerIterator skips shuttingDown()),
// so with broker 1 shutting down and broker 2 fenced only two brokers count.
func TestCreateTopicLeavesOutBrokersShuttingDown(t *testing.T) {
	f := newFixture(t, nil, 0, 1, 2)
	f.topic("t", part{replicas: []int32{1, 0}, leader: 1, isr: []int32{1, 0}})
	f.fence(2)
	f.heartbeat(0, 3, false, false)
	f.heartbeat(1, 4, false, true)
	require.True(t, f.c.InControlledShutdownPending(1))
	err := f.c.CreateTopic(CreateTopicRequest{Name: "foo", NumPartitions: 1, ReplicationFactor: 3}, 5)
	require.Error(t, err)
	assert.Equal(t, InvalidReplicationFactor, code(err))
	assert.Equal(t, "Unable to replicate the partition 3 time(s): The target replication factor of 3 cannot be reached because only 2 broker(s) are registered.", err.(*APIError).Message)

	require.NoError(t, f.c.CreateTopic(CreateTopicRequest{Name: "foo", NumPartitions: 4, ReplicationFactor: 2}, 6))
	for i := int32(0); i < 4; i++ {
		p := f.p("foo", i)
		assert.Equal(t, []int32{0, 2}, p.Replicas(), "partition %d: broker 0 leads, fenced broker 2 follows", i)
		assert.Equal(t, []int32{0}, p.Isr())
	}
}

// TestCreateTopicRefusals pins StripedReplicaPlacer's messages as createTopic returns them:
// "All brokers are currently fenced." when none is unfenced (checked first), and the count of
// registered brokers, fenced ones included, when the replication factor is too high.
func TestCreateTopicRefusals(t *testing.T) {
	f := newFixture(t, nil, 0, 1)
	f.fence(0)
	f.fence(1)
	for _, rf := range []int{1, 3} {
		err := f.c.CreateTopic(CreateTopicRequest{Name: "foo", NumPartitions: 1, ReplicationFactor: rf}, 10)
		require.Error(t, err)
		assert.Equal(t, InvalidReplicationFactor, code(err))
		assert.Equal(t, "Unable to replicate the partition "+string(rune('0'+rf))+" time(s): All brokers are currently fenced.", err.(*APIError).Message)
	}

	f = newFixture(t, nil, 0, 1, 2)
	f.fence(1)
	f.fence(2)
	err := f.c.CreateTopic(CreateTopicRequest{Name: "foo", NumPartitions: 1, ReplicationFactor: 4}, 10)
	require.Error(t, err)
	assert.Equal(t, "Unable to replicate the partition 4 time(s): The target replication factor of 4 cannot be reached because only 3 broker(s) are registered.", err.(*APIError).Message)
	require.NoError(t, f.c.CreateTopic(CreateTopicRequest{Name: "foo", NumPartitions: 3, ReplicationFactor: 3}, 11))
	for i := int32(0); i < 3; i++ {
		p := f.p("foo", i)
		assert.Equal(t, int32(0), p.Replicas()[0], "the one unfenced broker leads every partition")
		assert.ElementsMatch(t, []int32{1, 2}, p.Replicas()[1:])
		assert.Equal(t, []int32{0}, p.Isr())
	}

	err = f.c.CreateTopic(CreateTopicRequest{Name: "bar", Assignments: [][]int32{{1, 2}}}, 12)
	require.Error(t, err)
	assert.Equal(t, InvalidReplicaAssignment, code(err), "a manual assignment of fenced brokers")
	assert.Equal(t, "All brokers specified in the manual partition assignment for partition 0 are fenced or in controlled shutdown.", err.(*APIError).Message)
}

// TestPlacementSpreadsFencedFollowers: with two unfenced and two fenced brokers, every partition
// is led by an unfenced broker and both fenced brokers take turns as followers (the fenced list
// is striped too).
func TestPlacementSpreadsFencedFollowers(t *testing.T) {
	f := newFixture(t, nil, 0, 1, 2, 3)
	f.fence(2)
	f.fence(3)
	require.NoError(t, f.c.CreateTopic(CreateTopicRequest{Name: "foo", NumPartitions: 8, ReplicationFactor: 3}, 10))
	leaders, third := map[int32]int{}, map[int32]int{}
	for i := int32(0); i < 8; i++ {
		reps := f.p("foo", i).Replicas()
		require.False(t, slices.Contains([]int32{2, 3}, reps[0]), "partition %d: %v", i, reps)
		leaders[reps[0]]++
		third[reps[2]]++
	}
	assert.Equal(t, map[int32]int{0: 4, 1: 4}, leaders)
	assert.Equal(t, map[int32]int{2: 4, 3: 4}, third)
}
