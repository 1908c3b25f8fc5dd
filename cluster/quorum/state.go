package quorum

// poll runs node n's state machine at the current time, as KafkaRaftClient.poll does, and arms
// its next wake-up. A transition re-polls the new state at once, since timers of the new state may
// already have work to do (a single voter, say, wins its own election immediately).
func (q *Quorum[P]) poll(n *node) {
	if !n.running {
		return
	}
	for range 16 {
		state, epoch := n.state, n.epoch
		next := q.pollState(n)
		if n.state == state && n.epoch == epoch {
			q.arm(n, next)
			return
		}
	}
	q.violate("internal", "node "+q.name(n.idx)+" changed state 16 times in one instant", "a poll should settle")
}

// pollState does the current state's timed work and returns when it next needs to run.
func (q *Quorum[P]) pollState(n *node) int64 {
	now := q.sim.Now()
	switch n.state {
	case Leader:
		return q.pollLeader(n, now)
	case Follower:
		if n.fetchDeadline <= now {
			if n.voter() {
				q.toProspective(n) // pollFollowerAsVoter: fetch timeout → Prospective (KIP-996)
			} else {
				q.toUnattached(n, n.epoch, 0) // an observer goes back to asking the voters
			}
			return never
		}
		return min(n.fetchDeadline, q.pollFetcher(n, now, n.leader))
	case Unattached:
		if !n.voter() {
			return q.pollFetcher(n, now, q.voters[n.discovery%len(q.voters)])
		}
		if n.electionDeadline <= now {
			q.toProspective(n)
			return never
		}
		return n.electionDeadline
	case Prospective, Candidate:
		if n.electionDeadline <= now {
			q.electionLost(n)
			return never
		}
		return n.electionDeadline
	case Resigned:
		if n.electionDeadline <= now {
			q.toUnattached(n, n.epoch+1, 0) // pollResigned: election timeout → Unattached(epoch+1)
			return never
		}
		return n.electionDeadline
	}
	return never
}

// electionTimeout is QuorumState.randomElectionTimeoutMs: uniform in [t, 2t).
func (q *Quorum[P]) electionTimeout(n *node) int64 {
	t := q.cfg.ElectionTimeoutMs
	return n.rng.Between(t, 2*t)
}

// become switches n's role, ending leadership first when it leaves Leader. Kafka resets its
// connections on every transition, so any request in flight is abandoned.
func (q *Quorum[P]) become(n *node, to State, why Reason) {
	from := n.state
	if from == Leader && to != Leader {
		q.endLeadership(n, why)
	}
	n.state = to
	n.fetch = fetcher{retryAt: q.sim.Now()}
	if q.trace != nil {
		q.tracef(n, "%s -> %s epoch=%d leader=%s", from, to, n.epoch, q.name(n.leader))
	}
	if q.hooks.StateChanged != nil {
		q.hooks.StateChanged(n.id, from, to, n.epoch)
	}
}

// endLeadership answers parked fetches with NOT_LEADER_OR_FOLLOWER, as Kafka completes its fetch
// purgatory exceptionally, and reports the resignation.
func (q *Quorum[P]) endLeadership(n *node, why Reason) {
	ls := &n.lead
	parked := ls.parked
	ls.parked = ls.spare[:0]
	if n.running {
		for _, p := range parked {
			q.replyFetchError(n, p.from, p.reqID, errNotLeader)
		}
	}
	ls.spare = parked[:0]
	q.stats.Resignations++
	if q.trace != nil {
		q.tracef(n, "resigned epoch=%d (%s)", ls.epoch, why)
	}
	if q.hooks.Resigned != nil {
		q.hooks.Resigned(n.id, ls.epoch, why)
	}
}

// setEpoch moves n to epoch; a new epoch clears the vote, as a new ElectionState does.
func setEpoch(n *node, epoch int32) {
	if epoch > n.epoch {
		n.epoch = epoch
		n.votedFor = -1
	}
}

func (q *Quorum[P]) toUnattached(n *node, epoch int32, why Reason) {
	setEpoch(n, epoch)
	n.leader = -1
	q.become(n, Unattached, why)
	n.electionDeadline = never
	if n.voter() {
		n.electionDeadline = q.sim.Now() + q.electionTimeout(n)
	}
}

func (q *Quorum[P]) toFollower(n *node, epoch, leader int32, why Reason) {
	setEpoch(n, epoch)
	n.leader = leader
	q.become(n, Follower, why)
	n.fetchDeadline = q.sim.Now() + q.cfg.FetchTimeoutMs
}

// toProspective starts a pre-vote (KIP-996): same epoch, known leader and vote kept, nothing
// persisted, so a voter that cannot win does not disturb the others' epoch.
func (q *Quorum[P]) toProspective(n *node) {
	q.become(n, Prospective, 0)
	n.electionDeadline = q.sim.Now() + q.electionTimeout(n)
	q.startElection(n, true)
}

