// Portions copyright 2010 The Go Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in Go's LICENSE file.

package jsonlite

import (
	"encoding"
	"fmt"
	"math"
	"reflect"
	"sort"
	"strconv"
	"sync"
	"unicode/utf8"
)

// Marshal returns the JSON encoding of v, byte for byte what encoding/json's Marshal returns
// for the kinds this package supports (see the package documentation); the others fail with
// an error.
func Marshal(v any) ([]byte, error) {
	e := newEncodeState(true)
	defer encodeStatePool.Put(e)
	if err := e.marshal(v); err != nil {
		return nil, err
	}
	return append([]byte(nil), e.buf...), nil
}

// Marshaler is the interface implemented by types that can marshal themselves into valid
// JSON.
type Marshaler interface {
	MarshalJSON() ([]byte, error)
}

// An UnsupportedTypeError is returned by [Marshal] when attempting to encode an unsupported
// value type.
type UnsupportedTypeError struct {
	Type reflect.Type
}

// Error names the type, in encoding/json's words.
func (e *UnsupportedTypeError) Error() string {
	return "json: unsupported type: " + e.Type.String()
}

// An UnsupportedValueError is returned by [Marshal] when attempting to encode an unsupported
// value, such as NaN or a cycle.
type UnsupportedValueError struct {
	Value reflect.Value
	Str   string
}

// Error names the value, in encoding/json's words.
func (e *UnsupportedValueError) Error() string {
	return "json: unsupported value: " + e.Str
}

// A MarshalerError represents an error from calling a [Marshaler.MarshalJSON] method.
type MarshalerError struct {
	Type reflect.Type
	Err  error
}

// Error names the type and the method's error, in encoding/json's words.
func (e *MarshalerError) Error() string {
	return "json: error calling MarshalJSON for type " + e.Type.String() + ": " + e.Err.Error()
}

// Unwrap returns the underlying error.
func (e *MarshalerError) Unwrap() error { return e.Err }

const hex = "0123456789abcdef"

// An encodeState encodes JSON into buf.
type encodeState struct {
	buf        []byte
	escapeHTML bool
	// ptrLevel and ptrSeen detect a cycle, as encoding/json does: the map is only used beyond
	// startDetectingCyclesAfter nested pointers, maps or slices.
	ptrLevel uint
	ptrSeen  map[any]struct{}
}

const startDetectingCyclesAfter = 1000

var encodeStatePool sync.Pool

func newEncodeState(escapeHTML bool) *encodeState {
	if v := encodeStatePool.Get(); v != nil {
		e := v.(*encodeState)
		// An encoding that failed half-way left its pointers behind.
		e.buf, e.escapeHTML, e.ptrLevel = e.buf[:0], escapeHTML, 0
		clear(e.ptrSeen)
		return e
	}
	return &encodeState{escapeHTML: escapeHTML, ptrSeen: make(map[any]struct{})}
}

// jsonError wraps an error the encoder panics with, so that marshal tells it from any other
// panic (which it lets through, as encoding/json does).
type jsonError struct{ error }

func (e *encodeState) marshal(v any) (err error) {
	defer func() {
		if r := recover(); r != nil {
			je, ok := r.(jsonError)
			if !ok {
				panic(r)
			}
			err = je.error
		}
	}()
	rv := reflect.ValueOf(v)
	if !rv.IsValid() {
		e.buf = append(e.buf, "null"...)
		return nil
	}
	e.encode(planFor(rv.Type()), rv)
	return nil
}

// error aborts the encoding.
func (e *encodeState) error(err error) {
	panic(jsonError{err})
}

// An encPlan is how values of one type are encoded, worked out once per type as
// encoding/json's per-type encoder functions are. One switch over plan kinds in encode,
// rather than one function per kind, because each function costs hundreds of bytes of wasm.
type encPlan struct {
	kind uint8
	// elem is the plan of a pointer's, slice's, array's or map's element; for
	// eAddrMarshaler, the plan of a value that is not addressable.
	elem   *encPlan
	fields *structFields // eStruct
	plans  []*encPlan    // eStruct: the fields' plans, parallel to fields.list
	err    error         // eFail
}

