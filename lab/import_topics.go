package lab

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// This file reads `kafka-topics.sh --describe` output. Kafka writes it in
// tools/src/main/java/org/apache/kafka/tools/TopicCommand.java: a topic line from
// TopicDescription.printDescription ("Topic: T<TAB>TopicId: …<TAB>PartitionCount: N<TAB>
// ReplicationFactor: R<TAB>Configs: k=v,k=v", the non-default configs only), then one line per
// partition from PartitionDescription.printDescription ("<TAB>Topic: T<TAB>Partition: P<TAB>
// Leader: L|none<TAB>Replicas: …<TAB>Isr: …", with "Adding Replicas: …<TAB>Removing Replicas: …"
// while a reassignment is in progress, and, since Kafka 3.7, "Elr: …|N/A<TAB>LastKnownElr:
// …|N/A"). Filters such as --under-replicated-partitions print partition lines without the
// topic line (TopicService.describeTopic: describeConfigs is false).

// SourceTopics names the describe output in reports and errors.
const SourceTopics = "kafka-topics.sh --describe"

// DescribedTopic is one topic as the describe printed it.
type DescribedTopic struct {
	Name string
	// Line is the topic line's number, or the first partition line's when there was none.
	Line int
	// PartitionCount is the topic line's count (0 without a topic line).
	PartitionCount int
	// Configs are the topic line's non-default configs, in order.
	Configs []Override
	// Partitions are in partition order, 0 to n-1.
	Partitions []DescribedPartition
}

// DescribedPartition is one partition line.
type DescribedPartition struct {
	Line      int
	Partition int32
	// Leader is -1 for "Leader: none".
	Leader   int32
	Replicas []int32
	Isr      []int32
	// Adding and Removing are the reassignment columns (nil when none is in progress).
	Adding, Removing []int32
	// Elr and LastKnownElr are nil for "N/A" or a 3.x line without the columns.
	Elr, LastKnownElr []int32
}

// Assignment is the partition's replicas as the model imports them: during a reassignment,
// the replicas before it (Replicas without Adding), since the model does not move replicas.
func (p *DescribedPartition) Assignment() []int32 {
	if len(p.Adding) == 0 {
		return p.Replicas
	}
	out := make([]int32, 0, len(p.Replicas))
	for _, r := range p.Replicas {
		if !slices.Contains(p.Adding, r) {
			out = append(out, r)
		}
	}
	return out
}

// UnusedLine is an input line the import did not use, and why.
type UnusedLine struct {
	Source string `json:"source"`
	Line   int    `json:"line"`
	Text   string `json:"text"`
	Reason string `json:"reason"`
}

// ImportError is input the import refuses, naming the source and the line.
type ImportError struct {
	Source string
	Line   int
	Msg    string
}

// Error writes "SOURCE, line N: MSG".
func (e *ImportError) Error() string {
	if e.Line == 0 {
		return fmt.Sprintf("%s: %s", e.Source, e.Msg)
	}
	return fmt.Sprintf("%s, line %d: %s", e.Source, e.Line, e.Msg)
}

// describeKey says whether a word is a column TopicCommand prints ("Adding Replicas:" is two
// words, read apart). A switch rather than a map: it runs for every word of a describe of
// millions, and hashing each word was a tenth of a wasm import.
func describeKey(w string) bool {
	switch w {
	case "Topic:", "TopicId:", "PartitionCount:", "ReplicationFactor:", "Configs:", "MarkedForDeletion:",
		"Partition:", "Leader:", "Replicas:", "Isr:", "Elr:", "LastKnownElr:":
		return true
	}
	return false
}

// describeLine is a describe line split into its columns: keys[i] and its value vals[i].
// split reuses both slices line after line, so that a 200,000-partition describe is read
// without allocating for each line's columns.
type describeLine struct{ keys, vals []string }

