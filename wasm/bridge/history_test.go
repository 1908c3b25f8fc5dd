package bridge

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kraftlab/kraftlab/cluster/scenario"
	"github.com/kraftlab/kraftlab/engine/metadata"
	"github.com/kraftlab/kraftlab/internal/jsskip"
)

// state is a frame without what legitimately differs between two ways of reaching the same
// moment: the events (a replay drops them), the layout and history versions.
type state struct {
	body string
	data []byte
}

func stateOf(t *testing.T, b *Bridge, typ, body string) state {
	t.Helper()
	f, data := frameAt(t, b, typ, body)
	f.Events, f.EventsDropped, f.History, f.HorizonMs = nil, 0, 0, 0
	f.Traffic = nil // like the events, what happened since the previous frame
	f.Partitions.Layout = 0
	out, err := json.Marshal(f)
	require.NoError(t, err)
	return state{string(out), data}
}

// script is a run with one action of every kind the page offers, at fixed cluster times.
var script = []struct {
	at  int64
	act string
}{
	{5_000, `{"op":"slow_disk","broker":2,"factor":0.5}`},
	{10_000, `{"op":"kill","broker":1}`},
	{20_000, `{"op":"set_config","name":"leader.imbalance.election.max.per.run","value":2}`},
	{30_000, `{"op":"create_topic","topic":"orders","partitions":6,"replicationFactor":2}`},
	{40_000, `{"op":"start","broker":1}`},
	{45_000, `{"op":"cut","a":"broker-3","b":"broker-4"}`},
	{50_000, `{"op":"set_config","topic":"orders","name":"min.insync.replicas","value":"2"}`},
	{60_000, `{"op":"heal","a":"broker-3","b":"broker-4"}`},
	{90_000, `{"op":"elect_leaders","election":"preferred"}`},
	{95_000, `{"op":"kill_controller","controller":"active"}`},
	{100_000, `{"op":"delete_topic","topic":"orders"}`},
	{110_000, `{"op":"slow_disk","broker":2,"factor":1}`},
}

// playScript runs the script on a fresh default cluster with advances of uneven sizes, as
// the page's animation frames are, and ends at endMs.
func playScript(t *testing.T, endMs int64) *Bridge {
	t.Helper()
	b := started(t, "")
	now := int64(0)
	step := int64(777)
	for _, s := range script {
		for now < s.at {
			d := min(step, s.at-now)
			frameAt(t, b, "sim.advance", fmt.Sprintf(`{"ms":%d}`, d))
			now += d
			step = step*7%1900 + 100
		}
		must[ActBody](t, b, "sim.act", s.act)
	}
	frameAt(t, b, "sim.advance", fmt.Sprintf(`{"ms":%d}`, endMs-now))
	return b
}

func TestScrubBackAndForwardEqualsTheDirectRun(t *testing.T) {
	jsskip.CoveredNatively(t, "a scrubbed run against the direct one, both in this process")
	const end = 400_000
	b := playScript(t, end)
	direct := stateOf(t, b, "sim.frame", "")

	// Back to before most actions, to the middle, and forward again: each moment is the one
	// the direct run showed, and so is the end.
	for _, at := range []int64{42_000, 7_000, 95_000, 0, 399_999} {
		s := stateOf(t, b, "sim.seek", fmt.Sprintf(`{"timeMs":%d}`, at))
		ref := playScriptUntil(t, at)
		assert.Equal(t, ref.body, s.body, "state at %d ms after scrubbing", at)
		assert.Equal(t, ref.data, s.data, "partition arrays at %d ms after scrubbing", at)
	}
	back := stateOf(t, b, "sim.seek", fmt.Sprintf(`{"timeMs":%d}`, end))
	assert.Equal(t, direct, back, "scrubbing back and forward again gives the direct run's state")

	h := must[HistoryBody](t, b, "sim.history", "")
	assert.Len(t, h.Actions, len(script), "scrubbing alone rewrites nothing")
	assert.Equal(t, int64(end), h.HorizonMs)
	assert.True(t, h.Actions[len(script)-1].Applied)
}

