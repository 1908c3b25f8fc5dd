package cluster

// UnderReplicated counts the partitions whose ISR is smaller than their replicas now, as the
// committed metadata says: what kafka-topics.sh --describe --under-replicated-partitions lists,
// and what a rolling restart waits for between brokers. It costs O(1): the count is kept as
// records commit.
func (c *Cluster) UnderReplicated() int { return c.underReplicated }
