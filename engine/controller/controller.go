// Package controller is the KRaft controller as a pure state machine: requests in (broker
// registration and heartbeats, AlterPartition, ElectLeaders, CreateTopics, DeleteTopics,
// IncrementalAlterConfigs) and periodic tasks run at times the caller gives, records and
// responses out. It writes records to its metadata log and replays them into its image at once,
// as Kafka's active controller does. It has no clock, no goroutines and no I/O; its only
// randomness (topic ids, replica placement) comes from a seeded source.
//
// It follows Kafka 4.1's ClusterControlManager, ReplicationControlManager,
// PartitionChangeBuilder, BrokerHeartbeatManager and PeriodicTaskControlManager, as described
// in docs/kafka-behaviour.md, and runs the preferred-leader policies of
// engine/balance. It imports engine/config, engine/metadata, engine/balance and engine/metrics.
package controller

import (
	"fmt"
	"math/rand/v2"

	"github.com/kraftlab/kraftlab/engine/balance"
	"github.com/kraftlab/kraftlab/engine/config"
	"github.com/kraftlab/kraftlab/engine/metadata"
	"github.com/kraftlab/kraftlab/engine/metrics"
)

// Task names, as Kafka's QuorumController registers them.
const (
	TaskElectPreferred   = "electPreferred"
	TaskElectUnclean     = "electUnclean"
	TaskFenceStaleBroker = "maybeFenceStaleBroker"
	TaskWriteNoOp        = "writeNoOpRecord"
)

// Controller is one active KRaft controller.
type Controller struct {
	// static holds the configs the controller started with (its server.properties); dynamic
	// cluster configs are ConfigRecords in the image and take precedence.
	static config.Values
	image  *metadata.Image
	log    metadata.Log
	rng    *rand.Rand
	// slab holds the PartitionChangeRecords this controller writes, and their lists.
	slab slab

	sessions map[int32]*session
	sched    scheduler
	tasks    map[string]*periodicTask

	balancer *balance.Balancer
	// imbalanceState drives the pre-4.0 write-triggered electPreferred schedule.
	imbalanceState imbalanceSchedule

	// cfgCache holds configs resolved against image at a ConfigGeneration (topicConfigs,
	// writeTriggered).
	cfgCache configCache

	counts   metrics.Counts
	lastRun  *balance.Run
	runs     []balance.Run // electPreferred runs not yet taken by TakeBalancerRuns
	activeAt int64
}

type imbalanceSchedule int

const (
	imbalanceDeferred imbalanceSchedule = iota
	imbalanceImmediately
	imbalanceScheduled
)

// New returns a controller with an empty image. static holds the cluster-level configs it
// starts with, as a controller's server.properties does: static configs can only be set here,
// and dynamic ones set later (ConfigRecords) override them. The controller is not active
// until Activate.
func New(seed uint64, static config.Values) *Controller {
	c := &Controller{
		image:    metadata.NewImage(),
		rng:      rand.New(rand.NewPCG(seed, seed^0x6b72616674)),
		sessions: map[int32]*session{},
		tasks:    map[string]*periodicTask{},
		balancer: balance.New(),
	}
	c.static = static.Clone()
	c.registerTasks()
	return c
}

// Restore returns a controller that takes over image (which it now owns: pass a clone) as the
// state replayed from the log up to nextOffset, the offset its first record will get. This is
// how a controller that wins a quorum election starts: from its committed log, not from records
// it wrote itself. It is not active until Activate.
func Restore(seed uint64, static config.Values, image *metadata.Image, nextOffset int64) *Controller {
	c := New(seed, static)
	c.image = image
	c.log.StartAt(nextOffset)
	// Tasks were registered against the empty image's configs; register them again against
	// the restored image, whose dynamic configs may differ.
	c.sched = scheduler{}
	c.tasks = map[string]*periodicTask{}
	c.registerTasks()
	return c
}

// Image is the controller's metadata image. Callers must treat it as read-only.
func (c *Controller) Image() *metadata.Image { return c.image }

// Log is the controller's metadata log.
func (c *Controller) Log() *metadata.Log { return &c.log }

// Balancer exposes the preferred-leader policy state (gates) for observers.
func (c *Controller) Balancer() *balance.Balancer { return c.balancer }

