package broker

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

// noteCatchUps records the note of every armed broker that fetches catch-up now. It runs where
// catch-up rates are set (realloc), at moments the run itself decides, so the note does not
// depend on when anyone looks.
func (f *Fleet) noteCatchUps() {
	for slot, due := range f.notes.due {
		if !due || f.brokers[slot].catchIn <= 0 {
			continue
		}
		f.notes.due[slot] = false
		prev := f.notes.last[slot].Seq
		f.notes.last[slot] = CatchUpNote{CatchUpStatus: f.CatchUp(f.brokers[slot].id), AtMs: f.now(), Seq: prev + 1}
	}
}

// CatchUpBegan returns broker id's latest catch-up note; false if it has none.
func (f *Fleet) CatchUpBegan(id int32) (CatchUpNote, bool) {
	_, slot, err := f.slot(id)
	if err != nil || f.notes.last == nil || f.notes.last[slot].Seq == 0 {
		return CatchUpNote{}, false
	}
	return f.notes.last[slot], true
}
