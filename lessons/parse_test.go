package lessons

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kraftlab/kraftlab/cluster"
)

// tiny is a valid lesson on a small cluster; tests break one line of it at a time.
const tiny = "---\n" + // 1
	"title: Tiny\n" + // 2
	"summary: A test lesson.\n" + // 3
	"links:\n" + // 4
	"- [KIP-966](https://cwiki.apache.org/confluence/display/KAFKA/KIP-966)\n" + // 5
	"---\n" + // 6
	"Intro text.\n" + // 7
	"```json scenario\n" + // 8
	`{"seed": 1, "duration_ms": 120000,` + "\n" + // 9
	` "cluster": {"controllers": 1, "brokers": 3,` + "\n" + // 10
	`   "topics": [{"name": "payments", "partitions": [{"replicas": [1, 2, 0]}]}],` + "\n" + // 11
	`   "workload": {"bytes_per_sec_per_broker": 1000000, "samples_per_window": 100}}}` + "\n" + // 12
	"```\n" + // 13
	"## Stop the leader\n" + // 14
	"Some *Markdown*.\n" + // 15
	"do: Kill broker 1.\n" + // 16
	"goal: leader payments-0 == 2\n" + // 17
	"goal: broker 1 fenced\n" + // 18
	"hint: Press K.\n" + // 19
	"reference:\n" + // 20
	"- kill 1\n" + // 21
	"- until broker 1 fenced within 15s\n" + // 22
	"play:\n" + // 23
	"- kill 1\n" + // 24
	"- pause: Who leads now?\n" + // 25
	"- wait 15s\n" + // 26
	"## Sandbox\n" + // 27
	"Play.\n" // 28

// replaceLine returns tiny with line n (from 1) replaced.
func replaceLine(n int, with string) string {
	lines := strings.Split(tiny, "\n")
	lines[n-1] = with
	return strings.Join(lines, "\n")
}

func TestParseTiny(t *testing.T) {
	l, err := Parse("t/00-tiny.md", []byte(tiny), nil)
	require.NoError(t, err)
	assert.Equal(t, "00-tiny", l.ID)
	assert.Equal(t, "Tiny", l.Title)
	assert.Equal(t, []Link{{"KIP-966", "https://cwiki.apache.org/confluence/display/KAFKA/KIP-966"}}, l.Links)
	assert.Equal(t, "Intro text.", l.Intro)
	assert.Equal(t, int64(120000), l.LimitMs)
	require.Len(t, l.Steps, 2)
	s := l.Steps[0]
	assert.Equal(t, "Stop the leader", s.Title)
	assert.Equal(t, 14, s.Line)
	assert.Equal(t, "Some *Markdown*.", s.Text)
	assert.Equal(t, "Kill broker 1.", s.Task)
	require.Len(t, s.Goals, 2)
	assert.Equal(t, 17, s.Goals[0].Line)
	assert.Equal(t, "leader payments-0 == 2", s.Goals[0].Expr.String())
	assert.Equal(t, []string{"Press K."}, s.Hints)
	require.Len(t, s.Reference, 2)
	assert.Equal(t, ActEvent, s.Reference[0].Kind)
	assert.Equal(t, cluster.Event{Op: cluster.OpKill, Broker: 1}, s.Reference[0].Event)
	assert.Equal(t, ActUntil, s.Reference[1].Kind)
	assert.Equal(t, int64(15000), s.Reference[1].WaitMs)
	require.Len(t, s.Play, 3)
	assert.Equal(t, ActPause, s.Play[1].Kind)
	assert.Equal(t, "Who leads now?", s.Play[1].Pause)
	assert.True(t, l.Steps[1].Sandbox())
	assert.False(t, s.Sandbox())
	require.NoError(t, Verify(l))
}

