package jsonlite

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// These tests hold jsonlite to encoding/json: every case runs through both and must give
// the same bytes, the same decoded values and the same errors.

// sameMarshal marshals v with both packages and requires the same bytes or the same error.
func sameMarshal(t *testing.T, v any) {
	t.Helper()
	sameMarshal2(t, v, v)
}

// sameMarshal2 marshals w with encoding/json and g with jsonlite: the same value but for each
// package's own Number.
func sameMarshal2(t *testing.T, w, g any) {
	t.Helper()
	want, wantErr := json.Marshal(w)
	got, gotErr := Marshal(g)
	if wantErr != nil {
		if assert.Error(t, gotErr, "encoding/json fails with %v", wantErr) {
			assert.Equal(t, wantErr.Error(), gotErr.Error())
		}
		return
	}
	if assert.NoError(t, gotErr, "%#v", g) {
		assert.Equal(t, string(want), string(got), "%#v", g)
	}
}

type inner struct {
	A int    `json:"a"`
	B string `json:"b,omitempty"`
}

type Embedded struct {
	X int `json:"x"`
	Y int
}

type embeddedPtr struct {
	P int `json:"p"`
}

type Dup1 struct{ D int }
type Dup2 struct{ D int }

// Shared is embedded twice at the same depth (through SideA and SideB), so that its S
// annihilates itself, while Top, one level up, wins over the deeper Top fields; of the two V
// at the same depth, the tagged one wins.
type Shared struct {
	S   int
	Top int
}
type SideA struct {
	Shared
	A int
	V int `json:"V"`
}
type SideB struct {
	Shared
	B int
	V int
}
type diamond struct {
	SideA
	SideB
	Top int
}

type tagged struct {
	Name    string            `json:"name"`
	Skip    string            `json:"-"`
	Dash    string            `json:"-,"`
	Empty   []int             `json:"empty,omitempty"`
	Nil     []int             `json:"nil"`
	NilMap  map[string]int    `json:"nilMap"`
	Map     map[string]int    `json:"map"`
	IntMap  map[int32]string  `json:"intMap"`
	UintMap map[uint8]bool    `json:"uintMap"`
	Ptr     *int              `json:"ptr"`
	PtrOmit *int              `json:"ptrOmit,omitempty"`
	Iface   any               `json:"iface"`
	Arr     [3]int8           `json:"arr"`
	F32     float32           `json:"f32"`
	F64     float64           `json:"f64"`
	U       uint64            `json:"u"`
	Raw     RawMessage        `json:"raw"`
	RawStd  json.RawMessage   `json:"rawStd"`
	Inner   inner             `json:"inner"`
	Inners  []inner           `json:"inners"`
	Deep    map[string][]any  `json:"deep"`
	Weird   string            `json:"a\"b"`
	HTML    string            `json:"<&>"`
	unexp   int               //nolint:unused // checks unexported fields are skipped
	Punct   string            `json:"!#$%&()*+-./:;<=>?@[]^_{|}~ "`
	Strs    map[string]string `json:"strs,omitempty"`
	Embedded
	*embeddedPtr
	Dup1
	Dup2
}

type valueMarshaler struct{ s string }

func (v valueMarshaler) MarshalJSON() ([]byte, error) { return []byte(v.s), nil }

type ptrMarshaler struct{ n int }

func (p *ptrMarshaler) MarshalJSON() ([]byte, error) {
	return []byte(fmt.Sprintf(` { "n" : %d , "s": "<a&b>\u2028" } `, p.n)), nil
}

type failingMarshaler struct{}

func (failingMarshaler) MarshalJSON() ([]byte, error) { return nil, errors.New("no way") }

type withMarshalers struct {
	V   valueMarshaler  `json:"v"`
	VP  *valueMarshaler `json:"vp"`
	P   ptrMarshaler    `json:"p"`
	PP  *ptrMarshaler   `json:"pp"`
	Nil *ptrMarshaler   `json:"nil"`
	I   Marshaler       `json:"i"`
}

