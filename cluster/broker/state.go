package broker

import (
	"errors"
	"fmt"
)

// State is a broker's lifecycle state, as Kafka's BrokerState names it.
type State uint8

// The lifecycle states, in the order a broker goes through them.
const (
	NotRunning State = iota
	// Starting: the process is up, registers, then heartbeats every 10 ms until the controller
	// says its metadata has caught up to its registration.
	Starting
	// Recovery: logs are loaded or recovered; heartbeats carry WantFence=true until done.
	Recovery
	// Running: unfenced (or asking to be), heartbeating every broker.heartbeat.interval.ms.
	Running
	// PendingControlledShutdown: asked to shut down; waits for the controller to move its
	// leaderships and release it.
	PendingControlledShutdown
	// ShuttingDown: released, closing logs and writing the clean-shutdown file.
	ShuttingDown
)

var stateNames = [...]string{"NOT_RUNNING", "STARTING", "RECOVERY", "RUNNING", "PENDING_CONTROLLED_SHUTDOWN", "SHUTTING_DOWN"}

// String returns Kafka's name for the state.
func (s State) String() string {
	if int(s) < len(stateNames) {
		return stateNames[s]
	}
	return fmt.Sprintf("State(%d)", s)
}

// ErrNotRunning is returned (wrapped) by ApplyMetadata for a broker that is not running.
var ErrNotRunning = errors.New("broker is not running")
