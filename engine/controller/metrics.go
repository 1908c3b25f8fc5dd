package controller

import (
	"strconv"

	"github.com/kraftlab/kraftlab/engine/metrics"
)

// Metrics returns every controller metric under its JMX name. Gauges are read from the image
// now; meters and counters are totals since the controller started. A per-broker gauge is a
// map from broker id (as a string, like a JMX tag) to value.
func (c *Controller) Metrics() map[string]any {
	im := c.image
	active, fenced, shutting := 0, 0, 0
	for _, id := range im.BrokerIDs() {
		b := im.Broker(id)
		if !b.Registered {
			continue
		}
		if b.Fenced {
			fenced++
		} else {
			active++
		}
		if b.InControlledShutdown {
			shutting++
		}
	}
	topics, partitions := 0, 0
	for _, t := range im.Topics {
		if !t.Deleted {
			topics++
			partitions += int(t.Count)
		}
	}
	perRun, outOfSync := 0, map[string]int{}
	if r := c.lastRun; r != nil {
		perRun = len(r.Elected)
		for _, bc := range r.OutOfSync {
			if c.balancer.Gated(bc.Broker) {
				outOfSync[strconv.Itoa(int(bc.Broker))] = bc.Count
			}
		}
	}
	return map[string]any{
		metrics.PreferredReplicaImbalanceCount:                   im.ImbalancedCount(),
		metrics.OfflinePartitionsCount:                           len(im.Leaderless()),
		metrics.ActiveBrokerCount:                                active,
		metrics.FencedBrokerCount:                                fenced,
		metrics.ControlledShutdownBrokerCount:                    shutting,
		metrics.GlobalTopicCount:                                 topics,
		metrics.GlobalPartitionCount:                             partitions,
		metrics.UncleanLeaderElectionsPerSec:                     c.counts.UncleanLeaderElections,
		metrics.ElectionFromEligibleLeaderReplicasPerSec:         c.counts.ElectionsFromElr,
		metrics.PreferredLeaderElectionsPerRun:                   perRun,
		metrics.GatedPreferredLeaderBrokerCount:                  c.balancer.GatedCount(),
		metrics.PreferredLeaderElectionThrottledRunCount:         c.counts.ThrottledRuns,
		metrics.PreferredLeaderElectionEscapeHatchCount:          c.balancer.EscapeHatchCount,
		metrics.OutOfSyncPreferredPartitionCount:                 outOfSync,
		metrics.PreferredLeaderElectionsSkippedByGatePerSec:      c.counts.SkippedByGate,
		metrics.PreferredLeaderElectionsDeferredByThrottlePerSec: c.counts.DeferredByThrottle,
	}
}
