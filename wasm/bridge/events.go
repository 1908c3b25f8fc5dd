package bridge

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/kraftlab/kraftlab/cluster"
	"github.com/kraftlab/kraftlab/cluster/control"
	"github.com/kraftlab/kraftlab/engine/config"
	"github.com/kraftlab/kraftlab/engine/controller"
	"github.com/kraftlab/kraftlab/engine/metadata"
)

// LogEvent is one line of the event log: a sentence that says what happened and why, derived
// from the committed metadata log, the electPreferred runs and the page's own actions.
type LogEvent struct {
	// TimeMs is the cluster time: when the records were committed, the run ran or the action
	// was applied.
	TimeMs int64 `json:"timeMs"`
	// Kind groups events for styling: action, broker, partition, controller, balancer, config,
	// topic or stopped.
	Kind string `json:"kind" ts:"EventKind"`
	Text string `json:"text"`
	// Brokers are the brokers the event is about, for highlighting.
	Brokers []int32 `json:"brokers,omitempty"`
	// Partitions counts the partitions a grouped partition event covers.
	Partitions int `json:"partitions,omitempty"`
}

// Event kinds.
const (
	KindAction     = "action"
	KindBroker     = "broker"
	KindPartition  = "partition"
	KindController = "controller"
	KindBalancer   = "balancer"
	KindConfig     = "config"
	KindTopic      = "topic"
	KindStopped    = "stopped"
	// KindNotice is the log's own note, such as events left out of a crowded frame.
	KindNotice = "notice"
)

const (
	// maxFrameEvents caps one frame's events: at 10,000× a frame spans hours of cluster time.
	maxFrameEvents = 200
	// maxExamples is how many partitions a grouped partition event names.
	maxExamples = 3
)

// eventLog turns what happened in the cluster since the previous frame into sentences. What
// happened comes from the cluster's one stream of happenings (cluster.Observe, the stream the
// frames' traffic is drawn from): the records committed, the electPreferred runs and the
// controllers' session checks; the page's actions and a restarted broker's catch-up are added
// beside them. It keeps the little per-partition state the sentences compare against (leader,
// ISR and ELR as masks over replica positions), advanced record by record, because the
// committed image only shows the latest state.
type eventLog struct {
	s       *live
	pending []LogEvent

	// What the stream brought since the last read, in its order: committed entries, the
	// numbers of the electPreferred runs (from 1) and the session checks that found a broker
	// silent.
	committed []control.CommittedEntry
	runs      []int
	checks    []sessionCheck

	leader []int32
	isr    []uint8
	elr    []uint8

	fenced, shutdown map[int32]bool
	// shutdownAsked: the page asked for a controlled shutdown since the broker last started.
	shutdownAsked map[int32]bool
	// heartbeat: the broker's last heartbeat before the page killed it (cluster time), when the
	// active controller knew it.
	heartbeat map[int32]int64
	// electedBy: partitions an electPreferred run elected whose records are not read yet, and
	// the leader chosen; the run's own sentence covers them.
	electedBy map[int32]int32
	// noted: per broker, the sequence number of the last catch-up note told (readCatchUp).
	noted   map[int32]int
	stopped bool
}

// sessionCheck is a controller's session check that found a broker silent (it writes the fence).
type sessionCheck struct {
	atMs, silentMs     int64
	controller, broker int32
}

func newEventLog(s *live) *eventLog {
	l := &eventLog{s: s, fenced: map[int32]bool{}, shutdown: map[int32]bool{},
		shutdownAsked: map[int32]bool{}, heartbeat: map[int32]int64{}, electedBy: map[int32]int32{}, noted: map[int32]int{}}
	view := s.c.View()
	for i := range view.Partitions {
		l.track(&view.Partitions[i])
	}
	for _, id := range view.BrokerIDs() {
		if b := view.Broker(id); b != nil {
			l.fenced[id], l.shutdown[id] = b.Fenced, b.InControlledShutdown
		}
	}
	for _, b := range s.c.BrokerIDs() { // catch-ups that began before this log are not told
		if note, ok := s.c.Fleet().CatchUpBegan(b); ok {
			l.noted[b] = note.Seq
		}
	}
	return l
}

// track appends a partition's state (its index is the next one).
func (l *eventLog) track(p *metadata.Partition) {
	reps := p.Replicas()
	l.leader = append(l.leader, p.Leader)
	l.isr = append(l.isr, mask(reps, p.Isr()))
	l.elr = append(l.elr, mask(reps, p.Elr()))
}

