package lab

import (
	"fmt"
	"strconv"
	"strings"
)

// A Plan is a rollout as operators run it, step by step: a rolling restart of the brokers in a
// given order that waits, between brokers, until no partition is under-replicated (with a
// timeout, as Kubernetes operators such as Strimzi wait before rolling the next pod), a disk
// replacement, a controlled shutdown, a pause. The lab runs it under the current config and
// under the candidate config, same cluster and seed (RunPlanComparison).
//
// Its text form, one step a line ('#' starts a comment):
//
//	rolling-restart [all|ID,ID,...] [timeout=DURATION]
//	replace-disk ID [down=DURATION] [timeout=DURATION]
//	shutdown ID [down=DURATION] [timeout=DURATION]
//	kill ID [down=DURATION] [timeout=DURATION]
//	roll-controllers [down=DURATION] [timeout=DURATION]
//	pause DURATION
//
// DURATION is Go's form: 90s, 10m, 1h30m. roll-controllers restarts the controllers one at a
// time, the standbys first and the active one last, each with the candidate's server.properties:
// controller-side static configs take effect only then (rollout.go).
type Plan struct {
	Steps []PlanStep `json:"steps"`
	// Text is the plan as written.
	Text string `json:"text"`
}

// Kinds of plan step.
const (
	StepRollingRestart = "rolling-restart"
	StepReplaceDisk    = "replace-disk"
	StepShutdown       = "shutdown"
	StepKill           = "kill"
	StepPause          = "pause"
	// StepRollControllers restarts every controller in turn with the candidate's configs.
	StepRollControllers = "roll-controllers"
)

// PlanStep is one step.
type PlanStep struct {
	Line int    `json:"line"`
	Kind string `json:"kind"`
	// Brokers are the brokers in order (rolling-restart: nil for all, in id order;
	// roll-controllers: nil; the others: one).
	Brokers []int32 `json:"brokers,omitempty"`
	// DownMs is how long a broker stays down before it is started (pause: the pause).
	DownMs int64 `json:"down_ms"`
	// TimeoutMs bounds each wait for no under-replicated partition after a start.
	TimeoutMs int64 `json:"timeout_ms,omitempty"`
}

// Defaults of plan steps.
const (
	// DefaultWaitTimeoutMs bounds a wait for no under-replicated partition: the lab's choice,
	// ten minutes, long enough for a restart whose log loading takes minutes.
	DefaultWaitTimeoutMs = 10 * 60_000
	// DefaultDiskDownMs is how long a replaced disk's broker stays down.
	DefaultDiskDownMs = 5 * 60_000
	// DefaultControllerDownMs is how long a controller stays down in roll-controllers: the
	// lab's choice, a process restart.
	DefaultControllerDownMs = 30_000
	// PlanWarmupMs is the time before the first step: the steady state the p99 verdict compares
	// with.
	PlanWarmupMs = 10 * 60_000
	// PlanTailMs is the time after the last step: the 10 minutes after unfencing the p99
	// verdict reads, and leadership's return.
	PlanTailMs = 20 * 60_000
)

// PlanError is a plan line the lab refuses.
type PlanError struct {
	Line int
	Msg  string
}

// Error writes "plan, line N: MSG".
func (e *PlanError) Error() string { return fmt.Sprintf("plan, line %d: %s", e.Line, e.Msg) }