type cyclic struct {
	Next *cyclic `json:"next"`
}

func TestMarshalSameAsEncodingJSON(t *testing.T) {
	one := 1
	strs := []string{
		"", "plain", "<script>&amp;</script>", "quote\" backslash\\ slash/", "\b\f\n\r\t\x00\x01\x1f\x7f",
		"\u2028\u2029", "é ü 中文 🎉", "bad \xff utf8 \xc3", "\xed\xa0\x80 surrogate", "\ufffd",
	}
	for _, s := range strs {
		sameMarshal(t, s)
		sameMarshal(t, map[string]string{s: s})
	}
	floats := []float64{0, math.Copysign(0, -1), 1, -1, 0.1, 1e-6, 1e-7, 9.999999e-7, 1e20, 1e21, 1e21 - 1e5, 123456789.123,
		math.MaxFloat64, math.SmallestNonzeroFloat64, 1.0 / 3, 5e-324, 2.5e-9, 1e100}
	for _, f := range floats {
		sameMarshal(t, f)
		sameMarshal(t, -f)
		sameMarshal(t, float32(f))
	}
	for _, bad := range []any{math.NaN(), math.Inf(1), float32(math.Inf(-1)), make(chan int), func() {}, complex(1, 2),
		map[[2]int]int{{1, 2}: 3}, failingMarshaler{}, valueMarshaler{"{bad"}} {
		sameMarshal(t, bad)
	}
	for _, n := range []string{"", "0", "-1.5e+10", "12345678901234567890", "1.2.3", "abc", "01", "1e", "-"} {
		sameMarshal2(t, json.Number(n), Number(n))
		sameMarshal2(t, []any{json.Number(n)}, []any{Number(n)})
	}
	sameMarshal(t, nil)
	sameMarshal(t, []any{nil, true, false, int8(-128), uint64(math.MaxUint64), int64(math.MinInt64), "x"})
	sameMarshal(t, map[string]any{"b": 1, "a": []int{}, "c": map[string]int{}, "": nil, "A": 2, "é": 3, "<": 4})
	sameMarshal(t, map[int]int{10: 1, 9: 2, -1: 3, 100: 4})
	sameMarshal(t, map[uint]int{10: 1, 9: 2})
	sameMarshal(t, [0]int{})
	sameMarshal(t, [][2]string{{"a", "b"}})
	sameMarshal(t, struct{}{})
	sameMarshal(t, &struct{ A, B int }{1, 2})
	sameMarshal(t, struct{ A *struct{ B int } }{})
	full := tagged{Name: "n", Skip: "s", Dash: "d", Nil: nil, Map: map[string]int{"z": 1, "a": 2}, IntMap: map[int32]string{3: "c", -1: "m"},
		UintMap: map[uint8]bool{1: true}, Ptr: &one, Iface: map[string]any{"k": []any{1.5, "s", nil}}, Arr: [3]int8{1, -2, 3},
		F32: 3.14, F64: 1e-9, U: 7, Raw: RawMessage(` { "x" : [1, 2] } `), RawStd: json.RawMessage(`"<>"`), Inner: inner{A: 1},
		Inners: []inner{{A: 2, B: "b"}}, Deep: map[string][]any{"k": {map[string]any{}}}, Weird: "w", HTML: "h",
		Embedded: Embedded{X: 5, Y: 6}, embeddedPtr: &embeddedPtr{P: 9}, Dup1: Dup1{1}, Dup2: Dup2{2}}
	sameMarshal(t, full)
	sameMarshal(t, &full)
	sameMarshal(t, tagged{})
	sameMarshal(t, diamond{SideA{Shared{1, 2}, 3, 4}, SideB{Shared{5, 6}, 7, 8}, 9})
	sameMarshal(t, withMarshalers{V: valueMarshaler{`"v"`}, VP: &valueMarshaler{`[1, 2]`}, P: ptrMarshaler{1}, PP: &ptrMarshaler{2}, I: valueMarshaler{"3"}})
	// Not addressable: the pointer method is not used, as in encoding/json.
	sameMarshal(t, withMarshalers{P: ptrMarshaler{1}})
	sameMarshal(t, []withMarshalers{{P: ptrMarshaler{4}}})
	sameMarshal(t, map[string]ptrMarshaler{"a": {5}})
	sameMarshal(t, RawMessage(nil))
	sameMarshal(t, RawMessage(`{"a" :1}`))
	sameMarshal(t, RawMessage(`{"a" :`))

	c := &cyclic{}
	c.Next = c
	sameMarshal(t, c)
	m := map[string]any{}
	m["m"] = m
	sameMarshal(t, m)
	s := []any{nil}
	s[0] = s
	sameMarshal(t, s)
}

