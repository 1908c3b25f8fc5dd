package workload

import (
	"fmt"
	"math"

	"github.com/kraftlab/kraftlab/cluster/broker"
	"github.com/kraftlab/kraftlab/cluster/sim"
)

// Cluster is what the latency model reads from the brokers; *broker.Fleet implements it.
type Cluster interface {
	NumBrokers() int
	NumPartitions() int
	Acks() broker.Acks
	Loads(out []broker.Load)
	PartitionPath(p int32, out *broker.Path)
}

// Workload is the producers: per-partition rates (it implements broker.Rates) and the sampled
// produce-latency model. It is a sim.Handler for its sampling steps and request retries.
type Workload struct {
	sim *sim.Sim
	p   Params
	rng *sim.Rand

	classSeed  uint64
	rel        []float64 // class rates relative to the mean (average 1 over the hashed classes)
	hashed     int       // the lognormal classes that ClassOf hashes partitions into
	given      []uint8   // the class of each starting partition with a given rate (SetPartitionRates)
	levels     []float64 // the given classes' rates, bytes/s at scale 1 (classes hashed and up)
	meanBytes  float64   // mean bytes/s per partition at scale 1
	reqPerByte float64
	scale      float64

	cluster Cluster
	started bool
	acks    broker.Acks
	loads   []broker.Load
	stages  []stage
	byClass [][]int32
	known   int
	cum     []float64
	path    broker.Path

	pending []pending
	free    []int32

	// drawn holds uniforms drawn ahead from rng in stream order, and next the first one not
	// yet used (see u).
	drawn [drawBatch]float64
	next  int

	winStart int64
	cur      *hist
	ring     []*hist // the last SlidingWindows windows, oldest first
	sliding  hist
	counts   Window
	windows  []Window
	// keep, above 0, is how many of the latest windows Windows keeps (KeepWindows).
	keep     int
	onWindow func(Window)
}

// stage holds one broker's queueing constants for the current step.
type stage struct {
	netWait, netMean float64 // chance to wait, mean wait given waiting (ms)
	ioWait, ioMean   float64
	appendMean       float64 // mean of the append stage (ms)
	util             StageUtil
}

// StageUtil is one broker's utilisation of each latency stage, as the model last computed
// it (each capped at MaxUtil), for observers.
type StageUtil struct {
	// Network is the network threads' ρ (num.network.threads servers).
	Network float64
	// RequestHandler is the request handler pool's ρ (num.io.threads servers).
	RequestHandler float64
	// Append is ρ_dw, the disk-write utilisation the append stage runs at.
	Append float64
}

// Stages fills out[slot] with each broker's stage utilisations at the last sampling step
// (len(out) must be the cluster's broker count).
func (w *Workload) Stages(out []StageUtil) {
	for b := range w.stages {
		out[b] = w.stages[b].util
	}
}

// pending is a sampled request that must wait: for a retry, or for the high watermark.
type pending struct {
	p            int32
	attempt      int32
	issued       int64 // when the record was sent; latency and delivery timeout count from here
	attemptStart int64 // when the current attempt was sent; request timeout counts from here
	inUse        bool
}

// Window is one sampling window's report. Latencies are in ms, of requests that completed in
// the window (as a producer's metrics count them); the Sliding ones span the last
// SlidingWindows windows.
type Window struct {
	// StartMs and EndMs bound the window.
	StartMs, EndMs int64
	// Samples is the number of completed requests sampled in the window.
	Samples int
	// P50, P99 and P999 are the window's latency percentiles (ms); MaxMs its largest.
	P50, P99, P999, MaxMs float64
	// SlidingSamples is the number of samples over the last SlidingWindows windows.
	SlidingSamples int
	// SlidingP50, SlidingP99 and SlidingP999 are the percentiles over those windows.
	SlidingP50, SlidingP99, SlidingP999 float64
	// Errors counts records that failed: delivery.timeout.ms passed before they were
	// acknowledged.
	Errors int
	// Timeouts counts request attempts that hit request.timeout.ms (and were retried).
	Timeouts int
	// Retries counts attempts retried after NOT_LEADER_OR_FOLLOWER, a refused connection,
	// NOT_ENOUGH_REPLICAS or a timeout.
	Retries int
	// Dropped counts samples not taken because MaxPending requests were already waiting.
	Dropped int
}

