package wasmstrip

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
)

// The WebAssembly section ids this package reads or writes (WebAssembly core specification,
// 5.5.2).
const (
	sectionData      = 11
	sectionDataCount = 12
)

// maxSegments is the most data segments the rewritten module may have: V8 (and so Chromium
// and Node) refuses a module with more than 100,000, and Go's linker keeps to the same limit.
// A variable so that a test can lower it.
var maxSegments = 100000

// minGap is the shortest run of zero bytes that the rewritten data section leaves out, starting
// a new segment after it. Go's linker (cmd/link/internal/wasm, writeDataSec) and wasm-opt leave
// out every run of 8, since a segment's header costs about 8 bytes, which makes the raw binary
// smallest; but those headers, tens of thousands of unique offsets between the pieces of one
// table, break the repeats brotli and gzip find across them. Leaving out only the long runs
// makes the compressed binary much smaller: kraftlab.wasm went from 1,118,530 to 1,043,663
// bytes brotli-compressed (65,198 segments to a handful) with nothing else changed, for 0.7 MB
// more of zeros in the raw binary, which compress to almost nothing; runs of 1 KiB to 64 KiB
// all came within 1 KB of one another.
const minGap = 4096

// section is one section of a module: its id and where its contents lie in the module.
type section struct {
	id         byte
	start, end int
}

// module is a WebAssembly binary cut into its sections, with its data segments laid out as
// the linear memory they initialise.
type module struct {
	raw      []byte
	sections []section
	data     int // index in sections of the data section
	// memory is the initial content of linear memory from address base on: what the data
	// segments put there, zero in between.
	memory []byte
	base   uint32
}

// parseModule checks the WebAssembly header, cuts the module into sections and lays out its
// data segments. It accepts the data segments Go's linker writes: active segments of memory 0
// whose offset is one i32.const.
func parseModule(raw []byte) (*module, error) {
	if len(raw) < 8 || !bytes.Equal(raw[:4], []byte("\x00asm")) {
		return nil, errors.New("not a WebAssembly module: it does not start with \\0asm")
	}
	if v := binary.LittleEndian.Uint32(raw[4:8]); v != 1 {
		return nil, fmt.Errorf("WebAssembly version %d, want 1", v)
	}
	m := &module{raw: raw, data: -1}
	for i := 8; i < len(raw); {
		id := raw[i]
		size, n, err := uleb(raw, i+1)
		if err != nil {
			return nil, fmt.Errorf("section at byte %d: %w", i, err)
		}
		start := i + 1 + n
		end := start + int(size)
		if size > uint64(len(raw)) || end > len(raw) {
			return nil, fmt.Errorf("section %d at byte %d runs past the end of the module", id, i)
		}
		if id == sectionData {
			if m.data >= 0 {
				return nil, errors.New("the module has two data sections")
			}
			m.data = len(m.sections)
		}
		m.sections = append(m.sections, section{id: id, start: start, end: end})
		i = end
	}
	if m.data < 0 {
		return nil, errors.New("the module has no data section: it is not a Go js/wasm program")
	}
	if err := m.layOut(); err != nil {
		return nil, fmt.Errorf("data section: %w", err)
	}
	return m, nil
}

// segment is one data segment: where it goes in memory and its bytes in the module.
type segment struct {
	addr  uint32
	bytes []byte
}

// layOut reads the data segments into m.memory.
func (m *module) layOut() error {
	s := m.sections[m.data]
	sec := m.raw[s.start:s.end]
	count, i, err := uleb(sec, 0)
	if err != nil {
		return err
	}
	var segs []segment
	lo, hi := uint32(1<<32-1), uint32(0)
	for k := uint64(0); k < count; k++ {
		flags, n, err := uleb(sec, i)
		if err != nil {
			return fmt.Errorf("segment %d: %w", k, err)
		}
		i += n
		if flags != 0 {
			return fmt.Errorf("segment %d has flags %d; only active segments of memory 0 (flags 0) are supported", k, flags)
		}
		if i >= len(sec) || sec[i] != 0x41 {
			return fmt.Errorf("segment %d: its offset is not an i32.const", k)
		}
		addr, n, err := sleb32(sec, i+1)
		if err != nil {
			return fmt.Errorf("segment %d: %w", k, err)
		}
		i += 1 + n
		if i >= len(sec) || sec[i] != 0x0b {
			return fmt.Errorf("segment %d: its offset expression is not a single i32.const", k)
		}
		size, n, err := uleb(sec, i+1)
		if err != nil {
			return fmt.Errorf("segment %d: %w", k, err)
		}
		i += 1 + n
		if addr < 0 || size > uint64(len(sec)-i) || uint64(addr)+size > 1<<32 {
			return fmt.Errorf("segment %d (%d bytes at address %d) is out of range", k, size, addr)
		}
		segs = append(segs, segment{addr: uint32(addr), bytes: sec[i : i+int(size)]})
		lo, hi = min(lo, uint32(addr)), max(hi, uint32(addr)+uint32(size))
		i += int(size)
	}
	if i != len(sec) {
		return fmt.Errorf("%d bytes after the last segment", len(sec)-i)
	}
	if len(segs) == 0 {
		return errors.New("no data segments")
	}
	m.base = lo
	m.memory = make([]byte, hi-lo)
	for _, sg := range segs {
		copy(m.memory[sg.addr-lo:], sg.bytes)
	}
	return nil
}

