package scenario

import (
	"bytes"
	"errors"
	"testing"
)

// FuzzParse feeds the parser arbitrary bytes, seeded with every scenario of testdata:
//
//	go test ./cluster/scenario -run '^$' -fuzz FuzzParse -fuzztime 60s
//
// Parsing must never panic and must fail with a one-line *Error. Whatever it accepts must run
// and print without panicking; the harness caps clock advances, partition counts and events
// so that each input stays fast.
func FuzzParse(f *testing.F) {
	for _, file := range scenarioFiles(f) {
		f.Add(readFile(f, file))
	}
	f.Add([]byte(`{"mode": "controller", "brokers": [{"id": 0}], "steps": [{"op": "isr_leave", "broker": 0}]}`))
	defer func(n int64) { maxEvents = n }(maxEvents)
	maxEvents = 50_000
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := Parse(data)
		if err != nil {
			var se *Error
			if !errors.As(err, &se) || bytes.ContainsRune([]byte(err.Error()), '\n') {
				t.Fatalf("want a one-line *Error, got %T %q", err, err)
			}
			return
		}
		total := 0
		for i := range s.Topics {
			total += s.Topics[i].PartitionCount
		}
		for i := range s.Steps {
			st := &s.Steps[i]
			st.Ms = min(st.Ms, 20_000)
			if st.CreateTopic != nil {
				total += st.CreateTopic.PartitionCount
			}
		}
		if total > 2_000 {
			return // valid, but too slow for a fuzz iteration
		}
		res, err := Run(s)
		if err != nil {
			var se *Error
			if !errors.As(err, &se) {
				t.Fatalf("Run failed with %T %v", err, err)
			}
			return
		}
		var b bytes.Buffer
		if err := res.WriteJSON(&b); err != nil {
			t.Fatal(err)
		}
		if err := res.WriteText(&b); err != nil {
			t.Fatal(err)
		}
	})
}