// Plan kinds.
const (
	eBool uint8 = iota
	eInt
	eUint
	eFloat32
	eFloat64
	eString
	eNumber
	eIface
	eStruct
	eMap
	eSlice
	eArray
	ePtr
	eMarshaler     // the type has MarshalJSON
	eAddrMarshaler // its pointer has MarshalJSON: used when the value is addressable
	eFail          // a feature this package leaves out: fails with err
	eUnsupported   // no JSON form: fails with an *UnsupportedTypeError
)

var (
	planCache sync.Map   // map[reflect.Type]*encPlan
	planMu    sync.Mutex // held while plans are built
)

func planFor(t reflect.Type) *encPlan {
	if p, ok := planCache.Load(t); ok {
		return p.(*encPlan)
	}
	planMu.Lock()
	defer planMu.Unlock()
	building := map[reflect.Type]*encPlan{}
	p := buildPlan(t, true, building)
	// Published only once complete: a recursive type's plan refers to itself.
	for t, p := range building {
		planCache.Store(t, p)
	}
	return p
}

var (
	marshalerType     = reflect.TypeFor[Marshaler]()
	textMarshalerType = reflect.TypeFor[encoding.TextMarshaler]()
)

// buildPlan makes the plan of t as encoding/json's newTypeEncoder chooses the encoder. With
// allowAddr, a value whose pointer has MarshalJSON uses it when the value is addressable.
func buildPlan(t reflect.Type, allowAddr bool, building map[reflect.Type]*encPlan) *encPlan {
	if allowAddr {
		if p, ok := building[t]; ok {
			return p
		}
		if p, ok := planCache.Load(t); ok {
			return p.(*encPlan)
		}
	}
	p := &encPlan{}
	if allowAddr {
		building[t] = p
	}
	k := t.Kind()
	switch {
	case k != reflect.Pointer && allowAddr && reflect.PointerTo(t).Implements(marshalerType):
		p.kind, p.elem = eAddrMarshaler, buildPlan(t, false, building)
		return p
	case t.Implements(marshalerType):
		p.kind = eMarshaler
		return p
	case t.Implements(textMarshalerType) || k != reflect.Pointer && reflect.PointerTo(t).Implements(textMarshalerType):
		return p.fail("encoding.TextMarshaler", t)
	}
	switch k {
	case reflect.Bool:
		p.kind = eBool
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		p.kind = eInt
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		p.kind = eUint
	case reflect.Float32:
		p.kind = eFloat32
	case reflect.Float64:
		p.kind = eFloat64
	case reflect.String:
		p.kind = eString
		if t == numberType {
			p.kind = eNumber
		}
	case reflect.Interface:
		p.kind = eIface
	case reflect.Struct:
		p.kind, p.fields = eStruct, cachedTypeFields(t)
		if p.fields.err != nil {
			p.kind, p.err = eFail, p.fields.err
			break
		}
		for i := range p.fields.list {
			p.plans = append(p.plans, buildPlan(typeByIndex(t, p.fields.list[i].index), true, building))
		}
	case reflect.Map:
		switch kt := t.Key(); kt.Kind() {
		case reflect.String,
			reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
			reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
			if kt.Implements(textMarshalerType) {
				return p.fail("a map key type with MarshalText", t)
			}
		default:
			if kt.Implements(textMarshalerType) {
				return p.fail("a map key type with MarshalText", t)
			}
			p.kind = eUnsupported
			return p
		}
		p.kind, p.elem = eMap, buildPlan(t.Elem(), true, building)
	case reflect.Slice:
		// encoding/json writes []byte as base64; this package does not.
		if t.Elem().Kind() == reflect.Uint8 {
			if pt := reflect.PointerTo(t.Elem()); !pt.Implements(marshalerType) && !pt.Implements(textMarshalerType) {
				return p.fail("a byte slice (base64)", t)
			}
		}
		p.kind, p.elem = eSlice, buildPlan(t.Elem(), true, building)
	case reflect.Array:
		p.kind, p.elem = eArray, buildPlan(t.Elem(), true, building)
	case reflect.Pointer:
		p.kind, p.elem = ePtr, buildPlan(t.Elem(), true, building)
	default:
		p.kind = eUnsupported
	}
	return p
}

