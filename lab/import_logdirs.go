package lab

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// This file reads `kafka-log-dirs.sh --describe` output, as Kafka writes it in
// tools/src/main/java/org/apache/kafka/tools/LogDirsCommand.java, LogDirsCommand.execute: two
// lines ("Querying brokers for log directories information", "Received log directory
// information from brokers 1,2,3"), then formatAsJson's one line, {"version": 1, "brokers":
// [{"broker": B, "logDirs": [{"logDir", "error", "partitions": [{"partition": "topic-P",
// "size", "offsetLag", "isFuture"}]}]}]} (key order is a HashMap's, so any).

// SourceLogDirs names the log-dirs output in reports and errors.
const SourceLogDirs = "kafka-log-dirs.sh --describe"

// LogDirs is what the log-dirs output says: each replica's size on its broker.
type LogDirs struct {
	// Line is the JSON line's number.
	Line int
	// Brokers are the brokers that answered, in the output's order.
	Brokers []int32
	// Sizes maps "topic-partition" to its replicas' sizes by broker.
	Sizes map[string]map[int32]int64
	// Future counts future replicas (a move between a broker's log dirs in progress), which
	// are left out; OfflineDirs lists log dirs that answered with an error.
	Future      int
	OfflineDirs []string
}

// ParseLogDirs reads kafka-log-dirs.sh --describe output. Its header lines are recognised;
// any other line but the JSON one is unused.
func ParseLogDirs(text string) (*LogDirs, []UnusedLine, error) {
	var unused []UnusedLine
	var jsonLine string
	ld := &LogDirs{Sizes: map[string]map[int32]int64{}}
	lineNo := 0
	for rest := text; rest != ""; {
		var raw string
		raw, rest, _ = strings.Cut(rest, "\n")
		lineNo++
		line := strings.TrimSpace(raw)
		switch {
		case line == "":
		case strings.HasPrefix(line, "Querying brokers for log directories") || strings.HasPrefix(line, "Received log directory information from brokers"):
		case strings.HasPrefix(line, "{"):
			if jsonLine != "" {
				return nil, nil, &ImportError{SourceLogDirs, lineNo, fmt.Sprintf("a second JSON document (the first is on line %d): paste one kafka-log-dirs.sh output", ld.Line)}
			}
			jsonLine, ld.Line = line, lineNo
		default:
			if lineNo <= 3 && strings.HasPrefix(line, "Topic:") {
				return nil, nil, &ImportError{SourceLogDirs, lineNo, fmt.Sprintf("this is %s output, not %s: give it as its own input", SourceTopics, SourceLogDirs)}
			}
			if other := otherToolOutput(line); other == SourceQuorum {
				return nil, nil, &ImportError{SourceLogDirs, lineNo, fmt.Sprintf("this is %s output, not %s: give it as its own input", SourceQuorum, SourceLogDirs)}
			}
			unused = append(unused, UnusedLine{SourceLogDirs, lineNo, clip(line), "not part of kafka-log-dirs.sh --describe output (its two header lines and one JSON line)"})
		}
	}
	if jsonLine == "" {
		return nil, nil, &ImportError{SourceLogDirs, 0, "no JSON line found: paste the output of kafka-log-dirs.sh --bootstrap-server HOST:PORT --describe"}
	}
	var doc struct {
		Version *int `json:"version"`
		Brokers []struct {
			Broker  *int32 `json:"broker"`
			LogDirs []struct {
				LogDir     string  `json:"logDir"`
				Error      *string `json:"error"`
				Partitions []struct {
					Partition string `json:"partition"`
					Size      *int64 `json:"size"`
					IsFuture  bool   `json:"isFuture"`
				} `json:"partitions"`
			} `json:"logDirs"`
		} `json:"brokers"`
	}
	dec := json.NewDecoder(bytes.NewReader([]byte(jsonLine)))
	if err := dec.Decode(&doc); err != nil {
		return nil, nil, &ImportError{SourceLogDirs, ld.Line, fmt.Sprintf("the JSON does not read: %v", err)}
	}
	if doc.Version == nil || *doc.Version != 1 {
		return nil, nil, &ImportError{SourceLogDirs, ld.Line, `want "version": 1, as LogDirsCommand writes it`}
	}
	for bi, b := range doc.Brokers {
		if b.Broker == nil || *b.Broker < 0 {
			return nil, nil, &ImportError{SourceLogDirs, ld.Line, fmt.Sprintf("brokers[%d] has no broker id", bi)}
		}
		ld.Brokers = append(ld.Brokers, *b.Broker)
		for _, d := range b.LogDirs {
			if d.Error != nil && *d.Error != "" {
				ld.OfflineDirs = append(ld.OfflineDirs, fmt.Sprintf("broker %d %s: %s", *b.Broker, d.LogDir, *d.Error))
			}
			for pi, p := range d.Partitions {
				if _, _, ok := splitTopicPartition(p.Partition); !ok || p.Size == nil || *p.Size < 0 {
					return nil, nil, &ImportError{SourceLogDirs, ld.Line, fmt.Sprintf("broker %d, log dir %s, partitions[%d]: want {\"partition\": \"topic-N\", \"size\": BYTES}, got partition %q", *b.Broker, d.LogDir, pi, p.Partition)}
				}
				if p.IsFuture {
					ld.Future++
					continue
				}
				m := ld.Sizes[p.Partition]
				if m == nil {
					m = map[int32]int64{}
					ld.Sizes[p.Partition] = m
				}
				m[*b.Broker] += *p.Size
			}
		}
	}
	return ld, unused, nil
}

// splitTopicPartition reads TopicPartition.toString's "topic-N": the partition follows the
// last dash, as a topic name may hold dashes and dots.
func splitTopicPartition(s string) (string, int32, bool) {
	i := strings.LastIndexByte(s, '-')
	if i <= 0 {
		return "", 0, false
	}
	n, err := strconv.ParseInt(s[i+1:], 10, 32)
	if err != nil || n < 0 {
		return "", 0, false
	}
	return s[:i], int32(n), true
}
