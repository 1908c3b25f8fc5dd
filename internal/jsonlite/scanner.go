// Portions copyright 2010 The Go Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in Go's LICENSE file.

package jsonlite

import "strconv"

// The scanner is encoding/json's state machine (scanner.go), the same transitions, opcodes,
// messages and byte counts, so that every syntax error and its offset come out as encoding/json
// reports them. Where encoding/json keeps one Go function per state, this keeps a state number
// and one switch: in the wasm each function costs a prologue and resume points, and the
// literal states (true, false, null, \uXXXX) collapse into one state with a position.

// Valid reports whether data is a valid JSON encoding.
func Valid(data []byte) bool {
	var scan scanner
	return checkValid(data, &scan) == nil
}

// checkValid verifies that data is valid JSON-encoded data and returns nil or a *SyntaxError.
func checkValid(data []byte, scan *scanner) error {
	scan.reset()
	for _, c := range data {
		scan.bytes++
		if scan.step(c) == scanError {
			return scan.err
		}
	}
	if scan.eof() == scanError {
		return scan.err
	}
	return nil
}

// A SyntaxError is a description of a JSON syntax error.
type SyntaxError struct {
	msg    string // description of error
	Offset int64  // error occurred after reading Offset bytes
}

// Error returns the description, in encoding/json's words.
func (e *SyntaxError) Error() string { return e.msg }

// Opcodes returned by scanner.step and scanner.eof, as in encoding/json.
const (
	scanContinue     = iota // uninteresting byte
	scanBeginLiteral        // end implied by next result != scanContinue
	scanBeginObject         // begin object
	scanObjectKey           // just finished object key (string)
	scanObjectValue         // just finished non-last object value
	scanEndObject           // end object (implies scanObjectValue if possible)
	scanBeginArray          // begin array
	scanArrayValue          // just finished array value
	scanEndArray            // end array (implies scanArrayValue if possible)
	scanSkipSpace           // space byte; can skip; known to be last "continue" result
	scanEnd                 // top-level value ended *before* this byte
	scanError               // hit an error, scanner.err
)

// Values of the parse-state stack.
const (
	parseObjectKey   = iota // parsing object key (before colon)
	parseObjectValue        // parsing object value (after colon)
	parseArrayValue         // parsing array value
)

// maxNestingDepth is encoding/json's limit, which keeps a hostile input from growing the stack.
const maxNestingDepth = 10000

// Scanner states; each is one of encoding/json's state functions.
const (
	stBeginValue uint8 = iota
	stBeginValueOrEmpty
	stBeginStringOrEmpty
	stBeginString
	stEndValue
	stEndTop
	stInString
	stInStringEsc
	stInStringEscU // lit counts the hex digits read
	stNeg
	stOne // state1 in encoding/json: inside a non-zero integer
	stZero
	stDot
	stDot0
	stE
	stESign
	stE0
	stLiteral // inside true, false or null: lit is the literal, pos the next byte expected
	stError
)

// A scanner is a JSON scanning state machine; see encoding/json's scanner for the protocol.
type scanner struct {
	state      uint8
	endTop     bool  // reached the end of the top-level value
	parseState []int // what we are in the middle of: array values, object keys, object values
	err        error
	lit        string // the literal being read in stLiteral
	pos        int    // in stLiteral, the index in lit of the next byte; in stInStringEscU, digits read
	// bytes is the total of bytes consumed, updated by the callers (and deliberately not set to
	// zero by reset, as the Decoder counts across values).
	bytes int64
}

func (s *scanner) reset() {
	s.state = stBeginValue
	s.parseState = s.parseState[0:0]
	s.err = nil
	s.endTop = false
}

// eof tells the scanner that the end of input has been reached.
func (s *scanner) eof() int {
	if s.err != nil {
		return scanError
	}
	if s.endTop {
		return scanEnd
	}
	s.step(' ')
	if s.endTop {
		return scanEnd
	}
	if s.err == nil {
		s.err = &SyntaxError{"unexpected end of JSON input", s.bytes}
	}
	return scanError
}

