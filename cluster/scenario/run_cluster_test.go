package scenario

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kraftlab/kraftlab/cluster"
	"github.com/kraftlab/kraftlab/engine/controller"
	"github.com/kraftlab/kraftlab/engine/metadata"
	"github.com/kraftlab/kraftlab/internal/jsskip"
)

// smallCluster is a fast cluster-mode scenario: 3 brokers, 30 partitions, 5 minutes, broker 0
// killed at 1 minute and started at 2; %s takes more events.
const smallCluster = `{"seed": 5, "duration_ms": 300000, "cluster": {"brokers": 3,
 "topics": [{"name": "t", "partition_count": 30, "replication_factor": 3}]},
 "events": [{"at_ms": 60000, "op": "kill", "broker": 0}, {"at_ms": 120000, "op": "start", "broker": 0}%s]}`

func playCluster(t *testing.T, src string, settings ...Setting) *ClusterResult {
	t.Helper()
	s, err := Parse([]byte(src), settings...)
	require.NoError(t, err)
	res, err := Run(s)
	require.NoError(t, err)
	require.NotNil(t, res.Cluster)
	return res.Cluster
}

func small(more ...string) string {
	extra := ""
	for _, m := range more {
		extra += ", " + m
	}
	return strings.Replace(smallCluster, "%s", extra, 1)
}

func TestClusterRunListsWhatHappened(t *testing.T) {
	res := playCluster(t, small())
	require.Len(t, res.Events, 2)
	assert.Equal(t, EventResult{Index: 1, TimeMs: 120000, Op: cluster.OpStart}, withoutCursors(res.Events[1]))
	// Setup: the first LeaderChangeMessage, the features, the ELR min.insync.replicas config,
	// 3 registrations, the topic and its 30 partitions.
	assert.Equal(t, 1+1+1+3+1+30, res.SetupRecords)
	require.NotEmpty(t, res.Records)
	assert.GreaterOrEqual(t, res.Records[0].Offset, int64(res.SetupRecords), "the listed records start after the setup")
	for _, r := range res.Records {
		assert.NotEqual(t, "NoOpRecord", r.Record.Type(), "NoOpRecords are only counted")
		assert.GreaterOrEqual(t, r.TimeMs, int64(0))
	}
	assert.Greater(t, res.NoOpRecords, 500, "one every 500 ms")
	// Broker 0's fencing is among the records, within the session timeout of the kill.
	fenced := false
	for _, r := range res.Records {
		if b, ok := r.Record.(*metadata.BrokerRegistrationChangeRecord); ok && b.BrokerID == 0 && b.Fenced == metadata.FenceFence {
			fenced = true
			assert.InDelta(t, 60000+9000, r.TimeMs, 2500)
		}
	}
	assert.True(t, fenced)
	// Samples every 10 s, broker by broker.
	require.Len(t, res.Samples, 30)
	assert.Equal(t, int64(10000), res.Samples[0].TimeMs)
	assert.Equal(t, "not_running", res.Samples[6].Brokers[0].State, "at 70 s broker 0 is down")
	assert.Zero(t, res.Samples[6].Brokers[0].Leaders)
	assert.Equal(t, 30, res.Samples[6].UnderReplicated)
	for _, run := range res.BalancerRuns {
		assert.NotZero(t, run.Controller, "every run names its controller")
	}
	sum := res.Summary
	unfenced, _ := sum.Get(SummaryUnfencedAtMs)
	assert.Greater(t, unfenced.Value, 120000.0, "broker 0 was unfenced after its start")
	violations, _ := sum.Get(SummaryInvariantViolations)
	assert.Zero(t, violations.Value)
	assert.Empty(t, res.Violation)
}

func withoutCursors(e EventResult) EventResult {
	e.runs, e.samples, e.describe = 0, 0, 0
	return e
}

func TestClusterRunRecordsRefusals(t *testing.T) {
	res := playCluster(t, small(`{"at_ms": 70000, "op": "kill", "broker": 0, "note": "again"}`,
		`{"at_ms": 80000, "op": "delete_topic", "name": "t"}`, `{"at_ms": 90000, "op": "delete_topic", "name": "t"}`))
	byIndex := map[int]EventResult{}
	for _, e := range res.Events {
		byIndex[e.Index] = e
	}
	require.NotNil(t, byIndex[2].Error, "a stopped broker cannot be killed")
	assert.Equal(t, CodeEventRefused, byIndex[2].Error.Code)
	assert.Contains(t, byIndex[2].Error.Message, "already NOT_RUNNING")
	assert.Nil(t, byIndex[3].Error)
	require.NotNil(t, byIndex[4].Error, "the topic is gone")
	assert.Equal(t, string(controller.UnknownTopicOrPartition), byIndex[4].Error.Code, "the controller's refusal carries Kafka's code")
}