// playScriptUntil is the direct run of the script up to at ms: the actions due by then, with
// the advances in one piece each.
func playScriptUntil(t *testing.T, at int64) state {
	t.Helper()
	b := started(t, "")
	now := int64(0)
	for _, s := range script {
		if s.at > at {
			break
		}
		frameAt(t, b, "sim.advance", fmt.Sprintf(`{"ms":%d}`, s.at-now))
		now = s.at
		must[ActBody](t, b, "sim.act", s.act)
	}
	return stateOf(t, b, "sim.advance", fmt.Sprintf(`{"ms":%d}`, at-now))
}

func TestAnActionAfterScrubbingBackRewritesTheFuture(t *testing.T) {
	b := playScript(t, 150_000)
	f, _ := frameAt(t, b, "sim.seek", `{"timeMs":35000}`)
	assert.Equal(t, int64(35_000), f.TimeMs)
	assert.Equal(t, int64(150_000), f.HorizonMs, "the timeline still ends where the run got to")
	before := f.History

	// Moving forward from here replays the recorded start of broker 1 at 40 s.
	f, _ = frameAt(t, b, "sim.seek", `{"timeMs":41000}`)
	assert.Contains(t, strings.Join(texts(f.Events), "\n"), "you started broker 1")
	frameAt(t, b, "sim.seek", `{"timeMs":35000}`)

	out := must[ActBody](t, b, "sim.act", `{"op":"kill","broker":3}`)
	assert.Equal(t, int64(35_000), out.TimeMs)
	assert.Equal(t, 8, out.Truncated, "the eight actions after 35 s are gone")
	h := must[HistoryBody](t, b, "sim.history", "")
	require.Len(t, h.Actions, 5)
	assert.Equal(t, ActionMark{TimeMs: 35_000, Op: "kill", Applied: true}, h.Actions[4])
	assert.Equal(t, int64(35_000), h.HorizonMs)
	assert.Greater(t, h.Version, before)

	// Broker 1 is not started at 40 s any more: the old future does not come back.
	f, _ = frameAt(t, b, "sim.advance", `{"ms":30000}`)
	assert.NotContains(t, strings.Join(texts(f.Events), "\n"), "you started broker 1")
	assert.Equal(t, "not_running", f.Brokers[0].State)
}

func TestExportReplaysWithTheCLIToTheSameState(t *testing.T) {
	jsskip.CoveredNatively(t, "the page's run against the CLI's run of its export, both in this process")
	const end = 400_000
	b := playScript(t, end)
	exp := must[ExportBody](t, b, "sim.export", "")
	assert.True(t, strings.HasPrefix(exp.Scenario, "{\n  \"seed\": 1,\n  \"duration_ms\": 400000,\n  \"cluster\": {\"controllers\":3,\"brokers\":[1,2,3,4],"), exp.Scenario)
	assert.Contains(t, exp.Scenario, `{"at_ms":30000,"op":"create_topic","name":"orders","partition_count":6,"replication_factor":2}`)
	assert.Contains(t, exp.Scenario, `{"at_ms":90000,"op":"elect_leaders","type":"preferred"}`)

	// kraftlab run's path: parse with the CLI's validation and run to duration_ms.
	sc, err := scenario.Parse([]byte(exp.Scenario))
	require.NoError(t, err)
	require.Len(t, sc.Cluster.Events, len(script))
	res, err := scenario.Run(sc)
	require.NoError(t, err)
	cr := res.Cluster
	for _, e := range cr.Events {
		assert.Nil(t, e.Error, "event %d (%s) was refused by the CLI run", e.Index, e.Op)
	}
	c := b.session.c
	var want []string
	for _, r := range c.Records() {
		if r.Offset >= int64(cr.SetupRecords) && r.Record.Type() != (metadata.NoOpRecord{}).Type() {
			want = append(want, fmt.Sprintf("%d@%d %s %s", r.Offset, r.TimeMs, r.Record.Type(), mustJSON(r.Record)))
		}
	}
	var got []string
	for _, r := range cr.Records {
		got = append(got, fmt.Sprintf("%d@%d %s %s", r.Offset, r.TimeMs, r.Record.Type(), mustJSON(r.Record)))
	}
	require.NotEmpty(t, want)
	assert.Equal(t, want, got, "the CLI run commits the page run's records, at the same offsets and times")
	assert.Len(t, cr.BalancerRuns, len(c.BalancerRuns()))

	// And the export opens in the page again at the same moment.
	b2 := New(Info{})
	lb := must[LoadBody](t, b2, "sim.load", fmt.Sprintf(`{"scenario":%s,"timeMs":%d}`, mustJSON(exp.Scenario), end))
	assert.Equal(t, int64(end), lb.HorizonMs)
	assert.Equal(t, len(script), lb.Actions)
	assert.Equal(t, stateOf(t, b, "sim.frame", ""), stateOf(t, b2, "sim.frame", ""))
	again := must[ExportBody](t, b2, "sim.export", "")
	assert.Equal(t, exp.Scenario, again.Scenario, "an export of the imported run is the same file")
}

