package controller

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kraftlab/kraftlab/engine/config"
	"github.com/kraftlab/kraftlab/engine/metrics"
)

// The unit tests of KIP-1358's test plan, and Kafka's cap behaviour they build on.

const firstRun = 300_000 // the first electPreferred run: one period after activation at 0

// balancedBut returns n partitions preferring broker 0 that broker 1 leads, with broker 0 in
// the ISR of the first n-outOfSync of them.
func balancedBut(n, outOfSync int) []part {
	parts := make([]part, n)
	for i := range parts {
		isr := []int32{1, 2, 0}
		if i >= n-outOfSync {
			isr = []int32{1, 2}
		}
		parts[i] = part{replicas: []int32{0, 1, 2}, leader: 1, isr: isr}
	}
	return parts
}

func TestCapAndMoreWork(t *testing.T) {
	f := newFixture(t, nil, 0, 1, 2)
	f.topic("t", balancedBut(1500, 0)...)

	r := f.runBalancer()
	assert.Equal(t, int64(firstRun), r.TimeMs)
	assert.Len(t, r.Elected, 1000, "today's cap: 1,000 elections per run")
	assert.True(t, r.MoreWork)
	assert.Equal(t, int64(firstRun+10), r.NextRunMs, "more work: the continuation comes after the 10 ms immediate period")
	assert.Equal(t, 500, r.DeferredByCap)
	assert.Equal(t, 1000, r.MaxPerRun, "the run reports the cap it applied")
	require.Len(t, r.Leaders, 1000)
	for _, l := range r.Leaders {
		require.Equal(t, int32(0), l, "each election reports the leader it chose")
	}

	r = f.runBalancer()
	assert.Equal(t, int64(firstRun+10), r.TimeMs)
	assert.Len(t, r.Elected, 500)
	assert.False(t, r.MoreWork)
	assert.Equal(t, int64(firstRun+10+300_000), r.NextRunMs, "cadence is measured from the end of the run")
	assert.Equal(t, 0, f.c.Image().ImbalancedCount())
}

func TestExactlyTheCapStillReportsMoreWork(t *testing.T) {
	f := newFixture(t, nil, 0, 1, 2)
	f.topic("t", balancedBut(1000, 0)...)
	r := f.runBalancer()
	assert.Len(t, r.Elected, 1000)
	assert.True(t, r.MoreWork, "Kafka compares the records written with the cap, not what is left")
	r = f.runBalancer()
	assert.Empty(t, r.Elected)
	assert.False(t, r.MoreWork)
}

func TestCapCountsRecordsNotPartitionsExamined(t *testing.T) {
	f := newFixture(t, map[string]any{config.LeaderImbalanceElectionMaxPerRun: 10.0}, 0, 1, 2)
	// 40 partitions where broker 0 is out of sync (no record possible), 10 where it is in sync.
	f.topic("t", balancedBut(50, 40)...)
	r := f.runBalancer()
	assert.Len(t, r.Elected, 10, "the ten electable partitions are all found although most examined yield nothing")
	assert.True(t, r.MoreWork)
}

func waitForSync(extra map[string]any) map[string]any {
	cfg := map[string]any{config.LeaderImbalanceElectionAlgorithm: config.AlgorithmWaitForSync}
	for k, v := range extra {
		cfg[k] = v
	}
	return cfg
}

func TestThresholdZeroGatesOnAnyOutOfSyncPartition(t *testing.T) {
	f := newFixture(t, waitForSync(nil), 0, 1, 2)
	f.topic("t", balancedBut(100, 1)...)
	r := f.runBalancer()
	assert.Empty(t, r.Elected)
	assert.Equal(t, []int32{0}, r.GatedBrokers)
	assert.Equal(t, 99, r.SkippedByGate, "the 99 partitions broker 0 is in sync for were withheld")
	m := f.c.Metrics()
	assert.Equal(t, 1, m[metrics.GatedPreferredLeaderBrokerCount])
	assert.Equal(t, map[string]int{"0": 1}, m[metrics.OutOfSyncPreferredPartitionCount])
	assert.Equal(t, int64(99), m[metrics.PreferredLeaderElectionsSkippedByGatePerSec])
}