// fail makes p fail, for a feature this package leaves out.
func (p *encPlan) fail(what string, t reflect.Type) *encPlan {
	p.kind, p.err = eFail, fmt.Errorf("jsonlite: %s is not supported (type %v)", what, t)
	return p
}

// encode appends v, which p is the plan of.
func (e *encodeState) encode(p *encPlan, v reflect.Value) {
	switch p.kind {
	case eBool:
		e.buf = strconv.AppendBool(e.buf, v.Bool())
	case eInt:
		e.buf = strconv.AppendInt(e.buf, v.Int(), 10)
	case eUint:
		e.buf = strconv.AppendUint(e.buf, v.Uint(), 10)
	case eFloat32:
		e.float(v, 32)
	case eFloat64:
		e.float(v, 64)
	case eString:
		e.buf = appendString(e.buf, v.String(), e.escapeHTML)
	case eNumber:
		numStr := v.String()
		// encoding/json writes the empty Number as 0.
		if numStr == "" {
			numStr = "0"
		}
		if !isValidNumber(numStr) {
			e.error(fmt.Errorf("json: invalid number literal %q", numStr))
		}
		e.buf = append(e.buf, numStr...)
	case eIface:
		if v.IsNil() {
			e.buf = append(e.buf, "null"...)
			return
		}
		v = v.Elem()
		e.encode(planFor(v.Type()), v)
	case eStruct:
		next := byte('{')
	FieldLoop:
		for i := range p.fields.list {
			f := &p.fields.list[i]
			// Find the nested struct field by following f.index.
			fv := v
			for _, i := range f.index {
				if fv.Kind() == reflect.Pointer {
					if fv.IsNil() {
						continue FieldLoop
					}
					fv = fv.Elem()
				}
				fv = fv.Field(i)
			}
			if f.omitEmpty && isEmptyValue(fv) {
				continue
			}
			e.buf = append(e.buf, next)
			next = ','
			if e.escapeHTML {
				e.buf = append(e.buf, f.nameEscHTML...)
			} else {
				e.buf = append(e.buf, f.nameNonEsc...)
			}
			e.encode(p.plans[i], fv)
		}
		if next == '{' {
			e.buf = append(e.buf, '{')
		}
		e.buf = append(e.buf, '}')
	case eMap:
		if v.IsNil() {
			e.buf = append(e.buf, "null"...)
			return
		}
		ptr := e.enterPointer(v)
		e.mapEntries(p.elem, v)
		e.leavePointer(ptr)
	case eSlice:
		if v.IsNil() {
			e.buf = append(e.buf, "null"...)
			return
		}
		ptr := e.enterPointer(v)
		e.elements(p.elem, v)
		e.leavePointer(ptr)
	case eArray:
		e.elements(p.elem, v)
	case ePtr:
		if v.IsNil() {
			e.buf = append(e.buf, "null"...)
			return
		}
		ptr := e.enterPointer(v)
		e.encode(p.elem, v.Elem())
		e.leavePointer(ptr)
	case eMarshaler:
		if v.Kind() == reflect.Pointer && v.IsNil() {
			e.buf = append(e.buf, "null"...)
			return
		}
		// Interface() rather than reflect.TypeAssert, as in indirect.
		m, ok := v.Interface().(Marshaler)
		if !ok { // a nil interface
			e.buf = append(e.buf, "null"...)
			return
		}
		e.writeMarshaled(v.Type(), m)
	case eAddrMarshaler:
		if !v.CanAddr() {
			e.encode(p.elem, v)
			return
		}
		e.writeMarshaled(v.Type(), v.Addr().Interface().(Marshaler))
	case eFail:
		e.error(p.err)
	default:
		e.error(&UnsupportedTypeError{v.Type()})
	}
}

