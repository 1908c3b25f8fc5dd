package lab

import (
	"bytes"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// This file holds what a Description needs to carry an imported cluster exactly: broker ids as
// the cluster has them (BrokerIDs) and each topic's replica assignment (Topic.Replicas).

// partitionDoc is one explicit partition of a scenario topic: its replicas, preferred first,
// and its measured size and produce rate when the topic has them.
type partitionDoc struct {
	Replicas           []int32  `json:"replicas"`
	SizeBytes          *float64 `json:"size_bytes,omitempty"`
	ProduceBytesPerSec *float64 `json:"produce_bytes_per_sec,omitempty"`
}

func assignmentDoc(t Topic) []partitionDoc {
	out := make([]partitionDoc, len(t.Replicas))
	for i, r := range t.Replicas {
		out[i] = partitionDoc{Replicas: r}
		if t.SizeBytes != nil {
			out[i].SizeBytes = &t.SizeBytes[i]
		}
		if t.ProduceBytesPerSec != nil {
			out[i].ProduceBytesPerSec = &t.ProduceBytesPerSec[i]
		}
	}
	return out
}

// validateFigures checks a topic's measured sizes and rates: one per partition of an explicit
// assignment, each a finite number ≥ 0, and given for every topic if for one.
func (d *Description) validateFigures(at string, t Topic) error {
	for _, f := range []struct {
		name string
		v    []float64
		any  func(Topic) bool
		what string
	}{
		{"size_bytes", t.SizeBytes, func(o Topic) bool { return o.SizeBytes != nil }, "a size in bytes"},
		{"produce_bytes_per_sec", t.ProduceBytesPerSec, func(o Topic) bool { return o.ProduceBytesPerSec != nil }, "a rate in bytes per second"},
	} {
		if f.v == nil {
			if slices.ContainsFunc(d.Topics, f.any) {
				return &FieldError{Field: at + "." + f.name, Value: "none",
					Allowed: "must give one value per partition: another topic gives " + f.name + ", and the model cannot mix measured figures with its own"}
			}
			continue
		}
		if t.Replicas == nil || len(f.v) != len(t.Replicas) {
			return &FieldError{Field: at + "." + f.name, Value: fmt.Sprintf("%d values", len(f.v)),
				Allowed: fmt.Sprintf("must give one value per partition of replicas (%d)", len(t.Replicas))}
		}
		for i, x := range f.v {
			if !(x >= 0) || math.IsInf(x, 0) {
				return &FieldError{Field: fmt.Sprintf("%s.%s[%d]", at, f.name, i), Value: strconv.FormatFloat(x, 'g', -1, 64),
					Allowed: "must be " + f.what + ", a finite number ≥ 0"}
			}
		}
	}
	return nil
}

// assignmentRF is the largest replica count of an assignment: a topic may mix replication
// factors (kafka-reassign-partitions.sh can make it so).
func assignmentRF(replicas [][]int32) int {
	rf := 0
	for _, r := range replicas {
		rf = max(rf, len(r))
	}
	return rf
}

// topicReplicas counts a topic's replicas.
func (d *Description) topicReplicas(t Topic) int {
	if t.Replicas == nil {
		return t.Partitions * d.topicRF(t)
	}
	n := 0
	for _, r := range t.Replicas {
		n += len(r)
	}
	return n
}

// brokerID is the i-th broker's id: i, or BrokerIDs[i].
func (d *Description) brokerID(i int) int32 {
	if d.BrokerIDs != nil {
		return d.BrokerIDs[i]
	}
	return int32(i)
}

func (d *Description) hasBroker(id int32) bool {
	if d.BrokerIDs != nil {
		return slices.Contains(d.BrokerIDs, id)
	}
	return id >= 0 && int(id) < d.Brokers
}

// brokerList writes the brokers for an error message: "0 to 5" or "1, 2, 3, 5".
func (d *Description) brokerList() string {
	if d.BrokerIDs == nil {
		return fmt.Sprintf("0 to %d", d.Brokers-1)
	}
	return joinIDs(d.BrokerIDs, ", ")
}

// brokerAllowed says which broker ids an event may name.
func (d *Description) brokerAllowed() string {
	if d.BrokerIDs == nil {
		return fmt.Sprintf("must be a broker id from 0 to %d", d.Brokers-1)
	}
	return "must be one of the brokers: " + d.brokerList()
}

// brokersDoc is the scenario's cluster.brokers: the count, or the ids.
func (d *Description) brokersDoc() any {
	if d.BrokerIDs != nil {
		return d.BrokerIDs
	}
	return d.Brokers
}

func (d *Description) validateBrokerIDs() error {
	if d.BrokerIDs == nil {
		return nil
	}
	if len(d.BrokerIDs) != d.Brokers {
		return &FieldError{Field: "broker_ids", Value: fmt.Sprintf("%d ids", len(d.BrokerIDs)),
			Allowed: fmt.Sprintf("must list as many ids as brokers (%d)", d.Brokers)}
	}
	seen := map[int32]bool{}
	for i, id := range d.BrokerIDs {
		if id < 0 || id >= maxBrokers || seen[id] {
			return &FieldError{Field: fmt.Sprintf("broker_ids[%d]", i), Value: strconv.Itoa(int(id)),
				Allowed: fmt.Sprintf("must be a broker id from 0 to %d, each once (the model's controllers are %d and up)", maxBrokers-1, maxBrokers)}
		}
		seen[id] = true
	}
	return nil
}

// validateAssignment checks a topic's explicit replicas: as many lists as partitions, each of
// 1 to maxRF distinct brokers of the cluster.
func (d *Description) validateAssignment(at string, t Topic) error {
	if t.Replicas == nil {
		return nil
	}
	if len(t.Replicas) != t.Partitions {
		return &FieldError{Field: at + ".replicas", Value: fmt.Sprintf("%d lists", len(t.Replicas)),
			Allowed: fmt.Sprintf("must give one replica list per partition (%d)", t.Partitions)}
	}
	// The field's name is written only for an error: Sprintf for each of 200,000 partitions
	// was a tenth of an import's time.
	for p, r := range t.Replicas {
		allowed := ""
		if len(r) < 1 || len(r) > maxRF {
			allowed = fmt.Sprintf("must list 1 to %d brokers (the model's limit)", maxRF)
		}
		for i, b := range r {
			if allowed == "" && (!d.hasBroker(b) || slices.Contains(r[:i], b)) {
				allowed = "must list distinct brokers of the cluster: " + d.brokerList()
			}
		}
		if allowed != "" {
			return &FieldError{Field: fmt.Sprintf("%s.replicas[%d]", at, p), Value: "[" + joinIDs(r, ",") + "]", Allowed: allowed}
		}
	}
	return nil
}

// joinIDs writes broker ids as kafka-topics.sh does ("1,2,3" with sep ",").
func joinIDs(ids []int32, sep string) string {
	var b strings.Builder
	for i, id := range ids {
		if i > 0 {
			b.WriteString(sep)
		}
		b.WriteString(strconv.Itoa(int(id)))
	}
	return b.String()
}

// compactLists writes every list of numbers on one line ("[1, 2, 3]") and every explicit
// partition as {"replicas": [1, 2, 3]}, so that an imported assignment reads as one line per
// partition instead of five.
func compactLists(doc []byte) []byte {
	out := make([]byte, 0, len(doc)/2)
	for i := 0; i < len(doc); i++ {
		c := doc[i]
		if c != '[' {
			out = append(out, c)
			continue
		}
		// A list of numbers only: digits, signs, dots, commas and whitespace up to ']'.
		j := i + 1
		for j < len(doc) && (doc[j] >= '0' && doc[j] <= '9' || doc[j] == '-' || doc[j] == '.' || doc[j] == ',' || doc[j] == ' ' || doc[j] == '\n') {
			j++
		}
		if j == len(doc) || doc[j] != ']' {
			out = append(out, c)
			continue
		}
		out = append(out, '[')
		for k, f := range strings.FieldsFunc(string(doc[i+1:j]), func(r rune) bool { return r == ',' || r == ' ' || r == '\n' }) {
			if k > 0 {
				out = append(out, ", "...)
			}
			out = append(out, f...)
		}
		out = append(out, ']')
		i = j
	}
	return compactPartitions(out)
}

// compactPartitions writes each explicit partition, `{<newline, spaces>"replicas": [...],
// <newline, spaces>"size_bytes": N ...<newline, spaces>}`, on one line as
// `{"replicas": [...], "size_bytes": N ...}` (by hand: package regexp would add its tables to
// lab.wasm).
func compactPartitions(doc []byte) []byte {
	const key = `"replicas": [`
	out := make([]byte, 0, len(doc))
	for i := 0; i < len(doc); i++ {
		if doc[i] == '{' {
			j := i + 1
			for j < len(doc) && (doc[j] == ' ' || doc[j] == '\n') {
				j++
			}
			// A partition object holds no object: it ends at the first '}'.
			if end := bytes.IndexByte(doc[j:], '}'); bytes.HasPrefix(doc[j:], []byte(key)) && end > 0 && bytes.IndexByte(doc[j:j+end], '{') < 0 {
				out = append(out, '{')
				body := bytes.TrimRight(doc[j:j+end], " \n")
				for k := 0; k < len(body); k++ {
					if body[k] != '\n' {
						out = append(out, body[k])
						continue
					}
					for k+1 < len(body) && body[k+1] == ' ' {
						k++
					}
					out = append(out, ' ')
				}
				out = append(out, '}')
				i = j + end
				continue
			}
		}
		out = append(out, doc[i])
	}
	return out
}
