//go:build js && wasm

// Command kraftlab-rehearse-wasm is the program behind the config lab's rehearsal on an
// imported cluster: each Web Worker that plays a rehearsal's run runs it (web/ts/worker.ts
// loads rehearse.wasm when started as "worker.js?wasm=rehearse"). It answers hello and the
// lab.rehearse.* messages of web/PROTOCOL.md. It is a program of its own, not part of
// lab.wasm, because the importers, the plan runner and the report writer would put lab.wasm
// over its size budget, and the lab page downloads this program only when a rehearsal starts.
// Build it with GOOS=js GOARCH=wasm; build.go does.
package main

import (
	"github.com/kraftlab/kraftlab/wasm/bridge"
	"github.com/kraftlab/kraftlab/wasm/bridge/labmsg"
	"github.com/kraftlab/kraftlab/wasm/worker"
)

var version = "dev"

func main() {
	b := bridge.NewCore(bridge.Info{Version: version})
	labmsg.RegisterRehearse(b)
	worker.Main("kraftlab-rehearse-wasm", b)
}