func (s *scanner) pushParseState(c byte, newParseState int, successState int) int {
	s.parseState = append(s.parseState, newParseState)
	if len(s.parseState) <= maxNestingDepth {
		return successState
	}
	return s.error(c, "exceeded max depth")
}

func (s *scanner) popParseState() {
	n := len(s.parseState) - 1
	s.parseState = s.parseState[0:n]
	if n == 0 {
		s.state = stEndTop
		s.endTop = true
	} else {
		s.state = stEndValue
	}
}

func isSpace(c byte) bool {
	return c <= ' ' && (c == ' ' || c == '\t' || c == '\r' || c == '\n')
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// step feeds one byte to the state machine and returns the opcode.
func (s *scanner) step(c byte) int {
	switch s.state {
	case stBeginValueOrEmpty:
		if isSpace(c) {
			return scanSkipSpace
		}
		if c == ']' {
			return s.endValue(c)
		}
		return s.beginValue(c)
	case stBeginValue:
		return s.beginValue(c)
	case stBeginStringOrEmpty:
		if isSpace(c) {
			return scanSkipSpace
		}
		if c == '}' {
			s.parseState[len(s.parseState)-1] = parseObjectValue
			return s.endValue(c)
		}
		return s.beginString(c)
	case stBeginString:
		return s.beginString(c)
	case stEndValue:
		return s.endValue(c)
	case stEndTop:
		return s.endTopValue(c)
	case stInString:
		if c == '"' {
			s.state = stEndValue
			return scanContinue
		}
		if c == '\\' {
			s.state = stInStringEsc
			return scanContinue
		}
		if c < 0x20 {
			return s.error(c, "in string literal")
		}
		return scanContinue
	case stInStringEsc:
		switch c {
		case 'b', 'f', 'n', 'r', 't', '\\', '/', '"':
			s.state = stInString
			return scanContinue
		case 'u':
			s.state, s.pos = stInStringEscU, 0
			return scanContinue
		}
		return s.error(c, "in string escape code")
	case stInStringEscU:
		if isHex(c) {
			if s.pos++; s.pos == 4 {
				s.state = stInString
			}
			return scanContinue
		}
		return s.error(c, "in \\u hexadecimal character escape")
	case stNeg:
		if c == '0' {
			s.state = stZero
			return scanContinue
		}
		if '1' <= c && c <= '9' {
			s.state = stOne
			return scanContinue
		}
		return s.error(c, "in numeric literal")
	case stOne:
		if '0' <= c && c <= '9' {
			return scanContinue
		}
		return s.zero(c)
	case stZero:
		return s.zero(c)
	case stDot:
		if '0' <= c && c <= '9' {
			s.state = stDot0
			return scanContinue
		}
		return s.error(c, "after decimal point in numeric literal")
	case stDot0:
		if '0' <= c && c <= '9' {
			return scanContinue
		}
		if c == 'e' || c == 'E' {
			s.state = stE
			return scanContinue
		}
		return s.endValue(c)
	case stE:
		if c == '+' || c == '-' {
			s.state = stESign
			return scanContinue
		}
		return s.eSign(c)
	case stESign:
		return s.eSign(c)
	case stE0:
		if '0' <= c && c <= '9' {
			return scanContinue
		}
		return s.endValue(c)
	case stLiteral:
		if want := s.lit[s.pos]; c != want {
			return s.error(c, "in literal "+s.lit+" (expecting "+quoteChar(want)+")")
		}
		if s.pos++; s.pos == len(s.lit) {
			s.state = stEndValue
		}
		return scanContinue
	}
	return scanError // stError
}

// beginValue is stateBeginValue: the state at the beginning of a value.
func (s *scanner) beginValue(c byte) int {
	if isSpace(c) {
		return scanSkipSpace
	}
	switch c {
	case '{':
		s.state = stBeginStringOrEmpty
		return s.pushParseState(c, parseObjectKey, scanBeginObject)
	case '[':
		s.state = stBeginValueOrEmpty
		return s.pushParseState(c, parseArrayValue, scanBeginArray)
	case '"':
		s.state = stInString
		return scanBeginLiteral
	case '-':
		s.state = stNeg
		return scanBeginLiteral
	case '0':
		s.state = stZero
		return scanBeginLiteral
	case 't':
		s.state, s.lit, s.pos = stLiteral, "true", 1
		return scanBeginLiteral
	case 'f':
		s.state, s.lit, s.pos = stLiteral, "false", 1
		return scanBeginLiteral
	case 'n':
		s.state, s.lit, s.pos = stLiteral, "null", 1
		return scanBeginLiteral
	}
	if '1' <= c && c <= '9' {
		s.state = stOne
		return scanBeginLiteral
	}
	return s.error(c, "looking for beginning of value")
}

// beginString is stateBeginString: after reading `{"key": value,`.
func (s *scanner) beginString(c byte) int {
	if isSpace(c) {
		return scanSkipSpace
	}
	if c == '"' {
		s.state = stInString
		return scanBeginLiteral
	}
	return s.error(c, "looking for beginning of object key string")
}

// zero is state0: after reading `0` (or a whole integer) in a number.
func (s *scanner) zero(c byte) int {
	if c == '.' {
		s.state = stDot
		return scanContinue
	}
	if c == 'e' || c == 'E' {
		s.state = stE
		return scanContinue
	}
	return s.endValue(c)
}

// eSign is stateESign: after the mantissa, e and an optional sign.
func (s *scanner) eSign(c byte) int {
	if '0' <= c && c <= '9' {
		s.state = stE0
		return scanContinue
	}
	return s.error(c, "in exponent of numeric literal")
}

// endValue is stateEndValue: after completing a value, such as `{}` or `true` or `["x"`.
func (s *scanner) endValue(c byte) int {
	n := len(s.parseState)
	if n == 0 {
		// Completed top-level before the current byte.
		s.state = stEndTop
		s.endTop = true
		return s.endTopValue(c)
	}
	if isSpace(c) {
		s.state = stEndValue
		return scanSkipSpace
	}
	switch s.parseState[n-1] {
	case parseObjectKey:
		if c == ':' {
			s.parseState[n-1] = parseObjectValue
			s.state = stBeginValue
			return scanObjectKey
		}
		return s.error(c, "after object key")
	case parseObjectValue:
		if c == ',' {
			s.parseState[n-1] = parseObjectKey
			s.state = stBeginString
			return scanObjectValue
		}
		if c == '}' {
			s.popParseState()
			return scanEndObject
		}
		return s.error(c, "after object key:value pair")
	default: // parseArrayValue
		if c == ',' {
			s.state = stBeginValue
			return scanArrayValue
		}
		if c == ']' {
			s.popParseState()
			return scanEndArray
		}
		return s.error(c, "after array element")
	}
}

// endTopValue is stateEndTop: after the top-level value only space may follow.
func (s *scanner) endTopValue(c byte) int {
	if !isSpace(c) {
		// Complain about non-space byte on next call.
		s.error(c, "after top-level value")
	}
	return scanEnd
}

// error records an error and switches to the error state.
func (s *scanner) error(c byte, context string) int {
	s.state = stError
	s.err = &SyntaxError{"invalid character " + quoteChar(c) + " " + context, s.bytes}
	return scanError
}

// quoteChar formats c as a quoted character literal, as encoding/json does.
func quoteChar(c byte) string {
	if c == '\'' {
		return `'\''`
	}
	if c == '"' {
		return `'"'`
	}
	q := strconv.Quote(string(rune(c)))
	return "'" + q[1:len(q)-1] + "'"
}