func TestLoadPlaysTheScenariosEventsAsTimePasses(t *testing.T) {
	doc := `{"seed": 7, "duration_ms": 120000, "description": "kill and return",
		"cluster": {"brokers": 3, "topics": [{"name": "t", "partition_count": 6, "replication_factor": 3}]},
		"events": [{"at_ms": 60000, "op": "start", "broker": 0}, {"at_ms": 20000, "op": "kill", "broker": 0}]}`
	b := New(Info{})
	lb := must[LoadBody](t, b, "sim.load", fmt.Sprintf(`{"scenario":%s}`, doc))
	assert.Equal(t, StartBody{Seed: 7, Controllers: []int32{3000, 3001, 3002}, Brokers: []int32{0, 1, 2}, Topic: "t", Partitions: 6}, lb.StartBody)
	assert.Equal(t, int64(120_000), lb.HorizonMs)
	f, _ := frameAt(t, b, "sim.advance", `{"ms":30000}`)
	assert.Contains(t, strings.Join(texts(f.Events), "\n"), "you killed broker 0")
	assert.Equal(t, "not_running", f.Brokers[0].State)
	h := must[HistoryBody](t, b, "sim.history", "")
	assert.Equal(t, []ActionMark{{20_000, "kill", true}, {60_000, "start", false}}, h.Actions, "sorted by time")
	exp := must[ExportBody](t, b, "sim.export", "")
	assert.Contains(t, exp.Scenario, `"description": "kill and return"`)
	assert.Contains(t, exp.Scenario, "\n    {\"at_ms\":20000,\"op\":\"kill\",\"broker\":0},\n    {\"at_ms\":60000,")
}

