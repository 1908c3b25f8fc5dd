package scenario

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/kraftlab/kraftlab/cluster"
	"github.com/kraftlab/kraftlab/engine/controller"
	"github.com/kraftlab/kraftlab/engine/metadata"
)

// runCluster plays a cluster-mode scenario: it builds the cluster, checks every event with the
// cluster's own Validate before any time passes, then lets time pass to each event, applies
// it, and runs on to the duration.
func runCluster(s *Scenario) (*Result, error) {
	cs := s.Cluster
	c, err := cluster.New(cs.Spec)
	if err != nil {
		return nil, &Error{Path: "cluster", Msg: err.Error()}
	}
	// Everything committed while the cluster came up is its setup: the bootstrap's records,
	// committed at time 0 or just before it.
	setupEnd := c.SetupEnd()
	// The parser has checked what it can; the cluster has the last word on what it accepts.
	for _, ev := range cs.Events {
		if err := c.Validate(ev.Event); err != nil {
			return nil, eventError(ev, err)
		}
	}
	res := &ClusterResult{Seed: s.Seed, DurationMs: cs.DurationMs, Events: make([]EventResult, 0, len(cs.Events))}
	var stop error // an invariant violation, or the cluster's own failure
	for _, ev := range cs.Events {
		if stop = c.RunUntil(ev.AtMs); stop != nil {
			break
		}
		er := EventResult{Index: ev.Index, TimeMs: ev.AtMs, Op: ev.Op, Note: ev.Note,
			runs: len(c.BalancerRuns()), samples: len(c.Samples()), describe: -1}
		before, elections := len(c.Describes()), len(c.ElectLeadersResults())
		if err := c.Do(ev.Event); err != nil {
			if stop = c.Err(); stop != nil {
				res.Events = append(res.Events, er)
				break
			}
			er.Error = refusal(err)
		}
		if len(c.Describes()) > before {
			er.describe = before
		}
		if all := c.ElectLeadersResults(); len(all) > elections {
			er.Results = partitionResults(all[elections].Results)
		}
		res.Events = append(res.Events, er)
	}
	if stop == nil {
		stop = c.RunUntil(cs.DurationMs)
	}
	if stop != nil {
		if c.Err() == nil {
			// Not a violation the cluster recorded: a failure of the simulation itself.
			return nil, fmt.Errorf("cluster: the run stopped at %d ms: %w", c.Now(), stop)
		}
		res.Violation = stop.Error()
	}
	collect(c, cs, res, setupEnd)
	return &Result{Description: s.Description, Cluster: res}, nil
}

// partitionResults converts an ElectLeaders answer, as controller mode writes it.
func partitionResults(rs []controller.ElectionResult) []PartitionResult {
	out := make([]PartitionResult, 0, len(rs))
	for _, r := range rs {
		pr := PartitionResult{Topic: r.Topic, Partition: r.Partition, Error: string(controller.None)}
		if r.Error != nil {
			pr.Error, pr.Message = string(r.Error.Code), r.Error.Message
		}
		out = append(out, pr)
	}
	return out
}

// eventError names the event, and the field when the cluster's message starts with one of
// the op's fields ("broker: broker 9 does not exist").
func eventError(ev Event, err error) *Error {
	path := indexPath("events", ev.Index)
	msg := err.Error()
	fields, _ := clusterOpFields.get(ev.Op)
	if field, rest, ok := strings.Cut(msg, ": "); ok && slices.Contains(fields, field) {
		return &Error{Path: fieldPath(path, field), Msg: rest}
	}
	return &Error{Path: path, Msg: msg}
}

// refusal is an event's error in the result: Kafka's code when the controller refused the
// request, else CodeEventRefused.
func refusal(err error) *StepError {
	var ae *controller.APIError
	if errors.As(err, &ae) {
		return &StepError{Code: string(ae.Code), Message: ae.Message}
	}
	return &StepError{Code: CodeEventRefused, Message: err.Error()}
}

// collect reads the cluster's records, runs, describes, samples and summary into the result.
func collect(c *cluster.Cluster, cs *ClusterScenario, res *ClusterResult, setupEnd int64) {
	records := c.Records()
	var committedAt []int64 // times of the listed (non-NoOp) records, for the per-sample counts
	for _, r := range records {
		switch {
		case r.Offset < setupEnd:
			res.SetupRecords++
		case r.Record.Type() == (metadata.NoOpRecord{}).Type():
			res.NoOpRecords++
		default:
			committedAt = append(committedAt, r.TimeMs)
			if cs.Output.Records {
				res.Records = append(res.Records, Record{Entry: r.Entry, TimeMs: r.TimeMs})
			}
		}
	}
	if cs.Output.Records && res.Records == nil {
		res.Records = []Record{}
	}
	view := c.View()
	for _, run := range c.BalancerRuns() {
		res.BalancerRuns = append(res.BalancerRuns, balancerRun(run, view))
	}
	for _, d := range c.Describes() {
		dr := DescribeResult{TimeMs: d.TimeMs, Partitions: make([]PartitionState, 0, len(d.Partitions))}
		for _, p := range d.Partitions {
			dr.Partitions = append(dr.Partitions, partitionState(p))
		}
		res.Describes = append(res.Describes, dr)
	}
	next := 0
	for _, s := range c.Samples() {
		sr := SampleResult{TimeMs: s.TimeMs, Brokers: make([]BrokerSample, 0, len(s.Brokers)), UnderReplicated: s.UnderReplicated,
			Offline: s.Offline, Elections: s.Elections, ProduceP50Ms: Millis(s.ProduceP50Ms), ProduceP99Ms: Millis(s.ProduceP99Ms),
			ProduceP999Ms: Millis(s.ProduceP999Ms), ProduceErrors: s.ProduceErrors, ProduceTimeouts: s.ProduceTimeouts}
		for _, b := range s.Brokers {
			sr.Brokers = append(sr.Brokers, BrokerSample{ID: b.ID, State: b.State, Leaders: b.Leaders, PreferredTotal: b.PreferredTotal,
				PreferredLed: b.PreferredLed, OutOfSync: b.OutOfSync, OutOfSyncPreferred: b.OutOfSyncPreferred, Gated: b.Gated})
		}
		for next < len(committedAt) && committedAt[next] <= s.TimeMs {
			sr.recordsSincePrevSample++
			next++
		}
		res.Samples = append(res.Samples, sr)
	}
	res.Summary = summary(c.Summary())
}

