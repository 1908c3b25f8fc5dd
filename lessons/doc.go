// Package lessons is KRaft Lab's lesson format and its runtime: a lesson is a Markdown file
// with a small header (title, summary, links), a starting cluster-mode scenario and a sequence
// of steps, each with its text, a task, goals written in a small predicate vocabulary, hints,
// reference actions that reach the goals, and optionally actions the step plays itself.
//
// Load parses and validates a lesson; every problem names the file and line. A Lesson then
// builds its cluster (Build), replays the reference actions of earlier steps to reach a step's
// start (Checkpoint: a step start is a deterministic replay, not a saved state), evaluates a
// step's goals against a running *cluster.Cluster (Step.Check), and plays actions with a bounded
// simulated time (Play). The course itself is embedded (Course), so the CLI loads it without
// files; the wasm worker loads the same lessons already parsed (CompiledCourse, compiled.go),
// so that the page does not download the parser.
//
// docs/lessons.md documents the format and the predicate vocabulary for lesson authors.
//
// This package imports cluster and cluster/scenario; wasm/bridge and cmd/kraftlab import it.
// Like the cluster, it is deterministic: no clock, no global randomness, no map-order
// dependence.
package lessons
