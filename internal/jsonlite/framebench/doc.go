// Package framebench holds a benchmark, not code: jsonlite against encoding/json on the
// playground's frame, natively and (GOOS=js GOARCH=wasm, under Node) as the page runs it. It
// is a package of its own because the bridge it takes the frame from imports jsonlite in
// js/wasm builds, which jsonlite's own tests cannot import.
package framebench
