// Package balance holds the preferred-leader policies that the controller's electPreferred task
// runs: `immediate`, today's Kafka pass over the imbalanced partitions, and `wait-for-sync`,
// the proposal of KIP-1358 / apache/kafka PR #22934 (a per-broker gate with a threshold,
// two-run hysteresis and a max-wait escape hatch, and round-robin across the eligible brokers).
// Both stop at a per-run cap.
//
// A policy decides which partitions to try and in what order; the controller performs each
// PREFERRED election and says whether it wrote a record, because Kafka counts records, not
// partitions examined, against the cap. This package imports engine/metadata and engine/config
// only.
package balance

import (
	"slices"

	"github.com/kraftlab/kraftlab/engine/config"
	"github.com/kraftlab/kraftlab/engine/metadata"
)

// Settings are the policy configs as they stand at the start of a run.
type Settings struct {
	Algorithm        string // config.AlgorithmImmediate or config.AlgorithmWaitForSync
	ThresholdPercent int64
	MaxWaitMs        int64 // 0 disables the escape hatch
	MaxPerRun        int
	// Denominator is config.DenominatorImbalanced (the KIP) or config.DenominatorPreferred (the PR).
	Denominator string
}

// SettingsFrom resolves the policy configs from the given levels, first match wins.
func SettingsFrom(levels ...*config.Values) Settings {
	return Settings{
		Algorithm:        config.Str(config.LeaderImbalanceElectionAlgorithm, levels...),
		ThresholdPercent: config.Int64(config.WaitForSyncThresholdPercent, levels...),
		MaxWaitMs:        config.Int64(config.WaitForSyncMaxWaitMs, levels...),
		MaxPerRun:        int(config.Int64(config.LeaderImbalanceElectionMaxPerRun, levels...)),
		Denominator:      config.Str(config.ModelGateDenominator, levels...),
	}
}

// Elector performs a PREFERRED election on a partition (an index into the image's partitions)
// and reports whether it wrote a record.
type Elector func(partition int32) bool

// BrokerCount is a per-broker figure in a run report.
type BrokerCount struct {
	Broker int32
	Count  int
	// Over: the count is over the wait-for-sync threshold. A gated broker under it is still
	// held back until its second consecutive run under it.
	Over bool
}

// Run reports one electPreferred run.
type Run struct {
	TimeMs int64
	// Elected lists the partitions whose election wrote a record, in order; Leaders[i] is the
	// leader that election chose (filled in by the controller, which performs the elections).
	Elected []int32
	Leaders []int32
	// MaxPerRun is the cap the run applied.
	MaxPerRun int
	// MoreWork is Kafka's "reschedule immediately": the run wrote as many records as the cap.
	MoreWork bool
	// GatedBrokers are the brokers the gate held back in this run.
	GatedBrokers []int32
	// OutOfSync gives, for each gated broker, its out-of-sync preferred partitions.
	OutOfSync []BrokerCount
	// EscapeHatchBrokers are the brokers released by the escape hatch in this run.
	EscapeHatchBrokers []int32
	// SkippedByGate counts the partitions a gated broker could have been elected for (it is in
	// their ISR) but was not, because of the gate.
	SkippedByGate int
	// DeferredByCap counts the candidate partitions left unexamined because the cap was reached.
	DeferredByCap int
	// NextRunMs is when the controller scheduled the next run (-1: not scheduled); the
	// controller fills it in after rescheduling the task.
	NextRunMs int64
}

// gate is one broker's wait-for-sync state.
type gate struct {
	gated       bool
	sinceMs     int64 // when the broker was gated
	ungatedRuns int   // consecutive evaluations under the threshold while gated
	escaped     bool  // released by the escape hatch: only in-sync partitions are elected
}

// Balancer runs the policies and keeps their state between runs: each broker's gate and the
// round-robin position.
type Balancer struct {
	gates map[int32]*gate
	// cursor is the broker id the next round-robin pass starts from, so that an odd cap does
	// not always favour the same broker.
	cursor int32
	// EscapeHatchCount counts escape-hatch releases (PreferredLeaderElectionEscapeHatchCount).
	EscapeHatchCount int64
	keys             []uint64
	allKeys          []uint64
	queues           []queue
}

// queue is one eligible broker's candidates in a wait-for-sync run.
type queue struct {
	broker int32
	cands  []uint64 // packed keys (IterationKey<<32 | partition), sorted
	next   int
	// all holds the packed key (IterationKey<<32 | partition) of every candidate the broker
	// has, those left out of cands for being flagged ImbQuiet included, to count what the cap
	// leaves.
	all []uint64
	// last is the packed key of the broker's latest election; drained says a turn found
	// nothing left to elect (in a run that tries every candidate, the turn reads to the end).
	last    uint64
	elected bool
	drained bool
}

// left is the number of the broker's candidates a run that tried every one would not have
// reached yet.
func (q *queue) left() int {
	switch {
	case q.drained:
		return 0
	case q.elected:
		return countAbove(q.all, q.last)
	}
	return len(q.all)
}