// writeMarshaled writes a MarshalJSON method's output, compacted (and HTML-escaped) as
// encoding/json does, which also checks that it is valid JSON.
func (e *encodeState) writeMarshaled(t reflect.Type, m Marshaler) {
	b, err := m.MarshalJSON()
	if err == nil {
		e.buf, err = appendCompact(e.buf, b, e.escapeHTML)
	}
	if err != nil {
		e.error(&MarshalerError{t, err})
	}
}

// elements writes an array or a slice.
func (e *encodeState) elements(p *encPlan, v reflect.Value) {
	e.buf = append(e.buf, '[')
	n := v.Len()
	for i := 0; i < n; i++ {
		if i > 0 {
			e.buf = append(e.buf, ',')
		}
		e.encode(p, v.Index(i))
	}
	e.buf = append(e.buf, ']')
}

// mapEntries writes a map's entries sorted by key.
func (e *encodeState) mapEntries(p *encPlan, v reflect.Value) {
	sv := make(byKey, 0, v.Len())
	for mi := v.MapRange(); mi.Next(); {
		k := mi.Key()
		var ks string
		switch k.Kind() {
		case reflect.String:
			ks = k.String()
		case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
			ks = strconv.FormatInt(k.Int(), 10)
		default:
			ks = strconv.FormatUint(k.Uint(), 10)
		}
		sv = append(sv, mapKey{ks, mi.Value()})
	}
	sort.Sort(&sv)
	e.buf = append(e.buf, '{')
	for i, kv := range sv {
		if i > 0 {
			e.buf = append(e.buf, ',')
		}
		e.buf = appendString(e.buf, kv.ks, e.escapeHTML)
		e.buf = append(e.buf, ':')
		e.encode(p, kv.v)
	}
	e.buf = append(e.buf, '}')
}

// mapKey is a map entry with its key as JSON text.
type mapKey struct {
	ks string
	v  reflect.Value
}

// byKey sorts map entries by key. A sort.Interface rather than slices.SortFunc, because the
// sort package is linked anyway and a generic sort would add one more instantiation to the
// wasm; pointer methods, as value methods would get pointer wrappers too.
type byKey []mapKey

// Len is the number of entries.
func (s *byKey) Len() int { return len(*s) }

// Swap swaps two entries.
func (s *byKey) Swap(i, j int) { (*s)[i], (*s)[j] = (*s)[j], (*s)[i] }

// Less orders entries by key text, as encoding/json sorts them.
func (s *byKey) Less(i, j int) bool { return (*s)[i].ks < (*s)[j].ks }

// enterPointer counts one more level of pointers, maps or slices (v) and, that deep, checks
// for a cycle through v, returning the key it remembers v by (nil before that depth: the key
// would allocate); leavePointer(key) undoes it.
func (e *encodeState) enterPointer(v reflect.Value) any {
	if e.ptrLevel++; e.ptrLevel <= startDetectingCyclesAfter {
		return nil
	}
	var ptr any
	switch v.Kind() {
	case reflect.Map:
		ptr = v.UnsafePointer()
	case reflect.Slice:
		// A slice is identified by its first element and its length.
		ptr = struct {
			p any
			n int
		}{v.UnsafePointer(), v.Len()}
	default:
		ptr = v.Interface()
	}
	if _, ok := e.ptrSeen[ptr]; ok {
		e.error(&UnsupportedValueError{v, fmt.Sprintf("encountered a cycle via %s", v.Type())})
	}
	e.ptrSeen[ptr] = struct{}{}
	return ptr
}

func (e *encodeState) leavePointer(ptr any) {
	if ptr != nil {
		delete(e.ptrSeen, ptr)
	}
	e.ptrLevel--
}