// TestMarshalPanicsLikeEncodingJSON: a panic in a MarshalJSON method goes through, so that the
// bridge's recover sees it.
func TestMarshalPanicsLikeEncodingJSON(t *testing.T) {
	assert.PanicsWithValue(t, "boom", func() { _, _ = Marshal(panicky{}) })
	// The pooled state it leaves behind does not poison the next encoding.
	b, err := Marshal(map[string]int{"a": 1})
	require.NoError(t, err)
	assert.Equal(t, `{"a":1}`, string(b))
}

type panicky struct{}

func (panicky) MarshalJSON() ([]byte, error) { panic("boom") }

func TestUnsupportedFeaturesFailClearly(t *testing.T) {
	type withString struct {
		N int `json:"n,string"`
	}
	type withOmitZero struct {
		N int `json:"n,omitzero"`
	}
	type nonASCIITag struct {
		N int `json:"né"`
	}
	type stringOnStruct struct { // ,string does nothing on a struct: allowed
		S inner `json:"s,string"`
	}
	for _, v := range []any{withString{}, withOmitZero{}, nonASCIITag{}, []byte("x"), text{}, &text{}, map[text]int{{}: 1}} {
		_, err := Marshal(v)
		require.Error(t, err, "%T", v)
		assert.Contains(t, err.Error(), "not supported", "%T", v)
	}
	b, err := Marshal(stringOnStruct{})
	require.NoError(t, err)
	assert.Equal(t, `{"s":{"a":0}}`, string(b))

	for _, target := range []any{&withString{}, &withOmitZero{}, &nonASCIITag{}, &text{}, &map[text]int{}} {
		err := Unmarshal([]byte(`{"n": 1, "x": "y"}`), target)
		require.Error(t, err, "%T", target)
		assert.Contains(t, err.Error(), "not supported", "%T", target)
	}
	var bs []byte
	err = Unmarshal([]byte(`"eA=="`), &bs)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "not supported")
	var tx text
	err = Unmarshal([]byte(`"t"`), &tx)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "not supported")
}

type text struct{ s string }

func (t text) MarshalText() ([]byte, error)  { return []byte(t.s), nil }
func (t *text) UnmarshalText(b []byte) error { t.s = string(b); return nil }

// normalize turns a decoded value into a tree of plain values in which encoding/json's
// Number and RawMessage read as jsonlite's, so that the two packages' decodings compare
// equal: structs (unexported fields too) become maps of their fields, pointers, slices and
// maps keep whether they are nil.
func normalize(v any) any { return canonValue(reflect.ValueOf(v)) }

// canon is normalize, for the project's types.
func canon(v any) any { return normalize(v) }

