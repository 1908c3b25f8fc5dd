package cluster

import (
	"errors"
	"fmt"

	"github.com/kraftlab/kraftlab/cluster/control"
	"github.com/kraftlab/kraftlab/cluster/quorum"
	"github.com/kraftlab/kraftlab/engine/controller"
	"github.com/kraftlab/kraftlab/engine/metadata"
)

// HappeningKind says what a Happening is.
type HappeningKind uint8

// Happening kinds.
const (
	// Sent is a message leaving one node for another: a request or its answer.
	Sent HappeningKind = iota + 1
	// Committed is a metadata record committed by a majority of the controllers.
	Committed
	// Decided is something the controllers decided, with its reason: a session expiry, a
	// leader election, an ISR change, a fence, a balancer run, a new quorum leader, a snapshot.
	Decided
)

// String names the kind as frames spell it.
func (k HappeningKind) String() string {
	switch k {
	case Sent:
		return "sent"
	case Committed:
		return "committed"
	case Decided:
		return "decided"
	}
	return fmt.Sprintf("HappeningKind(%d)", uint8(k))
}

// Decision kinds (Happening.Decision), as frames spell them.
const (
	// DecisionSessionExpired: the maybeFenceStaleBroker task found a broker's session expired
	// and wrote its fence (committed later).
	DecisionSessionExpired = "session_expired"
	// DecisionFenced, DecisionUnfenced: a broker's fence or unfence committed.
	DecisionFenced   = "fenced"
	DecisionUnfenced = "unfenced"
	// DecisionLeader: a partition's leader changed (Election says how, Reason why).
	DecisionLeader = "leader"
	// DecisionIsr: a partition's ISR changed.
	DecisionIsr = "isr"
	// DecisionBalancerRun: an electPreferred run: what it elected, what the cap deferred and
	// what the wait-for-sync gate withheld.
	DecisionBalancerRun = "balancer_run"
	// DecisionQuorumLeader: a controller's LeaderChangeMessage committed: it is active.
	DecisionQuorumLeader = "quorum_leader"
	// DecisionSnapshot: a controller took a metadata snapshot.
	DecisionSnapshot = "snapshot"
)

// Election kinds (Happening.Election), after Kafka's PartitionChangeBuilder elections plus the
// cases a learner tells apart.
const (
	ElectionPreferred          = "preferred"
	ElectionOnline             = "online"
	ElectionUnclean            = "unclean"
	ElectionControlledShutdown = "controlled_shutdown"
	// ElectionNone: the partition lost its leader and no replica could take over.
	ElectionNone = "offline"
)

// Happening is one thing that happened in the cluster: a message sent, a record committed or a
// decision taken. Which fields are set depends on Kind (and, for decisions, on Decision). Node
// ids are Kafka node ids: brokers below control.FirstVoterID, controllers from it.
type Happening struct {
	Kind HappeningKind
	// AtMs is the scenario time it happened: a message's sending, a record's commit, a decision.
	AtMs int64

	// Sent: API is Kafka's ApiKeys name (BrokerHeartbeat, AlterPartition, BrokerRegistration,
	// Fetch, FetchSnapshot, Vote, BeginQuorumEpoch, EndQuorumEpoch); Response marks the answer.
	// ArriveMs is when it reaches To (-1: never: the link is cut or the receiver down).
	API      string
	Response bool
	From, To int32
	ArriveMs int64

	// Committed: the record's offset and type, and the committed entry itself (its record is
	// the metadata log's own: an observer reads it and never changes it).
	Offset int64
	Record string
	Entry  control.CommittedEntry

	// Decided: the decision kind (Decision* constants) and its reason in one sentence.
	Decision string
	Reason   string
	// Partition is the partition's index in the committed view (-1: none), with its leader
	// before and after a DecisionLeader, and Election its kind (Election* constants).
	Partition         int32
	Leader, OldLeader int32
	Election          string
	// Trigger names what caused an election or a run: "fence of broker 1", "electPreferred
	// run 4", "elect_leaders", "controlled shutdown of broker 2", "ISR change".
	Trigger string
	// Brokers are the brokers a decision is about: the fenced broker, the gated brokers of a
	// balancer run. Run numbers a balancer run from 1; Elected, Deferred and Withheld count
	// what it elected, what the cap left for later and the preferred leaderships the gate held
	// back (its gated brokers' out-of-sync ones and the in-sync ones it skipped).
	Brokers                     []int32
	Run                         int
	Elected, Deferred, Withheld int
	// SilentMs is, for a DecisionSessionExpired, how long the broker had sent no heartbeat
	// the controller heard.
	SilentMs int64

	// note is a broker request's phrase (Note); raft (the sender's epoch + 1, 0 for a broker
	// request), entries, granted, preVote and snapshot are what a Raft RPC's phrase is made of.
	note                       string
	raft                       int32
	entries                    int64
	granted, preVote, snapshot bool
}