// observe takes one happening of the cluster's stream: what the log tells is read from it at
// the next read (so the view the sentences look up is the one at that moment, as before).
func (l *eventLog) observe(h *cluster.Happening) {
	switch h.Kind {
	case cluster.Committed:
		// Only the records a sentence is made from: a quiet cluster commits a NoOpRecord every
		// metadata.max.idle.interval.ms, and a long replay must not hold them all.
		switch h.Entry.Record.(type) {
		case *metadata.PartitionChangeRecord, *metadata.PartitionRecord, *metadata.BrokerRegistrationChangeRecord,
			*metadata.RegisterBrokerRecord, *metadata.LeaderChangeMessage, *metadata.ConfigRecord, *metadata.TopicRecord,
			*metadata.RemoveTopicRecord, *metadata.ClearElrRecord, *metadata.FeatureLevelRecord:
			l.committed = append(l.committed, h.Entry)
		}
	case cluster.Decided:
		switch h.Decision {
		case cluster.DecisionBalancerRun:
			l.runs = append(l.runs, h.Run)
		case cluster.DecisionSessionExpired:
			if len(h.Brokers) > 0 {
				l.checks = append(l.checks, sessionCheck{atMs: h.AtMs, silentMs: h.SilentMs, controller: h.From, broker: h.Brokers[0]})
			}
		}
	}
}

// add queues an event for the next frame.
func (l *eventLog) add(ev LogEvent) { l.pending = append(l.pending, ev) }

// take reads everything new and returns the events since the previous call, oldest first,
// with how many were left out over the cap.
func (l *eventLog) take() ([]LogEvent, int) {
	l.read()
	if err := l.s.c.Err(); err != nil && !l.stopped {
		l.stopped = true
		l.add(LogEvent{TimeMs: l.s.c.Now(), Kind: KindStopped, Text: "the run stopped: " + err.Error()})
	}
	return l.drain()
}

// setAside reads everything new from the cluster a rewind leaves (Session.seek back,
// lesson.undo) and takes the lines no frame has carried yet: the page's log lacks them, and
// the rewound run still has those from before its moment (rewound puts them back).
func (l *eventLog) setAside() []LogEvent {
	l.read()
	evs := l.pending
	l.pending = nil
	return evs
}

// rewound ends a rewind: it reads and drops the events of the replay to the rewind's moment,
// which the page's log has already, and queues again the lines set aside (setAside) up to
// lastMs, for the next frame.
func (l *eventLog) rewound(aside []LogEvent, lastMs int64) {
	l.take()
	for _, ev := range aside {
		if ev.TimeMs <= lastMs {
			l.add(ev)
		}
	}
}

// read reads the session checks, the electPreferred runs, then the committed records. The
// checks first: each writes a fence that commits later. Runs before records: a run's
// PartitionChangeRecords commit a moment after it runs, often within the same frame, and the
// run's own sentence tells them (electedBy), which it can only do once the run is read. Then a
// restarted broker's catch-up, once it has begun (readCatchUp).
func (l *eventLog) read() {
	l.readChecks()
	l.readRuns()
	l.readRecords()
	l.readCatchUp()
}

// keepLatest reads everything new and keeps only the latest events a frame can carry, with a
// note of how many earlier ones were left out: after a replay (a share link, an import) the
// moments just before the time shown matter most.
func (l *eventLog) keepLatest() {
	l.read()
	sort.SliceStable(l.pending, func(i, j int) bool { return l.pending[i].TimeMs < l.pending[j].TimeMs })
	if n := len(l.pending); n > maxFrameEvents {
		left := n - (maxFrameEvents - 1)
		kept := append([]LogEvent{{TimeMs: l.pending[left].TimeMs, Kind: KindNotice,
			Text: fmt.Sprintf("%s earlier events of the replay are left out", thousands(int64(left)))}}, l.pending[left:]...)
		l.pending = kept
	}
}

// drain returns the pending events in time order, capped at maxFrameEvents.
func (l *eventLog) drain() ([]LogEvent, int) {
	evs := l.pending
	l.pending = nil
	// Actions, records and runs are read separately; a stable sort keeps each source's order.
	sort.SliceStable(evs, func(i, j int) bool { return evs[i].TimeMs < evs[j].TimeMs })
	dropped := 0
	if len(evs) > maxFrameEvents {
		dropped = len(evs) - maxFrameEvents + 1
		last := evs[len(evs)-1].TimeMs
		evs = append(evs[:maxFrameEvents-1], LogEvent{TimeMs: last, Kind: KindNotice,
			Text: fmt.Sprintf("%s more events in this frame were left out; slow down to see them all", thousands(int64(dropped)))})
	}
	if evs == nil {
		evs = []LogEvent{}
	}
	return evs, dropped
}

func (l *eventLog) now(ce control.CommittedEntry) int64 { return ce.CommitMs - l.s.t0 }

// readRecords turns the records committed since the last read into events, a commit instant
// at a time: the records of one controller write (a broker fenced and its partitions' changes)
// commit together, and the sentences about the partitions need to know about the broker.
func (l *eventLog) readRecords() {
	ces := l.committed
	for len(ces) > 0 {
		n := 1
		for n < len(ces) && ces[n].CommitMs == ces[0].CommitMs {
			n++
		}
		l.readGroup(ces[:n])
		ces = ces[n:]
	}
	clear(l.committed) // the records are the log's; the slice is reused
	l.committed = l.committed[:0]
}