func canonValue(v reflect.Value) any {
	if !v.IsValid() {
		return nil
	}
	name := strings.NewReplacer("json.Number", "jsonlite.Number", "json.RawMessage", "jsonlite.RawMessage", "json.Delim", "jsonlite.Delim").Replace(v.Type().String())
	switch v.Kind() {
	case reflect.Interface:
		if v.IsNil() {
			return nil
		}
		return canonValue(v.Elem())
	case reflect.Pointer:
		if v.IsNil() {
			return "nil " + name
		}
		return map[string]any{"*": canonValue(v.Elem())}
	case reflect.Struct:
		m := map[string]any{"type": name}
		for i := 0; i < v.NumField(); i++ {
			m[v.Type().Field(i).Name] = canonValue(v.Field(i))
		}
		return m
	case reflect.Slice, reflect.Array:
		if v.Kind() == reflect.Slice && v.IsNil() {
			return "nil " + name
		}
		if v.Type().Elem().Kind() == reflect.Uint8 {
			return name + ":" + string(v.Bytes())
		}
		out := []any{name}
		for i := 0; i < v.Len(); i++ {
			out = append(out, canonValue(v.Index(i)))
		}
		return out
	case reflect.Map:
		if v.IsNil() {
			return "nil " + name
		}
		m := map[string]any{"type": name}
		for it := v.MapRange(); it.Next(); {
			m[fmt.Sprint(canonValue(it.Key()))] = canonValue(it.Value())
		}
		return m
	case reflect.String:
		return name + ":" + v.String()
	case reflect.Bool:
		return name + ":" + strconv.FormatBool(v.Bool())
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return name + ":" + strconv.FormatInt(v.Int(), 10)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return name + ":" + strconv.FormatUint(v.Uint(), 10)
	case reflect.Float32, reflect.Float64:
		return name + ":" + strconv.FormatFloat(v.Float(), 'g', -1, 64)
	}
	return name + ":" + v.Kind().String()
}

// sameError requires both errors nil, or both set with the same text (and, for syntax errors,
// the same offset).
func sameError(t *testing.T, want, got error, msgAndArgs ...any) bool {
	t.Helper()
	if want == nil {
		return assert.NoError(t, got, msgAndArgs...)
	}
	if !assert.Error(t, got, msgAndArgs...) {
		return false
	}
	// Only the package's own types are named differently.
	gotText := strings.NewReplacer("jsonlite.Number", "json.Number", "jsonlite.RawMessage", "json.RawMessage").Replace(got.Error())
	ok := assert.Equal(t, want.Error(), gotText, msgAndArgs...)
	var ws *json.SyntaxError
	var gs *SyntaxError
	if errors.As(want, &ws) {
		if assert.True(t, errors.As(got, &gs), "want a *SyntaxError, got %T", got) {
			ok = assert.Equal(t, ws.Offset, gs.Offset, msgAndArgs...) && ok
		}
	}
	var wt *json.UnmarshalTypeError
	var gt *UnmarshalTypeError
	if errors.As(want, &wt) {
		if assert.True(t, errors.As(got, &gt), "want an *UnmarshalTypeError, got %T", got) {
			ok = assert.Equal(t, wt.Offset, gt.Offset, msgAndArgs...) && ok
		}
	}
	return ok
}

// sameUnmarshal decodes data into a fresh *W with encoding/json and a fresh *G with jsonlite
// (W and G are the same type, or each package's Number or RawMessage), with Unmarshal and then
// with a Decoder given the options, and compares the values, the errors and the Decoder's
// position.
func sameUnmarshal[W, G any](t *testing.T, data string, opts ...string) bool {
	t.Helper()
	var want W
	var got G
	wantErr := json.Unmarshal([]byte(data), &want)
	gotErr := Unmarshal([]byte(data), &got)
	ok := sameError(t, wantErr, gotErr, "Unmarshal(%q) into %T", data, &got)
	ok = assert.Equal(t, normalize(want), normalize(got), "Unmarshal(%q) into %T", data, &got) && ok

	var wantD W
	var gotD G
	wd := json.NewDecoder(strings.NewReader(data))
	gd := NewDecoder(strings.NewReader(data))
	for _, o := range opts {
		switch o {
		case "number":
			wd.UseNumber()
			gd.UseNumber()
		case "strict":
			wd.DisallowUnknownFields()
			gd.DisallowUnknownFields()
		}
	}
	for i := 0; i < 3; i++ { // a stream of values, and what comes after it
		wantErr, gotErr := wd.Decode(&wantD), gd.Decode(&gotD)
		ok = sameError(t, wantErr, gotErr, "Decode %d of %q into %T %v", i, data, &got, opts) && ok
		ok = assert.Equal(t, normalize(wantD), normalize(gotD), "Decode %d of %q into %T %v", i, data, &got, opts) && ok
		ok = assert.Equal(t, wd.InputOffset(), gd.InputOffset(), "InputOffset after Decode %d of %q", i, data) && ok
		ok = assert.Equal(t, wd.More(), gd.More(), "More after Decode %d of %q", i, data) && ok
		if wantErr != nil {
			break
		}
	}
	return ok
}

