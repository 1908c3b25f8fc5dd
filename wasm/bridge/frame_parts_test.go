package bridge

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kraftlab/kraftlab/internal/jsskip"
)

// partsRun drives a session through a seeded random sequence of the page's messages and,
// after each, checks the frames the incremental encoder builds against a full encode of the
// same state.
type partsRun struct {
	t   *testing.T
	rng *rand.Rand
	b   *Bridge
	// page and whole are encoders of the test's own, each asked for a frame once a step, so
	// that each frame spans the whole step's changes: page as the page asks (with the layout it
	// got last), whole always for the layout.
	page, whole *frameEncoder
	pageLayout  int
	// stats: frames the encoders built by rewriting changes, those of them that rewrote
	// between 1 and 20 partitions, and full passes.
	deltas, few, fulls int
}

func (r *partsRun) send(typ, body string) (Reply, json.RawMessage, []byte) {
	r.t.Helper()
	msg := fmt.Sprintf(`{"id":1,"type":%q,"body":%s}`, typ, body)
	out, data := r.b.Handle([]byte(msg))
	var env struct {
		Reply
		Body json.RawMessage `json:"body"`
	}
	require.NoError(r.t, json.Unmarshal(out, &env), "%s", out)
	return env.Reply, env.Body, slices.Clone(data)
}

// fullEncoder is an encoder holding nothing of e but its layout version, as the encoder of a
// new session would be: it builds the next frame by a full pass.
func fullEncoder(e *frameEncoder) *frameEncoder {
	return &frameEncoder{layout: e.layout, layoutKey: e.layoutKey, layoutConfigs: e.layoutConfigs}
}

// partsFrameJSON is a frame as the reply carries it, without what buildFrame adds after encode
// from the event log (which only one frame can take).
func partsFrameJSON(t *testing.T, f *Frame) string {
	g := *f
	g.Events, g.EventsDropped = nil, 0
	out, err := json.Marshal(&g)
	require.NoError(t, err)
	return string(out)
}

// check builds a frame with e and compares it, JSON part and attachment, with a full encode.
func (r *partsRun) check(what string, e *frameEncoder, layout int) *Frame {
	t := r.t
	t.Helper()
	s := r.b.session
	ref := fullEncoder(e)
	f, data := e.encode(s, layout)
	data = slices.Clone(data)
	want, wantData := ref.encode(s, layout)
	require.Equal(t, partsFrameJSON(t, want), partsFrameJSON(t, f), "%s: the JSON part", what)
	require.Equal(t, wantData, data, "%s: the attachment (%d partitions rewritten)", what, e.parts.rewrote)
	r.checkCounts(what, f)
	switch {
	case e.parts.rewrote < 0:
		r.fulls++
	case e.parts.rewrote > 0:
		r.deltas++
		if e.parts.rewrote <= 20 {
			r.few++
		}
	}
	return f
}

// checkCounts recounts a frame's per-broker and cluster counts straight from the view, so
// that a mistake shared by the full and the incremental pass still shows.
func (r *partsRun) checkCounts(what string, f *Frame) {
	view := r.b.session.c.View()
	slot := map[int32]int{}
	for i, b := range f.Brokers {
		slot[b.ID] = i
	}
	leaders, replicas, outOfSync := make([]int, len(f.Brokers)), make([]int, len(f.Brokers)), make([]int, len(f.Brokers))
	offline, under := 0, 0
	for i := range view.Partitions {
		p := &view.Partitions[i]
		if view.Topics[p.Topic].Deleted {
			continue
		}
		if s, ok := slot[p.Leader]; ok {
			leaders[s]++
		}
		if p.Leader < 0 {
			offline++
		}
		if p.IsrLen() < len(p.Replicas()) {
			under++
		}
		for _, b := range p.Replicas() {
			if s, ok := slot[b]; ok {
				replicas[s]++
				if !p.InIsr(b) {
					outOfSync[s]++
				}
			}
		}
	}
	for i, b := range f.Brokers {
		require.Equal(r.t, []int{leaders[i], replicas[i], outOfSync[i]}, []int{b.Leaders, b.Replicas, b.OutOfSync}, "%s: broker %d's leaders, replicas, out of sync", what, b.ID)
	}
	require.Equal(r.t, []int{offline, under}, []int{f.Partitions.Offline, f.Partitions.UnderReplicated}, "%s: offline, under-replicated", what)
}

