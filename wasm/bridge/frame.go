package bridge

import (
	"fmt"
	"hash"
	"hash/fnv"
	"slices"
	"strings"

	"github.com/kraftlab/kraftlab/cluster/broker"
	"github.com/kraftlab/kraftlab/engine/config"
	"github.com/kraftlab/kraftlab/engine/controller"
	"github.com/kraftlab/kraftlab/engine/metadata"
)

// Frame is the JSON part of a sim.advance or sim.frame reply: what the canvas draws apart
// from the partitions, whose state travels in the reply's binary attachment (see
// PartitionsInfo and web/PROTOCOL.md) so that 100,000 partitions cost a memory copy, not
// 100,000 JSON objects.
type Frame struct {
	// TimeMs is the cluster time of the frame.
	TimeMs      int64             `json:"timeMs"`
	Seed        uint64            `json:"seed"`
	Controllers []ControllerState `json:"controllers"`
	Brokers     []BrokerState     `json:"brokers"`
	Partitions  PartitionsInfo    `json:"partitions"`
	// Sample is the latest producer sample (every 10 s of cluster time), if any yet.
	Sample *SampleInfo `json:"sample,omitempty"`
	// LastRun is the latest electPreferred run, if any yet.
	LastRun *RunInfo `json:"lastRun,omitempty"`
	// NextElectPreferredMs is when the active controller will next run electPreferred, or -1
	// (no active controller, or auto.leader.rebalance.enable=false).
	NextElectPreferredMs int64 `json:"nextElectPreferredMs"`
	// Configs lists the configs whose effective value differs from the default.
	Configs []ConfigState `json:"configs"`
	// Events is the event log since the previous frame, oldest first.
	Events []LogEvent `json:"events"`
	// EventsDropped counts events left out of Events because the frame had too many.
	EventsDropped int `json:"eventsDropped,omitempty"`
	// Stopped is set when the run stopped at an invariant violation or internal error; the
	// clock no longer moves.
	Stopped string `json:"stopped,omitempty"`
	// HorizonMs is the end of the run's timeline: the latest time its history reached (or an
	// imported scenario's duration), at least TimeMs.
	HorizonMs int64 `json:"horizonMs"`
	// Cuts are the network links cut (and not healed) so far, each as its two node names.
	Cuts [][2]string `json:"cuts,omitempty"`
	// History is the history's version: it changes when an action is recorded or the run is
	// replaced, the page's cue to fetch sim.history (timeline marks) and update its link.
	History int `json:"history"`
	// Log is the tail of the metadata log and where each node stands along it.
	Log *LogStrip `json:"log"`
	// Traffic is what travelled and what was decided since the previous frame.
	Traffic *Traffic `json:"traffic,omitempty"`
}

// ControllerState is one controller (a voter of the metadata quorum) in a frame.
type ControllerState struct {
	ID      int32 `json:"id"`
	Running bool  `json:"running"`
	// Role is the node's quorum state as Kafka's QuorumState names it, in lower case:
	// leader, follower, candidate, prospective, unattached or resigned.
	Role string `json:"role"`
	// Active: this node runs the active controller (the quorum leader whose epoch has started).
	Active bool  `json:"active"`
	Epoch  int32 `json:"epoch"`
	// EndOffset is the node's log end offset, HighWatermark the offset below which it knows
	// records are committed.
	EndOffset     int64 `json:"endOffset"`
	HighWatermark int64 `json:"highWatermark"`
}

// BrokerState is one broker in a frame. Counts come from the committed metadata, as the
// controller sees it.
type BrokerState struct {
	ID int32 `json:"id"`
	// State is the broker's own lifecycle state, Kafka's BrokerState in lower case:
	// not_running, starting, recovery, running, pending_controlled_shutdown, shutting_down.
	State string `json:"state" ts:"BrokerLifecycle"`
	// Fenced and InControlledShutdown are the controller's view (the committed registration).
	Fenced               bool  `json:"fenced"`
	InControlledShutdown bool  `json:"inControlledShutdown"`
	Epoch                int64 `json:"epoch"`
	// Gated: the wait-for-sync gate holds back its preferred leaderships.
	Gated bool `json:"gated"`
	// Leaders, Replicas: partitions it leads and holds; OutOfSync: its replicas outside the
	// ISR; Preferred, PreferredLed: partitions it is the preferred replica of, and leads.
	Leaders      int `json:"leaders"`
	Replicas     int `json:"replicas"`
	OutOfSync    int `json:"outOfSync"`
	Preferred    int `json:"preferred"`
	PreferredLed int `json:"preferredLed"`
	// DiskFactor is the share of its disk's capacity a slow_disk left it, when below 1.
	DiskFactor float64 `json:"diskFactor,omitempty"`
}