type decodeTarget struct {
	I8    int8              `json:"i8"`
	U16   uint16            `json:"u16"`
	F32   float32           `json:"f32"`
	F64   float64           `json:"f64"`
	S     string            `json:"s"`
	B     bool              `json:"b"`
	P     *int              `json:"p"`
	PP    **string          `json:"pp"`
	Sl    []int             `json:"sl"`
	Arr   [2]string         `json:"arr"`
	M     map[string]int    `json:"m"`
	IM    map[int8]string   `json:"im"`
	UM    map[uint8]bool    `json:"um"`
	Any   any               `json:"any"`
	Str   fmt.Stringer      `json:"str"`
	In    inner             `json:"in"`
	InP   *inner            `json:"inp"`
	Ins   []inner           `json:"ins"`
	MIn   map[string]inner  `json:"min"`
	Raw   RawMessage        `json:"raw"`
	RawS  json.RawMessage   `json:"raws"`
	Deep  map[string][]*int `json:"deep"`
	CaseA int               `json:"CaseA"`
	Kelv  int               `json:"kelvin"`
	Long  int               `json:"long_s"`
	Embedded
	*embeddedPtr
	Dup1
	Dup2
}

func TestUnmarshalSameAsEncodingJSON(t *testing.T) {
	targets := []string{
		`{}`, `null`, `{"i8": 127, "u16": 65535, "f32": 3.4e38, "f64": -1.5e-300, "s": "x\u00e9\ud83c\udf89", "b": true}`,
		`{"i8": 128}`, `{"i8": -129}`, `{"i8": 1.5}`, `{"i8": "1"}`, `{"u16": -1}`, `{"u16": 1e2}`, `{"f32": 1e39}`, `{"f64": 1e400}`,
		`{"s": 5}`, `{"s": null}`, `{"b": "true"}`, `{"b": null}`, `{"p": 5}`, `{"p": null}`, `{"pp": "x"}`, `{"pp": null}`,
		`{"sl": [1, 2, 3]}`, `{"sl": []}`, `{"sl": null}`, `{"sl": [1, "x", 3]}`, `{"sl": {}}`, `{"arr": ["a", "b", "c"]}`, `{"arr": ["a"]}`,
		`{"m": {"a": 1, "b": 2}}`, `{"m": {"a": "x"}}`, `{"m": []}`, `{"im": {"1": "a", "-5": "b"}}`, `{"im": {"300": "a"}}`, `{"im": {"x": "a"}}`,
		`{"um": {"256": true}}`, `{"um": {"-1": true, "2": false}}`,
		`{"any": {"a": [1, 2.5, "s", null, true, {"n": 1e400}]}}`, `{"any": 12345678901234567890}`, `{"str": "x"}`, `{"str": null}`, `{"str": 1}`,
		`{"in": {"a": 1, "b": "x", "c": 3}}`, `{"in": {"a": "x"}}`, `{"inp": {"a": 2}}`, `{"inp": null}`, `{"ins": [{"a": 1}, {"a": "y"}]}`,
		`{"min": {"k": {"a": true}}}`, `{"raw": {"x" : [1, 2]}, "raws": [ 1 , 2 ]}`, `{"raw": null}`, `{"deep": {"k": [1, null, 3]}}`,
		`{"casea": 1}`, `{"CASEA": 2}`, `{"CaseA": 3, "casea": 4}`, `{"\u212aelvin": 5}`, `{"long_\u017f": 6}`, `{"I8": 1, "S": "x"}`,
		`{"x": 1, "Y": 2, "p": 3, "D": 4}`, `{"S": 1, "Top": 2, "V": 3, "A": 4, "B": 5, "v": 6, "SideA": {"S": 7}}`, `{"unknown": [1, {"a": 2}], "i8": 1}`, `{"i8": "bad", "u16": "bad"}`,
		`{"in": {"a": "x"}, "i8": 999}`, `{"Embedded": {"x": 1}}`, `{"inp": {"a": "s"}}`,
		`[]`, `"str"`, `1`, `true`, ` {"i8": 1} `, `{"i8": 1} {"i8": 2}`, `{"i8": 1} x`, `{"i8": 1}]`,
		``, ` `, `{`, `{"i8"`, `{"i8":`, `{"i8": 1`, `{"i8": 1,`, `{"i8": 1,}`, `[1,]`, `{"i8" 1}`, `{"i8": tru}`, `{"i8": nul}`,
		`{"i8": -}`, `{"i8": 01}`, `{"i8": 1.}`, `{"i8": 1e}`, `{"i8": 1e+}`, `{"s": "\x01"}`, `{"s": "\q"}`, `{"s": "\u12g4"}`,
		`{"s": "` + "\xff" + `"}`, `{"s": "\ud800"}`, `{"s": "\ud800\u0041"}`, `{"s": "\udc00\ud800"}`, "{\"s\": \"a\u2028b\"}",
		`{'a': 1}`, `{"a": 1}}`, `[[[[[]]]]]`, `{"i8": 1, "i8": 2}`,
	}
	for _, data := range targets {
		sameUnmarshal[decodeTarget, decodeTarget](t, data)
		sameUnmarshal[diamond, diamond](t, data, "strict")
		sameUnmarshal[decodeTarget, decodeTarget](t, data, "strict")
		sameUnmarshal[decodeTarget, decodeTarget](t, data, "number", "strict")
		sameUnmarshal[any, any](t, data)
		sameUnmarshal[any, any](t, data, "number")
		sameUnmarshal[map[string]any, map[string]any](t, data)
		sameUnmarshal[[]int, []int](t, data)
		sameUnmarshal[string, string](t, data)
		sameUnmarshal[json.RawMessage, RawMessage](t, data)
		sameUnmarshal[json.Number, Number](t, data)
	}
	deep := strings.Repeat("[", 10001) + strings.Repeat("]", 10001)
	sameUnmarshal[any, any](t, deep)
	sameUnmarshal[json.Number, Number](t, `"1.5"`)
	sameUnmarshal[json.Number, Number](t, `"x"`)
	sameUnmarshal[json.Number, Number](t, `12e5`)
}

