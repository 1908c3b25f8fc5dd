package workload

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kraftlab/kraftlab/cluster/broker"
	"github.com/kraftlab/kraftlab/cluster/sim"
	"github.com/kraftlab/kraftlab/engine/config"
	"github.com/kraftlab/kraftlab/engine/controller"
	"github.com/kraftlab/kraftlab/engine/metadata"
)

// quietController accepts every heartbeat and changes nothing: enough for a steady cluster.
type quietController struct{}

func (quietController) Register(controller.RegisterRequest, int64) (int64, int64, error) {
	return 0, 0, nil
}
func (quietController) Heartbeat(controller.HeartbeatRequest, int64) (controller.HeartbeatReply, int64, error) {
	return controller.HeartbeatReply{IsCaughtUp: true}, 0, nil
}
func (quietController) AlterPartition([]controller.AlterPartitionRequest, []error, int64) (int64, error) {
	return 0, nil
}

// steadyFleet boots n brokers with parts partitions (RF 3, round-robin) straight from
// metadata records, producing at the workload's rates.
func steadyFleet(t testing.TB, s *sim.Sim, w *Workload, n, parts int) *broker.Fleet {
	var static config.Values
	require.NoError(t, static.Set(config.MinInsyncReplicas, int64(2), config.Topic))
	var ids []int32
	var recs []metadata.Record
	for i := 1; i <= n; i++ {
		ids = append(ids, int32(i))
		recs = append(recs, &metadata.RegisterBrokerRecord{BrokerID: int32(i), IncarnationID: fmt.Sprint(i), BrokerEpoch: int64(i - 1)})
	}
	recs = append(recs, &metadata.TopicRecord{Name: "t", TopicID: "tid"})
	for p := 0; p < parts; p++ {
		reps := []int32{int32(p%n + 1), int32((p+1)%n + 1), int32((p+2)%n + 1)}
		recs = append(recs, &metadata.PartitionRecord{Topic: "t", TopicID: "tid", PartitionID: int32(p), Replicas: reps, Isr: reps, Leader: reps[0]})
	}
	entries := make([]metadata.Entry, len(recs))
	for i, r := range recs {
		entries[i] = metadata.Entry{Offset: int64(i), Record: r}
	}
	f, err := broker.New(s, broker.DefaultParams(), ids, static, quietController{}, w)
	require.NoError(t, err)
	require.NoError(t, f.Publish(entries))
	require.NoError(t, f.Prefill(nil))
	for _, id := range ids {
		require.NoError(t, f.Boot(id))
	}
	return f
}

// TestWiredToBrokerFleet runs the latency model on a real broker Fleet: the steady p99 is in
// the calibrated range from the fleet's own loads, and a slow disk on one broker (ρ_dw from
// 0.3 to 0.86) raises it.
func TestWiredToBrokerFleet(t *testing.T) {
	s := sim.New(11)
	w, err := New(s, DefaultParams(), 6, 1200)
	require.NoError(t, err)
	f := steadyFleet(t, s, w, 6, 1200)
	require.NoError(t, w.Start(f))
	_, err = s.RunUntil(120_000)
	require.NoError(t, err)
	loads := make([]broker.Load, 6)
	f.Loads(loads)
	total := 0.0
	for _, l := range loads {
		total += l.LeaderBytesPerSec
		assert.InDelta(t, 0.3, l.DiskWriteUtil(), 0.06)
	}
	assert.InDelta(t, 300e6, total, 30e6)
	steady := lastWindow(t, w)
	assert.InDelta(t, 13, steady.SlidingP99, 1.5)
	util := make([]StageUtil, 6)
	w.Stages(util)
	for _, u := range util {
		assert.InDelta(t, 0.3, u.Append, 0.06)
		// (2,000 produce + 4,000 follower + 2,000 consumer) requests/s × 0.5 ms / 8 threads.
		assert.InDelta(t, 0.5, u.RequestHandler, 0.06)
		assert.InDelta(t, 8000*0.1/1000/3, u.Network, 0.03)
	}

	require.NoError(t, f.SetDiskSlowFactor(1, 0.35))
	_, err = s.RunUntil(240_000)
	require.NoError(t, err)
	slow := lastWindow(t, w)
	assert.Greater(t, slow.SlidingP99, 2*steady.SlidingP99, "half the requests touch broker 1 as leader or follower")

	// A killed broker with no controller to fence it: its partitions stay leaderless and their
	// requests retry until delivery.timeout.ms.
	require.NoError(t, f.Kill(2))
	_, err = s.RunUntil(400_000)
	require.NoError(t, err)
	errs := 0
	for _, win := range w.Windows() {
		errs += win.Errors
	}
	assert.Greater(t, errs, 0)
}
