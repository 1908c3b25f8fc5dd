package bridge

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"

	"github.com/kraftlab/kraftlab/cluster"
	"github.com/kraftlab/kraftlab/engine/controller"
	"github.com/kraftlab/kraftlab/lessons"
)

// The run's history: the actions taken, with their cluster times. Time only moves forward in a
// cluster, so moving back means rebuilding: a fresh cluster from the run's spec, or a spare
// built earlier, is advanced to the wanted time with the same actions at the same times, which
// the simulation's determinism turns into the same state, byte for byte.
//
// Checkpoints: the cluster has no Clone, so the checkpoints are other built clusters of the
// same history (spares). Seeking back keeps the cluster it leaves as a spare (it is where a
// scrub forward again will want to be), and takes the latest spare at or before the target,
// or a fresh cluster. At most maxSpares are kept, fewer for large clusters and long runs
// (spareBudgetBytes).

const (
	// MaxActions bounds a run's history; a share link carries all of them.
	MaxActions = 10_000
	// MaxSeekMs is the latest cluster time sim.seek and sim.load go to (the scenario format's
	// limit, 7 days): replaying further would keep the worker busy for minutes.
	MaxSeekMs = 7 * 24 * 3600 * 1000
	// maxSpares bounds the checkpoints kept for a small cluster.
	maxSpares = 4
	// spareBudgetBytes bounds the estimated memory of all spares together (spareBytes): a
	// 100,000-partition cluster keeps one spare at most, the default cluster four in its first
	// two days, one after four and a half.
	spareBudgetBytes = 160 << 20
	// bytesPerReplica is a replica's memory in a built cluster (the scenario format's estimate).
	bytesPerReplica = 400
	// bytesPerLogHour bounds what an hour of cluster time adds to a built cluster: the
	// metadata log's entries (about 7,200 NoOpRecords an hour) and its commit checks, about
	// 650 KB, and room for their slices' growth (TestMemoryPerClusterHour holds it).
	bytesPerLogHour = 800 << 10
	// maxStepEventMs is how far "step to the next event" looks before giving up.
	maxStepEventMs = 3_600_000
	// stepEventMs is the resolution of "step to the next event": events are read this often.
	stepEventMs = 100
)

// action is one entry of the run's history.
type action struct {
	AtMs int64
	Ev   cluster.Event
	// Raw is the event in the scenario format (docs/scenario.md, cluster mode), with at_ms:
	// what export writes. Actions read from an imported scenario keep their text.
	Raw json.RawMessage
}

// runTo lets cluster time pass to t, applying the recorded actions due on the way at their
// times. A run stopped at an invariant violation does not move; the frame says why.
func (s *Session) runTo(t int64) {
	for s.c.Err() == nil && s.applied < len(s.hist) && s.hist[s.applied].AtMs <= t {
		a := s.hist[s.applied]
		if s.runClock(a.AtMs) != nil {
			break
		}
		s.applied++
		if _, err := s.apply(a); err != nil {
			// A recorded action the cluster refuses now (an imported scenario's, say) is
			// skipped, as kraftlab run does, and said so.
			s.log.add(LogEvent{TimeMs: a.AtMs, Kind: KindNotice, Text: fmt.Sprintf("the recorded %s at %s ms was refused: %v", a.Ev.Op, thousands(a.AtMs), err)})
		}
	}
	if s.c.Err() == nil && t > s.c.Now() {
		_ = s.runClock(t)
	}
	s.horizon = max(s.horizon, s.c.Now())
}

// runClock runs the cluster to time t: at once, or while a lesson watches for a moment
// (Session.watch) in steps of lessons.UntilPollMs, calling it after each.
func (s *Session) runClock(t int64) error {
	for s.watch != nil && s.c.Now() < t {
		if err := s.runUntil(min(t, s.c.Now()+lessons.UntilPollMs)); err != nil {
			return err
		}
		if !s.watch() {
			s.watch = nil
		}
	}
	return s.runUntil(t)
}

// runUntil runs the cluster to t, stopping at every multiple of retainEveryMs of cluster time
// on the way to read the committed log into the event log and let the cluster forget what
// neither needs any more (retain). Where a run stops changes nothing in it; the stops are at
// fixed cluster times, so that a run reads the same whichever steps it is played in.
func (s *Session) runUntil(t int64) error {
	if t < s.c.Now() {
		return s.c.RunUntil(t) // the cluster's own refusal: its clock is past t
	}
	for s.c.Err() == nil && s.c.Now() < t {
		next := min(t, (s.c.Now()/retainEveryMs+1)*retainEveryMs)
		if err := s.c.RunUntil(next); err != nil {
			return err
		}
		if next%retainEveryMs == 0 {
			s.retain()
		}
	}
	return s.c.Err()
}

// retainEveryMs is how often (in cluster time) a running cluster's committed log is read and
// trimmed: a few thousand entries of an idle cluster's NoOpRecords.
const retainEveryMs = 600_000

