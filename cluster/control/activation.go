package control

import (
	"fmt"
	"slices"

	"github.com/kraftlab/kraftlab/cluster/quorum"
	"github.com/kraftlab/kraftlab/cluster/sim"
	"github.com/kraftlab/kraftlab/engine/controller"
	"github.com/kraftlab/kraftlab/engine/metadata"
)

// A controller's engine goes through three steps, each a method here and each started by a sim
// event or a quorum hook, never by a caller's promise to call it:
//
//	becameLeader ─▶ activation{waiting} ─(evActivate, once its LeaderChangeMessage commits)─▶
//	maybeActivate ─▶ activeEngine ─(every engine call)─▶ afterEngine: ship + task event
//	                      └─(resigned, Kill)─▶ deactivate
//
// ship appends the engine's records to the quorum; inside a quorum hook (hookDepth > 0), where
// the quorum must not be appended to, it defers itself to an evShip event at the same time.

// HandleEvent runs one of Controllers' own events; only the simulation calls it.
func (h *handler) HandleEvent(ev sim.Event) {
	c := h.c
	m := c.controllers[ev.ID]
	switch ev.Kind {
	case evActivate:
		c.maybeActivate(m)
	case evTask:
		a := m.active
		if a == nil || uint32(ev.Arg) != m.gen {
			return
		}
		a.taskPending = false
		before := a.engine.Log().NextOffset()
		task := a.engine.RunNextTask(c.sim.Now())
		if task == controller.TaskFenceStaleBroker && c.obs.SessionExpired != nil {
			m.tellSessionExpiry(c.obs.SessionExpired, before, c.sim.Now())
		}
		c.afterEngine(m)
	case evShip:
		a := m.active
		if a == nil || uint32(ev.Arg) != m.gen {
			return
		}
		a.shipPending = false
		c.ship(m)
	}
}

func (c *Controllers) schedule(at int64, kind int32, m *controllerNode, arg int64) sim.Handle {
	h, err := c.sim.Schedule(max(at, c.sim.Now()), sim.Event{Target: &c.events, Kind: kind, ID: m.idx, Arg: arg})
	if err != nil {
		c.iv.violate("internal", err.Error(), "control only schedules at or after now")
	}
	return h
}

// deactivate discards a node's engine and any activation it was waiting for. Its committed image
// is unaffected: it only ever held committed records.
func (c *Controllers) deactivate(m *controllerNode) {
	m.activation.waiting = false
	a := m.active
	if a == nil {
		return
	}
	m.active = nil
	m.gen++
	if a.taskPending {
		c.sim.Cancel(a.task)
	}
	c.stats.Resignations++
	c.tracef(m.id, "controller deactivated epoch=%d", a.epoch)
	if c.cb.OnResigned != nil {
		c.cb.OnResigned(m.id, a.epoch, c.sim.Now())
	}
}

