package broker

import "github.com/kraftlab/kraftlab/cluster/sim"

// hent is one catching-up follower in a group's heap: its backlog is key + A(t). gen matches
// hgen[r] while the entry is current; entries of followers that left are skipped lazily.
type hent struct {
	key float64
	r   int32
	gen uint32
}

// group is the followers of one session and one rate class. They share λ and the session's
// equal share x/n, so their backlogs drift together: B_p(t) = key_p + A(t), with
// dA/dt = λ_c − x/n. The smallest key rejoins first.
type group struct {
	a    float64 // A at the session's anchor time
	h    []hent
	live int32
}

// session is one fetch session: the partitions a follower broker fetches from one leader
// broker on one fetcher thread. Only its catching-up members are tracked here; in-sync members
// only see its cycle time (head-of-line blocking).
type session struct {
	n      int32   // catching-up members
	alloc  float64 // catch-up bytes/s granted by the allocator
	x      float64 // catch-up bytes/s in effect: min(alloc, protocol cap for n members)
	at     int64   // time the groups' A values were last brought forward
	groups []group // by class, allocated on first use
	ev     sim.Handle
	pos    int32 // index in catchUp.active, -1 while idle
}

// allocScratch holds the allocator's working slices, reused between runs.
type allocScratch struct {
	remF, remL   []float64
	cntF, cntL   []int32
	rate, capOf  []float64
	frozen       []bool
	rejoined     []int32
	steadyLeader []float64
	steadyFollow []float64
	steadyRepl   []float64
}

// heapPush, heapPop and heapDown keep a min-heap of hent by (key, r).
func heapPush(h *[]hent, e hent) {
	*h = append(*h, e)
	s := *h
	i := len(s) - 1
	for i > 0 {
		parent := (i - 1) / 2
		if !less(&s[i], &s[parent]) {
			break
		}
		s[i], s[parent] = s[parent], s[i]
		i = parent
	}
}

func heapPop(h *[]hent) {
	s := *h
	last := len(s) - 1
	s[0] = s[last]
	*h = s[:last]
	if last > 0 {
		heapDown(*h, 0)
	}
}

func heapDown(s []hent, i int) {
	n := len(s)
	for {
		l := 2*i + 1
		if l >= n {
			return
		}
		m := l
		if r := l + 1; r < n && less(&s[r], &s[l]) {
			m = r
		}
		if !less(&s[m], &s[i]) {
			return
		}
		s[i], s[m] = s[m], s[i]
		i = m
	}
}

func less(a, b *hent) bool {
	if a.key != b.key {
		return a.key < b.key
	}
	return a.r < b.r
}

func (ss *session) share() float64 {
	if ss.n <= 0 {
		return 0
	}
	return ss.x / float64(ss.n)
}