// readChecks tells the session checks that found a broker silent: the cause of the fence the
// log tells when it commits, a round of fetches later.
func (l *eventLog) readChecks() {
	for _, c := range l.checks {
		l.add(LogEvent{TimeMs: c.atMs, Kind: KindBroker, Brokers: []int32{c.broker}, Text: fmt.Sprintf(
			"controller %d's session check: broker %d sent no heartbeat for %s ms, more than broker.session.timeout.ms (%s ms), so the controller writes its fence",
			c.controller, c.broker, thousands(c.silentMs), thousands(l.s.sessionTimeoutMs()))})
	}
	l.checks = l.checks[:0]
}

// group collects partition events of one kind, for one sentence.
type group struct {
	key        string
	kind       string
	brokers    []int32
	partitions []string
	single     func(partition string) string
	plural     func(n int, examples string) string
}

func (l *eventLog) readGroup(ces []control.CommittedEntry) {
	at := l.now(ces[0])
	first := len(l.pending)
	defer l.causesFirst(first)
	// What happens to brokers in this write explains what happens to their partitions.
	fencedNow, shutdownNow, reregistered := map[int32]bool{}, map[int32]bool{}, map[int32]bool{}
	for _, ce := range ces {
		switch r := ce.Record.(type) {
		case *metadata.BrokerRegistrationChangeRecord:
			if r.Fenced == metadata.FenceFence {
				fencedNow[r.BrokerID] = true
			}
			if r.InControlledShutdown == 1 {
				shutdownNow[r.BrokerID] = true
			}
		case *metadata.RegisterBrokerRecord:
			reregistered[r.BrokerID] = true
		}
	}
	var groups []*group
	byKey := map[string]*group{}
	addTo := func(key, name string, brokers []int32, single func(string) string, plural func(int, string) string) {
		g := byKey[key]
		if g == nil {
			g = &group{key: key, kind: KindPartition, brokers: brokers, single: single, plural: plural}
			byKey[key] = g
			groups = append(groups, g)
		}
		g.partitions = append(g.partitions, name)
	}
	// why explains a broker leaving a partition's ISR or leadership.
	why := func(b int32) (key, text string) {
		switch {
		case fencedNow[b] && (l.shutdown[b] || l.shutdownAsked[b]):
			return "shutdown", fmt.Sprintf("broker %d finished its controlled shutdown", b)
		case fencedNow[b] || l.fenced[b]:
			return "fenced", fmt.Sprintf("broker %d was fenced", b)
		case shutdownNow[b] || l.shutdown[b]:
			return "shutdown", fmt.Sprintf("broker %d is in controlled shutdown", b)
		case reregistered[b]:
			return "unclean", fmt.Sprintf("broker %d restarted without a clean shutdown, so its log may miss acknowledged records", b)
		}
		return "", ""
	}

	for _, ce := range ces {
		switch r := ce.Record.(type) {
		case *metadata.PartitionChangeRecord:
			l.partitionChange(r, why, addTo)
		case *metadata.PartitionRecord:
			view := l.s.c.View()
			if idx, ok := view.PartitionIndex(r.Topic, r.PartitionID); ok && int(idx) == len(l.leader) {
				l.track(&view.Partitions[idx])
			}
		case *metadata.BrokerRegistrationChangeRecord:
			l.flush(at, &groups, byKey)
			l.brokerChange(at, r)
		case *metadata.RegisterBrokerRecord:
			l.flush(at, &groups, byKey)
			l.fenced[r.BrokerID], l.shutdown[r.BrokerID] = r.Fenced, r.InControlledShutdown
			if r.Fenced {
				l.add(LogEvent{TimeMs: at, Kind: KindBroker, Brokers: []int32{r.BrokerID}, Text: fmt.Sprintf(
					"broker %d registered (broker epoch %s): fenced until it catches up with the metadata log", r.BrokerID, thousands(r.BrokerEpoch))})
			}
		case *metadata.LeaderChangeMessage:
			text := fmt.Sprintf("controller %d leads the metadata quorum in epoch %d", r.LeaderID, r.Epoch)
			if len(r.GrantingVoters) > 0 {
				text += ", elected by " + idList("controller", r.GrantingVoters)
			}
			l.add(LogEvent{TimeMs: at, Kind: KindController, Text: text})
		case *metadata.ConfigRecord:
			l.add(LogEvent{TimeMs: at, Kind: KindConfig, Text: configSentence(r)})
		case *metadata.TopicRecord:
			l.add(LogEvent{TimeMs: at, Kind: KindTopic, Text: fmt.Sprintf("topic %s created", r.Name)})
		case *metadata.RemoveTopicRecord:
			l.add(LogEvent{TimeMs: at, Kind: KindTopic, Text: fmt.Sprintf("topic %s deleted", r.Topic)})
		case *metadata.ClearElrRecord:
			l.clearElr(r.Topic)
			scope := "every topic"
			if r.Topic != "" {
				scope = "topic " + r.Topic
			}
			l.add(LogEvent{TimeMs: at, Kind: KindConfig, Text: fmt.Sprintf(
				"ELR cleared for %s: min.insync.replicas changed, so the old eligible leaders no longer qualify", scope)})
		case *metadata.FeatureLevelRecord:
			l.add(LogEvent{TimeMs: at, Kind: KindConfig, Text: fmt.Sprintf("feature %s set to level %d", r.Name, r.FeatureLevel)})
		}
	}
	l.flush(at, &groups, byKey)
}