// checkReply compares a frame reply (its attachment, and the parts of its JSON that encode
// built) with a full encode of the state it shows by ref, an encoder at the layout version the
// session's encoder had before the reply.
func (r *partsRun) checkReply(what string, raw json.RawMessage, data []byte, ref *frameEncoder, layout int) {
	t := r.t
	t.Helper()
	want, wantData := ref.encode(r.b.session, layout)
	require.Equal(t, wantData, data, "%s: the reply's attachment", what)
	var got Frame
	require.NoError(t, json.Unmarshal(raw, &got))
	assert.Equal(t, want.Partitions, got.Partitions, "%s: the reply's partitions", what)
	for i := range got.Brokers {
		got.Brokers[i].DiskFactor = 0 // buildFrame's, from the history
	}
	assert.Equal(t, want.Brokers, got.Brokers, "%s: the reply's brokers", what)
}

// frameMsg sends a message whose reply is a frame (built by the session's own encoder, from
// the changes since its previous frame) and checks the reply.
func (r *partsRun) frameMsg(typ, body string, layout int) {
	ref := fullEncoder(&r.b.session.enc)
	rep, raw, data := r.send(typ, body)
	if rep.OK {
		r.checkReply(typ+" "+body, raw, data, ref, layout)
	}
}

// checkBoth checks the frames of the test's two encoders.
func (r *partsRun) checkBoth(what string) {
	r.t.Helper()
	f := r.check(what+", the page's frame", r.page, r.pageLayout)
	r.pageLayout = f.Partitions.Layout
	r.check(what+", with the layout", r.whole, 0)
}

func (r *partsRun) broker() int32 {
	ids := r.b.session.info.Brokers
	return ids[r.rng.IntN(len(ids))]
}

func (r *partsRun) node() string {
	s := r.b.session
	if r.rng.IntN(3) == 0 {
		return "producers"
	}
	if r.rng.IntN(2) == 0 {
		cs := s.info.Controllers
		return fmt.Sprintf("controller-%d", cs[r.rng.IntN(len(cs))])
	}
	return fmt.Sprintf("broker-%d", r.broker())
}

func (r *partsRun) liveTopics() []string {
	view := r.b.session.c.View()
	var names []string
	for i := range view.Topics {
		if !view.Topics[i].Deleted {
			names = append(names, view.Topics[i].Name)
		}
	}
	return names
}

func (r *partsRun) liveTopic() string {
	names := r.liveTopics()
	if len(names) == 0 {
		return "none"
	}
	return names[r.rng.IntN(len(names))]
}

// start resets the run. Frequent electPreferred runs with a small cap move a few leaderships at
// a time, the frames where a skipped change would show.
func (r *partsRun) start() {
	body := fmt.Sprintf(`{"seed":%d,"brokers":%d,"partitions":%d,"replicationFactor":%d,`+
		`"configs":{"leader.imbalance.check.interval.seconds":%d,"leader.imbalance.election.max.per.run":%d}}`,
		r.rng.IntN(1000), 3+r.rng.IntN(4), 100+r.rng.IntN(1400), 2+r.rng.IntN(2), 1+r.rng.IntN(30), 1+r.rng.IntN(8))
	rep, _, _ := r.send("sim.start", body)
	require.True(r.t, rep.OK, "sim.start %s: %+v", body, rep.Error)
	// The same cluster with its log recovery after a hard stop fixed at 120 s: derived from
	// what these brokers hold it takes minutes, and the rejoining replicas the incremental
	// frames must get right would rarely come within the run.
	rep, raw, _ := r.send("sim.export", `{}`)
	require.True(r.t, rep.OK, "sim.export: %+v", rep.Error)
	var ex ExportBody
	require.NoError(r.t, json.Unmarshal(raw, &ex))
	var doc map[string]any
	require.NoError(r.t, json.Unmarshal([]byte(ex.Scenario), &doc))
	doc["cluster"].(map[string]any)["broker"] = map[string]any{"log_recovery_hard_ms": 120000}
	pinned, err := json.Marshal(doc)
	require.NoError(r.t, err)
	rep, _, _ = r.send("sim.load", fmt.Sprintf(`{"scenario":%q}`, pinned))
	require.True(r.t, rep.OK, "sim.load: %+v", rep.Error)
}

