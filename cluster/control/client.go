package control

import (
	"errors"
	"fmt"
	"strings"

	"github.com/kraftlab/kraftlab/cluster/broker"
	"github.com/kraftlab/kraftlab/cluster/quorum"
	"github.com/kraftlab/kraftlab/engine/controller"
)

// Client is the brokers' way to the active controller: cluster/broker's ControllerClient over
// the controller quorum.
//
// A request from broker B at time t goes to the controller B's observer believes leads the
// quorum, as Kafka's NodeToControllerChannelManager sends to the leader its RaftManager knows:
//
//   - B's observer knows no leader, the leader is stopped, or the link between B and it is cut:
//     no answer. The error wraps broker.ErrUnreachable and a NOT_CONTROLLER *controller.APIError
//     naming the active controller, and delayMs is controller.quorum.request.timeout.ms, when
//     the broker gives up.
//   - The node is reached but runs no active engine (it lost leadership, or its epoch's
//     LeaderChangeMessage is not committed yet): a NOT_CONTROLLER *controller.APIError after a
//     network round trip.
//   - Otherwise the engine handles the request at t (the model does not delay processing by the
//     inbound hop) and its records go to the quorum at once. If the reply must wait for a commit
//     (the request wrote records, or, as Kafka's read-only path waits for the purgatory, earlier
//     records of this controller are still uncommitted) and no majority of voters is running
//     and linked to the controller, the reply is a timeout (an error wrapping
//     broker.ErrUnreachable, after controller.quorum.request.timeout.ms); the records stay in
//     the leader's log and commit later or are truncated. Otherwise delayMs is the round trip
//     plus the commit wait.
//
// The commit wait is estimated, because the interface is synchronous: 0 with one voter, else
// one fetch round trip at the worst network delay, 2 × (kraftlab.network.delay.ms +
// kraftlab.network.jitter.ms). That is exact when the followers' fetches are parked at the
// leader, as they are in steady state; when a follower's fetch is being answered as the records
// are appended, the real commit takes one more fetch round trip. Stats.ShortCommitWaits counts
// those, Stats.LateReplies the replies that reached the broker before their records committed
// (rarer, as the reply's own hops absorb most of the shortfall), and Stats.LostReplies the ones
// whose records never committed.
// A request that the engine refuses without writing anything is answered after the round trip.
// Network delays draw from the "control/network" stream.
type Client struct{ c *Controllers }

var _ broker.ControllerClient = (*Client)(nil)

// Register sends a BrokerRegistrationRequest.
func (cl *Client) Register(req controller.RegisterRequest, nowMs int64) (int64, int64, error) {
	var epoch int64
	delay, err := cl.request(req.BrokerID, nowMs, func(e *controller.Controller) error {
		var err error
		epoch, err = e.RegisterBroker(req, nowMs)
		return err
	})
	if cl.c.obs.Request != nil {
		cl.tell(&Request{API: "BrokerRegistration", Broker: req.BrokerID}, nowMs, delay, err)
	}
	return epoch, delay, err
}

// Heartbeat sends a BrokerHeartbeatRequest.
func (cl *Client) Heartbeat(req controller.HeartbeatRequest, nowMs int64) (controller.HeartbeatReply, int64, error) {
	reply := controller.HeartbeatReply{IsFenced: true} // the schema defaults, if no answer
	delay, err := cl.request(req.BrokerID, nowMs, func(e *controller.Controller) error {
		var err error
		reply, err = e.Heartbeat(req, nowMs)
		return err
	})
	if cl.c.obs.Request != nil {
		cl.c.lent.heartbeat, cl.c.lent.reply = req, reply
		cl.tell(&Request{API: "BrokerHeartbeat", Broker: req.BrokerID, Heartbeat: &cl.c.lent.heartbeat, HeartbeatReply: &cl.c.lent.reply}, nowMs, delay, err)
	}
	return reply, delay, err
}

// AlterPartition sends one AlterPartition request; errs[i] gets partition i's result.
func (cl *Client) AlterPartition(reqs []controller.AlterPartitionRequest, errs []error, nowMs int64) (int64, error) {
	if len(errs) < len(reqs) {
		return 0, fmt.Errorf("control: AlterPartition has %d requests but room for %d results; errs must be at least as long as reqs", len(reqs), len(errs))
	}
	if len(reqs) == 0 {
		return 0, fmt.Errorf("control: AlterPartition has no partitions; send at least one")
	}
	from := reqs[0].BrokerID
	delay, err := cl.request(from, nowMs, func(e *controller.Controller) error {
		e.AlterPartitions(reqs, errs, nowMs)
		return nil
	})
	if cl.c.obs.Request != nil {
		cl.tell(&Request{API: "AlterPartition", Broker: from, Partitions: len(reqs)}, nowMs, delay, err)
	}
	return delay, err
}

