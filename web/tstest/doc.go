// Package tstest runs the page's TypeScript unit tests (web/ts/test/*.test.ts): it bundles
// each test file with esbuild's Go API, as web/build bundles the page, into an ES module for
// Node, and runs them all with `node --test`. The tests cover the pure modules (the charts'
// history ring, the canvas geometry, frame decoding and formatting, the lab form's check
// against worker replies the test holds and releases) and, over a small fake DOM
// (web/ts/test/fakedom.ts), the lesson panel, so they need no browser.
//
// Node is the only requirement; without it the test is skipped, or fails under CI=true.
package tstest