// causesFirst moves the broker sentences among the events queued since first ahead of the
// others. Kafka writes a fenced broker's partition changes before the record that fences it
// (ReplicationControlManager.handleBrokerFenced adds the BrokerRegistrationChangeRecord after
// generateLeaderAndIsrUpdates), and a controlled shutdown's likewise; read in record order, the
// log would say "left the ISR because it was fenced" above "broker 1 fenced". The broker's
// change is the cause, so at one commit instant it is told first.
func (l *eventLog) causesFirst(first int) {
	// sort.SliceStable, as drain's sort: slices.SortStableFunc would compile the stable sort
	// again for LogEvent, about 10 KB of the wasm, for the few events of one commit instant.
	evs := l.pending[first:]
	sort.SliceStable(evs, func(i, j int) bool { return evs[i].Kind == KindBroker && evs[j].Kind != KindBroker })
}

// flush turns the collected partition groups into sentences.
func (l *eventLog) flush(at int64, groups *[]*group, byKey map[string]*group) {
	for _, g := range *groups {
		ev := LogEvent{TimeMs: at, Kind: g.kind, Brokers: g.brokers, Partitions: len(g.partitions)}
		if len(g.partitions) == 1 {
			ev.Text = g.single(g.partitions[0])
		} else {
			ev.Text = g.plural(len(g.partitions), examples(g.partitions))
		}
		l.add(ev)
		delete(byKey, g.key)
	}
	*groups = (*groups)[:0]
}

// examples names the first few partitions of a group: "payments-0, payments-3 and 9 more".
func examples(names []string) string {
	if len(names) <= maxExamples {
		return joinList(names)
	}
	return strings.Join(names[:maxExamples], ", ") + " and " + thousands(int64(len(names)-maxExamples)) + " more"
}

func (l *eventLog) partitionChange(r *metadata.PartitionChangeRecord, why func(int32) (string, string),
	addTo func(string, string, []int32, func(string) string, func(int, string) string)) {
	view := l.s.c.View()
	idx, ok := view.PartitionIndex(r.Topic, r.PartitionID)
	if !ok || int(idx) >= len(l.leader) {
		return
	}
	reps := view.Partitions[idx].Replicas()
	name := r.Topic + "-" + strconv.Itoa(int(r.PartitionID))

	// The ISR and ELR first: a leader moves because its broker left the ISR.
	if r.Isr != nil {
		before, after := l.isr[idx], mask(reps, r.Isr)
		for k, b := range reps {
			bit := uint8(1) << k
			switch {
			case before&bit != 0 && after&bit == 0:
				key, reason := why(b)
				if key == "" {
					key, reason = "lag", fmt.Sprintf("it fell more than replica.lag.time.max.ms (%s ms) behind the leader",
						thousands(l.s.c.Fleet().Params().ReplicaLagTimeMaxMs))
				}
				b := b
				addTo(fmt.Sprintf("isr-leave/%d/%s", b, key), name, []int32{b},
					func(p string) string {
						return fmt.Sprintf("%s: broker %d left the ISR because %s", p, b, pronoun(reason, b))
					},
					func(n int, ex string) string {
						return fmt.Sprintf("broker %d left the ISR of %s partitions because %s: %s", b, thousands(int64(n)), pronoun(reason, b), ex)
					})
			case before&bit == 0 && after&bit != 0:
				b := b
				addTo(fmt.Sprintf("isr-join/%d", b), name, []int32{b},
					func(p string) string {
						return fmt.Sprintf("%s: broker %d rejoined the ISR: its log reached the leader's high watermark", p, b)
					},
					func(n int, ex string) string {
						return fmt.Sprintf("broker %d rejoined the ISR of %s partitions: its logs reached their leaders' high watermarks: %s", b, thousands(int64(n)), ex)
					})
			}
		}
		l.isr[idx] = after
	}
	if r.Elr != nil {
		before, after := l.elr[idx], mask(reps, r.Elr)
		for k, b := range reps {
			bit := uint8(1) << k
			b := b
			switch {
			case before&bit == 0 && after&bit != 0:
				addTo(fmt.Sprintf("elr-join/%d", b), name, []int32{b},
					func(p string) string {
						return fmt.Sprintf("%s: broker %d joined the ELR: it left the ISR with every committed record, so it may still lead", p, b)
					},
					func(n int, ex string) string {
						return fmt.Sprintf("broker %d joined the ELR of %s partitions: it left their ISR with every committed record, so it may still lead: %s", b, thousands(int64(n)), ex)
					})
			case before&bit != 0 && after&bit == 0:
				addTo(fmt.Sprintf("elr-leave/%d", b), name, []int32{b},
					func(p string) string { return fmt.Sprintf("%s: broker %d left the ELR", p, b) },
					func(n int, ex string) string {
						return fmt.Sprintf("broker %d left the ELR of %s partitions: %s", b, thousands(int64(n)), ex)
					})
			}
		}
		l.elr[idx] = after
	}
	if r.Leader == metadata.NoLeaderChange {
		return
	}
	from, to := l.leader[idx], r.Leader
	l.leader[idx] = to
	if chosen, ok := l.electedBy[idx]; ok {
		delete(l.electedBy, idx)
		if chosen == to {
			return // the electPreferred run's sentence tells this one
		}
	}
	unclean := r.LeaderRecoveryState == metadata.Recovering
	switch {
	case to < 0:
		reason := "no in-sync replica is left to lead it"
		key := "offline"
		if from >= 0 {
			if k, why := why(from); k != "" {
				key, reason = k, why+" and no other in-sync replica can lead"
			}
		}
		addTo("leaderless/"+key, name, nil,
			func(p string) string { return fmt.Sprintf("%s has no leader and is offline: %s", p, reason) },
			func(n int, ex string) string {
				return fmt.Sprintf("%s partitions have no leader and are offline: %s: %s", thousands(int64(n)), reason, ex)
			})
	case unclean:
		addTo(fmt.Sprintf("unclean/%d", to), name, []int32{to},
			func(p string) string {
				return fmt.Sprintf("%s: broker %d elected leader uncleanly (unclean.leader.election.enable): acknowledged records may be lost", p, to)
			},
			func(n int, ex string) string {
				return fmt.Sprintf("broker %d elected leader of %s partitions uncleanly (unclean.leader.election.enable): acknowledged records may be lost: %s", to, thousands(int64(n)), ex)
			})
	case from < 0:
		addTo(fmt.Sprintf("online/%d", to), name, []int32{to},
			func(p string) string {
				return fmt.Sprintf("%s: broker %d elected leader; the partition is online again", p, to)
			},
			func(n int, ex string) string {
				return fmt.Sprintf("broker %d elected leader of %s offline partitions; they are online again: %s", to, thousands(int64(n)), ex)
			})
	default:
		key, reason := why(from)
		suffix := ""
		if reason != "" {
			suffix = " because " + reason
		} else if len(reps) > 0 && to == reps[0] {
			key, suffix = "preferred", fmt.Sprintf(": broker %d is the preferred replica", to)
		}
		addTo(fmt.Sprintf("leader/%d/%d/%s", from, to, key), name, []int32{from, to},
			func(p string) string {
				return fmt.Sprintf("%s: leader moved from broker %d to broker %d%s", p, from, to, suffix)
			},
			func(n int, ex string) string {
				return fmt.Sprintf("leadership of %s partitions moved from broker %d to broker %d%s: %s", thousands(int64(n)), from, to, suffix, ex)
			})
	}
}

