package broker

import (
	"fmt"
	"math"
	"strconv"

	"github.com/kraftlab/kraftlab/engine/controller"
)

// setState moves a broker to a new lifecycle state and tells the listener.
func (lc *lifecycle) setState(slot int, to State) {
	f := lc.f
	b := &f.brokers[slot]
	from := b.state
	if from == to {
		return
	}
	b.state = to
	f.notes.stateChanged(slot, to, len(f.brokers))
	if f.lis != nil {
		f.lis.BrokerStateChanged(b.id, from, to, f.now())
	}
}

// Boot puts a broker that the published metadata already shows registered and unfenced
// straight into RUNNING, as the brokers of a scenario's starting cluster are. Its metadata
// view is the shared image (as if it had loaded a snapshot), its replicas start at once, and
// its heartbeat and isr-expiration timers start at a random phase so that brokers do not act
// in lockstep.
func (f *Fleet) Boot(id int32) error {
	b, slot, err := f.slot(id)
	if err != nil {
		return err
	}
	if b.state != NotRunning {
		return fmt.Errorf("broker: Boot(%d): broker is %s; only a NOT_RUNNING broker can boot", id, b.state)
	}
	reg := &f.cat.regs[slot]
	if !reg.registered || reg.fenced {
		return fmt.Errorf("broker: Boot(%d): the published metadata does not show broker %d registered and unfenced; Publish its RegisterBrokerRecord first or use Start", id, id)
	}
	b.gen++
	b.epoch, b.registered, b.ready = reg.epoch, true, true
	b.incarnations++
	f.pub.loadView(slot)
	f.life.setState(slot, Running)
	b.comm = f.at(f.now()+b.rng.Between(0, f.p.HeartbeatIntervalMs), evComm, int32(slot), int64(b.gen))
	f.roles.activate(slot, true)
	return nil
}

// Start starts a NOT_RUNNING broker: after ProcessStartMs it registers (STARTING), heartbeats
// every 10 ms until caught up, recovers its logs (RECOVERY: LogLoadCleanMs after a clean
// shutdown, LogRecoveryHardMs after a hard stop, LogLoadEmptyMs on a replaced disk), then asks
// to be unfenced and runs. The state is STARTING from this call on.
func (f *Fleet) Start(id int32) error {
	b, slot, err := f.slot(id)
	if err != nil {
		return err
	}
	if b.state != NotRunning {
		return fmt.Errorf("broker: Start(%d): broker is %s; only a NOT_RUNNING broker can start", id, b.state)
	}
	b.gen++
	b.incarnations++
	b.registered, b.ready, b.inFlight, b.nextImmediate, b.gotCSReply = false, false, false, false, false
	f.life.setState(slot, Starting)
	f.at(f.now()+f.p.ProcessStartMs, evStart, int32(slot), int64(b.gen))
	return nil
}

// Kill stops a broker at once, as kill -9 or a host failure does: its replicas stop, requests
// in flight are lost, no clean-shutdown file is written (the next registration carries
// PreviousBrokerEpoch -1) and the next start must recover its logs.
func (f *Fleet) Kill(id int32) error {
	b, slot, err := f.slot(id)
	if err != nil {
		return err
	}
	if b.state == NotRunning {
		return fmt.Errorf("broker: Kill(%d): broker is already NOT_RUNNING", id)
	}
	f.life.stop(slot, false)
	return nil
}

// ControlledShutdown begins a controlled shutdown: a RUNNING broker heartbeats at once with
// WantShutDown, waits while the controller moves its leaderships away, and stops cleanly when
// released. A broker that is not RUNNING yet shuts down at once, as Kafka's
// BeginControlledShutdownEvent does.
func (f *Fleet) ControlledShutdown(id int32) error {
	b, slot, err := f.slot(id)
	if err != nil {
		return err
	}
	switch b.state {
	case Running:
		f.life.setState(slot, PendingControlledShutdown)
		b.gotCSReply = false
		f.life.scheduleComm(slot, 0)
	case Starting, Recovery:
		f.life.beginShutdown(slot)
	default:
		return fmt.Errorf("broker: ControlledShutdown(%d): broker is %s; it must be STARTING, RECOVERY or RUNNING", id, b.state)
	}
	return nil
}