// balancerRun converts a run; its elections name partitions as the run's controller named them
// (cluster.BalancerRun.Partitions), or by index in the committed view for a run without names.
func balancerRun(run cluster.BalancerRun, view *metadata.Image) BalancerRun {
	br := BalancerRun{TimeMs: run.TimeMs, Controller: run.Controller, Elections: make([]Election, 0, len(run.Elected)),
		MoreWork: run.MoreWork, DeferredByCap: run.DeferredByCap, GatedBrokers: run.GatedBrokers,
		EscapeHatchBrokers: run.EscapeHatchBrokers, SkippedByGate: run.SkippedByGate}
	for i, idx := range run.Elected {
		e := Election{Topic: "?", Partition: idx, Leader: metadata.NoLeader}
		if i < len(run.Partitions) {
			e.Topic, e.Partition = run.Partitions[i].Topic, run.Partitions[i].Partition
		} else if int(idx) < len(view.Partitions) {
			p := &view.Partitions[idx]
			e.Topic, e.Partition = view.TopicName(p), p.ID
		}
		if i < len(run.Leaders) {
			e.Leader = run.Leaders[i]
		}
		br.Elections = append(br.Elections, e)
	}
	for _, oos := range run.OutOfSync {
		br.OutOfSync = append(br.OutOfSync, BrokerValue{Broker: oos.Broker, Value: oos.Count})
	}
	if run.NextRunMs >= 0 {
		next := run.NextRunMs
		br.NextRunMs = &next
	}
	return br
}

func partitionState(p cluster.PartitionState) PartitionState {
	ps := PartitionState{Topic: p.Topic, Partition: p.Partition, Leader: p.Leader, LeaderEpoch: p.LeaderEpoch,
		PartitionEpoch: p.PartitionEpoch, Replicas: p.Replicas, Isr: p.Isr, Elr: p.Elr, LastKnownElr: p.LastKnownElr}
	if p.Recovering {
		ps.LeaderRecoveryState = "RECOVERING"
	}
	return ps
}

// Summary field names, as the result writes them.
const (
	SummaryUnfencedAtMs           = "unfenced_at_ms"
	SummaryLeadershipRestoredAtMs = "leadership_restored_at_ms"
	SummaryRecoveryTimeMs         = "recovery_time_ms"
	SummaryP99SteadyMs            = "p99_steady_ms"
	SummaryP99Worst10MinMs        = "p99_worst_10min_ms"
	SummaryP99Ratio               = "p99_ratio"
	SummaryProduceTimeouts        = "produce_timeouts"
	SummaryProduceErrors          = "produce_errors"
	SummaryAckedRecordsLost       = "acked_records_lost"
	SummaryMaxElectionsPerRun     = "max_elections_per_run"
	SummaryUncleanElections       = "unclean_elections"
	SummaryInvariantViolations    = "invariant_violations"
)

// seconds writes a duration in whole or fractional seconds: "20 s", "1.5 s".
func seconds(ms int64) string {
	return strconv.FormatFloat(float64(ms)/1000, 'f', -1, 64) + " s"
}

// summary lists the cluster's summary under the format's names, in the documented order.
func summary(s cluster.Summary) SummaryResult {
	tm := func(name string, v int64) SummaryField {
		return SummaryField{Name: name, Value: float64(v), Integer: true, Time: true}
	}
	n := func(name string, v int) SummaryField {
		return SummaryField{Name: name, Value: float64(v), Integer: true}
	}
	f := func(name string, v float64) SummaryField { return SummaryField{Name: name, Value: v} }
	steady, ratio := f(SummaryP99SteadyMs, s.P99SteadyMs), f(SummaryP99Ratio, s.P99Ratio)
	if s.P99SteadyMs < 0 && s.SteadyMs < s.SteadyNeedMs {
		steady.Note = fmt.Sprintf("no steady period: %s of healthy produce before the first fault, %s needed", seconds(s.SteadyMs), seconds(s.SteadyNeedMs))
		ratio.Note = "no steady p99 to compare with"
	}
	return SummaryResult{Fields: []SummaryField{
		tm(SummaryUnfencedAtMs, s.UnfencedAtMs),
		tm(SummaryLeadershipRestoredAtMs, s.LeadershipRestoredAtMs),
		tm(SummaryRecoveryTimeMs, s.RecoveryTimeMs),
		steady,
		f(SummaryP99Worst10MinMs, s.P99Worst10MinMs),
		ratio,
		n(SummaryProduceTimeouts, s.ProduceTimeouts),
		n(SummaryProduceErrors, s.ProduceErrors),
		f(SummaryAckedRecordsLost, s.AckedRecordsLost),
		n(SummaryMaxElectionsPerRun, s.MaxElectionsPerRun),
		n(SummaryUncleanElections, s.UncleanElections),
		n(SummaryInvariantViolations, s.InvariantViolations),
	}}
}
