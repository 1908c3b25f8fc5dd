package broker

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestBootedClusterReplicatesInSteadyState(t *testing.T) {
	h := newHarness(t, setup{brokers: 3, partitions: 6})
	h.run(60_000)
	for p := int32(0); p < 6; p++ {
		info := h.part(p)
		assert.Equal(t, int32(p%3+1), info.Leader, "partition %d keeps its preferred leader", p)
		assert.True(t, info.Producing)
		assert.Len(t, info.MaximalIsr, 3)
		// 60 s of 100 kB/s on top of the prefilled local log.
		want := 100_000*DefaultParams().LocalRetentionSec + 100_000*60
		assert.InDelta(t, want, info.LogEnd, 1)
		// In-sync followers trail by InSyncLagMs of produce: 100 bytes.
		assert.InDelta(t, want-100, info.HighWatermark, 1e-3)
		for _, id := range h.ids {
			r, err := h.f.Replica(p, id)
			require.NoError(t, err)
			if id == info.Leader {
				assert.Equal(t, ReplicaLeader, r.State)
			} else {
				assert.Equal(t, ReplicaInSync, r.State)
			}
		}
	}
	st := h.f.Stats()
	assert.Zero(t, st.IsrShrinks+st.IsrExpands+st.AlterPartitionErrors)
	assert.Zero(t, st.LostAckedRecords)
	// Three brokers heartbeating every 2 s for 60 s, from a random first phase.
	assert.InDelta(t, 3*30, st.HeartbeatsSent, 3)
	for _, id := range h.ids {
		assert.Equal(t, Running, h.f.State(id))
		assert.False(t, h.c.Image().Broker(id).Fenced)
	}
}
