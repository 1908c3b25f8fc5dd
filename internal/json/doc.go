// Package json is the JSON package of KRaft Lab's code: encoding/json in every build but
// js/wasm, where it is internal/jsonlite, which behaves the same for what the project uses
// and keeps encoding/json out of the playground's and the config lab's wasm (20.8 KB brotli of
// kraftlab.wasm; README, "The playground", has the sizes).
//
// Import it instead of encoding/json in any package that a wasm program links (go list -deps
// of ./wasm/cmd/...): one encoding/json import there links all of encoding/json again, and
// its Number and RawMessage would not be this package's. Native builds (the CLI, golden files,
// sweeps) keep encoding/json itself, so their output cannot change. The names are
// encoding/json's, as aliases; in js/wasm, the types print as jsonlite's (jsonlite.Number).
package json
