package lessons

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kraftlab/kraftlab/internal/jsskip"
)

// TestCourse loads every lesson of the course and verifies it headlessly: from each step's
// start no goal holds yet, the reference actions reach every goal within the lesson's time
// limit, and the numbers quoted in expect: lines are what the simulation shows.
func TestCourse(t *testing.T) {
	names, err := CourseFiles()
	require.NoError(t, err)
	require.Len(t, names, 10, "the course has ten lessons")
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			l, err := LoadCourseLesson(name)
			require.NoError(t, err)
			require.NoError(t, Verify(l))
		})
	}
}

// TestCourseShape checks what every lesson of the course promises its reader: a title, a
// one-line summary, links to its sources, at least three steps, hints on every step with a
// goal, a prediction, a closing challenge and a closing sandbox.
func TestCourseShape(t *testing.T) {
	course, err := Course()
	require.NoError(t, err)
	require.Len(t, course, 10)
	for _, l := range course {
		assert.NotEmpty(t, l.Title, l.File)
		assert.NotContains(t, l.Summary, "\n", l.File)
		assert.NotEmpty(t, l.Links, "%s: a lesson links to the KIPs and docs it draws on", l.File)
		require.GreaterOrEqual(t, len(l.Steps), 3, l.File)
		last := l.Steps[len(l.Steps)-1]
		assert.True(t, last.Sandbox(), "%s: the last step is a sandbox (no goal)", l.File)
		predictions := 0
		for _, s := range l.Steps[:len(l.Steps)-1] {
			assert.False(t, s.Sandbox(), "%s:%d: only the last step is a sandbox", l.File, s.Line)
			assert.NotEmpty(t, s.Task, "%s:%d: a step says what to do", l.File, s.Line)
			assert.NotEmpty(t, s.Hints, "%s:%d: a step with a goal offers hints", l.File, s.Line)
			if s.Predict != nil {
				predictions++
			}
		}
		assert.GreaterOrEqual(t, predictions, 1, "%s: a lesson asks at least one prediction", l.File)
		closing := l.Steps[len(l.Steps)-2]
		assert.True(t, closing.Challenge(), "%s:%d: a lesson ends with a challenge before its sandbox", l.File, closing.Line)
	}
}

// TestCheckpointIsAReplay: the state at a step's start is the same whether the lesson was
// played through or rebuilt for that step alone (a link to step 4, "back", "reset").
func TestCheckpointIsAReplay(t *testing.T) {
	jsskip.CoveredNatively(t, "a checkpoint against the lesson played through, both in this process")
	l, err := LoadCourseLesson("01-electing-a-new-leader")
	require.NoError(t, err)
	c, err := l.Build()
	require.NoError(t, err)
	for i := 0; i < 3; i++ {
		_, err := l.Play(c, l.Steps[i].Reference, MarkNow(c))
		require.NoError(t, err)
	}
	d, m, err := l.Checkpoint(3)
	require.NoError(t, err)
	assert.Equal(t, c.Now(), d.Now())
	assert.Equal(t, c.Now(), m.TimeMs)
	assert.Equal(t, c.Partitions(), d.Partitions())
	assert.Equal(t, c.Controllers().CommittedEnd(), d.Controllers().CommittedEnd())
	assert.Equal(t, int32(1), d.Partitions()[0].Leader, "step 4 starts with broker 1 leading again")
	_, _, err = l.Checkpoint(len(l.Steps))
	assert.ErrorContains(t, err, "step 6 does not exist (steps: 0 to 5)")
}
