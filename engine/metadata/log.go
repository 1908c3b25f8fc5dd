package metadata

import (
	"fmt"
	"slices"
)

// Entry is a record at its offset in the metadata log.
type Entry struct {
	Offset int64
	Record Record
}

// Log is the metadata log as the active controller writes it: records at consecutive offsets
// from StartOffset. The prefix below StartOffset may be dropped once a snapshot covers it.
type Log struct {
	start   int64
	entries []Entry
}

// NextOffset is the offset the next appended record gets (Kafka's nextWriteOffset).
func (l *Log) NextOffset() int64 { return l.start + int64(len(l.entries)) }

// StartOffset is the offset of the first record still held.
func (l *Log) StartOffset() int64 { return l.start }

// Append adds a record at the next offset and returns its entry.
func (l *Log) Append(r Record) Entry {
	e := Entry{Offset: l.NextOffset(), Record: r}
	l.entries = append(l.entries, e)
	return e
}

// Reserve makes room for n more records, so that a batch appended one record at a time (a
// bootstrap's tens of thousands) is not copied over and over as append grows the log.
func (l *Log) Reserve(n int) { l.entries = slices.Grow(l.entries, n) }

// Since returns the entries from offset (inclusive) to the end. The slice aliases the log: it
// is valid until the next Append, DropBefore or TruncateTo.
func (l *Log) Since(offset int64) []Entry {
	i := offset - l.start
	if i < 0 {
		i = 0
	}
	if i > int64(len(l.entries)) {
		return nil
	}
	return l.entries[i:]
}

// DropBefore forgets the entries below offset, as a snapshot at that offset allows.
func (l *Log) DropBefore(offset int64) error {
	if offset < l.start || offset > l.NextOffset() {
		return fmt.Errorf("metadata log: cannot drop before offset %d: the log holds [%d, %d)", offset, l.start, l.NextOffset())
	}
	n := offset - l.start
	if cap(l.entries) <= reuseEntries {
		// The active controller drops everything it has shipped every few hundred records:
		// keep the array, so the next appends do not grow a new one from nothing each time.
		kept := copy(l.entries, l.entries[n:])
		clear(l.entries[kept:]) // the records dropped are garbage now
		l.entries = l.entries[:kept]
	} else {
		// A large log (a bootstrap's) is not kept for good.
		l.entries = append([]Entry(nil), l.entries[n:]...)
	}
	l.start = offset
	return nil
}

// reuseEntries is the largest capacity DropBefore keeps for the entries that follow (1.5 MB):
// enough for the tens of thousands of records a broker's controlled shutdown or fencing writes
// at a million partitions, which would otherwise grow a new array from nothing each time.
const reuseEntries = 1 << 16

// TruncateTo removes the entries at and above offset, as a controller does when it loses
// leadership and reverts to its last committed offset.
func (l *Log) TruncateTo(offset int64) error {
	if offset < l.start || offset > l.NextOffset() {
		return fmt.Errorf("metadata log: cannot truncate to offset %d: the log holds [%d, %d)", offset, l.start, l.NextOffset())
	}
	l.entries = l.entries[:offset-l.start]
	return nil
}

// StartAt empties the log and makes the next appended record land at offset, as a controller's
// log does when it starts writing after the records it replayed (or after a snapshot).
func (l *Log) StartAt(offset int64) {
	l.entries = nil
	l.start = offset
}