// split reads line's columns into d. It reads whitespace-separated words (as strings.Fields
// splits them) rather than tabs, so that a paste whose tabs became spaces, or whose trailing
// spaces were trimmed ("Elr:" at the end), reads the same. Topic names and the values Kafka
// prints hold no whitespace. Unknown "Word:" columns come back under their key, for the caller
// to report. A line that does not start with a column has none.
func (d *describeLine) split(line string) {
	d.keys, d.vals = d.keys[:0], d.vals[:0]
	for rest := line; ; {
		var w string
		if w, rest = nextWord(rest); w == "" {
			return
		}
		if w == "Adding" || w == "Removing" {
			if next, after := nextWord(rest); next == "Replicas:" {
				d.keys, d.vals = append(d.keys, w+" Replicas:"), append(d.vals, "")
				rest = after
				continue
			}
		}
		if describeKey(w) || (len(d.keys) > 0 && isColumnWord(w)) {
			d.keys, d.vals = append(d.keys, w), append(d.vals, "")
			continue
		}
		if len(d.keys) == 0 {
			return
		}
		if v := &d.vals[len(d.vals)-1]; *v == "" {
			*v = w
		} else {
			*v += " " + w
		}
	}
}

// get is the value of column k, and whether the line has it.
func (d *describeLine) get(k string) (string, bool) {
	i := slices.Index(d.keys, k)
	if i < 0 {
		return "", false
	}
	return d.vals[i], true
}

// nextWord is the first whitespace-separated word of s ("" if none) and what follows it,
// split where strings.Fields would split: ASCII is read byte by byte, and a line with other
// characters around the word is left to unicode.IsSpace.
func nextWord(s string) (word, rest string) {
	start := 0
	for start < len(s) && asciiSpace(s[start]) {
		start++
	}
	end := start
	for end < len(s) && s[end] < utf8.RuneSelf && !asciiSpace(s[end]) {
		end++
	}
	if start < len(s) && s[start] >= utf8.RuneSelf || end < len(s) && s[end] >= utf8.RuneSelf {
		s = strings.TrimLeftFunc(s, unicode.IsSpace)
		if end = strings.IndexFunc(s, unicode.IsSpace); end < 0 {
			return s, ""
		}
		return s[:end], s[end:]
	}
	return s[start:end], s[end:]
}

func asciiSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'
}

// isColumnWord says whether a word looks like a column key TopicCommand might add: a capital
// letter, letters only, a colon.
func isColumnWord(w string) bool {
	if len(w) < 3 || w[len(w)-1] != ':' || w[0] < 'A' || w[0] > 'Z' {
		return false
	}
	for _, c := range w[1 : len(w)-1] {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
			return false
		}
	}
	return true
}

