package balance

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/kraftlab/kraftlab/engine/config"
	"github.com/kraftlab/kraftlab/engine/metadata"
)

// randomImage replays partitions in random states (ISR, ELR, LastKnownElr, leader) over six
// brokers into a new image.
func randomImage(t *testing.T, rng *rand.Rand, partitions int) *metadata.Image {
	im := metadata.NewImage()
	off := int64(0)
	replay := func(r metadata.Record) {
		require.NoError(t, im.Replay(metadata.Entry{Offset: off, Record: r}))
		off++
	}
	// subset keeps each replica with probability in/10.
	subset := func(reps []int32, in int) []int32 {
		out := []int32{}
		for _, r := range reps {
			if rng.IntN(10) < in {
				out = append(out, r)
			}
		}
		return out
	}
	replay(&metadata.TopicRecord{Name: "t", TopicID: "T"})
	for p := 0; p < partitions; p++ {
		reps := []int32{int32(p % 6), int32((p + 1 + p/6%2) % 6), int32((p + 3) % 6)}
		isr := append(subset(reps[:1], 3), subset(reps[1:], 8)...)
		// Mostly a leader from the ISR, sometimes another replica or none; an ELR now and then.
		leader := append(isr, reps[1], metadata.NoLeader)[rng.IntN(len(isr)+2)]
		if len(isr) > 0 && rng.IntN(4) > 0 {
			leader = isr[rng.IntN(len(isr))]
		}
		elr, lke := []int32{}, []int32{}
		if rng.IntN(8) == 0 {
			elr, lke = subset(reps, 3), subset(reps[:1], 5)
		}
		replay(&metadata.PartitionRecord{TopicID: "T", Topic: "t", PartitionID: int32(p), Replicas: reps, Isr: isr,
			Leader: leader, Elr: elr, LastKnownElr: lke})
	}
	return im
}

// TestSkippingQuietPartitionsChangesNoRun: with an elector that, as Kafka's PREFERRED election
// does, writes nothing for a quiet partition whose leader is safe, a run that leaves the quiet
// partitions out elects the same partitions in the same order and reports the same counts
// (DeferredByCap, SkippedByGate, gates, escape hatches) as one that tries every candidate,
// under both policies, run after run.
func TestSkippingQuietPartitionsChangesNoRun(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	im := randomImage(t, rng, 3000)
	quiet := 0
	for _, id := range im.BrokerIDs() {
		quiet += im.QuietLed(id)
	}
	require.Greater(t, quiet, 300, "the image has quiet partitions to skip")
	active := func(id int32) bool { return id != 4 }
	tried := map[bool]int{}
	deferred, escapes := 0, 0
	for _, alg := range []string{config.AlgorithmImmediate, config.AlgorithmWaitForSync} {
		for _, maxPerRun := range []int{1, 7, 100, 700, 5000} {
			for _, threshold := range []int64{0, 40, 100} {
				name := fmt.Sprintf("%s/max=%d/threshold=%d", alg, maxPerRun, threshold)
				s := Settings{Algorithm: alg, ThresholdPercent: threshold, MaxWaitMs: 2500, MaxPerRun: maxPerRun,
					Denominator: config.DenominatorImbalanced}
				skipping, trying, ref := New(), New(), New()
				for n := 0; n < 8; n++ {
					calls := map[bool]int{}
					elect := func(skip bool) Elector {
						return func(p int32) bool {
							calls[skip]++
							pos := -1
							pref := im.Partitions[p].Preferred()
							for i, q := range im.ImbalancedPreferring(pref) {
								if q == p {
									pos = i
								}
							}
							require.GreaterOrEqual(t, pos, 0)
							if im.ImbalancedFlags(pref)[pos]&metadata.ImbQuiet != 0 {
								return false
							}
							if pref == 2 && n%2 == 0 {
								return false // a broker whose turn finds nothing, so that its queue drains
							}
							return (uint32(p)*2654435761+uint32(n)*40503)%5 < 2
						}
					}
					now := int64(n) * 1000
					want := refRun(ref, im, s, now, active, elect(false))
					tries := calls[false]
					require.Equal(t, want, trying.Run(im, s, now, active, func(int32) bool { return false }, elect(false)), "%s, run %d", name, n)
					require.Equal(t, 2*tries, calls[false], "%s, run %d: with an unsafe leader, every candidate is tried", name, n)
					calls[false] = tries
					got := skipping.Run(im, s, now, active, func(int32) bool { return true }, elect(true))
					require.Equal(t, want, got, "%s, run %d", name, n)
					require.Equal(t, ref.EscapeHatchCount, skipping.EscapeHatchCount)
					require.Equal(t, ref.EscapeHatchCount, trying.EscapeHatchCount)
					deferred += got.DeferredByCap
					escapes += len(got.EscapeHatchBrokers)
					require.LessOrEqual(t, calls[true], calls[false], "%s, run %d", name, n)
					tried[true] += calls[true]
					tried[false] += calls[false]
				}
			}
		}
	}
	require.Positive(t, deferred)
	require.Positive(t, escapes)
	require.Less(t, 2*tried[true], tried[false], "the quiet partitions are not tried: %v", tried)
}

