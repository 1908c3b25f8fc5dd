package quorum

import (
	"testing"

	"github.com/kraftlab/kraftlab/cluster/sim"
)

// appender writes one 1 KiB batch to the current leader every 100 ms, as a steady controller
// workload would.
type appender struct {
	s       *sim.Sim
	q       *Quorum[int]
	b       *testing.B
	written int
}

func (a *appender) HandleEvent(sim.Event) {
	if id, _, ok := a.q.Leader(); ok {
		if _, err := a.q.Append(id, Record[int]{Payload: a.written, Bytes: 1024}); err != nil {
			a.b.Fatal(err)
		}
		a.written++
	}
	if _, err := a.s.After(100, sim.Event{Target: a}); err != nil {
		a.b.Fatal(err)
	}
}

// BenchmarkHourOf3VotersAnd100Observers simulates one hour of a 3-controller, 100-broker quorum
// with a batch every 100 ms (36,000 batches, ~35 MiB, so each node also snapshots by bytes).
// One op is the whole hour.
func BenchmarkHourOf3VotersAnd100Observers(b *testing.B) {
	const hourMs = 3_600_000
	var events uint64
	b.ReportAllocs()
	for b.Loop() {
		s := sim.New(1)
		cfg := DefaultConfig()
		cfg.Voters = voterIDs(3)
		q, err := New[int](s, cfg, Hooks{})
		if err != nil {
			b.Fatal(err)
		}
		for i := range 100 {
			if err := q.AddObserver(NodeID(i)); err != nil {
				b.Fatal(err)
			}
		}
		a := &appender{s: s, q: q, b: b}
		if _, err := s.After(3000, sim.Event{Target: a}); err != nil {
			b.Fatal(err)
		}
		if _, err := s.RunUntil(hourMs); err != nil {
			b.Fatal(err)
		}
		if err := q.Check(); err != nil {
			b.Fatal(err)
		}
		leader, _, _ := q.Leader()
		st, _ := q.Node(leader)
		for _, id := range q.Nodes() {
			if o, _ := q.Node(id); o.HighWatermark < st.HighWatermark-2 {
				b.Fatalf("node %d is at %d, the leader at %d", id, o.HighWatermark, st.HighWatermark)
			}
		}
		events = s.Processed()
	}
	b.ReportMetric(float64(events), "events/op")
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(uint64(b.N)*events), "ns/event")
}
