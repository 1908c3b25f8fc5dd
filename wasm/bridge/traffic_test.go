package bridge

import (
	"fmt"
	"math"
	"runtime"
	"runtime/metrics"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kraftlab/kraftlab/internal/jsskip"
)

func TestFramesCarryTheTrafficOfTheirWindow(t *testing.T) {
	b := started(t, `{"brokers":4,"partitions":12}`)
	first, _ := frameAt(t, b, "sim.advance", `{"ms":3000}`)
	require.NotNil(t, first.Traffic)
	assert.Equal(t, int64(3000), first.Traffic.ToMs)
	heartbeats := map[int32]int{}
	for _, m := range first.Traffic.Messages {
		assert.True(t, m.SentMs >= first.Traffic.FromMs && m.SentMs <= first.Traffic.ToMs, "%+v lies in the window", m)
		if m.API == "BrokerHeartbeat" && !m.Response {
			heartbeats[m.From]++
			assert.Equal(t, "ready: unfence me", m.Note)
		}
	}
	assert.Len(t, heartbeats, 4, "every broker heartbeats within 3 s: %v", heartbeats)
	assert.NotEmpty(t, first.Traffic.Links)
	assert.Len(t, first.Traffic.SteadyBytesPerSec, 4)

	must[ActBody](t, b, "sim.act", `{"op":"kill","broker":1}`)
	var decisions []DecisionInfo
	for i := 0; i < 150; i++ {
		f, _ := frameAt(t, b, "sim.advance", `{"ms":100,"layout":1}`)
		for _, m := range f.Traffic.Messages {
			assert.False(t, m.From == 1, "a killed broker sends nothing: %+v", m)
		}
		decisions = append(decisions, f.Traffic.Decisions...)
	}
	kinds := []string{}
	for _, d := range decisions {
		kinds = append(kinds, d.Decision)
	}
	require.Contains(t, kinds, "session_expired")
	require.Contains(t, kinds, "leader")
	assert.Equal(t, "session_expired", kinds[0], "the session check comes first: %v", kinds)
	for _, d := range decisions {
		if d.Decision == "leader" {
			assert.Equal(t, int32(1), d.OldLeader)
			assert.Equal(t, "online", d.Election)
			assert.Equal(t, "fence of broker 1", d.Trigger)
			assert.NotEmpty(t, d.Partitions)
		}
	}
}

func TestCrowdedTrafficIsCountedPerLink(t *testing.T) {
	b := started(t, `{"brokers":4,"partitions":12}`)
	f, _ := frameAt(t, b, "sim.advance", `{"ms":600000}`)
	assert.Empty(t, f.Traffic.Messages, "ten minutes of messages are too many to draw one by one")
	total := 0
	for _, l := range f.Traffic.Links {
		total += l.Count
	}
	assert.Greater(t, total, maxFrameMessages)
}

func TestTrafficListsAreNeverNull(t *testing.T) {
	b := started(t, `{}`)
	_, raw, _ := handle(t, b, "sim.advance", `{"ms":0,"layout":0}`)
	assert.Contains(t, string(raw), `"traffic":{"fromMs":0,"toMs":0,"messages":[],"links":[],"decisions":[],"flows":[]`)
}

// BenchmarkAdvanceTraffic measures one sim.advance of a display frame (16 ms of wall time at
// 1×, 10× and 1000×) at 400 and 10,000 partitions, with the shown cluster's traffic collected
// (as the page always has it) and without: the difference is what the traffic costs the worker
// per frame. The event log reads the same stream in both.
func BenchmarkAdvanceTraffic(b *testing.B) {
	for _, n := range []int{400, 10_000} {
		for _, speed := range []int{1, 10, 1000} {
			for _, observed := range []bool{false, true} {
				b.Run(fmt.Sprintf("partitions=%d/speed=%d/traffic=%v", n, speed, observed), func(b *testing.B) {
					br := benchSession(b, n)
					if !observed {
						br.session.live.traffic = nil // the event log still reads the stream
					}
					msg := []byte(fmt.Sprintf(`{"id":5,"type":"sim.advance","body":{"ms":%d,"layout":1}}`, 16*speed))
					runtime.GC()
					gc := readGC()
					b.ReportAllocs()
					b.ResetTimer()
					var size int
					for i := 0; i < b.N; i++ {
						out, data := br.Handle(msg)
						size = len(out) + len(data)
					}
					b.StopTimer()
					b.ReportMetric(float64(size), "bytes/frame")
					gc.report(b)
				})
			}
		}
	}
}

