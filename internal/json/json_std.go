//go:build !(js && wasm)

package json

import (
	"bytes"
	"encoding/json"
	"io"
)

// Outside js/wasm every name is encoding/json's own: the types by alias, the functions by
// wrappers that the compiler inlines.

// Number is encoding/json's Number.
type Number = json.Number

// RawMessage is encoding/json's RawMessage.
type RawMessage = json.RawMessage

// Delim is encoding/json's Delim.
type Delim = json.Delim

// Token is encoding/json's Token.
type Token = json.Token

// Decoder is encoding/json's Decoder.
type Decoder = json.Decoder

// Encoder is encoding/json's Encoder.
type Encoder = json.Encoder

// Marshaler is encoding/json's Marshaler.
type Marshaler = json.Marshaler

// Unmarshaler is encoding/json's Unmarshaler.
type Unmarshaler = json.Unmarshaler

// SyntaxError is encoding/json's SyntaxError.
type SyntaxError = json.SyntaxError

// UnmarshalTypeError is encoding/json's UnmarshalTypeError.
type UnmarshalTypeError = json.UnmarshalTypeError

// InvalidUnmarshalError is encoding/json's InvalidUnmarshalError.
type InvalidUnmarshalError = json.InvalidUnmarshalError

// UnsupportedTypeError is encoding/json's UnsupportedTypeError.
type UnsupportedTypeError = json.UnsupportedTypeError

// UnsupportedValueError is encoding/json's UnsupportedValueError.
type UnsupportedValueError = json.UnsupportedValueError

// MarshalerError is encoding/json's MarshalerError.
type MarshalerError = json.MarshalerError

// Marshal is encoding/json's Marshal.
func Marshal(v any) ([]byte, error) { return json.Marshal(v) }

// Unmarshal is encoding/json's Unmarshal.
func Unmarshal(data []byte, v any) error { return json.Unmarshal(data, v) }

// NewDecoder is encoding/json's NewDecoder.
func NewDecoder(r io.Reader) *Decoder { return json.NewDecoder(r) }

// NewEncoder is encoding/json's NewEncoder.
func NewEncoder(w io.Writer) *Encoder { return json.NewEncoder(w) }

// Compact is encoding/json's Compact.
func Compact(dst *bytes.Buffer, src []byte) error { return json.Compact(dst, src) }

// Valid is encoding/json's Valid.
func Valid(data []byte) bool { return json.Valid(data) }
