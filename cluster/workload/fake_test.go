package workload

import (
	"github.com/kraftlab/kraftlab/cluster/broker"
)

// fakeCluster is a static cluster: n brokers with the given loads; partition p is led by
// broker p mod n with followers the next rf−1 brokers.
type fakeCluster struct {
	n, parts, rf int
	acks         broker.Acks
	loads        []broker.Load
	// status, if set, overrides the path of a partition.
	status func(p int32, out *broker.Path)
	// hol gives the head-of-line cycle of follower broker f, ms.
	hol     func(f int32) float64
	changed int64
}

func (c *fakeCluster) NumBrokers() int         { return c.n }
func (c *fakeCluster) NumPartitions() int      { return c.parts }
func (c *fakeCluster) Acks() broker.Acks       { return c.acks }
func (c *fakeCluster) Loads(out []broker.Load) { copy(out, c.loads) }
func (c *fakeCluster) PartitionPath(p int32, out *broker.Path) {
	*out = broker.Path{Status: broker.PathOK, Leader: p % int32(c.n), LeaderChangedAtMs: c.changed}
	for i := 1; i < c.rf; i++ {
		f := (p + int32(i)) % int32(c.n)
		out.Follower[out.Followers] = f
		if c.hol != nil {
			out.HolMs[out.Followers] = c.hol(f)
		}
		out.Followers++
	}
	if c.status != nil {
		c.status(p, out)
	}
}

// steadyLoad is docs/model.md §8's steady broker: 50 MB/s led, 100 MB/s followed (ρ_dw = 0.3 of
// 500 MB/s), 2,000 produce requests/s, two in-sync followers fetching per batch, one consumer
// group.
func steadyLoad() broker.Load {
	return broker.Load{State: broker.Running, Active: true,
		LeaderBytesPerSec: 50e6, FollowerBytesPerSec: 100e6, ReplicationOutBytesPerSec: 100e6, ConsumerOutBytesPerSec: 50e6,
		DiskWriteBytesPerSec: 150e6, DiskWriteCapacity: 500e6, DiskReadCapacity: 500e6,
		NicInBytesPerSec: 150e6, NicInCapacity: 1250e6, NicOutBytesPerSec: 150e6, NicOutCapacity: 1250e6,
		ProduceRequestsPerSec: 2000, FollowerFetchRequestsPerSec: 4000, ConsumerFetchRequestsPerSec: 2000, Leaders: 200}
}

func newSteady(n, parts int) *fakeCluster {
	c := &fakeCluster{n: n, parts: parts, rf: 3, changed: -1 << 40}
	for range n {
		c.loads = append(c.loads, steadyLoad())
	}
	return c
}
