package bridge

import (
	"fmt"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kraftlab/kraftlab/cluster"
)

// heapAfterGC is the live heap: what the program keeps, not what it has yet to collect.
func heapAfterGC() int64 {
	var ms runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms)
	return int64(ms.HeapAlloc)
}

// playHours advances a session by whole hours of cluster time, a minute a frame as the page
// asks at high speed.
func playHours(t *testing.T, b *Bridge, hours int) {
	t.Helper()
	for range hours * 60 {
		frameAt(t, b, "sim.advance", `{"ms":60000}`)
	}
}

// TestMemoryPerClusterHour: what the worker keeps grows by at most bytesPerLogHour per hour of
// cluster time on the default cluster (the metadata log every node keeps for its retention),
// not by every committed record, sample and window of the run: the cluster's copy of the
// committed log keeps only what a node or a reader may still need, and a few hundred samples.
func TestMemoryPerClusterHour(t *testing.T) {
	if runtime.GOOS == "js" {
		t.Skip("a day of cluster time: measured natively, where the heap is the same and it runs faster")
	}
	b := started(t, "")
	playHours(t, b, 6)
	before := heapAfterGC()
	const hours = 18
	playHours(t, b, hours)
	perHour := (heapAfterGC() - before) / hours
	runtime.KeepAlive(b)
	t.Logf("%d KB per hour of cluster time", perHour>>10)
	assert.LessOrEqual(t, perHour, int64(bytesPerLogHour), "memory kept per hour of cluster time")
	c := b.session.c
	assert.LessOrEqual(t, len(c.Controllers().Committed()), 3*7200, "the cluster's committed log keeps about an hour (snapshots are hourly), not the day's 170,000 NoOpRecords")
	assert.LessOrEqual(t, len(c.Samples()), 2*keptSamples, "samples kept")
}

// TestRetentionChangesNoResult: the page's cluster, which forgets committed records, samples
// and windows as it goes, is the same cluster as one that keeps everything, run with the same
// actions: the same committed log (its kept tail), partitions, electPreferred runs, latest
// sample and counters.
func TestRetentionChangesNoResult(t *testing.T) {
	if runtime.GOOS == "js" {
		t.Skip("hours of cluster time twice: natively, where the same code runs in seconds")
	}
	b := started(t, `{"seed":7,"brokers":4,"partitions":24}`)
	spec := b.session.spec
	require.Zero(t, spec.KeepSamples)
	plain, err := cluster.New(spec)
	require.NoError(t, err)
	active := func() string {
		id, _, ok := b.session.c.Controllers().Active()
		require.True(t, ok)
		return fmt.Sprint(id)
	}
	steps := []struct {
		atMs int64
		ev   cluster.Event
	}{
		{600_000, cluster.Event{Op: cluster.OpKill, Broker: 2}},
		{1_200_000, cluster.Event{Op: cluster.OpStart, Broker: 2}},
		{4_000_000, cluster.Event{Op: cluster.OpKill, Broker: 3}},
		{4_010_000, cluster.Event{Op: cluster.OpDiskSwap, Broker: 3}},
		{4_100_000, cluster.Event{Op: cluster.OpStart, Broker: 3}},
		{9_000_000, cluster.Event{Op: cluster.OpKillController}},
		{12_000_000, cluster.Event{Op: cluster.OpStartController}},
		{4 * 3_600_000, cluster.Event{}},
	}
	killed := ""
	for _, st := range steps {
		for b.session.c.Now() < st.atMs {
			frameAt(t, b, "sim.advance", fmt.Sprintf(`{"ms":%d}`, min(60_000, st.atMs-b.session.c.Now())))
		}
		require.NoError(t, plain.RunUntil(st.atMs))
		switch st.ev.Op {
		case "":
			continue
		case cluster.OpKillController:
			killed = active()
			st.ev.Controller = killed
		case cluster.OpStartController:
			st.ev.Controller = killed
		}
		must[ActBody](t, b, "sim.act", fmt.Sprintf(`{"op":%q,"broker":%d,"controller":%q}`, st.ev.Op, st.ev.Broker, st.ev.Controller))
		require.NoError(t, plain.Do(st.ev))
	}
	c := b.session.c
	require.NoError(t, c.Err())
	kept := c.Records()
	all := plain.Records()
	require.Less(t, len(kept), len(all), "the page's cluster forgot old records")
	assert.Equal(t, all[len(all)-len(kept):], kept)
	assert.Equal(t, plain.Partitions(), c.Partitions())
	assert.Equal(t, plain.BalancerRuns(), c.BalancerRuns())
	assert.Equal(t, plain.Samples()[len(plain.Samples())-len(c.Samples()):], c.Samples())
	assert.Equal(t, plain.Controllers().Stats(), c.Controllers().Stats())
	assert.Equal(t, plain.Controllers().QuorumStats(), c.Controllers().QuorumStats())
	assert.Equal(t, plain.Fleet().Stats(), c.Fleet().Stats())
}

// TestSparesBudget: checkpoints are held to their memory budget, so that a long run's do not
// each hold days of metadata log: four of a young default cluster fit, one of a week-old one,
// and one of a 100,000-partition cluster.
func TestSparesBudget(t *testing.T) {
	const day = 24 * 3_600_000
	assert.LessOrEqual(t, 4*spareBytes(36, 2*day), int64(spareBudgetBytes))
	assert.LessOrEqual(t, spareBytes(36, 7*day), int64(spareBudgetBytes))
	assert.Greater(t, 2*spareBytes(36, 5*day), int64(spareBudgetBytes))
	assert.Greater(t, 2*spareBytes(300_000, 0), int64(spareBudgetBytes))
	assert.Equal(t, spareBytes(36, MaxSeekMs), spareBytes(36, 2*MaxSeekMs), "the log's retention ends its growth")

	// keepSpare drops the oldest kept until the rest fit.
	spec, _, err := buildSpec(StartRequest{})
	require.NoError(t, err)
	s := &Session{spec: spec}
	for range maxSpares + 2 {
		c, err := cluster.New(s.spec)
		require.NoError(t, err)
		s.keepSpare(&live{c: c})
	}
	assert.Len(t, s.spares, maxSpares)
	assert.LessOrEqual(t, s.sparesBytes(), int64(spareBudgetBytes))
}
