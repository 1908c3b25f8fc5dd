package controller

// ErrorBackoffMs is how long a periodic task waits after a run that failed (Kafka: 5 minutes).
const ErrorBackoffMs = 5 * 60 * 1000

// DefaultImmediatePeriodMs is PeriodicTask.DEFAULT_IMMEDIATE_PERIOD_NS: the delay before the
// continuation of a run that reported more work.
const DefaultImmediatePeriodMs = 10

// taskResult is what one run of a periodic task reports.
type taskResult struct {
	moreWork bool
	// nextDelayMs, when above 0, overrides the delay before the next run (the throttle
	// interval of a capped electPreferred run).
	nextDelayMs int64
	err         error
}

// periodicTask is one task of Kafka's PeriodicTaskControlManager.
type periodicTask struct {
	name string
	// periodMs is read at each reschedule, so a dynamic config takes effect at the next run.
	periodMs func() int64
	// immediateMs is the continuation delay after a run that reported more work.
	immediateMs func() int64
	run         func(nowMs int64) taskResult
	deadline    int64 // -1 while not scheduled
}

// scheduler holds the periodic tasks in registration order. Ties between tasks due at the same
// time run in registration order, which keeps runs deterministic.
type scheduler struct {
	tasks  []*periodicTask
	active bool
}

func (s *scheduler) register(t *periodicTask, nowMs int64) {
	t.deadline = -1
	if s.active {
		t.deadline = nowMs + t.periodMs()
	}
	s.tasks = append(s.tasks, t)
}

// activate schedules every task one full period from now, as a newly active controller does.
func (s *scheduler) activate(nowMs int64) {
	s.active = true
	for _, t := range s.tasks {
		t.deadline = nowMs + t.periodMs()
	}
}

// deactivate cancels every task, as a controller that resigns does.
func (s *scheduler) deactivate() {
	s.active = false
	for _, t := range s.tasks {
		t.deadline = -1
	}
}

// next returns the earliest due task, or nil.
func (s *scheduler) next() *periodicTask {
	var best *periodicTask
	for _, t := range s.tasks {
		if t.deadline >= 0 && (best == nil || t.deadline < best.deadline) {
			best = t
		}
	}
	return best
}

// runTask runs a task at nowMs and reschedules it from the end of the run.
func (s *scheduler) runTask(t *periodicTask, nowMs int64) taskResult {
	res := t.run(nowMs)
	switch {
	case res.err != nil:
		t.deadline = nowMs + ErrorBackoffMs
	case res.moreWork && res.nextDelayMs > 0:
		t.deadline = nowMs + res.nextDelayMs
	case res.moreWork:
		t.deadline = nowMs + t.immediateMs()
	default:
		t.deadline = nowMs + t.periodMs()
	}
	if !s.active {
		t.deadline = -1
	}
	return res
}

func fixedImmediate() int64 { return DefaultImmediatePeriodMs }