// ReplaceDisk replaces a stopped broker's disk: its next start has empty logs, a new log
// directory, no clean-shutdown file (so the controller treats it as unclean) and nothing to
// recover. Its metadata view is kept, as if the metadata log lived on another disk; call
// LoadSnapshot after Start to model refetching it.
func (f *Fleet) ReplaceDisk(id int32) error {
	b, slot, err := f.slot(id)
	if err != nil {
		return err
	}
	if b.state != NotRunning {
		return fmt.Errorf("broker: ReplaceDisk(%d): broker is %s; stop it first", id, b.state)
	}
	b.emptyDisk, b.logDirGen, b.prevEpoch, b.needRecovery = true, b.logDirGen+1, -1, false
	for _, p := range f.replicaParts(id) {
		if r := f.replicaOf(p, slot); r >= 0 {
			// An ISR member's emptied log must not take its leader's HW down with it.
			f.holdHW(p)
			f.rp[r].leo = 0
		}
	}
	return nil
}

// State returns a broker's lifecycle state.
func (f *Fleet) State(id int32) State {
	if s, ok := f.slotOf[id]; ok {
		return f.brokers[s].state
	}
	return NotRunning
}

// Epoch returns a broker's current broker epoch, -1 before it registered.
func (f *Fleet) Epoch(id int32) int64 {
	if s, ok := f.slotOf[id]; ok && f.brokers[s].registered {
		return f.brokers[s].epoch
	}
	return -1
}

// stop ends a broker's incarnation: hard (kill) or at the end of a clean shutdown.
func (lc *lifecycle) stop(slot int, clean bool) {
	f := lc.f
	b := &f.brokers[slot]
	b.gen++
	f.sim.Cancel(b.comm)
	b.comm = noHandle
	b.inFlight, b.nextImmediate, b.alterBusy, b.alterFlush = false, false, false, false
	f.roles.deactivate(slot)
	if clean && b.ready && b.registered {
		b.prevEpoch, b.needRecovery = b.epoch, false
	} else {
		b.prevEpoch, b.needRecovery = -1, !b.emptyDisk
	}
	b.ready, b.registered = false, false
	lc.setState(slot, NotRunning)
}

// beginShutdown is BrokerLifecycleManager.beginShutdown plus the broker's own shutdown: the
// replicas stop at once, logs are flushed, and the broker stops ShutdownFlushMs later, writing
// the clean-shutdown file if its logs had been recovered.
func (lc *lifecycle) beginShutdown(slot int) {
	f := lc.f
	b := &f.brokers[slot]
	b.gen++ // drop the heartbeat, recovery and AlterPartition events of this incarnation
	f.sim.Cancel(b.comm)
	b.comm = noHandle
	b.inFlight, b.nextImmediate, b.alterBusy, b.alterFlush = false, false, false, false
	f.roles.deactivate(slot)
	lc.setState(slot, ShuttingDown)
	f.at(f.now()+f.p.ShutdownFlushMs, evShutdownDone, int32(slot), int64(b.gen))
}

// sendRegistration is the StartupEvent: the broker sends BrokerRegistration.
func (lc *lifecycle) sendRegistration(slot int) {
	f := lc.f
	b := &f.brokers[slot]
	if b.state != Starting {
		return
	}
	dir := "b" + strconv.Itoa(int(b.id)) + "-dir" + strconv.Itoa(b.logDirGen)
	req := controller.RegisterRequest{BrokerID: b.id,
		IncarnationID:       "b" + strconv.Itoa(int(b.id)) + "-inc" + strconv.Itoa(b.incarnations),
		LogDirs:             []string{dir},
		PreviousBrokerEpoch: b.prevEpoch}
	epoch, delay, err := f.client.Register(req, f.now())
	b.inFlight, b.regEpoch, b.regErr = true, epoch, err
	f.at(f.now()+max(0, delay), evRegReply, int32(slot), int64(b.gen))
}

func (lc *lifecycle) registrationReply(slot int) {
	f := lc.f
	b := &f.brokers[slot]
	b.inFlight = false
	if b.regErr != nil {
		b.nextImmediate = false
		lc.scheduleComm(slot, f.p.HeartbeatIntervalMs)
		return
	}
	b.epoch, b.registered = b.regEpoch, true
	lc.scheduleComm(slot, 0)
}

// scheduleComm is scheduleNextCommunication: one pending communication event per broker,
// replaced by each new schedule, made immediate if something asked for that while a request
// was in flight.
func (lc *lifecycle) scheduleComm(slot int, delay int64) {
	f := lc.f
	b := &f.brokers[slot]
	if b.nextImmediate {
		delay = 0
	}
	b.nextImmediate = false
	f.sim.Cancel(b.comm)
	b.comm = f.at(f.now()+delay, evComm, int32(slot), int64(b.gen))
}

