package bridge

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
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
// 1×, 10× and 1000×) at 400 and 10,000 partitions, with the cluster's stream of happenings
// observed (as the page always has it) and without: the difference is what the traffic costs
// the worker per frame.
func BenchmarkAdvanceTraffic(b *testing.B) {
	for _, n := range []int{400, 10_000} {
		for _, speed := range []int{1, 10, 1000} {
			for _, observed := range []bool{false, true} {
				b.Run(fmt.Sprintf("partitions=%d/speed=%d/traffic=%v", n, speed, observed), func(b *testing.B) {
					br := benchSession(b, n)
					if !observed {
						br.session.c.Observe(nil)
					}
					msg := []byte(fmt.Sprintf(`{"id":5,"type":"sim.advance","body":{"ms":%d,"layout":1}}`, 16*speed))
					b.ReportAllocs()
					b.ResetTimer()
					var size int
					for i := 0; i < b.N; i++ {
						out, data := br.Handle(msg)
						size = len(out) + len(data)
					}
					b.ReportMetric(float64(size), "bytes/frame")
				})
			}
		}
	}
}
