package broker

import (
	"os"
	"runtime"
	"runtime/pprof"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestRollingRestartMillionPartitions is the 100-broker, 1,000,000-partition rolling restart.
// It runs only with KRAFTLAB_BIG=1 (it takes tens of seconds) and logs wall time, simulated
// time, events and the live heap at the end (KRAFTLAB_HEAPPROF=file writes a heap profile).
func TestRollingRestartMillionPartitions(t *testing.T) {
	if os.Getenv("KRAFTLAB_BIG") == "" {
		t.Skip("set KRAFTLAB_BIG=1 to run the 1,000,000-partition rolling restart")
	}
	start := time.Now()
	h := rollingRun(t, 100, 1_000_000)
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	if path := os.Getenv("KRAFTLAB_HEAPPROF"); path != "" {
		out, err := os.Create(path)
		require.NoError(t, err)
		require.NoError(t, pprof.WriteHeapProfile(out))
		require.NoError(t, out.Close())
	}
	t.Logf("wall %v, simulated %.1f h, %d events, heap in use %d MiB, sys %d MiB, stats %+v",
		time.Since(start), float64(h.s.Now())/3.6e6, h.s.Processed(), ms.HeapInuse>>20, ms.Sys>>20, h.f.Stats())
	require.Zero(t, h.f.Stats().LostAckedRecords)
}
