//go:build js && wasm

// Command kraftlab-wasm is the KRaft Lab program that runs inside the page's Web Worker
// (web/ts/worker.ts starts it). It answers the messages of web/PROTOCOL.md until the worker is
// terminated. Build it with GOOS=js GOARCH=wasm; build.go does.
package main

import (
	"github.com/kraftlab/kraftlab/wasm/bridge"
	"github.com/kraftlab/kraftlab/wasm/worker"
)

// version is stamped by build.go with -ldflags "-X main.version=...".
var version = "dev"

func main() {
	b := bridge.New(bridge.Info{Version: version})
	worker.Main("kraftlab-wasm", b)
}
