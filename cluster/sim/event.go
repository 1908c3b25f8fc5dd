package sim

// Handler receives the events it scheduled. A component passes itself (normally a long-lived
// pointer) as the Target of its events, so putting it in an Event costs no allocation.
type Handler interface {
	HandleEvent(ev Event)
}

// Event is one scheduled occurrence. It is a small plain value rather than a closure so that the
// queue can hold millions of them inline without a heap allocation each; the Target alone decides
// what Kind, ID and Arg mean (typically a message kind, a node or slot index, and a generation).
type Event struct {
	Target Handler // runs the event
	Kind   int32   // what happens, in the Target's terms
	ID     int32   // which thing it happens to (a node, a message slot)
	Arg    int64   // one more argument, e.g. a generation to recognise stale events
}

// Handle names one scheduled event so that it can be cancelled. The zero Handle names nothing,
// and a Handle goes stale once its event has run or been cancelled, so cancelling twice is safe.
type Handle struct {
	slot int32
	gen  uint32
}
