// Command serve serves a built KRaft Lab site on a loopback address, for `make run`:
//
//	go run build.go && go run ./web/cmd/serve -addr 127.0.0.1:8080
//
// It stops cleanly on Ctrl-C. The lead's `kraftlab serve` subcommand does the same through
// web/server.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"

	"github.com/kraftlab/kraftlab/web/build"
	"github.com/kraftlab/kraftlab/web/server"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:8080", "listen address; must be loopback (127.0.0.1, [::1] or localhost)")
	dir := flag.String("dir", "dist", "the built site (go run build.go writes dist/)")
	flag.Parse()

	if _, err := os.Stat(filepath.Join(*dir, build.Marker)); err != nil {
		fmt.Fprintf(os.Stderr, "serve: %s is not a built site (no %s); run `go run build.go` first\n", *dir, build.Marker)
		os.Exit(1)
	}
	l, err := server.Listen(*addr)
	if err != nil {
		fmt.Fprintln(os.Stderr, "serve:", err)
		os.Exit(1)
	}
	fmt.Printf("serving %s on http://%s/ (Ctrl-C to stop)\n", *dir, l.Addr())
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := server.Serve(ctx, l, os.DirFS(*dir)); err != nil {
		fmt.Fprintln(os.Stderr, "serve:", err)
		os.Exit(1)
	}
}
