package bridge

import (
	"bytes"
	"encoding/json"
	"strconv"
	"testing"
)

// FuzzLoad is the Go side of a share link: whatever a link's scenario and time hold, sim.load
// answers (a cluster, or an error naming the problem), never panics, and a refused load
// leaves the running cluster able to answer. `make fuzz` runs it:
//
//	go test ./wasm/bridge -run '^$' -fuzz FuzzLoad -fuzztime 60s
func FuzzLoad(f *testing.F) {
	f.Add([]byte(`{"seed":1,"duration_ms":60000,"cluster":{"brokers":3,"topics":[{"name":"t","partition_count":3,"replication_factor":3}]},"events":[{"at_ms":1000,"op":"kill","broker":0}]}`), int64(2000), int64(0))
	f.Add([]byte(`{"seed":1,"duration_ms":1000,"cluster":{"brokers":64,"topics":[{"name":"t","partition_count":100000,"replication_factor":3}]}}`), int64(0), int64(604800000))
	f.Add([]byte(`{"mode":"controller"}`), int64(-1), int64(1))
	f.Add([]byte(`"{\"seed\":"`), int64(0), int64(0))
	f.Fuzz(func(t *testing.T, scenario []byte, timeMs, replayToMs int64) {
		// Hold the work to what a test can do: a big cluster or a long replay is what the
		// limits refuse, and is tested where they are.
		timeMs, replayToMs = timeMs%120_000, replayToMs%(3*MaxSeekMs)
		if bytes.Count(scenario, []byte("0")) > 12 {
			return
		}
		b := New(Info{})
		if ok, _ := reply(t, b, `{"id":1,"type":"sim.start","body":{"seed":1,"brokers":3,"partitions":3}}`); !ok {
			t.Fatal("sim.start failed")
		}
		body := `{"scenario":` + jsonOrString(scenario) + `,"timeMs":` + strconv.FormatInt(timeMs, 10) + `,"replayToMs":` + strconv.FormatInt(replayToMs, 10) + `}`
		reply(t, b, `{"id":2,"type":"sim.load","body":`+body+`}`)
		if ok, msg := reply(t, b, `{"id":3,"type":"sim.advance","body":{"ms":100,"layout":0}}`); !ok {
			t.Fatalf("the page's cluster stopped answering after a load: %s", msg)
		}
	})
}

// jsonOrString passes the bytes as the scenario object when they are JSON, else as text, as a
// link's decoded text is.
func jsonOrString(b []byte) string {
	if json.Valid(b) {
		return string(b)
	}
	s, _ := json.Marshal(string(b)) // invalid UTF-8 becomes U+FFFD, as a TextDecoder would refuse it
	return string(s)
}

// reply sends one message and checks the answer is an envelope: ok, or an error with words.
func reply(t *testing.T, b *Bridge, msg string) (bool, string) {
	t.Helper()
	out, _ := b.Handle([]byte(msg))
	var env struct {
		OK    bool `json:"ok"`
		Error *struct {
			Code, Message string
		} `json:"error"`
	}
	if err := json.Unmarshal(out, &env); err != nil {
		t.Fatalf("reply is not JSON: %v: %s", err, out)
	}
	if !env.OK && (env.Error == nil || env.Error.Message == "") {
		t.Fatalf("a refusal without a message: %s", out)
	}
	if env.Error != nil && env.Error.Code == "internal" {
		t.Fatalf("a panic in the worker: %s", out)
	}
	msgText := ""
	if env.Error != nil {
		msgText = env.Error.Message
	}
	return env.OK, msgText
}