// UnreachableError is a request that got no answer. It wraps broker.ErrUnreachable, and, when
// the broker could not reach an active controller at all, a NOT_CONTROLLER *controller.APIError,
// so errors.As finds both.
type UnreachableError struct {
	Broker     int32                // who sent the request
	Controller int32                // where it went, or -1 when the broker knew no leader
	Reason     string               // why no answer came
	API        *controller.APIError // NOT_CONTROLLER, or nil for a commit timeout
}

// Error renders the failure.
func (e *UnreachableError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "request from broker %d got no answer: %s", e.Broker, e.Reason)
	if e.API != nil {
		fmt.Fprintf(&b, " (%s)", e.API.Error())
	}
	return b.String()
}

// Unwrap returns broker.ErrUnreachable and, if set, the NOT_CONTROLLER error.
func (e *UnreachableError) Unwrap() []error {
	if e.API == nil {
		return []error{broker.ErrUnreachable}
	}
	return []error{broker.ErrUnreachable, e.API}
}

// IsUnreachable reports whether err means the request got no answer.
func IsUnreachable(err error) bool { return errors.Is(err, broker.ErrUnreachable) }

// tell reports a request just routed to the observer.
func (cl *Client) tell(r *Request, nowMs, delay int64, err error) {
	cl.c.lent.tell(cl.c.obs.Request, r, nowMs, delay, err, IsUnreachable(err))
}

// activeNote names the active controller for NOT_CONTROLLER messages.
func (c *Controllers) activeNote() string {
	if m := c.activeNode(); m != nil {
		return fmt.Sprintf("the active controller is node %d (epoch %d)", m.id, m.active.epoch)
	}
	return "no controller is active"
}

func (c *Controllers) notController(format string, args ...any) *controller.APIError {
	return &controller.APIError{Code: controller.NotController, Message: fmt.Sprintf(format, args...) + "; " + c.activeNote()}
}

// request routes one broker request (see Client) and returns the reply delay.
func (cl *Client) request(from int32, nowMs int64, handle func(e *controller.Controller) error) (int64, error) {
	c := cl.c
	c.stats.Requests++
	c.lent.route = route{to: -1, outMs: -1}
	timeout := c.cfg.Quorum.RequestTimeoutMs
	unreachable := func(to int32, reason string, notCtl bool) (int64, error) {
		e := &UnreachableError{Broker: from, Controller: to, Reason: reason}
		if notCtl {
			c.stats.NotController++
			e.API = c.notController("broker %d cannot reach a controller", from)
		} else {
			c.stats.Timeouts++
		}
		return timeout, e
	}
	bm := c.byID[from].brk
	if bm == nil {
		return unreachable(-1, fmt.Sprintf("broker %d is not attached to the metadata quorum (AddBroker it)", from), true)
	}
	if !bm.running {
		return unreachable(-1, fmt.Sprintf("broker %d's metadata client is stopped", from), true)
	}
	st, _ := c.q.Node(quorum.NodeID(from))
	if st.LeaderID == quorum.NoNode {
		return unreachable(-1, fmt.Sprintf("broker %d knows no quorum leader in epoch %d", from, st.Epoch), true)
	}
	to := int32(st.LeaderID)
	c.lent.route.to = to
	m := c.byID[to].ctl
	if !m.running {
		return unreachable(to, fmt.Sprintf("controller %d is stopped", to), true)
	}
	if c.net.isCut(from, to) {
		return unreachable(to, fmt.Sprintf("the link between broker %d and controller %d is cut", from, to), true)
	}
	out := c.net.oneWay()
	rtt := out + c.net.oneWay()
	c.lent.route.outMs = out
	a := m.active
	if a == nil {
		c.stats.NotController++
		return rtt, c.notController("node %d is not the active controller", to)
	}
	log := a.engine.Log()
	before := log.NextOffset()
	reqErr := handle(a.engine)
	wrote := log.NextOffset() > before
	c.afterEngine(m)
	if m.active == nil {
		return unreachable(to, fmt.Sprintf("controller %d resigned while handling the request", to), false)
	}
	if reqErr != nil && !wrote {
		return rtt, reqErr
	}
	last := m.active.engine.Log().NextOffset() - 1
	st, _ = c.q.Node(quorum.NodeID(to))
	if last < st.HighWatermark {
		return rtt, reqErr
	}
	if !c.net.majorityReachable(m, c.controllers) {
		return unreachable(to, fmt.Sprintf("controller %d cannot commit offset %d: fewer than %d of the voters %v are running and linked to it",
			to, last, len(c.controllers)/2+1, c.cfg.Quorum.Voters), false)
	}
	wait := c.net.commitWait(len(c.controllers))
	c.log.pledges = append(c.log.pledges, pledge{offset: last, epoch: m.active.epoch, waitMs: nowMs + wait, replyMs: nowMs + rtt + wait})
	return rtt + wait, reqErr
}