// PartitionsInfo describes the binary attachment, which holds, for Count partitions in image
// order (topic by topic, partition by partition), little-endian:
//
//	at Isr:      Count × uint32  the ISR in Kafka's order: nibble k (bits 4k..4k+3) is
//	                             1 + the replica position of the k-th member; 0 ends the list
//	at State:    Count × 4 bytes leader position (0xFF: no leader), ELR bitmask and
//	                             LastKnownElr bitmask over replica positions, flags
//	                             (FlagRecovering, FlagDeleted)
//	at Replicas: Count × Stride  broker slots (indexes into Frame.Brokers) of the replicas,
//	                             preferred first, 0xFF after the last; only when the frame
//	                             carries the layout (Replicas ≥ 0)
//
// A replica position is an index into the partition's replica list; slots and positions
// stay below 0xFF because there are at most MaxBrokers brokers and 8 replicas.
type PartitionsInfo struct {
	Count int `json:"count"`
	// Layout identifies Topics and the replicas array; it changes when topics are created or
	// deleted. The page sends the layout it holds, and gets it again only when it changed.
	Layout int `json:"layout"`
	// Stride is the bytes per partition of the replicas array: the largest replication factor.
	Stride int         `json:"stride"`
	Topics []TopicInfo `json:"topics,omitempty"`
	// UnderReplicated counts partitions whose ISR is smaller than their replica list, Offline
	// those without a leader, Imbalanced those led by another replica than the preferred one.
	UnderReplicated int `json:"underReplicated"`
	Offline         int `json:"offline"`
	Imbalanced      int `json:"imbalanced"`
	// Byte offsets of the three arrays in the attachment; Replicas is -1 without the layout.
	Isr      int `json:"isr"`
	State    int `json:"state"`
	Replicas int `json:"replicas"`
}

// Flags of a partition's state byte 3.
const (
	// FlagRecovering: the leader was elected uncleanly and is recovering (LeaderRecoveryState).
	FlagRecovering = 1 << 0
	// FlagDeleted: the partition's topic was deleted; it keeps its index.
	FlagDeleted = 1 << 1
)

// NoSlot marks "no leader" and the padding of the replicas array.
const NoSlot = 0xFF

// TopicInfo is one topic of the layout: its partitions are First .. First+Count-1.
type TopicInfo struct {
	Name    string `json:"name"`
	ID      string `json:"id"`
	First   int    `json:"first"`
	Count   int    `json:"count"`
	Deleted bool   `json:"deleted,omitempty"`
	// Configs are the topic's own config overrides, name to value text.
	Configs map[string]string `json:"configs,omitempty"`
}

// SampleInfo is the latest producer sample.
type SampleInfo struct {
	TimeMs          int64   `json:"timeMs"`
	ProduceP50Ms    float64 `json:"produceP50Ms"`
	ProduceP99Ms    float64 `json:"produceP99Ms"`
	ProduceP999Ms   float64 `json:"produceP999Ms"`
	ProduceErrors   int     `json:"produceErrors"`
	ProduceTimeouts int     `json:"produceTimeouts"`
}

// RunInfo is one electPreferred run.
type RunInfo struct {
	TimeMs       int64   `json:"timeMs"`
	Elected      int     `json:"elected"`
	MaxPerRun    int     `json:"maxPerRun"`
	GatedBrokers []int32 `json:"gatedBrokers,omitempty"`
	NextRunMs    int64   `json:"nextRunMs"`
}

// ConfigState is a config whose effective value is not the default.
type ConfigState struct {
	Name  string `json:"name"`
	Value string `json:"value"`
	// Source is "static" (the configs the cluster started with) or "log" (a ConfigRecord in
	// the metadata log, written by set_config, which wins over the static value).
	Source string `json:"source" ts:"ConfigSource"`
}