func TestClusterOutputCanLeaveRecordsOut(t *testing.T) {
	src := strings.Replace(small(), `"events"`, `"output": {"records": false}, "events"`, 1)
	res := playCluster(t, src)
	assert.Nil(t, res.Records)
	assert.Positive(t, res.NoOpRecords, "counts stay")
	var b bytes.Buffer
	require.NoError(t, (&Result{Cluster: res}).WriteJSON(&b))
	var out map[string]any
	require.NoError(t, json.Unmarshal(b.Bytes(), &out))
	assert.NotContains(t, out, "records")
	assert.Contains(t, out, "noop_records")
	b.Reset()
	require.NoError(t, (&Result{Cluster: res}).WriteText(&b))
	assert.Contains(t, b.String(), "records: 0 listed (output.records is false)")
}

func TestClusterSettingsChangeTheRun(t *testing.T) {
	base := playCluster(t, small())
	fast := playCluster(t, small(), setting(t, "leader.imbalance.check.interval.seconds=30"))
	assert.Len(t, base.BalancerRuns, 1, "one electPreferred run in 5 minutes by default")
	assert.Len(t, fast.BalancerRuns, 10, "one every 30 s")
	// Kafka's broker names reach the brokers: a lagging follower leaves the ISR sooner.
	acks1 := playCluster(t, small(), setting(t, "acks=1"))
	assert.NotEqual(t, base.Samples, acks1.Samples)
}

func TestClusterRunIsDeterministic(t *testing.T) {
	jsskip.CoveredNatively(t, "two runs of one scenario against each other, both in this process")
	files, err := filepath.Glob(filepath.Join("testdata", "cluster-*.json"))
	require.NoError(t, err)
	for _, f := range files {
		if strings.HasSuffix(f, ".out.json") {
			continue
		}
		data := readFile(t, f)
		assert.Equal(t, render(t, data, true), render(t, data, true), f)
	}
	one := render(t, []byte(small()), false)
	other := render(t, []byte(strings.Replace(small(), `"seed": 5`, `"seed": 6`, 1)), false)
	assert.NotEqual(t, one, other, "the seed drives the run")
}

func TestEventErrorNamesTheField(t *testing.T) {
	ev := Event{Event: cluster.Event{Op: cluster.OpKill}, Index: 3}
	assert.EqualError(t, eventError(ev, errors.New("broker: broker 9 does not exist (brokers: 0, 1)")), "events[3].broker: broker 9 does not exist (brokers: 0, 1)")
	assert.EqualError(t, eventError(ev, errors.New("factor: 2 is not allowed")), "events[3]: factor: 2 is not allowed", "factor is not a field of kill")
	assert.EqualError(t, eventError(ev, errors.New("no controller is active")), "events[3]: no controller is active")
}

func TestRefusal(t *testing.T) {
	assert.Equal(t, &StepError{Code: "INVALID_REQUEST", Message: "m"}, refusal(&controller.APIError{Code: controller.InvalidRequest, Message: "m"}))
	assert.Equal(t, &StepError{Code: CodeEventRefused, Message: "boom"}, refusal(errors.New("boom")))
}

func TestAViolationEndsTheResult(t *testing.T) {
	res := &ClusterResult{Seed: 1, DurationMs: 1000, Events: []EventResult{{Index: 0, TimeMs: 500, Op: cluster.OpKill, describe: -1}},
		Summary:   summary(cluster.Summary{UnfencedAtMs: -1, LeadershipRestoredAtMs: -1, RecoveryTimeMs: -1, InvariantViolations: 1}),
		Violation: `invariant "leader-in-isr" broken at 600 ms (seed 1): x, but y`}
	var b bytes.Buffer
	require.NoError(t, (&Result{Cluster: res}).WriteText(&b))
	assert.Contains(t, b.String(), "stopped: invariant \"leader-in-isr\" broken at 600 ms (seed 1): x, but y\n")
	assert.Contains(t, b.String(), "  unfenced_at_ms: -1 (never)\n")
	b.Reset()
	require.NoError(t, (&Result{Cluster: res}).WriteJSON(&b))
	var out struct {
		Violation string
		Summary   map[string]float64
	}
	require.NoError(t, json.Unmarshal(b.Bytes(), &out))
	assert.Equal(t, res.Violation, out.Violation)
	assert.Equal(t, 1.0, out.Summary[SummaryInvariantViolations])
}

func TestMillis(t *testing.T) {
	for _, c := range []struct {
		in   float64
		want string
	}{{6.3125, "6.313"}, {13, "13"}, {0.0004, "0"}, {-0.0001, "0"}, {math.NaN(), "null"}, {math.Inf(1), "null"}} {
		got, err := Millis(c.in).MarshalJSON()
		require.NoError(t, err)
		assert.Equal(t, c.want, string(got), c.in)
	}
}

func TestClock(t *testing.T) {
	assert.Equal(t, "0:00:00.000", clock(0))
	assert.Equal(t, "1:02:03.004", clock(3_723_004))
	assert.Equal(t, "-0:00:00.003", clock(-3))
}

