package scenario

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// node is one JSON value with its object keys kept in document order. The scenario parser
// works on this tree rather than on encoding/json's struct decoding because it must name the
// exact path of every problem (steps[3].broker), refuse unknown and duplicate keys, and report
// the first problem in document order: a Go map would lose that order.
type node struct {
	kind kind
	b    bool
	s    string   // a string's value, or a number's literal text
	keys []string // object keys, parallel to vals
	vals []*node  // object values or array elements
}

type kind uint8

const (
	kindNull kind = iota
	kindBool
	kindNumber
	kindString
	kindObject
	kindArray
)

// maxDepth bounds nesting so that a hostile file cannot exhaust the stack; scenarios need 5.
const maxDepth = 32

// parseTree reads exactly one JSON value.
func parseTree(data []byte) (*node, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	n, err := readValue(dec, 0, &treePath{})
	var pathErr *Error
	if errors.As(err, &pathErr) {
		return nil, pathErr
	}
	if err == nil {
		end := int(dec.InputOffset())
		if _, extra := dec.Token(); extra != io.EOF {
			for end < len(data) && strings.ContainsRune(" \t\r\n", rune(data[end])) {
				end++
			}
			return nil, fmt.Errorf("invalid JSON at %s: unexpected data after the top-level value", position(data, end))
		}
	}
	if err != nil {
		return nil, jsonError(data, dec, err)
	}
	return n, nil
}

func jsonError(data []byte, dec *json.Decoder, err error) error {
	if errors.Is(err, io.EOF) && dec.InputOffset() == 0 && len(bytes.TrimSpace(data)) == 0 {
		return errors.New("invalid JSON: the input is empty")
	}
	// The decoder reports a bad literal (tru, nul) from inside its own buffer; its input
	// offset then points at the literal's start, which is the better place to show.
	off := dec.InputOffset()
	var se *json.SyntaxError
	if errors.As(err, &se) {
		off = max(off, se.Offset)
	}
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		err, off = errors.New("unexpected end of input"), int64(len(data))
	}
	return fmt.Errorf("invalid JSON at %s: %s", position(data, int(off)), strings.TrimPrefix(err.Error(), "json: "))
}

// position names a byte offset as an editor does: line and column, from 1.
func position(data []byte, off int) string {
	line, col := 1, 1
	for _, c := range data[:min(off, len(data))] {
		if c == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
	}
	return fmt.Sprintf("line %d, column %d", line, col)
}

// readValue reads one value at path (its string is built only for an error). A duplicate key comes back as an *Error naming it;
// syntax errors are located by jsonError.
func readValue(dec *json.Decoder, depth int, path *treePath) (*node, error) {
	if depth > maxDepth {
		return nil, &Error{Path: path.String(), Msg: fmt.Sprintf("nested deeper than %d levels", maxDepth)}
	}
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case nil:
		return &node{kind: kindNull}, nil
	case bool:
		return &node{kind: kindBool, b: t}, nil
	case json.Number:
		return &node{kind: kindNumber, s: string(t)}, nil
	case string:
		return &node{kind: kindString, s: t}, nil
	case json.Delim:
		switch t {
		case '{':
			n := &node{kind: kindObject}
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return nil, err
				}
				key := kt.(string) // the decoder only yields strings in key position
				path.push(key, -1)
				if n.get(key) != nil {
					return nil, &Error{Path: path.String(), Msg: "duplicate key"}
				}
				v, err := readValue(dec, depth+1, path)
				if err != nil {
					return nil, err
				}
				path.pop()
				n.keys = append(n.keys, key)
				n.vals = append(n.vals, v)
			}
			_, err := dec.Token() // '}'
			return n, err
		case '[':
			n := &node{kind: kindArray}
			for dec.More() {
				path.push("", len(n.vals))
				v, err := readValue(dec, depth+1, path)
				if err != nil {
					return nil, err
				}
				path.pop()
				n.vals = append(n.vals, v)
			}
			_, err := dec.Token() // ']'
			return n, err
		}
	}
	return nil, fmt.Errorf("unexpected token %v", tok)
}

// treePath is where readValue is: object keys and array indexes from the root. A scenario of
// a million partitions has millions of values, and building each one's path as a string cost
// more than reading it.
type treePath struct{ segs []pathSeg }

// pathSeg is an object key, or an array index when index >= 0.
type pathSeg struct {
	key   string
	index int
}