// maybeActivate is Kafka's CompleteActivationEvent: once the leader's LeaderChangeMessage is
// committed, its committed image is its whole log, and the engine starts from a clone of it.
func (c *Controllers) maybeActivate(m *controllerNode) {
	if !m.activation.waiting || m.active != nil {
		return
	}
	st, err := c.q.Node(quorum.NodeID(m.id))
	if err != nil || !st.Running || st.State != quorum.Leader || st.Epoch != m.activation.epoch {
		m.activation.waiting = false
		return
	}
	if st.HighWatermark <= m.activation.start {
		return // the HighWatermark hook schedules another try when it moves
	}
	now := c.sim.Now()
	epoch := m.activation.epoch
	m.activation.waiting = false
	if m.applied != st.EndOffset {
		c.iv.violate("a new controller starts from its whole committed log", fmt.Sprintf("node %d's log ends at %d with high watermark %d", m.id, st.EndOffset, st.HighWatermark),
			fmt.Sprintf("its committed image is at offset %d", m.applied))
		return
	}
	for int(epoch) >= len(c.activeByEpoch) {
		c.activeByEpoch = append(c.activeByEpoch, -1)
	}
	if prev := c.activeByEpoch[epoch]; prev >= 0 {
		c.iv.violate("at most one active controller per epoch", fmt.Sprintf("node %d activated a controller in epoch %d", prev, epoch),
			fmt.Sprintf("node %d activates one in the same epoch", m.id))
		return
	}
	c.activeByEpoch[epoch] = m.id
	seed := c.rand.ChildID("engine", int64(epoch)).Uint64()
	if m.store.shared && m.applied != m.store.at {
		c.iv.violate("a new controller starts from its whole committed log", fmt.Sprintf("node %d's committed image is at offset %d", m.id, m.applied),
			fmt.Sprintf("the shared committed image is at offset %d", m.store.at))
		return
	}
	// A controller reads its static configs when its process starts (Kafka's
	// ControllerServer.startup hands KafkaConfig to QuorumController.Builder), so the engine it
	// activates runs with the configs it was last started with.
	static := c.cfg.Static
	if m.static != nil {
		static = *m.static
	}
	eng := controller.Restore(seed, static, m.imageAt(&c.iv).Clone(), st.EndOffset)
	if c.cfg.Bootstrap != nil && m.records == 0 {
		if err := c.cfg.Bootstrap(eng, now); err != nil {
			c.iv.violate("bootstrap", fmt.Sprintf("node %d activates over an empty metadata log in epoch %d", m.id, epoch),
				"Config.Bootstrap failed: "+err.Error())
			return
		}
		c.stats.Bootstraps++
	}
	eng.Activate(now)
	m.active = &activeEngine{engine: eng, epoch: epoch, since: now, shipped: st.EndOffset}
	m.gen++
	c.stats.Activations++
	c.tracef(m.id, "controller activated epoch=%d next offset=%d", epoch, st.EndOffset)
	c.afterEngine(m)
	if c.cb.OnActivated != nil {
		c.cb.OnActivated(m.id, epoch, now)
	}
}

// afterEngine runs after every engine call: ship its records, then keep the task event at the
// engine's next deadline.
func (c *Controllers) afterEngine(m *controllerNode) {
	c.ship(m)
	a := m.active
	if a == nil {
		return
	}
	at, ok := a.engine.NextDeadline()
	if ok && a.taskPending && at == a.taskAt {
		return
	}
	if a.taskPending {
		c.sim.Cancel(a.task)
		a.taskPending = false
	}
	if ok {
		a.taskAt = max(at, c.sim.Now())
		a.task = c.schedule(a.taskAt, evTask, m, int64(m.gen))
		a.taskPending = true
	}
}

// ship appends the engine's new records to the quorum as one batch and checks that the quorum
// gives them the offsets the engine did. Inside a quorum hook it waits for an event at the same
// time, since hooks must not append.
func (c *Controllers) ship(m *controllerNode) {
	a := m.active
	if a == nil {
		return
	}
	if c.hookDepth > 0 {
		if !a.shipPending {
			a.shipPending = true
			c.schedule(c.sim.Now(), evShip, m, int64(m.gen))
		}
		return
	}
	log := a.engine.Log()
	es := log.Since(a.shipped)
	if len(es) == 0 {
		return
	}
	recs := slices.Grow(c.recBuf[:0], len(es)) // sized once: a bootstrap ships a million
	var bytes int64
	for i, e := range es {
		b := RecordBytes(e.Record)
		if i == 0 {
			b += BatchHeaderBytes
		}
		bytes += int64(b)
		recs = append(recs, quorum.Record[metadata.Record]{Payload: e.Record, Bytes: b})
	}
	first, n := es[0].Offset, int64(len(es))
	last, err := c.q.Append(quorum.NodeID(m.id), recs...)
	clear(recs)
	c.recBuf = recs[:0]
	if err != nil {
		c.iv.violate("the active controller leads the quorum", fmt.Sprintf("node %d runs the active controller of epoch %d", m.id, a.epoch), err.Error())
		return
	}
	if last-n+1 != first {
		c.iv.violate("engine and quorum offsets agree", fmt.Sprintf("the engine on node %d wrote offsets [%d, %d)", m.id, first, first+n),
			fmt.Sprintf("the quorum stored them at [%d, %d)", last-n+1, last+1))
	}
	c.stats.RecordsWritten += n
	c.stats.BytesWritten += bytes
	if m.active != a {
		return // a hook during Append (none today) discarded it
	}
	a.shipped = log.NextOffset()
	// The engine never reads its own past records: drop them so a long run stays small. In
	// chunks, because dropping copies the rest and the next append grows a new slice.
	if a.shipped-log.StartOffset() >= 256 {
		_ = log.DropBefore(a.shipped)
	}
}
