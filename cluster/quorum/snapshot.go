package quorum

// maybeAutoSnapshot is SnapshotGenerator.publishLogDelta: once committed data has been applied, a
// node snapshots when the bytes since its last snapshot reach
// metadata.log.max.record.bytes.between.snapshots, or when metadata.log.max.snapshot.interval.ms
// has passed since it (time alone does not trigger one: it is checked as data arrives).
func (q *Quorum[P]) maybeAutoSnapshot(n *node) {
	bySize := n.bytesSinceSnapshot >= q.cfg.MaxBytesBetweenSnapshots
	byTime := q.cfg.MaxSnapshotIntervalMs > 0 && q.sim.Now()-n.lastSnapshotMs >= q.cfg.MaxSnapshotIntervalMs
	if bySize || byTime {
		q.takeSnapshot(n)
	}
}

// takeSnapshot snapshots n at its high watermark, then applies retention, which may move the log
// start offset up. It reports false when nothing is committed past the latest snapshot.
func (q *Quorum[P]) takeSnapshot(n *node) (SnapshotID, bool) {
	prevEnd, prevBytes := int64(0), int64(0)
	if snap, ok := n.latestSnapshot(); ok {
		prevEnd, prevBytes = snap.ID.EndOffset, snap.Bytes
	}
	at := n.hw
	if at <= prevEnd {
		return SnapshotID{}, false
	}
	id := SnapshotID{EndOffset: at, Epoch: n.log.epochAt(at - 1)}
	var data any
	var size int64
	if q.hooks.TakeSnapshot != nil {
		data, size = q.hooks.TakeSnapshot(n.id, id)
	} else {
		// Without content, size the snapshot as the log bytes it stands for.
		size = prevBytes + q.logBytes(n, max(prevEnd, n.log.start), at)
	}
	now := q.sim.Now()
	n.snaps = append(n.snaps, Snapshot{ID: id, Bytes: max(size, 0), Data: data, CreatedMs: now})
	n.bytesSinceSnapshot = 0
	n.lastSnapshotMs = now
	q.stats.SnapshotsTaken++
	if q.trace != nil {
		q.tracef(n, "snapshot end=%d epoch=%d bytes=%d", id.EndOffset, id.Epoch, size)
	}
	q.applyRetention(n)
	return id, true
}

// logBytes is the bytes n's log holds at offsets [from, to), a run of consecutive ids at a time.
func (q *Quorum[P]) logBytes(n *node, from, to int64) int64 {
	var b int64
	for o := from; o < to; {
		r := n.log.run(o, to)
		b += q.arena.bytes(r.id, r.n)
		o += r.n
	}
	return b
}

// applyRetention is KafkaMetadataLog.cleanSnapshots: while log plus snapshots exceed
// metadata.max.retention.bytes, or the oldest snapshot is older than metadata.max.retention.ms,
// delete the oldest snapshot and move the log start offset up to the next one. The newest
// snapshot always stays, so with one snapshot the log keeps everything.
func (q *Quorum[P]) applyRetention(n *node) {
	now := q.sim.Now()
	moved := false
	for len(n.snaps) >= 2 {
		total := n.log.bytes
		for _, s := range n.snaps {
			total += s.Bytes
		}
		bySize := q.cfg.RetentionBytes >= 0 && total > q.cfg.RetentionBytes
		byAge := q.cfg.RetentionMs >= 0 && now-n.snaps[0].CreatedMs > q.cfg.RetentionMs
		if !bySize && !byAge {
			break
		}
		if to := min(n.snaps[1].ID.EndOffset, n.log.end()); to > n.log.start {
			n.log.deletePrefix(to, q.logBytes(n, n.log.start, to))
			moved = true
		}
		q.deletedSnapshot(n, n.snaps[0])
		n.snaps[0] = Snapshot{}
		n.snaps = n.snaps[:copy(n.snaps, n.snaps[1:])]
	}
	if moved {
		if q.trace != nil {
			q.tracef(n, "log start -> %d", n.log.start)
		}
		q.compact()
	}
}

