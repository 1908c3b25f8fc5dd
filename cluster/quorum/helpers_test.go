package quorum

import (
	"fmt"
	"strings"
	"testing"

	"github.com/kraftlab/kraftlab/cluster/sim"
	"github.com/stretchr/testify/require"
)

// harness is a small cluster under test with a log of every hook call.
type harness struct {
	t       testing.TB
	s       *sim.Sim
	q       *Quorum[string]
	hooks   []string
	elected []election
	resigns []resignation
	truncs  []truncation
	loads   []load
	applied map[NodeID]int64   // offset each node has applied up to, via HighWatermark
	hwSeen  map[NodeID][]int64 // every value each node's high watermark took
}

type election struct {
	node  NodeID
	epoch int32
	atMs  int64
}

type resignation struct {
	node  NodeID
	epoch int32
	why   Reason
	atMs  int64
}

type truncation struct {
	node   NodeID
	offset int64
}

type load struct {
	node NodeID
	snap Snapshot
}

func voterIDs(n int) []NodeID {
	ids := make([]NodeID, n)
	for i := range ids {
		ids[i] = NodeID(3000 + i)
	}
	return ids
}

func newHarness(t testing.TB, seed uint64, voters int, tune func(*Config)) *harness {
	t.Helper()
	cfg := DefaultConfig()
	cfg.Voters = voterIDs(voters)
	if tune != nil {
		tune(&cfg)
	}
	h := &harness{t: t, s: sim.New(seed), applied: map[NodeID]int64{}, hwSeen: map[NodeID][]int64{}}
	hooks := Hooks{
		BecameLeader: func(n NodeID, e int32) {
			h.elected = append(h.elected, election{n, e, h.s.Now()})
		},
		Resigned: func(n NodeID, e int32, why Reason) {
			h.resigns = append(h.resigns, resignation{n, e, why, h.s.Now()})
		},
		HighWatermark: func(n NodeID, from, to int64) {
			// The layer above applies entries in order: every move must start where it stopped.
			if got := h.applied[n]; got != from {
				h.hooks = append(h.hooks, fmt.Sprintf("GAP node %d applied %d but hw moved from %d", n, got, from))
			}
			h.applied[n] = to
			h.hwSeen[n] = append(h.hwSeen[n], to)
		},
		Truncated: func(n NodeID, off int64) { h.truncs = append(h.truncs, truncation{n, off}) },
		LoadSnapshot: func(n NodeID, s Snapshot) {
			h.loads = append(h.loads, load{n, s})
			h.applied[n] = s.ID.EndOffset
		},
	}
	q, err := New[string](h.s, cfg, hooks)
	require.NoError(t, err)
	h.q = q
	return h
}

// run advances the clock by ms and fails on any invariant violation.
func (h *harness) run(ms int64) {
	h.t.Helper()
	_, err := h.s.RunUntil(h.s.Now() + ms)
	require.NoError(h.t, err)
	require.NoError(h.t, h.q.Err())
	for _, line := range h.hooks {
		require.False(h.t, strings.HasPrefix(line, "GAP"), line)
	}
}

// stepUntil runs one event at a time until cond holds, so a test can act between two events of
// the same millisecond.
func (h *harness) stepUntil(cond func() bool) {
	h.t.Helper()
	for range 1_000_000 {
		if cond() {
			return
		}
		require.True(h.t, h.s.Step(), "the simulation ran out of events")
	}
	h.t.Fatal("condition never held")
}

// waitLeader runs until some node leads an epoch above minEpoch, for at most maxMs.
func (h *harness) waitLeader(minEpoch int32, maxMs int64) (NodeID, int32) {
	h.t.Helper()
	deadline := h.s.Now() + maxMs
	for h.s.Now() < deadline {
		h.run(1)
		if id, e, ok := h.q.Leader(); ok && e > minEpoch {
			return id, e
		}
	}
	h.t.Fatalf("no leader above epoch %d within %d ms", minEpoch, maxMs)
	return NoNode, 0
}

func (h *harness) status(id NodeID) NodeStatus {
	h.t.Helper()
	st, err := h.q.Node(id)
	require.NoError(h.t, err)
	return st
}

func (h *harness) entries(id NodeID, from, to int64) []Entry[string] {
	h.t.Helper()
	es, err := h.q.Read(id, from, to, nil)
	require.NoError(h.t, err)
	return es
}

func (h *harness) appendN(leader NodeID, n int, bytes int32, tag string) int64 {
	h.t.Helper()
	recs := make([]Record[string], n)
	for i := range recs {
		recs[i] = Record[string]{Payload: fmt.Sprintf("%s-%d", tag, i), Bytes: bytes}
	}
	last, err := h.q.Append(leader, recs...)
	require.NoError(h.t, err)
	return last
}

func (h *harness) others(id NodeID) []NodeID {
	var out []NodeID
	for _, v := range h.q.cfg.Voters {
		if v != id {
			out = append(out, v)
		}
	}
	return out
}

// replace swaps the entry at offset for arena entry id behind the quorum's back, splitting the
// log's spans around it, so that tests can forge a divergent log.
func (l *replicaLog) replace(offset, id int64) {
	var spans []span
	for o := l.start; o < l.end(); o++ {
		want := l.id(o)
		if o == offset {
			want = id
		}
		if k := len(spans) - 1; k < 0 || spans[k].id+o-spans[k].offset != want {
			spans = append(spans, span{offset: o, id: want})
		}
	}
	l.spans = spans
}
