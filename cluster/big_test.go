package cluster

import (
	"os"
	"runtime"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestRollingRestartMillionPartitions is the scale budget: 100 brokers, 1,000,000 partitions, a
// rolling restart of all 100 brokers, one a minute. It needs about 1.2 GB and 20–30 s, so it runs
// only with KRAFTLAB_BIG=1: `KRAFTLAB_BIG=1 go test -run TestRollingRestartMillionPartitions -v ./cluster`.
func TestRollingRestartMillionPartitions(t *testing.T) {
	if os.Getenv("KRAFTLAB_BIG") == "" {
		t.Skip("set KRAFTLAB_BIG=1 to run the 1M-partition rolling restart")
	}
	s := DefaultSpec()
	s.Seed = 9
	for id := int32(0); id < 100; id++ {
		s.Brokers = append(s.Brokers, id)
	}
	s.Topics = []TopicSpec{{Name: "big", PartitionCount: 1_000_000, ReplicationFactor: 3}}
	s.Workload.SamplesPerWindow = 200
	c, err := New(s)
	require.NoError(t, err)
	require.NoError(t, c.RunUntil(60_000))
	require.NoError(t, c.Do(Event{Op: OpRollingRestart, Brokers: s.Brokers, IntervalMs: 60_000}))
	require.NoError(t, c.RunUntil(100*60_000+30*60_000))
	require.NoError(t, c.Err())
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	t.Logf("committed records %d, balancer runs %d, heap in use %d MiB, total from the OS %d MiB",
		len(c.Records()), len(c.BalancerRuns()), m.HeapInuse>>20, m.Sys>>20)
	t.Logf("summary %+v", c.Summary())
}
