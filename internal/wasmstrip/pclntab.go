package wasmstrip

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"maps"
	"slices"
)

// pclntabMagic starts the PC/line table of Go 1.20 and later (internal/abi.Go120PCLnTabMagic).
const pclntabMagic = 0xfffffff1

// The layout of Go 1.20+ runtime tables in a 64-bit-pointer module (GOARCH=wasm), from the
// runtime's pcHeader, moduledata, functab, _func and inlinedCall (runtime/symtab.go,
// runtime/runtime2.go, runtime/symtabinl.go).
const (
	ptrSize = 8

	headerSize        = 72 // pcHeader
	hdrNfunc          = 8
	hdrFuncnameOffset = 32
	hdrCuOffset       = 40
	hdrFiletabOffset  = 48
	hdrPctabOffset    = 56
	hdrPclnOffset     = 64

	// moduledata: the pcHeader pointer, then six slices (pointer, length, capacity).
	mdFuncnametab = 8
	mdCutab       = 32
	mdFiletab     = 56
	mdPctab       = 80
	mdPclntable   = 104
	mdFtab        = 128
	mdGofunc      = 320
	mdEpclntab    = 328
	mdSize        = 336

	funcSize       = 44 // _func without its pcdata and funcdata arrays
	fnNameOff      = 4
	fnPcsp         = 16
	fnPcfile       = 20
	fnPcln         = 24
	fnNpcdata      = 28
	fnNfuncdata    = 43
	inlinedCallLen = 16
)

// The table indexes the stripped tables have (internal/abi).
const (
	pcdataInlTreeIndex = 2
	funcdataInlTree    = 3
	noFuncdata         = ^uint32(0)
)

// pclntab is the runtime's function table found in a module's memory: addresses are
// offsets into module.memory.
type pclntab struct {
	mem      []byte
	hdr      int // pcHeader
	md       int // moduledata
	nfunc    int
	funcname [2]int // funcnametab: start, end
	cutab    [2]int
	filetab  [2]int
	pctab    [2]int
	pcln     [2]int // pclntable: the functab followed by the _func records
	gofunc   int
}

// findPclntab finds the pcHeader and the moduledata that points at it, and checks that they
// agree; a module they do not describe is refused rather than guessed at.
func findPclntab(m *module) (*pclntab, error) {
	mem := m.memory
	magic := []byte{0xf1, 0xff, 0xff, 0xff, 0, 0, 1, ptrSize} // magic, pad1, pad2, minLC 1, ptrSize 8
	var found *pclntab
	var errs []error
	for from := 0; ; {
		i := bytes.Index(mem[from:], magic)
		if i < 0 {
			break
		}
		hdr := from + i
		from = hdr + 1
		t, err := readPclntab(m, hdr)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if found != nil {
			return nil, errors.New("two Go function tables in one module")
		}
		found = t
	}
	if found == nil {
		if len(errs) > 0 {
			return nil, fmt.Errorf("no Go 1.20+ function table this package understands: %w", errors.Join(errs...))
		}
		return nil, fmt.Errorf("no Go 1.20+ function table (pclntab magic %#x) in the data section", pclntabMagic)
	}
	return found, nil
}

// readPclntab reads the table whose pcHeader is at hdr.
func readPclntab(m *module, hdr int) (*pclntab, error) {
	mem := m.memory
	if hdr+headerSize > len(mem) || (int(m.base)+hdr)%ptrSize != 0 {
		return nil, fmt.Errorf("pcHeader candidate at %#x is misplaced", int(m.base)+hdr)
	}
	u64 := func(i int) uint64 { return binary.LittleEndian.Uint64(mem[i:]) }
	nfunc := u64(hdr + hdrNfunc)
	if nfunc == 0 || nfunc > uint64(len(mem)/funcSize) {
		return nil, fmt.Errorf("pcHeader at %#x claims %d functions", int(m.base)+hdr, nfunc)
	}
	addr := uint64(m.base) + uint64(hdr)
	// The moduledata points at the pcHeader; find it among the pointers to it.
	want := binary.LittleEndian.AppendUint64(nil, addr)
	for from := 0; ; {
		i := bytes.Index(mem[from:], want)
		if i < 0 {
			return nil, fmt.Errorf("no moduledata points at the pcHeader candidate at %#x", addr)
		}
		md := from + i
		from = md + 1
		if (int(m.base)+md)%ptrSize != 0 || md+mdSize > len(mem) {
			continue
		}
		t := &pclntab{mem: mem, hdr: hdr, md: md, nfunc: int(nfunc)}
		slice := func(field, hdrOff int, dst *[2]int) bool {
			ptr, n := u64(md+field), u64(md+field+ptrSize)
			if hdrOff >= 0 && ptr != addr+u64(hdr+hdrOff) {
				return false
			}
			if ptr < uint64(m.base) || ptr-uint64(m.base)+n > uint64(len(mem)) {
				return false
			}
			dst[0] = int(ptr - uint64(m.base))
			dst[1] = dst[0] + int(n)
			return true
		}
		var ftab [2]int
		ok := slice(mdFuncnametab, hdrFuncnameOffset, &t.funcname) &&
			slice(mdCutab, hdrCuOffset, &t.cutab) &&
			slice(mdFiletab, hdrFiletabOffset, &t.filetab) &&
			slice(mdPctab, hdrPctabOffset, &t.pctab) &&
			slice(mdPclntable, hdrPclnOffset, &t.pcln) &&
			slice(mdFtab, -1, &ftab)
		if !ok {
			continue
		}
		// The functab is the start of the pclntable, with one entry per function and an end
		// entry; the cutab's length is counted in uint32s.
		t.cutab[1] = t.cutab[0] + 4*(t.cutab[1]-t.cutab[0])
		if ftab[0] != t.pcln[0] || (ftab[1]-ftab[0]) != int(nfunc)+1 || t.pcln[0]+8*(int(nfunc)+1) > t.pcln[1] || t.cutab[1] > len(mem) {
			continue
		}
		gofunc, end := u64(md+mdGofunc), u64(md+mdEpclntab)
		if gofunc < uint64(m.base) || gofunc-uint64(m.base) > uint64(len(mem)) || end < uint64(m.base)+uint64(t.pcln[1]) {
			continue
		}
		t.gofunc = int(gofunc - uint64(m.base))
		return t, nil
	}
}