func (p *treePath) push(key string, index int) { p.segs = append(p.segs, pathSeg{key, index}) }
func (p *treePath) pop()                       { p.segs = p.segs[:len(p.segs)-1] }

// String writes the path as fieldPath and indexPath do ("cluster.topics[0].name").
func (p *treePath) String() string {
	out := ""
	for _, s := range p.segs {
		if s.index >= 0 {
			out = indexPath(out, s.index)
		} else {
			out = fieldPath(out, s.key)
		}
	}
	return out
}

// get returns an object's value for key, or nil.
func (n *node) get(key string) *node {
	for i, k := range n.keys {
		if k == key {
			return n.vals[i]
		}
	}
	return nil
}

// raw returns the Go value a config or feature validator expects: bool, json.Number, string
// or nil. Containers have no such value and return themselves, which validators reject.
func (n *node) raw() any {
	switch n.kind {
	case kindBool:
		return n.b
	case kindNumber:
		return json.Number(n.s)
	case kindString:
		return n.s
	case kindNull:
		return nil
	}
	return n
}

// describe shows a value in an error message: scalars as written, containers by kind.
func (n *node) describe() string {
	switch n.kind {
	case kindNull:
		return "null"
	case kindBool:
		return strconv.FormatBool(n.b)
	case kindNumber:
		return n.s
	case kindString:
		return strconv.Quote(n.s)
	case kindObject:
		return "an object"
	}
	return "an array"
}

// fieldPath extends a path with an object key: a plain identifier after a dot, anything else
// (config names contain dots) quoted in brackets, as jq writes paths.
func fieldPath(path, key string) string {
	plain := key != ""
	for i, r := range key {
		if !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || i > 0 && r >= '0' && r <= '9') {
			plain = false
			break
		}
	}
	switch {
	case !plain:
		return path + "[" + strconv.Quote(key) + "]"
	case path == "":
		return key
	}
	return path + "." + key
}

func indexPath(path string, i int) string { return path + "[" + strconv.Itoa(i) + "]" }

// writeIndented pretty-prints one JSON value for people and diffs: objects and arrays open
// one level per line, except "flat" values (objects and arrays whose members are scalars or
// arrays of scalars), which stay on one line. So a record, a partition or an election is one
// line, and a result of thousands of partitions stays readable.
func writeIndented(w *bytes.Buffer, n *node, indent string) {
	if n.flat() {
		writeCompact(w, n)
		return
	}
	inner := indent + "  "
	open, close := byte('['), byte(']')
	if n.kind == kindObject {
		open, close = '{', '}'
	}
	w.WriteByte(open)
	for i, v := range n.vals {
		if i > 0 {
			w.WriteByte(',')
		}
		w.WriteString("\n" + inner)
		if n.kind == kindObject {
			writeString(w, n.keys[i])
			w.WriteString(": ")
		}
		writeIndented(w, v, inner)
	}
	w.WriteString("\n" + indent)
	w.WriteByte(close)
}

// flat reports whether a value prints on one line.
func (n *node) flat() bool {
	switch n.kind {
	case kindObject, kindArray:
		if len(n.vals) == 0 {
			return true
		}
		for _, v := range n.vals {
			if v.kind == kindObject || (v.kind == kindArray && !v.scalars()) {
				return false
			}
		}
	}
	return true
}

func (n *node) scalars() bool {
	for _, v := range n.vals {
		if v.kind == kindObject || v.kind == kindArray {
			return false
		}
	}
	return true
}

func writeCompact(w *bytes.Buffer, n *node) {
	switch n.kind {
	case kindNull:
		w.WriteString("null")
	case kindBool:
		w.WriteString(strconv.FormatBool(n.b))
	case kindNumber:
		w.WriteString(n.s)
	case kindString:
		writeString(w, n.s)
	case kindObject, kindArray:
		open, close := byte('['), byte(']')
		if n.kind == kindObject {
			open, close = '{', '}'
		}
		w.WriteByte(open)
		for i, v := range n.vals {
			if i > 0 {
				w.WriteByte(',')
			}
			if n.kind == kindObject {
				writeString(w, n.keys[i])
				w.WriteByte(':')
			}
			writeCompact(w, v)
		}
		w.WriteByte(close)
	}
}

// writeString escapes a string exactly as encoding/json does, so re-indenting changes only
// whitespace.
func writeString(w *bytes.Buffer, s string) {
	b, _ := json.Marshal(s) // a string always marshals
	w.Write(b)
}
