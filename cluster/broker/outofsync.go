package broker

// OutOfSyncAll fills out[slot] with OutOfSync(BrokerID(slot)) for every broker at once (out must
// hold NumBrokers() counts). Counting by a walk of a broker's partitions would cost a sampler
// that wants every broker every ten seconds, at a million partitions, much of a run, and even
// one pass over all replicas in order costs a cache miss for each replica out of sync (a
// restarting broker's tens of thousands). So the fleet keeps the counts as replica states and
// serving leaders change (putRState, countOutOfSync), and this copies them.
func (f *Fleet) OutOfSyncAll(out []int) {
	for s := range out {
		out[s] = int(f.oos[s])
	}
}
