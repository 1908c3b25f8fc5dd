//go:build js && wasm

// Command kraftlab-lab-wasm is the program behind the config lab page (lab.html): each of the
// page's Web Workers runs it (web/ts/worker.ts loads lab.wasm when started as
// "worker.js?wasm=lab"). It answers hello and the lab.* messages of web/PROTOCOL.md, and
// nothing of the playground's: it links package lab and the cluster, not the playground's
// simulation session and lessons, which keeps it and the playground's kraftlab.wasm each
// smaller than one program serving both. Build it with GOOS=js GOARCH=wasm; build.go does.
package main

import (
	"runtime/debug"

	"github.com/kraftlab/kraftlab/wasm/bridge"
	"github.com/kraftlab/kraftlab/wasm/bridge/labmsg"
	"github.com/kraftlab/kraftlab/wasm/worker"
)

// gcPercent is the lab worker's GOGC. A wasm's linear memory only grows: it is the high-water
// mark of the Go heap, which with Go's default of 100 reaches twice the live heap before a
// collection. A lab worker holds one run's cluster at a time (the KIP preset's: about 90 MB
// live), so 25 holds its peak near 1.25 times that (natively on one thread: 105–111 MB in use
// instead of 143–147 MB), for a few more collections a run (8–16 instead of 5–6).
const gcPercent = 25

// version is stamped by build.go with -ldflags "-X main.version=...".
var version = "dev"

func main() {
	debug.SetGCPercent(gcPercent)
	b := bridge.NewCore(bridge.Info{Version: version})
	bridge.RegisterDebug(b)
	labmsg.Register(b)
	worker.Main("kraftlab-lab-wasm", b)
}