// toCandidate bumps the epoch and votes for itself (a durable transition in Kafka).
func (q *Quorum[P]) toCandidate(n *node) {
	n.epoch++
	n.votedFor = n.idx
	n.leader = -1
	q.become(n, Candidate, 0)
	n.electionDeadline = q.sim.Now() + q.electionTimeout(n)
	q.startElection(n, false)
}

// electionLost handles a lost or timed-out election as Kafka 4.x does: a Candidate goes back to
// Prospective; a Prospective returns to following the leader it knew, or to Unattached.
func (q *Quorum[P]) electionLost(n *node) {
	switch n.state {
	case Candidate:
		q.toProspective(n)
	case Prospective:
		if n.leader >= 0 && n.leader != n.idx {
			q.toFollower(n, n.epoch, n.leader, 0)
		} else {
			q.toUnattached(n, n.epoch, 0)
		}
	}
}

// toLeader makes n leader of its epoch and writes the LeaderChangeMessage at the epoch start
// offset, so that the leader can commit an entry of its own epoch straight away.
func (q *Quorum[P]) toLeader(n *node) {
	now := q.sim.Now()
	n.leader = n.idx
	q.become(n, Leader, 0)
	ls := &n.lead
	ls.epoch = n.epoch
	ls.epochStart = n.log.end()
	ls.hwKnown = false
	ls.fetched = 0
	for i := range ls.voterEnd {
		ls.voterEnd[i] = -1
		ls.lastFetchMs[i] = -never
	}
	ls.checkQuorumDeadline = never
	if len(q.voters) > 1 {
		ls.checkQuorumDeadline = now + q.cfg.CheckQuorumTimeoutMs()
	}
	ls.beginQuorumNext = now
	ls.parked = ls.parked[:0]
	q.stats.Elections++
	q.checkNewLeader(n)

	lc := &LeaderChange{Epoch: n.epoch, LeaderID: n.id, Voters: append([]NodeID(nil), q.cfg.Voters...)}
	for i, v := range q.voters {
		if n.granted&(1<<i) != 0 {
			lc.GrantingVoters = append(lc.GrantingVoters, q.nodes[v].id)
		}
	}
	q.appendLocal(n, Entry[P]{Epoch: n.epoch, Bytes: LeaderChangeBytes, Control: lc})
	if q.trace != nil {
		q.tracef(n, "leader epoch=%d start=%d granting=%v", n.epoch, ls.epochStart, lc.GrantingVoters)
	}
	if q.hooks.BecameLeader != nil {
		q.hooks.BecameLeader(n.id, n.epoch)
	}
	q.leaderLogGrew(n)
}

// pollLeader runs the leader's timers: check-quorum, parked-fetch expiry, BeginQuorumEpoch resends.
func (q *Quorum[P]) pollLeader(n *node, now int64) int64 {
	ls := &n.lead
	if ls.checkQuorumDeadline <= now {
		q.toResigned(n)
		return never
	}
	k := 0
	for k < len(ls.parked) && ls.parked[k].deadline <= now {
		k++
	}
	if k > 0 {
		ls.expired = append(ls.expired[:0], ls.parked[:k]...)
		ls.parked = ls.parked[:copy(ls.parked, ls.parked[k:])]
		for _, p := range ls.expired {
			q.serveFetch(n, p, false)
		}
	}
	if ls.beginQuorumNext <= now {
		// LeaderState.needToSendBeginQuorumRequests: voters not heard from within half the fetch
		// timeout are told again who leads this epoch.
		half := q.cfg.FetchTimeoutMs / 2
		for i, v := range q.voters {
			if v != n.idx && ls.lastFetchMs[i] < now-half {
				slot, m := q.newMsg(msgBeginQuorumEpoch, n, q.nodes[v])
				m.leader = n.idx
				q.post(slot)
			}
		}
		ls.beginQuorumNext = now + max(half, 1)
	}
	next := min(ls.checkQuorumDeadline, ls.beginQuorumNext)
	if len(ls.parked) > 0 {
		next = min(next, ls.parked[0].deadline)
	}
	return next
}

// maybeHandleCommon is KafkaRaftClient.maybeHandleCommonResponse: a message that reveals a higher
// epoch, or the leader of our epoch when we know none, moves n there. It reports whether n moved.
func (q *Quorum[P]) maybeHandleCommon(n *node, epoch, leader int32) bool {
	if epoch > n.epoch {
		if leader >= 0 && leader != n.idx {
			q.toFollower(n, epoch, leader, ReasonHigherEpoch)
		} else {
			q.toUnattached(n, epoch, ReasonHigherEpoch)
		}
		return true
	}
	if epoch == n.epoch && leader >= 0 && leader != n.idx && n.leader < 0 && n.state != Leader {
		q.toFollower(n, epoch, leader, 0)
		return true
	}
	return false
}
