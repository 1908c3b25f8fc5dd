// Portions copyright 2010 The Go Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in Go's LICENSE file.

package jsonlite

import (
	"errors"
	"reflect"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// A field is one JSON member of a struct type, found as encoding/json's typeFields finds it:
// the same tag rules, the same embedded-struct promotion and the same dominance rules.
type field struct {
	name        string
	nameNonEsc  string // `"` + name + `":`
	nameEscHTML string // the same with <, > and & escaped
	tag         bool   // the name came from a json tag
	index       []int
	omitEmpty   bool
}

// structFields are a struct type's fields in encoding order, with the decoder's lookups.
type structFields struct {
	list         []field
	byExactName  map[string]*field
	byFoldedName map[string]*field
	// err is set when the type uses a feature this package leaves out (see the package
	// documentation); encoding or decoding the type then fails with it.
	err error
}

var fieldCache sync.Map // map[reflect.Type]*structFields

// embedded is an embedded struct to explore, and how many times it was met at its depth.
type embedded struct {
	typ   reflect.Type
	index []int
	count int
}

// cachedTypeFields is typeFields, computed once per type.
func cachedTypeFields(t reflect.Type) *structFields {
	if f, ok := fieldCache.Load(t); ok {
		return f.(*structFields)
	}
	f, _ := fieldCache.LoadOrStore(t, typeFields(t))
	return f.(*structFields)
}

func typeFields(t reflect.Type) *structFields {
	next := []embedded{{typ: t, count: 1}}
	var visited []reflect.Type // types already explored, at this depth or above
	var fields []*field
	var unsupported error
	fail := func(what string, sf reflect.StructField, in reflect.Type) {
		if unsupported == nil {
			unsupported = errors.New("jsonlite: " + what + " is not supported (field " + sf.Name + " of " + in.String() + ")")
		}
	}

	// Breadth first, one depth at a time, as encoding/json goes.
	for len(next) > 0 {
		current := next
		next = nil
	Current:
		for _, e := range current {
			for _, v := range visited {
				if v == e.typ {
					continue Current
				}
			}
			visited = append(visited, e.typ)
			for i := 0; i < e.typ.NumField(); i++ {
				sf := e.typ.Field(i)
				ft := sf.Type
				if sf.Anonymous {
					if ft.Kind() == reflect.Pointer {
						ft = ft.Elem()
					}
					if !sf.IsExported() && ft.Kind() != reflect.Struct {
						// Ignore embedded fields of unexported non-struct types.
						continue
					}
					// Embedded fields of unexported struct types may have exported fields.
				} else if !sf.IsExported() {
					continue
				}
				tag := sf.Tag.Get("json")
				if tag == "-" {
					continue
				}
				name, opts, _ := strings.Cut(tag, ",")
				if !isValidTag(name) {
					if name != "" && !isASCII(name) {
						fail("a non-ASCII json tag name", sf, e.typ)
					}
					name = ""
				}
				index := append(append([]int(nil), e.index...), i)
				ft = sf.Type
				if ft.Name() == "" && ft.Kind() == reflect.Pointer {
					ft = ft.Elem()
				}
				omitEmpty := false
				for opts != "" {
					var opt string
					opt, opts, _ = strings.Cut(opts, ",")
					switch {
					case opt == "omitempty":
						omitEmpty = true
					case opt == "omitzero" || opt == "string" && quotable(ft.Kind()):
						fail("the ,"+opt+" tag option", sf, e.typ)
					}
				}
				if name == "" && sf.Anonymous && ft.Kind() == reflect.Struct {
					// An embedded struct without a name: explore it at the next depth.
					queue(&next, ft, index)
					continue
				}
				f := &field{name: name, tag: name != "", index: index, omitEmpty: omitEmpty}
				if f.name == "" {
					f.name = sf.Name
				}
				f.nameNonEsc = `"` + f.name + `":`
				f.nameEscHTML = `"` + string(appendHTMLEscape(nil, f.name)) + `":`
				fields = append(fields, f)
				if e.count > 1 {
					// Met more than once at this depth: twice in the list, so that the
					// dominance rule below drops it.
					fields = append(fields, f)
				}
			}
		}
	}

	// Sort by name, then depth, then "name came from a tag", then index sequence.
	sortFields(fields, func(a, b *field) bool {
		if a.name != b.name {
			return a.name < b.name
		}
		if len(a.index) != len(b.index) {
			return len(a.index) < len(b.index)
		}
		if a.tag != b.tag {
			return a.tag
		}
		return compareIndex(a.index, b.index) < 0
	})
	// Delete the fields hidden by Go's rules for embedded fields, except that fields with
	// JSON tags are promoted: for each name, keep the one dominant field, the first, unless
	// the second shares its depth and tagging.
	out := fields[:0]
	for i := 0; i < len(fields); {
		fi, n := fields[i], 1
		for i+n < len(fields) && fields[i+n].name == fi.name {
			n++
		}
		if n == 1 || len(fi.index) != len(fields[i+1].index) || fi.tag != fields[i+1].tag {
			out = append(out, fi)
		}
		i += n
	}
	sortFields(out, func(a, b *field) bool { return compareIndex(a.index, b.index) < 0 })

	sf := &structFields{list: make([]field, len(out)), err: unsupported,
		byExactName:  make(map[string]*field, len(out)),
		byFoldedName: make(map[string]*field, len(out))}
	for i := range out {
		f := &sf.list[i]
		*f = *out[i]
		sf.byExactName[f.name] = f
		// For historical reasons, the first folded match takes precedence.
		folded := string(foldName([]byte(f.name)))
		if _, ok := sf.byFoldedName[folded]; !ok {
			sf.byFoldedName[folded] = f
		}
	}
	return sf
}

// queue adds an embedded struct type to explore, or counts one more meeting of it.
func queue(next *[]embedded, t reflect.Type, index []int) {
	for j := range *next {
		if (*next)[j].typ == t {
			(*next)[j].count++
			return
		}
	}
	*next = append(*next, embedded{t, index, 1})
}

// sortFields is an insertion sort: a struct has few fields, and sort.Sort or slices.SortFunc
// would add methods or an instantiation to the wasm.
func sortFields(fs []*field, less func(a, b *field) bool) {
	for i := 1; i < len(fs); i++ {
		for j := i; j > 0 && less(fs[j], fs[j-1]); j-- {
			fs[j], fs[j-1] = fs[j-1], fs[j]
		}
	}
}

// quotable reports whether encoding/json's ,string option applies to a kind (on the others it
// does nothing).
func quotable(k reflect.Kind) bool {
	return reflect.Bool <= k && k <= reflect.Float64 || k == reflect.String
}

func compareIndex(a, b []int) int {
	for i := 0; i < len(a) && i < len(b); i++ {
		if a[i] != b[i] {
			if a[i] < b[i] {
				return -1
			}
			return 1
		}
	}
	return len(a) - len(b)
}

// isValidTag is encoding/json's rule for ASCII names: letters, digits and punctuation other
// than quotes, backslash and comma. A non-ASCII name is refused (encoding/json would accept
// Unicode letters and digits, which needs unicode's letter tables in the wasm); typeFields
// reports it rather than silently using the Go field name.
func isValidTag(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case strings.IndexByte("!#$%&()*+-./:;<=>?@[]^_{|}~ ", c) >= 0:
		case c >= utf8.RuneSelf:
			return false
		case !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'):
			return false
		}
	}
	return true
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// foldName returns a folded string such that foldName(x) == foldName(y) is identical to
// bytes.EqualFold(x, y), as encoding/json matches object keys to field names.
func foldName(in []byte) []byte {
	out := make([]byte, 0, len(in))
	for i := 0; i < len(in); {
		if c := in[i]; c < utf8.RuneSelf {
			if 'a' <= c && c <= 'z' {
				c -= 'a' - 'A'
			}
			out = append(out, c)
			i++
			continue
		}
		r, n := utf8.DecodeRune(in[i:])
		out = utf8.AppendRune(out, foldRune(r))
		i += n
	}
	return out
}

// foldRune returns the smallest rune of r's fold set.
func foldRune(r rune) rune {
	for {
		r2 := unicode.SimpleFold(r)
		if r2 <= r {
			return r2
		}
		r = r2
	}
}