// Observe installs fn to be told of every happening from now on, in the order they happen
// (AtMs never decreases); nil removes it. The Happening is lent for the call only: fn copies
// what it keeps and changes nothing in it. Observing changes nothing the cluster does: the same
// Spec and events give the same results, byte for byte, and nothing is built for an observer
// when there is none.
func (c *Cluster) Observe(fn func(*Happening)) {
	c.obs = fn
	if fn == nil {
		c.ctl.Observe(control.Observer{})
		c.runOf, c.manualElection = nil, nil
		return
	}
	c.runOf, c.manualElection = map[int32]int{}, map[int32]bool{}
	c.ctl.Observe(control.Observer{Message: c.tellMessage, Request: c.tellRequest, SessionExpired: c.tellSessionExpired})
}

// tell hands h to the observer through one reused Happening, so that the millions of messages a
// long run sends cost no allocation each: the observer gets a pointer valid only during the call.
func (c *Cluster) tell(h *Happening) {
	c.hap = *h
	c.obs(&c.hap)
}

// scenarioMs turns a simulation time into a scenario time, keeping -1 (never).
func (c *Cluster) scenarioMs(t int64) int64 {
	if t < 0 {
		return -1
	}
	return t - c.t0
}

// tellMessage tells of a Raft message through c.sent, a Happening kept for them alone: its
// other fields stay zero, so only the message's own are written. A whole Happening is about
// 300 bytes with a dozen pointers; copying one for every message (as tell does) cost about 2 %
// of a quiet run in wasm, where the GC's mark phase, and with it the copy's write barriers,
// lasts a good part of the run.
func (c *Cluster) tellMessage(m *quorum.Message) {
	h := &c.sent
	h.Kind, h.AtMs, h.API, h.Response, h.From, h.To = Sent, c.scenarioMs(m.SentMs), m.API, m.Response, int32(m.From), int32(m.To)
	h.ArriveMs, h.Partition, h.raft, h.entries = c.scenarioMs(m.DeliverMs), -1, m.Epoch+1, m.Entries
	h.granted, h.preVote, h.snapshot = m.Granted, m.PreVote, m.Snapshot
	c.obs(h)
}

// raftNote says what a Raft RPC means, from the fields tellMessage keeps; it is built only when
// asked for (Note), since most messages are only counted.
func (h *Happening) raftNote() string {
	epoch := h.raft - 1
	switch {
	case h.API == "Fetch" && h.Response && h.snapshot:
		return "fetch the snapshot instead"
	case h.API == "Fetch" && h.Response && h.entries > 0:
		return fmt.Sprintf("brings %d records", h.entries)
	case h.API == "Fetch" && h.Response:
		return "nothing new"
	case h.API == "Fetch":
		return "any new records?"
	case h.API == "FetchSnapshot" && h.Response:
		return "a snapshot chunk"
	case h.API == "Vote" && h.Response && h.granted:
		return "granted"
	case h.API == "Vote" && h.Response:
		return "refused"
	case h.API == "Vote" && h.preVote:
		return fmt.Sprintf("pre-vote for epoch %d?", epoch+1)
	case h.API == "Vote":
		return fmt.Sprintf("vote for me in epoch %d", epoch)
	case h.API == "BeginQuorumEpoch":
		return fmt.Sprintf("I lead epoch %d", epoch)
	case h.API == "EndQuorumEpoch":
		return fmt.Sprintf("I resign epoch %d", epoch)
	}
	return ""
}

// Note is a short phrase for a message's label: "ready: unfence me", "brings 3 records".
func (h *Happening) Note() string {
	if h.raft != 0 {
		return h.raftNote()
	}
	return h.note
}

