package control

import (
	"fmt"
	"io"

	"github.com/kraftlab/kraftlab/cluster/quorum"
	"github.com/kraftlab/kraftlab/cluster/sim"
	"github.com/kraftlab/kraftlab/engine/metadata"
)

// New builds the controllers (all running, none active yet: the quorum elects a leader within a
// few election timeouts) and attaches cfg.Brokers as observers.
func New(s *sim.Sim, cfg Config) (*Controllers, error) {
	if s == nil {
		return nil, fmt.Errorf("control: the simulation is nil; New needs the run's *sim.Sim")
	}
	cfg.Static = cfg.Static.Clone()
	cfg.Brokers = append([]int32(nil), cfg.Brokers...)
	c := &Controllers{
		sim:  s,
		cfg:  cfg,
		rand: s.Rand().Child("control"),
		byID: map[int32]node{},
	}
	c.iv.sim = s
	c.net = network{cfg: &c.cfg.Quorum, rand: c.rand.Child("network"), cuts: map[uint64]struct{}{}}
	c.images = newImages(cfg.PartitionsHint, &c.iv)
	c.events.c = c
	h := &quorumHooks{c}
	// The controllers exist before the quorum does, because the quorum boots its voters (and
	// calls LoadSnapshot on them) inside quorum.New.
	for _, id := range cfg.Quorum.Voters {
		if _, dup := c.byID[int32(id)]; dup {
			break // quorum.New reports the duplicate with its own message
		}
		// A voter gets its committed image when it boots (LoadSnapshot), not here.
		m := &controllerNode{id: int32(id), idx: int32(len(c.controllers)), running: true}
		c.controllers = append(c.controllers, m)
		c.byID[m.id] = node{ctl: m}
	}
	c.images.booting = true
	q, err := quorum.New[metadata.Record](s, cfg.Quorum, h.hooks())
	c.images.booting = false
	if err != nil {
		return nil, err
	}
	c.q = q
	for i, b := range cfg.Brokers {
		if err := c.attach(b); err != nil {
			return nil, fmt.Errorf("control: Config.Brokers[%d]: %w", i, err)
		}
	}
	return c, nil
}

// SetCallbacks installs the callbacks; fields left nil are not called. Set them before running
// the simulation: the fleet that consumes them usually needs Client first, hence the setter.
func (c *Controllers) SetCallbacks(cb Callbacks) {
	c.cb = cb
	c.iv.notify = cb.OnViolation
}

// AddBroker attaches broker id as an observer of the metadata log: it starts fetching at once.
func (c *Controllers) AddBroker(id int32) error {
	if err := c.notInHook("AddBroker"); err != nil {
		return err
	}
	return c.attach(id)
}

func (c *Controllers) attach(id int32) error {
	if id < 0 {
		return fmt.Errorf("control: broker id %d is negative; node ids must be at least 0", id)
	}
	if _, ok := c.byID[id]; ok {
		return fmt.Errorf("control: node %d already exists; a broker id must differ from every controller %v and broker", id, c.cfg.Quorum.Voters)
	}
	// With no image: brokers keep their view in the embedding layer.
	b := &brokerObserver{id: id, running: true}
	c.brokers = append(c.brokers, b)
	c.byID[id] = node{brk: b}
	if err := c.q.AddObserver(quorum.NodeID(id)); err != nil {
		c.brokers = c.brokers[:len(c.brokers)-1]
		delete(c.byID, id)
		return err
	}
	return nil
}

// SetTrace makes the quorum and the controllers write one line per notable event to w (nil turns
// tracing off). Two runs with the same seed and inputs write the same bytes.
func (c *Controllers) SetTrace(w io.Writer) {
	c.trace = w
	c.iv.trace = w
	c.q.SetTrace(w)
}

// Observe installs the observer; the zero Observer removes it.
func (c *Controllers) Observe(o Observer) {
	c.obs = o
	c.q.ObserveMessages(o.Message)
}

// Client returns the brokers' ControllerClient.
func (c *Controllers) Client() *Client { return &Client{c: c} }
