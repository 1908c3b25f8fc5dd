package control

import (
	"fmt"

	"github.com/kraftlab/kraftlab/cluster/quorum"
	"github.com/kraftlab/kraftlab/engine/config"
	"github.com/kraftlab/kraftlab/engine/controller"
)

// Admin is the operator's way to the controllers, as an admin client's: its actions go to the
// active controller (the running one with the highest epoch) from outside the network model, and
// are handled at the current virtual time. Their records are appended to the quorum at once; the
// call does not wait for the commit. Without an active controller they fail with NOT_CONTROLLER.
type Admin struct{ c *Controllers }

// Admin returns the operator's client.
func (c *Controllers) Admin() Admin { return Admin{c} }

// WithActive runs fn against the active engine controller at the current time and ships the
// records it writes: the general form of every operator action, for engine calls this package
// does not wrap (ExpireSession, say). fn must not keep the controller.
func (a Admin) WithActive(fn func(e *controller.Controller, nowMs int64) error) error {
	c := a.c
	m := c.activeNode()
	if m == nil {
		return c.notController("an operator request needs an active controller")
	}
	err := fn(m.active.engine, c.sim.Now())
	c.afterEngine(m)
	return err
}

// ElectLeaders runs an ElectLeaders request (an empty list means every partition).
func (a Admin) ElectLeaders(election controller.Election, partitions []controller.TopicPartition) ([]controller.ElectionResult, error) {
	var out []controller.ElectionResult
	err := a.WithActive(func(e *controller.Controller, now int64) error {
		out = e.ElectLeaders(election, partitions, now)
		return nil
	})
	return out, err
}

// CreateTopic runs a CreateTopics request for one topic.
func (a Admin) CreateTopic(req controller.CreateTopicRequest) error {
	return a.WithActive(func(e *controller.Controller, now int64) error { return e.CreateTopic(req, now) })
}

// DeleteTopic runs a DeleteTopics request for one topic.
func (a Admin) DeleteTopic(name string) error {
	return a.WithActive(func(e *controller.Controller, now int64) error { return e.DeleteTopic(name, now) })
}

// SetConfig runs an IncrementalAlterConfigs SET (DELETE when value is nil) at the cluster level
// (topic "") or on a topic.
func (a Admin) SetConfig(topic, name string, value any) error {
	return a.WithActive(func(e *controller.Controller, now int64) error { return e.SetConfig(topic, name, value, now) })
}

// SetFeature runs an UpdateFeatures request for one feature.
func (a Admin) SetFeature(name string, level any) error {
	return a.WithActive(func(e *controller.Controller, now int64) error { return e.SetFeature(name, level, now) })
}

// ElectPreferredNow runs the electPreferred periodic task now and reschedules it as its result
// says, as a manual trigger would.
func (a Admin) ElectPreferredNow() error {
	return a.WithActive(func(e *controller.Controller, now int64) error {
		if !e.RunTaskNow(controller.TaskElectPreferred, now) {
			return &controller.APIError{Code: controller.InvalidRequest,
				Message: "the electPreferred task is not registered: auto.leader.rebalance.enable is false"}
		}
		return nil
	})
}

// --- faults ---------------------------------------------------------------------------------

// Kill stops a controller or a broker's metadata client. Its log, snapshots and election state
// survive; a controller's engine is discarded (if it was active) and its committed image is
// rebuilt from its snapshot and log by Start.
func (c *Controllers) Kill(id int32) error {
	if err := c.notInHook("Kill"); err != nil {
		return err
	}
	n, err := c.node(id)
	if err != nil {
		return err
	}
	if err := c.q.Kill(quorum.NodeID(id)); err != nil {
		return err
	}
	if n.brk != nil {
		n.brk.running = false
		return nil
	}
	m := n.ctl
	m.running = false
	c.deactivate(m) // already done by the Resigned hook if it led; this clears a pending activation
	// Its image stays where it was until Start rebuilds it; the shared one moves on.
	m.leaveRoot(c.images)
	return nil
}

// Start restarts a killed node. A controller reloads its latest snapshot and replays its log as
// the leader's high watermark reaches it; a broker continues from where its view was.
//
// With static, a controller restarts with those static configs, as an operator restarts it with
// an edited server.properties: the engine it runs whenever it becomes active reads them (the
// others keep theirs), since Kafka reads them only at a controller's start
// (ControllerServer.startup builds QuorumController.Builder from KafkaConfig). So a
// controller-side static config such as leader.imbalance.check.interval.seconds takes effect
// only once a controller restarted with it is the active one.
func (c *Controllers) Start(id int32, static ...config.Values) error {
	if err := c.notInHook("Start"); err != nil {
		return err
	}
	n, err := c.node(id)
	if err != nil {
		return err
	}
	if n.brk != nil {
		if len(static) > 0 {
			return fmt.Errorf("control: node %d is a broker; only controllers read controller configs", id)
		}
		if n.brk.running {
			return fmt.Errorf("control: node %d is already running; Kill it first", id)
		}
		n.brk.running = true
		if err := c.q.Start(quorum.NodeID(id)); err != nil {
			n.brk.running = false
			return err
		}
		return nil
	}
	m := n.ctl
	if m.running {
		return fmt.Errorf("control: node %d is already running; Kill it first", id)
	}
	if len(static) > 1 {
		return fmt.Errorf("control: Start(%d): give at most one set of static configs", id)
	}
	prev := m.static
	if len(static) == 1 {
		v := static[0].Clone()
		m.static = &v
	}
	// The boot's LoadSnapshot rebuilds its image and compares it with the one it had.
	m.restart.booting = true
	m.running = true
	if err := c.q.Start(quorum.NodeID(id)); err != nil {
		m.running, m.restart.booting, m.static = false, false, prev
		return err
	}
	return nil
}

// Cut drops every message between a and b (controllers or brokers), both ways, until Heal:
// quorum traffic and, for a broker and a controller, the broker's requests.
func (c *Controllers) Cut(a, b int32) error {
	if err := c.notInHook("Cut"); err != nil {
		return err
	}
	if err := c.q.Cut(quorum.NodeID(a), quorum.NodeID(b)); err != nil {
		return err
	}
	c.net.cuts[linkKey(a, b)] = struct{}{}
	return nil
}

// Heal restores the link between a and b.
func (c *Controllers) Heal(a, b int32) error {
	if err := c.notInHook("Heal"); err != nil {
		return err
	}
	if err := c.q.Heal(quorum.NodeID(a), quorum.NodeID(b)); err != nil {
		return err
	}
	delete(c.net.cuts, linkKey(a, b))
	return nil
}

// HealAll restores every link.
func (c *Controllers) HealAll() error {
	if err := c.notInHook("HealAll"); err != nil {
		return err
	}
	c.q.HealAll()
	clear(c.net.cuts)
	return nil
}

// Snapshot makes node take a snapshot at its high watermark now, as an operator-triggered one.
func (c *Controllers) Snapshot(id int32) (quorum.SnapshotID, error) {
	if err := c.notInHook("Snapshot"); err != nil {
		return quorum.SnapshotID{}, err
	}
	if _, err := c.node(id); err != nil {
		return quorum.SnapshotID{}, err
	}
	return c.q.Snapshot(quorum.NodeID(id))
}
