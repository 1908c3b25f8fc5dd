package lab

import (
	"fmt"
	"strconv"
	"strings"
)

// This file reads `kafka-metadata-quorum.sh describe --status` output, as Kafka writes it in
// tools/src/main/java/org/apache/kafka/tools/MetadataQuorumCommand.java,
// handleDescribeStatus: "Key:<spaces>value" lines (ClusterId, LeaderId, LeaderEpoch,
// HighWatermark, MaxFollowerLag, MaxFollowerLagTimeMs, CurrentVoters, CurrentObservers).
// CurrentVoters is printReplicaState's list of Node.toString objects since KIP-853 ([{"id": 3000,
// "directoryId": …, "endpoints": […]}, …]); Kafka 3.x printed the ids alone ([3000,3001,3002]).

// SourceQuorum names the quorum output in reports and errors.
const SourceQuorum = "kafka-metadata-quorum.sh describe --status"

// Quorum is what the quorum output says.
type Quorum struct {
	Line      int // the CurrentVoters line
	LeaderID  int32
	Voters    []int32
	Observers []int32
}

var quorumKeys = map[string]bool{"ClusterId": true, "LeaderId": true, "LeaderEpoch": true, "HighWatermark": true,
	"MaxFollowerLag": true, "MaxFollowerLagTimeMs": true, "CurrentVoters": true, "CurrentObservers": true}

// ParseQuorum reads kafka-metadata-quorum.sh describe --status output. Only the voters and
// observers are used; the other status lines are read and reported as not modelled.
func ParseQuorum(text string) (*Quorum, []UnusedLine, error) {
	q := &Quorum{LeaderID: -1}
	var unused []UnusedLine
	lineNo := 0
	fail := func(line int, format string, args ...any) (*Quorum, []UnusedLine, error) {
		return nil, nil, &ImportError{Source: SourceQuorum, Line: line, Msg: fmt.Sprintf(format, args...)}
	}
	for rest := text; rest != ""; {
		var raw string
		raw, rest, _ = strings.Cut(rest, "\n")
		lineNo++
		line := strings.TrimSpace(raw)
		if line == "" {
			continue
		}
		key, value, ok := strings.Cut(line, ":")
		value = strings.TrimSpace(value)
		if !ok || !quorumKeys[key] {
			if lineNo <= 3 {
				if other := otherToolOutput(line); other != "" && other != SourceQuorum {
					return fail(lineNo, "this is %s output, not %s: give it as its own input", other, SourceQuorum)
				}
				if strings.HasPrefix(line, "Topic:") {
					return fail(lineNo, "this is %s output, not %s: give it as its own input", SourceTopics, SourceQuorum)
				}
			}
			unused = append(unused, UnusedLine{SourceQuorum, lineNo, clip(line), "not a line of kafka-metadata-quorum.sh describe --status"})
			continue
		}
		switch key {
		case "CurrentVoters", "CurrentObservers":
			ids, err := quorumIDs(value)
			if err != nil {
				return fail(lineNo, "%s: %v", key, err)
			}
			if key == "CurrentVoters" {
				q.Voters, q.Line = ids, lineNo
			} else {
				q.Observers = ids
			}
		case "LeaderId":
			n, err := strconv.ParseInt(value, 10, 32)
			if err != nil {
				return fail(lineNo, "LeaderId: %q is not a node id", value)
			}
			q.LeaderID = int32(n)
		default:
			unused = append(unused, UnusedLine{SourceQuorum, lineNo, clip(line), "read, not modelled (the model's quorum starts fresh)"})
		}
	}
	if q.Voters == nil {
		return fail(0, "no CurrentVoters: line: paste the output of kafka-metadata-quorum.sh --bootstrap-server HOST:PORT describe --status")
	}
	return q, unused, nil
}

// quorumIDs reads a CurrentVoters or CurrentObservers value in the 4.x format (each node's
// `"id": N`) or the 3.x one (bare ids). It scans by hand: package regexp would add its tables
// to lab.wasm.
func quorumIDs(v string) ([]int32, error) {
	if !strings.HasPrefix(v, "[") || !strings.HasSuffix(v, "]") {
		return nil, fmt.Errorf("want a list, [{\"id\": N, …}, …] or [N,N,N], got %q", clip(v))
	}
	inner := strings.TrimSpace(v[1 : len(v)-1])
	var texts []string
	if strings.HasPrefix(inner, "{") {
		for rest := inner; ; {
			i := strings.Index(rest, `"id":`)
			if i < 0 {
				break
			}
			rest = strings.TrimLeft(rest[i+len(`"id":`):], " ")
			n := 0
			for n < len(rest) && rest[n] >= '0' && rest[n] <= '9' {
				n++
			}
			texts = append(texts, rest[:n])
			rest = rest[n:]
		}
		if len(texts) == 0 {
			return nil, fmt.Errorf("no \"id\" in %q", clip(v))
		}
	} else if inner != "" {
		texts = strings.Split(inner, ",")
	}
	out := make([]int32, 0, len(texts))
	for _, t := range texts {
		n, err := strconv.ParseInt(strings.TrimSpace(t), 10, 32)
		if err != nil || n < 0 {
			return nil, fmt.Errorf("%q is not a node id", t)
		}
		out = append(out, int32(n))
	}
	return out, nil
}