func TestLoadRefusesBadScenariosNamingTheField(t *testing.T) {
	b := started(t, "")
	good := `{"seed":1,"duration_ms":1000,"cluster":{"brokers":3,"topics":[{"name":"t","partition_count":3,"replication_factor":3}]}`
	for _, c := range []struct{ body, want string }{
		{`{}`, "scenario: required"},
		{`{"scenario":"{\"seed\":"}`, "invalid JSON"},
		{`{"scenario":` + good + `,"events":[{"at_ms":1,"op":"explode"}]}}`, `events[0].op: unknown op "explode"`},
		{`{"scenario":{"mode":"controller","brokers":[{"id":1}]}}`, "mode: the playground runs cluster-mode scenarios"},
		{`{"scenario":{"seed":1,"duration_ms":1000,"cluster":{"brokers":3,"topics":[{"name":"t","partition_count":100001,"replication_factor":3}]}}}`,
			"cluster.topics[0]: 100,001 partitions in all are too many for the page; allowed: up to 100,000"},
		{`{"scenario":{"seed":1,"duration_ms":1000,"cluster":{"brokers":65,"topics":[{"name":"t","partition_count":3,"replication_factor":3}]}}}`,
			"cluster.brokers: 65 brokers are too many for the page; allowed: 1 to 64"},
		{`{"scenario":` + good + `}, "timeMs": -1}`, "timeMs: -1 is not allowed"},
		{`{"scenario":"` + strings.Repeat("x", MaxScenarioBytes+1) + `"}`, "scenario: 1,048,577 bytes is too large; allowed: up to 1,048,576 bytes"},
		// Each limit holds alone; their product is held too: a long replay of a large cluster
		// is refused before anything runs, naming the longest the page replays for it.
		{`{"scenario":{"seed":1,"duration_ms":1000,"cluster":{"brokers":64,"topics":[{"name":"t","partition_count":100000,"replication_factor":3}]}},"replayToMs":604800000}`,
			"replayToMs: replaying 7 days of a cluster of 100,000 partitions is more than the page can do in reasonable time; allowed for this cluster: up to 36 h 31 min"},
		{`{"scenario":{"seed":1,"duration_ms":1000,"cluster":{"brokers":64,"topics":[{"name":"t","partition_count":100000,"replication_factor":3}]}},"timeMs":604800000}`,
			"replayToMs: replaying 7 days"},
		{`{"scenario":` + good + `},"replayToMs":604800001}`, "replayToMs: 604800001 is not allowed; allowed: 0 to 604,800,000"},
	} {
		e := failure(t, b, "sim.load", c.body)
		assert.Contains(t, e.Message, c.want, c.body[:min(len(c.body), 120)])
	}
	// The running cluster is untouched by a refused load.
	f, _ := frameAt(t, b, "sim.frame", "")
	assert.Len(t, f.Brokers, 4)
	// 7 days of the default cluster is within the limit: the page replays it in slices.
	must[LoadBody](t, b, "sim.load", `{"scenario":`+good+`},"replayToMs":604800000}`)
}

func TestStepToTheNextEventAndRun(t *testing.T) {
	b := started(t, "")
	frameAt(t, b, "sim.frame", "")
	must[ActBody](t, b, "sim.act", `{"op":"kill","broker":1}`)
	frameAt(t, b, "sim.frame", "") // the kill's own sentence
	f, _ := frameAt(t, b, "sim.step", `{"to":"event"}`)
	require.NotEmpty(t, f.Events)
	assert.Contains(t, strings.Join(texts(f.Events), "\n"), "broker 1 fenced: no heartbeat")
	// Fenced 9.0–10.1 s after the last heartbeat; the step reads the log every 100 ms.
	assert.GreaterOrEqual(t, f.TimeMs, int64(9_000))
	assert.LessOrEqual(t, f.TimeMs, int64(10_300))

	f, _ = frameAt(t, b, "sim.step", `{"to":"run"}`)
	require.NotNil(t, f.LastRun)
	assert.Equal(t, f.TimeMs, f.LastRun.TimeMs, "it stops at the run")
	// Today's first electPreferred runs one interval (300 s) after activation, a moment
	// before cluster time 0.
	assert.Greater(t, f.LastRun.TimeMs, int64(290_000))
	assert.LessOrEqual(t, f.LastRun.TimeMs, int64(300_000))
	assert.Equal(t, "bad_request", failure(t, b, "sim.step", `{"to":"lunch"}`).Code)

	b = started(t, `{"configs":{"auto.leader.rebalance.enable":false}}`)
	assert.Contains(t, failure(t, b, "sim.step", `{"to":"run"}`).Message, "no electPreferred run is scheduled")
}

