package bridge

import (
	"strconv"

	"github.com/kraftlab/kraftlab/cluster"
)

// Traffic is what travelled between the nodes and what the controllers decided inside a frame's
// time window (FromMs, ToMs]: the frame's share of the cluster's stream of happenings
// (cluster.Happening). The page draws the messages travelling, the links pulsing, the flows and
// the decisions, and narrates the decisions; all of it comes from this one stream.
type Traffic struct {
	FromMs int64 `json:"fromMs"`
	ToMs   int64 `json:"toMs"`
	// Messages are the window's messages one by one, when there are at most maxFrameMessages
	// of them; otherwise only Links count them.
	Messages []MessageInfo `json:"messages"`
	// Links counts the window's messages per link, API and direction.
	Links []LinkInfo `json:"links"`
	// Decisions are the window's decisions in time order; many alike (a fence's leader moves)
	// are folded into one with a Count.
	Decisions []DecisionInfo `json:"decisions"`
	// DecisionsDropped counts decisions left out over maxFrameDecisions.
	DecisionsDropped int `json:"decisionsDropped,omitempty"`
	// Flows are the replication flows between brokers at the frame's time.
	Flows []FlowInfo `json:"flows"`
	// SteadyBytesPerSec gives, per broker (in Frame.Brokers order), the bytes per second its
	// leaders serve to in-sync followers; the page splits it over the followers it draws.
	SteadyBytesPerSec []float64 `json:"steadyBytesPerSec"`
}

// MessageInfo is one message: API is Kafka's ApiKeys name, Response marks the answer, From and
// To are node ids (-1: the broker knew no controller), ArriveMs is -1 when it never arrives.
type MessageInfo struct {
	API      string `json:"api"`
	Response bool   `json:"response,omitempty"`
	From     int32  `json:"from"`
	To       int32  `json:"to"`
	SentMs   int64  `json:"sentMs"`
	ArriveMs int64  `json:"arriveMs"`
	Note     string `json:"note,omitempty"`
}

// LinkInfo counts the messages of one API and direction on one link in the window.
type LinkInfo struct {
	API      string `json:"api"`
	Response bool   `json:"response,omitempty"`
	From     int32  `json:"from"`
	To       int32  `json:"to"`
	Count    int    `json:"count"`
}

// DecisionInfo is one decision (cluster.Decided), or Count alike ones folded together.
type DecisionInfo struct {
	TimeMs   int64  `json:"timeMs"`
	Decision string `json:"decision" ts:"DecisionKind"`
	Reason   string `json:"reason"`
	// Node is the controller that decided (session expiry, quorum leader, snapshot).
	Node    int32   `json:"node,omitempty"`
	Brokers []int32 `json:"brokers,omitempty"`
	// Partitions are the partitions' indexes in the frame's arrays (at most maxDecisionParts).
	Partitions []int32 `json:"partitions,omitempty"`
	Count      int     `json:"count"`
	Leader     int32   `json:"leader"`
	OldLeader  int32   `json:"oldLeader"`
	Election   string  `json:"election,omitempty" ts:"DecisionElection"`
	Trigger    string  `json:"trigger,omitempty"`
	Run        int     `json:"run,omitempty"`
	Elected    int     `json:"elected,omitempty"`
	Deferred   int     `json:"deferred,omitempty"`
	Withheld   int     `json:"withheld,omitempty"`
}

// FlowInfo is replication from a leader broker to a follower broker: catch-up bytes per second
// (the follower's out-of-sync replicas fetching, as the model's allocator grants them).
type FlowInfo struct {
	Leader        int32   `json:"leader"`
	Follower      int32   `json:"follower"`
	CatchUpPerSec float64 `json:"catchUpBytesPerSec"`
}

const (
	// maxFrameMessages is how many messages a frame carries one by one; past it the page
	// draws pulsing links with counts instead, which reads better than a cloud of dots.
	maxFrameMessages = 240
	// maxFrameDecisions caps a frame's decisions after folding.
	maxFrameDecisions = 200
	// maxDecisionParts caps the partitions a folded decision names.
	maxDecisionParts = 512
	// foldAfter is how many decisions a window may hold before alike ones are folded.
	foldAfter = 24
)