// Bootstrap appends and replays records that set up the initial state before activation, as a
// scenario's starting cluster or a snapshot does.
func (c *Controller) Bootstrap(records []metadata.Record) error {
	c.log.Reserve(len(records))
	for _, r := range records {
		if err := c.image.Replay(c.log.Append(r)); err != nil {
			return err
		}
	}
	return nil
}

// Activate makes the controller active at nowMs: every periodic task is first due one period
// later, and every unfenced broker gets a fresh session (KAFKA-18138).
func (c *Controller) Activate(nowMs int64) {
	c.activeAt = nowMs
	c.sched.activate(nowMs)
	if c.writeTriggered() {
		c.tasks[TaskElectPreferred].deadline = -1
		c.imbalanceState = imbalanceDeferred
		c.afterWrite(nowMs)
	}
	for _, id := range c.image.BrokerIDs() {
		b := c.image.Broker(id)
		if b.Registered && !b.Fenced {
			s := c.session(id)
			s.lastContactMs, s.tracked = nowMs, true
			// A broker replayed in controlled shutdown is released only once every active
			// broker has seen everything up to here, as its shutdown record is in that range.
			if b.InControlledShutdown && s.controlledShutdownOffset < 0 {
				s.controlledShutdownOffset = c.log.NextOffset() - 1
			}
		}
	}
}

// append writes one record and replays it into the image. A record the image refuses means the
// controller built an inconsistent record: a bug, not bad input, so it panics.
func (c *Controller) append(r metadata.Record) metadata.Entry {
	e := c.log.Append(r)
	if err := c.image.Replay(e); err != nil {
		panic(fmt.Sprintf("controller: engine bug: generated record does not replay: %v", err))
	}
	return e
}

func (c *Controller) cfg(name string) any { return config.Resolve(name, c.levels(nil)...) }

// levels lists where a config is looked up, first match wins: the topic's configs (if any),
// the dynamic cluster configs, then the static ones; Kafka resolves them in this order.
func (c *Controller) levels(topic *metadata.Topic) []*config.Values {
	if topic == nil {
		return []*config.Values{&c.image.Cluster, &c.static}
	}
	return []*config.Values{&topic.Configs, &c.image.Cluster, &c.static}
}

func (c *Controller) cfgInt(name string) int64 { return c.cfg(name).(int64) }

// writeTriggered reports whether the pre-4.0 electPreferred schedule is configured. afterWrite
// asks after every write, so the answer is kept with the topic configs (topicConfigs) until
// the image's configs change.
func (c *Controller) writeTriggered() bool {
	cc := c.configCache()
	if cc.schedule == 0 {
		cc.schedule = 1
		if config.Str(config.ModelLeaderImbalanceSchedule, c.levels(nil)...) == config.ScheduleWriteTriggered {
			cc.schedule = 2
		}
	}
	return cc.schedule == 2
}

// registerTasks registers the periodic tasks as QuorumController's constructor does.
func (c *Controller) registerTasks() {
	add := func(t *periodicTask) {
		c.tasks[t.name] = t
		c.sched.register(t, 0)
	}
	if c.cfgInt(config.MetadataMaxIdleIntervalMs) > 0 {
		add(&periodicTask{name: TaskWriteNoOp, immediateMs: fixedImmediate,
			periodMs: func() int64 { return c.cfgInt(config.MetadataMaxIdleIntervalMs) },
			run: func(int64) taskResult {
				c.append(&metadata.NoOpRecord{})
				return taskResult{}
			}})
	}
	add(&periodicTask{name: TaskFenceStaleBroker, immediateMs: fixedImmediate,
		periodMs: func() int64 { return max(1, c.cfgInt(config.BrokerSessionTimeoutMs)/8) },
		run:      func(now int64) taskResult { return taskResult{moreWork: c.maybeFenceOneStaleBroker(now)} }})
	if config.Bool(config.AutoLeaderRebalanceEnable, c.levels(nil)...) {
		add(&periodicTask{name: TaskElectPreferred,
			periodMs:    func() int64 { return c.cfgInt(config.LeaderImbalanceCheckIntervalSeconds) * 1000 },
			immediateMs: func() int64 { return c.cfgInt(config.LeaderImbalanceElectionImmediateMs) },
			run:         c.electPreferred})
	}
	add(&periodicTask{name: TaskElectUnclean, immediateMs: fixedImmediate,
		periodMs: func() int64 { return c.cfgInt(config.UncleanLeaderElectionIntervalMs) },
		run:      func(int64) taskResult { return taskResult{moreWork: c.maybeElectUncleanLeaders()} }})
}

