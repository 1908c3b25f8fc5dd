// Command tsgen writes the TypeScript types of the worker protocol from the bridge's Go types
// (see package web/tsgen). Run it from anywhere in the repository after changing a message
// type: go run ./web/cmd/tsgen.
package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/kraftlab/kraftlab/web/build"
	"github.com/kraftlab/kraftlab/web/tsgen"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "tsgen:", err)
		os.Exit(1)
	}
}

func run() error {
	root, err := build.FindRoot()
	if err != nil {
		return err
	}
	for _, f := range tsgen.Files() {
		src, err := tsgen.Generate(root, f)
		if err != nil {
			return fmt.Errorf("%s: %w", f.Path, err)
		}
		if err := os.WriteFile(filepath.Join(root, f.Path), src, 0o644); err != nil {
			return err
		}
	}
	return nil
}