func TestThresholdFiveDoesNotGateAtFourPercentAndGatesAtSix(t *testing.T) {
	cfg := waitForSync(map[string]any{config.WaitForSyncThresholdPercent: 5.0})
	f := newFixture(t, cfg, 0, 1, 2)
	f.topic("t", balancedBut(100, 4)...)
	r := f.runBalancer()
	assert.Empty(t, r.GatedBrokers, "4% out of sync is not above 5%")
	assert.Len(t, r.Elected, 96)

	f = newFixture(t, cfg, 0, 1, 2)
	f.topic("t", balancedBut(100, 6)...)
	r = f.runBalancer()
	assert.Equal(t, []int32{0}, r.GatedBrokers, "6% out of sync is above 5%")
	assert.Empty(t, r.Elected)
}

func TestHysteresisReleasesOnTheSecondUngatedRun(t *testing.T) {
	f := newFixture(t, waitForSync(nil), 0, 1, 2)
	f.topic("t", balancedBut(100, 10)...)
	r := f.runBalancer()
	require.Equal(t, []int32{0}, r.GatedBrokers)

	for i := int32(90); i < 100; i++ {
		require.NoError(t, f.alterIsr("t", i, []int32{1, 2, 0}, r.TimeMs+1))
	}
	r = f.runBalancer()
	assert.Equal(t, []int32{0}, r.GatedBrokers, "the first ungated evaluation keeps the gate")
	assert.Empty(t, r.Elected)

	r = f.runBalancer()
	assert.Empty(t, r.GatedBrokers, "the second consecutive ungated evaluation releases it")
	assert.Len(t, r.Elected, 100, "and elections proceed in that same run")
}

func TestHysteresisCountsConsecutiveRunsOnly(t *testing.T) {
	f := newFixture(t, waitForSync(nil), 0, 1, 2)
	f.topic("t", balancedBut(100, 1)...)
	f.runBalancer() // gated
	require.NoError(t, f.alterIsr("t", 99, []int32{1, 2, 0}, firstRun+1))
	f.runBalancer() // first ungated evaluation
	require.NoError(t, f.alterIsr("t", 99, []int32{1, 2}, 2*firstRun+1))
	r := f.runBalancer()
	assert.Equal(t, []int32{0}, r.GatedBrokers, "falling back over the threshold resets the count")
	require.NoError(t, f.alterIsr("t", 99, []int32{1, 2, 0}, r.TimeMs+1))
	r = f.runBalancer()
	assert.Equal(t, []int32{0}, r.GatedBrokers)
	r = f.runBalancer()
	assert.Empty(t, r.GatedBrokers)
	assert.Len(t, r.Elected, 100)
}

func TestMaxWaitReleasesThroughTheEscapeHatch(t *testing.T) {
	f := newFixture(t, waitForSync(map[string]any{config.WaitForSyncMaxWaitMs: 600_000.0}), 0, 1, 2)
	f.topic("t", balancedBut(100, 10)...)
	r := f.runBalancer() // gated at 300 s
	require.Equal(t, []int32{0}, r.GatedBrokers)
	r = f.runBalancer() // 600 s: gated for 300 s < 600 s
	require.Equal(t, []int32{0}, r.GatedBrokers)
	assert.Empty(t, r.EscapeHatchBrokers)

	r = f.runBalancer() // 900 s: gated for 600 s
	assert.Equal(t, []int32{0}, r.EscapeHatchBrokers)
	assert.Empty(t, r.GatedBrokers)
	assert.Len(t, r.Elected, 90, "only the partitions where the broker is in the ISR are elected")
	assert.Equal(t, int64(1), f.c.Metrics()[metrics.PreferredLeaderElectionEscapeHatchCount])

	r = f.runBalancer()
	assert.Empty(t, r.EscapeHatchBrokers, "the count goes up once per release, not once per run")
	assert.Equal(t, int64(1), f.c.Metrics()[metrics.PreferredLeaderElectionEscapeHatchCount])

	require.NoError(t, f.alterIsr("t", 95, []int32{1, 2, 0}, r.TimeMs+1))
	r = f.runBalancer()
	assert.Len(t, r.Elected, 1, "a released broker gets each partition as it comes back in sync")
}

func TestMaxWaitZeroDisablesTheEscapeHatch(t *testing.T) {
	f := newFixture(t, waitForSync(map[string]any{config.WaitForSyncMaxWaitMs: 0.0}), 0, 1, 2)
	f.topic("t", balancedBut(100, 10)...)
	for i := 0; i < 20; i++ { // 100 minutes
		r := f.runBalancer()
		require.Equal(t, []int32{0}, r.GatedBrokers)
	}
	assert.Equal(t, int64(0), f.c.Metrics()[metrics.PreferredLeaderElectionEscapeHatchCount])
}

