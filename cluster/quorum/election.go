package quorum

import "math/bits"

// onVote is handleVoteRequest for both pre-votes and votes. A request from a higher epoch first
// moves the receiver to Unattached in that epoch (a leader steps down); the grant then follows
// the receiver's state, and only a real vote is remembered.
func (q *Quorum[P]) onVote(n *node, m *message) {
	if !n.voter() {
		return
	}
	if m.epoch > n.epoch {
		q.toUnattached(n, m.epoch, ReasonHigherEpoch)
	}
	granted := false
	if m.epoch == n.epoch {
		upToDate := m.lastEpoch > n.log.lastEpoch() || (m.lastEpoch == n.log.lastEpoch() && m.offset >= n.log.end())
		granted = q.canGrant(n, m.from, m.preVote, upToDate)
		if granted && !m.preVote && (n.state == Unattached || n.state == Prospective) && n.votedFor < 0 {
			n.votedFor = m.from
		}
	}
	slot, r := q.newMsg(msgVoteResponse, n, q.nodes[m.from])
	r.reqID = m.reqID
	r.leader = n.leader
	r.preVote = m.preVote
	r.granted = granted
	q.post(slot)
}

// canGrant is each EpochState's canGrantVote. Pre-votes need only an up-to-date log, except that a
// follower still hearing from its leader refuses them (KIP-996), which keeps a voter that is cut
// off from the leader alone from unseating it. A real vote is given at most once per epoch.
func (q *Quorum[P]) canGrant(n *node, candidate int32, preVote, upToDate bool) bool {
	switch n.state {
	case Leader, Resigned:
		return false
	case Candidate:
		return preVote && upToDate
	case Follower:
		return preVote && upToDate && q.sim.Now() >= n.fetchDeadline
	}
	switch {
	case preVote:
		return upToDate
	case n.votedFor >= 0:
		return n.votedFor == candidate
	case n.leader >= 0:
		return false
	}
	return upToDate
}

// onVoteResponse counts a (pre-)vote for the round it belongs to.
func (q *Quorum[P]) onVoteResponse(n *node, m *message) {
	if !n.voter() || q.maybeHandleCommon(n, m.epoch, m.leader) {
		return
	}
	inRound := m.reqID == n.round && m.epoch == n.epoch &&
		((n.state == Prospective && m.preVote) || (n.state == Candidate && !m.preVote))
	if !inRound {
		return
	}
	bit := uint8(1) << q.nodes[m.from].voterIdx
	if m.granted {
		n.granted |= bit
	} else {
		n.rejected |= bit
	}
	q.tally(n)
}

// onBeginQuorumEpoch: the new leader announces itself, so voters find it without waiting for an
// election timeout (Kafka's leader sends it because followers pull and would not otherwise know
// whom to pull from).
func (q *Quorum[P]) onBeginQuorumEpoch(n *node, m *message) {
	if m.epoch >= n.epoch {
		q.maybeHandleCommon(n, m.epoch, m.from)
	}
}

// onEndQuorumEpoch: the leader resigned. Its followers shorten their fetch timeout by their rank
// among the preferred successors, so the most up-to-date voter stands first.
func (q *Quorum[P]) onEndQuorumEpoch(n *node, m *message) {
	if !n.voter() || m.epoch < n.epoch {
		return
	}
	q.maybeHandleCommon(n, m.epoch, m.from)
	if n.state != Follower || n.epoch != m.epoch || n.leader != m.from {
		return
	}
	pos := len(m.successors)
	for i, s := range m.successors {
		if s == n.idx {
			pos = i
			break
		}
	}
	if deadline := q.sim.Now() + q.successorBackoff(pos, len(m.successors)); deadline < n.fetchDeadline {
		n.fetchDeadline = deadline
	}
}

func (q *Quorum[P]) startElection(n *node, preVote bool) {
	n.round = q.nextReq()
	n.granted = 1 << n.voterIdx
	n.rejected = 0
	lastEpoch, end := n.log.lastEpoch(), n.log.end()
	for _, v := range q.voters {
		if v == n.idx {
			continue
		}
		slot, m := q.newMsg(msgVote, n, q.nodes[v])
		m.reqID = n.round
		m.preVote = preVote
		m.lastEpoch = lastEpoch
		m.offset = end
		q.post(slot)
	}
	q.tally(n)
}

// tally decides the election once a majority has granted, or once enough have refused that a
// majority is out of reach (Kafka's EpochElection.isVoteGranted / isVoteRejected).
func (q *Quorum[P]) tally(n *node) {
	granted := bits.OnesCount8(n.granted)
	rejected := bits.OnesCount8(n.rejected)
	switch {
	case granted >= q.majority:
		if n.state == Prospective {
			q.toCandidate(n)
		} else {
			q.toLeader(n)
		}
	case rejected > len(q.voters)-q.majority:
		q.electionLost(n)
	}
}

// toResigned is the check-quorum resignation: the leader steps down, tells the other voters with
// EndQuorumEpoch (most up-to-date first, so they back off in that order), and after an election
// timeout moves on to the next epoch.
func (q *Quorum[P]) toResigned(n *node) {
	var succ []int32
	for i, v := range q.voters {
		if v == n.idx {
			continue
		}
		j := len(succ)
		succ = append(succ, v)
		for j > 0 && n.lead.voterEnd[q.nodes[succ[j-1]].voterIdx] < n.lead.voterEnd[i] {
			succ[j], succ[j-1] = succ[j-1], succ[j]
			j--
		}
	}
	q.become(n, Resigned, ReasonCheckQuorum)
	n.electionDeadline = q.sim.Now() + q.electionTimeout(n)
	for _, v := range succ {
		slot, m := q.newMsg(msgEndQuorumEpoch, n, q.nodes[v])
		m.leader = n.idx
		m.successors = succ
		q.post(slot)
	}
}

// successorBackoff is KafkaRaftClient.strictExponentialElectionBackoffMs: the first preferred
// successor stands at once; later ones wait max >> (n-1), doubled per position, capped at max.
func (q *Quorum[P]) successorBackoff(position, total int) int64 {
	maxMs := q.cfg.ElectionBackoffMaxMs
	if position == 0 {
		return 0
	}
	if position < 0 || position >= total {
		return maxMs
	}
	base := maxMs >> (total - 1)
	return min(maxMs, base<<(position-1))
}
