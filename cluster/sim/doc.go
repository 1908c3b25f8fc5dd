// Package sim is the discrete-event core of KRaft Lab's toy cluster: one virtual clock in
// milliseconds, one queue of typed events ordered by (time, insertion order), and one seeded
// random source from which every consumer derives its own stream.
//
// It exists so that a whole cluster run is a pure function of its seed and its inputs. Nothing
// here reads the wall clock, starts a goroutine, draws from the global math/rand source or
// iterates a map, and events that fall due at the same millisecond run in the order they were
// scheduled.
//
// The package imports only the standard library. It must not import engine/ or any other room
// of cluster/: every other room builds on it.
package sim