func TestRoundRobinSharesTheCapBetweenRecoveringBrokers(t *testing.T) {
	f := newFixture(t, waitForSync(map[string]any{config.LeaderImbalanceElectionMaxPerRun: 200.0}), 0, 1, 2, 3)
	parts := append(many(1000, part{replicas: []int32{0, 2, 3}, leader: 2, isr: []int32{2, 3, 0}}),
		many(1000, part{replicas: []int32{1, 3, 2}, leader: 3, isr: []int32{3, 2, 1}})...)
	f.topic("t", parts...)
	for run := 0; run < 10; run++ {
		r := f.runBalancer()
		by := f.electedBy(r)
		assert.InDelta(t, 100, by[0], 1, "run %d: broker 0", run)
		assert.InDelta(t, 100, by[1], 1, "run %d: broker 1", run)
		assert.Len(t, r.Elected, 200)
	}
	assert.Equal(t, 0, f.c.Image().ImbalancedCount())
}

func TestRoundRobinWithAnOddCapAlternatesTheExtraElection(t *testing.T) {
	f := newFixture(t, waitForSync(map[string]any{config.LeaderImbalanceElectionMaxPerRun: 3.0}), 0, 1, 2, 3)
	parts := append(many(30, part{replicas: []int32{0, 2, 3}, leader: 2, isr: []int32{2, 3, 0}}),
		many(30, part{replicas: []int32{1, 3, 2}, leader: 3, isr: []int32{3, 2, 1}})...)
	f.topic("t", parts...)
	total := map[int32]int{}
	for run := 0; run < 10; run++ {
		for b, n := range f.electedBy(f.runBalancer()) {
			total[b] += n
		}
	}
	assert.Equal(t, map[int32]int{0: 15, 1: 15}, total)
}

func TestImmediateIsUnchangedByTheProposalsConfigs(t *testing.T) {
	build := func(cfg map[string]any) *fixture {
		f := newFixture(t, cfg, 0, 1, 2)
		f.topic("a", balancedBut(700, 300)...)
		f.topic("b", many(900, part{replicas: []int32{2, 0, 1}, leader: 0, isr: []int32{0, 1, 2}})...)
		for i := 0; i < 3; i++ {
			f.runBalancer()
		}
		return f
	}
	plain := build(nil)
	tuned := build(map[string]any{
		config.WaitForSyncThresholdPercent: 50.0, config.WaitForSyncMaxWaitMs: 5.0,
		config.ModelGateDenominator: config.DenominatorPreferred,
	})
	assert.Equal(t, plain.entriesSince(0), tuned.entriesSince(0), "with immediate the gate settings change nothing")

	// Broker 0 is out of sync for 300 of its 700 partitions, but nothing gates it today.
	f := newFixture(t, nil, 0, 1, 2)
	f.topic("a", balancedBut(700, 300)...)
	r := f.runBalancer()
	assert.Len(t, r.Elected, 400)
	assert.Empty(t, r.GatedBrokers)
}

func TestImmediateOrderIsNotGroupedByBroker(t *testing.T) {
	f := newFixture(t, map[string]any{config.LeaderImbalanceElectionMaxPerRun: 100.0}, 0, 1, 2, 3)
	parts := append(many(500, part{replicas: []int32{0, 2, 3}, leader: 2, isr: []int32{2, 3, 0}}),
		many(500, part{replicas: []int32{1, 3, 2}, leader: 3, isr: []int32{3, 2, 1}})...)
	f.topic("t", parts...)
	by := f.electedBy(f.runBalancer())
	assert.Greater(t, by[0], 20, "Kafka's hash order mixes brokers: %v", by)
	assert.Greater(t, by[1], 20, "Kafka's hash order mixes brokers: %v", by)
}

