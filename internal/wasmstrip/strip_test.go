// The tests build a wasm program and run it under Node, so they run natively only (make
// wasm-test runs ./internal/... compiled to wasm, where there is no go command to call).

//go:build !(js && wasm)

package wasmstrip

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// progWasm builds testdata/prog for js/wasm once per test binary, as build.go builds the site's
// programs (with inlining, so that it has inline trees to strip).
var progWasm = sync.OnceValues(func() ([]byte, error) {
	dir, err := os.MkdirTemp("", "wasmstrip-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	out := filepath.Join(dir, "prog.wasm")
	cmd := exec.Command("go", "build", "-trimpath", "-ldflags=-s -w", "-o", out, "./testdata/prog")
	cmd.Env = append(os.Environ(), "GOOS=js", "GOARCH=wasm")
	if msg, err := cmd.CombinedOutput(); err != nil {
		return nil, &buildError{msg: string(msg), err: err}
	}
	return os.ReadFile(out)
})

type buildError struct {
	msg string
	err error
}

func (e *buildError) Error() string { return e.err.Error() + ": " + e.msg }

func prog(t *testing.T) []byte {
	t.Helper()
	b, err := progWasm()
	require.NoError(t, err)
	return b
}

// runWasm runs a js/wasm program under Node, with the toolchain's go_js_wasm_exec, and
// returns its output and exit error.
func runWasm(t *testing.T, wasm []byte, args ...string) (string, error) {
	t.Helper()
	if _, err := exec.LookPath("node"); err != nil {
		msg := "node not found: the stripped programs run under Node (apt-get install -y nodejs)"
		if os.Getenv("CI") == "true" {
			t.Fatal(msg + "; CI=true, so a missing node is a failure")
		}
		t.Skip(msg)
	}
	goroot, err := exec.Command("go", "env", "GOROOT").Output()
	require.NoError(t, err)
	path := filepath.Join(t.TempDir(), "prog.wasm")
	require.NoError(t, os.WriteFile(path, wasm, 0o644))
	cmd := exec.Command(filepath.Join(strings.TrimSpace(string(goroot)), "lib", "wasm", "go_js_wasm_exec"), append([]string{path}, args...)...)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// split cuts the program's output into its results and its traceback.
func split(t *testing.T, out string) (results, trace string) {
	t.Helper()
	results, rest, ok := strings.Cut(out, "trace:\n")
	require.True(t, ok, "no traceback in %q", out)
	trace, _, ok = strings.Cut(rest, "end\n")
	require.True(t, ok, "the traceback does not end in %q", out)
	return results, trace
}

func TestStrippedProgramRunsAsBefore(t *testing.T) {
	orig := prog(t)
	stripped, st, err := StripLines(orig)
	require.NoError(t, err)
	before, err := runWasm(t, orig)
	require.NoError(t, err, before)
	after, err := runWasm(t, stripped)
	require.NoError(t, err, after)

	res0, trace0 := split(t, before)
	res1, trace1 := split(t, after)
	// runtime.Callers is inlined into its caller: before, the inline tree gives it a frame of
	// its own; after, its pc counts as the caller's, as the package comment says.
	assert.Contains(t, res0, "callers: runtime.Callers < main.callerNames < main.main")
	assert.Contains(t, res1, "callers: main.callerNames < main.main")
	cut := func(s string) string { return s[:strings.Index(s, "callers:")] }
	assert.Equal(t, cut(res0), cut(res1), "deep recursion with a collection at the bottom, goroutines, recover and reflection give the same results")
	assert.Contains(t, res1, "deep: 12502500")

	// Before, the traceback has files, lines and the inlined call; after, the same functions
	// with "?:0", and the inlined call folded into its caller.
	assert.Contains(t, trace0, "testdata/prog/main.go:")
	assert.Contains(t, trace0, "main.inlinedStack(...)")
	assert.NotContains(t, trace1, ".go:")
	assert.NotContains(t, trace1, "main.inlinedStack")
	for _, fn := range []string{"goroutine 1 [running]:", "runtime/debug.Stack()", "main.traced()", "main.main()", "\t?:0"} {
		assert.Contains(t, trace1, fn)
	}
	assert.Positive(t, st.LineTables)
	assert.Positive(t, st.FileTables)
	assert.Positive(t, st.InlineTables)
	assert.Positive(t, st.InlineTrees)
	assert.Less(t, gzipped(t, stripped), gzipped(t, orig))
}

func gzipped(t *testing.T, b []byte) int {
	t.Helper()
	var buf bytes.Buffer
	w := gzip.NewWriter(&buf)
	_, err := w.Write(b)
	require.NoError(t, err)
	require.NoError(t, w.Close())
	return buf.Len()
}

func TestStrippedProgramPanicsWithItsFunctionNames(t *testing.T) {
	stripped, _, err := StripLines(prog(t))
	require.NoError(t, err)
	out, err := runWasm(t, stripped, "crash")
	require.Error(t, err, "an unrecovered panic ends the program")
	assert.Contains(t, out, "panic: boom")
	assert.Contains(t, out, "main.crash()")
	assert.Contains(t, out, "main.main()")
	assert.NotContains(t, out, ".go:")
}

func TestRepackKeepsMemoryAndSections(t *testing.T) {
	orig := prog(t)
	packed, err := Repack(orig)
	require.NoError(t, err)
	m0, err := parseModule(orig)
	require.NoError(t, err)
	m1, err := parseModule(packed)
	require.NoError(t, err)
	assert.Equal(t, trimZeros(m0.memory), trimZeros(m1.memory), "the same initial memory")
	assert.Equal(t, m0.base, m1.base)
	require.Equal(t, len(m0.sections), len(m1.sections))
	for k, s := range m0.sections {
		if k == m0.data {
			continue
		}
		assert.Equal(t, orig[s.start:s.end], packed[m1.sections[k].start:m1.sections[k].end], "section %d (id %d)", k, s.id)
	}
	assert.Less(t, countSegments(t, packed), countSegments(t, orig)/100, "runs shorter than minGap stay in their segment")

	out, err := runWasm(t, packed)
	require.NoError(t, err, out)
	want, err := runWasm(t, orig)
	require.NoError(t, err)
	assert.Equal(t, want, out)
}

func TestStripLinesPointsEveryFunctionAtNoTable(t *testing.T) {
	stripped, st, err := StripLines(prog(t))
	require.NoError(t, err)
	m, err := parseModule(stripped)
	require.NoError(t, err)
	tab, err := findPclntab(m)
	require.NoError(t, err)
	fs, err := tab.funcs()
	require.NoError(t, err)
	require.Len(t, fs, st.Funcs)
	for _, f := range fs {
		assert.Zero(t, binary.LittleEndian.Uint32(tab.mem[f.at+fnPcfile:]))
		assert.Zero(t, binary.LittleEndian.Uint32(tab.mem[f.at+fnPcln:]))
		if len(f.pcdata) > pcdataInlTreeIndex {
			assert.Zero(t, f.pcdata[pcdataInlTreeIndex])
		}
		if len(f.funcdata) > funcdataInlTree {
			assert.Equal(t, noFuncdata, f.funcdata[funcdataInlTree])
		}
	}
	// A second pass finds nothing left to clear.
	again, st2, err := StripLines(stripped)
	require.NoError(t, err)
	assert.Zero(t, st2.LineTables+st2.FileTables+st2.InlineTables+st2.InlineTrees+st2.InlineNames)
	assert.Equal(t, stripped, again)
}

func TestSplitSegmentsKeepsToTheSegmentLimit(t *testing.T) {
	old := maxSegments
	maxSegments = 3
	defer func() { maxSegments = old }()
	mem := make([]byte, 10*minGap)
	for i := range 5 {
		mem[2*i*minGap] = byte(i + 1)
	}
	segs := splitSegments(mem, 100)
	require.Len(t, segs, 3)
	assert.Equal(t, uint32(100), segs[0].addr)
	assert.Equal(t, []byte{1}, segs[0].bytes)
	assert.Equal(t, uint32(100+2*minGap), segs[1].addr)
	last := segs[2]
	assert.Equal(t, uint32(100+4*minGap), last.addr)
	assert.Len(t, last.bytes, 4*minGap+1, "the last segment takes the rest, zeros and all")

	maxSegments = old
	mem = []byte{0, 0, 7, 0, 0, 0, 8}
	segs = splitSegments(mem, 0)
	require.Len(t, segs, 1, "short zero runs stay inside a segment")
	assert.Equal(t, []byte{7, 0, 0, 0, 8}, segs[0].bytes)
	assert.Equal(t, uint32(2), segs[0].addr)
}

func TestBadModulesAreRefused(t *testing.T) {
	dataSection := func(body ...byte) []byte {
		return append([]byte{sectionData, byte(len(body))}, body...)
	}
	header := []byte("\x00asm\x01\x00\x00\x00")
	cases := map[string]struct {
		module []byte
		want   string
	}{
		"not wasm":        {[]byte("hello, world"), "not a WebAssembly module"},
		"version 2":       {[]byte("\x00asm\x02\x00\x00\x00"), "WebAssembly version 2"},
		"no data section": {header, "no data section"},
		"section past the end": {append(bytes.Clone(header), sectionData, 50, 1),
			"runs past the end"},
		"passive segment": {append(bytes.Clone(header), dataSection(1, 1, 1, 0)...),
			"only active segments"},
		"offset not a constant": {append(bytes.Clone(header), dataSection(1, 0, 0x23, 0, 0x0b, 0)...),
			"not an i32.const"},
		"segment past the section": {append(bytes.Clone(header), dataSection(1, 0, 0x41, 0, 0x0b, 9, 1)...),
			"out of range"},
		"not a Go program": {append(bytes.Clone(header), dataSection(1, 0, 0x41, 0, 0x0b, 3, 1, 2, 3)...),
			"no Go 1.20+ function table"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			_, _, err := StripLines(c.module)
			require.Error(t, err)
			assert.Contains(t, err.Error(), c.want)
		})
	}
}

func TestStripLinesRefusesAnUnknownTableLayout(t *testing.T) {
	// The same program with its moduledata's pctab pointer moved: the table is no longer the
	// one this package knows how to read, so it must refuse rather than guess.
	orig := prog(t)
	m, err := parseModule(orig)
	require.NoError(t, err)
	tab, err := findPclntab(m)
	require.NoError(t, err)
	md := tab.md
	binary.LittleEndian.PutUint64(m.memory[md+mdPctab:], binary.LittleEndian.Uint64(m.memory[md+mdPctab:])+8)
	_, _, err = StripLines(m.encode())
	require.Error(t, err)
	assert.Contains(t, err.Error(), "no moduledata points at the pcHeader")
}

func trimZeros(b []byte) []byte { return bytes.TrimRight(b, "\x00") }

func countSegments(t *testing.T, wasm []byte) int {
	t.Helper()
	m, err := parseModule(wasm)
	require.NoError(t, err)
	s := m.sections[m.data]
	n, _, err := uleb(wasm[s.start:s.end], 0)
	require.NoError(t, err)
	return int(n)
}
