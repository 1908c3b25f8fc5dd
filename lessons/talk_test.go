package lessons

import (
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kraftlab/kraftlab/internal/jsskip"
)

// TestTalks replays every talk: each scene's play list from the end of the one before, and the
// numbers its caption quotes (its expect: lines) once it has played.
func TestTalks(t *testing.T) {
	talks, err := Talks()
	require.NoError(t, err)
	require.NotEmpty(t, talks)
	for _, tk := range talks {
		t.Run(tk.ID, func(t *testing.T) {
			assert.True(t, tk.Talk)
			var trace strings.Builder
			err := VerifyTrace(tk, &trace)
			if os.Getenv("KRAFTLAB_LESSON_TRACE") != "" {
				t.Log(trace.String())
			}
			require.NoError(t, err)
			for _, s := range tk.Steps {
				assert.NotEmpty(t, s.Caption, "%s:%d", tk.File, s.Line)
				assert.True(t, s.Sandbox(), "a scene has no goal")
			}
		})
	}
}

func TestParseTalkErrors(t *testing.T) {
	head := "---\ntitle: T\nsummary: S\n---\n```json scenario\n" +
		`{"duration_ms": 60000, "cluster": {"controllers": 1, "brokers": 3, "topics": [{"name": "t", "partitions": [{"replicas": [1, 2, 0]}]}], "workload": {"samples_per_window": 100}}}` +
		"\n```\n## Kill\n" // scene heading on line 8
	good := head + "caption: Broker 1 stops; broker 2 leads.\nexpect: leader t-0 == 2\nplay:\n- kill 1\n- until leader t-0 == 2 within 15s\n"
	tk, err := ParseTalk("t.md", []byte(good), nil)
	require.NoError(t, err)
	require.NoError(t, Verify(tk))
	assert.Equal(t, "Broker 1 stops; broker 2 leads.", tk.Steps[0].Caption)
	require.Len(t, tk.Steps[0].Reference, 2, "a scene's play list is what the next scene starts after")
	for _, tc := range []struct{ name, src, want string }{
		{"no caption", head + "play:\n- kill 1\n", `t.md:8: scene "Kill" has no caption: line`},
		{"a goal", head + "caption: x\ngoal: leader t-0 == 2\n", "t.md:10: goal: a talk's scene has no goal: lines"},
		{"unchecked number", head + "caption: 2 leads.\nplay:\n- kill 1\n", `t.md:8: scene "Kill": its caption quotes a number but no expect: line checks it`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseTalk("t.md", []byte(tc.src), nil)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
	// A wrong number in a caption's expect: line fails the check with its line.
	tk, err = ParseTalk("t.md", []byte(strings.Replace(good, "leader t-0 == 2", "leader t-0 == 0", 1)), nil)
	require.NoError(t, err)
	assert.ErrorContains(t, Verify(tk), `t.md:10: expect: "leader t-0 == 0" does not hold`)
}

// TestSceneFromALessonCheckpoint: a scene starts from a lesson's checkpoint by name, in the
// state that lesson's step opens in, every time; its actions and expectations are checked
// against that lesson's cluster, and the scenes after it continue from where it ends.
func TestSceneFromALessonCheckpoint(t *testing.T) {
	jsskip.CoveredNatively(t, "a scene against the lesson checkpoint it starts from, both in this process")
	head := "---\ntitle: T\nsummary: S\n---\n```json scenario\n" +
		`{"duration_ms": 600000, "cluster": {"controllers": 1, "brokers": 3, "topics": [{"name": "t", "partitions": [{"replicas": [1, 2, 0]}]}], "workload": {"samples_per_window": 100}}}` +
		"\n```\n## Kill\ncaption: A broker stops.\nplay:\n- kill 1\n- wait 1s\n" + // lines 8-12
		"## From lesson 1\n" + // 13
		"caption: Lesson 1's third step: broker 1 is back in sync, broker 2 leads.\n" + // 14
		"from: 01-electing-a-new-leader step 3\n" + // 15
		"expect: leader payments-0 == 2 and isr payments-0 contains 1\n" + // 16
		"play:\n- wait 1s\n" + // 17-18
		"## And on\ncaption: The periodic run gives it back.\nexpect: leader payments-0 == 1\nplay:\n- until leader payments-0 == 1 within 300s\n" // 19-23
	tk, err := ParseTalk("t.md", []byte(head), nil)
	require.NoError(t, err)
	require.NoError(t, Verify(tk))
	// The scene's start is the lesson's checkpoint, the same state at the same time.
	l, err := LoadCourseLesson("01-electing-a-new-leader")
	require.NoError(t, err)
	want, wm, err := l.Checkpoint(2)
	require.NoError(t, err)
	got, gm, err := tk.Checkpoint(1)
	require.NoError(t, err)
	assert.Equal(t, wm, gm)
	assert.Equal(t, want.Partitions(), got.Partitions())
	// The scene after it continues from its end, 1 s later.
	next, nm, err := tk.Checkpoint(2)
	require.NoError(t, err)
	assert.Equal(t, gm.TimeMs+1000, nm.TimeMs)
	assert.Equal(t, got.Partitions(), next.Partitions()[:len(got.Partitions())])

	for _, tc := range []struct{ name, old, new, want string }{
		{"unknown lesson", "from: 01-electing-a-new-leader step 3", "from: 99-nothing step 3", `t.md:15: from: "99-nothing" is not a lesson of the course (lessons: 01-electing-a-new-leader, `},
		{"no such step", "from: 01-electing-a-new-leader step 3", "from: 01-electing-a-new-leader step 9", "t.md:15: from: lesson 01-electing-a-new-leader has steps 1 to 6, not 9"},
		{"malformed", "from: 01-electing-a-new-leader step 3", "from: lesson 1", `t.md:15: from: write it as "from: LESSON step N"`},
		{"checked against the lesson's cluster", "expect: leader payments-0 == 2 and isr payments-0 contains 1", "expect: leader t-0 == 2", `t.md:16: expect: topic "t" does not exist (topics: payments)`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseTalk("t.md", []byte(strings.Replace(head, tc.old, tc.new, 1)), nil)
			assert.ErrorContains(t, err, tc.want)
		})
	}
	// An expectation that does not hold there fails with its line.
	tk, err = ParseTalk("t.md", []byte(strings.Replace(head, "expect: leader payments-0 == 2 and", "expect: leader payments-0 == 0 and", 1)), nil)
	require.NoError(t, err)
	assert.ErrorContains(t, Verify(tk), `t.md:16: expect: "leader payments-0 == 0 and isr payments-0 contains 1" does not hold`)
}
