package cluster

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/kraftlab/kraftlab/cluster/broker"
	"github.com/kraftlab/kraftlab/cluster/check"
	"github.com/kraftlab/kraftlab/cluster/sim"
	"github.com/kraftlab/kraftlab/engine/config"
	"github.com/kraftlab/kraftlab/engine/controller"
)

// Event kinds the cluster schedules for itself.
const (
	evStopObserver int32 = iota + 1
	evStartObserver
	evRollNext
)

// BrokerStateChanged implements broker.Listener: a broker's metadata observer stops and starts
// with its process, so that records delivered while it is down are not lost. The quorum's fault
// methods may not run inside the Fleet's event, so the change is scheduled for the same instant.
func (c *Cluster) BrokerStateChanged(id int32, from, to broker.State, nowMs int64) {
	switch {
	case to == broker.NotRunning:
		c.after(0, evStopObserver, id)
		if c.rolling != nil && c.rolling.current == id && c.rolling.waitingStop {
			c.after(0, evRollNext, id)
		}
	case from == broker.NotRunning:
		c.after(0, evStartObserver, id)
	}
}

func (c *Cluster) after(delayMs int64, kind, id int32) {
	if _, err := c.s.After(delayMs, sim.Event{Target: c, Kind: kind, ID: id}); err != nil {
		c.fail(err)
	}
}

// HandleEvent implements sim.Handler for the cluster's own events.
func (c *Cluster) HandleEvent(ev sim.Event) {
	switch ev.Kind {
	case evStopObserver:
		if !c.observerDown[ev.ID] {
			c.observerDown[ev.ID] = true
			c.fail(c.ctl.Kill(ev.ID))
		}
	case evStartObserver:
		if c.observerDown[ev.ID] {
			c.observerDown[ev.ID] = false
			c.fail(c.ctl.Start(ev.ID))
		}
	case evRollNext:
		c.fail(c.rolling.step(c))
	}
}

// rolling is a rolling restart in progress: each broker in turn is shut down (or killed and its
// disk replaced), started again as soon as it is down, and the next follows IntervalMs after
// the previous start.
type rolling struct {
	brokers     []int32
	intervalMs  int64
	diskSwap    bool
	next        int
	current     int32
	waitingStop bool
}

func (r *rolling) step(c *Cluster) error {
	if r.waitingStop { // the current broker is down: start it, and schedule the next one
		r.waitingStop = false
		if r.diskSwap {
			if err := c.replaceDisk(r.current); err != nil {
				return err
			}
		}
		if err := c.start(r.current); err != nil {
			return err
		}
		if r.next < len(r.brokers) {
			c.after(r.intervalMs, evRollNext, -1)
		} else {
			c.rolling = nil
		}
		return nil
	}
	r.current = r.brokers[r.next]
	r.next++
	r.waitingStop = true
	c.noteFault()
	if r.diskSwap {
		return c.fleet.Kill(r.current)
	}
	return c.fleet.ControlledShutdown(r.current)
}

func (c *Cluster) noteFault() {
	if c.firstFaultMs < 0 {
		c.firstFaultMs = c.Now()
	}
}

func (c *Cluster) start(id int32) error {
	if err := c.fleet.Start(id); err != nil {
		return err
	}
	c.lastRestarted, c.unfencedAtMs, c.restoredAtMs = id, -1, -1
	return nil
}

// node is a name in a cut or heal: a broker, a controller, or the producers.
type node struct {
	id        int32
	broker    bool
	producers bool
}