// pronoun rewrites "broker 4 was fenced" as "it was fenced" inside a sentence already about
// broker 4.
func pronoun(reason string, b int32) string {
	return strings.Replace(reason, fmt.Sprintf("broker %d ", b), "it ", 1)
}

func (l *eventLog) clearElr(topic string) {
	view := l.s.c.View()
	for i := range l.elr {
		if topic == "" || view.TopicName(&view.Partitions[i]) == topic {
			l.elr[i] = 0
		}
	}
}

func (l *eventLog) brokerChange(at int64, r *metadata.BrokerRegistrationChangeRecord) {
	b := r.BrokerID
	ev := LogEvent{TimeMs: at, Kind: KindBroker, Brokers: []int32{b}}
	switch r.Fenced {
	case metadata.FenceFence:
		timeout := l.s.sessionTimeoutMs()
		switch hb, killed := l.heartbeat[b]; {
		case l.shutdown[b] || l.shutdownAsked[b]:
			ev.Text = fmt.Sprintf("broker %d fenced: its controlled shutdown is complete and it stops", b)
		case killed:
			ev.Text = fmt.Sprintf("broker %d fenced: no heartbeat for %s ms (broker.session.timeout.ms is %s ms)",
				b, thousands(at-hb), thousands(timeout))
		default:
			ev.Text = fmt.Sprintf("broker %d fenced: no heartbeat within broker.session.timeout.ms (%s ms)", b, thousands(timeout))
		}
		l.fenced[b], l.shutdown[b] = true, false
		delete(l.heartbeat, b)
	case metadata.FenceUnfence:
		ev.Text = fmt.Sprintf("broker %d unfenced: it caught up with the metadata log and finished recovering its logs, so it may lead again", b)
		l.fenced[b] = false
	}
	if r.InControlledShutdown == 1 {
		text := fmt.Sprintf("broker %d is in controlled shutdown: the controller moves its leaderships to other in-sync replicas before it stops", b)
		if ev.Text != "" {
			ev.Text += "; " + text
		} else {
			ev.Text = text
		}
		l.shutdown[b] = true
	}
	if r.LogDirs != nil {
		text := fmt.Sprintf("broker %d now has %d online log directories", b, len(r.LogDirs))
		if ev.Text != "" {
			ev.Text += "; " + text
		} else {
			ev.Text = text
		}
	}
	if ev.Text != "" {
		l.add(ev)
	}
}

