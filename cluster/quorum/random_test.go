package quorum

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"testing"

	"github.com/kraftlab/kraftlab/cluster/sim"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var (
	seedsFlag = flag.Int("seeds", 0, "number of seeds TestRandomizedFaults runs (default 200, or $KRAFTLAB_SEEDS)")
	seedFlag  = flag.Uint64("seed", 0, "run TestRandomizedFaults for this one seed only, to replay a failure")
)

// seedCount is the number of random schedules to try: -seeds, else $KRAFTLAB_SEEDS, else 200.
func seedCount(t *testing.T) int {
	if *seedsFlag > 0 {
		return *seedsFlag
	}
	if env := os.Getenv("KRAFTLAB_SEEDS"); env != "" {
		n, err := strconv.Atoi(env)
		require.NoError(t, err, "KRAFTLAB_SEEDS must be a number of seeds")
		return n
	}
	return 200
}

// chaos drives one random schedule of appends and faults through a quorum. It is a sim.Handler,
// so faults happen at simulated times interleaved with the protocol's own events.
type chaos struct {
	h       *harness
	rng     *sim.Rand
	ids     []NodeID
	stopAt  int64
	actions int
}

func (c *chaos) HandleEvent(sim.Event) {
	q := c.h.q
	now := c.h.s.Now()
	if now >= c.stopAt {
		return
	}
	c.actions++
	pick := func(running bool) (NodeID, bool) {
		var cands []NodeID
		for _, id := range c.ids {
			if st, _ := q.Node(id); st.Running == running {
				cands = append(cands, id)
			}
		}
		if len(cands) == 0 {
			return NoNode, false
		}
		return cands[c.rng.IntN(len(cands))], true
	}
	switch r := c.rng.IntN(100); {
	case r < 50:
		// Append at any node that thinks it leads, including a stale leader behind a partition.
		var leaders []NodeID
		for _, id := range c.ids {
			if st, _ := q.Node(id); st.Running && st.State == Leader {
				leaders = append(leaders, id)
			}
		}
		if len(leaders) > 0 {
			recs := make([]Record[string], 1+c.rng.IntN(3))
			for i := range recs {
				recs[i] = Record[string]{Payload: fmt.Sprintf("r%d.%d", c.actions, i), Bytes: int32(c.rng.Between(50, 1000))}
			}
			_, err := q.Append(leaders[c.rng.IntN(len(leaders))], recs...)
			require.NoError(c.h.t, err)
		}
	case r < 60:
		if id, ok := pick(true); ok {
			require.NoError(c.h.t, q.Kill(id))
		}
	case r < 72:
		if id, ok := pick(false); ok {
			require.NoError(c.h.t, q.Start(id))
		}
	case r < 82:
		a, b := c.ids[c.rng.IntN(len(c.ids))], c.ids[c.rng.IntN(len(c.ids))]
		if a != b {
			require.NoError(c.h.t, q.Cut(a, b))
		}
	case r < 92:
		a, b := c.ids[c.rng.IntN(len(c.ids))], c.ids[c.rng.IntN(len(c.ids))]
		if a != b {
			require.NoError(c.h.t, q.Heal(a, b))
		}
	case r < 95:
		q.HealAll()
	default:
		if id, ok := pick(true); ok {
			_, _ = q.Snapshot(id) // "nothing new to snapshot" is a fine answer here
		}
	}
	_, err := c.h.s.After(c.rng.Between(20, 400), sim.Event{Target: c})
	require.NoError(c.h.t, err)
}

// runChaos plays seed's random schedule for chaosMs, then heals everything, restarts every node
// and gives the quorum settleMs to converge. It returns the harness for checks.
func runChaos(t testing.TB, seed uint64, trace io.Writer) *harness {
	const chaosMs, settleMs = 60_000, 20_000
	rng := sim.NewRand(seed).Child("chaos-shape")
	voters := []int{1, 3, 3, 5}[rng.IntN(4)]
	h := newHarness(t, seed, voters, func(c *Config) {
		// Small snapshot and retention thresholds so logs get trimmed and laggards must load
		// snapshots within a short run.
		c.MaxBytesBetweenSnapshots = 8 << 10
		c.RetentionBytes = 16 << 10
		c.FetchSnapshotMaxBytes = 4 << 10
	})
	h.q.SetTrace(trace)
	for i := range 2 {
		require.NoError(t, h.q.AddObserver(NodeID(i)))
	}
	c := &chaos{h: h, rng: h.s.Rand().Child("chaos"), ids: h.q.Nodes(), stopAt: chaosMs}
	_, err := h.s.After(c.rng.Between(0, 500), sim.Event{Target: c})
	require.NoError(t, err)
	_, err = h.s.RunUntil(chaosMs)
	require.NoError(t, err)
	require.NoError(t, h.q.Err())

	h.q.HealAll()
	for _, id := range c.ids {
		if st, _ := h.q.Node(id); !st.Running {
			require.NoError(t, h.q.Start(id))
		}
	}
	_, err = h.s.RunUntil(chaosMs + settleMs)
	require.NoError(t, err)
	return h
}

// TestRandomizedFaults runs many random schedules of appends, kills, restarts, cuts and heals with
// the safety invariants checked throughout, then checks that the healed cluster converges.
// Replay a failure with: go test ./cluster/quorum -run TestRandomizedFaults -args -seed=N
func TestRandomizedFaults(t *testing.T) {
	seeds := make([]uint64, 0)
	if *seedFlag != 0 {
		seeds = append(seeds, *seedFlag)
	} else {
		for s := range seedCount(t) {
			seeds = append(seeds, uint64(s+1))
		}
	}
	for _, seed := range seeds {
		ok := t.Run(fmt.Sprint("seed=", seed), func(t *testing.T) {
			h := runChaos(t, seed, nil)
			require.NoError(t, h.q.Check())
			leader, _, ok := h.q.Leader()
			require.True(t, ok, "a leader after the cluster healed")
			want := h.status(leader)
			for _, id := range h.q.Nodes() {
				st := h.status(id)
				assert.Equal(t, want.HighWatermark, st.HighWatermark, "node %d high watermark", id)
				assert.Equal(t, want.EndOffset, st.EndOffset, "node %d end offset", id)
			}
			assert.Positive(t, want.HighWatermark)
		})
		if !ok {
			t.Logf("seed %d failed; replay it with: go test ./cluster/quorum -run TestRandomizedFaults -v -args -seed=%d", seed, seed)
		}
	}
}

func TestSameSeedSameTraceDifferentSeedDifferentTrace(t *testing.T) {
	var a, b, c bytes.Buffer
	runChaos(t, 42, &a)
	runChaos(t, 42, &b)
	runChaos(t, 43, &c)
	require.Greater(t, a.Len(), 2_000, "the trace records the run")
	assert.True(t, bytes.Equal(a.Bytes(), b.Bytes()), "same seed, same bytes")
	assert.False(t, bytes.Equal(a.Bytes(), c.Bytes()), "another seed, another run")
}