// retain has the event log read what the stream brought (so that its own buffer stays small),
// then drops the committed entries that no node may still commit and that no reader still
// needs: the frame's partition arrays' (which follow the log from the last frame) and the log
// strip's last offsets. The event log keeps the entries it tells from the stream, so it needs
// none of these. The metadata log itself (every node's, with its snapshots and retention) is
// untouched: this is the cluster's copy of what it committed, kept for the readers and for its
// own checks.
func (s *Session) retain() {
	s.log.read()
	ctl := s.c.Controllers()
	floor := ctl.CommittedEnd() - LogStripCells
	if st := &s.enc.parts; st.c == s.c {
		floor = min(floor, st.end)
	}
	ctl.TrimCommittedBelow(floor)
}

// record adds a just-applied action to the history. Recorded actions later than it are the
// future of another timeline: they go, and so do spares past its time. It returns how many
// actions went.
func (s *Session) record(a action) int {
	gone := len(s.hist) - s.applied
	s.hist = append(s.hist[:s.applied:s.applied], a)
	s.applied++
	if gone > 0 || s.horizon > a.AtMs {
		s.horizon = a.AtMs
	}
	s.spares = slices.DeleteFunc(s.spares, func(lv *live) bool { return lv.c.Now() > a.AtMs })
	s.version++
	return gone
}

// SeekRequest is the body of sim.seek.
type SeekRequest struct {
	// TimeMs is the cluster time to show, 0 to MaxSeekMs.
	TimeMs int64 `json:"timeMs"`
	Layout int   `json:"layout,omitempty"`
}

func (s *Session) seekMsg(body json.RawMessage) (any, error) {
	var req SeekRequest
	if err := s.decodeLive(body, &req); err != nil {
		return nil, err
	}
	if req.TimeMs < 0 || req.TimeMs > MaxSeekMs {
		return nil, BadRequest("timeMs: %d is not allowed; allowed: 0 to %s", req.TimeMs, thousands(MaxSeekMs))
	}
	if err := s.seek(req.TimeMs); err != nil {
		return nil, err
	}
	return s.buildFrame(req.Layout), nil
}

// seek shows the run at cluster time t. Forward, the cluster runs on (its events are the
// frame's, as with sim.advance); back, a checkpoint is advanced to t and the events it
// replays are dropped: the page keeps its log up to t, and those lines are the same. Lines
// no frame has carried yet are not in the page's log, though: a lesson's Show me plays its
// actions (lesson.play) and seeks back to the step's start, often before any frame, and the
// action at the start would never be told. Those at or before t go with the seek's frame;
// later ones come again as the run passes them.
func (s *Session) seek(t int64) error {
	if t >= s.c.Now() {
		s.runTo(t)
		return nil
	}
	unsent := s.log.setAside()
	from := -1
	for i, lv := range s.spares {
		if lv.c.Now() <= t && lv.c.Err() == nil && (from < 0 || lv.c.Now() > s.spares[from].c.Now()) {
			from = i
		}
	}
	var next *live
	if from >= 0 {
		next = s.spares[from]
		s.spares = slices.Delete(s.spares, from, from+1)
	} else {
		lv, err := s.build()
		if err != nil {
			return err
		}
		next = lv
	}
	s.live.traffic = nil
	s.keepSpare(s.live)
	s.live = next
	s.runTo(t)
	s.log.rewound(unsent, t)
	s.showTraffic()
	return nil
}

// keepSpare keeps a cluster as a checkpoint, dropping the oldest kept beyond the budget: at
// most maxSpares, and at most spareBudgetBytes of estimated memory in all (spareBytes).
func (s *Session) keepSpare(lv *live) {
	if lv == nil || lv.c.Err() != nil {
		return
	}
	s.spares = append(s.spares, lv)
	for len(s.spares) > maxSpares || (len(s.spares) > 0 && s.sparesBytes() > spareBudgetBytes) {
		s.spares = slices.Delete(s.spares, 0, 1)
	}
}

// sparesBytes is the estimated memory of every kept spare.
func (s *Session) sparesBytes() int64 {
	replicas := 0
	for _, t := range s.spec.Topics {
		replicas += max(t.PartitionCount*t.ReplicationFactor, len(t.Replicas)*3)
	}
	total := int64(0)
	for _, lv := range s.spares {
		total += spareBytes(replicas, lv.c.Now())
	}
	return total
}

// spareBytes estimates the memory a built cluster holds at cluster time nowMs: its partitions'
// replicas, and its metadata log, which grows with cluster time (an idle cluster commits two
// NoOpRecords a second) and which every node keeps for metadata.max.retention.ms (7 days).
func spareBytes(replicas int, nowMs int64) int64 {
	return int64(replicas)*bytesPerReplica + min(nowMs, MaxSeekMs)*bytesPerLogHour/3_600_000
}