func TestThrottleDefersTheNextRunByExactlyTheInterval(t *testing.T) {
	f := newFixture(t, map[string]any{
		config.LeaderImbalanceElectionMaxPerRun:  200.0,
		config.LeaderImbalanceElectionThrottleMs: 15_000.0,
	}, 0, 1, 2)
	f.topic("t", balancedBut(500, 0)...)
	r := f.runBalancer()
	assert.Len(t, r.Elected, 200)
	assert.Equal(t, int64(firstRun+15_000), r.NextRunMs)
	r = f.runBalancer()
	assert.Equal(t, int64(firstRun+15_000), r.TimeMs)
	assert.Len(t, r.Elected, 200)
	r = f.runBalancer()
	assert.Equal(t, int64(firstRun+30_000), r.TimeMs)
	assert.Len(t, r.Elected, 100)
	assert.False(t, r.MoreWork)
	assert.Equal(t, int64(firstRun+30_000+300_000), r.NextRunMs)
	m := f.c.Metrics()
	assert.Equal(t, int64(2), m[metrics.PreferredLeaderElectionThrottledRunCount])
	assert.Equal(t, int64(300+100), m[metrics.PreferredLeaderElectionsDeferredByThrottlePerSec])
	assert.Equal(t, 100, m[metrics.PreferredLeaderElectionsPerRun])
}

func TestImmediatePeriodIsConfigurable(t *testing.T) {
	f := newFixture(t, map[string]any{config.LeaderImbalanceElectionImmediateMs: 250.0}, 0, 1, 2)
	f.topic("t", balancedBut(1500, 0)...)
	r := f.runBalancer()
	assert.Equal(t, int64(firstRun+250), r.NextRunMs)
}

func TestDynamicChangesApplyAtTheNextRun(t *testing.T) {
	f := newFixture(t, nil, 0, 1, 2)
	f.topic("t", balancedBut(3000, 10)...)
	f.setConfig(config.LeaderImbalanceElectionMaxPerRun, 100.0, 1000)
	r := f.runBalancer()
	assert.Len(t, r.Elected, 100)

	f.setConfig(config.LeaderImbalanceElectionAlgorithm, config.AlgorithmWaitForSync, r.TimeMs+1)
	r = f.runBalancer()
	assert.Equal(t, []int32{0}, r.GatedBrokers)
	assert.Empty(t, r.Elected)

	f.setConfig(config.WaitForSyncThresholdPercent, 1.0, r.TimeMs+1)
	f.setConfig(config.LeaderImbalanceElectionThrottleMs, 1000.0, r.TimeMs+1)
	r = f.runBalancer()
	assert.Equal(t, []int32{0}, r.GatedBrokers, "10 of 2,900 out of sync is under 1%, but hysteresis holds the gate one more run")
	r = f.runBalancer()
	assert.Empty(t, r.GatedBrokers)
	assert.Len(t, r.Elected, 100, "the new cap still applies")
	assert.Equal(t, r.TimeMs+1000, r.NextRunMs, "and the new throttle interval")
}

func TestGateDenominatorKIPAgainstPR(t *testing.T) {
	// Broker 0 prefers 1,000 partitions; it leads 900, and is out of sync for 10 of the 100
	// it does not lead: 10% of its imbalanced partitions, 1% of all it prefers.
	parts := append(many(900, part{replicas: []int32{0, 1, 2}, leader: 0, isr: []int32{0, 1, 2}}), balancedBut(100, 10)...)
	cfg := waitForSync(map[string]any{config.WaitForSyncThresholdPercent: 5.0})

	kip := newFixture(t, cfg, 0, 1, 2)
	kip.topic("t", parts...)
	assert.Equal(t, []int32{0}, kip.runBalancer().GatedBrokers, "the KIP's ratio: 10/100 > 5%")

	cfg[config.ModelGateDenominator] = config.DenominatorPreferred
	pr := newFixture(t, cfg, 0, 1, 2)
	pr.topic("t", parts...)
	r := pr.runBalancer()
	assert.Empty(t, r.GatedBrokers, "the PR's ratio: 10/1000 ≤ 5%")
	assert.Len(t, r.Elected, 90)
}

func TestFencedPreferredBrokerIsNotGatedButItsLeaderlessPartitionsStillGetALeader(t *testing.T) {
	f := newFixture(t, waitForSync(nil), 0, 1, 2)
	f.topic("t", part{replicas: []int32{0, 1, 2}, leader: -1, isr: []int32{1, 2}})
	require.NoError(t, f.c.ExpireSession(0, 1))
	r := f.runBalancer()
	assert.Empty(t, r.GatedBrokers)
	require.Len(t, r.Elected, 1)
	assert.Equal(t, int32(1), f.p("t", 0).Leader, "the PREFERRED pass falls through to the next valid replica")
}