func (c *Cluster) parseNode(field, name string) (node, error) {
	switch {
	case name == "producers":
		return node{producers: true}, nil
	case strings.HasPrefix(name, "broker-"):
		id, err := strconv.Atoi(strings.TrimPrefix(name, "broker-"))
		if err != nil || !slices.Contains(c.spec.Brokers, int32(id)) {
			return node{}, fmt.Errorf("%s: %q is not a broker of this cluster (brokers: %s)", field, name, names("broker-", c.spec.Brokers))
		}
		return node{id: int32(id), broker: true}, nil
	case strings.HasPrefix(name, "controller-"):
		id, err := strconv.Atoi(strings.TrimPrefix(name, "controller-"))
		if err != nil || !slices.Contains(c.ctl.Voters(), int32(id)) {
			return node{}, fmt.Errorf("%s: %q is not a controller of this cluster (controllers: %s)", field, name, names("controller-", c.ctl.Voters()))
		}
		return node{id: int32(id)}, nil
	}
	return node{}, fmt.Errorf("%s: %q is not a node name; allowed: broker-<id>, controller-<id> or producers", field, name)
}

func names(prefix string, ids []int32) string {
	parts := make([]string, len(ids))
	for i, id := range ids {
		parts[i] = prefix + strconv.Itoa(int(id))
	}
	return strings.Join(parts, ", ")
}

func (c *Cluster) brokerArg(id int32) error {
	if !slices.Contains(c.spec.Brokers, id) {
		return fmt.Errorf("broker: broker %d does not exist (brokers: %s)", id, names("", c.spec.Brokers))
	}
	return nil
}

func (c *Cluster) controllerArg(name string) (int32, error) {
	if name == "" || name == "active" {
		node, _, ok := c.ctl.Active()
		if !ok {
			return 0, fmt.Errorf("controller: no controller is active now")
		}
		return node, nil
	}
	id, err := strconv.Atoi(name)
	if err != nil || !slices.Contains(c.ctl.Voters(), int32(id)) {
		return 0, fmt.Errorf("controller: %q is not a controller id (controllers: %s, or \"active\")", name, names("", c.ctl.Voters()))
	}
	return int32(id), nil
}

// brokerThrottleConfigs are Kafka's dynamic broker configs for replication throttles. They are
// broker-side, so they change the brokers' throttles rather than the controller's configs.
var brokerThrottleConfigs = []string{"leader.replication.throttled.rate", "follower.replication.throttled.rate", "leader.replication.throttled.replicas", "follower.replication.throttled.replicas"}

// Validate reports whether an event would be accepted now, without applying it.
func (c *Cluster) Validate(ev Event) error {
	switch ev.Op {
	case OpKill, OpStart, OpShutdown, OpDiskSwap:
		return c.brokerArg(ev.Broker)
	case OpSlowDisk:
		if ev.Factor <= 0 || ev.Factor > 1 {
			return fmt.Errorf("factor: %v is not allowed; a slow disk keeps a share of its speed in (0, 1]", ev.Factor)
		}
		return c.brokerArg(ev.Broker)
	case OpKillController, OpStartController:
		if ev.Controller == "active" && ev.Op == OpKillController {
			return nil
		}
		_, err := c.controllerArg(ev.Controller)
		return err
	case OpSnapshot:
		if ev.Controller == "" || ev.Controller == "active" {
			return nil
		}
		_, err := c.controllerArg(ev.Controller)
		return err
	case OpCut, OpHeal:
		a, err := c.parseNode("a", ev.A)
		if err != nil {
			return err
		}
		b, err := c.parseNode("b", ev.B)
		if err != nil {
			return err
		}
		if a.producers && b.producers || a == b {
			return fmt.Errorf("b: %q and %q are the same node", ev.A, ev.B)
		}
		if (a.producers && !b.broker) || (b.producers && !a.broker) {
			return fmt.Errorf("b: producers only talk to brokers; %q and %q have no link to %s", ev.A, ev.B, ev.Op)
		}
		return nil
	case OpSetConfig:
		if slices.Contains(brokerThrottleConfigs, ev.Name) {
			_, err := throttleValue(ev.Name, ev.Value)
			return err
		}
		def, ok := config.Lookup(ev.Name)
		if !ok {
			return fmt.Errorf("name: %w", config.UnknownError(ev.Name))
		}
		if ev.Value != nil {
			if _, err := def.Parse(ev.Value); err != nil {
				return fmt.Errorf("value: %w", err)
			}
		}
		return nil
	case OpCreateTopic:
		return controller.ValidateTopicName(ev.TopicSpec.Name)
	case OpDeleteTopic, OpElectLeaders, OpDescribe:
		return nil
	case OpRollingRestart:
		if len(ev.Brokers) == 0 {
			return fmt.Errorf("brokers: a rolling restart needs at least one broker")
		}
		for _, b := range ev.Brokers {
			if err := c.brokerArg(b); err != nil {
				return err
			}
		}
		if ev.IntervalMs < 0 {
			return fmt.Errorf("interval_ms: %d is negative", ev.IntervalMs)
		}
		return nil
	}
	return fmt.Errorf("op: %q is not a cluster op; allowed: %s", ev.Op, strings.Join(Ops(), ", "))
}

