package scenario

import (
	"container/heap"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"strconv"

	"github.com/kraftlab/kraftlab/cluster/sim"
	"github.com/kraftlab/kraftlab/engine/config"
	"github.com/kraftlab/kraftlab/engine/controller"
	"github.com/kraftlab/kraftlab/engine/metadata"
)

// Error codes of the runner itself, for a step the scenario asks of a broker that cannot do
// it. They are not Kafka's: no request reaches the controller.
const (
	// CodeBrokerNotRunning: the broker that must act (heartbeat, send AlterPartition, be
	// added to an ISR, stop) is stopped.
	CodeBrokerNotRunning = "BROKER_NOT_RUNNING"
	// CodeNoLeader: alter_partition names no sender and the partition has no leader.
	CodeNoLeader = "NO_LEADER"
	// codeUnknown is Kafka's UNKNOWN_SERVER_ERROR, for an engine error without a code.
	codeUnknown = "UNKNOWN_SERVER_ERROR"
)

// maxEvents is MaxEvents; tests lower it.
var maxEvents int64 = MaxEvents

// Run plays a scenario and returns its result. The engine's and the cluster's answers to
// requests are part of the result, not errors; so is an invariant violation, which ends a
// cluster-mode result early (Result.Cluster.Violation). An error means the scenario could not
// run: an *Error when it asked for too much (more events than MaxEvents in controller mode) or
// the cluster refused it, anything else a failure of KRaft Lab's own.
func Run(s *Scenario) (*Result, error) {
	if s.Mode == ModeCluster {
		return runCluster(s)
	}
	r := newRunner(s)
	if err := r.bootstrap(); err != nil {
		return nil, err
	}
	res := &Result{Description: s.Description, Steps: make([]StepResult, 0, len(s.Steps))}
	for i := range s.Steps {
		st := &s.Steps[i]
		r.step = &StepResult{Index: i, Op: st.Op, Note: st.Note}
		if err := r.do(st); err != nil {
			return nil, &Error{Path: indexPath("steps", i), Msg: err.Error()}
		}
		r.collect()
		r.step.TimeMs = r.now
		res.Steps = append(res.Steps, *r.step)
	}
	res.Metrics = Metrics(r.c.Metrics())
	res.Partitions = r.partitions()
	res.Brokers = r.brokerStates()
	return res, nil
}

// brokerRun is what the runner knows of one broker process: whether it runs, the incarnation
// it registered, and what its heartbeats say.
type brokerRun struct {
	id      int32
	running bool
	epoch   int64
	// gen invalidates queued heartbeats when the broker stops or re-registers.
	gen          int
	wantFence    bool
	wantShutDown bool
	// sawFenced is the registration's fenced flag as the broker last learned it: a broker that
	// finds itself fenced behind its back (fence, session expiry) asks to stay fenced until
	// the scenario says it has caught up again.
	sawFenced    bool
	dir          string
	offlineDirs  []string
	incarnations int64
	disks        int64
}

type runner struct {
	s     *Scenario
	c     *controller.Controller
	rand  *sim.Rand
	now   int64
	hbMs  int64
	byID  map[int32]*brokerRun
	hb    heartbeatQueue
	count int64 // heartbeats and task runs so far, against MaxEvents
	step  *StepResult
	// collected is the log offset up to which records have been given to a step.
	collected int64
}

func newRunner(s *Scenario) *runner {
	return &runner{
		s: s,
		// The scenario's configs are the controller's own (server.properties); set_config
		// steps write ConfigRecords, which win over them.
		c:    controller.New(s.Seed, s.Config),
		rand: sim.NewRand(s.Seed).Child("scenario"),
		hbMs: config.Int64(config.BrokerHeartbeatIntervalMs, &s.Config),
		byID: map[int32]*brokerRun{},
	}
}

// uuid returns a Kafka-style Uuid (16 bytes, URL-safe base64 without padding) drawn from the
// seed, so incarnation and directory ids are stable for a given scenario.
func (r *runner) uuid(kind string, broker int32, n int64) string {
	rng := r.rand.Child(kind).ChildID(strconv.Itoa(int(broker)), n)
	var b [16]byte
	binary.LittleEndian.PutUint64(b[:8], rng.Uint64())
	binary.LittleEndian.PutUint64(b[8:], rng.Uint64())
	return base64.RawURLEncoding.EncodeToString(b[:])
}