// onFetchSnapshot is the leader side of FetchSnapshot: one chunk of at most
// controller.quorum.fetch.snapshot.max.bytes per round trip.
func (q *Quorum[P]) onFetchSnapshot(n *node, m *message) {
	code := leaderOnlyError(n, m.epoch)
	var snap Snapshot
	if code == errNone {
		q.noteVoterFetch(n, q.nodes[m.from])
		code = errSnapshotNotFound
		for _, s := range n.snaps {
			if s.ID == m.snapID && m.offset >= 0 && m.offset <= s.Bytes {
				snap, code = s, errNone
			}
		}
	}
	slot, r := q.newMsg(msgFetchSnapshotResponse, n, q.nodes[m.from])
	r.reqID = m.reqID
	r.leader = n.leader
	r.err = code
	if code == errNone {
		r.snapID = snap.ID
		r.offset = m.offset
		r.snapSize = snap.Bytes
		r.chunk = min(q.cfg.FetchSnapshotMaxBytes, snap.Bytes-m.offset)
		if m.offset+r.chunk == snap.Bytes {
			r.data = snap.Data
		}
		q.stats.FetchSnapshotChunks++
	}
	q.post(slot)
}

// onFetchSnapshotResponse is the follower side: advance through the snapshot and install it when
// the last chunk arrives. A vanished snapshot (the leader took a newer one) restarts with Fetch.
func (q *Quorum[P]) onFetchSnapshotResponse(n *node, m *message) {
	if m.err == errSnapshotNotFound && takeResponse(n, m) {
		n.fetch.snap = snapshotFetch{}
		n.fetch.retryAt = q.sim.Now()
		return
	}
	if !q.acceptResponse(n, m) {
		return
	}
	f := &n.fetch
	if !f.snap.active || m.snapID != f.snap.id || m.offset != f.snap.position {
		return
	}
	f.snap.position += m.chunk
	if f.snap.position < m.snapSize {
		return
	}
	f.snap = snapshotFetch{}
	q.installSnapshot(n, Snapshot{ID: m.snapID, Bytes: m.snapSize, Data: m.data, CreatedMs: q.sim.Now()})
}

// installSnapshot replaces n's log with a downloaded snapshot: the log restarts at its end offset,
// older snapshots go, and the high watermark is the snapshot's end.
func (q *Quorum[P]) installSnapshot(n *node, snap Snapshot) {
	q.checkInstall(n, snap.ID)
	n.log.resetTo(snap.ID)
	for _, old := range n.snaps {
		q.deletedSnapshot(n, old)
	}
	clear(n.snaps)
	n.snaps = append(n.snaps[:0], snap)
	n.hw = max(n.hw, snap.ID.EndOffset)
	n.bytesSinceSnapshot = 0
	n.lastSnapshotMs = q.sim.Now()
	q.stats.SnapshotsLoaded++
	if q.trace != nil {
		q.tracef(n, "load snapshot end=%d epoch=%d bytes=%d", snap.ID.EndOffset, snap.ID.Epoch, snap.Bytes)
	}
	if q.hooks.LoadSnapshot != nil {
		q.hooks.LoadSnapshot(n.id, snap)
	}
	q.compact()
}

// deletedSnapshot tells the embedding layer that n no longer holds snap, and whether an answer
// carrying its content is still in flight from n.
func (q *Quorum[P]) deletedSnapshot(n *node, snap Snapshot) {
	if q.hooks.DeletedSnapshot == nil {
		return
	}
	inFlight := false
	for i := range q.msgs {
		m := &q.msgs[i]
		if m.kind == msgFetchSnapshotResponse && m.from == n.idx && m.snapID == snap.ID && m.data != nil {
			inFlight = true
			break
		}
	}
	q.hooks.DeletedSnapshot(n.id, snap, inFlight)
}

// compact releases arena entries no log and no in-flight message can reach any more, and the
// ledger rows below every node's log start. It runs when a log start moves and only does work
// once at least half the arena is dead, so its cost is amortised.
func (q *Quorum[P]) compact() {
	if q.arena.len() < 1024 {
		return
	}
	low := q.arena.next()
	minStart := int64(never)
	for _, n := range q.nodes {
		if !n.log.empty() {
			low = min(low, n.log.id(n.log.start))
		}
		minStart = min(minStart, n.log.start)
	}
	for i := range q.msgs {
		if m := &q.msgs[i]; m.kind != 0 && len(m.runs) > 0 {
			low = min(low, m.runs[0].id)
		}
	}
	if 2*(low-q.arena.base) >= q.arena.len() {
		q.arena.dropBelow(low)
	}
	q.inv.trimBelow(minStart)
}