// ParseTopicsDescribe reads `kafka-topics.sh --describe` output (Kafka 4.x with the Elr
// columns, or 3.x without them). Lines that are not describe lines (log messages, a shell
// prompt) come back as unused with their reason; a malformed describe line, a topic described
// twice, a partition missing or a count that does not add up is an *ImportError naming the
// line, and nothing is imported.
func ParseTopicsDescribe(text string) ([]DescribedTopic, []UnusedLine, error) {
	var topics []DescribedTopic
	var unused []UnusedLine
	index := map[string]int{}
	unknownCols := map[string]bool{}
	fail := func(line int, format string, args ...any) ([]DescribedTopic, []UnusedLine, error) {
		return nil, nil, &ImportError{Source: SourceTopics, Line: line, Msg: fmt.Sprintf(format, args...)}
	}
	lineNo := 0
	var cols describeLine
	for rest := text; rest != ""; {
		var raw string
		raw, rest, _ = strings.Cut(rest, "\n")
		lineNo++
		line := strings.TrimSpace(raw)
		if line == "" {
			continue
		}
		cols.split(line)
		keys, vals, get := cols.keys, cols.vals, cols.get
		if len(keys) == 0 || keys[0] != "Topic:" {
			if lineNo <= 3 {
				if other := otherToolOutput(line); other != "" {
					return fail(lineNo, "this is %s output, not %s: give it as its own input", other, SourceTopics)
				}
			}
			unused = append(unused, UnusedLine{SourceTopics, lineNo, clip(line), notDescribeReason(line)})
			continue
		}
		for _, k := range keys {
			if !describeKey(k) && k != "Adding Replicas:" && k != "Removing Replicas:" && !unknownCols[k] {
				unknownCols[k] = true
				unused = append(unused, UnusedLine{SourceTopics, lineNo, clip(line), fmt.Sprintf("column %q is not one Kafka's TopicCommand prints; the lab skips it on every line", strings.TrimSuffix(k, ":"))})
			}
		}
		name := vals[0]
		if name == "" {
			return fail(lineNo, "Topic: has no name")
		}
		if _, isPartition := get("Partition:"); !isPartition {
			// A topic line.
			if _, ok := get("PartitionCount:"); !ok {
				return fail(lineNo, "a topic line without PartitionCount: (want \"Topic: T\tTopicId: …\tPartitionCount: N\tReplicationFactor: R\tConfigs: …\")")
			}
			if i, seen := index[name]; seen {
				return fail(lineNo, "topic %q is described twice (first on line %d): paste one describe output", name, topics[i].Line)
			}
			n, err := strconv.Atoi(must(get("PartitionCount:")))
			if err != nil || n < 1 {
				return fail(lineNo, "PartitionCount: %q is not a partition count", must(get("PartitionCount:")))
			}
			// Room for the partitions the line announces (up to a bound a typo cannot blow up).
			t := DescribedTopic{Name: name, Line: lineNo, PartitionCount: n, Partitions: make([]DescribedPartition, 0, min(n, 100_000))}
			if v, ok := get("MarkedForDeletion:"); ok && v == "true" {
				unused = append(unused, UnusedLine{SourceTopics, lineNo, clip(line), "the topic is marked for deletion; its partitions are left out"})
				index[name] = -1
				continue
			}
			t.Configs = parseDescribeConfigs(must(get("Configs:")))
			index[name] = len(topics)
			topics = append(topics, t)
			continue
		}
		ti, seen := index[name]
		if seen && ti < 0 {
			unused = append(unused, UnusedLine{SourceTopics, lineNo, clip(line), "a partition of a topic marked for deletion"})
			continue
		}
		if !seen {
			// Partition lines without a topic line: a filtered describe.
			ti = len(topics)
			index[name] = ti
			topics = append(topics, DescribedTopic{Name: name, Line: lineNo})
		}
		p, err := parsePartitionLine(lineNo, get)
		if err != nil {
			return nil, nil, err
		}
		if v, ok := get("MarkedForDeletion:"); ok && v == "true" {
			unused = append(unused, UnusedLine{SourceTopics, lineNo, clip(line), "the partition is marked for deletion"})
			continue
		}
		topics[ti].Partitions = append(topics[ti].Partitions, p)
	}
	if len(topics) == 0 {
		return fail(0, "no topic found: paste the output of kafka-topics.sh --bootstrap-server HOST:PORT --describe")
	}
	for i := range topics {
		t := &topics[i]
		ps := t.Partitions // sort.Slice, not slices.SortFunc: see "Sorting for the wasm" in doc.go
		sort.Slice(ps, func(i, j int) bool { return ps[i].Partition < ps[j].Partition })
		for k, p := range t.Partitions {
			if k > 0 && t.Partitions[k-1].Partition == p.Partition {
				return fail(p.Line, "partition %s-%d is described twice (also on line %d)", t.Name, p.Partition, t.Partitions[k-1].Line)
			}
			if int(p.Partition) != k {
				return fail(t.Line, "topic %q: partition %d is missing (the lab needs every partition of a topic, 0 to n-1; was the output cut short?)", t.Name, k)
			}
		}
		if len(t.Partitions) == 0 {
			return fail(t.Line, "topic %q has no partition lines (was the output cut short?)", t.Name)
		}
		if t.PartitionCount != 0 && t.PartitionCount != len(t.Partitions) {
			return fail(t.Line, "topic %q: PartitionCount: %d but %d partition lines follow (was the output cut short?)", t.Name, t.PartitionCount, len(t.Partitions))
		}
	}
	return topics, unused, nil
}

func must(s string, _ bool) string { return s }

