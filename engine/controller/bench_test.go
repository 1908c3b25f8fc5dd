package controller

import (
	"fmt"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kraftlab/kraftlab/engine/config"
	"github.com/kraftlab/kraftlab/engine/metadata"
)

// bigCluster bootstraps `partitions` partitions over `brokers` brokers (replication factor 3,
// striped), with broker 0 recovering: it prefers partitions/brokers of them and leads none.
// It is in the ISR of all but `outOfSync` of them. The log is dropped after the bootstrap, as
// a snapshot would allow, so only the image stays in memory.
func bigCluster(tb testing.TB, brokers, partitions, outOfSync int, cfg map[string]any) *Controller {
	var vals config.Values
	require.NoError(tb, vals.Set(config.BrokerSessionTimeoutMs, int64(1<<31-1), config.Cluster))
	for k, v := range cfg {
		require.NoError(tb, vals.Set(k, v, config.Cluster))
	}
	c := New(1, vals)
	for id := 0; id < brokers; id++ {
		require.NoError(tb, c.Bootstrap([]metadata.Record{&metadata.RegisterBrokerRecord{BrokerID: int32(id), IncarnationID: "i", LogDirs: []string{"d"}}}))
	}
	id := c.NewTopicID()
	require.NoError(tb, c.Bootstrap([]metadata.Record{&metadata.TopicRecord{Name: "big", TopicID: id}}))
	recovering := 0
	for i := 0; i < partitions; i++ {
		reps := []int32{int32(i % brokers), int32((i + 1) % brokers), int32((i + 2) % brokers)}
		rec := &metadata.PartitionRecord{Topic: "big", TopicID: id, PartitionID: int32(i), Replicas: reps,
			Isr: reps, Leader: reps[0], Elr: []int32{}, LastKnownElr: []int32{}}
		if reps[0] == 0 {
			rec.Leader = reps[1]
			if recovering < outOfSync {
				rec.Isr = reps[1:]
			}
			recovering++
		}
		require.NoError(tb, c.Bootstrap([]metadata.Record{rec}))
		if i%100_000 == 0 {
			require.NoError(tb, c.Log().DropBefore(c.Log().NextOffset()))
		}
	}
	require.NoError(tb, c.Log().DropBefore(c.Log().NextOffset()))
	c.Activate(0)
	return c
}

// BenchmarkElectPreferredRun measures one electPreferred run under wait-for-sync with
// max.per.run 1000 while one recovering broker prefers 10,000 imbalanced partitions: the budget
// is 2 ms on 1,000,000 partitions, and the cost must not follow the total partition count.
func BenchmarkElectPreferredRun(b *testing.B) {
	for _, total := range []int{100_000, 1_000_000} {
		brokers := 100
		// Keep 10,000 imbalanced partitions whatever the total: fewer brokers share 100,000.
		if total == 100_000 {
			brokers = 10
		}
		for _, oos := range []int{0, 5000} {
			name := fmt.Sprintf("partitions=%d/brokers=%d/out_of_sync=%d", total, brokers, oos)
			b.Run(name, func(b *testing.B) {
				c := bigCluster(b, brokers, total, oos, map[string]any{
					config.LeaderImbalanceElectionAlgorithm: config.AlgorithmWaitForSync,
					config.WaitForSyncThresholdPercent:      int64(60),
				})
				require.Equal(b, 10_000, c.Image().ImbalancedCount())
				b.ReportAllocs()
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					c.RunTaskNow(TaskElectPreferred, 300_000)
					b.StopTimer()
					restoreLeaders(c)
					b.StartTimer()
				}
			})
		}
	}
}

// restoreLeaders hands the partitions the last run elected back to their second replica, so
// every benchmark iteration faces the same imbalance.
func restoreLeaders(c *Controller) {
	runs := c.TakeBalancerRuns()
	im := c.Image()
	for _, p := range runs[len(runs)-1].Elected {
		part := &im.Partitions[p]
		rec := metadata.NewPartitionChange(im.TopicName(part), im.Topics[part.Topic].ID, part.ID)
		rec.Leader = part.Replicas()[1]
		c.append(&rec)
	}
	_ = c.Log().DropBefore(c.Log().NextOffset())
}

func TestImageHoldsAtMost200BytesPerPartition(t *testing.T) {
	if testing.Short() {
		t.Skip("builds 200,000 partitions")
	}
	const partitions = 200_000
	before := heapInUse()
	c := bigCluster(t, 100, partitions, 0, nil)
	after := heapInUse()
	perPartition := float64(after-before) / partitions
	t.Logf("image: %.1f bytes per partition", perPartition)
	assert.LessOrEqual(t, perPartition, 200.0)
	runtime.KeepAlive(c)
}

func heapInUse() uint64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}