func (c *Cluster) tellRequest(r *control.Request) {
	req := Happening{Kind: Sent, AtMs: c.scenarioMs(r.SentMs), API: r.API, From: r.Broker, To: r.Controller,
		ArriveMs: c.scenarioMs(r.ArriveMs), Partition: -1}
	switch {
	case r.Heartbeat != nil && r.Heartbeat.WantShutDown:
		req.note = "I want to shut down"
	case r.Heartbeat != nil && r.Heartbeat.WantFence:
		req.note = "not ready: keep me fenced"
	case r.Heartbeat != nil:
		req.note = "ready: unfence me"
	case r.API == "AlterPartition":
		req.note = fmt.Sprintf("new ISR for %d partitions", r.Partitions)
	case r.API == "BrokerRegistration":
		req.note = "register me"
	}
	if r.Controller < 0 {
		req.To, req.note = -1, req.note+" (no controller known)"
	}
	c.tell(&req)
	if r.ReplyMs < 0 {
		return
	}
	rep := Happening{Kind: Sent, AtMs: req.ArriveMs, API: r.API, Response: true, From: r.Controller, To: r.Broker,
		ArriveMs: c.scenarioMs(r.ReplyMs), Partition: -1}
	switch {
	case r.Err != nil:
		rep.note = errorNote(r.Err)
	case r.HeartbeatReply != nil && r.HeartbeatReply.ShouldShutDown:
		rep.note = "shut down now"
	case r.HeartbeatReply != nil && r.HeartbeatReply.InControlledShutdown:
		rep.note = "you are in controlled shutdown"
	case r.HeartbeatReply != nil && r.HeartbeatReply.IsFenced:
		rep.note = "you stay fenced"
	case r.HeartbeatReply != nil:
		rep.note = "you are unfenced"
	default:
		rep.note = "ok"
	}
	// The answer is sent when the request arrives, in the drawing; the model settles both at
	// once (control.Client), so the order of the stream is kept by sending it at the same time.
	rep.AtMs = req.AtMs
	c.tell(&rep)
}

// errorNote is an answer's phrase for its error: the API error's code, or "error". It is a
// function of its own so that the variable errors.As fills, which escapes, is allocated only
// for an answer with an error, not for every request told.
func errorNote(err error) string {
	var apiErr *controller.APIError
	if errors.As(err, &apiErr) {
		return string(apiErr.Code)
	}
	return "error"
}

func (c *Cluster) tellSessionExpired(ctl, broker int32, lastContactMs, nowMs int64) {
	c.tell(&Happening{Kind: Decided, AtMs: c.scenarioMs(nowMs), Decision: DecisionSessionExpired, Partition: -1,
		From: ctl, Brokers: []int32{broker}, Leader: -1, OldLeader: -1, SilentMs: nowMs - lastContactMs,
		Reason: fmt.Sprintf("controller %d's session check: broker %d sent no heartbeat for %d ms, more than broker.session.timeout.ms, so it writes the fence",
			ctl, broker, nowMs-lastContactMs)})
}

// tellCommitted reports one committed entry and what it decided, after it is replayed into the
// view; before is the partition it changed as it was (nil for other records).
func (c *Cluster) tellCommitted(ce control.CommittedEntry, before *metadata.Partition, idx int32) {
	now := ce.CommitMs - c.t0
	c.tell(&Happening{Kind: Committed, AtMs: now, Offset: ce.Offset, Record: ce.Record.Type(), Partition: idx, Entry: ce})
	switch r := ce.Record.(type) {
	case *metadata.BrokerRegistrationChangeRecord:
		switch r.Fenced {
		case metadata.FenceFence:
			reason := fmt.Sprintf("broker %d is fenced: it may lead no partition and leaves every ISR", r.BrokerID)
			if b := c.view.Broker(r.BrokerID); b != nil && b.InControlledShutdown {
				reason = fmt.Sprintf("broker %d is fenced: its controlled shutdown is complete", r.BrokerID)
			}
			c.tell(&Happening{Kind: Decided, AtMs: now, Decision: DecisionFenced, Brokers: []int32{r.BrokerID}, Partition: -1,
				Leader: -1, OldLeader: -1, Reason: reason})
		case metadata.FenceUnfence:
			c.tell(&Happening{Kind: Decided, AtMs: now, Decision: DecisionUnfenced, Brokers: []int32{r.BrokerID}, Partition: -1,
				Leader: -1, OldLeader: -1, Reason: fmt.Sprintf("broker %d is unfenced: it caught up with the metadata log and may lead again", r.BrokerID)})
		}
	case *metadata.LeaderChangeMessage:
		c.tell(&Happening{Kind: Decided, AtMs: now, Decision: DecisionQuorumLeader, From: r.LeaderID, Partition: -1,
			Leader: r.LeaderID, OldLeader: -1,
			Reason: fmt.Sprintf("controller %d won the vote for epoch %d and is the active controller", r.LeaderID, r.Epoch)})
	case *metadata.PartitionChangeRecord:
		if before == nil || idx < 0 {
			return
		}
		p := &c.view.Partitions[idx]
		name := fmt.Sprintf("%s-%d", r.Topic, r.PartitionID)
		if r.Isr != nil {
			c.tell(&Happening{Kind: Decided, AtMs: now, Decision: DecisionIsr, Partition: idx, Leader: p.Leader, OldLeader: before.Leader,
				Reason: fmt.Sprintf("%s: the ISR is now %v (was %v)", name, p.Isr(), before.Isr())})
		}
		if r.Leader != metadata.NoLeaderChange && r.Leader != before.Leader {
			c.tellLeader(now, idx, name, before.Leader, p)
		}
	}
}

