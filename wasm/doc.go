// Package wasm is the browser side of KRaft Lab: the Go program that runs inside a Web Worker
// and the one boundary between Go and JavaScript.
//
// The room is split so that almost everything tests natively:
//
//   - wasm/bridge is the message API (JSON request in, JSON reply out), with the config lab's
//     messages in wasm/bridge/labmsg. It imports no JavaScript and is tested with plain
//     `go test`.
//   - wasm/worker is the thin js&&wasm layer: it wires the bridge to a worker's onmessage and
//     postMessage through github.com/hack-pad/safejs, which turns JavaScript exceptions into Go
//     errors. It is tested under Node with GOOS=js GOARCH=wasm.
//   - wasm/cmd/kraftlab-wasm is the playground's program, built into dist/kraftlab.wasm, and
//     wasm/cmd/kraftlab-lab-wasm the config lab's, built into dist/lab.wasm: one per page, so
//     that neither page downloads the other's code. wasm/cmd/kraftlab-rehearse-wasm, built into
//     dist/rehearse.wasm, plays the lab's rehearsals on an imported cluster; the lab page
//     downloads it only when a rehearsal starts.
//
// No package in the module may import syscall/js, and only packages under wasm/ may import
// safejs; boundary_test.go enforces both. The protocol is documented in web/PROTOCOL.md.
package wasm