// ParsePlan reads a plan's text. Broker ids are checked against the cluster later (Validate).
func ParsePlan(text string) (*Plan, error) {
	p := &Plan{Text: text}
	for i, raw := range strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n") {
		line := i + 1
		if c := strings.IndexByte(raw, '#'); c >= 0 {
			raw = raw[:c]
		}
		f := strings.Fields(raw)
		if len(f) == 0 {
			continue
		}
		fail := func(format string, args ...any) (*Plan, error) {
			return nil, &PlanError{line, fmt.Sprintf(format, args...)}
		}
		st := PlanStep{Line: line, Kind: f[0], TimeoutMs: DefaultWaitTimeoutMs}
		args := f[1:]
		switch st.Kind {
		case StepPause:
			if len(args) != 1 {
				return fail("pause takes one duration (pause 10m)")
			}
			ms, err := parseDurationMs(args[0])
			if err != nil {
				return fail("pause %s: %v", args[0], err)
			}
			st.DownMs, st.TimeoutMs = ms, 0
		case StepRollingRestart, StepReplaceDisk, StepShutdown, StepKill, StepRollControllers:
			switch st.Kind {
			case StepReplaceDisk:
				st.DownMs = DefaultDiskDownMs
			case StepRollControllers:
				st.DownMs = DefaultControllerDownMs
			}
			switch {
			case st.Kind == StepRollControllers:
				// No ids: every controller, in the order the roll needs.
			case st.Kind != StepRollingRestart:
				if len(args) == 0 {
					return fail("%s takes a broker id (%s 3)", st.Kind, st.Kind)
				}
				id, err := strconv.ParseInt(args[0], 10, 32)
				if err != nil || id < 0 {
					return fail("%s: %q is not a broker id", st.Kind, args[0])
				}
				st.Brokers, args = []int32{int32(id)}, args[1:]
			case len(args) > 0 && !strings.Contains(args[0], "="):
				if args[0] != "all" {
					ids, err := parseIDList(args[0])
					if err != nil || len(ids) == 0 {
						return fail("rolling-restart: want all or broker ids in order (1,2,3), got %q", args[0])
					}
					st.Brokers = ids
				}
				args = args[1:]
			}
			for _, a := range args {
				k, v, ok := strings.Cut(a, "=")
				ms, err := parseDurationMs(v)
				switch {
				case !ok || (k != "timeout" && k != "down") || (k == "down" && st.Kind == StepRollingRestart):
					allowed := "timeout=DURATION"
					if st.Kind != StepRollingRestart {
						allowed = "down=DURATION, timeout=DURATION"
					}
					return fail("%s: unknown option %q (allowed: %s)", st.Kind, a, allowed)
				case err != nil:
					return fail("%s: %s: %v", st.Kind, k, err)
				case k == "timeout" && ms == 0:
					return fail("%s: timeout must be above 0", st.Kind)
				case k == "timeout":
					st.TimeoutMs = ms
				default:
					st.DownMs = ms
				}
			}
		default:
			return fail("unknown step %q (steps: %s, %s, %s, %s, %s, %s)", st.Kind, StepRollingRestart, StepRollControllers, StepReplaceDisk, StepShutdown, StepKill, StepPause)
		}
		p.Steps = append(p.Steps, st)
	}
	if len(p.Steps) == 0 {
		return nil, &PlanError{1, "the plan has no step (rolling-restart, roll-controllers, replace-disk, shutdown, kill, pause)"}
	}
	return p, nil
}

// Validate checks the plan's brokers against the cluster's.
func (p *Plan) Validate(brokers []int32) error {
	for _, st := range p.Steps {
		for _, b := range st.Brokers {
			if !containsID(brokers, b) {
				return &PlanError{st.Line, fmt.Sprintf("broker %d is not one of the cluster's (%s)", b, joinIDs(brokers, ", "))}
			}
		}
	}
	return nil
}

// boundMs is the longest the plan can take: every wait running to its timeout.
func (p *Plan) boundMs(brokers int) int64 {
	total := int64(PlanWarmupMs + PlanTailMs)
	for _, st := range p.Steps {
		n := int64(len(st.Brokers))
		switch {
		case st.Kind == StepRollingRestart && st.Brokers == nil:
			n = int64(brokers)
		case st.Kind == StepRollControllers:
			n = 5 // the most controllers a cluster has
		}
		// A stop takes at most its own timeout too (a controlled shutdown that hangs).
		total += st.DownMs*max(n, 1) + 2*st.TimeoutMs*n
	}
	return total
}

func containsID(ids []int32, id int32) bool {
	for _, x := range ids {
		if x == id {
			return true
		}
	}
	return false
}

// String writes a step as the plan text spells it.
func (s PlanStep) String() string {
	dur := formatMs
	var b strings.Builder
	b.WriteString(s.Kind)
	switch {
	case s.Kind == StepPause:
		return s.Kind + " " + dur(s.DownMs)
	case s.Kind == StepRollingRestart && s.Brokers == nil:
		b.WriteString(" all")
	case s.Kind == StepRollControllers:
	default:
		b.WriteString(" " + joinIDs(s.Brokers, ","))
	}
	if s.Kind != StepRollingRestart {
		b.WriteString(" down=" + dur(s.DownMs))
	}
	b.WriteString(" timeout=" + dur(s.TimeoutMs))
	return b.String()
}
