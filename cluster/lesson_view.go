package cluster

import "github.com/kraftlab/kraftlab/engine/metadata"

// BrokerView is one broker as it stands now, for observers that check a goal at any moment
// (the lessons) rather than at a sample time. Its counts are those of BrokerSample; the
// registration fields come from the committed metadata image.
type BrokerView struct {
	BrokerSample
	// Registered, Fenced and InControlledShutdown are the committed registration's.
	Registered, Fenced, InControlledShutdown bool
	// Epoch is the committed broker epoch (the offset of its registration batch).
	Epoch int64
}

// BrokerNow returns a broker's view now, and false for a broker that is not one of the
// cluster's. It costs O(1) in the partition count: the counts are kept as records commit.
func (c *Cluster) BrokerNow(id int32) (BrokerView, bool) {
	if _, ok := c.fleet.Slot(id); !ok {
		return BrokerView{}, false
	}
	total := c.view.PreferredCount(id)
	imbalanced := len(c.view.ImbalancedPreferring(id))
	v := BrokerView{BrokerSample: BrokerSample{ID: id, State: stateName(c.fleet.State(id)), Leaders: c.leaders.get(id),
		PreferredTotal: total, PreferredLed: total - imbalanced, OutOfSync: c.fleet.OutOfSync(id),
		OutOfSyncPreferred: c.oosPreferred.get(id)}}
	if e := c.ctl.ActiveController(); e != nil {
		v.Gated = e.Balancer().Gated(id)
	}
	if b := c.view.Broker(id); b != nil {
		v.Registered, v.Fenced, v.InControlledShutdown, v.Epoch = b.Registered, b.Fenced, b.InControlledShutdown, b.Epoch
	}
	return v, true
}

// BrokerIDs returns the cluster's broker ids, in the Spec's order.
func (c *Cluster) BrokerIDs() []int32 { return append([]int32(nil), c.spec.Brokers...) }

// Metrics returns the active controller's metrics by JMX name (a per-broker gauge is a
// map[string]int keyed by broker id), or nil while no controller is active (during a failover).
func (c *Cluster) Metrics() map[string]any {
	if e := c.ctl.ActiveController(); e != nil {
		return e.Metrics()
	}
	return nil
}

// PartitionNow returns one partition of the committed view, and false when the topic or
// partition does not exist (or the topic was deleted).
func (c *Cluster) PartitionNow(topic string, partition int32) (PartitionState, bool) {
	idx, ok := c.view.PartitionIndex(topic, partition)
	if !ok {
		return PartitionState{}, false
	}
	p := &c.view.Partitions[idx]
	if c.view.Topics[p.Topic].Deleted {
		return PartitionState{}, false
	}
	return PartitionState{Topic: topic, Partition: p.ID, Leader: p.Leader, LeaderEpoch: p.LeaderEpoch,
		PartitionEpoch: p.PartitionEpoch, Replicas: append([]int32(nil), p.Replicas()...), Isr: p.Isr(), Elr: p.Elr(),
		LastKnownElr: p.LastKnownElr(), Recovering: p.Recovery() == metadata.Recovering}, true
}
