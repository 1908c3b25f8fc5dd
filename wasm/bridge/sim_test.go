package bridge

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kraftlab/kraftlab/engine/metadata"
)

// handle sends one request and returns the raw reply envelope and attachment.
func handle(t *testing.T, b *Bridge, typ, body string) (Reply, json.RawMessage, []byte) {
	t.Helper()
	msg := fmt.Sprintf(`{"id":1,"type":%q}`, typ)
	if body != "" {
		msg = fmt.Sprintf(`{"id":1,"type":%q,"body":%s}`, typ, body)
	}
	out, data := b.Handle([]byte(msg))
	var env struct {
		Reply
		Body json.RawMessage `json:"body"`
	}
	require.NoError(t, json.Unmarshal(out, &env), "reply must be JSON: %s", out)
	if data != nil {
		data = slices.Clone(data) // it aliases the encoder's buffer until the next Handle
	}
	return env.Reply, env.Body, data
}

func must[T any](t *testing.T, b *Bridge, typ, body string) T {
	t.Helper()
	r, raw, _ := handle(t, b, typ, body)
	require.True(t, r.OK, "%s failed: %+v", typ, r.Error)
	var v T
	require.NoError(t, json.Unmarshal(raw, &v))
	return v
}

func failure(t *testing.T, b *Bridge, typ, body string) *Error {
	t.Helper()
	r, _, _ := handle(t, b, typ, body)
	require.False(t, r.OK, "%s %s should fail", typ, body)
	require.NotNil(t, r.Error)
	return r.Error
}

// frameAt advances and returns the frame with its attachment.
func frameAt(t *testing.T, b *Bridge, typ, body string) (Frame, []byte) {
	t.Helper()
	r, raw, data := handle(t, b, typ, body)
	require.True(t, r.OK, "%s failed: %+v", typ, r.Error)
	var f Frame
	require.NoError(t, json.Unmarshal(raw, &f))
	require.Equal(t, len(data), r.Data, "the envelope announces the attachment's length")
	return f, data
}

// decoded is one partition as the page decodes the attachment.
type decoded struct {
	leader             int32 // broker id, -1 for none
	isr, elr, lke      []int32
	replicas           []int32
	recovering, delete bool
}

