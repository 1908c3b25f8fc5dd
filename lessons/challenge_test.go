package lessons

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// challenge is tiny with a prediction and a challenge in its first step: lines 19 to 32 take the
// place of its hint.
var challenge = strings.Replace(tiny, "hint: Press K.\n", ""+
	"hint: Press K.\n"+ // 19
	"predict: Who leads payments-0 once broker 1 is fenced?\n"+ // 20
	"option: Broker 0 | leader payments-0 == 0\n"+ // 21
	"option: Broker 2 | leader payments-0 == 2\n"+ // 22
	"option: Nobody | leader payments-0 == none\n"+ // 23
	"reveal: Broker 2, the first replica in [1,2,0] that is alive and in sync.\n"+ // 24
	"solution:\n"+ // 25
	"- shutdown 1\n"+ // 26
	"- until broker 1 fenced within 30s\n"+ // 27
	"reject:\n"+ // 28
	"- kill 2\n"+ // 29
	"- wait 15s\n", 1) // 30

func TestParseChallenge(t *testing.T) {
	l, err := Parse("t.md", []byte(challenge), nil)
	require.NoError(t, err)
	s := l.Steps[0]
	require.NotNil(t, s.Predict)
	assert.Equal(t, "Who leads payments-0 once broker 1 is fenced?", s.Predict.Question)
	require.Len(t, s.Predict.Options, 3)
	assert.Equal(t, int32(0), s.Predict.Options[0].Broker, `"Broker 0" names broker 0, so a click on it answers`)
	assert.Equal(t, int32(-1), s.Predict.Options[2].Broker)
	assert.Equal(t, 21, s.Predict.Options[0].Line)
	assert.True(t, s.Challenge())
	require.Len(t, s.Solutions, 1)
	require.Len(t, s.Rejects, 1)
	assert.Equal(t, "shutdown 1", s.Solutions[0][0].Source)
	assert.Equal(t, []string{"payments-0"}, s.PicturePartitions())
	require.NoError(t, Verify(l), "the reference, the other solution and the prediction check; the wrong attempt is refused")

	pics, err := l.GoalPictures()
	require.NoError(t, err)
	require.NotNil(t, pics[0])
	assert.Nil(t, pics[1], "a sandbox has no goal to picture")
	assert.Equal(t, []PicturePartition{{Name: "payments-0", Leader: 2, Isr: []int32{2, 0}, Replicas: []int32{1, 2, 0}}}, pics[0].Partitions)
	assert.Equal(t, PictureBroker{ID: 1, State: "stopped"}, pics[0].Brokers[1])
	assert.Equal(t, 1, pics[0].Brokers[2].Leaders)

	c, m, err := l.Checkpoint(0)
	require.NoError(t, err)
	answer, _ := s.Predict.Answer(c, m)
	assert.Equal(t, -1, answer, "at the start no option holds: broker 1 leads")
	_, err = l.Play(c, s.Reference, m)
	require.NoError(t, err)
	answer, _ = s.Predict.Answer(c, m)
	assert.Equal(t, 1, answer)
}

func TestChallengeErrors(t *testing.T) {
	line := func(n int, with string) string {
		lines := strings.Split(challenge, "\n")
		lines[n-1] = with
		return strings.Join(lines, "\n")
	}
	for _, tc := range []struct {
		name, src, want string
	}{
		{"four hints", strings.Replace(challenge, "hint: Press K.\n", "hint: a\nhint: b\nhint: c\nhint: d\n", 1), `t.md:22: hint: step "Stop the leader" has more than 3 hints`},
		{"option before predict", strings.Replace(tiny, "hint: Press K.\n", "option: A | leader payments-0 == 2\n", 1), "t.md:19: option: comes after a predict: line"},
		{"option without predicate", line(21, "option: Broker 0"), `t.md:21: option: write it as "option: Label | PREDICATE"`},
		{"bad option predicate", line(21, "option: Broker 0 | broker 7 fenced"), "t.md:21: option: broker 7 does not exist"},
		{"one option", strings.Replace(challenge, "option: Broker 0 | leader payments-0 == 0\noption: Broker 2 | leader payments-0 == 2\n", "", 1), "t.md:20: predict: give at least two option: lines"},
		{"no reveal", line(24, ""), "t.md:20: predict: no reveal: line"},
		{"solution without reject", strings.Replace(challenge, "reject:\n- kill 2\n- wait 15s\n", "", 1), `t.md:14: step "Stop the leader" is a challenge (it has a solution: list) without a reject: list`},
		{"unclosed model figure", strings.Replace(tiny, "Some *Markdown*.", "Recovery takes {model: 120 s.", 1), "t.md:14: step \"Stop the leader\": text line 1: a {model: figure} is not closed"},
		{"bad action in a solution", line(26, "- shutdown 9"), `t.md:26: "shutdown 9": broker: broker 9 does not exist`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse("t.md", []byte(tc.src), nil)
			require.Error(t, err)
			var le *Error
			require.True(t, errors.As(err, &le), "an *Error with file and line: %v", err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}

// TestVerifyRejectsBadChallenges: a solution that misses a goal, a wrong attempt that reaches
// them all and a prediction whose options do not single out one answer each fail with a line.
func TestVerifyRejectsBadChallenges(t *testing.T) {
	for _, tc := range []struct {
		name, old, new, want string
	}{
		{"solution misses", "- shutdown 1\n- until broker 1 fenced within 30s\n", "- kill 2\n- wait 15s\n", `t.md:25: solution: goal "leader payments-0 == 2" does not hold after it`},
		{"reject succeeds", "- kill 2\n- wait 15s\n", "- kill 1\n- wait 15s\n", `t.md:28: reject: this wrong attempt reaches every goal of step 1 "Stop the leader"`},
		{"two options hold", "option: Nobody | leader payments-0 == none", "option: Nobody | leader payments-0 != 0", `t.md:20: predict: after the reference actions of step 1 "Stop the leader" exactly one option must hold`},
		{"no option holds", "option: Broker 2 | leader payments-0 == 2", "option: Broker 2 | leader payments-0 == 1", "exactly one option must hold"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := strings.Replace(challenge, tc.old, tc.new, 1)
			require.NotEqual(t, challenge, src)
			l, err := Parse("t.md", []byte(src), nil)
			require.NoError(t, err)
			err = Verify(l)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}

func TestModelMarks(t *testing.T) {
	assert.NoError(t, checkModelMarks("Recovery takes {model: 120 s} and {model: 40 MB/s}.\nNo mark here."))
	assert.ErrorContains(t, checkModelMarks("ok\nIt takes {model: }."), "text line 2: a {model: figure} is empty")
	assert.ErrorContains(t, checkModelMarks("It takes {model: 120 s"), "not closed")
}
