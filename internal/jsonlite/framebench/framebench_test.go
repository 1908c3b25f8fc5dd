package framebench

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/kraftlab/kraftlab/internal/jsonlite"
	"github.com/kraftlab/kraftlab/wasm/bridge"
)

// frame is the frame the page gets at 10,000 partitions when a broker has been killed and
// fenced (with the events that says): the reply's body decoded back into the bridge's Frame.
func frame(tb testing.TB) *bridge.Frame {
	tb.Helper()
	br := bridge.New(bridge.Info{})
	for i, msg := range []string{`{"type":"sim.start","body":{"brokers":6,"partitions":10000}}`,
		`{"type":"sim.act","body":{"op":"kill","broker":2}}`, `{"type":"sim.advance","body":{"ms":15000,"layout":1}}`} {
		out, _ := br.Handle([]byte(fmt.Sprintf(`{"id":%d,%s`, i+1, msg[1:])))
		var r struct {
			OK   bool            `json:"ok"`
			Body json.RawMessage `json:"body"`
		}
		require.NoError(tb, json.Unmarshal(out, &r))
		require.True(tb, r.OK, "%s", out)
		if i == 2 {
			var f bridge.Frame
			require.NoError(tb, json.Unmarshal(r.Body, &f))
			require.NotEmpty(tb, f.Events)
			return &f
		}
	}
	panic("unreachable")
}

// TestFrameSame: the frame encodes to the same bytes with both.
func TestFrameSame(t *testing.T) {
	f := frame(t)
	want, err := json.Marshal(f)
	require.NoError(t, err)
	got, err := jsonlite.Marshal(f)
	require.NoError(t, err)
	require.Equal(t, string(want), string(got))
}

// BenchmarkMarshalFrame encodes the frame's JSON part, which the bridge does for every frame:
//
//	go test -run '^$' -bench MarshalFrame ./internal/jsonlite/framebench
//	GOOS=js GOARCH=wasm go test -run '^$' -bench MarshalFrame -exec="$(go env GOROOT)/lib/wasm/go_js_wasm_exec" ./internal/jsonlite/framebench
func BenchmarkMarshalFrame(b *testing.B) {
	f := frame(b)
	for _, c := range []struct {
		name    string
		marshal func(any) ([]byte, error)
	}{{"encoding-json", json.Marshal}, {"jsonlite", jsonlite.Marshal}} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			var n int
			for b.Loop() {
				out, err := c.marshal(f)
				if err != nil {
					b.Fatal(err)
				}
				n = len(out)
			}
			b.ReportMetric(float64(n), "bytes")
		})
	}
}