func (r *runner) broker(id int32) *brokerRun {
	b := r.byID[id]
	if b == nil {
		b = &brokerRun{id: id}
		b.dir = r.uuid("dir", id, 0)
		r.byID[id] = b
	}
	return b
}

// bootstrap writes the starting cluster as records, as a bootstrap snapshot would hold it,
// then activates the controller at time 0.
func (r *runner) bootstrap() error {
	s := r.s
	var recs []metadata.Record
	for _, f := range s.Features {
		recs = append(recs, &metadata.FeatureLevelRecord{Name: f.Name, FeatureLevel: f.Level})
	}
	// Under ELR, Kafka's bootstrap (ActivationRecordsGenerator, KAFKA-16540) writes the
	// controller's min.insync.replicas as a cluster-level config, so every broker agrees on it.
	if r.elrEnabled() {
		minIsr := strconv.FormatInt(config.Int64(config.MinInsyncReplicas, &s.Config), 10)
		recs = append(recs, &metadata.ConfigRecord{ResourceType: metadata.ResourceBroker, Name: config.MinInsyncReplicas, Value: &minIsr})
	}
	brokers := slices.Clone(s.Brokers)
	slices.SortFunc(brokers, func(a, b Broker) int { return int(a.ID) - int(b.ID) })
	ids := make([]int32, 0, len(brokers))
	for _, sb := range brokers {
		b := r.broker(sb.ID)
		b.incarnations++
		// A broker's epoch is the offset of its registration.
		b.epoch = r.c.Log().NextOffset() + int64(len(recs))
		recs = append(recs, &metadata.RegisterBrokerRecord{BrokerID: sb.ID, IncarnationID: r.uuid("incarnation", sb.ID, b.incarnations),
			BrokerEpoch: b.epoch, LogDirs: []string{b.dir}, Fenced: sb.Fenced})
		b.running, b.wantFence, b.sawFenced, b.wantShutDown = true, sb.Fenced, sb.Fenced, sb.InControlledShutdown
		ids = append(ids, sb.ID)
	}
	for _, sb := range brokers {
		if sb.InControlledShutdown {
			recs = append(recs, &metadata.BrokerRegistrationChangeRecord{BrokerID: sb.ID, BrokerEpoch: r.byID[sb.ID].epoch, InControlledShutdown: 1})
		}
	}
	if err := r.c.Bootstrap(recs); err != nil {
		return fmt.Errorf("bootstrap: %w", err)
	}
	for i, t := range s.Topics {
		if err := r.bootstrapTopic(&t, ids); err != nil {
			return &Error{Path: indexPath("topics", i), Msg: apiMessage(err)}
		}
	}
	r.c.Activate(0)
	r.c.TakeBalancerRuns()
	r.collected = r.c.Log().NextOffset() // setup records belong to no step
	// Heartbeats are phased from registration: the starting brokers registered at time 0.
	for _, id := range ids {
		r.scheduleHeartbeat(r.byID[id], 0)
	}
	return nil
}

func (r *runner) elrEnabled() bool {
	for _, f := range r.s.Features {
		if f.Name == config.EligibleLeaderReplicasVersion {
			return f.Level >= 1
		}
	}
	return false
}

// bootstrapTopic writes a starting topic: its TopicRecord, ConfigRecords and PartitionRecords.
// A partition_count topic is placed over every listed broker, as if it had been created while
// all of them were healthy: all replicas in sync, the preferred replica leading.
func (r *runner) bootstrapTopic(t *Topic, brokers []int32) error {
	parts := t.Partitions
	if parts == nil {
		placed, err := r.c.PlaceReplicas(brokers, nil, t.PartitionCount, t.ReplicationFactor)
		if err != nil {
			return err
		}
		parts = make([]Partition, len(placed))
		for i, reps := range placed {
			parts[i] = Partition{Replicas: reps, Isr: reps, Leader: reps[0], Elr: []int32{}, LastKnownElr: []int32{}}
		}
	}
	id := r.c.NewTopicID()
	recs := []metadata.Record{&metadata.TopicRecord{Name: t.Name, TopicID: id}}
	for _, name := range t.Config.Names() {
		recs = append(recs, topicConfigRecord(t.Name, &t.Config, name))
	}
	for i, p := range parts {
		recs = append(recs, &metadata.PartitionRecord{Topic: t.Name, TopicID: id, PartitionID: int32(i),
			Replicas: p.Replicas, Isr: p.Isr, Leader: p.Leader, Elr: p.Elr, LastKnownElr: p.LastKnownElr})
	}
	return r.c.Bootstrap(recs)
}