// frameEncoder builds frames, reusing its buffers: a frame of 100,000 partitions allocates
// only its JSON part. It keeps the previous frame's partition arrays and counts (parts), so
// that a frame costs what changed since the previous one rather than a pass over every
// partition (frame_parts.go).
type frameEncoder struct {
	buf     []byte
	scratch []int32
	// layout tracking: the version and what it was computed from.
	layout    int
	layoutKey [3]int
	// layoutConfigs is topicConfigsDigest of the layout's topics.
	layoutConfigs uint64
	slotByID      []uint8
	parts         partState
}

// encode builds the frame's JSON part and its attachment; the attachment aliases e.buf.
func (e *frameEncoder) encode(s *Session, pageLayout int) (*Frame, []byte) {
	c := s.c
	view := c.View()
	f := &Frame{TimeMs: c.Now(), Seed: s.info.Seed, NextElectPreferredMs: -1, Configs: []ConfigState{}}
	if err := c.Err(); err != nil {
		f.Stopped = err.Error()
	}

	ctl := c.Controllers()
	activeNode, _, hasActive := ctl.Active()
	for _, id := range ctl.Voters() {
		nv, err := ctl.Node(id)
		if err != nil {
			continue
		}
		f.Controllers = append(f.Controllers, ControllerState{ID: id, Running: nv.Running,
			Role: strings.ToLower(nv.State.String()), Active: hasActive && id == activeNode, Epoch: nv.Epoch,
			EndOffset: nv.EndOffset, HighWatermark: nv.HighWatermark})
	}
	engine := ctl.ActiveController()
	if engine != nil {
		if at, ok := engine.TaskDeadline(controller.TaskElectPreferred); ok {
			f.NextElectPreferredMs = at - s.t0
		}
	}

	fleet := c.Fleet()
	ids := s.info.Brokers
	// The slots follow the session's broker list; it is rebuilt with the arrays whenever the
	// cluster changes, so that an encoder never numbers one cluster's brokers by another's.
	if e.parts.c != c {
		e.setSlots(ids)
	}
	f.Brokers = make([]BrokerState, len(ids))
	for slot, id := range ids {
		b := BrokerState{ID: id, State: brokerStateName(fleet.State(id)), Epoch: -1,
			Preferred: view.PreferredCount(id)}
		if reg := view.Broker(id); reg != nil && reg.Registered {
			b.Fenced, b.InControlledShutdown, b.Epoch = reg.Fenced, reg.InControlledShutdown, reg.Epoch
		}
		b.PreferredLed = b.Preferred - len(view.ImbalancedPreferring(id))
		if engine != nil {
			b.Gated = engine.Balancer().Gated(id)
		}
		f.Brokers[slot] = b
	}
	f.Log = logStrip(ctl, ids)

	// The layout: topics and replica assignments change only with topic creation or deletion,
	// the topics' configs (which travel with the layout) with a topic's set_config.
	deleted := 0
	for t := range view.Topics {
		if view.Topics[t].Deleted {
			deleted++
		}
	}
	key := [3]int{len(view.Topics), len(view.Partitions), deleted}
	configs := topicConfigsDigest(view)
	if e.layout == 0 || key != e.layoutKey || configs != e.layoutConfigs {
		e.layout++
		e.layoutKey, e.layoutConfigs = key, configs
	}
	withLayout := pageLayout != e.layout

	// The arrays and the per-broker and cluster counts, brought up to date with the view.
	buf := e.fill(c, view, key, len(ids), withLayout)
	n, stride := e.parts.n, e.parts.stride
	pi := PartitionsInfo{Count: n, Layout: e.layout, Stride: stride, Isr: 0, State: 4 * n, Replicas: -1,
		Imbalanced: view.ImbalancedCount(), UnderReplicated: e.parts.under, Offline: e.parts.offline}
	for slot := range f.Brokers {
		bc := &e.parts.brokers[slot]
		f.Brokers[slot].Leaders, f.Brokers[slot].Replicas, f.Brokers[slot].OutOfSync = bc.leaders, bc.replicas, bc.outOfSync
	}
	if withLayout {
		pi.Replicas = 8 * n
		for t := range view.Topics {
			top := &view.Topics[t]
			ti := TopicInfo{Name: top.Name, ID: top.ID, First: int(top.First), Count: int(top.Count), Deleted: top.Deleted}
			for _, name := range top.Configs.Names() {
				v, _ := top.Configs.Get(name)
				if ti.Configs == nil {
					ti.Configs = map[string]string{}
				}
				ti.Configs[name] = metadata.ConfigText(v)
			}
			pi.Topics = append(pi.Topics, ti)
		}
	}
	f.Partitions = pi

	if samples := c.Samples(); len(samples) > 0 {
		sm := samples[len(samples)-1]
		f.Sample = &SampleInfo{TimeMs: sm.TimeMs, ProduceP50Ms: round2(sm.ProduceP50Ms), ProduceP99Ms: round2(sm.ProduceP99Ms),
			ProduceP999Ms: round2(sm.ProduceP999Ms), ProduceErrors: sm.ProduceErrors, ProduceTimeouts: sm.ProduceTimeouts}
	}
	if runs := c.BalancerRuns(); len(runs) > 0 {
		r := runs[len(runs)-1]
		f.LastRun = &RunInfo{TimeMs: r.TimeMs, Elected: len(r.Elected), MaxPerRun: r.MaxPerRun,
			GatedBrokers: r.GatedBrokers, NextRunMs: r.NextRunMs}
	}
	f.Configs = effectiveConfigs(&view.Cluster, &s.static)
	return f, buf
}

