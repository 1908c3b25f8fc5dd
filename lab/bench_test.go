package lab

import (
	"context"
	"runtime"
	"testing"
)

// reportCPU adds the process's CPU time per iteration since start (cpuSeconds) as cpu-s/op:
// a benchmark's own figure on a machine whose other load stretches the wall time.
func reportCPU(b *testing.B, start float64) {
	if start >= 0 {
		b.ReportMetric((cpuSeconds()-start)/float64(b.N), "cpu-s/op")
	}
}

// kipSweepAxes is the speed budget's grid: 10 thresholds × 10 caps of wait-for-sync on the
// KIP's load test, 100 cells of 60 simulated minutes plus the immediate baseline they share.
func kipSweepAxes() []Axis {
	a, _ := ParseAxis("leader.imbalance.election.wait.for.sync.threshold.percent=0..18:2")
	b, _ := ParseAxis("leader.imbalance.election.max.per.run=100..1000:100")
	return []Axis{a, b}
}

// BenchmarkSweepKIPLoadTest10x10 is the budget: a 10 × 10 sweep of the KIP's load
// test on every core (GOMAXPROCS workers) in at most 60 s on 2 cores. Run it with
// -benchtime 1x: one iteration is 101 runs.
func BenchmarkSweepKIPLoadTest10x10(b *testing.B) {
	doc, err := KIPLoadTest().Scenario()
	if err != nil {
		b.Fatal(err)
	}
	base := []Override{{"leader.imbalance.election.algorithm", "wait-for-sync"}}
	for i := 0; i < b.N; i++ {
		s, err := PlanSweep(doc, base, kipSweepAxes())
		if err != nil {
			b.Fatal(err)
		}
		if err := s.Run(context.Background(), Options{Workers: runtime.GOMAXPROCS(0)}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRunKIPLoadTest is one cell of that sweep: the KIP's example settings.
func BenchmarkRunKIPLoadTest(b *testing.B) {
	d := KIPLoadTest()
	d.Config = DefaultPolicies()[1].Overrides
	doc, err := d.Scenario()
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, err := Run(context.Background(), doc, RunOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}
