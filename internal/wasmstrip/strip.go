// Package wasmstrip makes a Go js/wasm program smaller to download, without changing what it
// does. Repack rewrites its data section into a few long segments instead of the tens of
// thousands Go's linker writes, which compress far better (see minGap). StripLines also takes
// out the parts of the runtime's function table that only tracebacks read: the file and line
// tables and the inlining tables.
//
// Why: KRaft Lab's wasm programs must stay within 1,000,000 bytes brotli-compressed,
// and about a fifth of that was the pclntab, the table the Go runtime keeps for every function.
// Its pc-to-line and pc-to-file tables and its inline trees, which say which source line and
// which inlined call each instruction belongs to, alone came to about 130 KB compressed of
// kraftlab.wasm. Go's linker has no flag to leave them out (-s -w drop only the symbol table
// and DWARF), because native programs need them for runtime.Caller and for panics.
//
// What the runtime does without them: a pc-value table at offset 0 is, as runtime._func's doc
// comment says, no table, and a funcdata offset of ^0 no funcdata, so the runtime looks them up
// and finds nothing: a traceback names every function on the stack but prints "?:0" for its
// file and line, and an inlined call is reported as part of the function it was inlined into;
// runtime.Caller and runtime.CallersFrames report the same, and runtime.Callers' skip counts
// physical frames (runtime.Callers is itself inlined into its caller, so Callers(1) starts one
// frame higher than in the unstripped program). Nothing else reads these tables:
// stack unwinding and growth, garbage collection, defer and recover use the pc-to-SP table, the
// stack maps and the other funcdata, which stay as they were (and are checked to be
// byte-identical afterwards). A run in the playground replays exactly in the native CLI, where
// a crash has its full traceback.
//
// StripLines refuses, with an error, any module whose table it does not recognise (another
// magic, pointer size or moduledata layout) rather than ship a broken program; the site's
// build (web/build) then warns and ships that program unstripped, larger but working. go.mod
// pins the toolchain this package was checked against.
package wasmstrip

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"slices"
)

// Stats is what StripLines took out.
type Stats struct {
	// Funcs is the number of functions in the runtime's table.
	Funcs int
	// LineTables, FileTables and InlineTables are the bytes of the pc-to-line, pc-to-file and
	// pc-to-inlined-call tables cleared; InlineTrees those of the inline trees themselves and
	// InlineNames those of the names only inline trees used; FileNames the file-name table and
	// its index.
	LineTables, FileTables, InlineTables, InlineTrees, InlineNames, FileNames int
	// Before and After are the module's sizes in bytes.
	Before, After int
}

// Cleared is the number of bytes of the runtime's table that StripLines set to zero.
func (s Stats) Cleared() int {
	return s.LineTables + s.FileTables + s.InlineTables + s.InlineTrees + s.InlineNames + s.FileNames
}

// The kinds of pc-value table StripLines clears.
const (
	kindLine = iota
	kindFile
	kindInline
)

// Repack returns wasm, a WebAssembly module, with its data section rewritten into as few
// segments as minGap allows: the same initial memory, and every other section as it was. It
// makes a Go program's compressed size about 7 % smaller (see minGap).
func Repack(wasm []byte) ([]byte, error) {
	m, err := parseModule(wasm)
	if err != nil {
		return nil, err
	}
	return m.encode(), nil
}

