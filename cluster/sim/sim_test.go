package sim

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// recorder is a Handler that remembers what ran and when.
type recorder struct {
	s   *Sim
	got []string
	at  []int64
}

func (r *recorder) HandleEvent(ev Event) {
	r.got = append(r.got, string(rune('a'+ev.ID)))
	r.at = append(r.at, r.s.Now())
}

func newRecorder(seed uint64) (*Sim, *recorder) {
	s := New(seed)
	return s, &recorder{s: s}
}

func TestEventsRunInTimeThenSchedulingOrder(t *testing.T) {
	s, r := newRecorder(1)
	for i, at := range []int64{30, 10, 20, 10, 10} {
		_, err := s.Schedule(at, Event{Target: r, ID: int32(i)})
		require.NoError(t, err)
	}
	for s.Step() {
	}
	// b, d, e share t=10 and keep the order they were scheduled in.
	assert.Equal(t, []string{"b", "d", "e", "c", "a"}, r.got)
	assert.Equal(t, []int64{10, 10, 10, 20, 30}, r.at)
	assert.Equal(t, uint64(5), s.Processed())
}

func TestCancelRemovesOnlyThatEvent(t *testing.T) {
	s, r := newRecorder(1)
	var hs []Handle
	for i := range 6 {
		h, err := s.After(int64(10*(i+1)), Event{Target: r, ID: int32(i)})
		require.NoError(t, err)
		hs = append(hs, h)
	}
	assert.True(t, s.Cancel(hs[2]))
	assert.True(t, s.Cancel(hs[0]))
	assert.False(t, s.Cancel(hs[2]), "a cancelled handle is stale")
	assert.False(t, s.Cancel(Handle{}), "the zero handle names nothing")
	assert.Equal(t, 4, s.Pending())
	for s.Step() {
	}
	assert.Equal(t, []string{"b", "d", "e", "f"}, r.got)
	assert.False(t, s.Cancel(hs[5]), "an event that ran can no longer be cancelled")
}

func TestReusedSlotDoesNotHonourOldHandle(t *testing.T) {
	s, r := newRecorder(1)
	old, err := s.After(5, Event{Target: r, ID: 0})
	require.NoError(t, err)
	require.True(t, s.Step())
	_, err = s.After(5, Event{Target: r, ID: 1}) // reuses the freed slot
	require.NoError(t, err)
	assert.False(t, s.Cancel(old))
	assert.Equal(t, 1, s.Pending())
}

func TestRunUntilStopsAtBoundaryAndAdvancesClock(t *testing.T) {
	s, r := newRecorder(1)
	for i, at := range []int64{5, 10, 11} {
		_, err := s.Schedule(at, Event{Target: r, ID: int32(i)})
		require.NoError(t, err)
	}
	n, err := s.RunUntil(10)
	require.NoError(t, err)
	assert.Equal(t, 2, n)
	assert.Equal(t, int64(10), s.Now())
	next, ok := s.NextAt()
	assert.True(t, ok)
	assert.Equal(t, int64(11), next)

	_, err = s.RunUntil(9)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "RunUntil(9 ms) is before now (10 ms)")
}

func TestScheduleRejectsBadInput(t *testing.T) {
	s, r := newRecorder(1)
	_, err := s.RunUntil(100)
	require.NoError(t, err)

	_, err = s.Schedule(99, Event{Target: r})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "event time 99 ms is before now (100 ms)")

	_, err = s.Schedule(200, Event{})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "Event.Target is nil")

	_, err = s.After(-1, Event{Target: r})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "delay -1 ms is negative")
	assert.Equal(t, 0, s.Pending())
}

// chain schedules a follow-up from inside a handler, as the quorum does for every message.
type chain struct {
	s     *Sim
	count int
}

func (c *chain) HandleEvent(ev Event) {
	c.count++
	if ev.Arg > 0 {
		_, _ = c.s.After(1, Event{Target: c, Arg: ev.Arg - 1})
	}
}

func TestHandlersCanScheduleDuringRun(t *testing.T) {
	s := New(1)
	c := &chain{s: s}
	_, err := s.Schedule(0, Event{Target: c, Arg: 9})
	require.NoError(t, err)
	n, err := s.RunUntil(100)
	require.NoError(t, err)
	assert.Equal(t, 10, n)
	assert.Equal(t, 10, c.count)
}