// tellLeader reports a leader change with its election kind and what triggered it.
func (c *Cluster) tellLeader(now int64, idx int32, name string, from int32, p *metadata.Partition) {
	h := Happening{Kind: Decided, AtMs: now, Decision: DecisionLeader, Partition: idx, Leader: p.Leader, OldLeader: from}
	// The active controller writes a broker's fence or controlled shutdown in the same batch as
	// the leader changes it causes, after them (as Kafka's handleBrokerFenced does), so its
	// image, not the committed view, says whether the old leader is leaving.
	var fromReg *metadata.Broker
	if e := c.ctl.ActiveController(); from >= 0 && e != nil {
		fromReg = e.Image().Broker(from)
	} else if from >= 0 {
		fromReg = c.view.Broker(from)
	}
	run, byRun := c.runOf[idx]
	delete(c.runOf, idx)
	manual := c.manualElection[idx]
	delete(c.manualElection, idx)
	switch {
	case p.Leader < 0:
		h.Election = ElectionNone
	case p.Recovery() == metadata.Recovering:
		h.Election = ElectionUnclean
	case byRun:
		h.Election, h.Trigger = ElectionPreferred, fmt.Sprintf("electPreferred run %d", run)
	case manual && p.Leader == p.Preferred():
		h.Election, h.Trigger = ElectionPreferred, "elect_leaders"
	case fromReg != nil && fromReg.InControlledShutdown:
		h.Election = ElectionControlledShutdown
	default:
		h.Election = ElectionOnline
	}
	if h.Trigger == "" {
		switch {
		case manual:
			h.Trigger = "elect_leaders"
		case fromReg != nil && fromReg.InControlledShutdown:
			h.Trigger = fmt.Sprintf("controlled shutdown of broker %d", from)
		case fromReg != nil && fromReg.Fenced:
			h.Trigger = fmt.Sprintf("fence of broker %d", from)
		case from >= 0:
			h.Trigger = "ISR change"
		default:
			h.Trigger = "a replica came back"
		}
	}
	switch {
	case p.Leader < 0:
		h.Reason = fmt.Sprintf("%s has no leader (%s): no replica in the ISR or ELR can take over", name, h.Trigger)
	case from < 0:
		h.Reason = fmt.Sprintf("%s: broker %d elected leader (%s election, %s)", name, p.Leader, h.Election, h.Trigger)
	default:
		h.Reason = fmt.Sprintf("%s: leader moved from broker %d to broker %d (%s election, %s)", name, from, p.Leader, h.Election, h.Trigger)
	}
	c.tell(&h)
}

// tellRun reports an electPreferred run (number n, from 1) and remembers what it elected, so
// that the leader changes, when they commit, name the run as their trigger.
func (c *Cluster) tellRun(n int, r *BalancerRun) {
	for i, tp := range r.Partitions {
		if idx, ok := c.view.PartitionIndex(tp.Topic, tp.Partition); ok && i < len(r.Leaders) {
			c.runOf[idx] = n
		}
	}
	// What the gate held back: every preferred leadership of a gated broker not handed back,
	// out of sync (it cannot lead yet) or in sync but skipped because of the gate.
	withheld := r.SkippedByGate
	reason := fmt.Sprintf("electPreferred run %d elected %d", n, len(r.Elected))
	for _, oc := range r.OutOfSync {
		withheld += oc.Count
		reason += fmt.Sprintf("; the wait-for-sync gate holds back broker %d: %d of its preferred partitions are out of sync", oc.Broker, oc.Count)
	}
	if len(r.OutOfSync) == 0 && len(r.GatedBrokers) > 0 {
		reason += fmt.Sprintf("; the wait-for-sync gate holds back brokers %v", r.GatedBrokers)
	}
	if r.SkippedByGate > 0 {
		reason += fmt.Sprintf("; it withheld %d partitions whose preferred replica is already in sync", r.SkippedByGate)
	}
	if r.DeferredByCap > 0 {
		reason += fmt.Sprintf("; the cap (%d per run) deferred %d to the next run", r.MaxPerRun, r.DeferredByCap)
	}
	c.tell(&Happening{Kind: Decided, AtMs: r.TimeMs, Decision: DecisionBalancerRun, Partition: -1, Leader: -1, OldLeader: -1,
		Run: n, Elected: len(r.Elected), Deferred: r.DeferredByCap, Withheld: withheld,
		Brokers: append([]int32(nil), r.GatedBrokers...), Trigger: "the electPreferred timer", Reason: reason})
}
