package quorum

// pollFetcher keeps one Fetch (or FetchSnapshot) outstanding to target, giving up on one that
// outlives the request timeout and pausing the retry backoff after a failure.
func (q *Quorum[P]) pollFetcher(n *node, now int64, target int32) int64 {
	f := &n.fetch
	if f.inFlight {
		if deadline := f.sentMs + q.cfg.RequestTimeoutMs; now < deadline {
			return deadline
		}
		f.inFlight = false
		q.stats.RequestTimeouts++
		f.retryAt = now + q.cfg.RetryBackoffMs
		n.discovery++
	}
	if now < f.retryAt {
		return f.retryAt
	}
	to := q.nodes[target]
	f.inFlight, f.reqID, f.sentMs = true, q.nextReq(), now
	if f.snap.active {
		slot, m := q.newMsg(msgFetchSnapshot, n, to)
		m.reqID = f.reqID
		m.snapID = f.snap.id
		m.offset = f.snap.position
		q.post(slot)
	} else {
		slot, m := q.newMsg(msgFetch, n, to)
		m.reqID = f.reqID
		m.offset = n.log.end()
		m.lastEpoch = n.log.lastEpoch()
		m.hw = n.hw
		q.post(slot)
	}
	return now + q.cfg.RequestTimeoutMs
}

// takeResponse matches a response to n's outstanding request and clears it; stale answers (to
// an abandoned request) are ignored.
func takeResponse(n *node, m *message) bool {
	f := &n.fetch
	if !f.inFlight || f.reqID != m.reqID {
		return false
	}
	f.inFlight = false
	return true
}

// acceptResponse handles what every Fetch/FetchSnapshot answer shares: epoch and leader news,
// errors, and the fetch timer a successful answer resets. It reports whether to read the payload.
func (q *Quorum[P]) acceptResponse(n *node, m *message) bool {
	if !takeResponse(n, m) || q.maybeHandleCommon(n, m.epoch, m.leader) {
		return false
	}
	now := q.sim.Now()
	if m.err != errNone {
		n.fetch.retryAt = now + q.cfg.RetryBackoffMs
		n.discovery++
		return false
	}
	if n.state != Follower || m.from != n.leader || m.epoch != n.epoch {
		return false
	}
	n.fetchDeadline = now + q.cfg.FetchTimeoutMs
	n.fetch.retryAt = now
	return true
}

// onFetchResponse is the follower side of Fetch: truncate on DivergingEpoch, start a snapshot
// download on SnapshotId, or append the entries and adopt the leader's high watermark.
func (q *Quorum[P]) onFetchResponse(n *node, m *message) {
	if !q.acceptResponse(n, m) {
		return
	}
	switch {
	case m.diverging:
		q.truncateDiverging(n, m.divEpoch, m.divEnd)
	case m.snapshot:
		n.fetch.snap = snapshotFetch{active: true, id: m.snapID}
		if q.trace != nil {
			q.tracef(n, "fetch-snapshot start end=%d epoch=%d", m.snapID.EndOffset, m.snapID.Epoch)
		}
	default:
		if len(m.runs) > 0 && q.arena.get(m.runs[0].id).Offset == n.log.end() {
			for _, r := range m.runs {
				q.appendRun(n, r)
			}
		}
		if m.hw >= 0 {
			if hw := min(m.hw, n.log.end()); hw > n.hw {
				q.advanceHW(n, hw)
			}
		}
	}
}

// appendRun adds a run of entries from a fetch response to n's log, one epoch at a time so that
// the leader-epoch cache learns where each epoch starts.
func (q *Quorum[P]) appendRun(n *node, r idRun) {
	for r.n > 0 {
		k := q.arena.sameEpoch(r.id, r.n)
		n.log.append(r.id, k, q.arena.get(r.id).Epoch, q.arena.bytes(r.id, k))
		r.id += k
		r.n -= k
	}
}

// truncateDiverging cuts n's log back to where its copy of the diverging epoch and the leader's
// agree (KafkaMetadataLog.truncateToEndOffset), reverting a lost leader's uncommitted entries.
func (q *Quorum[P]) truncateDiverging(n *node, divEpoch int32, divEnd int64) {
	to := divEnd
	if _, end, ok := n.log.endOffsetForEpoch(divEpoch); ok && end < to {
		to = end
	}
	to = max(to, n.log.start)
	if to < n.log.end() {
		q.truncate(n, to)
	}
}

func (q *Quorum[P]) truncate(n *node, to int64) {
	q.checkTruncation(n, to)
	removed := q.logBytes(n, to, n.log.end())
	if q.trace != nil {
		q.tracef(n, "truncate [%d,%d)", to, n.log.end())
	}
	n.log.truncate(to, removed)
	// Only a broken invariant (already recorded) truncates below the HW; keep the node's state
	// consistent anyway so that the run can carry on and report more.
	n.hw = min(n.hw, to)
	q.stats.Truncations++
	if q.hooks.Truncated != nil {
		q.hooks.Truncated(n.id, to)
	}
}

// advanceHW moves n's high watermark forward, checks the newly committed entries against what
// other nodes committed, tells the embedding layer, and lets the snapshot policy look.
func (q *Quorum[P]) advanceHW(n *node, to int64) {
	from := n.hw
	bytes := q.checkCommit(n, from, to)
	n.hw = to
	n.bytesSinceSnapshot += bytes
	if q.trace != nil {
		q.tracef(n, "hw %d -> %d", from, to)
	}
	if q.hooks.HighWatermark != nil {
		q.hooks.HighWatermark(n.id, from, to)
	}
	q.maybeAutoSnapshot(n)
}