func configSentence(r *metadata.ConfigRecord) string {
	scope := "the cluster"
	if r.ResourceType == metadata.ResourceTopic {
		scope = "topic " + r.ResourceName
	}
	if r.Value == nil {
		return fmt.Sprintf("%s override removed for %s: the static value or the default applies again", r.Name, scope)
	}
	return fmt.Sprintf("%s is now %s for %s (a ConfigRecord in the metadata log)", r.Name, *r.Value, scope)
}

// readRuns turns the electPreferred runs since the last read into sentences.
func (l *eventLog) readRuns() {
	runs := l.s.c.BalancerRuns()
	for _, n := range l.runs {
		if n < 1 || n > len(runs) {
			continue
		}
		r := runs[n-1]
		l.add(LogEvent{TimeMs: r.TimeMs, Kind: KindBalancer, Text: runSentence(r), Partitions: len(r.Elected),
			Brokers: slices.Clone(r.GatedBrokers)})
		for i, p := range r.Elected {
			if i < len(r.Leaders) {
				l.electedBy[p] = r.Leaders[i]
			}
		}
	}
	l.runs = l.runs[:0]
}

func runSentence(r cluster.BalancerRun) string {
	var b strings.Builder
	if len(r.Elected) == 0 && len(r.GatedBrokers) > 0 {
		b.WriteString("electPreferred elected no partition")
	} else if len(r.Elected) == 0 {
		b.WriteString("electPreferred found no partition to hand back to its preferred leader")
	} else {
		per := map[int32]int{}
		var order []int32
		for _, id := range r.Leaders {
			if per[id] == 0 {
				order = append(order, id)
			}
			per[id]++
		}
		slices.Sort(order)
		parts := make([]string, len(order))
		for i, id := range order {
			parts[i] = fmt.Sprintf("%s to broker %d", thousands(int64(per[id])), id)
		}
		fmt.Fprintf(&b, "electPreferred elected %s (%s)", plural(len(r.Elected), "partition", "partitions"), joinList(parts))
	}
	// Each gate line says which rule holds the broker and what releases it
	// (engine/balance, Balancer.evaluate).
	for _, oc := range r.OutOfSync {
		if oc.Over {
			fmt.Fprintf(&b, "; wait-for-sync held back broker %d: %s of its preferred partitions are out of sync, over "+
				"leader.imbalance.election.wait.for.sync.threshold.percent; it is released after two consecutive runs "+
				"within the threshold, or by the escape hatch once wait.for.sync.max.wait.ms has passed",
				oc.Broker, thousands(int64(oc.Count)))
		} else {
			fmt.Fprintf(&b, "; wait-for-sync held back broker %d for one more run: %s out of sync is within the threshold, "+
				"and the gate opens at the second consecutive run within it", oc.Broker, thousands(int64(oc.Count)))
		}
	}
	if len(r.OutOfSync) == 0 {
		for _, g := range r.GatedBrokers {
			fmt.Fprintf(&b, "; wait-for-sync held back broker %d", g)
		}
	}
	for _, e := range r.EscapeHatchBrokers {
		fmt.Fprintf(&b, "; the escape hatch released broker %d (wait.for.sync.max.wait.ms passed)", e)
	}
	if r.DeferredByCap > 0 {
		fmt.Fprintf(&b, "; the cap (max.per.run %s) left %s for the next run", thousands(int64(r.MaxPerRun)), thousands(int64(r.DeferredByCap)))
	}
	if r.NextRunMs >= 0 {
		fmt.Fprintf(&b, "; next run in %s", duration(r.NextRunMs-r.TimeMs))
	} else {
		b.WriteString("; no next run is scheduled")
	}
	return b.String()
}