// TestParseErrors breaks the tiny lesson one way at a time; each error names the file, the
// line and what was wrong.
func TestParseErrors(t *testing.T) {
	for _, tc := range []struct {
		name, src, want string
	}{
		{"no header", "title: x\n", "t.md:1: a lesson starts with a header"},
		{"unclosed header", "---\ntitle: x\n", "t.md:1: the header is not closed"},
		{"unknown header key", replaceLine(3, "sumary: x"), `t.md:3: header: unknown key "sumary" (known: title, summary, links, scenario, start_ms)`},
		{"bad link", replaceLine(5, "- KIP-966 https://x"), `t.md:5: links: write a link as "- [Title](https://...)"`},
		{"no title", replaceLine(2, "title:"), "t.md:2: header: title: missing"},
		{"bad start", replaceLine(2, "start_ms: soon"), `t.md:2: start_ms: must be a time in milliseconds, 0 or more, got "soon"`},
		{"unknown predicate", replaceLine(17, "goal: leaderr payments-0 == 2"), `t.md:17: goal: unknown predicate "leaderr" (known: acked_records_lost, active_controller, broker, `},
		{"unknown broker in goal", replaceLine(18, "goal: broker 7 fenced"), "t.md:18: goal: broker 7 does not exist (brokers: 0, 1, 2)"},
		{"unknown topic", replaceLine(17, "goal: leader orders-0 == 2"), `t.md:17: goal: topic "orders" does not exist (topics: payments)`},
		{"unknown partition", replaceLine(17, "goal: isr payments-3 == [2,0]"), "t.md:17: goal: partition payments-3 does not exist (payments has partitions 0 to 0)"},
		{"unknown broker state", replaceLine(18, "goal: broker 1 asleep"), `t.md:18: goal: broker: unknown fact "asleep" (known states: controlled_shutdown, fenced,`},
		{"unknown metric", replaceLine(18, "goal: metric Imbalance == 0"), `t.md:18: goal: metric: unknown metric "Imbalance" (known: ActiveBrokerCount,`},
		{"bad comparison", replaceLine(17, "goal: leader payments-0 => 2"), `t.md:17: goal: unknown comparison "=>"`},
		{"trailing words", replaceLine(17, "goal: leader payments-0 == 2 3"), `t.md:17: goal: unexpected "3" after "leader payments-0 == 2"`},
		{"unknown action", replaceLine(21, "- kil 1"), `t.md:21: reference: unknown action "kil" (known: kill, start,`},
		{"unknown broker in action", replaceLine(21, "- kill 9"), `t.md:21: "kill 9": broker: broker 9 does not exist (brokers: 0, 1, 2)`},
		{"unknown config", replaceLine(21, "- set_config leader.imbalance.foo=1"), `t.md:21: "set_config leader.imbalance.foo=1": name: `},
		{"config out of range", replaceLine(21, "- set_config leader.imbalance.election.wait.for.sync.threshold.percent=105"), "Value must be no more than 100"},
		{"static config at run time", replaceLine(21, "- set_config leader.imbalance.check.interval.seconds=30"), `t.md:21: "set_config leader.imbalance.check.interval.seconds=30": leader.imbalance.check.interval.seconds is a static config`},
		{"controller mode", tiny[:strings.Index(tiny, "{")] + `{"mode": "controller", "brokers": [{"id": 0}], "steps": []}` + tiny[strings.Index(tiny, "\n```\n#"):], `t.md:9: scenario: a lesson runs the toy cluster`},
		{"bad wait", replaceLine(26, "- wait soon"), `t.md:26: play: wait: expected a duration from 0 to 24h`},
		{"pause in reference", replaceLine(21, "- pause: why?"), "t.md:21: reference: pause: only a play: list pauses"},
		{"until without within", replaceLine(22, "- until broker 1 fenced"), `t.md:22: reference: until: expected "until PREDICATE within DURATION"`},
		{"past the limit", replaceLine(22, "- until broker 1 fenced within 200s"), "t.md:22: reference: the reference actions reach 200000 ms by here, past the scenario's duration_ms (120000)"},
		{"goals without reference", strings.Replace(strings.Replace(tiny, "- kill 1\n- until broker 1 fenced within 15s\n", "", 1), "reference:\n", "", 1), `t.md:14: step "Stop the leader" has goals but no reference: actions`},
		{"malformed scenario JSON", replaceLine(10, ` "cluster": {"controllers": 1, "brokers": 3,,`), "t.md:10: scenario: invalid JSON at line 2"},
		{"scenario field", replaceLine(10, ` "cluster": {"controllers": 2, "brokers": 3,`), `t.md:10: scenario: cluster.controllers: must be 1, 3 or 5`},
		{"no steps", strings.SplitAfter(tiny, "```\n")[1][:0] + tiny[:strings.Index(tiny, "## Stop")], "steps: none"},
		{"raw event with at_ms", replaceLine(21, `- {"op": "kill", "broker": 1, "at_ms": 5}`), "t.md:21: reference: a lesson's event has no at_ms"},
		{"raw event unknown op", replaceLine(21, `- {"op": "explode"}`), `t.md:21: reference: unknown action "explode"`},
		{"create_topic short form", replaceLine(21, "- create_topic orders"), "t.md:21: reference: create_topic: write it as a scenario event object"},
		{"unknown controller", replaceLine(21, "- kill_controller 3007"), `t.md:21: "kill_controller 3007": controller: must be "active" or a controller id (3000)`},
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

// TestVerifyFailures: a goal that already holds, a goal the reference does not reach and an
// expectation that is wrong all fail with their line.
func TestVerifyFailures(t *testing.T) {
	for _, tc := range []struct {
		name, src, want string
	}{
		{"already holds", replaceLine(18, "goal: broker 0 unfenced"), `t.md:18: goal: "broker 0 unfenced" already holds at the start of step 1 "Stop the leader"`},
		{"not reached", replaceLine(18, "goal: leader payments-0 == 0"), `t.md:18: goal: "leader payments-0 == 0" does not hold after the reference actions of step 1 "Stop the leader"`},
		{"wrong number", strings.Replace(tiny, "hint: Press K.\n", "expect: isr payments-0 == [0,2]\nhint: Press K.\n", 1), `t.md:19: expect: "isr payments-0 == [0,2]" does not hold after the reference actions of step 1 "Stop the leader", at `},
		{"until never holds", replaceLine(22, "- until broker 2 fenced within 15s"), `t.md:22: "until broker 2 fenced within 15s": still false at `},
		{"refused event", replaceLine(22, "- kill 1"), `t.md:22: "kill 1" was refused at 0 ms: `},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l, err := Parse("t.md", []byte(tc.src), nil)
			require.NoError(t, err)
			err = Verify(l)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}

func TestScenarioFile(t *testing.T) {
	src := strings.Replace(tiny, "links:\n", "scenario: tiny.json\nlinks:\n", 1)
	start := strings.Index(src, "```json scenario")
	end := strings.Index(src, "## Stop")
	scen := src[start+len("```json scenario\n") : end-len("```\n")]
	src = src[:start] + src[end:]
	l, err := Parse("t.md", []byte(src), func(name string) ([]byte, error) {
		require.Equal(t, "tiny.json", name)
		return []byte(scen), nil
	})
	require.NoError(t, err)
	assert.Equal(t, int64(120000), l.LimitMs)
	_, err = Parse("t.md", []byte(src), nil)
	assert.ErrorContains(t, err, `t.md:4: scenario: "tiny.json": this lesson cannot refer to files here`)
	_, err = Parse("t.md", []byte(strings.Replace(src, "tiny.json", "../x.json", 1)), func(string) ([]byte, error) { return nil, nil })
	assert.ErrorContains(t, err, "t.md:4: scenario: \"../x.json\": name a file next to the lesson")
}

// FuzzParse: no input makes the parser panic, and whatever it accepts has a title, steps and a
// cluster-mode scenario.
func FuzzParse(f *testing.F) {
	f.Add(tiny)
	f.Add(replaceLine(17, "goal: not (leader payments-0 == 2 or isr payments-0 contains 1) and time >= 0"))
	f.Add(replaceLine(21, `- {"op": "elect_leaders", "type": "preferred"}`))
	f.Add("---\n---\n")
	f.Fuzz(func(t *testing.T, src string) {
		l, err := Parse("f.md", []byte(src), nil)
		if err != nil {
			var le *Error
			require.True(t, errors.As(err, &le), "%v", err)
			return
		}
		require.NotEmpty(t, l.Title)
		require.NotEmpty(t, l.Steps)
		require.NotNil(t, l.Scenario.Cluster)
	})
}

// timed is the tiny lesson with a prediction answered on the timeline: when is broker 1 fenced?
func timed(answer, tolerance, span string) string {
	return strings.Replace(tiny, "hint: Press K.\n", "hint: Press K.\n"+
		"predict: When does the controller fence broker 1?\n"+ // 20
		"when: broker 1 fenced\n"+ // 21
		"answer: "+answer+"\n"+ // 22
		"tolerance: "+tolerance+"\n"+ // 23
		"timeline: "+span+"\n"+ // 24
		"reveal: After its session timeout.\n", 1) // 25
}

// TestTimedPrediction: a prediction answered on the timeline parses, verifies when its answer
// is within the tolerance of the reference run's moment, and fails with its line otherwise.
func TestTimedPrediction(t *testing.T) {
	l, err := Parse("t.md", []byte(timed("9s", "2s", "20s")), nil)
	require.NoError(t, err)
	q := l.Steps[0].Predict
	require.NotNil(t, q)
	assert.True(t, q.Timed())
	assert.Equal(t, "broker 1 fenced", q.WhenSource)
	assert.Equal(t, []int64{9000, 2000, 20000}, []int64{q.AnswerMs, q.ToleranceMs, q.SpanMs})
	require.NoError(t, Verify(l))

	l, err = Parse("t.md", []byte(timed("15s", "2s", "20s")), nil)
	require.NoError(t, err)
	assert.ErrorContains(t, Verify(l), `t.md:20: answer: 15000 ms is 4870 ms from the moment "broker 1 fenced" first holds in the reference run of step 1 "Stop the leader" (step time 10130 ms`)

	for _, tc := range []struct{ src, want string }{
		{timed("9s", "2s", "10s"), "t.md:20: predict: timeline: 10000 ms is shorter than answer: plus tolerance:"},
		{timed("9s", "0s", "20s"), `t.md:23: tolerance: expected a duration after the step's start, more than 0`},
		{strings.Replace(timed("9s", "2s", "20s"), "when: broker 1 fenced\n", "", 1), "t.md:20: predict: answer:, tolerance: and timeline: belong to a prediction answered on the timeline"},
		{strings.Replace(timed("9s", "2s", "20s"), "when: broker 1 fenced\n", "when: broker 1 fenced\noption: Soon | broker 1 fenced\n", 1), "t.md:20: predict: a prediction answered on the timeline (when:) has no option: lines"},
		{strings.Replace(timed("9s", "2s", "20s"), "when: broker 1 fenced", "when: broker 5 fenced", 1), "t.md:21: when: broker 5 does not exist"},
		{strings.Replace(tiny, "hint: Press K.\n", "hint: It takes {model: 5 s.\n", 1), `t.md:14: step "Stop the leader": text line`},
	} {
		_, err := Parse("t.md", []byte(tc.src), nil)
		assert.ErrorContains(t, err, tc.want)
	}
	// A moment that already holds at the step's start is no prediction.
	l, err = Parse("t.md", []byte(strings.Replace(timed("9s", "2s", "20s"), "when: broker 1 fenced", "when: broker 0 unfenced", 1)), nil)
	require.NoError(t, err)
	assert.ErrorContains(t, Verify(l), `t.md:21: when: "broker 0 unfenced" already holds at the start of step 1`)
}
