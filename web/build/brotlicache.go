package build

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/andybalholm/brotli"
)

// The brotli cache keeps the .br copies of the wasm programs by their content, so that a
// release build whose program is byte for byte one built before (a change to the pages, the
// docs or the tests leaves the programs alone; the wasm build is reproducible) takes the copy
// instead of compressing the program again: brotli at its best quality is about 14 s of CPU a
// program, most of a release build and of make test's web/build. A copy is the encoder's output
// for those bytes, so the sizes held to the budgets and the files a host serves are what
// compressing them again would give.

// DefaultBrotliCache is the cache directory the release build uses (build.go -brotli-cache,
// web/build's TestReleaseSizes): kraftlab/brotli under the user's cache directory, or "" (no
// cache) when there is none.
func DefaultBrotliCache() string {
	dir, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	return filepath.Join(dir, "kraftlab", "brotli")
}

// brotliCacheKeep is how many copies the cache keeps, the most recently used: a few builds' worth
// (three programs a build), a few MB each build.
const brotliCacheKeep = 12

// cachedFile says which files Build's brotli cache holds copies of: the wasm programs, which
// take nearly all of the compression's time. Other files compress in milliseconds.
func cachedFile(name string) bool { return strings.HasSuffix(name, ".wasm") }

// brotliEncoder names the encoder brotliBest runs, with its version, as part of a cache key:
// another encoder, or another version, may write other bytes for the same input.
var brotliEncoder = sync.OnceValue(func() string {
	if cmd := brotliCommand(); cmd != "" {
		out, err := exec.Command(cmd, "--version").Output()
		if err != nil {
			return "cmd " + cmd
		}
		return "cmd " + cmd + " " + strings.TrimSpace(string(out))
	}
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, m := range info.Deps {
			if m.Path == "github.com/andybalholm/brotli" {
				return "lib " + m.Version
			}
		}
	}
	return "lib"
})

// brotliCacheKey is the name of raw's copy in the cache: its SHA-256, with the encoder, the
// quality and the window hashed in.
func brotliCacheKey(raw []byte) string {
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00q11 lgwin%d\x00", brotliEncoder(), BrotliWindow)
	h.Write(raw)
	return hex.EncodeToString(h.Sum(nil)) + ".br"
}

// brotliCached is brotliBest(raw) through the cache in dir: the copy kept for raw's bytes when
// there is one and it decodes to them, and otherwise a fresh one, kept for the next build. hit
// says which. A cache that cannot be read or written costs only the compression.
func brotliCached(dir string, raw []byte) (b []byte, hit bool, err error) {
	path := filepath.Join(dir, brotliCacheKey(raw))
	if b, err := os.ReadFile(path); err == nil && decodesTo(b, raw) {
		now := time.Now()
		_ = os.Chtimes(path, now, now) // recently used: pruned last
		return b, true, nil
	}
	if b, err = brotliBest(raw); err != nil {
		return nil, false, err
	}
	if os.MkdirAll(dir, 0o755) == nil {
		if f, err := os.CreateTemp(dir, ".tmp-*"); err == nil {
			_, werr := f.Write(b)
			if cerr := f.Close(); werr == nil && cerr == nil && os.Rename(f.Name(), path) == nil {
				pruneBrotliCache(dir)
			} else {
				_ = os.Remove(f.Name())
			}
		}
	}
	return b, false, nil
}

// decodesTo says whether the brotli stream b decodes to exactly want: a copy from the cache is
// checked before it is used (about 30 ms for a program), so that a damaged file is compressed
// again rather than shipped.
func decodesTo(b, want []byte) bool {
	got, err := io.ReadAll(io.LimitReader(brotli.NewReader(bytes.NewReader(b)), int64(len(want))+1))
	return err == nil && bytes.Equal(got, want)
}

// pruneBrotliCache removes all but the brotliCacheKeep most recently used copies.
func pruneBrotliCache(dir string) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	type kept struct {
		name string
		used int64
	}
	var copies []kept
	for _, e := range entries {
		if info, err := e.Info(); err == nil && strings.HasSuffix(e.Name(), ".br") {
			copies = append(copies, kept{e.Name(), info.ModTime().UnixNano()})
		}
	}
	sort.Slice(copies, func(i, j int) bool { return copies[i].used > copies[j].used })
	for _, c := range copies[min(len(copies), brotliCacheKeep):] {
		_ = os.Remove(filepath.Join(dir, c.name))
	}
}
