package build

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/andybalholm/brotli"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestBrotliCacheGivesTheCopyOfTheSameBytesOnly: a program's .br copy comes from the cache only
// for the same bytes and only when it decodes to them; anything else is compressed again, and
// the cache keeps the most recently used copies.
func TestBrotliCacheGivesTheCopyOfTheSameBytesOnly(t *testing.T) {
	cache := t.TempDir()
	var prog []byte
	for i := 0; len(prog) < 20_000; i++ {
		prog = fmt.Appendf(prog, "(func $f%d (result i32) i32.const %d)\n", i, i*i)
	}
	build := func(content []byte) (br []byte, log string) {
		out := t.TempDir()
		require.NoError(t, os.WriteFile(filepath.Join(out, "kraftlab.wasm"), content, 0o644))
		var b strings.Builder
		_, err := compressAll(out, compression{brotli: true, brotliCache: cache, logf: func(f string, args ...any) { fmt.Fprintf(&b, f+"\n", args...) }})
		require.NoError(t, err)
		br, err = os.ReadFile(filepath.Join(out, "kraftlab.wasm.br"))
		require.NoError(t, err)
		return br, b.String()
	}
	best, err := brotliBest(prog)
	require.NoError(t, err)

	got, log := build(prog)
	assert.Equal(t, best, got, "a first build compresses")
	assert.Empty(t, log)
	kept := filepath.Join(cache, brotliCacheKey(prog))
	require.FileExists(t, kept)

	// The copy kept is what a build of the same bytes ships: here another valid encoding,
	// planted, to tell it from a fresh compression.
	var other bytes.Buffer
	w := brotli.NewWriterLevel(&other, 1)
	_, err = w.Write(prog)
	require.NoError(t, err)
	require.NoError(t, w.Close())
	require.NotEqual(t, best, other.Bytes())
	require.NoError(t, os.WriteFile(kept, other.Bytes(), 0o644))
	got, log = build(prog)
	assert.Equal(t, other.Bytes(), got, "the same bytes: the cache's copy")
	assert.Contains(t, log, "kraftlab.wasm: its copy from the cache")

	// A damaged copy, or one of other bytes under this name, is compressed again and replaced.
	for _, bad := range [][]byte{other.Bytes()[:other.Len()/2], best[:0], mustBrotli(t, append([]byte("x"), prog...))} {
		require.NoError(t, os.WriteFile(kept, bad, 0o644))
		got, log = build(prog)
		assert.Equal(t, best, got)
		assert.Empty(t, log)
		again, err := os.ReadFile(kept)
		require.NoError(t, err)
		assert.Equal(t, best, again, "the cache holds the fresh copy")
	}

	// Other bytes: another key, a fresh compression.
	changed := append(append([]byte(nil), prog...), ";"...)
	assert.NotEqual(t, brotliCacheKey(prog), brotliCacheKey(changed))
	got, log = build(changed)
	assert.Empty(t, log)
	assert.True(t, decodesTo(got, changed))

	// A copy kept prunes the cache to the brotliCacheKeep most recently used.
	old := time.Now().Add(-time.Hour)
	for i := range brotliCacheKeep + 3 {
		name := filepath.Join(cache, fmt.Sprintf("%064d.br", i))
		require.NoError(t, os.WriteFile(name, []byte("x"), 0o644))
		require.NoError(t, os.Chtimes(name, old, old))
	}
	build(prog) // used: the newest
	third := append(append([]byte(nil), prog...), "!"...)
	build(third)
	entries, err := os.ReadDir(cache)
	require.NoError(t, err)
	assert.Len(t, entries, brotliCacheKeep)
	for _, b := range [][]byte{prog, changed, third} {
		assert.FileExists(t, filepath.Join(cache, brotliCacheKey(b)), "the most recently used stay")
	}
}

func mustBrotli(t *testing.T, b []byte) []byte {
	t.Helper()
	out, err := brotliBest(b)
	require.NoError(t, err)
	return out
}
