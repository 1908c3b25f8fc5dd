// Package jsonlite is a small JSON codec with encoding/json's behaviour for what KRaft Lab's
// WebAssembly programs use of it, so that they need not link encoding/json.
//
// Why: the playground's wasm (wasm/cmd/kraftlab-wasm) and the config lab's
// (wasm/cmd/kraftlab-lab-wasm) must stay within 1,000,000 bytes brotli-compressed, and
// encoding/json costs about 108 KB brotli on top of fmt and reflect in a small wasm program. In
// the project's programs, which link reflect, strconv and the rest anyway, this package in its
// place saved 20.8 KB of kraftlab.wasm (1,144,753 -> 1,123,943 B) and 17.1 KB of lab.wasm: its
// own code is 158 KB (26 KB brotli) where encoding/json's was 205 KB (30 KB) plus 41 KB of
// generic sorts. Encoding the playground's frame is no slower under Node (BenchmarkMarshalFrame
// in ./framebench). Package internal/json selects this package in js/wasm builds and
// encoding/json everywhere else, so the CLI, the golden files and the sweeps are encoded by encoding/json itself; this
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
// TextUnmarshaler (values and map keys); []byte as base64. MarshalIndent, Indent,
// HTMLEscape and Decoder.Buffered are not there at all: no package of the wasm calls them.
// Complex numbers, channels and functions fail as in encoding/json, with an
// *UnsupportedTypeError. Errors that print a type print this package's own as jsonlite.Number
// and jsonlite.RawMessage.
package jsonlite
