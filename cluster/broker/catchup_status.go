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

// CatchUp returns broker id's catch-up status now; all zero for an unknown broker or one with
// nothing to catch up.
func (f *Fleet) CatchUp(id int32) CatchUpStatus {
	_, slot, err := f.slot(id)
	if err != nil {
		return CatchUpStatus{}
	}
	now := f.now()
	var st CatchUpStatus
	for _, p := range f.replicaParts(id) {
		if f.pt[p].deleted || f.pt[p].leader < 0 {
			continue
		}
		r := f.replicaOf(p, slot)
		if r < 0 || f.rp[r].rstate != rsCatching {
			continue
		}
		st.Partitions++
		st.BacklogBytes += f.leaderEnd(p, now) - f.pos(r, now)
		st.InflowBytesPerSec += f.lambda(p)
	}
	if st.Partitions > 0 {
		st.FetchBytesPerSec = max(0, f.brokers[slot].catchIn)
	}
	return st
}
