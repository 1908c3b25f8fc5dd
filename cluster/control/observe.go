package control

import (
	"github.com/kraftlab/kraftlab/cluster/quorum"
	"github.com/kraftlab/kraftlab/engine/controller"
	"github.com/kraftlab/kraftlab/engine/metadata"
)

// Observer is told what travels between the nodes and what the active controller decides on
// its own, for drawings and narration. Every field is optional. The calls only read: a run
// draws the same random numbers and gives the same results whether or not anyone observes.
type Observer struct {
	// Message is a Raft RPC between quorum members (controllers and the brokers' metadata
	// observers): Fetch, FetchSnapshot, Vote, BeginQuorumEpoch, EndQuorumEpoch.
	Message func(*quorum.Message)
	// Request is a broker's request to the active controller and its answer.
	Request func(*Request)
	// SessionExpired is the maybeFenceStaleBroker task finding a broker silent for longer
	// than broker.session.timeout.ms, as it writes the fence (not yet committed).
	SessionExpired func(controller, broker int32, lastContactMs, nowMs int64)
}

// Request is one broker → controller request and its answer.
type Request struct {
	// API is Kafka's ApiKeys name: BrokerRegistration, BrokerHeartbeat or AlterPartition.
	API    string
	Broker int32
	// Controller is where it went, -1 when the broker knew no leader to send it to.
	Controller int32
	// SentMs is when the broker sent it; ArriveMs when it reaches the controller (-1: never,
	// the controller is stopped or the link cut); ReplyMs when the answer reaches the broker
	// (-1: no answer, the broker times out). The model handles a request when it is sent (see
	// Client); ArriveMs is the outbound hop the network would take, for drawing.
	SentMs, ArriveMs, ReplyMs int64
	// Err is the answer's error, if any.
	Err error
	// Heartbeat and HeartbeatReply are set for BrokerHeartbeat.
	Heartbeat      *controller.HeartbeatRequest
	HeartbeatReply *controller.HeartbeatReply
	// Partitions counts the partitions of an AlterPartition.
	Partitions int
}

// route is where the last request went and how long its outbound hop took (-1: it never
// arrived), noted by request for the observer.
type route struct {
	to    int32
	outMs int64
}

// requestNote is what a routed request lends Observer.Request: one reused, so that requests
// cost no allocation.
type requestNote struct {
	route     route
	request   Request
	heartbeat controller.HeartbeatRequest
	reply     controller.HeartbeatReply
}

// tell reports to tell a request that has just been routed (to n.route), answered after delay
// with err (unreachable: no answer). The Request (and what it points to) is lent for the call
// only.
func (n *requestNote) tell(tell func(*Request), req *Request, nowMs, delay int64, err error, unreachable bool) {
	// req is copied and never handed on, so that the caller's Request stays on its stack:
	// handing req to tell would cost an allocation per request (every broker heartbeat).
	n.request = *req
	r := &n.request
	r.SentMs, r.Controller, r.Err = nowMs, n.route.to, err
	r.ArriveMs, r.ReplyMs = -1, -1
	if n.route.outMs >= 0 {
		r.ArriveMs = nowMs + n.route.outMs
	}
	if r.ArriveMs >= 0 && !unreachable {
		r.ReplyMs = nowMs + delay
	}
	tell(r)
}

// tellSessionExpiry reports to tell the fences the maybeFenceStaleBroker task wrote on the
// node's engine, the engine's log having been at offset before the task ran.
func (m *controllerNode) tellSessionExpiry(tell func(controller, broker int32, lastContactMs, nowMs int64), before int64, nowMs int64) {
	eng := m.engine()
	if eng == nil {
		return
	}
	for _, e := range eng.Log().Since(before) {
		r, ok := e.Record.(*metadata.BrokerRegistrationChangeRecord)
		if !ok || r.Fenced != metadata.FenceFence {
			continue
		}
		last, _ := eng.LastContact(r.BrokerID)
		tell(m.id, r.BrokerID, last, nowMs)
	}
}
