package cluster

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// figuresSpec is three brokers and one topic of four partitions on all of them, led by broker
// 0, with the given sizes and rates.
func figuresSpec(sizes, rates []float64) Spec {
	s := smallSpec(7, []int32{0, 1, 2}, []int32{0, 1, 2}, []int32{0, 1, 2}, []int32{0, 1, 2})
	s.Topics[0].SizeBytes, s.Topics[0].ProduceBytesPerSec = sizes, rates
	return s
}

// rejoinTimes kills broker 2 (replacing its disk with diskSwap), starts it 60 s later and
// returns, per partition, how long after its start broker 2 took to rejoin the ISR.
func rejoinTimes(t *testing.T, spec Spec, diskSwap bool) []int64 {
	t.Helper()
	c, err := New(spec)
	require.NoError(t, err)
	require.NoError(t, c.RunUntil(30_000))
	require.NoError(t, c.Do(Event{Op: OpKill, Broker: 2}))
	if diskSwap {
		require.NoError(t, c.Do(Event{Op: OpDiskSwap, Broker: 2}))
	}
	require.NoError(t, c.RunUntil(c.Now()+60_000))
	require.NoError(t, c.Do(Event{Op: OpStart, Broker: 2}))
	started := c.Now()
	out := make([]int64, len(spec.Topics[0].Replicas))
	for i := range out {
		out[i] = -1
	}
	for c.Now() < started+3_600_000 && min(out[0], out[1], out[2], out[3]) < 0 {
		require.NoError(t, c.RunUntil(c.Now()+500))
		for p := range out {
			if out[p] < 0 && c.View().Partitions[p].InIsr(2) {
				out[p] = c.Now() - started
			}
		}
	}
	require.NoError(t, c.Err())
	return out
}

func TestAPartitionsGivenSizeIsWhatAnEmptyDiskCopies(t *testing.T) {
	same := rejoinTimes(t, figuresSpec([]float64{2e9, 2e9, 2e9, 2e9}, nil), true)
	big := rejoinTimes(t, figuresSpec([]float64{2e9, 2e9, 20e9, 2e9}, nil), true)
	for p, ms := range append(same, big...) {
		require.GreaterOrEqual(t, ms, int64(0), "partition %d rejoined", p%4)
	}
	// The other partitions copy the same bytes either way; partition 2 copies ten times as
	// many once they are done, so it rejoins measurably later.
	t.Logf("rejoin ms after start: same sizes %v, partition 2 ten times %v", same, big)
	assert.Greater(t, big[2], 2*big[0], "10× the bytes take longer to copy: %v vs %v", big, same)
	assert.Greater(t, big[2], 2*same[2], "partition 2 with 10× the bytes against itself with 1×: %v vs %v", big, same)
}

func TestAPartitionsGivenRateIsWhatARestartedBrokerMustFetch(t *testing.T) {
	// Sizes equal; partition 1 produces 10× the others. A broker down for a minute must fetch
	// what each partition produced meanwhile: partition 1's backlog is ten times the others'.
	spec := figuresSpec([]float64{1e9, 1e9, 1e9, 1e9}, []float64{2e6, 20e6, 2e6, 2e6})
	c, err := New(spec)
	require.NoError(t, err)
	for p, want := range spec.Topics[0].ProduceBytesPerSec {
		assert.InDelta(t, want, c.work.ClassBytesPerSec(c.work.ClassOf(int32(p))), want*1e-12, "partition %d produces at its own rate", p)
	}
	even := rejoinTimes(t, figuresSpec([]float64{1e9, 1e9, 1e9, 1e9}, []float64{2e6, 2e6, 2e6, 2e6}), false)
	hot := rejoinTimes(t, spec, false)
	t.Logf("rejoin ms after start: even rates %v, partition 1 ten times %v", even, hot)
	assert.Greater(t, hot[1], even[1], "10× the produce while down takes longer to fetch")
	assert.Greater(t, hot[1], hot[0])
}

func TestPartitionFiguresAreGivenForEveryPartitionOrNone(t *testing.T) {
	s := figuresSpec([]float64{1, 2, 3}, nil)
	_, err := New(s)
	require.ErrorContains(t, err, "topics[0]: gives size_bytes for 3 of its 4 partitions")

	s = figuresSpec(nil, []float64{1, 2, 3, 4})
	s.Topics = append(s.Topics, TopicSpec{Name: "other", PartitionCount: 2, ReplicationFactor: 3})
	_, err = New(s)
	require.ErrorContains(t, err, "topics[1]: gives produce_bytes_per_sec for 0 of its 2 partitions; as topics[0] gives it")

	s = figuresSpec([]float64{1, -2, 3, 4}, nil)
	_, err = New(s)
	require.ErrorContains(t, err, "topics[0].partitions[1].size_bytes: -2 is not allowed")
}
