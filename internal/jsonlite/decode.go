// Portions copyright 2010 The Go Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in Go's LICENSE file.

package jsonlite

import (
	"encoding"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// Decoding has two passes, as in encoding/json: the scanner checks the whole value first (so a
// syntax error is reported before anything is stored), then the decoder below walks input it
// knows to be valid. encoding/json runs its scanner again in the second pass; this decoder
// reads the bytes directly. What it stores, which errors it reports (and their order: type
// errors are kept and the first returned at the end, a method's error stops at once) and
// their wording follow encoding/json's decode.go.

// Unmarshal parses the JSON-encoded data and stores the result in the value pointed to by v,
// as encoding/json's Unmarshal does for the kinds this package supports.
func Unmarshal(data []byte, v any) error {
	var scan scanner
	if err := checkValid(data, &scan); err != nil {
		return err
	}
	var d decodeState
	d.init(data)
	return d.unmarshal(v)
}

// Unmarshaler is the interface implemented by types that can unmarshal a JSON description of
// themselves. The input is a valid encoding of a JSON value; the method must copy it to keep
// it.
type Unmarshaler interface {
	UnmarshalJSON([]byte) error
}

// An UnmarshalTypeError describes a JSON value that was not appropriate for a value of a
// specific Go type.
type UnmarshalTypeError struct {
	Value  string       // description of JSON value - "bool", "array", "number -5"
	Type   reflect.Type // type of Go value it could not be assigned to
	Offset int64        // error occurred after reading Offset bytes
	Struct string       // name of the struct type containing the field
	Field  string       // the full path from root node to the field, include embedded struct
}

// Error says what could not be stored where, in encoding/json's words.
func (e *UnmarshalTypeError) Error() string {
	if e.Struct != "" || e.Field != "" {
		return "json: cannot unmarshal " + e.Value + " into Go struct field " + e.Struct + "." + e.Field + " of type " + e.Type.String()
	}
	return "json: cannot unmarshal " + e.Value + " into Go value of type " + e.Type.String()
}

// An InvalidUnmarshalError describes an invalid argument passed to [Unmarshal]: it must be a
// non-nil pointer.
type InvalidUnmarshalError struct {
	Type reflect.Type
}

// Error names the argument's type, in encoding/json's words.
func (e *InvalidUnmarshalError) Error() string {
	if e.Type == nil {
		return "json: Unmarshal(nil)"
	}
	if e.Type.Kind() != reflect.Pointer {
		return "json: Unmarshal(non-pointer " + e.Type.String() + ")"
	}
	return "json: Unmarshal(nil " + e.Type.String() + ")"
}

// A Number represents a JSON number literal.
type Number string

// String returns the literal text of the number.
func (n Number) String() string { return string(n) }

// Float64 returns the number as a float64.
func (n Number) Float64() (float64, error) {
	return strconv.ParseFloat(string(n), 64)
}

// Int64 returns the number as an int64.
func (n Number) Int64() (int64, error) {
	return strconv.ParseInt(string(n), 10, 64)
}

var numberType = reflect.TypeFor[Number]()

// errorContext is where the decoder is, for type errors: the struct type whose field it is
// in and the JSON names from the root down (embedded structs by their Go names).
type errorContext struct {
	Struct     reflect.Type
	FieldStack []string
}

type decodeState struct {
	data                  []byte
	off                   int // next read offset in data
	errorContext          errorContext
	savedError            error
	useNumber             bool
	disallowUnknownFields bool
}

func (d *decodeState) init(data []byte) {
	d.data = data
	d.off = 0
	d.savedError = nil
	d.errorContext.Struct = nil
	d.errorContext.FieldStack = d.errorContext.FieldStack[:0]
}

// saveError keeps the first error it is given, for the end of the unmarshal.
func (d *decodeState) saveError(err error) {
	if d.savedError == nil {
		d.savedError = d.addErrorContext(err)
	}
}

// addErrorContext names the struct field a type error is about.
func (d *decodeState) addErrorContext(err error) error {
	if d.errorContext.Struct != nil || len(d.errorContext.FieldStack) > 0 {
		if err, ok := err.(*UnmarshalTypeError); ok {
			err.Struct = d.errorContext.Struct.Name()
			fieldStack := d.errorContext.FieldStack
			if err.Field != "" {
				fieldStack = append(fieldStack, err.Field)
			}
			err.Field = strings.Join(fieldStack, ".")
		}
	}
	return err
}

func (d *decodeState) unmarshal(v any) error {
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Pointer || rv.IsNil() {
		return &InvalidUnmarshalError{reflect.TypeOf(v)}
	}
	d.skipSpace()
	// rv rather than rv.Elem(): the Unmarshaler test applies at the top level too.
	if err := d.value(rv); err != nil {
		return d.addErrorContext(err)
	}
	return d.savedError
}

func (d *decodeState) skipSpace() {
	for d.off < len(d.data) && isSpace(d.data[d.off]) {
		d.off++
	}
}

// literalEnd returns the end of the string, number, true, false or null at start.
func (d *decodeState) literalEnd(start int) int {
	data, i := d.data, start+1
	switch data[start] {
	case '"':
		for ; i < len(data); i++ {
			switch data[i] {
			case '\\':
				i++
			case '"':
				return i + 1
			}
		}
	case 't', 'n':
		return start + 4
	case 'f':
		return start + 5
	default: // a number
		for ; i < len(data); i++ {
			switch c := data[i]; {
			case '0' <= c && c <= '9', c == '.', c == 'e', c == 'E', c == '+', c == '-':
			default:
				return i
			}
		}
	}
	return i
}

// skip moves past the value at d.off.
func (d *decodeState) skip() {
	depth := 0
	for {
		switch c := d.data[d.off]; c {
		case '[', '{':
			depth++
			d.off++
		case ']', '}':
			depth--
			d.off++
		case '"', 't', 'f', 'n', '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
			d.off = d.literalEnd(d.off)
		default: // space, comma, colon
			d.off++
			continue
		}
		if depth == 0 {
			return
		}
	}
}

// value decodes the value at d.off into v and moves past it; an invalid v discards it.
func (d *decodeState) value(v reflect.Value) error {
	if !v.IsValid() {
		d.skip()
		return nil
	}
	start := d.off
	c := d.data[start]
	u, v, err := indirect(v, c == 'n')
	if err != nil {
		return err
	}
	if u != nil {
		d.skip()
		return u.UnmarshalJSON(d.data[start:d.off])
	}
	switch c {
	case '[':
		return d.array(v, start)
	case '{':
		return d.object(v, start)
	}
	d.off = d.literalEnd(start)
	return d.literal(d.data[start:d.off], v)
}

// typeError keeps an *UnmarshalTypeError; off is the offset encoding/json reports.
func (d *decodeState) typeError(what string, t reflect.Type, off int) {
	d.saveError(&UnmarshalTypeError{Value: what, Type: t, Offset: int64(off)})
}

// indirect walks down v allocating pointers as needed, until it gets to a non-pointer. If it
// meets an Unmarshaler, it stops and returns it. With decodingNull, it stops at the first
// settable pointer, so that it can be set to nil. It is encoding/json's, except that a
// TextUnmarshaler, which encoding/json would use, is reported as unsupported.
func indirect(v reflect.Value, decodingNull bool) (Unmarshaler, reflect.Value, error) {
	// As in encoding/json (go.dev/issue/24153): after the first round trip through
	// Value.Addr().Elem(), v goes back to the original value to keep its flags.
	v0 := v
	haveAddr := false
	// A named, addressable value starts with its address, to find pointer methods.
	if v.Kind() != reflect.Pointer && v.Type().Name() != "" && v.CanAddr() {
		haveAddr = true
		v = v.Addr()
	}
	for {
		// Load value from interface, but only if the result will be usefully addressable.
		if v.Kind() == reflect.Interface && !v.IsNil() {
			e := v.Elem()
			if e.Kind() == reflect.Pointer && !e.IsNil() && (!decodingNull || e.Elem().Kind() == reflect.Pointer) {
				haveAddr = false
				v = e
				continue
			}
		}
		if v.Kind() != reflect.Pointer {
			break
		}
		if decodingNull && v.CanSet() {
			break
		}
		// An interface pointing to its own address (var v any; v = &v) would loop. (What
		// encoding/json's v.Elem().Elem().Equal(v) tests, without linking Value.Equal.)
		if ev := v.Elem(); ev.Kind() == reflect.Interface && !ev.IsNil() {
			if e := ev.Elem(); e.Kind() == reflect.Pointer && e.Type() == v.Type() && e.UnsafePointer() == v.UnsafePointer() {
				v = ev
				break
			}
		}
		if v.IsNil() {
			v.Set(reflect.New(v.Type().Elem()))
		}
		if v.Type().NumMethod() > 0 && v.CanInterface() {
			// Interface() rather than reflect.TypeAssert: v is a pointer, so it does not
			// allocate, and each TypeAssert instantiation is 2 KB of wasm.
			if u, ok := v.Interface().(Unmarshaler); ok {
				return u, reflect.Value{}, nil
			}
			if !decodingNull && v.Type().Implements(textUnmarshalerType) {
				return nil, reflect.Value{}, fmt.Errorf("jsonlite: encoding.TextUnmarshaler is not supported (type %v)", v.Type())
			}
		}
		if haveAddr {
			v = v0
			haveAddr = false
		} else {
			v = v.Elem()
		}
	}
	return nil, v, nil
}

// array decodes the array at start into v, which indirect has resolved.
func (d *decodeState) array(v reflect.Value, start int) error {
	switch v.Kind() {
	case reflect.Interface:
		if v.NumMethod() == 0 {
			v.Set(reflect.ValueOf(d.arrayInterface()))
			return nil
		}
	case reflect.Array, reflect.Slice:
		return d.elements(v)
	}
	d.typeError("array", v.Type(), start+1)
	d.skip()
	return nil
}

// elements decodes an array's elements into an array or a slice, reusing the slice's
// backing array as encoding/json does.
func (d *decodeState) elements(v reflect.Value) error {
	slice := v.Kind() == reflect.Slice
	d.off++ // [
	i := 0
	for {
		d.skipSpace()
		switch d.data[d.off] {
		case ']':
			d.off++
			if i < v.Len() {
				if !slice {
					for ; i < v.Len(); i++ {
						v.Index(i).SetZero()
					}
				} else {
					v.SetLen(i)
				}
			}
			if i == 0 && slice {
				v.Set(reflect.MakeSlice(v.Type(), 0, 0))
			}
			return nil
		case ',':
			d.off++
			continue
		}
		if slice {
			if i >= v.Cap() {
				v.Grow(1)
			}
			if i >= v.Len() {
				v.SetLen(i + 1)
			}
		}
		var elem reflect.Value // past the end of an array: discarded
		if i < v.Len() {
			elem = v.Index(i)
		}
		if err := d.value(elem); err != nil {
			return err
		}
		i++
	}
}

// object decodes the object at start into v, which indirect has resolved.
func (d *decodeState) object(v reflect.Value, start int) error {
	t := v.Type()
	var fields *structFields
	switch v.Kind() {
	case reflect.Interface:
		if v.NumMethod() == 0 {
			v.Set(reflect.ValueOf(d.objectInterface()))
			return nil
		}
	case reflect.Map:
		kt := t.Key()
		if reflect.PointerTo(kt).Implements(textUnmarshalerType) {
			return fmt.Errorf("jsonlite: a map key type with UnmarshalText is not supported (type %v)", t)
		}
		switch kt.Kind() {
		case reflect.String,
			reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
			reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
			if v.IsNil() {
				v.Set(reflect.MakeMap(t))
			}
			return d.members(v, nil)
		}
	case reflect.Struct:
		fields = cachedTypeFields(t)
		if fields.err != nil {
			return fields.err
		}
		return d.members(v, fields)
	}
	d.typeError("object", t, start+1)
	d.skip()
	return nil
}

// members decodes an object's members into a map, or into a struct with these fields.
func (d *decodeState) members(v reflect.Value, fields *structFields) error {
	t := v.Type()
	var mapElem reflect.Value
	origStruct, origDepth := d.errorContext.Struct, len(d.errorContext.FieldStack)
	d.off++ // {
	for {
		d.skipSpace()
		switch d.data[d.off] {
		case '}':
			d.off++
			return nil
		case ',':
			d.off++
			continue
		}
		// Read the key.
		keyStart := d.off
		d.off = d.literalEnd(keyStart)
		key, _ := unquoteBytes(d.data[keyStart:d.off]) // valid: the scanner checked it

		var subv reflect.Value
		if fields == nil {
			if !mapElem.IsValid() {
				mapElem = reflect.New(t.Elem()).Elem()
			} else {
				mapElem.SetZero()
			}
			subv = mapElem
		} else {
			f := fields.byExactName[string(key)]
			if f == nil {
				f = fields.byFoldedName[string(foldName(key))]
			}
			if f != nil {
				subv = v
				for i, ind := range f.index {
					if subv.Kind() == reflect.Pointer {
						if subv.IsNil() {
							// An embedded pointer to an unexported struct type cannot be
							// allocated (go.dev/issue/21357): skip the value.
							if !subv.CanSet() {
								d.saveError(fmt.Errorf("json: cannot set embedded pointer to unexported struct: %v", subv.Type().Elem()))
								subv = reflect.Value{}
								break
							}
							subv.Set(reflect.New(subv.Type().Elem()))
						}
						subv = subv.Elem()
					}
					if i < len(f.index)-1 {
						d.errorContext.FieldStack = append(d.errorContext.FieldStack, subv.Type().Field(ind).Name)
					}
					subv = subv.Field(ind)
				}
				d.errorContext.Struct = t
				d.errorContext.FieldStack = append(d.errorContext.FieldStack, f.name)
			} else if d.disallowUnknownFields {
				d.saveError(fmt.Errorf("json: unknown field %q", key))
			}
		}

		d.skipSpace()
		d.off++ // :
		d.skipSpace()
		if err := d.value(subv); err != nil {
			return err
		}

		// Write the value back to the map; a struct field was written in place.
		if fields == nil {
			kt := t.Key()
			kv := reflect.New(kt).Elem()
			s := string(key)
			switch kt.Kind() {
			case reflect.String:
				kv.SetString(s)
			case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
				n, err := strconv.ParseInt(s, 10, 64)
				if err != nil || kt.OverflowInt(n) {
					d.typeError("number "+s, kt, keyStart+1)
					kv = reflect.Value{}
					break
				}
				kv.SetInt(n)
			default:
				n, err := strconv.ParseUint(s, 10, 64)
				if err != nil || kt.OverflowUint(n) {
					d.typeError("number "+s, kt, keyStart+1)
					kv = reflect.Value{}
					break
				}
				kv.SetUint(n)
			}
			if kv.IsValid() {
				v.SetMapIndex(kv, subv)
			}
		}
		// Back to this object's context (keeping FieldStack's array).
		d.errorContext.FieldStack = d.errorContext.FieldStack[:origDepth]
		d.errorContext.Struct = origStruct
	}
}

var textUnmarshalerType = reflect.TypeFor[encoding.TextUnmarshaler]()

// convertNumber converts a number literal to a float64 or, with UseNumber, a Number. off is
// the offset encoding/json reports in an error.
func (d *decodeState) convertNumber(s string, off int) (any, error) {
	if d.useNumber {
		return Number(s), nil
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return nil, &UnmarshalTypeError{Value: "number " + s, Type: reflect.TypeFor[float64](), Offset: int64(off)}
	}
	return f, nil
}

// literal decodes the literal item, which ends at d.off, into v, which indirect has resolved.
// Type errors point at the literal's end, as in encoding/json.
func (d *decodeState) literal(item []byte, v reflect.Value) error {
	off := d.off
	k, t := v.Kind(), v.Type()
	emptyIface := k == reflect.Interface && v.NumMethod() == 0
	switch c := item[0]; c {
	case 'n': // null
		switch k {
		case reflect.Interface, reflect.Pointer, reflect.Map, reflect.Slice:
			v.SetZero()
		}
		// otherwise, ignore null for primitives/string
		return nil
	case 't', 'f':
		switch {
		case k == reflect.Bool:
			v.SetBool(c == 't')
			return nil
		case emptyIface:
			v.Set(reflect.ValueOf(c == 't'))
			return nil
		}
		d.typeError("bool", t, off)
	case '"':
		s, _ := unquoteBytes(item)
		switch {
		case k == reflect.String:
			if t == numberType && !isValidNumber(string(s)) {
				return fmt.Errorf("json: invalid number literal, trying to unmarshal %q into Number", item)
			}
			v.SetString(string(s))
			return nil
		case emptyIface:
			v.Set(reflect.ValueOf(string(s)))
			return nil
		case k == reflect.Slice && t.Elem().Kind() == reflect.Uint8:
			return fmt.Errorf("jsonlite: a byte slice (base64) is not supported (type %v)", t)
		}
		d.typeError("string", t, off)
	default: // a number
		s := string(item)
		switch k {
		case reflect.Interface:
			n, err := d.convertNumber(s, off+1)
			if err != nil {
				d.saveError(err)
				return nil
			}
			if emptyIface {
				v.Set(reflect.ValueOf(n))
				return nil
			}
		case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
			n, err := strconv.ParseInt(s, 10, 64)
			if err == nil && !v.OverflowInt(n) {
				v.SetInt(n)
				return nil
			}
			d.typeError("number "+s, t, off)
			return nil
		case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
			n, err := strconv.ParseUint(s, 10, 64)
			if err == nil && !v.OverflowUint(n) {
				v.SetUint(n)
				return nil
			}
			d.typeError("number "+s, t, off)
			return nil
		case reflect.Float32, reflect.Float64:
			n, err := strconv.ParseFloat(s, t.Bits())
			if err == nil && !v.OverflowFloat(n) {
				v.SetFloat(n)
				return nil
			}
			d.typeError("number "+s, t, off)
			return nil
		case reflect.String:
			if t == numberType {
				v.SetString(s) // valid: the scanner checked it
				return nil
			}
		}
		d.typeError("number", t, off)
	}
	return nil
}

// valueInterface decodes the value at d.off as any: map[string]any, []any, string, float64
// or Number, bool or nil.
func (d *decodeState) valueInterface() any {
	switch d.data[d.off] {
	case '[':
		return d.arrayInterface()
	case '{':
		return d.objectInterface()
	}
	return d.literalInterface()
}

func (d *decodeState) arrayInterface() []any {
	v := make([]any, 0)
	d.off++ // [
	for {
		d.skipSpace()
		switch d.data[d.off] {
		case ']':
			d.off++
			return v
		case ',':
			d.off++
			continue
		}
		v = append(v, d.valueInterface())
	}
}

func (d *decodeState) objectInterface() map[string]any {
	m := make(map[string]any)
	d.off++ // {
	for {
		d.skipSpace()
		switch d.data[d.off] {
		case '}':
			d.off++
			return m
		case ',':
			d.off++
			continue
		}
		start := d.off
		d.off = d.literalEnd(start)
		key, _ := unquoteBytes(d.data[start:d.off])
		d.skipSpace()
		d.off++ // :
		d.skipSpace()
		m[string(key)] = d.valueInterface()
	}
}

func (d *decodeState) literalInterface() any {
	start := d.off
	d.off = d.literalEnd(start)
	item := d.data[start:d.off]
	switch c := item[0]; c {
	case 'n':
		return nil
	case 't', 'f':
		return c == 't'
	case '"':
		s, _ := unquoteBytes(item)
		return string(s)
	}
	n, err := d.convertNumber(string(item), d.off+1)
	if err != nil {
		d.saveError(err)
	}
	return n
}

// getu4 decodes \uXXXX from the beginning of s, returning the hex value, or it returns -1.
func getu4(s []byte) rune {
	if len(s) < 6 || s[0] != '\\' || s[1] != 'u' {
		return -1
	}
	var r rune
	for _, c := range s[2:6] {
		switch {
		case '0' <= c && c <= '9':
			c = c - '0'
		case 'a' <= c && c <= 'f':
			c = c - 'a' + 10
		case 'A' <= c && c <= 'F':
			c = c - 'A' + 10
		default:
			return -1
		}
		r = r*16 + rune(c)
	}
	return r
}

// unquoteBytes converts a quoted JSON string literal into its bytes: invalid UTF-8 and
// unpaired surrogates become U+FFFD, as in encoding/json.
func unquoteBytes(s []byte) (t []byte, ok bool) {
	if len(s) < 2 || s[0] != '"' || s[len(s)-1] != '"' {
		return
	}
	s = s[1 : len(s)-1]
	// With no unusual characters, the literal's own bytes will do.
	r := 0
	for r < len(s) {
		c := s[r]
		if c == '\\' || c == '"' || c < ' ' {
			break
		}
		if c < utf8.RuneSelf {
			r++
			continue
		}
		rr, size := utf8.DecodeRune(s[r:])
		if rr == utf8.RuneError && size == 1 {
			break
		}
		r += size
	}
	if r == len(s) {
		return s, true
	}
	b := make([]byte, len(s)+2*utf8.UTFMax)
	w := copy(b, s[0:r])
	for r < len(s) {
		// Out of room? Only with malformed UTF-8, each byte replaced by U+FFFD.
		if w >= len(b)-2*utf8.UTFMax {
			nb := make([]byte, (len(b)+utf8.UTFMax)*2)
			copy(nb, b[0:w])
			b = nb
		}
		switch c := s[r]; {
		case c == '\\':
			r++
			if r >= len(s) {
				return
			}
			switch s[r] {
			default:
				return
			case '"', '\\', '/', '\'':
				b[w] = s[r]
				r++
				w++
			case 'b':
				b[w] = '\b'
				r++
				w++
			case 'f':
				b[w] = '\f'
				r++
				w++
			case 'n':
				b[w] = '\n'
				r++
				w++
			case 'r':
				b[w] = '\r'
				r++
				w++
			case 't':
				b[w] = '\t'
				r++
				w++
			case 'u':
				r--
				rr := getu4(s[r:])
				if rr < 0 {
					return
				}
				r += 6
				if utf16.IsSurrogate(rr) {
					rr1 := getu4(s[r:])
					if dec := utf16.DecodeRune(rr, rr1); dec != utf8.RuneError {
						// A valid pair; consume.
						r += 6
						w += utf8.EncodeRune(b[w:], dec)
						break
					}
					// An invalid surrogate: the replacement rune.
					rr = utf8.RuneError
				}
				w += utf8.EncodeRune(b[w:], rr)
			}
		// Quote, control characters are invalid.
		case c == '"', c < ' ':
			return
		case c < utf8.RuneSelf:
			b[w] = c
			r++
			w++
		// Coerce to well-formed UTF-8.
		default:
			rr, size := utf8.DecodeRune(s[r:])
			r += size
			w += utf8.EncodeRune(b[w:], rr)
		}
	}
	return b[0:w], true
}
