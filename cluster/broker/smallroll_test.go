package broker

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRollingRestartSmall rolls 10 brokers with 10,000 partitions through controlled
// shutdowns against the real controller: every broker comes back, catches up and rejoins
// every ISR, and no acknowledged acks=all record is lost.
func TestRollingRestartSmall(t *testing.T) {
	h := rollingRun(t, 10, 10_000)
	st := h.f.Stats()
	assert.Zero(t, st.LostAckedRecords)
	assert.Zero(t, st.UncleanTakeovers)
	assert.Equal(t, int64(30_000), st.IsrExpands, "each broker rejoins its 3,000 ISRs")
	for _, id := range h.ids {
		assert.Equal(t, Running, h.f.State(id))
		assert.Zero(t, h.f.OutOfSync(id))
	}
	for p := range h.c.Image().Partitions {
		assert.Equal(t, 3, h.c.Image().Partitions[p].IsrLen())
	}
	requireCatalogMatchesImage(t, h)
}

// requireCatalogMatchesImage checks the fleet's decoding of the log against the controller's
// own image: same partition indexes, leaders, epochs and ISRs, and the same registrations.
func requireCatalogMatchesImage(t *testing.T, h *harness) {
	t.Helper()
	im := h.c.Image()
	require.Equal(t, len(im.Partitions), h.f.NumPartitions())
	for p := range im.Partitions {
		ip := &im.Partitions[p]
		idx, ok := h.f.PartitionIndex(im.TopicName(ip), ip.ID)
		require.True(t, ok)
		require.Equal(t, int32(p), idx)
		require.Equal(t, ip.Replicas(), h.f.replicas(idx))
		require.Equal(t, ip.Leader, h.f.cat.parts[p].leader, "partition %d", p)
		require.Equal(t, ip.LeaderEpoch, h.f.cat.parts[p].le, "partition %d", p)
		require.Equal(t, ip.PartitionEpoch, h.f.cat.parts[p].pe, "partition %d", p)
		isr, ok := h.f.cat.mask(int32(p), ip.Isr())
		require.True(t, ok)
		require.Equal(t, isr, h.f.cat.parts[p].isr, "partition %d", p)
	}
	for s, id := range h.ids {
		reg := im.Broker(id)
		c := h.f.cat.regs[s]
		require.Equal(t, creg{epoch: reg.Epoch, registered: reg.Registered, fenced: reg.Fenced, inCS: reg.InControlledShutdown}, c)
	}
}

// TestSameSeedSameRun: two runs with one seed end in identical states.
func TestSameSeedSameRun(t *testing.T) {
	a := rollingRun(t, 5, 500)
	b := rollingRun(t, 5, 500)
	assert.Equal(t, a.f.Stats(), b.f.Stats())
	assert.Equal(t, a.s.Now(), b.s.Now())
	assert.Equal(t, a.s.Processed(), b.s.Processed())
	for p := int32(0); p < 500; p++ {
		assert.Equal(t, a.part(p), b.part(p))
	}
}