func TestNewActionsValidateAndSayWhatHappened(t *testing.T) {
	b := started(t, "")
	for body, want := range map[string]string{
		`{"op":"slow_disk","broker":1}`:                                                 "factor: required for slow_disk",
		`{"op":"slow_disk","broker":1,"factor":1.5}`:                                    "factor: 1.5 is not allowed",
		`{"op":"cut","a":"broker-1"}`:                                                   "a: cut needs two nodes",
		`{"op":"cut","a":"broker-1","b":"broker-9"}`:                                    `"broker-9" is not a broker of this cluster`,
		`{"op":"create_topic","topic":"x","partitions":0,"replicationFactor":3}`:        "partitions: 0 is not allowed; allowed: 1 to 99,988",
		`{"op":"create_topic","topic":"x","partitions":3,"replicationFactor":5}`:        "replicationFactor: 5 is not allowed; allowed: 1 to 4",
		`{"op":"create_topic","topic":"a b","partitions":3,"replicationFactor":3}`:      "topic: ",
		`{"op":"create_topic","topic":"payments","partitions":3,"replicationFactor":3}`: `topic: topic "payments" already exists`,
		`{"op":"delete_topic","topic":"nope"}`:                                          `topic: no topic "nope" (topics: payments)`,
		`{"op":"elect_leaders","election":"random"}`:                                    `election: "random" is not allowed; allowed: preferred, unclean`,
	} {
		assert.Contains(t, failure(t, b, "sim.act", body).Message, want, body)
	}
	assert.Empty(t, must[HistoryBody](t, b, "sim.history", "").Actions, "refused actions are not recorded")

	// Broker 1 leaves and comes back in sync; a preferred election (as
	// kafka-leader-election.sh --election-type PREFERRED --all-topic-partitions) returns its
	// leaderships at once, long before electPreferred's first run.
	must[ActBody](t, b, "sim.act", `{"op":"shutdown","broker":1}`)
	frameAt(t, b, "sim.advance", `{"ms":10000}`)
	must[ActBody](t, b, "sim.act", `{"op":"start","broker":1}`)
	var rejoin []string
	for i := 0; i < 25; i++ {
		f, _ := frameAt(t, b, "sim.advance", `{"ms":10000}`)
		rejoin = append(rejoin, texts(f.Events)...)
		if f.Brokers[0].OutOfSync == 0 && !f.Brokers[0].Fenced {
			break
		}
	}
	f, _ := frameAt(t, b, "sim.frame", "")
	require.Zero(t, f.Brokers[0].OutOfSync, "broker 1 is back in every ISR")
	// A follower rejoins when its log end reaches the leader's high watermark (and the
	// leader-epoch start): Partition.isFollowerInSync, not the leader's log end.
	assert.Contains(t, strings.Join(rejoin, "\n"), "rejoined the ISR")
	assert.Contains(t, strings.Join(rejoin, "\n"), "high watermark")
	require.Nil(t, f.LastRun, "before electPreferred's first run")
	out := must[ActBody](t, b, "sim.act", `{"op":"elect_leaders"}`)
	require.Len(t, out.Elections, 3)
	for _, e := range out.Elections {
		assert.Empty(t, e.Error)
	}
	f, _ = frameAt(t, b, "sim.advance", `{"ms":1000}`) // the election's records commit
	text := strings.Join(texts(f.Events), "\n")
	assert.Contains(t, text, "you ran a preferred leader election (--all-topic-partitions): Successfully completed leader election (PREFERRED) for partitions payments-")
	assert.Equal(t, 3, f.Brokers[0].Leaders)

	must[ActBody](t, b, "sim.act", `{"op":"slow_disk","broker":2,"factor":0.25}`)
	must[ActBody](t, b, "sim.act", `{"op":"cut","a":"broker-3","b":"producers"}`)
	must[ActBody](t, b, "sim.act", `{"op":"create_topic","topic":"orders","partitions":4,"replicationFactor":2}`)
	f, _ = frameAt(t, b, "sim.advance", `{"ms":1000}`)
	text = strings.Join(texts(f.Events), "\n")
	assert.Contains(t, text, "you slowed broker 2's disk to 25 % of its capacity")
	assert.Contains(t, text, "you cut the network between broker-3 and producers")
	assert.Contains(t, text, "you created topic orders with 4 partitions at replication factor 2")
	assert.Equal(t, 16, f.Partitions.Count)
	assert.Equal(t, 0.25, f.Brokers[1].DiskFactor, "the frame shows the slowed disk")
	assert.Zero(t, f.Brokers[0].DiskFactor)
	assert.Equal(t, [][2]string{{"broker-3", "producers"}}, f.Cuts)
	must[ActBody](t, b, "sim.act", `{"op":"heal","a":"producers","b":"broker-3"}`)
	f, _ = frameAt(t, b, "sim.frame", "")
	assert.Empty(t, f.Cuts, "healed, in either order of the nodes")
	must[ActBody](t, b, "sim.act", `{"op":"delete_topic","topic":"orders"}`)
	out = must[ActBody](t, b, "sim.act", `{"op":"elect_leaders","targets":[{"topic":"orders","partition":0}]}`)
	require.Len(t, out.Elections, 1)
	assert.Equal(t, "UNKNOWN_TOPIC_OR_PARTITION", out.Elections[0].Error)
	f, _ = frameAt(t, b, "sim.advance", `{"ms":1000}`)
	assert.Contains(t, strings.Join(texts(f.Events), "\n"), "Error completing leader election (PREFERRED) for orders-0: UNKNOWN_TOPIC_OR_PARTITION")
}