const (
	evStep int32 = iota + 1
	evRetry
)

// New returns the workload for a cluster of brokers brokers and partitions partitions
// (the mean rate per partition is BytesPerSecPerBroker × brokers / partitions). Its random
// streams are children of the sim's root named "workload".
func New(s *sim.Sim, p Params, brokers, partitions int) (*Workload, error) {
	if s == nil {
		return nil, fmt.Errorf("workload: sim is nil")
	}
	if err := p.Validate(); err != nil {
		return nil, err
	}
	if brokers < 1 || partitions < 1 {
		return nil, fmt.Errorf("workload: %d brokers and %d partitions; both must be at least 1", brokers, partitions)
	}
	root := s.Rand().Child("workload")
	w := &Workload{sim: s, p: p, rng: root.Child("samples"), classSeed: root.Child("classes").Uint64(), scale: 1,
		rel: lognormalClasses(p.Classes, p.Skew), hashed: p.Classes,
		meanBytes: p.BytesPerSecPerBroker * float64(brokers) / float64(partitions)}
	w.reqPerByte = p.RequestsPerSecPerBroker / p.BytesPerSecPerBroker
	w.cur = newHist()
	w.next = drawBatch
	return w, nil
}

// Params returns the workload's parameters.
func (w *Workload) Params() Params { return w.p }

// NumClasses implements broker.Rates.
func (w *Workload) NumClasses() int { return len(w.rel) }

// ClassBytesPerSec implements broker.Rates: the produce rate of a partition of class c.
func (w *Workload) ClassBytesPerSec(c int) float64 {
	if c >= w.hashed {
		return w.levels[c-w.hashed] * w.scale
	}
	return w.rel[c] * w.meanBytes * w.scale
}

// ClassRequestsPerSec implements broker.Rates: produce batches per second of a partition of
// class c, proportional to its bytes.
func (w *Workload) ClassRequestsPerSec(c int) float64 { return w.ClassBytesPerSec(c) * w.reqPerByte }

// ClassOf implements broker.Rates: a starting partition's class for its given rate
// (SetPartitionRates), or else a seeded hash of its index into the lognormal classes, so
// partitions created later get classes too.
func (w *Workload) ClassOf(p int32) int {
	if int(p) < len(w.given) {
		return int(w.given[p])
	}
	return int(mix64(w.classSeed^uint64(p)) % uint64(w.hashed))
}

// RecordBytes implements broker.Rates.
func (w *Workload) RecordBytes() float64 { return w.p.RecordBytes }

// SetScale multiplies every partition's produce rate (1 = the configured rate), for traffic
// ramps. The assembly must then call the broker Fleet's RatesChanged.
func (w *Workload) SetScale(scale float64) error {
	if !(scale >= 0) || math.IsInf(scale, 0) {
		return fmt.Errorf("workload: SetScale(%g): the scale must be a finite number ≥ 0", scale)
	}
	w.scale = scale
	return nil
}

// OnWindow sets a function called with each window's report as it closes (nil: none).
func (w *Workload) OnWindow(fn func(Window)) { w.onWindow = fn }

// Windows returns every closed window's report so far (aliases the workload's slice), or the
// latest ones after KeepWindows.
func (w *Workload) Windows() []Window { return w.windows }

// KeepWindows makes Windows keep only the latest n reports (0 keeps all), so that a long run's
// memory does not grow with its length. The windows reported are the same either way.
func (w *Workload) KeepWindows(n int) { w.keep = max(n, 0) }

// Start begins sampling the cluster now: a step every StepMs, a window every WindowMs.
func (w *Workload) Start(c Cluster) error {
	if c == nil {
		return fmt.Errorf("workload: Start needs a Cluster")
	}
	if w.started {
		return fmt.Errorf("workload: already started")
	}
	w.cluster, w.started, w.acks = c, true, c.Acks()
	w.loads = make([]broker.Load, c.NumBrokers())
	w.stages = make([]stage, c.NumBrokers())
	w.byClass = make([][]int32, len(w.rel))
	w.cum = make([]float64, len(w.rel))
	w.ring = make([]*hist, 0, w.p.SlidingWindows)
	w.winStart = w.sim.Now()
	w.counts = Window{StartMs: w.winStart}
	_, err := w.sim.After(w.p.StepMs, sim.Event{Target: w, Kind: evStep})
	return err
}

