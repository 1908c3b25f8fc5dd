package bridge

import "time"

// pacer runs a budgeted sim.advance in slices of cluster time, reading the wall clock between
// slices, so that a step stops close to its budget whether the cluster time asked for is a
// quiet stretch of heartbeats (cheap: slices grow long) or a storm of elections (dear: slices
// shrink). The wall clock decides only where a step stops, never what the cluster does.
type pacer struct {
	// now reads the wall clock; nil means time.Now (tests set their own).
	now func() time.Time
	// sliceMs is the cluster time of the next slice; it carries over between steps, as the
	// cost of cluster time changes slowly compared with a frame.
	sliceMs int64
}

const (
	// A slice aims at an eighth of the budget, so that one slice dearer than the last
	// overruns the budget by little.
	slicesPerBudget = 8
	minSliceMs      = 10
	maxSliceMs      = 60_000
)

func (p *pacer) clock() time.Time {
	if p.now != nil {
		return p.now()
	}
	return time.Now()
}

// runWithin runs the session toward cluster time t until it gets there or budget has passed.
func (s *Session) runWithin(t int64, budget time.Duration) {
	p := &s.pace
	if p.sliceMs == 0 {
		p.sliceMs = 1000
	}
	target := budget / slicesPerBudget
	start := p.clock()
	for s.c.Err() == nil && s.c.Now() < t {
		from, sliceStart := s.c.Now(), p.clock()
		s.runTo(min(t, from+p.sliceMs))
		end := p.clock()
		took := end.Sub(sliceStart)
		ran := s.c.Now() - from
		if ran == p.sliceMs || took > target {
			// Scale the slice toward the target cost: down at once, up at most 4× a slice.
			switch {
			case took <= target/4:
				p.sliceMs *= 4
			default:
				p.sliceMs = int64(float64(p.sliceMs) * float64(target) / float64(took))
			}
			p.sliceMs = min(max(p.sliceMs, minSliceMs), maxSliceMs)
		}
		if ran == 0 || end.Sub(start) >= budget {
			break
		}
	}
}
