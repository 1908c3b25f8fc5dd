// Package jsonlite is a small JSON codec with encoding/json's behaviour for what KRaft Lab's
// WebAssembly programs use of it, so that they need not link encoding/json.
//
// Why: the playground's wasm (wasm/cmd/kraftlab-wasm) and the config lab's
// (wasm/cmd/kraftlab-lab-wasm) must stay within 1,000,000 bytes brotli-compressed, and
// encoding/json costs about 108 KB brotli on top of fmt and reflect in a small wasm program.
// Package internal/json selects this package in js/wasm builds and encoding/json everywhere
// else, so the CLI, the golden files and the sweeps are encoded by encoding/json itself; this
// package has no build tags so that its tests compare it with encoding/json natively.
//
// What it does as encoding/json does, byte for byte and error for error: [Marshal] (HTML-safe
// escaping, U+2028 and U+2029, invalid UTF-8 as U+FFFD, floats as encoding/json's
// floatEncoder writes them, sorted map keys, omitempty, embedded structs with Go's visibility
// rules amended by tags, nil slices and maps as null, MarshalJSON methods with their output
// compacted and checked, cycles refused); [Unmarshal] and [Decoder] (the same syntax errors
// and offsets, case-insensitive field matching, unknown fields ignored or refused, type errors
// naming the struct field, number range errors, UnmarshalJSON methods, [RawMessage],
// [Number], pointers, slices, arrays, maps with string or integer keys, interface values);
// [Decoder.Token], [Decoder.More] and [Decoder.InputOffset]; [Encoder] with SetIndent and
// SetEscapeHTML; [Compact] and [Valid]. The scanner, the Decoder's streaming and Compact are
// encoding/json's code; the reflection-based encoder and decoder are smaller rewrites.
//
// What it leaves out, each reported as an error (never silently done differently): the
// ,string and omitzero tag options; non-ASCII json tag names; encoding.TextMarshaler and
// TextUnmarshaler (values and map keys); []byte as base64; MarshalIndent, Indent,
// HTMLEscape and Decoder.Buffered, which no package of the wasm calls. Complex numbers,
// channels and functions fail as in encoding/json, with an *UnsupportedTypeError.
package jsonlite