// StripLines returns wasm, a Go js/wasm program, without its line, file and inlining tables,
// and what it took out, repacked as Repack does. wasm itself is not changed.
func StripLines(wasm []byte) ([]byte, Stats, error) {
	m, err := parseModule(slices.Clone(wasm))
	if err != nil {
		return nil, Stats{}, err
	}
	t, err := findPclntab(m)
	if err != nil {
		return nil, Stats{}, err
	}
	fs, err := t.funcs()
	if err != nil {
		return nil, Stats{}, fmt.Errorf("the Go function table: %w", err)
	}
	r, err := collectRefs(t, fs)
	if err != nil {
		return nil, Stats{}, err
	}
	before, err := t.tableBytes(r.keepTab)
	if err != nil {
		return nil, Stats{}, err
	}
	trees, names := r.clearableTrees(t)
	st := Stats{Funcs: len(fs), Before: len(wasm)}
	pointAtNoTables(t, fs)
	if err := r.clearTables(t, &st); err != nil {
		return nil, Stats{}, err
	}
	for _, tr := range trees {
		start := t.gofunc + int(tr.off)
		n := int(tr.entries) * inlinedCallLen
		clear(t.mem[start : start+n])
		st.InlineTrees += n
	}
	if st.InlineNames, err = r.clearNames(t, names); err != nil {
		return nil, Stats{}, err
	}
	// Only the pc-to-file tables led to the file names.
	clear(t.mem[t.cutab[0]:t.cutab[1]])
	clear(t.mem[t.filetab[0]:t.filetab[1]])
	st.FileNames = t.cutab[1] - t.cutab[0] + t.filetab[1] - t.filetab[0]

	after, err := t.tableBytes(r.keepTab)
	if err != nil {
		return nil, Stats{}, fmt.Errorf("after stripping: %w", err)
	}
	for o, v := range before {
		if !bytes.Equal(v, after[o]) {
			return nil, Stats{}, fmt.Errorf("the pc-value table at pctab offset %d changed: this package misreads the table layout", o)
		}
	}
	out := m.encode()
	st.After = len(out)
	return out, st, nil
}

// refs sorts every table and funcdata the functions refer to into those that stay and those
// that go. One table can serve several functions (the linker stores each distinct table once),
// so a table goes only if no remaining reference needs it.
type refs struct {
	keepTab  map[uint32]bool // pctab offsets of the tables that stay
	dropTab  map[uint32]int  // pctab offsets of the tables that go, with their kind
	keepData map[uint32]bool // gofunc offsets of the funcdata that stay
	keepName map[uint32]bool // funcnametab offsets of the functions' own names
	trees    []tree
}

// tree is an inline tree: its gofunc offset and its number of inlinedCall entries.
type tree struct{ off, entries uint32 }

// collectRefs reads every function's references.
func collectRefs(t *pclntab, fs []fn) (*refs, error) {
	r := &refs{keepTab: map[uint32]bool{}, dropTab: map[uint32]int{}, keepData: map[uint32]bool{}, keepName: map[uint32]bool{}}
	u32 := func(at int) uint32 { return binary.LittleEndian.Uint32(t.mem[at:]) }
	for _, f := range fs {
		r.keepName[u32(f.at+fnNameOff)] = true
		if o := u32(f.at + fnPcsp); o != 0 {
			r.keepTab[o] = true
		}
		if o := u32(f.at + fnPcfile); o != 0 {
			r.dropTab[o] = kindFile
		}
		if o := u32(f.at + fnPcln); o != 0 {
			r.dropTab[o] = kindLine
		}
		for i, o := range f.pcdata {
			switch {
			case o == 0:
			case i == pcdataInlTreeIndex:
				r.dropTab[o] = kindInline
			default:
				r.keepTab[o] = true
			}
		}
		for i, o := range f.funcdata {
			switch {
			case o == noFuncdata:
			case i == funcdataInlTree:
				// The tree has an entry for every index its pc-to-inlined-call table holds (a
				// parent call is found through its own pc, so it has an index there too).
				if len(f.pcdata) > pcdataInlTreeIndex && f.pcdata[pcdataInlTreeIndex] != 0 {
					vals, _, err := t.table(f.pcdata[pcdataInlTreeIndex])
					if err != nil {
						return nil, err
					}
					if top := slices.Max(vals); top >= 0 {
						r.trees = append(r.trees, tree{off: o, entries: uint32(top) + 1})
					}
				}
			default:
				r.keepData[o] = true
			}
		}
	}
	return r, nil
}

