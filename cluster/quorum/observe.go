package quorum

// Message is one Raft RPC as an observer sees it: what was sent, between which nodes, and when
// it arrives. Observers (the page's traffic drawing) read it; nothing in the quorum depends on
// whether anyone watches.
type Message struct {
	// API is Kafka's ApiKeys name: Fetch, FetchSnapshot, Vote, BeginQuorumEpoch or
	// EndQuorumEpoch.
	API string
	// Response: this is the answer to an API request, not the request.
	Response bool
	From     NodeID
	To       NodeID
	// SentMs is the simulation time it was sent; DeliverMs when it arrives, or -1 when it
	// never will: the link is cut or the receiver is down.
	SentMs, DeliverMs int64
	// Epoch is the sender's epoch.
	Epoch int32
	// Entries counts the log entries a FetchResponse carries; Snapshot is set when a
	// FetchResponse points the follower at a snapshot or a FetchSnapshot answer carries one.
	Entries  int64
	Snapshot bool
	// PreVote marks a Vote of the pre-vote phase (KIP-996); Granted a Vote answer that grants.
	PreVote, Granted bool
}

// ObserveMessages installs fn to be told of every message as it is sent; nil removes it. It
// only reads: the quorum's behaviour and random draws are the same with or without it. The
// Message is lent for the call only (one is reused, so that messages cost no allocation).
func (q *Quorum[P]) ObserveMessages(fn func(*Message)) { q.onMessage = fn }

// apiNames names each msgKind as Kafka's ApiKeys do, with whether it is a response.
var apiNames = [...]struct {
	api      string
	response bool
}{
	msgFetch:                 {"Fetch", false},
	msgFetchResponse:         {"Fetch", true},
	msgFetchSnapshot:         {"FetchSnapshot", false},
	msgFetchSnapshotResponse: {"FetchSnapshot", true},
	msgVote:                  {"Vote", false},
	msgVoteResponse:          {"Vote", true},
	msgBeginQuorumEpoch:      {"BeginQuorumEpoch", false},
	msgEndQuorumEpoch:        {"EndQuorumEpoch", false},
}

// tell reports message m, arriving at deliverMs (-1: never), to the observer.
func (q *Quorum[P]) tell(m *message, deliverMs int64) {
	name := apiNames[m.kind]
	if !q.nodes[m.to].running {
		deliverMs = -1 // the receiver is down: delivery will drop it
	}
	om := &q.lent
	*om = Message{API: name.api, Response: name.response, From: q.nodes[m.from].id, To: q.nodes[m.to].id,
		SentMs: q.sim.Now(), DeliverMs: deliverMs, Epoch: m.epoch, PreVote: m.preVote, Granted: m.granted,
		Snapshot: m.snapshot || m.data != nil}
	for _, r := range m.runs {
		om.Entries += r.n
	}
	q.onMessage(om)
}