// NextDeadline returns when the next periodic task is due, if any is scheduled.
func (c *Controller) NextDeadline() (int64, bool) {
	t := c.sched.next()
	if t == nil {
		return 0, false
	}
	return t.deadline, true
}

// TaskDeadline returns when a named task is next due (false if it is not scheduled).
func (c *Controller) TaskDeadline(name string) (int64, bool) {
	t := c.tasks[name]
	if t == nil || t.deadline < 0 {
		return 0, false
	}
	return t.deadline, true
}

// RunNextTask runs the earliest periodic task if it is due at or before nowMs. It returns the
// task's name, or "" if nothing was due.
func (c *Controller) RunNextTask(nowMs int64) string {
	t := c.sched.next()
	if t == nil || t.deadline > nowMs {
		return ""
	}
	// A task runs at its deadline: the clock has reached it.
	at := t.deadline
	c.runAndReschedule(t, at)
	return t.name
}

// RunTaskNow runs a named task at nowMs and reschedules it as its result says, as a manual
// trigger would. It reports false if no such task is registered.
func (c *Controller) RunTaskNow(name string, nowMs int64) bool {
	t := c.tasks[name]
	if t == nil {
		return false
	}
	c.runAndReschedule(t, nowMs)
	return true
}

// runAndReschedule runs a task and reschedules it: from its result in the periodic schedule,
// or through afterWrite in the write-triggered one. An electPreferred run learns when the
// next one is due.
func (c *Controller) runAndReschedule(t *periodicTask, nowMs int64) {
	runsBefore := len(c.runs)
	c.sched.runTask(t, nowMs)
	if t.name == TaskElectPreferred && c.writeTriggered() {
		t.deadline = -1
	}
	c.afterWrite(nowMs)
	if len(c.runs) > runsBefore {
		c.runs[len(c.runs)-1].NextRunMs = t.deadline
		c.lastRun = &c.runs[len(c.runs)-1]
	}
}

// afterWrite is QuorumController.maybeScheduleNextBalancePartitionLeaders of Kafka 3.2–3.9: in
// the write-triggered schedule, the first write that finds imbalanced partitions arms the timer.
func (c *Controller) afterWrite(nowMs int64) {
	if !c.writeTriggered() {
		return
	}
	t := c.tasks[TaskElectPreferred]
	if t == nil || t.deadline >= 0 || !c.sched.active || c.image.ImbalancedCount() == 0 {
		return
	}
	if c.imbalanceState == imbalanceImmediately {
		t.deadline = nowMs + c.cfgInt(config.LeaderImbalanceElectionImmediateMs)
	} else {
		t.deadline = nowMs + t.periodMs()
	}
	c.imbalanceState = imbalanceScheduled
}

// electPreferred is the electPreferred task: one run of the configured policy.
func (c *Controller) electPreferred(nowMs int64) taskResult {
	s := balance.SettingsFrom(c.levels(nil)...)
	run := c.balancer.Run(c.image, s, nowMs, c.isActive, c.safeLeader, func(p int32) bool {
		return c.electPartition(p, ElectionPreferred) == nil
	})
	run.Leaders = make([]int32, len(run.Elected))
	for i, p := range run.Elected {
		run.Leaders[i] = c.image.Partitions[p].Leader
	}
	res := taskResult{moreWork: run.MoreWork}
	throttle := c.cfgInt(config.LeaderImbalanceElectionThrottleMs)
	if run.MoreWork && throttle > 0 {
		res.nextDelayMs = throttle
		c.counts.ThrottledRuns++
		c.counts.DeferredByThrottle += int64(run.DeferredByCap)
	}
	c.counts.SkippedByGate += int64(run.SkippedByGate)
	if c.writeTriggered() {
		c.imbalanceState = imbalanceDeferred
		if run.MoreWork {
			c.imbalanceState = imbalanceImmediately
		}
	}
	c.lastRun = &run
	c.runs = append(c.runs, run)
	return res
}

// TakeBalancerRuns returns the electPreferred runs since the last call, with when each
// scheduled the next run.
func (c *Controller) TakeBalancerRuns() []balance.Run {
	out := c.runs
	c.runs = nil
	return out
}

// LastBalancerRun is the most recent electPreferred run, if any.
func (c *Controller) LastBalancerRun() *balance.Run { return c.lastRun }