// decodeFrame reads the attachment the way web/ts/frame.ts does; replicas come from layout,
// the attachment of a frame that carried the layout.
func decodeFrame(t *testing.T, f Frame, data, layout []byte, layoutInfo PartitionsInfo) []decoded {
	t.Helper()
	pi := f.Partitions
	require.Equal(t, pi.Count*8+max(0, pi.Count*pi.Stride*boolInt(pi.Replicas >= 0)), len(data))
	out := make([]decoded, pi.Count)
	for i := range out {
		row := layout[layoutInfo.Replicas+layoutInfo.Stride*i : layoutInfo.Replicas+layoutInfo.Stride*(i+1)]
		var reps []int32
		for _, slot := range row {
			if slot != NoSlot {
				reps = append(reps, f.Brokers[slot].ID)
			}
		}
		d := decoded{replicas: reps, leader: -1}
		word := binary.LittleEndian.Uint32(data[pi.Isr+4*i:])
		for k := 0; k < 8; k++ {
			nib := (word >> (4 * k)) & 0xF
			if nib == 0 {
				break
			}
			d.isr = append(d.isr, reps[nib-1])
		}
		st := data[pi.State+4*i : pi.State+4*i+4]
		if st[0] != NoSlot {
			d.leader = reps[st[0]]
		}
		for k, b := range reps {
			if st[1]&(1<<k) != 0 {
				d.elr = append(d.elr, b)
			}
			if st[2]&(1<<k) != 0 {
				d.lke = append(d.lke, b)
			}
		}
		d.recovering, d.delete = st[3]&FlagRecovering != 0, st[3]&FlagDeleted != 0
		out[i] = d
	}
	return out
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

func started(t *testing.T, body string) *Bridge {
	t.Helper()
	b := New(Info{})
	must[StartBody](t, b, "sim.start", body)
	return b
}

func TestSimStartDefaultsAndSpec(t *testing.T) {
	b := New(Info{})
	s := must[StartBody](t, b, "sim.start", "")
	assert.Equal(t, StartBody{TimeMs: 0, Seed: DefaultSeed, Controllers: []int32{3000, 3001, 3002}, Brokers: []int32{1, 2, 3, 4},
		Topic: "payments", Partitions: DefaultPartitions}, s)
	f, _ := frameAt(t, b, "sim.frame", "")
	assert.Equal(t, []LogEvent{{TimeMs: 0, Kind: KindAction,
		Text: "cluster started with seed 1: 3 controllers, brokers 1, 2, 3 and 4, topic payments with 12 partitions at replication factor 3"}}, f.Events)

	s = must[StartBody](t, b, "sim.start", `{"seed":9223372036854775807,"controllers":5,"brokers":6,"partitions":60,"replicationFactor":3,"configs":{"min.insync.replicas":"2"}}`)
	assert.Equal(t, uint64(9223372036854775807), s.Seed, "seeds are exact beyond 2^53")
	// The page sends such a seed as its decimal text: a JavaScript number cannot hold it.
	assert.Equal(t, uint64(9007199254740993), must[StartBody](t, New(Info{}), "sim.start", `{"seed":"9007199254740993"}`).Seed)
	assert.Len(t, s.Controllers, 5)
	assert.Equal(t, []int32{1, 2, 3, 4, 5, 6}, s.Brokers)
	f, _ = frameAt(t, b, "sim.frame", "")
	assert.Equal(t, "cluster started with seed 9223372036854775807: 5 controllers, brokers 1, 2, 3, 4, 5 and 6, topic payments with 60 partitions at replication factor 3; static configs min.insync.replicas=2", f.Events[0].Text)
	assert.Equal(t, 60, f.Partitions.Count)
	assert.Equal(t, 3, f.Partitions.Stride)
	for _, br := range f.Brokers {
		assert.Equal(t, 30, br.Replicas, "60 partitions × RF 3 over 6 brokers")
		assert.Equal(t, 10, br.Preferred)
		assert.Equal(t, 10, br.Leaders)
		assert.Equal(t, "running", br.State)
		assert.False(t, br.Fenced)
	}
}

func TestSimStartErrorsNameTheField(t *testing.T) {
	b := New(Info{})
	cases := map[string]string{
		`{"brokers":65}`:                      "brokers: 65 is not allowed; allowed: 1 to 64",
		`{"brokers":-1}`:                      "brokers: -1 is not allowed",
		`{"partitions":100001}`:               "partitions: 100001 is not allowed; allowed: 1 to 100,000",
		`{"brokers":2,"replicationFactor":3}`: "replicationFactor: 3 is not allowed; allowed: 1 to 2",
		`{"controllers":2}`:                   "controllers: 2 is not allowed; a KRaft quorum here has 1, 3 or 5 voters",
		`{"topic":"bad topic!"}`:              `topic: INVALID_TOPIC_EXCEPTION: Topic name "bad topic!" is illegal`,
		`{"configs":{"leader.imbalance.election.wait.for.sync.threshold.percent":105}}`: `configs["leader.imbalance.election.wait.for.sync.threshold.percent"]: Invalid value 105 for configuration leader.imbalance.election.wait.for.sync.threshold.percent: Value must be no more than 100`,
		`{"configs":{"min.insync.replica":2}}`:                                          `configs["min.insync.replica"]: Unknown configuration "min.insync.replica" (did you mean "min.insync.replicas"?)`,
		// Two bad configs: the first in name order is reported, whatever the map order.
		`{"configs":{"z.unknown":1,"a.unknown":1}}`: `configs["a.unknown"]`,
	}
	for body, want := range cases {
		e := failure(t, b, "sim.start", body)
		assert.Equal(t, CodeFailed, e.Code, body)
		assert.Contains(t, e.Message, want, body)
	}
	e := failure(t, b, "sim.start", `{"brokerz":3}`)
	assert.Equal(t, CodeBadRequest, e.Code)
	assert.Contains(t, e.Message, `unknown field "brokerz"`)
}

func TestSimMessagesBeforeStart(t *testing.T) {
	b := New(Info{})
	for _, typ := range []string{"sim.advance", "sim.frame"} {
		assert.Contains(t, failure(t, b, typ, "").Message, "send sim.start first", typ)
	}
	assert.Contains(t, failure(t, b, "sim.act", `{"op":"kill","broker":1}`).Message, "send sim.start first")
}

func TestFrameArraysMatchTheCommittedImage(t *testing.T) {
	b := started(t, `{"brokers":5,"partitions":40,"seed":7}`)
	must[ActBody](t, b, "sim.act", `{"op":"kill","broker":2}`)
	f, data := frameAt(t, b, "sim.advance", `{"ms":20000}`)
	require.GreaterOrEqual(t, f.Partitions.Replicas, 0, "the first frame carries the layout")
	require.NotEmpty(t, f.Partitions.Topics)
	assert.Equal(t, TopicInfo{Name: "payments", ID: f.Partitions.Topics[0].ID, First: 0, Count: 40}, f.Partitions.Topics[0])

	view := b.session.c.View()
	got := decodeFrame(t, f, data, data, f.Partitions)
	require.Len(t, got, len(view.Partitions))
	sawShrunk := false
	for i := range view.Partitions {
		p := &view.Partitions[i]
		assert.Equal(t, p.Replicas(), got[i].replicas, "partition %d replicas", i)
		assert.Equal(t, p.Leader, got[i].leader, "partition %d leader", i)
		assert.Equal(t, p.Isr(), got[i].isr, "partition %d ISR, in Kafka's order", i)
		assert.ElementsMatch(t, p.Elr(), got[i].elr, "partition %d ELR", i)
		assert.ElementsMatch(t, p.LastKnownElr(), got[i].lke, "partition %d LastKnownElr", i)
		sawShrunk = sawShrunk || len(p.Isr()) < len(p.Replicas())
	}
	assert.True(t, sawShrunk, "broker 2 was fenced and left ISRs, so the test compared interesting state")
	assert.Equal(t, 0, f.Brokers[1].Leaders, "the fenced broker leads nothing")
	assert.Equal(t, f.Brokers[1].Replicas, f.Brokers[1].OutOfSync)

	// The page holds this layout now: the next frame leaves it out.
	next, data2 := frameAt(t, b, "sim.advance", fmt.Sprintf(`{"ms":100,"layout":%d}`, f.Partitions.Layout))
	assert.Equal(t, -1, next.Partitions.Replicas)
	assert.Empty(t, next.Partitions.Topics)
	assert.Len(t, data2, 8*40)
	assert.Equal(t, f.Partitions.Layout, next.Partitions.Layout)
	// A page with another layout gets it again.
	again, _ := frameAt(t, b, "sim.frame", `{"layout":99}`)
	assert.GreaterOrEqual(t, again.Partitions.Replicas, 0)
}

func TestKillFencesAfterTheSessionTimeoutAndLeadershipsMove(t *testing.T) {
	b := started(t, `{"brokers":4,"partitions":12}`)
	frameAt(t, b, "sim.advance", `{"ms":30000}`)
	before, _ := frameAt(t, b, "sim.frame", "")
	require.Equal(t, 3, before.Brokers[0].Leaders, "broker 1 leads its 3 preferred partitions")

	act := must[ActBody](t, b, "sim.act", `{"op":"kill","broker":1}`)
	assert.Equal(t, int64(30000), act.TimeMs)
	require.NotNil(t, act.LastHeartbeatMs)
	hb := *act.LastHeartbeatMs
	assert.Greater(t, hb, int64(30000-2000-1), "a running broker heartbeats every 2 s")
	assert.LessOrEqual(t, hb, int64(30000))

	var fencedAt int64 = -1
	var fenceText string
	var log []LogEvent
	for i := 0; i < 150 && fencedAt < 0; i++ {
		f, _ := frameAt(t, b, "sim.advance", `{"ms":100,"layout":1}`)
		log = append(log, f.Events...)
		for _, e := range f.Events {
			if e.Kind == KindBroker && strings.HasPrefix(e.Text, "broker 1 fenced") {
				fencedAt, fenceText = e.TimeMs, e.Text
			}
		}
		if f.Brokers[0].Fenced {
			require.GreaterOrEqual(t, fencedAt, int64(0), "the fence is in the log of the frame that shows it")
		}
	}
	require.GreaterOrEqual(t, fencedAt, int64(0), "broker 1 was fenced within 15 s")
	assert.GreaterOrEqual(t, fencedAt-hb, int64(9000), "not before broker.session.timeout.ms")
	assert.LessOrEqual(t, fencedAt-hb, int64(10125+50), "within one maybeFenceStaleBroker period (1,125 ms) plus the commit")
	assert.Equal(t, fmt.Sprintf("broker 1 fenced: no heartbeat for %s ms (broker.session.timeout.ms is 9,000 ms)", thousands(fencedAt-hb)), fenceText)

	texts := texts(log)
	assert.Contains(t, texts[0], "you killed broker 1 (as kill -9)")
	assert.Contains(t, strings.Join(texts, "\n"), "left the ISR of 9 partitions because it was fenced")
	assert.Regexp(t, `moved from broker 1 to broker \d because broker 1 was fenced`, strings.Join(texts, "\n"))

	after, _ := frameAt(t, b, "sim.frame", "")
	assert.Equal(t, 0, after.Brokers[0].Leaders)
	assert.True(t, after.Brokers[0].Fenced)
	assert.Equal(t, "not_running", after.Brokers[0].State)
	assert.Equal(t, 0, after.Partitions.Offline, "every partition found another leader")
	total := 0
	for _, br := range after.Brokers {
		total += br.Leaders
	}
	assert.Equal(t, 12, total)
}

// A broker killed in the run's first second has been heard from only at its registration,
// before time zero: the controller still knows when, and the fence says how long it was silent.
func TestKillBeforeTheFirstHeartbeatNamesTheSilence(t *testing.T) {
	b := started(t, `{"brokers":4,"partitions":12}`)
	act := must[ActBody](t, b, "sim.act", `{"op":"kill","broker":1}`)
	require.NotNil(t, act.LastHeartbeatMs, "the registration at start-up is a contact")
	hb := *act.LastHeartbeatMs
	assert.Less(t, hb, int64(0), "the registration was before time zero")
	var fenceText string
	for i := 0; i < 150 && fenceText == ""; i++ {
		f, _ := frameAt(t, b, "sim.advance", `{"ms":100,"layout":1}`)
		for _, e := range f.Events {
			if e.Kind == KindBroker && strings.HasPrefix(e.Text, "broker 1 fenced") {
				fenceText = e.Text
				assert.Equal(t, fmt.Sprintf("broker 1 fenced: no heartbeat for %s ms (broker.session.timeout.ms is 9,000 ms)", thousands(e.TimeMs-hb)), e.Text)
			}
		}
	}
	require.NotEmpty(t, fenceText, "broker 1 was fenced within 15 s")
}

func texts(evs []LogEvent) []string {
	out := make([]string, len(evs))
	for i, e := range evs {
		out[i] = e.Text
	}
	return out
}

func TestActErrorsUseTheClustersWording(t *testing.T) {
	b := started(t, "")
	cases := map[string]string{
		`{"op":"explode","broker":1}`:                                `op: "explode" is not an action the playground offers; allowed: kill, start, shutdown, disk_swap, slow_disk, kill_controller, start_controller, cut, heal, set_config, create_topic, delete_topic, elect_leaders and snapshot`,
		`{"op":"kill"}`:                                              "broker: required for kill",
		`{"op":"kill","broker":9}`:                                   "broker: broker 9 does not exist (brokers: 1, 2, 3, 4)",
		`{"op":"kill_controller"}`:                                   "controller: required for kill_controller",
		`{"op":"start_controller","controller":"42"}`:                `controller: "42" is not a controller id (controllers: 3000, 3001, 3002, or "active")`,
		`{"op":"set_config","value":1}`:                              "name: required for set_config",
		`{"op":"set_config","name":"min.insync.replicas","value":0}`: "value: Invalid value 0 for configuration min.insync.replicas: Value must be at least 1",
		`{"op":"set_config","name":"leader.imbalance.election.max.per.runs","value":5}`:   `name: Unknown configuration "leader.imbalance.election.max.per.runs" (did you mean "leader.imbalance.election.max.per.run"?)`,
		`{"op":"set_config","name":"leader.imbalance.check.interval.seconds","value":10}`: "Cannot update these configs dynamically",
	}
	for body, want := range cases {
		e := failure(t, b, "sim.act", body)
		assert.Contains(t, e.Message, want, body)
	}
	assert.Equal(t, CodeBadRequest, failure(t, b, "sim.act", `{"op":"kill","broker":"one"}`).Code)
	assert.Equal(t, CodeBadRequest, failure(t, b, "sim.advance", `{"ms":-5}`).Code)
	assert.Equal(t, CodeBadRequest, failure(t, b, "sim.advance", `{"ms":86400001}`).Code)
	// Nothing above changed the cluster: no action reached the log after the start line.
	f, _ := frameAt(t, b, "sim.frame", "")
	for _, e := range f.Events[1:] {
		assert.NotEqual(t, KindAction, e.Kind, e.Text)
	}
}

func TestSetConfigTakesEffect(t *testing.T) {
	// electPreferred every 60 s (a static config, set at start), and a cap of 2 elections per
	// run set while the cluster runs: broker 1, preferred for 3 partitions, shut down cleanly
	// and started again, gets them back 2 in one run and 1 in the next, 10 ms later.
	b := started(t, `{"brokers":4,"partitions":12,"configs":{"leader.imbalance.check.interval.seconds":"60"}}`)
	must[ActBody](t, b, "sim.act", `{"op":"set_config","name":"leader.imbalance.election.max.per.run","value":2}`)
	f, _ := frameAt(t, b, "sim.advance", `{"ms":1000}`)
	assert.Contains(t, texts(f.Events), "you set leader.imbalance.election.max.per.run to 2 for the cluster")
	assert.Contains(t, texts(f.Events), "leader.imbalance.election.max.per.run is now 2 for the cluster (a ConfigRecord in the metadata log)")
	assert.Equal(t, []ConfigState{
		{Name: "leader.imbalance.check.interval.seconds", Value: "60", Source: "static"},
		{Name: "leader.imbalance.election.max.per.run", Value: "2", Source: "log"},
	}, f.Configs)

	must[ActBody](t, b, "sim.act", `{"op":"shutdown","broker":1}`)
	f, _ = frameAt(t, b, "sim.advance", `{"ms":10000}`)
	require.Equal(t, "not_running", f.Brokers[0].State)
	assert.Contains(t, strings.Join(texts(f.Events), "\n"), "broker 1 fenced: its controlled shutdown is complete")
	must[ActBody](t, b, "sim.act", `{"op":"start","broker":1}`)
	var runs []LogEvent
	for i := 0; i < 60 && f.Brokers[0].PreferredLed < 3; i++ {
		f, _ = frameAt(t, b, "sim.advance", `{"ms":5000}`)
		for _, e := range f.Events {
			if e.Kind == KindBalancer && e.Partitions > 0 {
				runs = append(runs, e)
			}
		}
	}
	require.Equal(t, 3, f.Brokers[0].PreferredLed, "leadership came back")
	require.Len(t, runs, 2, "two runs: the cap split the three elections")
	assert.Equal(t, "electPreferred elected 2 partitions (2 to broker 1); the cap (max.per.run 2) left 1 for the next run; next run in 10 ms", runs[0].Text)
	assert.Equal(t, runs[0].TimeMs+10, runs[1].TimeMs)
	assert.Regexp(t, `^electPreferred elected 1 partition \(1 to broker 1\); next run in (59\.99|60) s$`, runs[1].Text)
	require.NotNil(t, f.LastRun)
	assert.Equal(t, 2, f.LastRun.MaxPerRun)
}

func TestSameRequestsGiveTheSameFrames(t *testing.T) {
	run := func(seed int) (frames [][]byte) {
		b := New(Info{})
		must[StartBody](t, b, "sim.start", fmt.Sprintf(`{"seed":%d,"brokers":3,"partitions":30}`, seed))
		for i, step := range []string{`{"ms":5000}`, `{"ms":20000}`, `{"ms":60000}`} {
			if i == 1 {
				must[ActBody](t, b, "sim.act", `{"op":"kill","broker":3}`)
			}
			out, data := b.Handle([]byte(`{"id":1,"type":"sim.advance","body":` + step + `}`))
			frames = append(frames, append(out, data...))
		}
		return frames
	}
	a, again, other := run(3), run(3), run(4)
	assert.Equal(t, a, again, "byte-identical frames for the same seed and actions")
	assert.NotEqual(t, a, other, "another seed gives another run")
}

func TestControllerFailover(t *testing.T) {
	b := started(t, `{"brokers":3,"partitions":6}`)
	f, _ := frameAt(t, b, "sim.advance", `{"ms":1000}`)
	var active int32 = -1
	for _, c := range f.Controllers {
		if c.Active {
			active = c.ID
			assert.Equal(t, "leader", c.Role)
		}
	}
	require.NotEqual(t, int32(-1), active)
	must[ActBody](t, b, "sim.act", `{"op":"kill_controller","controller":"active"}`)
	f, _ = frameAt(t, b, "sim.advance", `{"ms":15000}`)
	var now int32 = -1
	for _, c := range f.Controllers {
		if c.Active {
			now = c.ID
		}
		if c.ID == active {
			assert.False(t, c.Running)
		}
	}
	assert.NotEqual(t, active, now, "another controller took over")
	joined := strings.Join(texts(f.Events), "\n")
	assert.Contains(t, joined, fmt.Sprintf("you killed controller %d, the active controller", active))
	assert.Contains(t, joined, fmt.Sprintf("controller %d leads the metadata quorum in epoch", now))
	must[ActBody](t, b, "sim.act", fmt.Sprintf(`{"op":"start_controller","controller":"%d"}`, active))
}

func TestCrowdedFramesAreCapped(t *testing.T) {
	l := &eventLog{s: &live{}}
	for i := 0; i < maxFrameEvents+50; i++ {
		l.pending = append(l.pending, LogEvent{TimeMs: int64(i), Kind: KindAction, Text: "x"})
	}
	evs, dropped := l.drain()
	assert.Len(t, evs, maxFrameEvents)
	assert.Equal(t, 51, dropped)
	assert.Equal(t, KindNotice, evs[len(evs)-1].Kind)
	assert.Equal(t, "51 more events in this frame were left out; slow down to see them all", evs[len(evs)-1].Text)
}

func TestFormatting(t *testing.T) {
	assert.Equal(t, "0", thousands(0))
	assert.Equal(t, "9,875", thousands(9875))
	assert.Equal(t, "-1,234,567", thousands(-1234567))
	assert.Equal(t, "10 ms", duration(10))
	assert.Equal(t, "9,999 ms", duration(9999))
	assert.Equal(t, "300 s", duration(300_000))
	assert.Equal(t, "12.5 s", duration(12_500))
	assert.Equal(t, "a, b and c", joinList([]string{"a", "b", "c"}))
	assert.Equal(t, "payments-0, payments-1, payments-2 and 2 more",
		examples([]string{"payments-0", "payments-1", "payments-2", "payments-3", "payments-4"}))
	_ = metadata.NoLeader
}
