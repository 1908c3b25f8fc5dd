package workload

import (
	"fmt"
	"math"
	"slices"

	"github.com/kraftlab/kraftlab/cluster/broker"
)

// SetPartitionRates gives the starting partitions 0 to len(rates)−1 (their indexes in
// metadata.Image) the produce rates an operator measured, in bytes per second, instead of
// classes hashed from the lognormal skew. The brokers' closed-form catch-up needs few rate
// classes (broker.Rates), so the rates are grouped into the classes left beside the lognormal
// ones (GroupRates): each partition then produces at its group's mean, and every group's
// total is exact. Partitions created later keep the lognormal classes. Call it once, before
// the brokers are built and before Start.
func (w *Workload) SetPartitionRates(rates []float64) error {
	if w.started || w.given != nil {
		return fmt.Errorf("workload: SetPartitionRates must be called once, before Start")
	}
	if len(rates) == 0 {
		return fmt.Errorf("workload: SetPartitionRates: no rates")
	}
	for i, r := range rates {
		if !(r >= 0) || math.IsInf(r, 0) {
			return fmt.Errorf("workload: partition %d's produce rate is %g; must be a finite number ≥ 0 (bytes per second)", i, r)
		}
	}
	room := broker.MaxClasses - w.hashed
	if room < 2 {
		return fmt.Errorf("workload: Classes = %d leaves %d of the brokers' %d rate classes for the partitions' own rates; give at most %d", w.hashed, room, broker.MaxClasses, broker.MaxClasses-2)
	}
	levels, of := GroupRates(rates, room)
	for _, l := range levels {
		w.rel = append(w.rel, l/w.meanBytes)
		w.levels = append(w.levels, l)
	}
	w.given = make([]uint8, len(of))
	for i, c := range of {
		w.given[i] = uint8(w.hashed + int(c))
	}
	return nil
}

// GroupRates groups rates into at most classes (2 or more) groups and returns each group's mean rate and
// each rate's group. Equal rates share a group; zero rates have one of their own. While there
// are no more distinct rates than groups each keeps its own; beyond that, the groups are
// intervals of log(rate) of the smallest width that covers every rate with the groups
// available, so a rate is within that width of its group's mean (GroupError).
func GroupRates(rates []float64, classes int) (levels []float64, of []uint8) {
	vals := slices.Clone(rates)
	slices.Sort(vals)
	vals = slices.Compact(vals)
	zero := len(vals) > 0 && vals[0] == 0
	pos := vals
	if zero {
		pos = vals[1:]
		classes--
	}
	// start[i] is the group of pos[i]: a new group begins where a value is more than width
	// (in log) above the group's first value.
	logs := make([]float64, len(pos))
	for i, v := range pos {
		logs[i] = math.Log(v)
	}
	cover := func(width float64, group []int) int {
		n, first := 0, math.Inf(-1)
		for i, l := range logs {
			if l > first+width {
				n, first = n+1, l
			}
			if group != nil {
				group[i] = n - 1
			}
		}
		return n
	}
	width := 0.0
	if len(logs) > classes {
		lo, hi := 0.0, logs[len(logs)-1]-logs[0]
		for range 64 {
			mid := (lo + hi) / 2
			if cover(mid, nil) <= classes {
				hi = mid
			} else {
				lo = mid
			}
		}
		width = hi
	}
	group := make([]int, len(logs))
	n := cover(width, group)
	if zero {
		for i := range group {
			group[i]++
		}
		n++
	}
	sum, count := make([]float64, n), make([]int, n)
	of = make([]uint8, len(rates))
	for i, r := range rates {
		g := 0
		if r > 0 {
			k, _ := slices.BinarySearch(pos, r)
			g = group[k]
		}
		of[i] = uint8(g)
		sum[g] += r
		count[g]++
	}
	levels = make([]float64, n)
	for g := range levels {
		levels[g] = sum[g] / float64(count[g])
	}
	return levels, of
}

// GroupError is the largest relative difference between a rate and its group's mean rate
// (GroupRates): 0 when every distinct rate has its own group.
func GroupError(rates, levels []float64, of []uint8) float64 {
	worst := 0.0
	for i, r := range rates {
		if l := levels[of[i]]; r > 0 {
			worst = max(worst, math.Abs(l-r)/r)
		}
	}
	return worst
}
