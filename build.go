//go:build ignore

// Command build writes KRaft Lab's static site to dist/ (see web/build for what it contains):
//
//	go run build.go                 # dist/, content-hashed names, .gz and .br copies (make dist: the release build)
//	go run build.go -out /tmp/site -version v0.1.0
//	go run build.go -dev            # plain names, no compressed copies, for a loopback server (make run)
//	go run build.go -lines          # keep the wasm's line tables: tracebacks with file:line
//
// It prints the size of every asset, raw and compressed. Serve the result with
// `go run ./web/cmd/serve` (or `make run`), or from any static host.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/kraftlab/kraftlab/web/build"
)

func main() {
	out := flag.String("out", "dist", "output directory (replaced if it holds a previous build)")
	version := flag.String("version", "dev", "version stamped into the wasm and the page")
	gz := flag.Bool("gzip", true, "write .gz copies")
	br := flag.Bool("brotli", true, "write .br copies")
	dev := flag.Bool("dev", false, "the edit loop's build: no .gz or .br copies (brotli at its best quality takes tens of seconds; on loopback the raw files cost nothing), no service worker (it would serve the previous build until its pages close), and plain file names instead of content-hashed ones")
	brotliCache := flag.String("brotli-cache", build.DefaultBrotliCache(), "where the wasm programs' .br copies are kept by content, so that a program byte for byte one built before is not compressed again (\"\": no cache)")
	lines := flag.Bool("lines", false, "keep the wasm programs' file, line and inlining tables (tracebacks with file:line; about 130 KB more each, brotli)")
	quiet := flag.Bool("q", false, "print nothing but errors")
	flag.Parse()

	if *dev {
		*gz, *br = false, false
	}
	start := time.Now()
	opts := build.Options{Out: *out, Version: *version, Gzip: *gz, Brotli: *br, BrotliCache: *brotliCache, Offline: !*dev, Hash: !*dev, KeepLines: *lines}
	if !*quiet {
		opts.Log = os.Stderr
	}
	assets, err := build.Build(context.Background(), opts)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if !*quiet {
		build.WriteSizes(os.Stdout, assets)
		if *br {
			for _, over := range build.OverBudget(assets) {
				fmt.Println("over budget:", over)
			}
		}
		fmt.Printf("built %s in %.1fs\n", *out, time.Since(start).Seconds())
	}
}