// TestHeapOrderUnderRandomLoad cross-checks the heap against the (time, seq) rule with many
// interleaved schedules and cancels.
func TestHeapOrderUnderRandomLoad(t *testing.T) {
	s := New(7)
	rng := s.Rand().Child("load")
	r := &orderCheck{s: s}
	var hs []Handle
	seq := int64(0)
	for range 5000 {
		seq++
		h, err := s.Schedule(rng.Between(0, 500), Event{Target: r, Arg: seq})
		require.NoError(t, err)
		hs = append(hs, h)
		if rng.IntN(4) == 0 {
			s.Cancel(hs[rng.IntN(len(hs))])
		}
	}
	for s.Step() {
	}
	require.NotEmpty(t, r.seen)
	for i := 1; i < len(r.seen); i++ {
		a, b := r.seen[i-1], r.seen[i]
		ok := a.at < b.at || (a.at == b.at && a.seq < b.seq)
		require.Truef(t, ok, "event %d (t=%d seq=%d) ran before event (t=%d seq=%d)", i, a.at, a.seq, b.at, b.seq)
	}
}

type seen struct{ at, seq int64 }

type orderCheck struct {
	s    *Sim
	seen []seen
}

func (o *orderCheck) HandleEvent(ev Event) { o.seen = append(o.seen, seen{o.s.Now(), ev.Arg}) }

// model is the queue's rule written the slow, obvious way: the waiting events in a list, the
// next one the smallest (time, sequence).
type model struct{ waiting []modelEvent }

type modelEvent struct {
	at  int64
	seq int64
	h   Handle
}

func (m *model) next() (modelEvent, bool) {
	if len(m.waiting) == 0 {
		return modelEvent{}, false
	}
	best := 0
	for i, e := range m.waiting {
		if b := m.waiting[best]; e.at < b.at || (e.at == b.at && e.seq < b.seq) {
			best = i
		}
	}
	return m.waiting[best], true
}

func (m *model) remove(seq int64) bool {
	for i, e := range m.waiting {
		if e.seq == seq {
			m.waiting = append(m.waiting[:i], m.waiting[i+1:]...)
			return true
		}
	}
	return false
}

// differential runs random schedules, cancels and RunUntil jumps against model: handlers schedule
// more events as they run, at delays that straddle the buckets' window (zero, a few ms, just
// below, at and above window, and far beyond it), so events move between the far heap and the
// buckets all the time.
type differential struct {
	t     *testing.T
	s     *Sim
	rng   *Rand
	m     model
	seq   int64
	ran   int
	delay []int64
}

func (d *differential) schedule() {
	delay := d.delay[d.rng.IntN(len(d.delay))]
	if delay < 0 {
		delay = d.rng.Between(0, 3*window)
	}
	d.seq++
	h, err := d.s.After(delay, Event{Target: d, Arg: d.seq})
	require.NoError(d.t, err)
	d.m.waiting = append(d.m.waiting, modelEvent{at: d.s.Now() + delay, seq: d.seq, h: h})
}

func (d *differential) cancelOne() {
	if len(d.m.waiting) == 0 {
		return
	}
	e := d.m.waiting[d.rng.IntN(len(d.m.waiting))]
	require.True(d.t, d.s.Cancel(e.h), "event %d is waiting", e.seq)
	require.False(d.t, d.s.Cancel(e.h), "a cancelled handle is stale")
	d.m.remove(e.seq)
}

func (d *differential) HandleEvent(ev Event) {
	want, ok := d.m.next()
	require.True(d.t, ok, "the model has nothing waiting, but event %d ran", ev.Arg)
	require.Equal(d.t, want.seq, ev.Arg, "at t=%d the model runs event %d (due at %d)", d.s.Now(), want.seq, want.at)
	require.Equal(d.t, want.at, d.s.Now())
	d.m.remove(want.seq)
	d.ran++
	for range d.rng.IntN(3) {
		d.schedule()
	}
	if d.rng.IntN(5) == 0 {
		d.cancelOne()
	}
}

func (d *differential) checkWaiting() {
	require.Equal(d.t, len(d.m.waiting), d.s.Pending())
	want, ok := d.m.next()
	at, has := d.s.NextAt()
	require.Equal(d.t, ok, has)
	if ok {
		require.Equal(d.t, want.at, at)
	}
}

func TestQueueMatchesTheTimeThenSequenceRule(t *testing.T) {
	for seed := uint64(1); seed <= 20; seed++ {
		s := New(seed)
		d := &differential{t: t, s: s, rng: s.Rand().Child("differential"),
			delay: []int64{0, 0, 1, 2, 5, window - 1, window, window + 1, 2 * window, 50_000, -1}}
		for range 200 {
			d.schedule()
		}
		for round := 0; round < 300 && d.s.Pending() > 0; round++ {
			switch d.rng.IntN(4) {
			case 0:
				_, err := s.RunUntil(s.Now() + d.rng.Between(0, 3*window))
				require.NoError(t, err)
			case 1:
				d.cancelOne()
			default:
				for range 20 {
					s.Step()
				}
			}
			d.checkWaiting()
			if d.s.Pending() < 50 {
				d.schedule()
			}
		}
		for s.Step() {
		}
		d.checkWaiting()
		assert.Greater(t, d.ran, 1000, "seed %d ran enough to mean something", seed)
	}
}