func TestUnmarshalInvalidTargets(t *testing.T) {
	for _, v := range []any{nil, 0, (*int)(nil), map[string]int{}} {
		sameError(t, json.Unmarshal([]byte(`1`), v), Unmarshal([]byte(`1`), v), "%T", v)
	}
}

// TestUnmarshalIntoExistingValues: decoding merges into what is there, as encoding/json does.
func TestUnmarshalIntoExistingValues(t *testing.T) {
	type T struct {
		M  map[string]int `json:"m"`
		S  []inner        `json:"s"`
		A  any            `json:"a"`
		IP any            `json:"ip"`
	}
	mk := func() T {
		n := 5
		s := make([]inner, 2, 4)
		s[0] = inner{A: 1, B: "keep"}
		return T{M: map[string]int{"old": 1}, S: s, A: "was", IP: &n}
	}
	for _, data := range []string{`{"m": {"new": 2}, "s": [{"a": 9}], "a": 3, "ip": 7}`, `{"s": [{"b": "x"}, {"a": 2}, {"a": 3}]}`, `{"m": null, "s": null, "ip": null}`} {
		want, got := mk(), mk()
		require.NoError(t, json.Unmarshal([]byte(data), &want))
		require.NoError(t, Unmarshal([]byte(data), &got))
		assert.Equal(t, want, got, data)
	}
}

