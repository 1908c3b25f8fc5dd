package broker

import "github.com/kraftlab/kraftlab/cluster/sim"

// HandleEvent runs one of the fleet's timers. It implements sim.Handler.
func (f *Fleet) HandleEvent(ev sim.Event) {
	switch ev.Kind {
	case evSession:
		f.cu.sessionEvent(int(ev.ID))
		return
	case evAlloc:
		f.cu.allocEv = sim.Handle{}
		f.cu.realloc()
		return
	}
	b := &f.brokers[ev.ID]
	if uint32(ev.Arg) != b.gen {
		return // an event of an earlier incarnation
	}
	switch ev.Kind {
	case evStart:
		f.life.sendRegistration(int(ev.ID))
	case evComm:
		f.life.communicate(int(ev.ID))
	case evRegReply:
		f.life.registrationReply(int(ev.ID))
	case evHbReply:
		f.life.heartbeatReply(int(ev.ID))
	case evRecoveryDone:
		f.life.recoveryDone(int(ev.ID))
	case evShutdownDone:
		f.life.stop(int(ev.ID), true)
	case evIsrTick:
		f.isr.isrTick(int(ev.ID))
	case evAlterFlush:
		b.alterFlush = false
		f.isr.flushAlter(int(ev.ID))
	case evAlterReply:
		f.isr.alterReply(int(ev.ID))
	}
}