// step does one random thing the page can do, and says what.
func (r *partsRun) step(i int) string {
	s := r.b.session
	act := func(body string) string {
		r.send("sim.act", body)
		return body
	}
	switch k := r.rng.IntN(100); {
	case k < 35:
		// Mostly the page's animation frames: a few partitions change in each while brokers
		// catch up, rejoin ISRs and get their leaderships back.
		ms := []int{0, 17, 50, 170, 500, 500, 1000, 1000, 3000, 10000, 30000}[r.rng.IntN(11)]
		body := fmt.Sprintf(`{"ms":%d,"layout":%d}`, ms, r.pageLayout)
		r.frameMsg("sim.advance", body, r.pageLayout)
		return "advance " + body
	case k < 49:
		op := []string{"kill", "start", "start", "shutdown", "disk_swap"}[r.rng.IntN(5)]
		return act(fmt.Sprintf(`{"op":%q,"broker":%d}`, op, r.broker()))
	case k < 52:
		return act(fmt.Sprintf(`{"op":"slow_disk","broker":%d,"factor":%g}`, r.broker(), []float64{0.05, 0.5, 1}[r.rng.IntN(3)]))
	case k < 56:
		op := []string{"kill_controller", "start_controller"}[r.rng.IntN(2)]
		ctl := "active"
		if r.rng.IntN(2) == 0 {
			ctl = fmt.Sprint(s.info.Controllers[r.rng.IntN(len(s.info.Controllers))])
		}
		return act(fmt.Sprintf(`{"op":%q,"controller":%q}`, op, ctl))
	case k < 59:
		op := []string{"cut", "heal"}[r.rng.IntN(2)]
		return act(fmt.Sprintf(`{"op":%q,"a":%q,"b":%q}`, op, r.node(), r.node()))
	case k < 63:
		switch r.rng.IntN(4) {
		case 0: // under ELR, a min.insync.replicas change writes a ClearElrRecord
			return act(fmt.Sprintf(`{"op":"set_config","name":"min.insync.replicas","value":%d}`, 1+r.rng.IntN(3)))
		case 1:
			return act(fmt.Sprintf(`{"op":"set_config","topic":%q,"name":"min.insync.replicas","value":"%d"}`, r.liveTopic(), 1+r.rng.IntN(3)))
		case 2:
			return act(fmt.Sprintf(`{"op":"set_config","topic":%q,"name":"unclean.leader.election.enable","value":%t}`, r.liveTopic(), r.rng.IntN(2) == 0))
		default:
			return act(fmt.Sprintf(`{"op":"set_config","name":"leader.imbalance.election.max.per.run","value":%d}`, 1+r.rng.IntN(20)))
		}
	case k < 68:
		if k == 67 && len(r.liveTopics()) > 1 {
			return act(fmt.Sprintf(`{"op":"delete_topic","topic":%q}`, r.liveTopic()))
		}
		return act(fmt.Sprintf(`{"op":"create_topic","topic":"t%d","partitions":%d,"replicationFactor":%d}`, i, 1+r.rng.IntN(200), 1+r.rng.IntN(3)))
	case k < 73:
		if r.rng.IntN(3) == 0 {
			return act(`{"op":"elect_leaders","election":"unclean"}`)
		}
		var targets []string
		for range 1 + r.rng.IntN(4) {
			targets = append(targets, fmt.Sprintf(`{"topic":%q,"partition":%d}`, r.liveTopic(), r.rng.IntN(50)))
		}
		return act(fmt.Sprintf(`{"op":"elect_leaders","election":"preferred","targets":[%s]}`, strings.Join(targets, ",")))
	case k < 75:
		return act(`{"op":"snapshot"}`)
	case k < 83:
		// Scrubbing: back to a checkpoint or a fresh cluster replayed to the time, or forward.
		to := s.c.Now() + int64(r.rng.IntN(20000))
		if r.rng.IntN(3) > 0 {
			to = int64(r.rng.IntN(int(s.c.Now()) + 1))
		}
		body := fmt.Sprintf(`{"timeMs":%d,"layout":%d}`, to, r.pageLayout)
		r.frameMsg("sim.seek", body, r.pageLayout)
		return "seek " + body
	case k < 85:
		body := fmt.Sprintf(`{"to":%q,"layout":%d}`, []string{"event", "run"}[r.rng.IntN(2)], r.pageLayout)
		r.frameMsg("sim.step", body, r.pageLayout)
		return "step " + body
	case k < 88:
		r.frameMsg("sim.frame", `{"layout":0}`, 0)
		return "frame with the layout"
	case k < 89:
		r.start()
		return "reset"
	case k < 91:
		rep, raw, _ := r.send("sim.export", `{}`)
		require.True(r.t, rep.OK, "sim.export: %+v", rep.Error)
		var ex ExportBody
		require.NoError(r.t, json.Unmarshal(raw, &ex))
		body := fmt.Sprintf(`{"scenario":%q,"timeMs":%d}`, ex.Scenario, r.rng.IntN(int(s.c.Now())+1))
		rep, _, _ = r.send("sim.load", body)
		require.True(r.t, rep.OK, "sim.load: %+v", rep.Error)
		return "import"
	default:
		r.frameMsg("sim.frame", fmt.Sprintf(`{"layout":%d}`, r.pageLayout), r.pageLayout)
		return "frame"
	}
}