// action records what the page asked for, with what it sets in motion.
func (l *eventLog) action(req ActRequest, ev cluster.Event, out ActBody, activeBefore int32) {
	e := LogEvent{TimeMs: out.TimeMs, Kind: KindAction}
	b := ev.Broker
	switch ev.Op {
	case cluster.OpKill:
		e.Brokers = []int32{b}
		e.Text = fmt.Sprintf("you killed broker %d (as kill -9): it stops heartbeating and writes no clean-shutdown file", b)
		if out.LastHeartbeatMs != nil && *out.LastHeartbeatMs >= 0 {
			e.Text += fmt.Sprintf("; its last heartbeat reached the controller at %s ms", thousands(*out.LastHeartbeatMs))
		}
		delete(l.heartbeat, b)
		if out.LastHeartbeatMs != nil {
			l.heartbeat[b] = *out.LastHeartbeatMs
		}
		delete(l.shutdownAsked, b)
	case cluster.OpStart:
		e.Brokers = []int32{b}
		e.Text = fmt.Sprintf("you started broker %d: it registers, catches up with the metadata log and recovers its logs before it is unfenced", b)
		delete(l.shutdownAsked, b)
		delete(l.heartbeat, b)
	case cluster.OpShutdown:
		e.Brokers = []int32{b}
		e.Text = fmt.Sprintf("you asked broker %d for a controlled shutdown", b)
		l.shutdownAsked[b] = true
	case cluster.OpDiskSwap:
		e.Brokers = []int32{b}
		e.Text = fmt.Sprintf("you replaced broker %d's disk: its next start has empty logs and no clean-shutdown file", b)
	case cluster.OpKillController:
		id := req.Controller
		if id == "active" || id == "" {
			id = strconv.Itoa(int(activeBefore))
		}
		e.Text = fmt.Sprintf("you killed controller %s", id)
		if id == strconv.Itoa(int(activeBefore)) {
			e.Text += ", the active controller: the other voters elect a new leader once their fetches time out"
		}
	case cluster.OpStartController:
		e.Text = fmt.Sprintf("you started controller %s: it reloads its snapshot and log, then follows the leader", req.Controller)
	case cluster.OpSetConfig:
		scope := "the cluster"
		if ev.Topic != "" {
			scope = "topic " + ev.Topic
		}
		if ev.Value == nil {
			e.Text = fmt.Sprintf("you removed the %s override for %s", ev.Name, scope)
		} else {
			e.Text = fmt.Sprintf("you set %s to %s for %s", ev.Name, valueText(normalize(ev.Name, ev.Value)), scope)
		}
	case cluster.OpSlowDisk:
		e.Brokers = []int32{b}
		if ev.Factor >= 1 {
			e.Text = fmt.Sprintf("you restored broker %d's disk to full speed", b)
		} else {
			e.Text = fmt.Sprintf("you slowed broker %d's disk to %s %% of its capacity: its appends and catch-up slow down, and so may the acks=all produce latency", b, strconv.FormatFloat(math.Round(ev.Factor*10000)/100, 'f', -1, 64))
		}
	case cluster.OpCut, cluster.OpHeal:
		for _, n := range []string{ev.A, ev.B} {
			if id, ok := strings.CutPrefix(n, "broker-"); ok {
				if x, err := strconv.Atoi(id); err == nil {
					e.Brokers = append(e.Brokers, int32(x))
				}
			}
		}
		if ev.Op == cluster.OpCut {
			e.Text = fmt.Sprintf("you cut the network between %s and %s: requests between them time out", ev.A, ev.B)
		} else {
			e.Text = fmt.Sprintf("you healed the network between %s and %s", ev.A, ev.B)
		}
	case cluster.OpCreateTopic:
		t := ev.TopicSpec
		e.Kind = KindAction
		e.Text = fmt.Sprintf("you created topic %s with %s at replication factor %d (like kafka-topics.sh --create)", t.Name, plural(topicPartitions(t), "partition", "partitions"), t.ReplicationFactor)
	case cluster.OpDeleteTopic:
		e.Text = fmt.Sprintf("you deleted topic %s (like kafka-topics.sh --delete)", ev.Name)
	case cluster.OpElectLeaders:
		e.Text = electionSentence(ev, out.Elections)
	case cluster.OpSnapshot:
		id := req.Controller
		if id == "active" || id == "" {
			id = strconv.Itoa(int(activeBefore))
		}
		e.Text = fmt.Sprintf("you asked controller %s for a metadata snapshot", id)
		if n, err := strconv.Atoi(id); err == nil {
			if nv, err := l.s.c.Controllers().Node(int32(n)); err == nil && nv.HasSnapshot {
				e.Text += fmt.Sprintf(": it covers offsets below %s, so its log can be trimmed there, and a node that far behind loads it with FetchSnapshot",
					thousands(nv.Snapshot.EndOffset))
			}
		}
	case cluster.OpDescribe, cluster.OpRollingRestart:
		e.Text = fmt.Sprintf("the scenario's %s event", ev.Op)
	}
	l.add(e)
}

// normalize parses a config value for display ("2" and 2 both read 2).
func normalize(name string, v any) any {
	if d, ok := config.Lookup(name); ok {
		if pv, err := d.Parse(v); err == nil {
			return pv
		}
	}
	return v
}

// thousands formats n with comma separators, as the page's English text does: 9,875.
func thousands(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	if neg {
		s = s[1:]
	}
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	if neg {
		s = "-" + s
	}
	return s
}

