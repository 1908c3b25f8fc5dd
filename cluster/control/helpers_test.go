package control

import (
	"errors"
	"fmt"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/kraftlab/kraftlab/cluster/sim"
	"github.com/kraftlab/kraftlab/engine/controller"
	"github.com/kraftlab/kraftlab/engine/metadata"
)

// fakeBroker is a trivial ControllerClient user: it registers, heartbeats every 10 ms while
// fenced and every broker.heartbeat.interval.ms (2 s) once unfenced, reports the metadata offset
// it was given through OnBrokerCommitted, and is always ready to be unfenced. It stands in for
// cluster/broker's Fleet, which is built separately.
type fakeBroker struct {
	h       *harness
	id      int32
	gen     int64
	stopped bool

	registered   bool
	epoch        int64
	incarnations int
	applied      int64
	fenced       bool

	// The reply in flight.
	regEpoch int64
	hb       controller.HeartbeatReply
	err      error

	keep    bool             // record what the broker got (tests, not benchmarks)
	got     []metadata.Entry // entries delivered, in order
	snaps   []*Snapshot
	snapAt  [][]metadata.Entry // each snapshot's entries, read as it was loaded
	errs    []error
	delays  []int64
	replies int64
}

const (
	evSend int32 = iota + 1
	evReply
)

func (b *fakeBroker) HandleEvent(ev sim.Event) {
	if ev.Arg != b.gen || b.stopped {
		return
	}
	switch ev.Kind {
	case evSend:
		b.send()
	case evReply:
		b.reply()
	}
}

func (b *fakeBroker) at(delay int64, kind int32) {
	_, err := b.h.s.After(max(delay, 0), sim.Event{Target: b, Kind: kind, ID: b.id, Arg: b.gen})
	require.NoError(b.h.t, err)
}

func (b *fakeBroker) send() {
	now := b.h.s.Now()
	cl := b.h.c.Client()
	var delay int64
	if !b.registered {
		b.regEpoch, delay, b.err = cl.Register(controller.RegisterRequest{BrokerID: b.id,
			IncarnationID: "b" + strconv.Itoa(int(b.id)) + "-" + strconv.Itoa(b.incarnations),
			LogDirs:       []string{"d" + strconv.Itoa(int(b.id))}, PreviousBrokerEpoch: -1}, now)
	} else {
		b.hb, delay, b.err = cl.Heartbeat(controller.HeartbeatRequest{BrokerID: b.id, BrokerEpoch: b.epoch,
			CurrentMetadataOffset: b.applied}, now)
	}
	if b.keep {
		b.errs = append(b.errs, b.err)
		b.delays = append(b.delays, delay)
	}
	b.at(delay, evReply)
}

func (b *fakeBroker) reply() {
	b.replies++
	switch {
	case b.err != nil && needsRegistration(b.err):
		b.registered = false
		b.at(0, evSend)
	case b.err != nil:
		b.at(2000, evSend)
	case !b.registered:
		b.registered, b.epoch, b.fenced = true, b.regEpoch, true
		b.at(0, evSend)
	default:
		b.fenced = b.hb.IsFenced
		if b.fenced {
			b.at(10, evSend)
		} else {
			b.at(2000, evSend)
		}
	}
}

func needsRegistration(err error) bool {
	var api *controller.APIError
	return errors.As(err, &api) && (api.Code == controller.StaleBrokerEpoch || api.Code == controller.BrokerIDNotRegistered)
}

func (b *fakeBroker) start(delay int64) {
	b.stopped = false
	b.gen++
	b.registered = false
	b.incarnations++
	b.at(delay, evSend)
}

func (b *fakeBroker) stop() {
	b.stopped = true
	b.gen++
}

// harness is a controller quorum with fake brokers and a record of the callbacks.
type harness struct {
	t       testing.TB
	s       *sim.Sim
	c       *Controllers
	brokers []*fakeBroker
	byID    map[int32]*fakeBroker

	activations []activationNote
	resigns     []activationNote
	committed   int64 // offsets OnCommitted has delivered so far
}

type activationNote struct {
	node  int32
	epoch int32
	atMs  int64
}

func brokerIDs(n int) []int32 {
	out := make([]int32, n)
	for i := range out {
		out[i] = int32(i + 1)
	}
	return out
}