// TestIncrementalFramesMatchAFullEncode: whatever the page does (actions, faults, topics
// created and deleted, scrubbing, resets, imports), a frame built from the previous one's
// arrays plus the changes since is byte for byte the frame a full pass builds.
func TestIncrementalFramesMatchAFullEncode(t *testing.T) {
	jsskip.CoveredNatively(t, "frames built from the changes against frames built whole, both in this process")
	// A restarted broker's replicas start rejoining about two minutes of cluster time after
	// it starts (log recovery, then catch-up): fewer steps rarely get there.
	const steps = 150
	var deltas, few, fulls int
	for _, seed := range []uint64{1, 2, 3} {
		t.Run(fmt.Sprintf("seed=%d", seed), func(t *testing.T) {
			r := &partsRun{t: t, rng: rand.New(rand.NewPCG(seed, 0x6b72616674)), b: New(Info{}), page: &frameEncoder{}, whole: &frameEncoder{}}
			r.start()
			for i := range steps {
				r.checkBoth(fmt.Sprintf("step %d (%s)", i, r.step(i)))
				// Then the page's animation frames for a while, at its speeds: what a broker
				// coming back does (catching up, rejoining ISRs, leaderships moving back a
				// few at a time) happens over many of them.
				for j := range r.rng.IntN(12) {
					ms := []int{17, 170, 500, 1000, 3000}[r.rng.IntN(5)]
					body := fmt.Sprintf(`{"ms":%d,"layout":%d}`, ms, r.pageLayout)
					r.frameMsg("sim.advance", body, r.pageLayout)
					r.checkBoth(fmt.Sprintf("step %d, frame %d (advance %s)", i, j, body))
				}
			}
			deltas, few, fulls = deltas+r.deltas, few+r.few, fulls+r.fulls
			t.Logf("frames by changes: %d (%d of 1–20 partitions), full passes: %d", r.deltas, r.few, r.fulls)
		})
	}
	// The comparison proves something only if the incremental path ran, and often on frames
	// where a few partitions changed (a skipped change shows there, not in a full pass).
	assert.Greater(t, deltas, steps/2, "frames built from the changes")
	assert.Greater(t, few, steps/4, "frames that rewrote 1 to 20 partitions")
	assert.Greater(t, fulls, 10, "full passes (resets, scrubs, imports, topics)")
}