// New returns a balancer with no broker gated.
func New() *Balancer { return &Balancer{gates: map[int32]*gate{}} }

// Gated reports whether a broker is gated now.
func (b *Balancer) Gated(broker int32) bool {
	g := b.gates[broker]
	return g != nil && g.gated
}

// GatedCount is the number of brokers gated now (GatedPreferredLeaderBrokerCount).
func (b *Balancer) GatedCount() int {
	n := 0
	for _, g := range b.gates {
		if g.gated {
			n++
		}
	}
	return n
}

// Reset forgets a broker's gate, as a new incarnation of the broker starts afresh.
func (b *Balancer) Reset(broker int32) { delete(b.gates, broker) }

// Run performs one electPreferred run at nowMs. active reports whether a broker is registered,
// unfenced and not shutting down: only active brokers are gated, since no other broker can be
// elected anyway. safe reports whether a broker is an acceptable leader for every replica it
// holds (active, with every log directory online).
//
// elect must be Kafka's PREFERRED election with its LeaderAcceptor, as the controller performs
// it: the run relies on it writing nothing for a partition flagged metadata.ImbQuiet whose
// leader is safe. When every broker leading such a partition is safe, the run does not call
// elect for those partitions at all (during a rolling restart, most imbalanced partitions wait
// for their preferred replica to rejoin the ISR, run after run); it tries the others in the same
// order, so it elects the same partitions and reports the same counts as a run that tried all.
func (b *Balancer) Run(im *metadata.Image, s Settings, nowMs int64, active, safe func(int32) bool, elect Elector) Run {
	if s.MaxPerRun < 1 {
		s.MaxPerRun = 1
	}
	run := Run{TimeMs: nowMs, MaxPerRun: s.MaxPerRun}
	skipQuiet := true
	for _, id := range im.BrokerIDs() {
		if im.QuietLed(id) > 0 && !safe(id) {
			skipQuiet = false
			break
		}
	}
	if s.Algorithm == config.AlgorithmWaitForSync {
		b.waitForSync(im, s, nowMs, active, skipQuiet, elect, &run)
	} else {
		b.immediate(im, s, skipQuiet, elect, &run)
	}
	run.MoreWork = len(run.Elected) >= s.MaxPerRun
	return run
}

// immediate walks every imbalanced partition in Kafka's iteration order until the cap. A run
// usually stops at the cap long before the end of a large imbalanced set, so the order is
// produced lazily, from a heap of iteration keys, rather than by sorting the whole set: the
// partitions examined, and in what order, are exactly those of a full sort. With skipQuiet the
// heap holds only the partitions not flagged ImbQuiet, whose elections are known to write
// nothing; the candidates left when the cap is reached (DeferredByCap) still count them, from
// every imbalanced partition's key.
func (b *Balancer) immediate(im *metadata.Image, s Settings, skipQuiet bool, elect Elector, run *Run) {
	keys, all := b.keys[:0], b.allKeys[:0]
	for _, id := range im.BrokerIDs() {
		ks, fs := im.ImbalancedKeys(id), im.ImbalancedFlags(id)
		for i, p := range im.ImbalancedPreferring(id) {
			k := uint64(ks[i])<<32 | uint64(uint32(p))
			all = append(all, k)
			if !skipQuiet || fs[i]&metadata.ImbQuiet == 0 {
				keys = append(keys, k)
			}
		}
	}
	heapify(keys)
	var last uint64 // the key of the latest election
	for len(keys) > 0 && len(run.Elected) < s.MaxPerRun {
		var k uint64
		k, keys = popMin(keys)
		if p := int32(uint32(k)); elect(p) {
			run.Elected = append(run.Elected, p)
			last = k
		}
	}
	if len(run.Elected) >= s.MaxPerRun {
		// Kafka stops at the top of the loop once the cap is reached: everything after the
		// election that reached it is left.
		run.DeferredByCap = countAbove(all, last)
	}
	b.keys, b.allKeys = keys[:0], all[:0]
}

// countAbove counts the keys greater than k.
func countAbove(keys []uint64, k uint64) int {
	n := 0
	for _, x := range keys {
		if x > k {
			n++
		}
	}
	return n
}

// heapify makes h a binary min-heap.
func heapify(h []uint64) {
	for i := len(h)/2 - 1; i >= 0; i-- {
		siftDown(h, i)
	}
}

// popMin removes the smallest key from the min-heap h.
func popMin(h []uint64) (uint64, []uint64) {
	k := h[0]
	last := len(h) - 1
	h[0] = h[last]
	h = h[:last]
	siftDown(h, 0)
	return k, h
}

func siftDown(h []uint64, i int) {
	n := len(h)
	for {
		c := 2*i + 1
		if c >= n {
			return
		}
		if c+1 < n && h[c+1] < h[c] {
			c++
		}
		if h[i] <= h[c] {
			return
		}
		h[i], h[c] = h[c], h[i]
		i = c
	}
}

