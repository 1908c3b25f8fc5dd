package scenario

import (
	"bytes"
	"encoding/json"
	"errors"
	"testing"

	"github.com/kraftlab/kraftlab/engine/config"
)

// FuzzParse feeds the parser arbitrary bytes, seeded with every scenario of testdata:
//
//	go test ./cluster/scenario -run '^$' -fuzz FuzzParse -fuzztime 60s
//
// Parsing must never panic and must fail with a one-line *Error. Whatever it accepts must run
// and print without panicking, and a cluster-mode run must not break an invariant; the
// harness caps clock advances, cluster sizes, durations and events so that each input stays
// fast.
func FuzzParse(f *testing.F) {
	for _, file := range scenarioFiles(f) {
		f.Add(readFile(f, file))
	}
	f.Add([]byte(`{"mode": "controller", "brokers": [{"id": 0}], "steps": [{"op": "isr_leave", "broker": 0}]}`))
	f.Add([]byte(`{"duration_ms": 30000, "cluster": {"controllers": 1, "brokers": 2, "topics": [{"name": "t", "partition_count": 4, "replication_factor": 2}]},
	 "events": [{"at_ms": 1000, "op": "shutdown", "broker": 1}, {"at_ms": 5000, "op": "start", "broker": 1}, {"at_ms": 6000, "op": "describe"},
	            {"at_ms": 7000, "op": "rolling_restart", "interval_ms": 1000}]}`))
	defer func(n int64) { maxEvents = n }(maxEvents)
	maxEvents = 50_000
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := Parse(data)
		if err != nil {
			var se *Error
			if !errors.As(err, &se) || bytes.ContainsRune([]byte(err.Error()), '\n') {
				t.Fatalf("want a one-line *Error, got %T %q", err, err)
			}
			return
		}
		if s.Cluster != nil {
			if !capCluster(s.Cluster) {
				return // valid, but too slow for a fuzz iteration
			}
		} else if !capController(s) {
			return
		}
		res, err := Run(s)
		if err != nil {
			var se *Error
			if !errors.As(err, &se) {
				t.Fatalf("Run failed with %T %v", err, err)
			}
			return
		}
		if res.Cluster != nil && res.Cluster.Violation != "" {
			t.Fatalf("invariant violation: %s", res.Cluster.Violation)
		}
		var b bytes.Buffer
		if err := res.WriteJSON(&b); err != nil {
			t.Fatal(err)
		}
		if !json.Valid(b.Bytes()) {
			t.Fatalf("the JSON result does not parse:\n%s", b.Bytes())
		}
		if err := res.WriteText(&b); err != nil {
			t.Fatal(err)
		}
	})
}

// capController shortens a controller-mode scenario's advances; false if it is too large.
func capController(s *Scenario) bool {
	total := 0
	for i := range s.Topics {
		total += s.Topics[i].PartitionCount
	}
	for i := range s.Steps {
		st := &s.Steps[i]
		st.Ms = min(st.Ms, 20_000)
		if st.CreateTopic != nil {
			total += st.CreateTopic.PartitionCount
		}
	}
	return total <= 2_000
}

// capCluster keeps a cluster-mode scenario tiny: at most a minute, 5 brokers and 200
// partitions, and timings no finer than the defaults' order of magnitude (a 1 ms workload step
// or heartbeat would make a minute cost millions of events). False if it cannot be made so.
func capCluster(cs *ClusterScenario) bool {
	const maxMs = 60_000
	cs.DurationMs = min(cs.DurationMs, maxMs)
	kept := cs.Events[:0]
	for _, ev := range cs.Events {
		if ev.AtMs <= cs.DurationMs {
			ev.IntervalMs = min(ev.IntervalMs, 10_000)
			kept = append(kept, ev)
		}
	}
	cs.Events = kept
	spec := &cs.Spec
	partitions := 0
	for _, t := range spec.Topics {
		partitions += t.PartitionCount + len(t.Replicas)
	}
	for _, ev := range cs.Events {
		partitions += ev.TopicSpec.PartitionCount + len(ev.TopicSpec.Replicas)
	}
	b, w := &spec.Broker, &spec.Workload
	static := &spec.Static
	return len(spec.Brokers) <= 5 && partitions <= 200 && len(cs.Events) <= 50 &&
		spec.SampleMs >= 1000 && w.StepMs >= 100 && w.SamplesPerWindow <= 5000 && w.MaxPending <= 100_000 &&
		b.HeartbeatIntervalMs >= 100 && b.StartingHeartbeatMs >= 5 && b.ControlledShutdownRetryMs >= 10 &&
		b.AlterPartitionRetryMs >= 10 && b.AllocPeriodMs >= 100 && b.ReplicaLagTimeMaxMs >= 100 &&
		atLeast(config.MetadataMaxIdleIntervalMs, static, 100) && atLeast(config.UncleanLeaderElectionIntervalMs, static, 100) &&
		atLeast(config.LeaderImbalanceElectionImmediateMs, static, 10)
}

// atLeast reports whether a periodic config is 0 (off) or at least min ms.
func atLeast(name string, static *config.Values, min int64) bool {
	v := config.Int64(name, static)
	return v == 0 || v >= min
}