// topicConfigsDigest is a digest of every topic's config overrides (name and value text): a
// change to any of them gives the frame a new layout, so that the page shows the topic's new
// configs. Topics without overrides, the usual case, cost a length check and allocate nothing:
// the hash is made only for the first topic that has some (0 when none has).
func topicConfigsDigest(view *metadata.Image) uint64 {
	var h hash.Hash64
	for t := range view.Topics {
		top := &view.Topics[t]
		names := top.Configs.Names()
		if len(names) == 0 {
			continue
		}
		if h == nil {
			h = fnv.New64a()
		}
		fmt.Fprintf(h, "%d\x00", t)
		for _, name := range names {
			v, _ := top.Configs.Get(name)
			fmt.Fprintf(h, "%s=%s\x00", name, metadata.ConfigText(v))
		}
	}
	if h == nil {
		return 0
	}
	return h.Sum64()
}

// setSlots numbers the brokers: slotByID maps a broker id to its index in ids.
func (e *frameEncoder) setSlots(ids []int32) {
	maxID := int32(0)
	for _, id := range ids {
		maxID = max(maxID, id)
	}
	e.slotByID = slices.Grow(e.slotByID[:0], int(maxID)+1)[:maxID+1]
	for i := range e.slotByID {
		e.slotByID[i] = NoSlot
	}
	for slot, id := range ids {
		e.slotByID[id] = uint8(slot)
	}
}

func (e *frameEncoder) slot(id int32) uint8 {
	if id < 0 || int(id) >= len(e.slotByID) {
		return NoSlot
	}
	return e.slotByID[id]
}

// position is b's index in the replica list, or -1.
func position(reps []int32, b int32) int {
	for i, r := range reps {
		if r == b {
			return i
		}
	}
	return -1
}

// mask is the bitmask of members' positions in reps.
func mask(reps, members []int32) uint8 {
	var m uint8
	for _, b := range members {
		if pos := position(reps, b); pos >= 0 {
			m |= 1 << pos
		}
	}
	return m
}

// effectiveConfigs lists the configs whose value differs from the default: a ConfigRecord
// in the log wins over the static value, as in Kafka.
func effectiveConfigs(log, static *config.Values) []ConfigState {
	out := []ConfigState{}
	for _, d := range config.All() {
		v, source := d.Default, ""
		if sv, ok := static.Get(d.Name); ok {
			v, source = sv, "static"
		}
		if lv, ok := log.Get(d.Name); ok {
			v, source = lv, "log"
		}
		if source == "" || v == d.Default {
			continue
		}
		out = append(out, ConfigState{Name: d.Name, Value: metadata.ConfigText(v), Source: source})
	}
	return out
}

func round2(x float64) float64 {
	return float64(int64(x*100+0.5)) / 100
}

// brokerStateName is a broker lifecycle state as frames spell it.
func brokerStateName(s broker.State) string { return strings.ToLower(s.String()) }