// waitForSync evaluates each broker's gate, then elects round-robin across the eligible ones.
// The gate reads each partition's ImbPrefInIsr flag, not the partition; with skipQuiet the
// queues leave out the partitions flagged ImbQuiet (see Run).
func (b *Balancer) waitForSync(im *metadata.Image, s Settings, nowMs int64, active func(int32) bool, skipQuiet bool, elect Elector, run *Run) {
	// Each candidate is its packed key, IterationKey<<32 | partition: sorting plain integers
	// orders the partitions as Kafka's hash set iterates them without reaching into the image
	// (scattered over a large array) at every comparison.
	cands := b.keys[:0]
	all := b.allKeys[:0]
	b.queues = b.queues[:0]
	seen := map[int32]bool{}
	for _, id := range im.BrokerIDs() {
		list, ks, fs := im.ImbalancedPreferring(id), im.ImbalancedKeys(id), im.ImbalancedFlags(id)
		if len(list) == 0 {
			continue
		}
		seen[id] = true
		start, allStart := len(cands), len(all)
		onlyInSync := false
		if !active(id) {
			// An inactive preferred replica cannot be elected; its leaderless partitions may
			// still get another leader from this PREFERRED pass, as in Kafka.
			delete(b.gates, id)
		} else {
			oos := 0
			for _, f := range fs {
				if f&metadata.ImbPrefInIsr == 0 {
					oos++
				}
			}
			denom := len(list)
			if s.Denominator == config.DenominatorPreferred {
				denom = im.PreferredCount(id)
			}
			over := int64(oos)*100 > s.ThresholdPercent*int64(denom)
			var eligible bool
			eligible, onlyInSync = b.evaluate(id, over, s, nowMs, run)
			if !eligible {
				run.GatedBrokers = append(run.GatedBrokers, id)
				run.OutOfSync = append(run.OutOfSync, BrokerCount{Broker: id, Count: oos, Over: over})
				run.SkippedByGate += len(list) - oos
				continue
			}
		}
		for i, p := range list {
			if onlyInSync && fs[i]&metadata.ImbPrefInIsr == 0 {
				continue
			}
			k := uint64(ks[i])<<32 | uint64(uint32(p))
			all = append(all, k)
			if !skipQuiet || fs[i]&metadata.ImbQuiet == 0 {
				cands = append(cands, k)
			}
		}
		slices.Sort(cands[start:])
		b.queues = append(b.queues, queue{broker: id, cands: cands[start:len(cands):len(cands)], all: all[allStart:len(all):len(all)]})
	}
	// Brokers with nothing left to balance start afresh next time.
	for id := range b.gates {
		if !seen[id] {
			delete(b.gates, id)
		}
	}
	b.keys, b.allKeys = cands, all
	b.roundRobin(s.MaxPerRun, elect, run)
}

// evaluate advances a broker's gate by one evaluation. It returns whether the broker's
// partitions may be elected in this run, and whether only those where it is in the ISR may.
func (b *Balancer) evaluate(id int32, over bool, s Settings, nowMs int64, run *Run) (eligible, onlyInSync bool) {
	g := b.gates[id]
	if g == nil {
		g = &gate{}
		b.gates[id] = g
	}
	switch {
	case g.escaped:
		if over {
			return true, true
		}
		*g = gate{}
		return true, false
	case g.gated:
		if over {
			g.ungatedRuns = 0
			if s.MaxWaitMs > 0 && nowMs-g.sinceMs >= s.MaxWaitMs {
				*g = gate{escaped: true}
				b.EscapeHatchCount++
				run.EscapeHatchBrokers = append(run.EscapeHatchBrokers, id)
				return true, true
			}
			return false, false
		}
		g.ungatedRuns++
		if g.ungatedRuns >= 2 {
			*g = gate{}
			return true, false
		}
		return false, false
	case over:
		*g = gate{gated: true, sinceMs: nowMs}
		return false, false
	}
	return true, false
}

// roundRobin takes one election from each eligible broker in turn, starting after the broker
// served last, until the cap is reached or nothing is left.
func (b *Balancer) roundRobin(maxPerRun int, elect Elector, run *Run) {
	qs := b.queues
	if len(qs) == 0 {
		return
	}
	first := 0
	for first < len(qs) && qs[first].broker < b.cursor {
		first++
	}
	if first == len(qs) {
		first = 0
	}
	for {
		progressed := false
		for k := 0; k < len(qs); k++ {
			q := &qs[(first+k)%len(qs)]
			if len(run.Elected) >= maxPerRun {
				for i := range qs {
					run.DeferredByCap += qs[i].left()
				}
				return
			}
			found := false
			for q.next < len(q.cands) {
				k := q.cands[q.next]
				q.next++
				if p := int32(uint32(k)); elect(p) {
					run.Elected = append(run.Elected, p)
					progressed, found = true, true
					q.last, q.elected = k, true
					b.cursor = q.broker + 1
					break
				}
			}
			if !found {
				q.drained = true
			}
		}
		if !progressed {
			return
		}
	}
}
