package control

import (
	"fmt"
	"io"

	"github.com/kraftlab/kraftlab/cluster/sim"
)

// invariants records broken invariants (see the package doc) for the run: with the seed, the
// virtual time and the two facts that disagree. Every part of the package that checks a rule
// reports to the one invariants value of its Controllers.
type invariants struct {
	sim    *sim.Sim
	list   []Violation
	trace  io.Writer         // SetTrace's writer, or nil
	notify func(v Violation) // Callbacks.OnViolation, or nil
}

// violate records a broken invariant.
func (iv *invariants) violate(rule, fact, conflict string) {
	v := Violation{Seed: iv.sim.Seed(), AtMs: iv.sim.Now(), Rule: rule, Fact: fact, Conflict: conflict}
	iv.list = append(iv.list, v)
	if iv.trace != nil {
		fmt.Fprintf(iv.trace, "%8d       VIOLATION %s\n", iv.sim.Now(), v.Error())
	}
	if iv.notify != nil {
		iv.notify(v)
	}
}

// Violation is a broken invariant: the rule, when, under which seed, and the two facts that
// disagree. Replaying the seed with the same inputs reproduces it.
type Violation struct {
	Seed     uint64 // the run's seed
	AtMs     int64  // virtual time of detection
	Rule     string // the invariant
	Fact     string // what was established first
	Conflict string // what contradicts it
}

// Error renders the violation.
func (v Violation) Error() string {
	return fmt.Sprintf("control invariant %q broken at t=%d ms (seed %d): %s, but %s", v.Rule, v.AtMs, v.Seed, v.Fact, v.Conflict)
}