func TestSeedsStayInTheScenarioFormatsRange(t *testing.T) {
	b := New(Info{})
	assert.Equal(t, "seed: 9223372036854775808 is not allowed; allowed: 0 to 9223372036854775807 (the scenario format's range)",
		failure(t, b, "sim.start", `{"seed":9223372036854775808}`).Message)
}

func TestExportIsStableText(t *testing.T) {
	b := started(t, `{"seed":42,"brokers":3,"partitions":6,"configs":{"min.insync.replicas":2,"leader.imbalance.election.algorithm":"wait-for-sync"}}`)
	frameAt(t, b, "sim.advance", `{"ms":1500}`)
	must[ActBody](t, b, "sim.act", `{"op":"kill","broker":2}`)
	exp := must[ExportBody](t, b, "sim.export", "")
	assert.Equal(t, `{
  "seed": 42,
  "duration_ms": 1500,
  "config": {"leader.imbalance.election.algorithm":"wait-for-sync","min.insync.replicas":2},
  "cluster": {"controllers":3,"brokers":[1,2,3],"topics":[{"name":"payments","partition_count":6,"replication_factor":3}]},
  "events": [
    {"at_ms":1500,"op":"kill","broker":2}
  ]
}
`, exp.Scenario)
	assert.True(t, json.Valid([]byte(exp.Scenario)))
	assert.False(t, bytes.Contains([]byte(exp.Scenario), []byte("\t")))
}

// BenchmarkReplay30Min measures what a scrub costs when no checkpoint helps: a rebuild of the
// default cluster and a replay of 30 minutes of cluster time with a kill and a start in it
// (make bench-wasm runs it under Node too).
func BenchmarkReplay30Min(b *testing.B) {
	br := New(Info{})
	if r, _ := br.Handle([]byte(`{"id":1,"type":"sim.start"}`)); !bytes.Contains(r, []byte(`"ok":true`)) {
		b.Fatal(string(r))
	}
	for _, m := range []string{`{"id":2,"type":"sim.advance","body":{"ms":60000}}`, `{"id":3,"type":"sim.act","body":{"op":"kill","broker":1}}`,
		`{"id":4,"type":"sim.advance","body":{"ms":60000}}`, `{"id":5,"type":"sim.act","body":{"op":"start","broker":1}}`} {
		br.Handle([]byte(m))
	}
	for b.Loop() {
		br.Handle([]byte(`{"id":6,"type":"sim.seek","body":{"timeMs":0}}`))
		br.Handle([]byte(`{"id":7,"type":"sim.seek","body":{"timeMs":1800000}}`))
	}
}

func TestAdvanceStopsAtTheEndOfClusterTimeWithAWord(t *testing.T) {
	defer func(ms int64) { maxClusterMs = ms }(maxClusterMs)
	maxClusterMs = 20_000 // the page's 7 days, shortened
	b := started(t, "")
	var notes []string
	for range 5 {
		f, _ := frameAt(t, b, "sim.advance", `{"ms":10000,"layout":0}`)
		assert.LessOrEqual(t, f.TimeMs, int64(20_000))
		for _, e := range f.Events {
			if e.Kind == KindNotice {
				notes = append(notes, e.Text)
			}
		}
	}
	f, _ := frameAt(t, b, "sim.frame", "")
	assert.Equal(t, int64(20_000), f.TimeMs, "played on past the end, the time stays there")
	require.Len(t, notes, 1, "said once")
	assert.Contains(t, notes[0], "the run reached 20,000 ms (7 days) of cluster time, the page's limit: it stops here")
}