// TestFramesRewriteOnlyWhatChanged: at 10,000 partitions, a frame of the state the previous
// one showed rewrites no partition, and the frames of a broker's restart (its fencing, then
// its replicas rejoining the ISRs a few at a time) are built from the changes where few
// changed, and match a full pass.
func TestFramesRewriteOnlyWhatChanged(t *testing.T) {
	jsskip.CoveredNatively(t, "frames built from the changes against frames built whole, both in this process")
	b := New(Info{})
	send := func(msg string) []byte {
		out, data := b.Handle([]byte(msg))
		require.Contains(t, string(out), `"ok":true`, "%s", msg)
		return data
	}
	send(`{"id":1,"type":"sim.start","body":{"brokers":6,"partitions":10000}}`)
	s := b.session
	e := &s.enc
	send(`{"id":2,"type":"sim.frame","body":{}}`)
	require.Equal(t, 1, e.parts.fulls)
	send(`{"id":3,"type":"sim.frame","body":{"layout":1}}`)
	assert.Equal(t, 1, e.parts.fulls, "no second full pass")
	assert.Equal(t, 0, e.parts.rewrote, "no partition rewritten")

	// A clean stop: after a kill, broker 3 would re-read its 5,000 logs' active segments
	// (hard-stop recovery) for longer than this test runs.
	send(`{"id":4,"type":"sim.act","body":{"op":"shutdown","broker":3}}`)
	var rewrote []int
	few := 0
	for i := 0; few < 10 && i < 1000; i++ {
		if s.c.Now() == 15_000 {
			send(`{"id":5,"type":"sim.act","body":{"op":"start","broker":3}}`)
		}
		ref := fullEncoder(e)
		data := send(`{"id":6,"type":"sim.advance","body":{"ms":500,"layout":1}}`)
		want, wantData := ref.encode(s, 1)
		require.Equal(t, wantData, data, "frame %d", i)
		require.Equal(t, want.Partitions.UnderReplicated, e.parts.under, "frame %d", i)
		if e.parts.rewrote != 0 {
			rewrote = append(rewrote, e.parts.rewrote)
		}
		if e.parts.rewrote > 0 {
			few++
		}
	}
	t.Logf("partitions rewritten by the frames that changed any (-1: a full pass): %v", rewrote)
	assert.Equal(t, -1, rewrote[0], "the fencing's ISR shrink is a full pass")
	assert.Equal(t, 10, few, "frames built from a few changes, as the broker's replicas rejoin")
}

// TestAnotherClusterOfTheSameShapeIsRebuilt: a cluster with the same topics and partitions
// whose committed log has reached past the previous frame's end (another run replacing the
// first) is no continuation of the first: its frame is built whole.
func TestAnotherClusterOfTheSameShapeIsRebuilt(t *testing.T) {
	b := New(Info{})
	send := func(msg string) {
		out, _ := b.Handle([]byte(msg))
		require.Contains(t, string(out), `"ok":true`, "%s", msg)
	}
	start := `{"id":1,"type":"sim.start","body":{"seed":7,"brokers":4,"partitions":400}}`
	send(start)
	send(`{"id":2,"type":"sim.act","body":{"op":"kill","broker":2}}`)
	send(`{"id":3,"type":"sim.advance","body":{"ms":15000}}`)
	s := b.session
	e := &frameEncoder{}
	f, _ := e.encode(s, 0)
	require.Positive(t, f.Partitions.UnderReplicated, "broker 2's fencing shrank ISRs")
	end := e.parts.end

	send(start) // the same cluster again, healthy this time
	for s.c.Controllers().CommittedEnd() <= end {
		send(`{"id":4,"type":"sim.advance","body":{"ms":1000}}`)
	}
	want, wantData := fullEncoder(e).encode(s, 0)
	f, data := e.encode(s, 0)
	assert.Equal(t, -1, e.parts.rewrote, "a full pass")
	assert.Zero(t, f.Partitions.UnderReplicated)
	assert.Equal(t, want.Partitions, f.Partitions)
	assert.Equal(t, wantData, data)
}
