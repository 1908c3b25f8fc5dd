package sim

import "fmt"

// Sim is one run's virtual clock, event queue and root random source. It is single-threaded by
// design: the run is deterministic because exactly one event executes at a time, in (time,
// scheduling order).
type Sim struct {
	now       int64
	seq       uint64
	processed uint64
	q         *queue
	rand      *Rand
}

// New returns a simulation at time 0 whose random streams all derive from seed.
func New(seed uint64) *Sim {
	return &Sim{q: newQueue(), rand: NewRand(seed)}
}

// Now is the virtual time in milliseconds: the time of the event being handled, or the time
// RunUntil last stopped at.
func (s *Sim) Now() int64 { return s.now }

// Seed is the seed the run was created with; invariant reports quote it so a failure replays.
func (s *Sim) Seed() uint64 { return s.rand.Seed() }

// Rand is the run's root random source. Consumers should take a named Child of it rather than
// draw from it directly, so that adding a consumer does not shift anyone else's stream.
func (s *Sim) Rand() *Rand { return s.rand }

// Pending is the number of events waiting to run.
func (s *Sim) Pending() int { return s.q.len() }

// Processed is the number of events run so far; benchmarks and the UI report it.
func (s *Sim) Processed() uint64 { return s.processed }

// NextAt is the time of the next event, if there is one.
func (s *Sim) NextAt() (int64, bool) {
	return s.q.peek()
}

// Schedule queues ev to run at virtual time atMs. Events due at the same time run in the order
// they were scheduled. Scheduling in the past is refused rather than silently moved, because it
// always means the caller computed a time wrongly.
func (s *Sim) Schedule(atMs int64, ev Event) (Handle, error) {
	if ev.Target == nil {
		return Handle{}, fmt.Errorf("sim: Event.Target is nil (kind %d, id %d); every event needs a Handler to run it", ev.Kind, ev.ID)
	}
	if atMs < s.now {
		return Handle{}, fmt.Errorf("sim: event time %d ms is before now (%d ms); events can only be scheduled at or after now", atMs, s.now)
	}
	s.seq++
	return s.q.push(atMs, s.seq, ev), nil
}

// After queues ev to run delayMs milliseconds from now; delayMs must not be negative.
func (s *Sim) After(delayMs int64, ev Event) (Handle, error) {
	if delayMs < 0 {
		return Handle{}, fmt.Errorf("sim: delay %d ms is negative; a delay must be at least 0 ms", delayMs)
	}
	return s.Schedule(s.now+delayMs, ev)
}

// Cancel removes the event h names and reports whether it was still waiting. Cancelling an event
// that already ran, was already cancelled, or the zero Handle, does nothing and returns false.
func (s *Sim) Cancel(h Handle) bool {
	return s.q.cancel(h)
}

// Step runs the next event, advancing the clock to its time, and reports whether there was one.
func (s *Sim) Step() bool {
	at, ev, ok := s.q.pop()
	if !ok {
		return false
	}
	s.now = at
	s.processed++
	ev.Target.HandleEvent(ev)
	return true
}

// RunUntil runs every event due at or before untilMs, including events those events schedule,
// then leaves the clock at untilMs. It returns how many events ran. A time before now is refused.
func (s *Sim) RunUntil(untilMs int64) (int, error) {
	if untilMs < s.now {
		return 0, fmt.Errorf("sim: RunUntil(%d ms) is before now (%d ms); time only moves forward", untilMs, s.now)
	}
	n := 0
	for {
		if at, ok := s.q.peek(); !ok || at > untilMs {
			break
		}
		s.Step()
		n++
	}
	s.now = untilMs
	s.q.advance(untilMs)
	return n, nil
}