// encode writes the module back with its data section made anew from m.memory, a segment
// for each stretch of it between runs of at least minGap zeros; every other section is copied
// as it was. A DataCount section, if any, gets the new segment count.
func (m *module) encode() []byte {
	segs := splitSegments(m.memory, m.base)
	var data []byte
	data = binary.AppendUvarint(data, uint64(len(segs)))
	for _, sg := range segs {
		data = append(data, 0, 0x41)
		data = appendSleb32(data, int32(sg.addr))
		data = append(data, 0x0b)
		data = binary.AppendUvarint(data, uint64(len(sg.bytes)))
		data = append(data, sg.bytes...)
	}
	out := append([]byte(nil), m.raw[:8]...)
	for k, s := range m.sections {
		body := m.raw[s.start:s.end]
		switch {
		case k == m.data:
			body = data
		case s.id == sectionDataCount:
			body = binary.AppendUvarint(nil, uint64(len(segs)))
		}
		out = append(out, s.id)
		out = binary.AppendUvarint(out, uint64(len(body)))
		out = append(out, body...)
	}
	return out
}

// splitSegments cuts memory into the segments that store its non-zero bytes, leaving out
// every run of at least minGap zeros, and at most maxSegments of them (the last one then takes
// the rest up to the last non-zero byte, zeros and all).
func splitSegments(memory []byte, base uint32) []segment {
	memory = bytes.TrimRight(memory, "\x00")
	var segs []segment
	i := 0
	for {
		for i < len(memory) && memory[i] == 0 {
			i++
		}
		if i == len(memory) {
			return segs
		}
		end := len(memory)
		if len(segs) < maxSegments-1 {
			end = i
			for end < len(memory) {
				for end < len(memory) && memory[end] != 0 {
					end++
				}
				zeros := end
				for zeros < len(memory) && memory[zeros] == 0 {
					zeros++
				}
				if zeros-end >= minGap || zeros == len(memory) {
					break
				}
				end = zeros
			}
		}
		segs = append(segs, segment{addr: base + uint32(i), bytes: memory[i:end]})
		i = end
	}
}

// uleb reads an unsigned LEB128 number of at most 64 bits at b[i:], returning it and its
// length.
func uleb(b []byte, i int) (uint64, int, error) {
	if i < 0 || i >= len(b) {
		return 0, 0, errors.New("truncated LEB128 number")
	}
	v, n := binary.Uvarint(b[i:])
	if n <= 0 {
		return 0, 0, errors.New("malformed LEB128 number")
	}
	return v, n, nil
}

// sleb32 reads a signed LEB128 number of 32 bits at b[i:].
func sleb32(b []byte, i int) (int32, int, error) {
	var v int64
	var shift uint
	for n := 0; n < 5; n++ {
		if i+n >= len(b) {
			return 0, 0, errors.New("truncated LEB128 number")
		}
		c := b[i+n]
		v |= int64(c&0x7f) << shift
		shift += 7
		if c&0x80 == 0 {
			if c&0x40 != 0 {
				v -= 1 << shift
			}
			if v < -1<<31 || v >= 1<<31 {
				return 0, 0, errors.New("LEB128 number out of the i32 range")
			}
			return int32(v), n + 1, nil
		}
	}
	return 0, 0, errors.New("LEB128 number longer than 5 bytes")
}

// appendSleb32 appends v as a signed LEB128 number.
func appendSleb32(b []byte, v int32) []byte {
	x := int64(v)
	for {
		c := byte(x & 0x7f)
		x >>= 7
		if (x == 0 && c&0x40 == 0) || (x == -1 && c&0x40 != 0) {
			return append(b, c)
		}
		b = append(b, c|0x80)
	}
}