// HandleEvent runs a sampling step or a request retry. It implements sim.Handler.
func (w *Workload) HandleEvent(ev sim.Event) {
	switch ev.Kind {
	case evStep:
		w.step()
	case evRetry:
		w.try(ev.ID)
	}
}

// step refreshes the brokers' stage constants, draws this step's samples and closes the
// window when it is over.
func (w *Workload) step() {
	now := w.sim.Now()
	w.refreshPartitions()
	w.refreshStages()
	perWindow := w.p.SamplesPerWindow
	steps := int(w.p.WindowMs / w.p.StepMs)
	k := int((now - w.winStart) / w.p.StepMs) // 1..steps
	n := perWindow*k/steps - perWindow*(k-1)/steps
	if w.cum[len(w.cum)-1] > 0 {
		for range n {
			w.sample()
		}
	}
	if now-w.winStart >= w.p.WindowMs {
		w.closeWindow()
	}
	_, _ = w.sim.After(w.p.StepMs, sim.Event{Target: w, Kind: evStep})
}

// refreshPartitions assigns partitions created since the last step to their class lists and
// recomputes the class weights (partitions × batch rate).
func (w *Workload) refreshPartitions() {
	n := w.cluster.NumPartitions()
	for p := w.known; p < n; p++ {
		c := w.ClassOf(int32(p))
		w.byClass[c] = append(w.byClass[c], int32(p))
	}
	w.known = max(w.known, n)
	sum := 0.0
	for c := range w.cum {
		sum += float64(len(w.byClass[c])) * w.rel[c]
		w.cum[c] = sum
	}
}

// refreshStages computes each broker's queueing constants from its current load.
func (w *Workload) refreshStages() {
	w.cluster.Loads(w.loads)
	p := &w.p
	for b := range w.loads {
		l := &w.loads[b]
		st := &w.stages[b]
		reqs := l.ProduceRequestsPerSec + l.FollowerFetchRequestsPerSec + l.ConsumerFetchRequestsPerSec + l.CatchUpFetchRequestsPerSec
		rhoIo := min(reqs*p.IoServiceMs/1000/float64(p.IoThreads), p.MaxUtil)
		rhoNet := min(reqs*p.NetworkServiceMs/1000/float64(p.NetworkThreads), p.MaxUtil)
		st.ioWait, st.ioMean = erlangC(p.IoThreads, rhoIo), p.IoServiceMs/(float64(p.IoThreads)*(1-rhoIo))
		st.netWait, st.netMean = erlangC(p.NetworkThreads, rhoNet), p.NetworkServiceMs/(float64(p.NetworkThreads)*(1-rhoNet))
		rhoW := min(l.DiskWriteUtil(), p.MaxUtil)
		st.appendMean = p.AppendServiceMs / (1 - rhoW)
		st.util = StageUtil{Network: rhoNet, RequestHandler: rhoIo, Append: rhoW}
	}
}

// pick draws a partition in proportion to its request rate: a class by weight, then a
// partition of it uniformly.
func (w *Workload) pick() int32 {
	c := classOf(w.cum, w.u()*w.cum[len(w.cum)-1])
	list := w.byClass[c]
	return list[int(w.u()*float64(len(list)))]
}

// classOf is the first class whose cumulative weight passes x, the last one at most, found
// by bisection (cum never decreases): the draw a linear scan would make, in fewer steps.
func classOf(cum []float64, x float64) int {
	c, hi := 0, len(cum)-1
	for c < hi {
		if mid := int(uint(c+hi) >> 1); cum[mid] <= x {
			c = mid + 1
		} else {
			hi = mid
		}
	}
	return c
}

// sample takes one request: issued at a random moment of the last step, evaluated on the
// cluster as it is now.
func (w *Workload) sample() {
	now := w.sim.Now()
	p := w.pick()
	issued := now - int64(w.u()*float64(w.p.StepMs))
	w.cluster.PartitionPath(p, &w.path)
	if w.path.Status == broker.PathDeleted {
		return // nobody produces to a deleted topic
	}
	if lat, ok := w.complete(&w.path, issued, true); ok {
		w.record(lat)
		return
	}
	if len(w.pending)-len(w.free) >= w.p.MaxPending {
		w.counts.Dropped++
		return
	}
	var id int32
	if n := len(w.free); n > 0 {
		id = w.free[n-1]
		w.free = w.free[:n-1]
	} else {
		id = int32(len(w.pending))
		w.pending = append(w.pending, pending{})
	}
	w.pending[id] = pending{p: p, attempt: 1, issued: now, attemptStart: now, inUse: true}
	w.wait(id, &w.path)
}