// parsePartitionLine reads one partition line's columns.
func parsePartitionLine(lineNo int, get func(string) (string, bool)) (DescribedPartition, error) {
	p := DescribedPartition{Line: lineNo}
	fail := func(format string, args ...any) (DescribedPartition, error) {
		return DescribedPartition{}, &ImportError{Source: SourceTopics, Line: lineNo, Msg: fmt.Sprintf(format, args...)}
	}
	v, _ := get("Partition:")
	n, err := strconv.ParseInt(v, 10, 32)
	if err != nil || n < 0 {
		return fail("Partition: %q is not a partition number", v)
	}
	p.Partition = int32(n)
	v, ok := get("Leader:")
	switch {
	case !ok:
		return fail("a partition line without Leader:")
	case v == "none" || v == "-1":
		p.Leader = -1
	default:
		id, err := strconv.ParseInt(v, 10, 32)
		if err != nil || id < 0 {
			return fail("Leader: %q is not a broker id or none", v)
		}
		p.Leader = int32(id)
	}
	lists := []struct {
		key      string
		dst      *[]int32
		required bool
		na       bool // "N/A" allowed
	}{{"Replicas:", &p.Replicas, true, false}, {"Isr:", &p.Isr, true, false}, {"Adding Replicas:", &p.Adding, false, false},
		{"Removing Replicas:", &p.Removing, false, false}, {"Elr:", &p.Elr, false, true}, {"LastKnownElr:", &p.LastKnownElr, false, true}}
	for _, l := range lists {
		v, ok := get(l.key)
		if !ok {
			if l.required {
				return fail("a partition line without %s", l.key)
			}
			continue
		}
		if l.na && v == "N/A" {
			continue
		}
		ids, err := parseIDList(v)
		if err != nil {
			return fail("%s %q: %v", l.key, v, err)
		}
		*l.dst = ids
	}
	if len(p.Replicas) == 0 {
		return fail("Replicas: is empty")
	}
	for i, r := range p.Replicas {
		if slices.Contains(p.Replicas[:i], r) {
			return fail("Replicas: lists broker %d twice", r)
		}
	}
	return p, nil
}

// parseIDList reads "1,2,3" (empty for none).
func parseIDList(v string) ([]int32, error) {
	if v == "" {
		return []int32{}, nil
	}
	out := make([]int32, strings.Count(v, ",")+1)
	for i := range out {
		var s string
		s, v, _ = strings.Cut(v, ",")
		n, err := strconv.ParseInt(strings.TrimSpace(s), 10, 32)
		if err != nil || n < 0 {
			return nil, fmt.Errorf("%q is not a broker id", s)
		}
		out[i] = int32(n)
	}
	return out, nil
}

// parseDescribeConfigs reads the Configs column, "k=v,k=v". A value may itself hold commas
// (cleanup.policy=compact,delete): a piece without "=" belongs to the value before it.
func parseDescribeConfigs(v string) []Override {
	var out []Override
	for _, piece := range strings.Split(v, ",") {
		name, value, ok := strings.Cut(piece, "=")
		if !ok {
			if len(out) > 0 {
				out[len(out)-1].Value += "," + piece
			}
			continue
		}
		out = append(out, Override{Name: name, Value: value})
	}
	return out
}

// otherToolOutput recognises another tool's output pasted in the wrong place.
func otherToolOutput(line string) string {
	switch {
	case strings.HasPrefix(line, "Querying brokers for log directories") || strings.HasPrefix(line, "Received log directory information") ||
		strings.HasPrefix(line, `{"brokers"`) || strings.HasPrefix(line, `{"version"`):
		return SourceLogDirs
	case strings.HasPrefix(line, "ClusterId:") || strings.HasPrefix(line, "LeaderId:") || strings.HasPrefix(line, "CurrentVoters:"):
		return SourceQuorum
	}
	return ""
}

func notDescribeReason(line string) string {
	switch {
	case strings.HasPrefix(line, "[") && (strings.Contains(line, "] WARN ") || strings.Contains(line, "] INFO ") || strings.Contains(line, "] ERROR ")):
		return "a log message, not describe output"
	case strings.HasPrefix(line, "$") || strings.HasPrefix(line, "#"):
		return "a shell prompt or comment, not describe output"
	}
	return "not a topic or partition line of kafka-topics.sh --describe"
}

// clip shortens a line for a report.
func clip(s string) string {
	if len(s) <= 160 {
		return s
	}
	return s[:157] + "..."
}
