package bridge

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"testing"
)

// benchSession starts a cluster of the given size, kills a broker and lets it be fenced, so
// that frames carry shrunk ISRs and moved leaders rather than a uniform steady state.
func benchSession(b *testing.B, partitions int) *Bridge {
	b.Helper()
	br := New(Info{})
	out, _ := br.Handle([]byte(fmt.Sprintf(`{"id":1,"type":"sim.start","body":{"brokers":6,"partitions":%d}}`, partitions)))
	var r Reply
	if err := json.Unmarshal(out, &r); err != nil || !r.OK {
		b.Fatalf("sim.start: %s", out)
	}
	br.Handle([]byte(`{"id":2,"type":"sim.act","body":{"op":"kill","broker":2}}`))
	br.Handle([]byte(`{"id":3,"type":"sim.advance","body":{"ms":15000}}`))
	return br
}

// BenchmarkFrame measures one sim.frame reply end to end inside the bridge (the frame's JSON
// part, the per-partition arrays and the envelope), without the layout, as the page asks for
// frames once it holds the layout. Run natively and under Node (make bench-wasm-frame).
func BenchmarkFrame(b *testing.B) {
	for _, n := range []int{10_000, 100_000} {
		b.Run(fmt.Sprintf("partitions=%d", n), func(b *testing.B) {
			br := benchSession(b, n)
			msg := []byte(`{"id":4,"type":"sim.frame","body":{"layout":1}}`)
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

// BenchmarkFrameAlternatives measures, at 10,000 partitions, what the binary attachment saves
// over the two JSON encodings one might try first: one JSON object per partition, and the
// same arrays as base64 text inside the JSON reply.
func BenchmarkFrameAlternatives(b *testing.B) {
	br := benchSession(b, 10_000)
	s := br.session
	b.Run("attachment", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			f, data := s.enc.encode(s, 1)
			out, _ := json.Marshal(f)
			_ = append(out, data...)
		}
	})
	b.Run("base64-in-json", func(b *testing.B) {
		b.ReportAllocs()
		var size int
		for i := 0; i < b.N; i++ {
			f, data := s.enc.encode(s, 1)
			out, _ := json.Marshal(struct {
				*Frame
				Arrays string `json:"arrays"`
			}{f, base64.StdEncoding.EncodeToString(data)})
			size = len(out)
		}
		b.ReportMetric(float64(size), "bytes/frame")
	})
	b.Run("object-per-partition", func(b *testing.B) {
		type part struct {
			Topic     string  `json:"topic"`
			Partition int32   `json:"partition"`
			Leader    int32   `json:"leader"`
			Replicas  []int32 `json:"replicas"`
			Isr       []int32 `json:"isr"`
			Elr       []int32 `json:"elr"`
		}
		b.ReportAllocs()
		var size int
		for i := 0; i < b.N; i++ {
			view := s.c.View()
			parts := make([]part, len(view.Partitions))
			for j := range view.Partitions {
				p := &view.Partitions[j]
				parts[j] = part{Topic: view.TopicName(p), Partition: p.ID, Leader: p.Leader, Replicas: p.Replicas(), Isr: p.Isr(), Elr: p.Elr()}
			}
			out, _ := json.Marshal(parts)
			size = len(out)
		}
		b.ReportMetric(float64(size), "bytes/frame")
	})
}

// BenchmarkAdvance measures the playground's own workload: one minute of cluster time on the
// page's default cluster plus the frame that shows it. At 10,000× the page asks for about
// 1,000 s per request, so this cost decides how close to the chosen speed the page can run.
func BenchmarkAdvance(b *testing.B) {
	br := New(Info{})
	br.Handle([]byte(`{"id":1,"type":"sim.start","body":{}}`))
	msg := []byte(`{"id":2,"type":"sim.advance","body":{"ms":60000,"layout":1}}`)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		br.Handle(msg)
	}
}

// BenchmarkQuietPlayback measures what the page asks for at 10,000×: a steady cluster (no
// fault, heartbeats, fetches and the producers' sampling) stepped 333 s of cluster time a
// frame, the frame included. cluster-s/s is the speed one core reaches: the page's 10,000×
// needs it above 10,000 with room for the frames.
//
//	go test -run '^$' -bench 'QuietPlayback/partitions=10000$' -benchtime 30x ./wasm/bridge
func BenchmarkQuietPlayback(b *testing.B) {
	for _, n := range []int{12, 10_000, 100_000} {
		b.Run(fmt.Sprintf("partitions=%d", n), func(b *testing.B) {
			// The session is built inside the sub-benchmark, so that running one size
			// builds no other.
			start := `{}`
			if n != 12 {
				start = fmt.Sprintf(`{"brokers":6,"partitions":%d}`, n)
			}
			br := New(Info{})
			br.Handle([]byte(`{"id":1,"type":"sim.start","body":` + start + `}`))
			br.Handle([]byte(`{"id":2,"type":"sim.advance","body":{"ms":60000,"layout":1}}`))
			if got := br.session.info.Partitions; got != n {
				b.Fatalf("the session has %d partitions, want %d", got, n)
			}
			msg := []byte(`{"id":3,"type":"sim.advance","body":{"ms":333000,"layout":1}}`)
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				br.Handle(msg)
			}
			b.ReportMetric(float64(b.N)*333/b.Elapsed().Seconds(), "cluster-s/s")
		})
	}
}

// BenchmarkPageRecovery measures frames while partitions change, as the page shows a broker
// coming back at 10× speed: a frame per 170 ms of cluster time (the simulation between frames
// is not timed) from the moment the restarted broker's replicas start rejoining their ISRs,
// which they do from none to a few hundred partitions a frame (about a dozen on average).
// Run it with a fixed count, as the simulation costs far more than the frames it times: 300
// frames cover most of the rejoining.
//
//	go test -run '^$' -bench PageRecovery -benchtime 300x ./wasm/bridge
func BenchmarkPageRecovery(b *testing.B) {
	for _, n := range []int{10_000, 100_000} {
		// One session for both of the benchmark's runs (1 frame, then b.N): the second goes on
		// from where the first stopped.
		br := benchSession(b, n)
		s := br.session
		msg := []byte(`{"id":4,"type":"sim.frame","body":{"layout":1}}`)
		br.Handle([]byte(`{"id":5,"type":"sim.act","body":{"op":"start","broker":2}}`))
		br.Handle(msg)
		// The broker recovers its log, then its replicas catch up: wait for the first to
		// rejoin an ISR.
		under := s.enc.parts.under
		for s.enc.parts.under == under && s.c.Now() < 600_000 {
			s.runTo(s.c.Now() + 170)
			br.Handle(msg)
		}
		b.Run(fmt.Sprintf("partitions=%d", n), func(b *testing.B) {
			var rewrote, fulls int
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				s.runTo(s.c.Now() + 170)
				full := s.enc.parts.fulls
				b.StartTimer()
				br.Handle(msg)
				if s.enc.parts.fulls > full {
					fulls++
				} else {
					rewrote += s.enc.parts.rewrote
				}
			}
			b.ReportMetric(float64(rewrote)/float64(b.N-fulls), "rewritten/frame")
			b.ReportMetric(float64(fulls)/float64(b.N), "full-passes/frame")
		})
	}
}
