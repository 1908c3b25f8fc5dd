package control

import (
	"encoding/json"
	"fmt"
	"slices"

	"github.com/kraftlab/kraftlab/cluster/quorum"
	"github.com/kraftlab/kraftlab/engine/metadata"
)

// committedLog is the cluster's committed metadata log as the cluster first committed it, from
// base on, and the same entries as metadata.Entry values, so that every node's newly committed
// stretch can be handed on as a subslice instead of being read and converted again per node.
// It also holds the pledges: replies delayed for a commit, settled as their offsets commit.
type committedLog struct {
	entries []CommittedEntry
	ents    []metadata.Entry
	base    int64
	// trim makes the log drop what no node can commit again (SetTrimCommitted); trimAt is the
	// retained length at which to look next.
	trim   bool
	trimAt int

	pledges []pledge

	// Reused read buffers of the nodes that commit past the log's end.
	qbuf []quorum.Entry[metadata.Record]
	mbuf []metadata.Entry
}

// pledge is a reply delayed for a commit: offset must commit, in epoch, by waitMs (the estimated
// commit wait) and at the latest by replyMs (when the reply reaches the broker).
type pledge struct {
	offset  int64
	epoch   int32
	waitMs  int64
	replyMs int64
}

// end is the offset after the last entry committed anywhere.
func (l *committedLog) end() int64 { return l.base + int64(len(l.entries)) }

// since returns the retained entries from offset on (aliasing the log).
func (l *committedLog) since(offset int64) []CommittedEntry {
	i := max(offset-l.base, 0)
	if i >= int64(len(l.entries)) {
		return nil
	}
	return l.entries[i:]
}

// holds reports whether the retained log covers [from, to).
func (l *committedLog) holds(from, to int64) bool { return from >= l.base && to <= l.end() }

// slice returns the retained entries [from, to) as metadata entries; holds(from, to) must be true.
func (l *committedLog) slice(from, to int64) []metadata.Entry { return l.ents[from-l.base : to-l.base] }

// at returns the retained entry at offset, or nil.
func (l *committedLog) at(offset int64) *CommittedEntry {
	if i := offset - l.base; i >= 0 && i < int64(len(l.entries)) {
		return &l.entries[i]
	}
	return nil
}

// extend checks node's newly committed entries es (converted to entries) against the log and
// appends the offsets no node had committed yet, at nowMs. It returns the appended entries.
func (l *committedLog) extend(iv *invariants, node int32, es []quorum.Entry[metadata.Record], entries []metadata.Entry, nowMs int64) []CommittedEntry {
	end := l.end()
	grew := len(l.entries)
	if n := len(entries); n > 0 {
		// A bootstrap commits a million entries at once: size the logs once rather than let
		// append copy them over and over, growing them by a quarter at a time. Only entries
		// past the committed end are new; other nodes commit the same ones again later.
		if fresh := int(entries[n-1].Offset - end + 1); fresh >= bigCommit {
			l.entries = slices.Grow(l.entries, fresh)
			l.ents = slices.Grow(l.ents, fresh)
		}
	}
	for i := range entries {
		e := &entries[i]
		switch {
		case e.Offset < l.base:
		case e.Offset < end:
			have := &l.entries[e.Offset-l.base]
			if have.Record != e.Record || have.Epoch != es[i].Epoch {
				iv.violate("one committed metadata log", fmt.Sprintf("offset %d was committed as %s of epoch %d at t=%d ms", e.Offset, have.Record.Type(), have.Epoch, have.CommitMs),
					fmt.Sprintf("node %d commits %s of epoch %d there", node, e.Record.Type(), es[i].Epoch))
			}
		case e.Offset == end:
			l.entries = append(l.entries, CommittedEntry{Entry: *e, Epoch: es[i].Epoch, CommitMs: nowMs})
			l.ents = append(l.ents, *e)
			end++
		default:
			iv.violate("one committed metadata log", fmt.Sprintf("the committed log ends at offset %d", end),
				fmt.Sprintf("node %d commits offset %d", node, e.Offset))
		}
	}
	return l.entries[grew:]
}

// bigCommit is the number of entries committed at once from which extend sizes the committed
// log up front.
const bigCommit = 4096

// checkLast compares node's entry qe at offset, just committed, with the log.
func (l *committedLog) checkLast(iv *invariants, node int32, offset int64, qe quorum.Entry[metadata.Record]) {
	have := &l.entries[offset-l.base]
	same := qe.Payload == have.Record
	if qe.Control != nil {
		lc, ok := have.Record.(*metadata.LeaderChangeMessage)
		same = ok && lc.Epoch == qe.Control.Epoch
	}
	if !same || qe.Epoch != have.Epoch {
		rec := "LeaderChangeMessage"
		if qe.Control == nil {
			rec = qe.Payload.Type()
		}
		iv.violate("one committed metadata log", fmt.Sprintf("offset %d was committed as %s of epoch %d at t=%d ms", offset, have.Record.Type(), have.Epoch, have.CommitMs),
			fmt.Sprintf("node %d commits %s of epoch %d there", node, rec, qe.Epoch))
	}
}

// convert turns quorum entries into metadata entries in a reused buffer. A LeaderChangeMessage
// becomes the log's record for that offset when it has one, so every node delivers the very
// same record value.
func (l *committedLog) convert(es []quorum.Entry[metadata.Record]) []metadata.Entry {
	// Sized once: a bootstrap's read is tens of thousands of entries, which appending one at a
	// time would copy over and over as the buffer grows.
	if cap(l.mbuf) < len(es) {
		l.mbuf = make([]metadata.Entry, 0, len(es))
	}
	out := l.mbuf[:0]
	for i := range es {
		e := &es[i]
		rec := e.Payload
		if e.Control != nil {
			rec = l.leaderChange(e)
		}
		out = append(out, metadata.Entry{Offset: e.Offset, Record: rec})
	}
	l.mbuf = out[:0]
	return out
}