// topicConfigRecord writes a validated topic config as the string Kafka stores.
func topicConfigRecord(topic string, v *config.Values, name string) *metadata.ConfigRecord {
	val, _ := v.Get(name)
	s := fmt.Sprint(val)
	return &metadata.ConfigRecord{ResourceType: metadata.ResourceTopic, ResourceName: topic, Name: name, Value: &s}
}

// do runs one step. It returns an error only when the run must stop.
func (r *runner) do(st *Step) error {
	c := r.c
	switch st.Op {
	case OpAdvance:
		return r.advance(st.Ms)
	case OpStop:
		if b := r.running(st.Broker); b != nil {
			r.stop(b)
		}
	case OpFence:
		// A running broker finds itself fenced at its next heartbeat and asks to stay so.
		r.fail(c.ExpireSession(st.Broker, r.now))
	case OpRegister:
		r.register(st)
	case OpUnfence:
		if b := r.running(st.Broker); b != nil {
			b.wantFence = false
			b.sawFenced = c.Image().Broker(b.id).Fenced
			r.heartbeat(b)
		}
	case OpControlledShutdown:
		if b := r.running(st.Broker); b != nil {
			b.wantShutDown = true
			r.heartbeat(b)
		}
	case OpOfflineDir:
		if b := r.running(st.Broker); b != nil {
			// The broker keeps reporting the failed directory until it restarts.
			b.offlineDirs = []string{b.dir}
			r.heartbeat(b)
		}
	case OpAlterPartition:
		r.alterPartition(st)
	case OpIsrJoin, OpIsrLeave:
		r.isrChange(st, st.Op == OpIsrJoin)
	case OpElectPreferred:
		c.RunTaskNow(controller.TaskElectPreferred, r.now)
		r.takeRuns()
	case OpElectLeaders:
		for _, er := range c.ElectLeaders(st.Election, st.Partitions, r.now) {
			r.result(er.Topic, er.Partition, er.Error)
		}
	case OpSetConfig:
		r.fail(c.SetConfig(st.Topic, st.Name, st.Value, r.now))
	case OpSetFeature:
		r.fail(c.SetFeature(st.Name, int64(st.Level), r.now))
	case OpCreateTopic:
		r.fail(c.CreateTopic(createRequest(st.CreateTopic), r.now))
	case OpDeleteTopic:
		r.fail(c.DeleteTopic(st.Name, r.now))
	case OpDescribe:
		r.step.Partitions = r.partitions()
	}
	return nil
}

func createRequest(t *Topic) controller.CreateTopicRequest {
	req := controller.CreateTopicRequest{Name: t.Name, NumPartitions: t.PartitionCount, ReplicationFactor: t.ReplicationFactor}
	for _, p := range t.Partitions {
		req.Assignments = append(req.Assignments, p.Replicas)
	}
	for _, name := range t.Config.Names() {
		v, _ := t.Config.Get(name)
		req.Configs = append(req.Configs, controller.ConfigEntry{Name: name, Value: v})
	}
	return req
}