// Ops lists the cluster's ops.
func Ops() []string {
	return []string{OpKill, OpStart, OpShutdown, OpDiskSwap, OpSlowDisk, OpKillController, OpStartController,
		OpCut, OpHeal, OpSetConfig, OpCreateTopic, OpDeleteTopic, OpElectLeaders, OpSnapshot, OpDescribe, OpRollingRestart}
}

// throttleValue reads a throttle config: a rate in bytes per second, or for the replicas lists
// "*" (every replica) or "" (none), the only forms the model distinguishes.
func throttleValue(name string, v any) (float64, error) {
	if strings.HasSuffix(name, ".replicas") {
		s, _ := v.(string)
		if s != "*" && s != "" {
			return 0, fmt.Errorf("value: %q is not supported for %s; the model throttles all replicas (\"*\") or none (\"\")", s, name)
		}
		if s == "*" {
			return 1, nil
		}
		return 0, nil
	}
	def := &config.Def{Name: name, Type: config.Long, Min: 0}
	n, err := def.Parse(v)
	if err != nil {
		return 0, fmt.Errorf("value: %w", err)
	}
	return float64(n.(int64)), nil
}

// Do applies an event at the current time. A request the controller refuses (an unknown topic,
// an invalid config) is an error; so is an event that does not validate.
func (c *Cluster) Do(ev Event) error {
	if err := c.Validate(ev); err != nil {
		return err
	}
	if c.err != nil {
		return c.err
	}
	switch ev.Op {
	case OpKill:
		c.noteFault()
		return c.fleet.Kill(ev.Broker)
	case OpStart:
		return c.start(ev.Broker)
	case OpShutdown:
		c.noteFault()
		return c.fleet.ControlledShutdown(ev.Broker)
	case OpDiskSwap:
		c.noteFault()
		return c.replaceDisk(ev.Broker)
	case OpSlowDisk:
		c.noteFault()
		return c.fleet.SetDiskSlowFactor(ev.Broker, ev.Factor)
	case OpKillController:
		id, err := c.controllerArg(ev.Controller)
		if err != nil {
			return err
		}
		c.noteFault()
		return c.ctl.Kill(id)
	case OpStartController:
		id, err := c.controllerArg(ev.Controller)
		if err != nil {
			return err
		}
		return c.ctl.Start(id)
	case OpCut, OpHeal:
		return c.link(ev)
	case OpSetConfig:
		if slices.Contains(brokerThrottleConfigs, ev.Name) {
			return c.setThrottle(ev.Name, ev.Value)
		}
		return c.ctl.Admin().SetConfig(ev.Topic, ev.Name, ev.Value)
	case OpCreateTopic:
		t := ev.TopicSpec
		return c.ctl.Admin().CreateTopic(controller.CreateTopicRequest{Name: t.Name, NumPartitions: t.PartitionCount,
			ReplicationFactor: t.ReplicationFactor, Assignments: t.Replicas, Configs: t.Configs})
	case OpDeleteTopic:
		return c.ctl.Admin().DeleteTopic(ev.Name)
	case OpElectLeaders:
		res, err := c.ctl.Admin().ElectLeaders(ev.Election, ev.Partitions)
		if err == nil {
			c.electResults = append(c.electResults, ElectLeadersResult{TimeMs: c.Now(), Results: res})
			if c.obs != nil {
				for _, r := range res {
					if idx, ok := c.view.PartitionIndex(r.Topic, r.Partition); ok && r.Error == nil {
						c.manualElection[idx] = true
					}
				}
			}
		}
		return err
	case OpSnapshot:
		id, err := c.controllerArg(ev.Controller)
		if err != nil {
			return err
		}
		sid, err := c.ctl.Snapshot(id)
		if err == nil && c.obs != nil {
			c.tell(&Happening{Kind: Decided, AtMs: c.Now(), Decision: DecisionSnapshot, From: id, Partition: -1, Leader: -1, OldLeader: -1,
				Offset: sid.EndOffset, Reason: fmt.Sprintf("controller %d wrote a metadata snapshot up to offset %d: a node that falls behind it loads the snapshot instead of replaying the log", id, sid.EndOffset)})
		}
		return err
	case OpDescribe:
		c.describes = append(c.describes, Describe{TimeMs: c.Now(), Partitions: c.Partitions()})
		return nil
	case OpRollingRestart:
		if c.rolling != nil {
			return fmt.Errorf("op: a rolling restart is already in progress (broker %d)", c.rolling.current)
		}
		c.rolling = &rolling{brokers: slices.Clone(ev.Brokers), intervalMs: ev.IntervalMs, diskSwap: ev.DiskSwap}
		return c.rolling.step(c)
	}
	return nil
}

