//go:build js && wasm

// Command kraftlab-lab-wasm is the program behind the config lab page (lab.html): each of the
// page's Web Workers runs it (web/ts/worker.ts loads lab.wasm when started as
// "worker.js?wasm=lab"). It answers hello and the lab.* messages of web/PROTOCOL.md, and
// nothing of the playground's: it links package lab and the cluster, not the playground's
// simulation session and lessons, which keeps it and the playground's kraftlab.wasm each
// smaller than one program serving both. Build it with GOOS=js GOARCH=wasm; build.go does.
package main

import (
	"github.com/kraftlab/kraftlab/wasm/bridge"
	"github.com/kraftlab/kraftlab/wasm/bridge/labmsg"
	"github.com/kraftlab/kraftlab/wasm/worker"
)

// version is stamped by build.go with -ldflags "-X main.version=...".
var version = "dev"

func main() {
	b := bridge.NewCore(bridge.Info{Version: version})
	bridge.RegisterDebug(b)
	labmsg.Register(b)
	worker.Main("kraftlab-lab-wasm", b)
}