// advance moves the clock by ms, running every heartbeat and periodic task that falls due, in
// time order; at equal times heartbeats go first, brokers by id, then tasks.
func (r *runner) advance(ms int64) error {
	end := r.now + ms
	for {
		hbAt, hbOK := r.nextHeartbeat()
		taskAt, taskOK := r.c.NextDeadline()
		switch {
		case hbOK && hbAt <= end && (!taskOK || hbAt <= taskAt):
			e := heap.Pop(&r.hb).(queuedHeartbeat)
			r.now = e.at
			b := r.byID[e.broker]
			r.heartbeat(b)
			r.scheduleHeartbeat(b, e.at)
			r.collect()
		case taskOK && taskAt <= end:
			r.now = max(r.now, taskAt)
			if r.c.RunNextTask(r.now) == "" {
				return fmt.Errorf("engine bug: task due at %d ms did not run", taskAt)
			}
			r.takeRuns()
			r.collect()
		default:
			r.now = end
			return nil
		}
		if r.count++; r.count > maxEvents {
			return fmt.Errorf("the run needs more than %d heartbeats and periodic-task runs by %d ms; advance less or raise the intervals", maxEvents, r.now)
		}
	}
}

// collect gives the records written since the last call to the step, stamped with the time
// they were written (a record batch's append time in Kafka). NoOpRecords are only counted.
func (r *runner) collect() {
	for _, e := range r.c.Log().Since(r.collected) {
		if _, noop := e.Record.(*metadata.NoOpRecord); noop {
			r.step.NoOpRecords++
		} else {
			r.step.Records = append(r.step.Records, Record{Entry: e, TimeMs: r.now})
		}
	}
	r.collected = r.c.Log().NextOffset()
}

// running returns a broker that can act, or reports in the step that it is stopped.
func (r *runner) running(id int32) *brokerRun {
	b := r.byID[id]
	if b == nil || !b.running {
		r.stepError(CodeBrokerNotRunning, fmt.Sprintf("broker %d is stopped; register it first", id))
		return nil
	}
	return b
}

func (r *runner) stop(b *brokerRun) {
	b.running = false
	b.gen++
}

// heartbeat sends one heartbeat for a running broker, as its BrokerLifecycleManager would.
func (r *runner) heartbeat(b *brokerRun) {
	if reg := r.c.Image().Broker(b.id); reg != nil && reg.Fenced && !b.sawFenced {
		b.wantFence = true
	}
	reply, err := r.c.Heartbeat(controller.HeartbeatRequest{
		BrokerID:    b.id,
		BrokerEpoch: b.epoch,
		// Brokers are caught up instantly in controller mode: they have every record.
		CurrentMetadataOffset: r.c.Log().NextOffset() - 1,
		WantFence:             b.wantFence,
		WantShutDown:          b.wantShutDown,
		OfflineLogDirs:        b.offlineDirs,
	}, r.now)
	if err != nil {
		// A broker whose heartbeats are refused can do nothing more until it registers.
		r.fail(err)
		r.stop(b)
		return
	}
	b.sawFenced = reply.IsFenced
	if reply.ShouldShutDown {
		r.stop(b)
	}
}

func (r *runner) scheduleHeartbeat(b *brokerRun, from int64) {
	if b.running {
		heap.Push(&r.hb, queuedHeartbeat{at: from + r.hbMs, broker: b.id, gen: b.gen})
	}
}

// nextHeartbeat drops heartbeats of brokers that stopped or re-registered since they were
// queued and returns when the next live one is due.
func (r *runner) nextHeartbeat() (int64, bool) {
	for len(r.hb) > 0 {
		e := r.hb[0]
		if b := r.byID[e.broker]; b.running && b.gen == e.gen {
			return e.at, true
		}
		heap.Pop(&r.hb)
	}
	return 0, false
}

// register starts a new incarnation of a broker. Kafka refuses it while the old incarnation's
// session is alive; the refusal is the step's error and the old incarnation carries on.
func (r *runner) register(st *Step) {
	b := r.broker(st.Broker)
	prevEpoch := int64(-1)
	if reg := r.c.Image().Broker(st.Broker); reg != nil && reg.Registered && st.CleanShutdown {
		prevEpoch = reg.Epoch
	}
	if st.LostDisk {
		b.disks++
		b.dir = r.uuid("dir", b.id, b.disks)
	}
	b.incarnations++
	epoch, err := r.c.RegisterBroker(controller.RegisterRequest{BrokerID: b.id,
		IncarnationID: r.uuid("incarnation", b.id, b.incarnations), LogDirs: []string{b.dir},
		PreviousBrokerEpoch: prevEpoch}, r.now)
	if err != nil {
		r.fail(err)
		return
	}
	b.epoch = epoch
	b.running, b.gen = true, b.gen+1
	// A new incarnation starts fenced and stays so until the scenario says it caught up.
	b.wantFence, b.sawFenced, b.wantShutDown, b.offlineDirs = true, true, false, nil
	r.scheduleHeartbeat(b, r.now)
}

