package control

import (
	"github.com/kraftlab/kraftlab/cluster/quorum"
	"github.com/kraftlab/kraftlab/cluster/sim"
)

// network is what Client's requests travel over: the quorum's delays and the links Cut took
// down. Its delays draw from the "control/network" stream.
type network struct {
	cfg  *quorum.Config
	rand *sim.Rand
	cuts map[uint64]struct{}
}

// oneWay is one network hop between a broker and a controller, as the quorum's links delay
// messages: the base delay plus uniform jitter.
func (n *network) oneWay() int64 {
	return n.cfg.NetworkDelayMs + n.rand.Between(0, n.cfg.NetworkJitterMs+1)
}

// commitWait estimates how long a leader among voters voters takes to commit what it just
// appended (see Client).
func (n *network) commitWait(voters int) int64 {
	if voters == 1 {
		return 0
	}
	return 2 * (n.cfg.NetworkDelayMs + n.cfg.NetworkJitterMs)
}

// majorityReachable reports whether a majority of voters, m included, is running and linked to m.
func (n *network) majorityReachable(m *controllerNode, voters []*controllerNode) bool {
	k := 0
	for _, o := range voters {
		if o == m || (o.running && !n.isCut(m.id, o.id)) {
			k++
		}
	}
	return k >= len(voters)/2+1
}

func linkKey(a, b int32) uint64 {
	if a > b {
		a, b = b, a
	}
	return uint64(uint32(a))<<32 | uint64(uint32(b))
}

func (n *network) isCut(a, b int32) bool {
	if len(n.cuts) == 0 {
		return false
	}
	_, cut := n.cuts[linkKey(a, b)]
	return cut
}
