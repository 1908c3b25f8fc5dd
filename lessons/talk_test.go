package lessons

import (
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
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
