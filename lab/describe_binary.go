package lab

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"math"
)

// A Description's binary form carries an imported cluster from the lab page's worker that
// parsed the tools' outputs to the workers that play the other runs, so that a 40 MB describe
// is parsed once rather than once per worker: a few MB that decode in milliseconds. It is the
// description as JSON with every topic's per-partition lists left out, and then those lists,
// topic by topic: each partition's replica ids (a count, then zigzag varints), then the
// partition sizes and produce rates (a count, then IEEE 754 bits, little-endian), so that
// every value comes back exactly and a rehearsal of the decoded description is the
// rehearsal of the original. It is a hand-off between workers of the same build, not a file
// format: nothing reads it but UnmarshalBinary.

// MarshalBinary writes d in its binary form.
func (d *Description) MarshalBinary() ([]byte, error) {
	head := *d
	head.Topics = make([]Topic, len(d.Topics))
	size := 0
	for i, t := range d.Topics {
		t.Replicas, t.SizeBytes, t.ProduceBytesPerSec = nil, nil, nil
		head.Topics[i] = t
		size += 3*binary.MaxVarintLen64 + 8*len(d.Topics[i].Replicas)
	}
	js, err := json.Marshal(&head)
	if err != nil {
		return nil, err
	}
	out := make([]byte, 0, binary.MaxVarintLen64+len(js)+size)
	out = binary.AppendUvarint(out, uint64(len(js)))
	out = append(out, js...)
	for _, t := range d.Topics {
		out = binary.AppendUvarint(out, uint64(len(t.Replicas)))
		for _, r := range t.Replicas {
			out = binary.AppendUvarint(out, uint64(len(r)))
			for _, id := range r {
				out = binary.AppendVarint(out, int64(id))
			}
		}
		for _, v := range [][]float64{t.SizeBytes, t.ProduceBytesPerSec} {
			out = binary.AppendUvarint(out, uint64(len(v)))
			for _, x := range v {
				out = binary.LittleEndian.AppendUint64(out, math.Float64bits(x))
			}
		}
	}
	return out, nil
}

// errBinary is the one error of a malformed binary form: it only ever comes from another
// worker of the same build, so a bad one is a bug, not input to explain.
var errBinary = errors.New("lab: malformed binary description")

// UnmarshalBinary reads a description MarshalBinary wrote into d. Lists MarshalBinary wrote
// empty come back nil.
func (d *Description) UnmarshalBinary(data []byte) error {
	r := binReader{data: data}
	n := r.uvarint()
	if r.err != nil || n > uint64(len(r.data)) {
		return errBinary
	}
	var out Description
	if err := json.Unmarshal(r.data[:n], &out); err != nil {
		return errBinary
	}
	r.data = r.data[n:]
	for i := range out.Topics {
		t := &out.Topics[i]
		if np := r.count(1); np > 0 {
			t.Replicas = make([][]int32, np)
			for p := range t.Replicas {
				ids := make([]int32, r.count(1))
				for k := range ids {
					v := r.varint()
					if v < math.MinInt32 || v > math.MaxInt32 {
						r.err = errBinary
					}
					ids[k] = int32(v)
				}
				t.Replicas[p] = ids
			}
		}
		t.SizeBytes, t.ProduceBytesPerSec = r.floats(), r.floats()
	}
	if r.err != nil || len(r.data) != 0 {
		return errBinary
	}
	*d = out
	return nil
}

// binReader reads MarshalBinary's numbers, remembering the first error (after which every
// read is zero).
type binReader struct {
	data []byte
	err  error
}

func (r *binReader) uvarint() uint64 {
	v, n := binary.Uvarint(r.data)
	if r.err != nil || n <= 0 {
		r.err = errBinary
		return 0
	}
	r.data = r.data[n:]
	return v
}

func (r *binReader) varint() int64 {
	v, n := binary.Varint(r.data)
	if r.err != nil || n <= 0 {
		r.err = errBinary
		return 0
	}
	r.data = r.data[n:]
	return v
}

// count reads a list's length, refusing one longer than the bytes left could hold at min
// bytes an item (so that a corrupt count never allocates more than the data's size).
func (r *binReader) count(min int) int {
	n := r.uvarint()
	if n > uint64(len(r.data)/min) {
		r.err = errBinary
		return 0
	}
	return int(n)
}

func (r *binReader) floats() []float64 {
	n := r.count(8)
	if n == 0 {
		return nil
	}
	out := make([]float64, n)
	for i := range out {
		out[i] = math.Float64frombits(binary.LittleEndian.Uint64(r.data[8*i:]))
	}
	r.data = r.data[8*n:]
	return out
}