// complete returns the latency of a request that can complete now on path, or false.
func (w *Workload) complete(path *broker.Path, issued int64, fresh bool) (float64, bool) {
	if path.Status != broker.PathOK || (w.acks == broker.AcksAll && path.Waiting) {
		return 0, false
	}
	return w.service(path, issued, fresh), true
}

// service samples the request's time through the stages of path (docs/model.md §6).
func (w *Workload) service(path *broker.Path, issued int64, fresh bool) float64 {
	p := &w.p
	lat := w.u()*p.LingerMs + p.RttMs
	ld := &w.stages[path.Leader]
	if w.u() < ld.netWait {
		lat += ld.netMean * w.ex()
	}
	if w.u() < ld.ioWait {
		lat += ld.ioMean * w.ex()
	}
	lat += ld.appendMean * w.ex()
	if w.acks == broker.AcksAll {
		worst := 0.0
		for i := 0; i < path.Followers; i++ {
			v := p.RttMs + w.stages[path.Follower[i]].appendMean*w.ex()
			if h := path.HolMs[i]; h > 0 {
				v += h * w.u()
			}
			if v > worst { // not max: its NaN and signed-zero rules cost a call under wasm
				worst = v
			}
		}
		lat += worst
	}
	if fresh {
		lat += w.movePenalty(path.LeaderChangedAtMs, issued)
	}
	return lat
}

// movePenalty is T_move for a request issued at issued when the leader changed at changed:
// requests issued in the switch window [changed, changed + d) went to the old leader. With
// KIP-951 they are redirected at the end of the window; without it each pays a chain of retry
// backoffs, continued with probability StaleMetadataRetryProb.
func (w *Workload) movePenalty(changed, issued int64) float64 {
	d := float64(issued - changed)
	window := w.p.SwitchWindowMs
	if !w.p.Kip951 {
		window = w.p.LegacySwitchWindowMs
	}
	if d < 0 || d >= window {
		return 0
	}
	if w.p.Kip951 {
		return window - d + w.p.RttMs
	}
	pen := 0.0
	for k := 1; k <= 30; k++ {
		pen += w.backoff(k) + w.p.RttMs
		if w.u() >= w.p.StaleMetadataRetryProb {
			break
		}
	}
	return pen
}

// backoff is the producer's k-th retry backoff: retry.backoff.ms × 2^(k−1), at most
// retry.backoff.max.ms, with ±RetryJitter (KIP-580).
func (w *Workload) backoff(k int) float64 {
	b := min(w.p.RetryBackoffMs*math.Pow(2, float64(k-1)), w.p.RetryBackoffMaxMs)
	return b * (1 + w.p.RetryJitter*(2*w.u()-1))
}

// wait schedules a pending request's next look at the cluster according to why it cannot
// complete now.
func (w *Workload) wait(id int32, path *broker.Path) {
	now := w.sim.Now()
	pd := &w.pending[id]
	next := now
	switch path.Status {
	case broker.PathOK: // waiting for the HW: until the leader drops the stalled member
		next = min(max(path.WaitUntilMs, now+1), pd.attemptStart+w.p.RequestTimeoutMs)
	case broker.PathUnreachable: // no answer: the attempt times out
		next = pd.attemptStart + w.p.RequestTimeoutMs
	default: // an error answer one round trip later, then a backoff
		next = now + int64(math.Ceil(w.p.RttMs+w.backoff(int(pd.attempt))))
		pd.attempt++
		pd.attemptStart = next
		w.counts.Retries++
	}
	next = min(next, pd.issued+w.p.DeliveryTimeoutMs)
	_, _ = w.sim.Schedule(max(next, now), sim.Event{Target: w, Kind: evRetry, ID: id})
}