// communicate is CommunicationEvent: send a heartbeat, or the registration again if the last
// one failed; if a request is in flight, make the next schedule immediate instead.
func (lc *lifecycle) communicate(slot int) {
	f := lc.f
	b := &f.brokers[slot]
	b.comm = noHandle
	if b.state == NotRunning || b.state == ShuttingDown {
		return
	}
	if b.inFlight {
		b.nextImmediate = true
		return
	}
	if !b.registered {
		lc.sendRegistration(slot)
		return
	}
	req := controller.HeartbeatRequest{BrokerID: b.id, BrokerEpoch: b.epoch, CurrentMetadataOffset: b.applied,
		WantFence: !b.ready, WantShutDown: b.state == PendingControlledShutdown}
	reply, delay, err := f.client.Heartbeat(req, f.now())
	b.inFlight, b.hbReply, b.hbErr = true, reply, err
	f.stats.HeartbeatsSent++
	f.at(f.now()+max(0, delay), evHbReply, int32(slot), int64(b.gen))
}

// heartbeatReply is BrokerHeartbeatResponseEvent.
func (lc *lifecycle) heartbeatReply(slot int) {
	f := lc.f
	b := &f.brokers[slot]
	b.inFlight = false
	if b.hbErr != nil {
		b.nextImmediate = false
		lc.scheduleComm(slot, f.p.HeartbeatIntervalMs)
		return
	}
	r := b.hbReply
	switch b.state {
	case Starting:
		if r.IsCaughtUp {
			lc.setState(slot, Recovery)
			f.at(f.now()+lc.recoveryMs(b), evRecoveryDone, int32(slot), int64(b.gen))
		}
		lc.scheduleComm(slot, f.p.StartingHeartbeatMs)
	case Recovery:
		if !r.IsFenced {
			lc.setState(slot, Running)
		}
		lc.scheduleComm(slot, f.p.HeartbeatIntervalMs)
	case Running:
		lc.scheduleComm(slot, f.p.HeartbeatIntervalMs)
	case PendingControlledShutdown:
		if r.ShouldShutDown {
			lc.beginShutdown(slot)
			return
		}
		if !b.gotCSReply {
			lc.scheduleComm(slot, f.p.ControlledShutdownRetryMs)
		} else {
			lc.scheduleComm(slot, f.p.HeartbeatIntervalMs)
		}
		b.gotCSReply = true
	}
}

// recoveryMs is how long RECOVERY's log loading takes for this start.
func (lc *lifecycle) recoveryMs(b *broker) int64 {
	f := lc.f
	switch {
	case b.emptyDisk:
		return f.p.LogLoadEmptyMs
	case b.needRecovery && f.p.LogRecoveryHardMs > 0:
		return f.p.LogRecoveryHardMs
	case b.needRecovery:
		return f.HardRecoveryMs(b.id)
	default:
		return f.p.LogLoadCleanMs
	}
}

// HardRecoveryMs is how long broker id's log recovery after a hard stop takes when it follows
// from what the broker holds (Params.LogRecoveryHardMs 0): its logs opened
// NumRecoveryThreadsPerDataDir at a time, LogRecoveryPerLogMs each (LogManager.loadLogs), plus
// every log's active segment, the part above its recovery point, read back at the disk's read
// rate (LogLoader.recoverLog). A one-partition toy recovers in a second or two; a broker with
// tens of thousands of small logs, each still in its first segment, re-reads all it holds.
func (f *Fleet) HardRecoveryMs(id int32) int64 {
	slot, ok := f.slotOf[id]
	if !ok {
		return 0
	}
	now := f.now()
	parts := f.cat.replicaOf[slot]
	var unflushed float64
	for _, p := range parts {
		base, n := f.pt[p].rbase, int32(f.pt[p].rf)
		for r := base; r < base+n; r++ {
			if f.rp[r].rb == slot {
				unflushed += math.Mod(f.pos(r, now), f.p.LogSegmentBytes)
			}
		}
	}
	threads := f.p.NumRecoveryThreadsPerDataDir
	rounds := (len(parts) + threads - 1) / threads
	return int64(math.Ceil(float64(rounds)*f.p.LogRecoveryPerLogMs + unflushed/f.cu.readRate(int(slot))*1000))
}

// recoveryDone is the broker finishing log recovery: it is ready to be unfenced (the next
// heartbeat goes at once, with WantFence=false) and its replicas start, as Kafka's replica
// manager starts applying metadata once the log manager is up.
func (lc *lifecycle) recoveryDone(slot int) {
	f := lc.f
	b := &f.brokers[slot]
	if b.state != Recovery && b.state != Running {
		return
	}
	b.ready = true
	b.emptyDisk, b.needRecovery = false, false
	f.roles.activate(slot, false)
	if b.inFlight {
		b.nextImmediate = true
	} else {
		lc.scheduleComm(slot, 0)
	}
}
