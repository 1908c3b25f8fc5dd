package quorum

import (
	"testing"

	"github.com/kraftlab/kraftlab/cluster/sim"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestDefaultsAreKafkas(t *testing.T) {
	c := DefaultConfig()
	assert.Equal(t, int64(1000), c.ElectionTimeoutMs)
	assert.Equal(t, int64(2000), c.FetchTimeoutMs)
	assert.Equal(t, int64(3000), c.CheckQuorumTimeoutMs())
	assert.Equal(t, int64(1000), c.ElectionBackoffMaxMs)
	assert.Equal(t, int64(2000), c.RequestTimeoutMs)
	assert.Equal(t, int64(20), c.RetryBackoffMs)
	assert.Equal(t, int64(1048576), c.FetchSnapshotMaxBytes)
	assert.Equal(t, int64(20971520), c.MaxBytesBetweenSnapshots)
	assert.Equal(t, int64(3600000), c.MaxSnapshotIntervalMs)
	assert.Equal(t, int64(104857600), c.RetentionBytes)
	assert.Equal(t, int64(604800000), c.RetentionMs)
	assert.Equal(t, int64(500), c.FetchMaxWaitMs)
}

func TestVoterCountMustBeOneThreeOrFive(t *testing.T) {
	for _, n := range []int{0, 2, 4, 6} {
		c := DefaultConfig()
		c.Voters = voterIDs(n)
		_, err := New[int](sim.New(1), c, Hooks{})
		require.Error(t, err, "%d voters", n)
		assert.Contains(t, err.Error(), "controller.quorum.voters")
		assert.Contains(t, err.Error(), "1, 3 or 5")
	}
	for _, n := range []int{1, 3, 5} {
		c := DefaultConfig()
		c.Voters = voterIDs(n)
		_, err := New[int](sim.New(1), c, Hooks{})
		assert.NoError(t, err, "%d voters", n)
	}
	c := DefaultConfig()
	c.Voters = []NodeID{1, 2, 1}
	err := c.Validate()
	require.Error(t, err)
	assert.Contains(t, err.Error(), "node 1 is listed twice")
	c.Voters = []NodeID{1, -2, 3}
	assert.ErrorContains(t, c.Validate(), "voter 1 has id -2")
	_, err = New[int](nil, DefaultConfig(), Hooks{})
	assert.ErrorContains(t, err, "simulation is nil")
}

func TestSetUsesKafkaNamesAndChecksRanges(t *testing.T) {
	c := DefaultConfig()
	require.NoError(t, c.Set("controller.quorum.fetch.timeout.ms", 4000))
	assert.Equal(t, int64(6000), c.CheckQuorumTimeoutMs())
	require.NoError(t, c.Set("metadata.log.max.snapshot.interval.ms", 0))
	assert.Equal(t, int64(0), c.MaxSnapshotIntervalMs)

	err := c.Set("controller.quorum.election.timeout.ms", 0)
	var ce *ConfigError
	require.ErrorAs(t, err, &ce)
	assert.Equal(t, "controller.quorum.election.timeout.ms", ce.Name)
	assert.Equal(t, "0", ce.Value)
	assert.Contains(t, ce.Allowed, "at least 1")

	assert.ErrorContains(t, c.Set("metadata.max.retention.ms", 1<<62), "at most 2^40")

	err = c.Set("controller.quorum.nope", 1)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "unknown setting")
	assert.Contains(t, err.Error(), "controller.quorum.fetch.timeout.ms")

	c.NetworkDelayMs = 0
	c.Voters = voterIDs(3)
	assert.ErrorContains(t, c.Validate(), "kraftlab.network.delay.ms = 0")
	assert.Len(t, ConfigNames(), len(settings))
}