// refRun is a run that tries every candidate, written plainly: a full sort for immediate, and
// for wait-for-sync each broker's queue read from the partitions themselves, with Kafka's
// rule for DeferredByCap (what is left in the queues when the cap is reached). It shares only
// the gate's state machine (evaluate) with Run.
func refRun(b *Balancer, im *metadata.Image, s Settings, nowMs int64, active func(int32) bool, elect Elector) Run {
	run := Run{TimeMs: nowMs, MaxPerRun: s.MaxPerRun}
	order := func(ps []int32) []int32 {
		out := slices.Clone(ps)
		slices.SortFunc(out, func(x, y int32) int {
			if c := cmp.Compare(im.IterationKey(x), im.IterationKey(y)); c != 0 {
				return c
			}
			return cmp.Compare(x, y)
		})
		return out
	}
	if s.Algorithm != config.AlgorithmWaitForSync {
		var all []int32
		for _, id := range im.BrokerIDs() {
			all = append(all, im.ImbalancedPreferring(id)...)
		}
		all = order(all)
		for i, p := range all {
			if len(run.Elected) >= s.MaxPerRun {
				run.DeferredByCap = len(all) - i
				break
			}
			if elect(p) {
				run.Elected = append(run.Elected, p)
			}
		}
		run.MoreWork = len(run.Elected) >= s.MaxPerRun
		return run
	}
	type refQueue struct {
		broker int32
		cands  []int32
		next   int
	}
	var qs []refQueue
	seen := map[int32]bool{}
	for _, id := range im.BrokerIDs() {
		list := im.ImbalancedPreferring(id)
		if len(list) == 0 {
			continue
		}
		seen[id] = true
		var cands []int32
		if !active(id) {
			delete(b.gates, id)
			cands = list
		} else {
			oos := 0
			for _, p := range list {
				if !im.Partitions[p].InIsr(id) {
					oos++
				}
			}
			over := int64(oos)*100 > s.ThresholdPercent*int64(len(list))
			eligible, onlyInSync := b.evaluate(id, over, s, nowMs, &run)
			if !eligible {
				run.GatedBrokers = append(run.GatedBrokers, id)
				run.OutOfSync = append(run.OutOfSync, BrokerCount{Broker: id, Count: oos, Over: over})
				run.SkippedByGate += len(list) - oos
				continue
			}
			for _, p := range list {
				if !onlyInSync || im.Partitions[p].InIsr(id) {
					cands = append(cands, p)
				}
			}
		}
		qs = append(qs, refQueue{broker: id, cands: order(cands)})
	}
	for id := range b.gates {
		if !seen[id] {
			delete(b.gates, id)
		}
	}
	first := 0
	for first < len(qs) && qs[first].broker < b.cursor {
		first++
	}
	if first == len(qs) {
		first = 0
	}
	for progressed := len(qs) > 0; progressed; {
		progressed = false
		for k := range qs {
			q := &qs[(first+k)%len(qs)]
			if len(run.Elected) >= s.MaxPerRun {
				for _, r := range qs {
					run.DeferredByCap += len(r.cands) - r.next
				}
				run.MoreWork = true
				return run
			}
			for q.next < len(q.cands) {
				p := q.cands[q.next]
				q.next++
				if elect(p) {
					run.Elected = append(run.Elected, p)
					progressed = true
					b.cursor = q.broker + 1
					break
				}
			}
		}
	}
	run.MoreWork = len(run.Elected) >= s.MaxPerRun
	return run
}