func TestTokenSameAsEncodingJSON(t *testing.T) {
	for _, data := range []string{
		`{"a": [1, "x", true, null, {"b": {}}], "c": []}`, ` [ ] `, `1 2 "x" [3]`, `{"a" 1}`, `{"a": 1 "b": 2}`, `[1 2]`, `]`, `{]`, `[}`,
		`{1: 2}`, `{"a": tru}`, `{"a": "x`, `{"a": [`, `{"a":: 1}`, `[,1]`, `{,}`, `{"a",}`, `[1,,2]`, `"\x01"`, `nul`, `{"a": 1e400}`, ``,
		"{\n  \"mode\": \"controller\",\n  \"seed\": tru}",
	} {
		for _, useNumber := range []bool{false, true} {
			wd, gd := json.NewDecoder(strings.NewReader(data)), NewDecoder(strings.NewReader(data))
			if useNumber {
				wd.UseNumber()
				gd.UseNumber()
			}
			for i := 0; i < 40; i++ {
				wantMore, gotMore := wd.More(), gd.More()
				assert.Equal(t, wantMore, gotMore, "More %d of %q", i, data)
				wt, wantErr := wd.Token()
				gt, gotErr := gd.Token()
				if !sameError(t, wantErr, gotErr, "Token %d of %q", i, data) {
					break
				}
				assert.Equal(t, normalize(wt), normalize(gt), "Token %d of %q", i, data)
				assert.Equal(t, wd.InputOffset(), gd.InputOffset(), "InputOffset after Token %d of %q", i, data)
				if wantErr != nil {
					break
				}
			}
		}
	}
}

func TestCompactAndValidSameAsEncodingJSON(t *testing.T) {
	for _, data := range []string{`{ "a" : [ 1 , 2 ] , "b" : "<x> \u2028 ` + "\u2028" + `" }`, ` 1 `, `[1,`, `{"a":1}x`, ``, `"\u0041"`, "[\n\t1\r]"} {
		var want, got bytes.Buffer
		want.WriteString("prefix")
		got.WriteString("prefix")
		sameError(t, json.Compact(&want, []byte(data)), Compact(&got, []byte(data)), "Compact(%q)", data)
		assert.Equal(t, want.String(), got.String(), "Compact(%q)", data)
		assert.Equal(t, json.Valid([]byte(data)), Valid([]byte(data)), "Valid(%q)", data)
	}
}

func TestEncoderSameAsEncodingJSON(t *testing.T) {
	v := map[string]any{"a": []any{1, "<b>", map[string]any{}}, "c": []int{}, "d": map[string]int{"x": 1}}
	for _, html := range []bool{true, false} {
		for _, indent := range [][2]string{{"", ""}, {"", "  "}, {">", "\t"}} {
			var want, got bytes.Buffer
			we, ge := json.NewEncoder(&want), NewEncoder(&got)
			we.SetEscapeHTML(html)
			ge.SetEscapeHTML(html)
			we.SetIndent(indent[0], indent[1])
			ge.SetIndent(indent[0], indent[1])
			for _, x := range []any{v, 1, "s", nil} {
				require.NoError(t, we.Encode(x))
				require.NoError(t, ge.Encode(x))
			}
			sameError(t, we.Encode(math.NaN()), ge.Encode(math.NaN()))
			assert.Equal(t, want.String(), got.String())
		}
	}
}

// errWriter fails every write.
type errWriter struct{}

func (errWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

func TestEncoderWriteError(t *testing.T) {
	we, ge := json.NewEncoder(errWriter{}), NewEncoder(errWriter{})
	sameError(t, we.Encode(1), ge.Encode(1))
	sameError(t, we.Encode(2), ge.Encode(2)) // the error sticks
}