// alterPartition sends one AlterPartition from the leader (or the broker the step names) with
// the current epochs unless the step overrides them.
func (r *runner) alterPartition(st *Step) {
	im := r.c.Image()
	idx, ok := im.PartitionIndex(st.Topic, st.Partition)
	if !ok {
		r.stepError(string(controller.UnknownTopicOrPartition), fmt.Sprintf("No such partition as %s-%d", st.Topic, st.Partition))
		return
	}
	p := im.Partitions[idx]
	sender := p.Leader
	if st.HasBroker {
		sender = st.Broker
	}
	if sender < 0 {
		r.stepError(CodeNoLeader, fmt.Sprintf("%s-%d has no leader to send AlterPartition; name a broker", st.Topic, st.Partition))
		return
	}
	b := r.running(sender)
	if b == nil {
		return
	}
	req := controller.AlterPartitionRequest{BrokerID: sender, BrokerEpoch: b.epoch, Topic: st.Topic, Partition: st.Partition,
		LeaderEpoch: p.LeaderEpoch, PartitionEpoch: p.PartitionEpoch, NewIsr: st.Isr, LeaderRecoveryState: st.LeaderRecoveryState}
	if st.LeaderEpoch >= 0 {
		req.LeaderEpoch = st.LeaderEpoch
	}
	if st.PartitionEpoch >= 0 {
		req.PartitionEpoch = st.PartitionEpoch
	}
	r.fail(r.c.AlterPartition(req, r.now))
}

// isrChange has the leaders add a broker to (or drop it from) the ISR of its partitions, in
// topic order then partition id, as far as the step's count goes. Partitions where the change
// does not apply are skipped: the broker is already in (out of) the ISR, there is no leader or
// it is stopped, or the broker to drop is the leader itself.
func (r *runner) isrChange(st *Step, join bool) {
	if join && r.running(st.Broker) == nil {
		return // a stopped broker fetches nothing, so it cannot catch up
	}
	im := r.c.Image()
	if st.Topic != "" {
		if _, ok := im.TopicByName(st.Topic); !ok {
			r.stepError(string(controller.UnknownTopicOrPartition), fmt.Sprintf("Topic %s does not exist", st.Topic))
			return
		}
	}
	done := 0
	for t := range im.Topics {
		top := im.Topics[t]
		if top.Deleted || (st.Topic != "" && top.Name != st.Topic) {
			continue
		}
		for i := int32(0); i < top.Count; i++ {
			if st.Count > 0 && done >= st.Count {
				return
			}
			p := im.Partitions[top.First+i]
			if !p.IsReplica(st.Broker) || (st.Preferred && p.Preferred() != st.Broker) ||
				p.InIsr(st.Broker) == join || p.Leader < 0 || (!join && p.Leader == st.Broker) {
				continue
			}
			leader := r.byID[p.Leader]
			if leader == nil || !leader.running {
				continue
			}
			isr := p.Isr()
			if join {
				isr = append(isr, st.Broker) // a leader appends the new member
			} else {
				isr = slices.DeleteFunc(isr, func(b int32) bool { return b == st.Broker })
			}
			err := r.c.AlterPartition(controller.AlterPartitionRequest{BrokerID: p.Leader, BrokerEpoch: leader.epoch,
				Topic: top.Name, Partition: i, LeaderEpoch: p.LeaderEpoch, PartitionEpoch: p.PartitionEpoch,
				NewIsr: isr, LeaderRecoveryState: metadata.NoRecoveryChange}, r.now)
			var ae *controller.APIError
			errors.As(err, &ae)
			r.result(top.Name, i, ae)
			done++
		}
	}
}

func (r *runner) result(topic string, partition int32, err *controller.APIError) {
	pr := PartitionResult{Topic: topic, Partition: partition, Error: string(controller.None)}
	if err != nil {
		pr.Error, pr.Message = string(err.Code), err.Message
	}
	r.step.Results = append(r.step.Results, pr)
}