// try looks again at a pending request.
func (w *Workload) try(id int32) {
	now := w.sim.Now()
	pd := &w.pending[id]
	if !pd.inUse {
		return
	}
	w.cluster.PartitionPath(pd.p, &w.path)
	if lat, ok := w.complete(&w.path, pd.issued, false); ok {
		w.record(float64(now-pd.issued) + lat)
		w.release(id)
		return
	}
	if now >= pd.issued+w.p.DeliveryTimeoutMs || w.path.Status == broker.PathDeleted {
		w.counts.Errors++
		w.release(id)
		return
	}
	if now >= pd.attemptStart+w.p.RequestTimeoutMs {
		// The attempt timed out; the producer retries after a backoff.
		w.counts.Timeouts++
		w.counts.Retries++
		pd.attempt++
		pd.attemptStart = now + int64(math.Ceil(w.backoff(int(pd.attempt-1))))
		_, _ = w.sim.Schedule(min(pd.attemptStart, pd.issued+w.p.DeliveryTimeoutMs), sim.Event{Target: w, Kind: evRetry, ID: id})
		return
	}
	if now < pd.attemptStart {
		_, _ = w.sim.Schedule(pd.attemptStart, sim.Event{Target: w, Kind: evRetry, ID: id})
		return
	}
	w.wait(id, &w.path)
}

func (w *Workload) release(id int32) {
	w.pending[id].inUse = false
	w.free = append(w.free, id)
}

// Pending is the number of sampled requests waiting for a retry or for the high watermark.
func (w *Workload) Pending() int { return len(w.pending) - len(w.free) }

func (w *Workload) record(lat float64) { w.cur.add(lat) }

// closeWindow reports the window that just ended and starts the next.
func (w *Workload) closeWindow() {
	now := w.sim.Now()
	rep := w.counts
	rep.StartMs, rep.EndMs = w.winStart, now
	rep.Samples, rep.MaxMs = w.cur.n, w.cur.max
	rep.P50, rep.P99, rep.P999 = w.cur.quantile(0.5), w.cur.quantile(0.99), w.cur.quantile(0.999)
	if len(w.ring) == w.p.SlidingWindows {
		old := w.ring[0]
		copy(w.ring, w.ring[1:])
		w.ring = w.ring[:len(w.ring)-1]
		old.reset()
		w.ring = append(w.ring, w.cur)
		w.cur = old
	} else {
		w.ring = append(w.ring, w.cur)
		w.cur = newHist()
	}
	w.sliding.reset()
	for _, h := range w.ring {
		w.sliding.merge(h)
	}
	rep.SlidingSamples = w.sliding.n
	rep.SlidingP50, rep.SlidingP99, rep.SlidingP999 = w.sliding.quantile(0.5), w.sliding.quantile(0.99), w.sliding.quantile(0.999)
	w.windows = append(w.windows, rep)
	if w.keep > 0 && len(w.windows) >= 2*w.keep {
		// Halve at twice the limit, so that the copy is amortised over w.keep windows.
		n := copy(w.windows, w.windows[len(w.windows)-w.keep:])
		clear(w.windows[n:])
		w.windows = w.windows[:n]
	}
	if w.onWindow != nil {
		w.onWindow(rep)
	}
	w.winStart = now
	w.counts = Window{StartMs: now}
}

// drawBatch is how many uniforms u draws ahead at a time: a sample uses eight to ten.
const drawBatch = 64

// u is a uniform in [0, 1) with 32 bits of precision: each 64-bit draw of the stream gives
// two, the high half first, which halves the cost of the many low-precision draws a sample
// needs (the exponential tail it allows, −ln 2^-32 ≈ 22 means, is far beyond p99.9's 6.9).
// The stream is u's alone, so drawing a batch ahead gives the same uniforms in the same
// order; u itself is then small enough to inline, and so is no call per draw: under
// WebAssembly, where every call goes through the resumable-goroutine machinery, the calls
// were most of a draw's cost.
func (w *Workload) u() float64 {
	if w.next == drawBatch {
		w.draw()
	}
	v := w.drawn[w.next]
	w.next++
	return v
}

// draw refills drawn from rng.
func (w *Workload) draw() {
	for i := 0; i < drawBatch; i += 2 {
		x := w.rng.Uint64()
		w.drawn[i], w.drawn[i+1] = float64(x>>32)/(1<<32), float64(x&0xffffffff)/(1<<32)
	}
	w.next = 0
}

// ex draws a unit exponential from u.
func (w *Workload) ex() float64 { return -fastLn(1 - w.u()) }