func newHarness(t testing.TB, seed uint64, voters int, brokers []int32, tune func(*Config)) *harness {
	t.Helper()
	cfg := DefaultConfig()
	cfg.Quorum.Voters = VoterIDs(voters)
	cfg.Brokers = brokers
	if tune != nil {
		tune(&cfg)
	}
	h := &harness{t: t, s: sim.New(seed), byID: map[int32]*fakeBroker{}}
	c, err := New(h.s, cfg)
	require.NoError(t, err)
	h.c = c
	for _, id := range brokers {
		b := &fakeBroker{h: h, id: id, applied: -1, keep: true}
		h.brokers = append(h.brokers, b)
		h.byID[id] = b
	}
	c.SetCallbacks(Callbacks{
		OnCommitted: func(es []CommittedEntry) {
			if es[0].Offset != h.committed {
				t.Errorf("OnCommitted starts at %d, want %d", es[0].Offset, h.committed)
			}
			h.committed = es[len(es)-1].Offset + 1
		},
		OnBrokerCommitted: func(id int32, es []metadata.Entry) {
			b := h.byID[id]
			if es[0].Offset != b.applied+1 {
				t.Errorf("broker %d got offset %d after %d", id, es[0].Offset, b.applied)
			}
			b.applied = es[len(es)-1].Offset
			if b.keep {
				b.got = append(b.got, es...)
			}
		},
		OnBrokerSnapshot: func(id int32, snap *Snapshot) {
			b := h.byID[id]
			b.applied = snap.EndOffset - 1
			if b.keep {
				b.snaps = append(b.snaps, snap)
				b.snapAt = append(b.snapAt, snap.Entries())
				b.got = b.got[:0] // the view is replaced
			}
		},
		OnActivated: func(n, e int32, at int64) { h.activations = append(h.activations, activationNote{n, e, at}) },
		OnResigned:  func(n, e int32, at int64) { h.resigns = append(h.resigns, activationNote{n, e, at}) },
	})
	return h
}

// startBrokers starts every fake broker at a small offset so they do not act in lockstep.
func (h *harness) startBrokers() {
	for i, b := range h.brokers {
		b.start(int64(i))
	}
}

// run advances the clock by ms and fails on any invariant violation.
func (h *harness) run(ms int64) {
	h.t.Helper()
	_, err := h.s.RunUntil(h.s.Now() + ms)
	require.NoError(h.t, err)
	require.NoError(h.t, h.c.Err())
}

// waitActive runs until a controller is active in an epoch above minEpoch, for at most maxMs.
func (h *harness) waitActive(minEpoch int32, maxMs int64) (int32, int32) {
	h.t.Helper()
	deadline := h.s.Now() + maxMs
	for h.s.Now() < deadline {
		h.run(1)
		if id, e, ok := h.c.Active(); ok && e > minEpoch {
			return id, e
		}
	}
	h.t.Fatalf("no controller active above epoch %d within %d ms", minEpoch, maxMs)
	return -1, 0
}

// settle runs until everything the active controller wrote is committed and known to every
// running node (between two writes of the idle NoOp, there is such a moment), for at most maxMs.
func (h *harness) settle(maxMs int64) int64 {
	h.t.Helper()
	for range maxMs {
		if end, ok := h.settled(); ok {
			return end
		}
		h.run(1)
	}
	h.t.Fatalf("the cluster did not settle within %d ms", maxMs)
	return 0
}

func (h *harness) settled() (int64, bool) {
	active, _, ok := h.c.Active()
	if !ok {
		return 0, false
	}
	end := h.c.ActiveController().Log().NextOffset()
	if h.view(active).HighWatermark != end {
		return 0, false
	}
	for _, id := range append(h.c.Voters(), h.c.Brokers()...) {
		if v := h.view(id); v.Running && (v.HighWatermark != end || v.Applied != end) {
			return 0, false
		}
	}
	return end, true
}

func (h *harness) view(id int32) NodeView {
	h.t.Helper()
	v, err := h.c.Node(id)
	require.NoError(h.t, err)
	return v
}

func (h *harness) image(id int32) *metadata.Image {
	h.t.Helper()
	im, err := h.c.CommittedImage(id)
	require.NoError(h.t, err)
	return im
}

func (h *harness) others(id int32) []int32 {
	var out []int32
	for _, v := range h.c.Voters() {
		if v != id {
			out = append(out, v)
		}
	}
	return out
}

// summary renders what an image says about brokers and partitions, for comparing images that
// were built differently (replay versus snapshot): registration offsets differ by design.
func summary(im *metadata.Image) []string {
	var out []string
	for _, id := range im.BrokerIDs() {
		b := im.Broker(id)
		out = append(out, fmt.Sprintf("broker %d registered=%v epoch=%d fenced=%v cs=%v", id, b.Registered, b.Epoch, b.Fenced, b.InControlledShutdown))
	}
	for t := range im.Topics {
		top := &im.Topics[t]
		if top.Deleted {
			continue
		}
		out = append(out, fmt.Sprintf("topic %s id=%s configs=%v", top.Name, top.ID, top.Configs.Names()))
		for i := top.First; i < top.First+top.Count; i++ {
			p := &im.Partitions[i]
			out = append(out, fmt.Sprintf("  %s-%d leader=%d le=%d pe=%d isr=%v elr=%v", top.Name, p.ID, p.Leader, p.LeaderEpoch, p.PartitionEpoch, p.Isr(), p.Elr()))
		}
	}
	for _, n := range im.Cluster.Names() {
		v, _ := im.Cluster.Get(n)
		out = append(out, fmt.Sprintf("config %s=%v", n, v))
	}
	return out
}

// committedTypes lists the record types of the retained committed log.
func (h *harness) committedTypes() []string {
	var out []string
	for _, e := range h.c.Committed() {
		out = append(out, e.Record.Type())
	}
	return out
}
