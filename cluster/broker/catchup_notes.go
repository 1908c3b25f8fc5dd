package broker

// CatchUpStatus is what a broker's out-of-sync replicas still have to fetch: the bytes they
// trail their leaders by, the produce those partitions take meanwhile, and how fast the broker
// fetches. The backlog shrinks by FetchBytesPerSec − InflowBytesPerSec, so when the two are
// close catch-up is slow however fast the broker fetches.
type CatchUpStatus struct {
	// Partitions counts the replicas catching up.
	Partitions int
	// BacklogBytes is how far they trail their leaders' log ends, in all.
	BacklogBytes float64
	// InflowBytesPerSec is the produce rate of those partitions.
	InflowBytesPerSec float64
	// FetchBytesPerSec is the broker's catch-up fetch rate (Load.CatchUpInBytesPerSec).
	FetchBytesPerSec float64
}

// CatchUpNote is a restarted broker's catch-up as it began: when the first catch-up rates after
// its start were set, and its status then.
type CatchUpNote struct {
	CatchUpStatus
	// AtMs is when (simulation time); Seq counts the broker's notes, so that a reader tells a
	// new restart's note from one it has seen.
	AtMs int64
	Seq  int
}

// catchUpNotes keeps, per broker slot, whether a note is due (the broker has been running since
// its last start and its catch-up has not begun yet) and the latest note. It only observes: no
// result of the run depends on it.
type catchUpNotes struct {
	due  []bool
	last []CatchUpNote
}

// stateChanged arms a note when a broker starts running and disarms it when it stops.
func (n *catchUpNotes) stateChanged(slot int, to State, brokers int) {
	if n.due == nil {
		n.due, n.last = make([]bool, brokers), make([]CatchUpNote, brokers)
	}
	switch to {
	case Running:
		n.due[slot] = true
	case NotRunning:
		n.due[slot] = false
	}
}