// readCatchUp tells, once per restart, how long a broker's catch-up will take as it begins:
// the backlog shrinks only by the fetch rate less the produce still arriving at those
// partitions, so a broker that fetches 56 MB/s of a partition taking 50 MB/s needs minutes per
// gigabyte however fast it looks. A learner otherwise sees a long catch-up and no reason. The
// fleet records the figures when the catch-up begins (broker.Fleet.CatchUpBegan), so the
// sentence and its time do not depend on when frames are read.
func (l *eventLog) readCatchUp() {
	f := l.s.c.Fleet()
	for _, b := range l.s.c.BrokerIDs() {
		note, ok := f.CatchUpBegan(b)
		if !ok || note.Seq <= l.noted[b] {
			continue
		}
		l.noted[b] = note.Seq
		if note.Partitions == 0 {
			continue
		}
		text := fmt.Sprintf("broker %d is catching up %s: %s behind their leaders; it fetches %s while they take %s of new produce",
			b, plural(note.Partitions, "partition", "partitions"), sizeText(note.BacklogBytes), rateText(note.FetchBytesPerSec), rateText(note.InflowBytesPerSec))
		if gain := note.FetchBytesPerSec - note.InflowBytesPerSec; gain > 0 {
			text += fmt.Sprintf(", so the backlog shrinks by only %s: about %s at this rate", rateText(gain), spanText(note.BacklogBytes/gain))
		} else {
			text += ", so the backlog does not shrink at this rate"
		}
		l.add(LogEvent{TimeMs: note.AtMs - l.s.t0, Kind: KindBroker, Brokers: []int32{b}, Text: text})
	}
}

// sizeText writes bytes in decimal units: "850 MB", "8.3 GB".
func sizeText(b float64) string {
	switch {
	case b >= 1e12:
		return strconv.FormatFloat(b/1e12, 'f', 1, 64) + " TB"
	case b >= 1e9:
		return strconv.FormatFloat(b/1e9, 'f', 1, 64) + " GB"
	case b >= 1e6:
		return strconv.FormatFloat(b/1e6, 'f', 0, 64) + " MB"
	}
	return strconv.FormatFloat(b/1e3, 'f', 0, 64) + " kB"
}

// rateText writes bytes per second: "56.2 MB/s".
func rateText(bps float64) string {
	if bps >= 1e6 {
		return strconv.FormatFloat(bps/1e6, 'f', 1, 64) + " MB/s"
	}
	return strconv.FormatFloat(bps/1e3, 'f', 0, 64) + " kB/s"
}

// spanText writes an estimated span of seconds, rounded: "40 s", "21 min", "2.5 h".
func spanText(sec float64) string {
	switch {
	case sec < 90:
		return strconv.FormatFloat(math.Ceil(sec), 'f', 0, 64) + " s"
	case sec < 5400:
		return strconv.FormatFloat(math.Round(sec/60), 'f', 0, 64) + " min"
	}
	return strconv.FormatFloat(sec/3600, 'f', 1, 64) + " h"
}

// duration formats a span of cluster time: "10 ms", "9,875 ms", "300 s", "12.5 s".
func duration(ms int64) string {
	if ms < 10_000 {
		return thousands(ms) + " ms"
	}
	if ms%1000 == 0 {
		return thousands(ms/1000) + " s"
	}
	return strconv.FormatFloat(float64(ms)/1000, 'f', -1, 64) + " s"
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return thousands(int64(n)) + " " + many
}

// joinList joins words as English does: "a", "a and b", "a, b and c".
func joinList(words []string) string {
	switch len(words) {
	case 0:
		return ""
	case 1:
		return words[0]
	}
	return strings.Join(words[:len(words)-1], ", ") + " and " + words[len(words)-1]
}

func idList(what string, ids []int32) string {
	parts := make([]string, len(ids))
	for i, id := range ids {
		parts[i] = strconv.Itoa(int(id))
	}
	if len(ids) == 1 {
		return what + " " + parts[0]
	}
	return what + "s " + joinList(parts)
}

// electionSentence words elect_leaders' answer as kafka-leader-election.sh prints it:
// "Successfully completed leader election (PREFERRED) for partitions ..." and one line per
// failure with Kafka's error.
func electionSentence(ev cluster.Event, res []ElectionResult) string {
	kind, flag := "PREFERRED", "preferred"
	if ev.Election == controller.ElectionUnclean {
		kind, flag = "UNCLEAN", "unclean"
	}
	scope := "--all-topic-partitions"
	if len(ev.Partitions) > 0 {
		scope = plural(len(ev.Partitions), "partition", "partitions")
	}
	var ok, failed []string
	for _, r := range res {
		name := r.Topic + "-" + strconv.Itoa(int(r.Partition))
		if r.Error == "" {
			ok = append(ok, name)
		} else {
			failed = append(failed, fmt.Sprintf("%s: %s (%s)", name, r.Error, r.Message))
		}
	}
	text := fmt.Sprintf("you ran a %s leader election (%s): ", flag, scope)
	switch {
	case len(ok) == 0 && len(failed) == 0:
		text += "no partition needed one (every preferred replica already leads)"
	case len(ok) > 0:
		text += fmt.Sprintf("Successfully completed leader election (%s) for partitions %s", kind, examples(ok))
	}
	if len(failed) > 0 {
		if len(ok) > 0 {
			text += "; "
		}
		text += fmt.Sprintf("Error completing leader election (%s) for %s", kind, joinList(capList(failed, maxExamples)))
	}
	return text
}

// capList keeps the first n items and says how many more there were.
func capList(items []string, n int) []string {
	if len(items) <= n {
		return items
	}
	return append(append([]string(nil), items[:n]...), fmt.Sprintf("%d more", len(items)-n))
}
