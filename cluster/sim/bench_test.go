package sim

import "testing"

type nop struct{}

func (nop) HandleEvent(Event) {}

// BenchmarkScheduleAndPop1M schedules one million events at random times within an hour and then
// runs them all, so the far heap holds a million pending events at its peak and every event moves
// from it into a bucket before it runs (the queue's worst case); the reported ns/event is the
// cost of one schedule plus one pop. The Sim is reused across iterations, as a long run reuses
// its grown queue, so slice growth is not what is measured.
func BenchmarkScheduleAndPop1M(b *testing.B) {
	const n = 1_000_000
	var h Handler = &nop{}
	s := New(1)
	rng := s.Rand().Child("bench")
	b.ReportAllocs()
	for b.Loop() {
		base := s.Now()
		for range n {
			if _, err := s.Schedule(base+rng.Between(0, 3_600_000), Event{Target: h}); err != nil {
				b.Fatal(err)
			}
		}
		for s.Step() {
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/event")
}

// BenchmarkSteadyState keeps about a thousand events pending within a second, as a running
// cluster does, and measures one pop plus one re-schedule; it should allocate nothing.
func BenchmarkSteadyState(b *testing.B) {
	s := New(1)
	rng := s.Rand().Child("bench")
	var h Handler = &nop{}
	for range 1000 {
		_, _ = s.After(rng.Between(0, 1000), Event{Target: h})
	}
	b.ReportAllocs()
	for b.Loop() {
		s.Step()
		_, _ = s.After(rng.Between(0, 1000), Event{Target: h})
	}
}