// fail records an engine error as the step's error; a step keeps its first error.
func (r *runner) fail(err error) {
	if err == nil {
		return
	}
	var ae *controller.APIError
	if errors.As(err, &ae) {
		r.stepError(string(ae.Code), ae.Message)
		return
	}
	r.stepError(codeUnknown, err.Error())
}

func (r *runner) stepError(code, msg string) {
	if r.step.Error == nil {
		r.step.Error = &StepError{Code: code, Message: msg}
	}
}

// takeRuns moves the balancer's new electPreferred runs into the step, while the image still
// shows the leaders they elected.
func (r *runner) takeRuns() {
	im := r.c.Image()
	for _, run := range r.c.TakeBalancerRuns() {
		br := BalancerRun{TimeMs: run.TimeMs, Elections: make([]Election, 0, len(run.Elected)), MoreWork: run.MoreWork,
			DeferredByCap: run.DeferredByCap, GatedBrokers: run.GatedBrokers, EscapeHatchBrokers: run.EscapeHatchBrokers,
			SkippedByGate: run.SkippedByGate}
		for _, idx := range run.Elected {
			p := &im.Partitions[idx]
			br.Elections = append(br.Elections, Election{Topic: im.TopicName(p), Partition: p.ID, Leader: p.Leader})
		}
		for _, oos := range run.OutOfSync {
			br.OutOfSync = append(br.OutOfSync, BrokerValue{Broker: oos.Broker, Value: oos.Count})
		}
		if run.NextRunMs >= 0 {
			next := run.NextRunMs
			br.NextRunMs = &next
		}
		r.step.BalancerRuns = append(r.step.BalancerRuns, br)
	}
}

// partitions describes every partition of the live topics, in topic then partition order.
func (r *runner) partitions() []PartitionState {
	im := r.c.Image()
	var out []PartitionState
	for t := range im.Topics {
		top := &im.Topics[t]
		if top.Deleted {
			continue
		}
		for i := top.First; i < top.First+top.Count; i++ {
			p := &im.Partitions[i]
			ps := PartitionState{Topic: top.Name, Partition: p.ID, Leader: p.Leader, LeaderEpoch: p.LeaderEpoch,
				PartitionEpoch: p.PartitionEpoch, Replicas: slices.Clone(p.Replicas()), Isr: p.Isr(), Elr: p.Elr(),
				LastKnownElr: p.LastKnownElr()}
			if p.Recovery() == metadata.Recovering {
				ps.LeaderRecoveryState = "RECOVERING"
			}
			out = append(out, ps)
		}
	}
	return out
}

// brokerStates lists the registered brokers by id. A broker named only as a replica, never
// registered, is left out.
func (r *runner) brokerStates() []BrokerState {
	im := r.c.Image()
	var out []BrokerState
	for _, id := range im.BrokerIDs() {
		reg := im.Broker(id)
		if !reg.Registered {
			continue
		}
		st := BrokerState{ID: id, Epoch: reg.Epoch, State: StateUnfenced}
		switch b := r.byID[id]; {
		case b == nil || !b.running:
			st.State = StateStopped
		case reg.Fenced:
			st.State = StateFenced
		case reg.InControlledShutdown:
			st.State = StateControlledShutdown
		}
		out = append(out, st)
	}
	return out
}

// queuedHeartbeat is a heartbeat due at a time; gen tells a stale one from a live one.
type queuedHeartbeat struct {
	at     int64
	broker int32
	gen    int
}

// heartbeatQueue orders heartbeats by time, then broker id (container/heap).
type heartbeatQueue []queuedHeartbeat

func (q heartbeatQueue) Len() int { return len(q) }
func (q heartbeatQueue) Less(i, j int) bool {
	if q[i].at != q[j].at {
		return q[i].at < q[j].at
	}
	return q[i].broker < q[j].broker
}
func (q heartbeatQueue) Swap(i, j int) { q[i], q[j] = q[j], q[i] }
func (q *heartbeatQueue) Push(x any)   { *q = append(*q, x.(queuedHeartbeat)) }
func (q *heartbeatQueue) Pop() any {
	old := *q
	x := old[len(old)-1]
	*q = old[:len(old)-1]
	return x
}