func (c *Cluster) link(ev Event) error {
	a, _ := c.parseNode("a", ev.A)
	b, _ := c.parseNode("b", ev.B)
	up := ev.Op == OpHeal
	if ev.Op == OpCut {
		c.noteFault()
	}
	switch {
	case a.producers:
		return c.fleet.SetClientLink(b.id, up)
	case b.producers:
		return c.fleet.SetClientLink(a.id, up)
	case a.broker && b.broker:
		return c.fleet.SetLink(a.id, b.id, up)
	}
	// A link with a controller: the quorum's network (fetch, votes, broker requests).
	if up {
		return c.ctl.Heal(a.id, b.id)
	}
	return c.ctl.Cut(a.id, b.id)
}

func (c *Cluster) setThrottle(name string, v any) error {
	n, err := throttleValue(name, v)
	if err != nil {
		return err
	}
	if strings.HasSuffix(name, ".replicas") {
		c.fleet.SetThrottleAllReplicas(n > 0)
		return nil
	}
	p := c.fleet.Params()
	leader, follower := p.LeaderThrottleBytesPerSec, p.FollowerThrottleBytesPerSec
	if strings.HasPrefix(name, "leader.") {
		leader = n
	} else {
		follower = n
	}
	for _, id := range c.spec.Brokers {
		if err := c.fleet.SetThrottle(id, leader, follower); err != nil {
			return err
		}
	}
	return nil
}

// replaceDisk replaces a stopped broker's disk. Without ELR (eligible.leader.replicas.version 0)
// nothing takes the emptied broker out of the ISR, so it may later lead cleanly without the
// acknowledged records, as in Kafka before KIP-966: the durability check allows that broker.
func (c *Cluster) replaceDisk(id int32) error {
	if err := c.fleet.ReplaceDisk(id); err != nil {
		return err
	}
	if c.spec.ElrVersion == 0 {
		c.dur.AllowDiskLoss(id)
	}
	return nil
}

// AckedRecordsLost implements broker.LossListener: acks=all records truncated by a new leader
// must be explained by an unclean election, or the run stops.
func (c *Cluster) AckedRecordsLost(l broker.AckedLoss, nowMs int64) {
	v := c.dur.ObserveLoss(nowMs-c.t0, check.Loss{Index: l.Partition, Leader: l.Leader, LeaderEpoch: l.LeaderEpoch,
		PrevEpoch: l.PrevLeaderEpoch, Name: fmt.Sprintf("%s-%d", l.Topic, l.PartitionID),
		HighWatermark: l.HighWatermark, LogEnd: l.LogEnd, Records: l.Records})
	if v != nil {
		c.fail(v)
	}
}
