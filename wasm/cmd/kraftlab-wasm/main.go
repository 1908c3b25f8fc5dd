//go:build js && wasm

// Command kraftlab-wasm is the KRaft Lab program that runs inside the page's Web Worker
// (web/ts/worker.ts starts it). It answers the messages of web/PROTOCOL.md until the worker is
// terminated. Build it with GOOS=js GOARCH=wasm; build.go does.
package main

import (
	"os"

	"github.com/hack-pad/safejs"

	"github.com/kraftlab/kraftlab/wasm/bridge"
	"github.com/kraftlab/kraftlab/wasm/worker"
)

// version is stamped by build.go with -ldflags "-X main.version=...".
var version = "dev"

func main() {
	b := bridge.New(bridge.Info{Version: version})
	if _, err := worker.Serve(safejs.Global(), b); err != nil {
		// Exiting makes worker.ts report the failure to the page, with this line in the report.
		println("kraftlab-wasm:", err.Error())
		os.Exit(1)
	}
	// Keep the program alive: from here on it only runs inside onmessage callbacks.
	select {}
}
