package labmsg

import (
	"encoding/json"
	"runtime"
	"runtime/debug"
	"testing"

	"github.com/kraftlab/kraftlab/wasm/bridge"
)

// BenchmarkLabWorkerKIPRun is what one of the lab page's workers does for the KIP preset's
// compare: lab.drop, lab.run.start, lab.run.step in the page's slices of 120 s (web/ts/lab/pool.ts)
// to the end and lab.run.result, the KIP example's policy, at the lab wasm's GOGC. Under Node
// (GOOS=js GOARCH=wasm) it is a page worker's share of a compare without the browser: gcs/op
// counts its Go collections, sys-MB is the memory the Go runtime holds at the end (in the
// page, about the worker's linear memory).
func BenchmarkLabWorkerKIPRun(b *testing.B) {
	defer debug.SetGCPercent(debug.SetGCPercent(25)) // wasm/cmd/kraftlab-lab-wasm's
	br := newBridge()
	var p PlanBody
	benchCall(b, br, "lab.plan", PlanRequest{Description: json.RawMessage(`{"preset":"kip-load-test"}`), Policies: defaultPolicyRequests()}, &p)
	doc := p.Runs[p.Compare.Policies[1].Run]
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		benchCall(b, br, "lab.drop", struct{}{}, nil)
		var pr ProgressBody
		benchCall(b, br, "lab.run.start", StartRequest{ID: int64(i + 1), Scenario: doc}, &pr)
		for !pr.Done {
			benchCall(b, br, "lab.run.step", StepRequest{Ms: 120_000}, &pr)
		}
		benchCall(b, br, "lab.run.result", struct{}{}, nil)
	}
	b.StopTimer()
	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	b.ReportMetric(float64(after.NumGC-before.NumGC)/float64(b.N), "gcs/op")
	b.ReportMetric(float64(after.Sys)/1e6, "sys-MB")
}

// benchCall sends one request and decodes its reply's body into out (nil: ignored).
func benchCall(b *testing.B, br *bridge.Bridge, typ string, body, out any) {
	b.Helper()
	req, err := json.Marshal(struct {
		ID   int    `json:"id"`
		Type string `json:"type"`
		Body any    `json:"body"`
	}{1, typ, body})
	if err != nil {
		b.Fatal(err)
	}
	reply, _ := br.Handle(req)
	var env struct {
		bridge.Reply
		Body json.RawMessage `json:"body"`
	}
	if err := json.Unmarshal(reply, &env); err != nil || !env.OK {
		b.Fatalf("%s: %s", typ, reply)
	}
	if out != nil {
		if err := json.Unmarshal(env.Body, out); err != nil {
			b.Fatal(err)
		}
	}
}
