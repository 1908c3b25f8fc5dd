package broker

import (
	"errors"

	"github.com/kraftlab/kraftlab/engine/controller"
)

// ErrUnreachable is what a ControllerClient returns (possibly wrapped) when a request got no
// answer: no active controller, or the network between the broker and it is cut. The broker
// then behaves as after a request timeout: it retries on its own schedule.
var ErrUnreachable = errors.New("controller unreachable")

// ControllerClient is the brokers' only way to the active controller. The assembly routes each
// call to whichever controller is active (through its network model) and returns the reply
// together with delayMs, the time from now until the broker sees the reply (or, with an error
// that is not a *controller.APIError, until it gives up on the request). The controller
// handles the request synchronously, at the nowMs it is given.
//
// Request slices (LogDirs, NewIsr) are only valid during the call; copy them to keep them.
type ControllerClient interface {
	// Register sends a BrokerRegistrationRequest and returns the broker epoch.
	Register(req controller.RegisterRequest, nowMs int64) (epoch int64, delayMs int64, err error)
	// Heartbeat sends a BrokerHeartbeatRequest.
	Heartbeat(req controller.HeartbeatRequest, nowMs int64) (reply controller.HeartbeatReply, delayMs int64, err error)
	// AlterPartition sends one AlterPartition request carrying several partitions, and writes
	// each partition's result into errs[i] (nil for NONE). A non-nil return error means the
	// whole request got no answer; errs is then ignored.
	AlterPartition(reqs []controller.AlterPartitionRequest, errs []error, nowMs int64) (delayMs int64, err error)
}

// Rates is the produce workload as the brokers see it: every partition belongs to one of a few
// rate classes and produces at its class's rate while it has a leader that accepts writes.
// Classes are what make closed-form catch-up cheap (see the package doc); cluster/workload
// implements this interface.
type Rates interface {
	// NumClasses is the number of rate classes, at most MaxClasses.
	NumClasses() int
	// ClassBytesPerSec is the produce rate of one partition of class c, in bytes per second.
	ClassBytesPerSec(c int) float64
	// ClassRequestsPerSec is the produce requests (batches) per second of one partition of
	// class c; it loads the brokers' request handlers.
	ClassRequestsPerSec(c int) float64
	// ClassOf is partition p's class (p is the index in metadata.Image.Partitions).
	ClassOf(p int32) int
	// RecordBytes is the size of one record, to count lost records from lost bytes.
	RecordBytes() float64
}

// MaxClasses bounds the number of rate classes; one more class (rate 0) holds partitions that
// cannot take writes.
const MaxClasses = 64

// Listener hears broker lifecycle changes, for the assembly (to start or stop a broker's
// metadata fetching) and for observers. Calls happen inside the Fleet's event handling; a
// listener must not call back into the Fleet's mutating methods.
type Listener interface {
	// BrokerStateChanged is called after broker id moved from one state to another.
	BrokerStateChanged(id int32, from, to State, nowMs int64)
}

// AckedLoss is a takeover that truncated records acknowledged under acks=all: the new serving
// leader's log ended below the high watermark of the leader before it. Kafka guarantees this
// only after an unclean election (or a lost disk, before KIP-966's ELR), so the assembly
// checks it against the committed metadata.
type AckedLoss struct {
	// Partition is the partition's index (as metadata.Image numbers them); Topic and
	// PartitionID name it.
	Partition   int32
	Topic       string
	PartitionID int32
	// Leader is the new serving leader's broker id and LeaderEpoch the epoch it serves.
	Leader      int32
	LeaderEpoch int32
	// PrevLeaderEpoch is the epoch of the leader whose high watermark was passed (-1: none
	// served before).
	PrevLeaderEpoch int32
	// HighWatermark and LogEnd are the old high watermark and the new leader's log end, in
	// bytes; Records is the difference in records.
	HighWatermark, LogEnd, Records float64
}

// LossListener is an optional part of a Listener: a listener that implements it hears every
// AckedLoss, inside the Fleet's event handling.
type LossListener interface {
	AckedRecordsLost(l AckedLoss, nowMs int64)
}
