package bridge

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kraftlab/kraftlab/internal/jsskip"
)

// TestBudgetedAdvanceStopsShortAndChangesNoResult: with a budget, sim.advance stops when the
// wall clock says it is spent, and the page's next steps take it on from there; the run is the
// same one, event for event and record for record, as the unbudgeted steps give.
func TestBudgetedAdvanceStopsShortAndChangesNoResult(t *testing.T) {
	jsskip.CoveredNatively(t, "budgeted steps against unbudgeted ones on a test clock, both in this process")
	type run struct {
		events []LogEvent
		last   Frame
		data   []byte
		steps  int
	}
	play := func(budgeted bool) (run, *Bridge) {
		b := started(t, `{"seed":7,"brokers":4,"partitions":24}`)
		if budgeted {
			// Every reading of the clock is 1 ms later: a budget of 4 ms lasts a few slices.
			var clock time.Time
			b.session.pace.now = func() time.Time { clock = clock.Add(time.Millisecond); return clock }
		}
		var r run
		to := func(target int64) {
			for {
				body := fmt.Sprintf(`{"ms":%d,"layout":1}`, target-r.last.TimeMs)
				if budgeted {
					body = fmt.Sprintf(`{"ms":%d,"layout":1,"budgetMs":4}`, target-r.last.TimeMs)
				}
				f, data := frameAt(t, b, "sim.advance", body)
				require.Zero(t, f.EventsDropped)
				require.GreaterOrEqual(t, f.TimeMs, r.last.TimeMs)
				r.events = append(r.events, f.Events...)
				r.last, r.data = f, data
				r.steps++
				if f.TimeMs == target {
					return
				}
				require.True(t, budgeted, "an unbudgeted step runs all the time asked for")
			}
		}
		to(5_000)
		must[ActBody](t, b, "sim.act", `{"op":"kill","broker":2}`)
		to(60_000)
		must[ActBody](t, b, "sim.act", `{"op":"start","broker":2}`)
		to(300_000)
		return r, b
	}
	whole, wb := play(false)
	sliced, sb := play(true)
	assert.Equal(t, 3, whole.steps)
	assert.Greater(t, sliced.steps, 10, "a 4 ms budget on a clock that ticks 1 ms a reading stops steps short")
	assert.NotEmpty(t, whole.events)
	assert.Equal(t, whole.events, sliced.events)
	assert.Equal(t, whole.data, sliced.data)
	whole.last.Events, sliced.last.Events = nil, nil
	// The traffic is what happened within each frame's window, which the slicing changes.
	whole.last.Traffic, sliced.last.Traffic = nil, nil
	a, err := json.Marshal(whole.last)
	require.NoError(t, err)
	b, err := json.Marshal(sliced.last)
	require.NoError(t, err)
	assert.JSONEq(t, string(a), string(b))
	assert.Equal(t, wb.session.c.Records(), sb.session.c.Records())
}

// TestBudgetedAdvanceSlicesFollowTheCost: cheap cluster time grows the slices, dear cluster
// time (here: a clock that runs fast) shrinks them, within their bounds.
func TestBudgetedAdvanceSlicesFollowTheCost(t *testing.T) {
	jsskip.CoveredNatively(t, "the pacer's arithmetic on a test clock")
	b := started(t, "")
	var clock time.Time
	tick := time.Microsecond
	b.session.pace.now = func() time.Time { clock = clock.Add(tick); return clock }
	frameAt(t, b, "sim.advance", `{"ms":3600000,"budgetMs":16}`)
	assert.Equal(t, int64(maxSliceMs), b.session.pace.sliceMs, "a step that costs nothing runs in the longest slices")
	tick = 100 * time.Millisecond
	var f Frame
	for range 3 {
		before := b.session.c.Now()
		f, _ = frameAt(t, b, "sim.advance", `{"ms":3600000,"budgetMs":16}`)
		assert.LessOrEqual(t, f.TimeMs-before, int64(maxSliceMs), "a step dearer than its budget stops after one slice")
	}
	assert.Equal(t, int64(minSliceMs), b.session.pace.sliceMs, "and its slices shrink to the shortest")
}

func TestAdvanceBudgetOutOfRange(t *testing.T) {
	b := started(t, "")
	for _, budget := range []string{"-1", "1001"} {
		e := failure(t, b, "sim.advance", `{"ms":100,"budgetMs":`+budget+`}`)
		assert.Contains(t, e.Message, "budgetMs: "+budget+" is not allowed; allowed: 0 (no limit) to 1,000")
	}
}
