// Package jsskip marks the tests that the js/wasm run (make wasm-test: the test binaries
// compiled to WebAssembly and run under Node) leaves to the native run.
//
// Why: under Node the same Go takes several times the CPU it takes natively, and make test
// runs every package's tests natively anyway. What the js/wasm run is for is what can differ
// there: code built only for js (the worker's message loop and the safejs boundary), and the
// Go runtime's and math library's own code for the platform, which the tests that hold a run
// to figures recorded natively catch (the scenario goldens, the compiled course's goal
// pictures, the lessons' and talks' expect: lines). A long test that computes one thing two
// ways and compares them inside one process (incremental against whole, budgeted against
// unbudgeted, the page's way against the CLI's) runs the same Go on both sides: under js/wasm
// it can only agree with itself again, so it runs natively only. Short tests run in both
// places: they cost the Node run little. CONTRIBUTING.md ("What runs under Node") has the rule.
package jsskip

import (
	"os"
	"runtime"
	"testing"
)

// CoveredNatively skips t under js/wasm, unless KRAFTLAB_JS_ALL=1 (for a change of Go
// toolchain, or of anything the platform could change); natively it does nothing. why names
// the two sides the test compares, so that a reader can see both run in one process.
func CoveredNatively(t testing.TB, why string) {
	t.Helper()
	if runtime.GOOS == "js" && os.Getenv("KRAFTLAB_JS_ALL") != "1" {
		t.Skip("runs natively only (internal/jsskip; KRAFTLAB_JS_ALL=1 runs it here too): " + why)
	}
}
