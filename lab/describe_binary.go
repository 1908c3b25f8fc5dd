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
// topic by topic, as unsigned varints: the partition count, each partition's replica count and
// ids, then the partition sizes and produce rates (a count, then each one's IEEE 754 bits), so
// that every value comes back exactly and a rehearsal of the decoded description is the
// rehearsal of the original. It is a hand-off between workers of the same build, not a file
// format: nothing reads it but DecodeDescription. (One varint for every number keeps the code
// small: rehearse.wasm is at its size budget.)

// EncodeDescription writes d in its binary form.
func EncodeDescription(d *Description) ([]byte, error) {
	head := *d
	head.Topics = make([]Topic, len(d.Topics))
	size := 0
	for i, t := range d.Topics {
		t.Replicas, t.SizeBytes, t.ProduceBytesPerSec = nil, nil, nil
		head.Topics[i] = t
		size += 16 + 24*len(d.Topics[i].Replicas)
	}
	js, err := json.Marshal(&head)
	if err != nil {
		return nil, err
	}
	w := binWriter(make([]byte, 0, 16+len(js)+size))
	w.put(uint64(len(js)))
	w = append(w, js...)
	for _, t := range d.Topics {
		w.put(uint64(len(t.Replicas)))
		for _, r := range t.Replicas {
			w.put(uint64(len(r)))
			for _, id := range r {
				w.put(uint64(uint32(id)))
			}
		}
		for _, v := range [][]float64{t.SizeBytes, t.ProduceBytesPerSec} {
			w.put(uint64(len(v)))
			for _, x := range v {
				w.put(math.Float64bits(x))
			}
		}
	}
	return w, nil
}

// binWriter appends EncodeDescription's numbers.
type binWriter []byte

// put is not inlined: a copy of binary.AppendUvarint at each of its calls would cost
// rehearse.wasm several KB.
//
//go:noinline
func (w *binWriter) put(v uint64) { *w = binary.AppendUvarint(*w, v) }

// errBinary is the one error of a malformed binary form: it only ever comes from another
// worker of the same build, so a bad one is a bug, not input to explain.
var errBinary = errors.New("lab: malformed binary description")

// DecodeDescription reads a description EncodeDescription wrote. Lists it wrote empty come
// back nil.
func DecodeDescription(data []byte) (*Description, error) {
	r := binReader{data: data}
	n := r.count()
	d := &Description{}
	if r.bad || json.Unmarshal(r.data[:n], d) != nil {
		return nil, errBinary
	}
	r.data = r.data[n:]
	for i := range d.Topics {
		t := &d.Topics[i]
		if np := r.count(); np > 0 {
			t.Replicas = make([][]int32, np)
			for p := range t.Replicas {
				ids := make([]int32, r.count())
				for k := range ids {
					ids[k] = int32(uint32(r.next()))
				}
				t.Replicas[p] = ids
			}
		}
		t.SizeBytes, t.ProduceBytesPerSec = r.floats(), r.floats()
	}
	if r.bad || len(r.data) != 0 {
		return nil, errBinary
	}
	return d, nil
}

// binReader reads EncodeDescription's numbers; once bad, every read is 0.
type binReader struct {
	data []byte
	bad  bool
}

// next is not inlined, as put.
//
//go:noinline
func (r *binReader) next() uint64 {
	v, n := binary.Uvarint(r.data)
	if r.bad || n <= 0 {
		r.bad = true
		return 0
	}
	r.data = r.data[n:]
	return v
}

// count reads a length, refusing one beyond the bytes left (every item takes one at least),
// so that a corrupt count never allocates more than the data's size.
func (r *binReader) count() int {
	n := r.next()
	if n > uint64(len(r.data)) {
		r.bad = true
		return 0
	}
	return int(n)
}

func (r *binReader) floats() []float64 {
	n := r.count()
	if n == 0 {
		return nil
	}
	out := make([]float64, n)
	for i := range out {
		out[i] = math.Float64frombits(r.next())
	}
	return out
}
