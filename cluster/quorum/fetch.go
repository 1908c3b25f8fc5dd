package quorum

import "math/bits"

// fetchKind is the outcome of validating a fetch position against the leader's log
// (KafkaMetadataLog.validateOffsetAndEpoch).
type fetchKind uint8

const (
	fetchValid     fetchKind = iota
	fetchDiverging           // answer with DivergingEpoch: the follower must truncate
	fetchSnapshot            // answer with SnapshotId: the entries are gone; load the snapshot
)

// leaderOnlyError is KafkaRaftClient.validateLeaderOnlyRequest.
func leaderOnlyError(n *node, epoch int32) errCode {
	switch {
	case epoch < n.epoch:
		return errFencedLeaderEpoch
	case epoch > n.epoch:
		return errUnknownLeaderEpoch
	case n.state != Leader:
		return errNotLeader
	}
	return errNone
}

// onFetch is the leader side of Fetch (handleFetchRequest): record the fetcher's progress, then
// answer now or park the request until there is something new to say.
func (q *Quorum[P]) onFetch(n *node, m *message) {
	if code := leaderOnlyError(n, m.epoch); code != errNone {
		q.replyFetchError(n, m.from, m.reqID, code)
		return
	}
	q.noteVoterFetch(n, q.nodes[m.from])
	q.serveFetch(n, parkedFetch{from: m.from, reqID: m.reqID, offset: m.offset, lastEpoch: m.lastEpoch, hw: m.hw,
		deadline: q.sim.Now() + q.cfg.FetchMaxWaitMs}, true)
}

// noteVoterFetch feeds check-quorum (LeaderState.updateCheckQuorumForFollowingVoter): once a
// majority, counting the leader, has fetched, the check-quorum timer restarts.
func (q *Quorum[P]) noteVoterFetch(n *node, from *node) {
	if !from.voter() {
		return
	}
	ls := &n.lead
	now := q.sim.Now()
	ls.lastFetchMs[from.voterIdx] = now
	ls.fetched |= 1 << from.voterIdx
	if bits.OnesCount8(ls.fetched) >= q.majority-1 {
		ls.fetched = 0
		ls.checkQuorumDeadline = now + q.cfg.CheckQuorumTimeoutMs()
	}
}

// serveFetch answers (or parks, when allowed) one fetch at leader n. Kafka answers at once when
// there are records, a divergence, a snapshot to load, or a newer high watermark to report, and
// otherwise waits in the fetch purgatory up to the fetch's max wait.
func (q *Quorum[P]) serveFetch(n *node, p parkedFetch, mayPark bool) {
	kind, divEpoch, divEnd := q.validateFetch(n, p.offset, p.lastEpoch)
	from := q.nodes[p.from]
	if kind == fetchValid && from.voter() {
		n.lead.voterEnd[from.voterIdx] = p.offset
		q.maybeAdvanceLeaderHW(n)
	}
	hwNews := n.lead.hwKnown && p.hw < n.hw
	if kind == fetchValid && mayPark && q.cfg.FetchMaxWaitMs > 0 && p.offset == n.log.end() && !hwNews {
		n.lead.parked = append(n.lead.parked, p)
		return
	}
	slot, m := q.newMsg(msgFetchResponse, n, from)
	m.reqID = p.reqID
	m.leader = n.idx
	m.hw = -1
	if n.lead.hwKnown {
		m.hw = n.hw
	}
	switch kind {
	case fetchValid:
		// As many entries as fit in kraftlab.quorum.fetch.max.bytes, and at least one, taken a
		// run of consecutive ids at a time.
		budget := q.cfg.FetchMaxBytes
		for o, end := p.offset, n.log.end(); o < end; {
			r := n.log.run(o, end)
			k := q.arena.fit(r.id, r.n, budget)
			if k == 0 {
				if len(m.runs) > 0 {
					break
				}
				k = 1
			}
			m.runs = append(m.runs, idRun{id: r.id, n: k})
			budget -= q.arena.bytes(r.id, k)
			o += k
			if k < r.n {
				break
			}
		}
	case fetchDiverging:
		m.diverging, m.divEpoch, m.divEnd = true, divEpoch, divEnd
	case fetchSnapshot:
		snap, _ := n.latestSnapshot()
		m.snapshot, m.snapID = true, snap.ID
	}
	q.post(slot)
}

// validateFetch checks a fetch position against leader n's log: below the log start the entries
// live only in a snapshot; otherwise the fetcher's last epoch must end where the leader's copy of
// that epoch ends, or the fetcher has diverged and is told where the common epoch ends.
func (q *Quorum[P]) validateFetch(n *node, offset int64, lastEpoch int32) (fetchKind, int32, int64) {
	_, hasSnap := n.latestSnapshot()
	if offset < n.log.start {
		if hasSnap {
			return fetchSnapshot, 0, 0
		}
		return fetchDiverging, 0, n.log.start
	}
	if offset == 0 {
		return fetchValid, 0, 0
	}
	epoch, end, ok := n.log.endOffsetForEpoch(lastEpoch)
	if !ok {
		if hasSnap {
			return fetchSnapshot, 0, 0
		}
		return fetchDiverging, 0, 0
	}
	if epoch != lastEpoch || end < offset {
		return fetchDiverging, epoch, end
	}
	return fetchValid, 0, 0
}

func (q *Quorum[P]) replyFetchError(n *node, to int32, reqID uint64, code errCode) {
	slot, m := q.newMsg(msgFetchResponse, n, q.nodes[to])
	m.reqID = reqID
	m.err = code
	m.leader = n.leader
	m.hw = -1
	q.post(slot)
}

// leaderLogGrew runs after the leader appends: the HW may move (a single voter commits alone) and
// every parked fetch now has data to take.
func (q *Quorum[P]) leaderLogGrew(n *node) {
	q.maybeAdvanceLeaderHW(n)
	q.completeParked(n)
}

// completeParked answers every parked fetch now.
func (q *Quorum[P]) completeParked(n *node) {
	ls := &n.lead
	if len(ls.parked) == 0 {
		return
	}
	batch := ls.parked
	ls.parked = ls.spare[:0]
	for _, p := range batch {
		q.serveFetch(n, p, false)
	}
	ls.spare = batch[:0]
}

// maybeAdvanceLeaderHW is LeaderState.maybeUpdateHighWatermark: sort the voters' end offsets
// (the leader's own included) in descending order and take index ⌊voters/2⌋, the offset a
// majority holds. It only counts once it passes the epoch start offset, so a new leader commits an
// entry of its own epoch before exposing older ones, and it never goes back.
func (q *Quorum[P]) maybeAdvanceLeaderHW(n *node) {
	ls := &n.lead
	var ends [maxVoters]int64
	k := len(q.voters)
	for i, v := range q.voters {
		e := ls.voterEnd[i]
		if v == n.idx {
			e = n.log.end()
		}
		j := i
		for j > 0 && ends[j-1] < e {
			ends[j] = ends[j-1]
			j--
		}
		ends[j] = e
	}
	hw := ends[k/2]
	if hw <= ls.epochStart || hw <= n.hw {
		return
	}
	ls.hwKnown = true
	q.advanceHW(n, hw)
	q.completeParked(n)
}