// float writes a float as encoding/json's floatEncoder does: as ES6's number-to-string
// conversion, like %g but with other exponent cutoffs and no padding of the exponent.
func (e *encodeState) float(v reflect.Value, bits int) {
	f := v.Float()
	if math.IsInf(f, 0) || math.IsNaN(f) {
		e.error(&UnsupportedValueError{v, strconv.FormatFloat(f, 'g', -1, bits)})
	}
	b := e.buf
	abs := math.Abs(f)
	fmt := byte('f')
	// Float32 comparisons for a float32, to get the cutoffs right.
	if abs != 0 {
		if bits == 64 && (abs < 1e-6 || abs >= 1e21) || bits == 32 && (float32(abs) < 1e-6 || float32(abs) >= 1e21) {
			fmt = 'e'
		}
	}
	b = strconv.AppendFloat(b, f, fmt, -1, bits)
	if fmt == 'e' {
		// clean up e-09 to e-9
		n := len(b)
		if n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	e.buf = b
}

// isValidNumber reports whether s is a JSON number literal.
func isValidNumber(s string) bool {
	if s == "" {
		return false
	}
	if s[0] == '-' {
		s = s[1:]
		if s == "" {
			return false
		}
	}
	switch {
	default:
		return false
	case s[0] == '0':
		s = s[1:]
	case '1' <= s[0] && s[0] <= '9':
		s = s[1:]
		for len(s) > 0 && '0' <= s[0] && s[0] <= '9' {
			s = s[1:]
		}
	}
	// . followed by 1 or more digits.
	if len(s) >= 2 && s[0] == '.' && '0' <= s[1] && s[1] <= '9' {
		s = s[2:]
		for len(s) > 0 && '0' <= s[0] && s[0] <= '9' {
			s = s[1:]
		}
	}
	// e or E followed by an optional - or + and 1 or more digits.
	if len(s) >= 2 && (s[0] == 'e' || s[0] == 'E') {
		s = s[1:]
		if s[0] == '+' || s[0] == '-' {
			s = s[1:]
			if s == "" {
				return false
			}
		}
		for len(s) > 0 && '0' <= s[0] && s[0] <= '9' {
			s = s[1:]
		}
	}
	return s == ""
}

func isEmptyValue(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Array, reflect.Map, reflect.Slice, reflect.String:
		return v.Len() == 0
	case reflect.Bool,
		reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64,
		reflect.Interface, reflect.Pointer:
		return v.IsZero()
	}
	return false
}

func typeByIndex(t reflect.Type, index []int) reflect.Type {
	for _, i := range index {
		if t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		t = t.Field(i).Type
	}
	return t
}

// appendString appends s as a JSON string exactly as encoding/json does: control characters,
// quotes and backslashes escaped, <, > and & too when escapeHTML, invalid UTF-8 as \ufffd,
// and U+2028 and U+2029 always escaped (they break JavaScript that embeds JSON).
func appendString(dst []byte, s string, escapeHTML bool) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		if b := s[i]; b < utf8.RuneSelf {
			if b >= ' ' && b != '"' && b != '\\' && (!escapeHTML || b != '<' && b != '>' && b != '&') {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch b {
			case '\\', '"':
				dst = append(dst, '\\', b)
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				// The other bytes < 0x20, and <, > and & when escapeHTML.
				dst = append(dst, '\\', 'u', '0', '0', hex[b>>4], hex[b&0xF])
			}
			i++
			start = i
			continue
		}
		c, size := utf8.DecodeRuneInString(s[i:])
		if c == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if c == '\u2028' || c == '\u2029' {
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hex[c&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// appendHTMLEscape escapes <, >, &, U+2028 and U+2029 in a field name, as encoding/json
// prepares its names for HTML-safe output.
func appendHTMLEscape(dst []byte, src string) []byte {
	start := 0
	for i := 0; i < len(src); i++ {
		c := src[i]
		if c == '<' || c == '>' || c == '&' {
			dst = append(dst, src[start:i]...)
			dst = append(dst, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
			start = i + 1
		}
		// Convert U+2028 and U+2029 (E2 80 A8 and E2 80 A9).
		if c == 0xE2 && i+2 < len(src) && src[i+1] == 0x80 && src[i+2]&^1 == 0xA8 {
			dst = append(dst, src[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hex[src[i+2]&0xF])
			start = i + len("\u2029")
		}
	}
	return append(dst, src[start:]...)
}