// linkKey is a link and direction of one API, the API as its index in trafficLog.apis: a key
// of fixed size hashes as one block, where a string field would be hashed apart, and every
// message the cluster sends passes here.
type linkKey struct {
	api      uint8
	response bool
	from, to int32
}

// trafficLog collects the cluster's happenings between two frames. Its memory is bounded
// whatever the window: messages past maxFrameMessages are only counted per link, and
// decisions past a hard cap only counted.
type trafficLog struct {
	fromMs   int64
	msgs     []MessageInfo
	overflow bool
	// links indexes links by key; links and linkOrder are kept between windows.
	links     map[linkKey]int32
	linkOrder []LinkInfo
	// apis are the API names seen, in the order first seen (linkKey.api).
	apis      []string
	decisions []cluster.Happening
	dropped   int
}

// newTrafficLog starts a window at nowMs; the shown cluster's observer (live.observe) feeds it.
func newTrafficLog(nowMs int64) *trafficLog {
	return &trafficLog{fromMs: nowMs, links: map[linkKey]int32{}}
}

// maxHeldDecisions bounds the decisions held between frames before folding: a fence at
// 100,000 partitions decides a leader move for tens of thousands of them at once.
const maxHeldDecisions = 20_000

func (t *trafficLog) observe(h *cluster.Happening) {
	switch h.Kind {
	case cluster.Sent:
		k := linkKey{api: t.api(h.API), response: h.Response, from: h.From, to: h.To}
		i, ok := t.links[k]
		if !ok {
			i = int32(len(t.linkOrder))
			t.links[k] = i
			t.linkOrder = append(t.linkOrder, LinkInfo{API: h.API, Response: h.Response, From: h.From, To: h.To})
		}
		t.linkOrder[i].Count++
		if len(t.msgs) < maxFrameMessages {
			t.msgs = append(t.msgs, MessageInfo{API: h.API, Response: h.Response, From: h.From, To: h.To,
				SentMs: h.AtMs, ArriveMs: h.ArriveMs, Note: h.Note()})
		} else {
			t.overflow = true
		}
	case cluster.Decided:
		if len(t.decisions) < maxHeldDecisions {
			t.decisions = append(t.decisions, *h)
		} else {
			t.dropped++
		}
	}
}

// api is name's index in t.apis. A cluster speaks a dozen APIs, so a scan is quicker than a
// hash, and the names are the packages' constants, which compare by pointer first.
func (t *trafficLog) api(name string) uint8 {
	for i, a := range t.apis {
		if a == name {
			return uint8(i)
		}
	}
	if len(t.apis) == 255 {
		panic("bridge: more than 255 APIs in the traffic") // Kafka has fewer than 100
	}
	t.apis = append(t.apis, name)
	return uint8(len(t.apis) - 1)
}

// clear forgets what was collected: after a seek or a load, the replay's traffic is not news.
func (t *trafficLog) clear(nowMs int64) {
	decisions := t.decisions[:0]
	if cap(decisions) > reusedCap {
		decisions = nil
	}
	*t = trafficLog{fromMs: nowMs, links: t.links, linkOrder: t.linkOrder[:0], apis: t.apis, msgs: t.msgs[:0], decisions: decisions}
	clear(t.links)
}

// take returns the traffic since the previous call, up to nowMs, and starts a new window.
func (t *trafficLog) take(nowMs int64) *Traffic {
	out := &Traffic{FromMs: t.fromMs, ToMs: nowMs, Messages: []MessageInfo{}, Links: []LinkInfo{}, Decisions: []DecisionInfo{},
		Flows: []FlowInfo{}, DecisionsDropped: t.dropped}
	if !t.overflow {
		out.Messages = append(out.Messages, t.msgs...)
	}
	out.Links = append(out.Links, t.linkOrder...)
	out.Decisions = fold(t.decisions)
	if n := len(out.Decisions); n > maxFrameDecisions {
		out.DecisionsDropped += n - maxFrameDecisions
		out.Decisions = out.Decisions[n-maxFrameDecisions:]
	}
	t.clear(nowMs)
	return out
}

