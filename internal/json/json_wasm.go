//go:build js && wasm

package json

import (
	"bytes"
	"io"

	json "github.com/kraftlab/kraftlab/internal/jsonlite"
)

// In js/wasm every name is jsonlite's, which does what encoding/json does for the project
// (see its package documentation): the types by alias, the functions by wrappers.

// Number is jsonlite's Number.
type Number = json.Number

// RawMessage is jsonlite's RawMessage.
type RawMessage = json.RawMessage

// Delim is jsonlite's Delim.
type Delim = json.Delim

// Token is jsonlite's Token.
type Token = json.Token

// Decoder is jsonlite's Decoder.
type Decoder = json.Decoder

// Encoder is jsonlite's Encoder.
type Encoder = json.Encoder

// Marshaler is jsonlite's Marshaler.
type Marshaler = json.Marshaler

// Unmarshaler is jsonlite's Unmarshaler.
type Unmarshaler = json.Unmarshaler

// SyntaxError is jsonlite's SyntaxError.
type SyntaxError = json.SyntaxError

// UnmarshalTypeError is jsonlite's UnmarshalTypeError.
type UnmarshalTypeError = json.UnmarshalTypeError

// InvalidUnmarshalError is jsonlite's InvalidUnmarshalError.
type InvalidUnmarshalError = json.InvalidUnmarshalError

// UnsupportedTypeError is jsonlite's UnsupportedTypeError.
type UnsupportedTypeError = json.UnsupportedTypeError

// UnsupportedValueError is jsonlite's UnsupportedValueError.
type UnsupportedValueError = json.UnsupportedValueError

// MarshalerError is jsonlite's MarshalerError.
type MarshalerError = json.MarshalerError

// Marshal is jsonlite's Marshal.
func Marshal(v any) ([]byte, error) { return json.Marshal(v) }

// Unmarshal is jsonlite's Unmarshal.
func Unmarshal(data []byte, v any) error { return json.Unmarshal(data, v) }

// NewDecoder is jsonlite's NewDecoder.
func NewDecoder(r io.Reader) *Decoder { return json.NewDecoder(r) }

// NewEncoder is jsonlite's NewEncoder.
func NewEncoder(w io.Writer) *Encoder { return json.NewEncoder(w) }

// Compact is jsonlite's Compact.
func Compact(dst *bytes.Buffer, src []byte) error { return json.Compact(dst, src) }

// Valid is jsonlite's Valid.
func Valid(data []byte) bool { return json.Valid(data) }