// fn is one _func record: where it is and its two trailing arrays.
type fn struct {
	at       int
	pcdata   []uint32
	funcdata []uint32
}

// funcs reads every _func record, checking that each lies in the pclntable and that their
// entry points ascend as the runtime's binary search needs.
func (t *pclntab) funcs() ([]fn, error) {
	mem := t.mem
	out := make([]fn, t.nfunc)
	prevEntry := uint32(0)
	for k := range t.nfunc {
		e := t.pcln[0] + 8*k
		entry, off := binary.LittleEndian.Uint32(mem[e:]), binary.LittleEndian.Uint32(mem[e+4:])
		if k > 0 && entry < prevEntry {
			return nil, fmt.Errorf("function %d's entry %#x is below the one before it", k, entry)
		}
		prevEntry = entry
		at := t.pcln[0] + int(off)
		if at+funcSize > t.pcln[1] {
			return nil, fmt.Errorf("function %d's record at pclntable offset %d is outside the pclntable", k, off)
		}
		if got := binary.LittleEndian.Uint32(mem[at:]); got != entry {
			return nil, fmt.Errorf("function %d's record has entry %#x, its functab entry %#x", k, got, entry)
		}
		npc := int(binary.LittleEndian.Uint32(mem[at+fnNpcdata:]))
		nfd := int(mem[at+fnNfuncdata])
		if at+funcSize+4*(npc+nfd) > t.pcln[1] {
			return nil, fmt.Errorf("function %d's pcdata and funcdata run past the pclntable", k)
		}
		f := fn{at: at, pcdata: make([]uint32, npc), funcdata: make([]uint32, nfd)}
		for i := range npc {
			f.pcdata[i] = binary.LittleEndian.Uint32(mem[at+funcSize+4*i:])
		}
		for i := range nfd {
			f.funcdata[i] = binary.LittleEndian.Uint32(mem[at+funcSize+4*(npc+i):])
		}
		out[k] = f
	}
	return out, nil
}

// table decodes the pc-value table at pctab offset off (the runtime's step function): it
// returns the values it holds and the offset just past its terminating zero.
func (t *pclntab) table(off uint32) (values []int32, end int, err error) {
	i := t.pctab[0] + int(off)
	val := int32(-1)
	for first := true; ; first = false {
		if i >= t.pctab[1] {
			return nil, 0, fmt.Errorf("pc-value table at pctab offset %d runs past the pctab", off)
		}
		uv, n := binary.Uvarint(t.mem[i:t.pctab[1]])
		if n <= 0 {
			return nil, 0, fmt.Errorf("pc-value table at pctab offset %d is malformed", off)
		}
		i += n
		if uv == 0 && !first {
			return values, i, nil
		}
		val += -int32(uv&1) ^ int32(uv>>1)
		values = append(values, val)
		_, n = binary.Uvarint(t.mem[i:t.pctab[1]])
		if n <= 0 {
			return nil, 0, fmt.Errorf("pc-value table at pctab offset %d is malformed", off)
		}
		i += n
	}
}

// sortedKeys returns m's keys in ascending order, so that the tables are cleared in a fixed
// order whatever the map's.
func sortedKeys[V any](m map[uint32]V) []uint32 {
	return slices.Sorted(maps.Keys(m))
}
