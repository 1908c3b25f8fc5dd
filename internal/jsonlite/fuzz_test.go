package jsonlite

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
)

// FuzzSameAsEncodingJSON runs arbitrary input through jsonlite and encoding/json and fails
// on any difference: validity, decoded values and errors (with their offsets) into an
// interface and into a struct, the Decoder's token stream and positions, Compact, and the
// encoding of the decoded value and of the input as a string. Run it longer with
//
//	go test ./internal/jsonlite -run '^$' -fuzz FuzzSameAsEncodingJSON -fuzztime 60s
func FuzzSameAsEncodingJSON(f *testing.F) {
	for _, seed := range []string{
		`{"i8": 1, "s": "x", "in": {"a": 2}, "any": [1, 2.5e-7, "\u00e9\ud83c\udf89", null, true, {"k": {}}]}`,
		`[1, "two", [3, [4]], {"five": 5}]`, `{"sl": [1, "x"], "i8": 300, "m": {"a": "b"}, "casea": 1, "X": 2}`,
		` "<&>\u2028\u0000" `, `12345678901234567890123`, `-0.0e-0`, `1e400`, `{"a": tru}`, `{"a" 1}`, `[1,]`, `{"a": 1} {"b": 2}`,
		`{"raw": {"x": [1, 2]}, "raws": "s", "inp": {"a": "bad"}, "um": {"300": true}, "im": {"-1": "x"}}`, "\xff", `"\ud800"`,
		`{"Embedded": 1, "x": 2, "Y": 3, "p": 4, "D": 5}`, `{"mode": "cluster", "events": [{"at_ms": 5, "op": "kill", "broker": 1}]}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		assert.Equal(t, json.Valid(data), Valid(data), "Valid")

		var wantAny, gotAny any
		wantErr, gotErr := json.Unmarshal(data, &wantAny), Unmarshal(data, &gotAny)
		sameError(t, wantErr, gotErr, "Unmarshal into any")
		assert.Equal(t, normalize(wantAny), normalize(gotAny), "Unmarshal into any")
		if wantErr == nil {
			sameMarshal2(t, wantAny, gotAny)
		}

		var wantT, gotT decodeTarget
		sameError(t, json.Unmarshal(data, &wantT), Unmarshal(data, &gotT), "Unmarshal into a struct")
		assert.Equal(t, normalize(wantT), normalize(gotT), "Unmarshal into a struct")

		wd, gd := json.NewDecoder(bytes.NewReader(data)), NewDecoder(bytes.NewReader(data))
		wd.UseNumber()
		gd.UseNumber()
		wd.DisallowUnknownFields()
		gd.DisallowUnknownFields()
		for i := 0; i < 4; i++ {
			var w, g decodeTarget
			we, ge := wd.Decode(&w), gd.Decode(&g)
			sameError(t, we, ge, "Decode %d", i)
			assert.Equal(t, normalize(w), normalize(g), "Decode %d", i)
			assert.Equal(t, wd.InputOffset(), gd.InputOffset(), "InputOffset after Decode %d", i)
			assert.Equal(t, wd.More(), gd.More(), "More after Decode %d", i)
			if we != nil {
				break
			}
		}

		wd, gd = json.NewDecoder(bytes.NewReader(data)), NewDecoder(bytes.NewReader(data))
		wd.UseNumber()
		gd.UseNumber()
		for i := 0; i < 200; i++ {
			assert.Equal(t, wd.More(), gd.More(), "More %d", i)
			wt, we := wd.Token()
			gt, ge := gd.Token()
			if !sameError(t, we, ge, "Token %d", i) {
				break
			}
			assert.Equal(t, normalize(wt), normalize(gt), "Token %d", i)
			assert.Equal(t, wd.InputOffset(), gd.InputOffset(), "InputOffset after Token %d", i)
			if we != nil {
				break
			}
		}

		var wc, gc bytes.Buffer
		sameError(t, json.Compact(&wc, data), Compact(&gc, data), "Compact")
		assert.Equal(t, wc.String(), gc.String(), "Compact")

		sameMarshal(t, string(data))
		sameMarshal(t, map[string]string{string(data): string(data), "k": ""})
	})
}