// fold turns decisions into DecisionInfos; when there are many, decisions alike (same kind,
// election, trigger and leaders) are folded into the first of them, with a count and the
// partitions they name.
func fold(hs []cluster.Happening) []DecisionInfo {
	out := make([]DecisionInfo, 0, min(len(hs), maxFrameDecisions))
	type key struct {
		decision, election, trigger string
		leader, old                 int32
	}
	var byKey map[key]int
	if len(hs) > foldAfter {
		byKey = map[key]int{}
	}
	for i := range hs {
		h := &hs[i]
		if byKey != nil && (h.Decision == cluster.DecisionLeader || h.Decision == cluster.DecisionIsr) {
			k := key{h.Decision, h.Election, h.Trigger, h.Leader, h.OldLeader}
			if h.Decision == cluster.DecisionIsr {
				k.leader, k.old = 0, 0
			}
			if j, ok := byKey[k]; ok {
				d := &out[j]
				d.Count++
				if h.Partition >= 0 && len(d.Partitions) < maxDecisionParts {
					d.Partitions = append(d.Partitions, h.Partition)
				}
				continue
			}
			byKey[k] = len(out)
		}
		d := DecisionInfo{TimeMs: h.AtMs, Decision: h.Decision, Reason: h.Reason, Brokers: h.Brokers, Count: 1,
			Leader: h.Leader, OldLeader: h.OldLeader, Election: h.Election, Trigger: h.Trigger, Run: h.Run,
			Elected: h.Elected, Deferred: h.Deferred, Withheld: h.Withheld}
		switch h.Decision {
		case cluster.DecisionSessionExpired, cluster.DecisionQuorumLeader, cluster.DecisionSnapshot:
			d.Node = h.From
		}
		if h.Partition >= 0 {
			d.Partitions = []int32{h.Partition}
		}
		out = append(out, d)
	}
	for i := range out {
		if out[i].Count > 1 {
			out[i].Reason = foldedReason(&out[i])
		}
	}
	return out
}

// foldedReason rewrites a folded decision's sentence for all its partitions.
func foldedReason(d *DecisionInfo) string {
	n := thousands(int64(d.Count))
	switch d.Decision {
	case cluster.DecisionLeader:
		if d.Leader < 0 {
			return n + " partitions have no leader (" + d.Trigger + "): no replica in the ISR or ELR can take over"
		}
		if d.OldLeader < 0 {
			return n + " partitions elected broker " + brokerText(d.Leader) + " leader (" + d.Election + " election, " + d.Trigger + ")"
		}
		return "leadership of " + n + " partitions moved from broker " + brokerText(d.OldLeader) + " to broker " + brokerText(d.Leader) +
			" (" + d.Election + " election, " + d.Trigger + ")"
	case cluster.DecisionIsr:
		return "the ISR of " + n + " partitions changed"
	}
	return d.Reason
}

func brokerText(v int32) string { return strconv.Itoa(int(v)) }

// flows adds the replication flows and the brokers' steady serving rates at the frame's time.
func (tr *Traffic) flows(c *cluster.Cluster, brokers []int32) {
	fleet := c.Fleet()
	fleet.CatchUpFlows(func(leader, follower int32, bps float64) {
		tr.Flows = append(tr.Flows, FlowInfo{Leader: leader, Follower: follower, CatchUpPerSec: round2(bps)})
	})
	tr.SteadyBytesPerSec = make([]float64, len(brokers))
	for i, id := range brokers {
		tr.SteadyBytesPerSec[i] = round2(fleet.SteadyReplicationRate(id))
	}
}

// reusedCap bounds the capacity a per-frame buffer keeps from one frame to the next. A burst's
// backing array (a fence at 10,000 partitions decides and commits thousands of changes at once)
// is let go instead: kept, it would be marked by every cycle of Go's collector, which in the
// worker holds up the simulation while it runs, and would hold on to what its stale elements
// point at.
const reusedCap = 256
