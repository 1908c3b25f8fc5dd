package broker

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/kraftlab/kraftlab/cluster/sim"
	"github.com/kraftlab/kraftlab/engine/config"
	"github.com/kraftlab/kraftlab/engine/controller"
	"github.com/kraftlab/kraftlab/engine/metadata"
)

// flatRates is a Rates with explicit classes; ClassOf cycles through them unless byPart says.
type flatRates struct {
	bytes, reqs []float64
	byPart      func(p int32) int
	record      float64
}

func (r *flatRates) NumClasses() int                   { return len(r.bytes) }
func (r *flatRates) ClassBytesPerSec(c int) float64    { return r.bytes[c] }
func (r *flatRates) ClassRequestsPerSec(c int) float64 { return r.reqs[c] }
func (r *flatRates) RecordBytes() float64              { return r.record }
func (r *flatRates) ClassOf(p int32) int {
	if r.byPart != nil {
		return r.byPart(p)
	}
	return int(p) % len(r.bytes)
}

// oneRate is every partition producing bytesPerSec in batches of 10/s, records of 1 KB.
func oneRate(bytesPerSec float64) *flatRates {
	return &flatRates{bytes: []float64{bytesPerSec}, reqs: []float64{10}, record: 1000}
}

// harness is a Fleet wired to the real engine controller with instant delivery: every record
// the controller writes reaches every running broker in the same millisecond, and the
// controller's periodic tasks run at their deadlines.
type harness struct {
	t     testing.TB
	s     *sim.Sim
	c     *controller.Controller
	f     *Fleet
	ids   []int32
	topic string

	delivered int64
	deliverEv sim.Handle
	taskEv    sim.Handle
	// ctlDown lists brokers that cannot reach the controller.
	ctlDown map[int32]bool
}

const (
	hvDeliver int32 = iota + 1
	hvTask
)

func (h *harness) HandleEvent(ev sim.Event) {
	switch ev.Kind {
	case hvDeliver:
		h.deliverEv = sim.Handle{}
		h.deliver()
	case hvTask:
		h.taskEv = sim.Handle{}
		for h.c.RunNextTask(h.s.Now()) != "" {
		}
		h.afterController()
	}
}

// afterController arranges delivery of new records and the next periodic task.
func (h *harness) afterController() {
	if h.c.Log().NextOffset()-1 > h.delivered && h.deliverEv == (sim.Handle{}) {
		h.deliverEv, _ = h.s.After(0, sim.Event{Target: h, Kind: hvDeliver})
	}
	h.s.Cancel(h.taskEv)
	if at, ok := h.c.NextDeadline(); ok {
		h.taskEv, _ = h.s.Schedule(max(at, h.s.Now()), sim.Event{Target: h, Kind: hvTask})
	}
}

func (h *harness) deliver() {
	entries := h.c.Log().Since(h.delivered + 1)
	if len(entries) == 0 {
		return
	}
	require.NoError(h.t, h.f.Publish(entries))
	for _, id := range h.ids {
		if h.f.State(id) != NotRunning {
			require.NoError(h.t, h.f.ApplyMetadata(id, entries))
		}
	}
	h.delivered = entries[len(entries)-1].Offset
	// Every broker has what it needs (a stopped broker's changes wait in its queue), so the
	// delivered prefix can go, as a snapshot would let it.
	require.NoError(h.t, h.c.Log().DropBefore(h.delivered+1))
}

// engineClient routes broker requests to the harness's controller with no delay.
type engineClient struct{ h *harness }

func (e engineClient) Register(req controller.RegisterRequest, now int64) (int64, int64, error) {
	if e.h.ctlDown[req.BrokerID] {
		return 0, 1000, ErrUnreachable
	}
	epoch, err := e.h.c.RegisterBroker(req, now)
	e.h.afterController()
	return epoch, 0, err
}

func (e engineClient) Heartbeat(req controller.HeartbeatRequest, now int64) (controller.HeartbeatReply, int64, error) {
	if e.h.ctlDown[req.BrokerID] {
		return controller.HeartbeatReply{}, 1000, ErrUnreachable
	}
	r, err := e.h.c.Heartbeat(req, now)
	e.h.afterController()
	return r, 0, err
}

