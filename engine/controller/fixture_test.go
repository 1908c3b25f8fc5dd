package controller

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/kraftlab/kraftlab/engine/balance"
	"github.com/kraftlab/kraftlab/engine/config"
	"github.com/kraftlab/kraftlab/engine/metadata"
)

// fixture is a controller with registered, unfenced brokers, activated at time 0, whose
// partitions are set up exactly through bootstrap records.
type fixture struct {
	t *testing.T
	c *Controller
	// afterTask, if set, is called by runLive after every periodic task it runs.
	afterTask func(name string, at int64)
}

func newFixture(t *testing.T, cfg map[string]any, brokers ...int32) *fixture {
	t.Helper()
	var vals config.Values
	// The fixture's brokers do not heartbeat: give them sessions that outlast any test, so
	// that only tests about session expiry see brokers fenced by it.
	require.NoError(t, vals.Set(config.BrokerSessionTimeoutMs, int64(1<<31-1), config.Cluster))
	for k, v := range cfg {
		require.NoError(t, vals.Set(k, v, config.Cluster))
	}
	c := New(1, vals)
	var recs []metadata.Record
	for _, id := range brokers {
		recs = append(recs, &metadata.RegisterBrokerRecord{BrokerID: id, IncarnationID: fmt.Sprintf("inc-%d", id),
			BrokerEpoch: int64(len(recs)), LogDirs: []string{fmt.Sprintf("dir-%d", id)}})
	}
	require.NoError(t, c.Bootstrap(recs))
	c.Activate(0)
	return &fixture{t: t, c: c}
}

// part describes one partition for the fixture: replicas, leader and ISR (ELR optional).
type part struct {
	replicas, isr, elr []int32
	leader             int32
}

// topic bootstraps a topic whose partitions are given in order.
func (f *fixture) topic(name string, parts ...part) {
	f.t.Helper()
	id := f.c.NewTopicID()
	recs := []metadata.Record{&metadata.TopicRecord{Name: name, TopicID: id}}
	for i, p := range parts {
		elr := p.elr
		if elr == nil {
			elr = []int32{}
		}
		recs = append(recs, &metadata.PartitionRecord{Topic: name, TopicID: id, PartitionID: int32(i),
			Replicas: p.replicas, Isr: p.isr, Leader: p.leader, Elr: elr, LastKnownElr: []int32{}})
	}
	require.NoError(f.t, f.c.Bootstrap(recs))
}

// many repeats one partition shape n times.
func many(n int, p part) []part {
	out := make([]part, n)
	for i := range out {
		out[i] = p
	}
	return out
}

func (f *fixture) p(topic string, id int32) *metadata.Partition {
	f.t.Helper()
	idx, ok := f.c.Image().PartitionIndex(topic, id)
	require.True(f.t, ok, "%s-%d", topic, id)
	return &f.c.Image().Partitions[idx]
}

// alterIsr sends the leader's AlterPartition with the current epochs.
func (f *fixture) alterIsr(topic string, id int32, isr []int32, now int64) error {
	p := f.p(topic, id)
	leader := f.c.Image().Broker(p.Leader)
	require.NotNil(f.t, leader, "%s-%d has no leader", topic, id)
	return f.c.AlterPartition(AlterPartitionRequest{BrokerID: p.Leader, BrokerEpoch: leader.Epoch, Topic: topic,
		Partition: id, LeaderEpoch: p.LeaderEpoch, PartitionEpoch: p.PartitionEpoch, NewIsr: isr,
		LeaderRecoveryState: metadata.NoRecoveryChange}, now)
}

// setConfig changes a cluster config and fails the test on error.
func (f *fixture) setConfig(name string, v any, now int64) {
	f.t.Helper()
	require.NoError(f.t, f.c.SetConfig("", name, v, now))
}

// runBalancer runs electPreferred at its next deadline and returns the run.
func (f *fixture) runBalancer() balance.Run {
	f.t.Helper()
	at, ok := f.c.TaskDeadline(TaskElectPreferred)
	require.True(f.t, ok, "electPreferred is not scheduled")
	f.runTasksUntil(at)
	runs := f.c.TakeBalancerRuns()
	require.NotEmpty(f.t, runs)
	return runs[len(runs)-1]
}

// runTasksUntil runs every periodic task due up to and including t.
func (f *fixture) runTasksUntil(t int64) {
	for f.c.RunNextTask(t) != "" {
	}
}

// leadersOf counts, among elected partitions, how many each broker now leads.
func (f *fixture) electedBy(r balance.Run) map[int32]int {
	out := map[int32]int{}
	for _, p := range r.Elected {
		out[f.c.Image().Partitions[p].Leader]++
	}
	return out
}

func (f *fixture) entriesSince(off int64) []metadata.Entry { return f.c.Log().Since(off) }

// heartbeat sends a heartbeat from a broker that has applied the whole log.
func (f *fixture) heartbeat(id int32, now int64, wantFence, wantShutDown bool) HeartbeatReply {
	f.t.Helper()
	b := f.c.Image().Broker(id)
	require.NotNil(f.t, b)
	reply, err := f.c.Heartbeat(HeartbeatRequest{BrokerID: id, BrokerEpoch: b.Epoch,
		CurrentMetadataOffset: f.c.Log().NextOffset() - 1, WantFence: wantFence, WantShutDown: wantShutDown}, now)
	require.NoError(f.t, err)
	return reply
}

// runLive advances from `from` to `until`, with the live brokers heartbeating every 2000 ms
// (first at from) and every periodic task running when due, heartbeats first at equal times.
func (f *fixture) runLive(from, until int64, live ...int32) {
	f.t.Helper()
	nextBeat := from
	for {
		task, hasTask := f.c.NextDeadline()
		if nextBeat <= until && (!hasTask || nextBeat <= task) {
			for _, id := range live {
				f.heartbeat(id, nextBeat, false, false)
			}
			nextBeat += 2000
			continue
		}
		if !hasTask || task > until {
			return
		}
		name := f.c.RunNextTask(task)
		if f.afterTask != nil {
			f.afterTask(name, task)
		}
	}
}

// types lists the record types of entries.
func types(es []metadata.Entry) []string {
	out := make([]string, len(es))
	for i, e := range es {
		out[i] = e.Record.Type()
	}
	return out
}