func (l *committedLog) leaderChange(e *quorum.Entry[metadata.Record]) metadata.Record {
	if have := l.at(e.Offset); have != nil {
		if lc, ok := have.Record.(*metadata.LeaderChangeMessage); ok && lc.Epoch == e.Control.Epoch {
			return lc
		}
	}
	lc := &metadata.LeaderChangeMessage{Epoch: e.Control.Epoch, LeaderID: int32(e.Control.LeaderID),
		Voters: make([]int32, len(e.Control.Voters)), GrantingVoters: make([]int32, len(e.Control.GrantingVoters))}
	for i, v := range e.Control.Voters {
		lc.Voters[i] = int32(v)
	}
	for i, v := range e.Control.GrantingVoters {
		lc.GrantingVoters[i] = int32(v)
	}
	return lc
}

// releaseBuffers clears the first n entries of the reused read buffers, so that they do not keep
// records alive once the log has moved on, and drops buffers a burst (a bootstrap) made large.
func (l *committedLog) releaseBuffers(n int) {
	clear(l.qbuf[:n])
	clear(l.mbuf[:n])
	if cap(l.qbuf) > maxKeptBuffer {
		l.qbuf, l.mbuf = nil, nil
	}
}

// maxKeptBuffer is the largest read buffer kept for reuse, in entries.
const maxKeptBuffer = 1 << 16

// dropBefore forgets retained entries below offset (see Controllers.DropCommittedBefore).
func (l *committedLog) dropBefore(offset int64) {
	k := min(offset-l.base, int64(len(l.entries)))
	if k <= 0 {
		return
	}
	// In place, so trimming as a run goes does not allocate a new log each time, unless the log
	// is far smaller than a burst (a bootstrap) made it.
	n := copy(l.entries, l.entries[k:])
	clear(l.entries[n:])
	l.entries = l.entries[:n]
	copy(l.ents, l.ents[k:])
	clear(l.ents[n:])
	l.ents = l.ents[:n]
	if cap(l.entries) > 4*n+keepCommitted {
		l.entries, l.ents = slices.Clone(l.entries), slices.Clone(l.ents)
	}
	l.base += k
}

// keepCommitted is the capacity, beyond four times what is retained, that dropBefore keeps for
// the committed entries to come (10 MB, and 6 MB for their plain entries): a broker restart at a
// million partitions commits a few hundred thousand entries between trims, and growing the log
// back from what a trim left would copy it over and over.
const keepCommitted = 1 << 18

// trimTo drops, when trimming is on and the log is due a look, the entries below low, the lowest
// offset any node may still commit. It looks every minTrim new entries, and drops only when at
// least half the retained log goes, so the copying is amortised.
func (l *committedLog) trimTo(low int64) {
	if 2*(low-l.base) >= int64(len(l.entries)) {
		l.dropBefore(low)
	}
	l.trimAt = len(l.entries) + minTrim
}

// dueTrim reports whether the log should look for entries to drop now.
func (l *committedLog) dueTrim() bool { return l.trim && len(l.entries) >= l.trimAt }

// pledgeCounts are how the pledges settled: see Stats.LostReplies, LateReplies and
// ShortCommitWaits.
type pledgeCounts struct{ lost, late, short int64 }

// resolvePledges settles delayed replies whose offsets just committed (fresh), counting the
// ones that were late or lost.
func (l *committedLog) resolvePledges(fresh []CommittedEntry) (n pledgeCounts) {
	if len(l.pledges) == 0 {
		return n
	}
	end := fresh[len(fresh)-1].Offset + 1
	kept := l.pledges[:0]
	for _, p := range l.pledges {
		if p.offset >= end {
			kept = append(kept, p)
			continue
		}
		i := p.offset - l.base
		switch {
		case i < 0:
			// Dropped from the retained log before it could be compared: nothing to say.
		case l.entries[i].Epoch != p.epoch:
			n.lost++
		case l.entries[i].CommitMs > p.replyMs:
			n.late++
			n.short++
		case l.entries[i].CommitMs > p.waitMs:
			n.short++
		}
	}
	l.pledges = kept
	return n
}

// CommittedEntry is one entry of the committed metadata log as the cluster first committed it.
// A LeaderChangeMessage's Record is a *metadata.LeaderChangeMessage carrying its epoch and leader.
type CommittedEntry struct {
	metadata.Entry
	Epoch    int32 // the quorum leader epoch the entry was written in
	CommitMs int64 // when the first node's high watermark passed it (the leader's)
}

// MarshalJSON writes the entry as metadata.Entry does (offset, type, the record's fields) plus
// "epoch" and "commit_ms".
func (e CommittedEntry) MarshalJSON() ([]byte, error) {
	body, err := e.Entry.MarshalJSON()
	if err != nil {
		return nil, err
	}
	tail, err := json.Marshal(struct {
		Epoch    int32 `json:"epoch"`
		CommitMs int64 `json:"commit_ms"`
	}{e.Epoch, e.CommitMs})
	if err != nil {
		return nil, err
	}
	// Splice: {...entry fields} + ,"epoch":..,"commit_ms":..}
	out := make([]byte, 0, len(body)+len(tail))
	out = append(out, body[:len(body)-1]...)
	out = append(out, ',')
	return append(out, tail[1:]...), nil
}