// StepRequest is the body of sim.step.
type StepRequest struct {
	// To is "event" (until the event log has something new, at most an hour of cluster time)
	// or "run" (until the next electPreferred run has run).
	To     string `json:"to" ts:"StepTo"`
	Layout int    `json:"layout,omitempty"`
}

func (s *Session) step(body json.RawMessage) (any, error) {
	var req StepRequest
	if err := s.decodeLive(body, &req); err != nil {
		return nil, err
	}
	switch req.To {
	case "event":
		s.stepEvent()
	case "run":
		if err := s.stepRun(); err != nil {
			return nil, err
		}
	default:
		return nil, BadRequest(`to: %q is not allowed; allowed: "event", "run"`, req.To)
	}
	return s.buildFrame(req.Layout), nil
}

// stepEvent advances in small steps until the event log has a new line: the sentences come
// from committed records, runs and actions, which are read between steps.
func (s *Session) stepEvent() {
	s.log.read()
	if len(s.log.pending) > 0 {
		return
	}
	end := s.c.Now() + maxStepEventMs
	for s.c.Err() == nil && s.c.Now() < end {
		s.runTo(min(s.c.Now()+stepEventMs, end))
		s.log.read()
		if len(s.log.pending) > 0 {
			return
		}
	}
	s.log.add(LogEvent{TimeMs: s.c.Now(), Kind: KindNotice, Text: "nothing happened in the hour after; stepped an hour"})
}

// errNoRun answers "step to the next run" when none is scheduled.
var errNoRun = errors.New("no electPreferred run is scheduled: no controller is active, or auto.leader.rebalance.enable is false")

// stepRun advances until the active controller's next electPreferred run has run.
func (s *Session) stepRun() error {
	e := s.c.Controllers().ActiveController()
	if e == nil {
		return errNoRun
	}
	at, ok := e.TaskDeadline(controller.TaskElectPreferred)
	if !ok {
		return errNoRun
	}
	runs := len(s.c.BalancerRuns())
	s.runTo(max(s.c.Now(), at-s.t0))
	// The run happens at its deadline or a moment after (the event queue's order at one time);
	// look a little further, a millisecond at a time, rather than assume.
	for i := 0; i < 1000 && s.c.Err() == nil && len(s.c.BalancerRuns()) == runs; i++ {
		s.runTo(s.c.Now() + 1)
	}
	// The run's sentence is in the log once it has run, but the PartitionChangeRecords it wrote
	// commit a moment later, when a majority of the quorum has them; until then the canvas and
	// the table show the old leaders. Step on until they show the run's result.
	if rs := s.c.BalancerRuns(); len(rs) > runs {
		r := rs[len(rs)-1]
		for i := 0; i < maxCommitWaitMs && s.c.Err() == nil && !s.shows(r); i++ {
			s.runTo(s.c.Now() + 1)
		}
	}
	return nil
}

// maxCommitWaitMs bounds how long "step to the next run" waits for the run's records to commit
// (a quorum without a majority never commits them).
const maxCommitWaitMs = 30_000

// shows reports whether the committed view has every leader an electPreferred run chose.
func (s *Session) shows(r cluster.BalancerRun) bool {
	view := s.c.View()
	for i, tp := range r.Partitions {
		if i >= len(r.Leaders) {
			break
		}
		idx, ok := view.PartitionIndex(tp.Topic, tp.Partition)
		if ok && view.Partitions[idx].Leader != r.Leaders[i] {
			return false
		}
	}
	return true
}

// HistoryBody is the reply to sim.history and part of sim.export's: the actions on the
// timeline.
type HistoryBody struct {
	TimeMs    int64        `json:"timeMs"`
	HorizonMs int64        `json:"horizonMs"`
	Version   int          `json:"version"`
	Actions   []ActionMark `json:"actions"`
}

// ActionMark is one recorded action, for a mark on the timeline.
type ActionMark struct {
	TimeMs int64  `json:"timeMs"`
	Op     string `json:"op"`
	// Applied: the action is at or before the time shown (it has happened in this frame).
	Applied bool `json:"applied"`
}

func (s *Session) history() HistoryBody {
	h := HistoryBody{TimeMs: s.c.Now(), HorizonMs: max(s.horizon, s.c.Now()), Version: s.version, Actions: make([]ActionMark, len(s.hist))}
	for i, a := range s.hist {
		h.Actions[i] = ActionMark{TimeMs: a.AtMs, Op: a.Ev.Op, Applied: i < s.applied}
	}
	return h
}

func (s *Session) historyMsg(body json.RawMessage) (any, error) {
	if err := s.decodeLive(body, &struct{}{}); err != nil {
		return nil, err
	}
	return s.history(), nil
}

// sortActions orders imported actions by time, keeping the file's order at one time (as the
// scenario parser does).
func sortActions(hist []action) {
	sort.SliceStable(hist, func(i, j int) bool { return hist[i].AtMs < hist[j].AtMs })
}