// clearableTrees returns the inline trees that can be cleared and the names their calls use,
// read before they are cleared. A tree that some remaining funcdata starts inside of would
// mean this package misreads its size: such a tree is left as it is.
func (r *refs) clearableTrees(t *pclntab) ([]tree, map[uint32]bool) {
	names := map[uint32]bool{}
	kept := sortedKeys(r.keepData)
	var out []tree
	for _, tr := range r.trees {
		start := t.gofunc + int(tr.off)
		end := start + int(tr.entries)*inlinedCallLen
		if end > len(t.mem) {
			continue
		}
		if i, _ := slices.BinarySearch(kept, tr.off); i < len(kept) && kept[i] < tr.off+tr.entries*inlinedCallLen {
			continue
		}
		for e := range int(tr.entries) {
			names[binary.LittleEndian.Uint32(t.mem[start+e*inlinedCallLen+4:])] = true
		}
		out = append(out, tr)
	}
	return out, names
}

// pointAtNoTables gives every function no pc-to-file, pc-to-line or pc-to-inlined-call table
// and no inline tree.
func pointAtNoTables(t *pclntab, fs []fn) {
	for _, f := range fs {
		binary.LittleEndian.PutUint32(t.mem[f.at+fnPcfile:], 0)
		binary.LittleEndian.PutUint32(t.mem[f.at+fnPcln:], 0)
		if len(f.pcdata) > pcdataInlTreeIndex {
			binary.LittleEndian.PutUint32(t.mem[f.at+funcSize+4*pcdataInlTreeIndex:], 0)
		}
		if len(f.funcdata) > funcdataInlTree {
			binary.LittleEndian.PutUint32(t.mem[f.at+funcSize+4*(len(f.pcdata)+funcdataInlTree):], noFuncdata)
		}
	}
}

// clearTables clears the tables that go and no remaining reference needs, counting them in st.
func (r *refs) clearTables(t *pclntab, st *Stats) error {
	for _, o := range sortedKeys(r.dropTab) {
		if r.keepTab[o] {
			continue
		}
		_, end, err := t.table(o)
		if err != nil {
			return err
		}
		start := t.pctab[0] + int(o)
		switch r.dropTab[o] {
		case kindLine:
			st.LineTables += end - start
		case kindFile:
			st.FileTables += end - start
		case kindInline:
			st.InlineTables += end - start
		}
		clear(t.mem[start:end])
	}
	return nil
}

// clearNames clears the names that only inline trees used and returns how many bytes that
// was. A name inside of which a function's own name starts is left as it is.
func (r *refs) clearNames(t *pclntab, names map[uint32]bool) (int, error) {
	kept := sortedKeys(r.keepName)
	cleared := 0
	for _, off := range sortedKeys(names) {
		if int(off) >= t.funcname[1]-t.funcname[0] {
			return 0, fmt.Errorf("an inline tree names offset %d, past the function name table", off)
		}
		start := t.funcname[0] + int(off)
		end := start
		for end < t.funcname[1] && t.mem[end] != 0 {
			end++
		}
		if r.keepName[off] || end == t.funcname[1] {
			continue
		}
		if i, _ := slices.BinarySearch(kept, off); i < len(kept) && t.funcname[0]+int(kept[i]) <= end {
			continue
		}
		clear(t.mem[start:end])
		cleared += end - start
	}
	return cleared, nil
}

// tableBytes returns a copy of the bytes of every table in offs, as each decodes.
func (t *pclntab) tableBytes(offs map[uint32]bool) (map[uint32][]byte, error) {
	out := make(map[uint32][]byte, len(offs))
	for o := range offs {
		_, end, err := t.table(o)
		if err != nil {
			return nil, err
		}
		out[o] = slices.Clone(t.mem[t.pctab[0]+int(o) : end])
	}
	return out, nil
}