func TestCompare(t *testing.T) {
	tenMinutes := strings.Replace(small(), `"duration_ms": 300000`, `"duration_ms": 600000`, 1)
	cmp, err := Compare([]byte(tenMinutes), nil, []Setting{setting(t, "leader.imbalance.check.interval.seconds=300")},
		[]Setting{setting(t, "leader.imbalance.check.interval.seconds=30")})
	require.NoError(t, err)
	assert.Equal(t, uint64(5), cmp.Seed)
	ra, _ := cmp.A.Summary.Get(SummaryLeadershipRestoredAtMs)
	rb, _ := cmp.B.Summary.Get(SummaryLeadershipRestoredAtMs)
	assert.Less(t, rb.Value, ra.Value, "checking every 30 s gives leadership back sooner")
	r, ok := cmp.Ratio(SummaryLeadershipRestoredAtMs)
	require.True(t, ok)
	assert.InDelta(t, rb.Value/ra.Value, r, 1e-9)
	_, ok = cmp.Ratio(SummaryInvariantViolations)
	assert.False(t, ok, "0 in a: no ratio")

	var b bytes.Buffer
	require.NoError(t, cmp.WriteJSON(&b))
	var out struct {
		Seed  uint64
		Set   map[string]string
		A, B  struct{ Settings map[string]string }
		Ratio map[string]*float64
	}
	require.NoError(t, json.Unmarshal(b.Bytes(), &out), b.String())
	assert.Equal(t, map[string]string{"leader.imbalance.check.interval.seconds": "30"}, out.B.Settings)
	assert.Nil(t, out.Ratio[SummaryInvariantViolations])
	require.NotNil(t, out.Ratio[SummaryLeadershipRestoredAtMs])
	b.Reset()
	require.NoError(t, cmp.WriteText(&b))
	assert.Contains(t, b.String(), "b:    leader.imbalance.check.interval.seconds=30\n")
	assert.Regexp(t, `\ninvariant_violations +0 +0 +-\n`, b.String())

	_, err = Compare([]byte(`{"mode": "controller"}`), nil, nil, []Setting{setting(t, "min.insync.replicas=2")})
	assert.EqualError(t, err, "mode: compare needs a cluster-mode scenario (a controller-mode run has no summary to compare)")
}

// TestClusterElectLeadersAnswersUnknownPartitions: an elect_leaders event naming a topic or a
// partition that does not exist runs, and each such partition is answered
// UNKNOWN_TOPIC_OR_PARTITION while the others are handled, as Kafka's
// ReplicationControlManager.electLeaders does.
func TestClusterElectLeadersAnswersUnknownPartitions(t *testing.T) {
	res := playCluster(t, small(`{"at_ms": 130000, "op": "elect_leaders", "type": "preferred", "partitions": [
	 {"topic": "t", "partition": 0}, {"topic": "nowhere", "partition": 0}, {"topic": "t", "partition": 30}]}`))
	require.Len(t, res.Events, 3)
	ev := res.Events[2]
	assert.Nil(t, ev.Error)
	require.Len(t, ev.Results, 3)
	assert.NotEqual(t, "UNKNOWN_TOPIC_OR_PARTITION", ev.Results[0].Error)
	assert.Equal(t, PartitionResult{Topic: "nowhere", Partition: 0, Error: "UNKNOWN_TOPIC_OR_PARTITION", Message: "No such topic as nowhere"}, ev.Results[1])
	assert.Equal(t, PartitionResult{Topic: "t", Partition: 30, Error: "UNKNOWN_TOPIC_OR_PARTITION", Message: "No such partition as t-30"}, ev.Results[2])
}

// TestSteadyP99NeedsASteadyPeriod: a fault 20 s into the run leaves two start-up windows before
// it, not a steady period, so the summary gives no steady p99 and no ratio, and says why; a
// fault after a full sliding window (60 s) of healthy produce has both.
func TestSteadyP99NeedsASteadyPeriod(t *testing.T) {
	early := strings.Replace(small(), `"at_ms": 60000, "op": "kill"`, `"at_ms": 20000, "op": "kill"`, 1)
	src := strings.Replace(early, `"cluster": {`, `"output": {"records": false}, "cluster": {`, 1)
	s, err := Parse([]byte(src))
	require.NoError(t, err)
	res, err := Run(s)
	require.NoError(t, err)
	field := func(r *ClusterResult, name string) SummaryField {
		for _, f := range r.Summary.Fields {
			if f.Name == name {
				return f
			}
		}
		t.Fatalf("no summary field %s", name)
		return SummaryField{}
	}
	assert.Equal(t, -1.0, field(res.Cluster, SummaryP99SteadyMs).Value)
	assert.Equal(t, -1.0, field(res.Cluster, SummaryP99Ratio).Value)
	var text bytes.Buffer
	require.NoError(t, res.WriteText(&text))
	assert.Contains(t, text.String(), "p99_steady_ms: -1 (no steady period: 20 s of healthy produce before the first fault, 60 s needed)")
	assert.Contains(t, text.String(), "p99_ratio: -1 (no steady p99 to compare with)")

	steady := playCluster(t, small())
	assert.Greater(t, field(steady, SummaryP99SteadyMs).Value, 0.0, "60 s of healthy produce before the kill")
	assert.Empty(t, field(steady, SummaryP99SteadyMs).Note)
}
