package control

import (
	"fmt"
	"io"

	"github.com/kraftlab/kraftlab/cluster/quorum"
	"github.com/kraftlab/kraftlab/cluster/sim"
	"github.com/kraftlab/kraftlab/engine/metadata"
)

// Event kinds Controllers schedules on the sim; each event's ID is a controller's idx.
const (
	evActivate int32 = iota + 1
	evTask           // Arg: gen
	evShip           // Arg: gen
)

// Controllers is the controller quorum of one simulated cluster, with the brokers attached as
// observers. It runs on the caller's sim.Sim and, like everything driven by it, is not safe for
// concurrent use.
type Controllers struct {
	sim    *sim.Sim
	cfg    Config
	cb     Callbacks
	obs    Observer
	q      *quorum.Quorum[metadata.Record]
	rand   *sim.Rand // "control": engine seeds
	net    network
	events handler // the sim.Handler of the events above
	// lent is what the last request lends the observer, reused.
	lent requestNote

	// The nodes: controllers in Config.Quorum.Voters order, brokers in the order attached.
	controllers []*controllerNode
	brokers     []*brokerObserver
	byID        map[int32]node

	log    committedLog
	images *images
	iv     invariants

	activeByEpoch []int32 // node that activated an engine in each epoch, -1 for none
	// hookDepth counts the quorum hooks running: inside one, fault actions fail and an engine's
	// records wait for an evShip event (the quorum must not be appended to from its hooks).
	hookDepth   int
	lastSnapped int64 // bytes of the latest controller snapshot, to size broker snapshots
	stats       Stats
	trace       io.Writer

	recBuf []quorum.Record[metadata.Record] // ship's reused batch
}

// node is one member of the quorum: exactly one of the two is set.
type node struct {
	ctl *controllerNode
	brk *brokerObserver
}

// node looks up a controller or an attached broker.
func (c *Controllers) node(id int32) (node, error) {
	n, ok := c.byID[id]
	if !ok {
		return node{}, fmt.Errorf("control: node %d is neither a controller %v nor an attached broker", id, c.cfg.Quorum.Voters)
	}
	return n, nil
}

func (c *Controllers) notInHook(what string) error {
	if c.hookDepth > 0 {
		return fmt.Errorf("control: %s called from inside a quorum callback; fault actions must come from outside (schedule a sim event)", what)
	}
	return nil
}

// activeNode is the running controller whose engine has the highest epoch, or nil.
func (c *Controllers) activeNode() *controllerNode {
	var best *controllerNode
	for _, m := range c.controllers {
		if m.active != nil && (best == nil || m.active.epoch > best.active.epoch) {
			best = m
		}
	}
	return best
}

// handler is Controllers' sim.Handler, a separate type so that its dispatch method is not part of
// the Controllers API.
type handler struct{ c *Controllers }

func (c *Controllers) tracef(id int32, format string, args ...any) {
	if c.trace == nil {
		return
	}
	fmt.Fprintf(c.trace, "%8d %5d ", c.sim.Now(), id)
	fmt.Fprintf(c.trace, format, args...)
	io.WriteString(c.trace, "\n")
}