func (e engineClient) AlterPartition(reqs []controller.AlterPartitionRequest, errs []error, now int64) (int64, error) {
	if len(reqs) > 0 && e.h.ctlDown[reqs[0].BrokerID] {
		return 1000, ErrUnreachable
	}
	for i := range reqs {
		if err := e.h.c.AlterPartition(reqs[i], now); err != nil {
			errs[i] = err
		}
	}
	e.h.afterController()
	return 0, nil
}

// setup describes a harness cluster.
type setup struct {
	brokers    int
	partitions int
	rf         int
	minIsr     int64
	rates      *flatRates
	params     *Params
	cfg        map[string]any
	seed       uint64
	// assign, if set, gives partition p's replicas (broker ids 1..brokers).
	assign func(p int) []int32
}

// newHarness boots a cluster: brokers 1..n registered and unfenced, one topic "t" whose
// partitions are spread round-robin (partition p prefers broker p%n+1), logs prefilled.
func newHarness(t testing.TB, su setup) *harness {
	t.Helper()
	if su.seed == 0 {
		su.seed = 1
	}
	if su.rf == 0 {
		su.rf = 3
	}
	if su.minIsr == 0 {
		su.minIsr = 2
	}
	if su.rates == nil {
		su.rates = oneRate(100_000)
	}
	p := DefaultParams()
	if su.params != nil {
		p = *su.params
	}
	var static config.Values
	require.NoError(t, static.Set(config.MinInsyncReplicas, su.minIsr, config.Topic))
	for k, v := range su.cfg {
		require.NoError(t, static.Set(k, v, config.Cluster))
	}
	s := sim.New(su.seed)
	h := &harness{t: t, s: s, topic: "t", delivered: -1, ctlDown: map[int32]bool{}}
	h.c = controller.New(su.seed, static)
	var recs []metadata.Record
	for i := 1; i <= su.brokers; i++ {
		id := int32(i)
		h.ids = append(h.ids, id)
		recs = append(recs, &metadata.RegisterBrokerRecord{BrokerID: id, IncarnationID: fmt.Sprintf("boot-%d", id),
			BrokerEpoch: int64(len(recs)), LogDirs: []string{fmt.Sprintf("b%d-dir0", id)}})
	}
	tid := h.c.NewTopicID()
	recs = append(recs, &metadata.TopicRecord{Name: "t", TopicID: tid})
	for part := 0; part < su.partitions; part++ {
		var reps []int32
		if su.assign != nil {
			reps = su.assign(part)
		} else {
			for j := 0; j < su.rf; j++ {
				reps = append(reps, int32((part+j)%su.brokers+1))
			}
		}
		recs = append(recs, &metadata.PartitionRecord{Topic: "t", TopicID: tid, PartitionID: int32(part),
			Replicas: reps, Isr: reps, Leader: reps[0], Elr: []int32{}, LastKnownElr: []int32{}})
	}
	require.NoError(t, h.c.Bootstrap(recs))
	h.c.Activate(0)
	f, err := New(s, p, h.ids, static, engineClient{h}, su.rates)
	require.NoError(t, err)
	h.f = f
	entries := h.c.Log().Since(0)
	require.NoError(t, f.Publish(entries))
	h.delivered = entries[len(entries)-1].Offset
	require.NoError(t, f.Prefill(nil))
	for _, id := range h.ids {
		require.NoError(t, f.Boot(id))
	}
	h.afterController()
	return h
}

// run advances the simulation to time ms.
func (h *harness) run(ms int64) {
	h.t.Helper()
	_, err := h.s.RunUntil(ms)
	require.NoError(h.t, err)
}

// runFor advances the simulation by d ms.
func (h *harness) runFor(d int64) { h.run(h.s.Now() + d) }

// part is partition index p's state.
func (h *harness) part(p int32) PartitionInfo {
	h.t.Helper()
	info, err := h.f.Partition(p)
	require.NoError(h.t, err)
	return info
}

// ctlIsr is the controller's ISR of partition p.
func (h *harness) ctlIsr(p int32) []int32 { return h.c.Image().Partitions[p].Isr() }

// runUntil steps the sim until cond holds or limit ms pass; it returns the time cond held.
func (h *harness) runUntil(limit int64, cond func() bool) (int64, bool) {
	end := h.s.Now() + limit
	for !cond() {
		next, ok := h.s.NextAt()
		if !ok || next > end {
			h.run(end)
			return h.s.Now(), cond()
		}
		h.s.Step()
	}
	at := h.s.Now()
	h.run(at) // finish the instant: metadata delivery runs after the controller's write
	return at, true
}
