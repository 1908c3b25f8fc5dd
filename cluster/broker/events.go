package broker

import "github.com/kraftlab/kraftlab/cluster/sim"

// HandleEvent runs one of the fleet's timers. It implements sim.Handler.
func (f *Fleet) HandleEvent(ev sim.Event) {
	switch ev.Kind {
	case evSession:
		f.sessionEvent(int(ev.ID))
		return
	case evAlloc:
		f.allocEv = sim.Handle{}
		f.realloc()
		return
	}
	b := &f.brokers[ev.ID]
	if uint32(ev.Arg) != b.gen {
		return // an event of an earlier incarnation
	}
	switch ev.Kind {
	case evStart:
		f.sendRegistration(int(ev.ID))
	case evComm:
		f.communicate(int(ev.ID))
	case evRegReply:
		f.registrationReply(int(ev.ID))
	case evHbReply:
		f.heartbeatReply(int(ev.ID))
	case evRecoveryDone:
		f.recoveryDone(int(ev.ID))
	case evShutdownDone:
		f.stop(int(ev.ID), true)
	case evIsrTick:
		f.isrTick(int(ev.ID))
	case evAlterFlush:
		b.alterFlush = false
		f.flushAlter(int(ev.ID))
	case evAlterReply:
		f.alterReply(int(ev.ID))
	}
}