// TestTheLogAndTheDecisionsTellOneAccount checks that the event log and the frames' decisions,
// both read from the cluster's one stream of happenings, agree: every decision the page stops
// at or narrates has the log's line at its cluster time in the same frame (the page's explain
// card shows those lines), and the log tells cause before effect.
func TestTheLogAndTheDecisionsTellOneAccount(t *testing.T) {
	jsskip.CoveredNatively(t, "the event log against the frames' decisions, both read from one run in this process")
	b := started(t, `{"brokers":4,"partitions":12}`)
	frameAt(t, b, "sim.advance", `{"ms":10000}`)
	var log []LogEvent
	stops := map[string]int{}
	play := func(frames int) {
		for i := 0; i < frames; i++ {
			f, _ := frameAt(t, b, "sim.advance", `{"ms":100,"layout":1}`)
			checkFrame(t, f, stops)
			log = append(log, f.Events...)
		}
	}
	must[ActBody](t, b, "sim.act", `{"op":"kill","broker":1}`)
	play(150)
	must[ActBody](t, b, "sim.act", `{"op":"kill_controller","controller":"active"}`)
	play(100)
	must[ActBody](t, b, "sim.act", `{"op":"start","broker":1}`)
	play(300)
	for i := 0; i < 2; i++ {
		f, _ := frameAt(t, b, "sim.step", `{"to":"run","layout":1}`)
		checkFrame(t, f, stops)
		log = append(log, f.Events...)
	}
	for _, kind := range []string{"session_expired", "fenced", "leader", "isr", "quorum_leader", "unfenced", "balancer_run"} {
		assert.Positive(t, stops[kind], "the run has a %s decision: %v", kind, stops)
	}

	at := func(part string) int {
		for i, e := range log {
			if strings.Contains(e.Text, part) {
				return i
			}
		}
		t.Fatalf("no log line says %q", part)
		return -1
	}
	check, fence := at("'s session check: broker 1 sent no heartbeat for"), at("broker 1 fenced")
	assert.Less(t, check, fence, "the session check is told before the fence it writes")
	assert.Less(t, log[check].TimeMs, log[fence].TimeMs, "and happens before it commits")
	assert.Contains(t, log[check].Text, "more than broker.session.timeout.ms (9,000 ms)")
	for i := 1; i < len(log); i++ {
		assert.GreaterOrEqual(t, log[i].TimeMs, log[i-1].TimeMs, "the log's times never go back: %q after %q", log[i].Text, log[i-1].Text)
	}
}

// checkFrame checks that each decision of a frame has a log line at its time in the same
// frame, and counts the decisions by kind.
func checkFrame(t *testing.T, f Frame, kinds map[string]int) {
	t.Helper()
	lines := map[int64][]string{}
	for _, e := range f.Events {
		lines[e.TimeMs] = append(lines[e.TimeMs], e.Text)
	}
	for _, d := range f.Traffic.Decisions {
		kinds[d.Decision]++
		if d.Decision == "leader" && strings.HasPrefix(d.Trigger, "electPreferred run") {
			continue // told by the run's own line, when it ran
		}
		if d.Decision == "isr" && len(lines[d.TimeMs]) == 0 {
			// An ISR change that moves no replica in or out (a reorder) has no sentence.
			continue
		}
		assert.NotEmpty(t, lines[d.TimeMs], "the %s decision at %d ms (%s) has the log's line at its time; the frame's lines: %v",
			d.Decision, d.TimeMs, d.Reason, f.Events)
	}
}

// gcReading is the Go runtime's GC figures at a moment (runtime/metrics), for a benchmark to
// report what its loop cost in garbage collection: the longest stop-the-world pause of a GC
// (/sched/pauses/total/gc, a histogram: its highest non-empty bucket's upper bound) and the CPU
// time the GC took (/cpu/classes/gc/total; under js/wasm there is one thread, so it is time the
// worker spent collecting instead of answering).
type gcReading struct {
	pauses []uint64
	cpu    float64
	cycles uint64
}

var gcMetrics = []string{"/sched/pauses/total/gc:seconds", "/cpu/classes/gc/total:cpu-seconds", "/gc/cycles/total:gc-cycles"}

func readGC() gcReading {
	s := make([]metrics.Sample, len(gcMetrics))
	for i, n := range gcMetrics {
		s[i].Name = n
	}
	metrics.Read(s)
	var g gcReading
	if s[0].Value.Kind() == metrics.KindFloat64Histogram {
		g.pauses = append([]uint64(nil), s[0].Value.Float64Histogram().Counts...)
	}
	if s[1].Value.Kind() == metrics.KindFloat64 {
		g.cpu = s[1].Value.Float64()
	}
	if s[2].Value.Kind() == metrics.KindUint64 {
		g.cycles = s[2].Value.Uint64()
	}
	return g
}

// report adds, per benchmark loop since r was read: the longest GC pause (ms, bucket upper
// bound), the GC's CPU time per op (ms) and the GC cycles.
func (r gcReading) report(b *testing.B) {
	s := []metrics.Sample{{Name: gcMetrics[0]}}
	metrics.Read(s)
	now := readGC()
	longest := 0.0
	if s[0].Value.Kind() == metrics.KindFloat64Histogram {
		h := s[0].Value.Float64Histogram()
		for i, c := range h.Counts {
			if i < len(r.pauses) && c > r.pauses[i] {
				if hi := h.Buckets[i+1]; !math.IsInf(hi, 1) {
					longest = hi * 1000
				} else {
					longest = h.Buckets[i] * 1000
				}
			}
		}
	}
	b.ReportMetric(longest, "max-gc-pause-ms")
	b.ReportMetric((now.cpu-r.cpu)*1000/float64(b.N), "gc-cpu-ms/op")
	b.ReportMetric(float64(now.cycles-r.cycles), "gc-cycles")
	// What a cycle has to mark (the heap's objects up to their last pointer, at the latest
	// cycle): in the page's worker, where the mark runs in one go once a message is answered,
	// the length of its pause follows it.
	scan := []metrics.Sample{{Name: "/gc/scan/heap:bytes"}}
	metrics.Read(scan)
	if scan[0].Value.Kind() == metrics.KindUint64 {
		b.ReportMetric(float64(scan[0].Value.Uint64())/1e6, "scan-heap-MB")
	}
}
