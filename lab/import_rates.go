package lab

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// This file reads produce rates per topic: the Prometheus text a JMX exporter serves for
// kafka.server:type=BrokerTopicMetrics,name=BytesInPerSec,topic=T (a meter: Count and the
// OneMinuteRate, FiveMinuteRate, FifteenMinuteRate and MeanRate attributes), or a two-column
// CSV "topic,bytes_per_sec". A scrape of each broker, concatenated, sums per topic: each
// broker counts the bytes it receives as leader.

// SourceRates names the rates input in reports and errors.
const SourceRates = "produce rates"

// rateAttributes are the meter's rate attributes, the preferred first, as matched (lower
// case); rateNames are the same as Kafka's metrics name them.
var (
	rateAttributes = []string{"oneminuterate", "fiveminuterate", "fifteenminuterate", "meanrate"}
	rateNames      = []string{"OneMinuteRate", "FiveMinuteRate", "FifteenMinuteRate", "MeanRate"}
)

// Rates are produce bytes per second by topic, and where they came from.
type Rates struct {
	ByTopic map[string]float64
	// Lines maps a topic to the lines it was summed from.
	Lines map[string][]int
	// Format is "Prometheus (OneMinuteRate)" or "CSV".
	Format string
}

// ParseRates reads Prometheus text or a CSV. Lines that are not a per-topic BytesInPerSec
// rate (other metrics, the all-topics total, counters, a less preferred rate attribute) are
// unused with their reason.
func ParseRates(text string) (*Rates, []UnusedLine, error) {
	type sample struct {
		line       int
		raw, topic string
		attr       int // index in rateAttributes
		value      float64
	}
	var samples []sample
	var unused []UnusedLine
	csv := false
	r := &Rates{ByTopic: map[string]float64{}, Lines: map[string][]int{}}
	lineNo := 0
	for rest := text; rest != ""; {
		var raw string
		raw, rest, _ = strings.Cut(rest, "\n")
		lineNo++
		line := strings.TrimSpace(raw)
		if line == "" || strings.HasPrefix(line, "# HELP") || strings.HasPrefix(line, "# TYPE") {
			continue
		}
		if strings.HasPrefix(line, "#") {
			unused = append(unused, UnusedLine{SourceRates, lineNo, clip(line), "a comment"})
			continue
		}
		if lineNo <= 3 {
			if other := otherToolOutput(line); other != "" || strings.HasPrefix(line, "Topic:") {
				if other == "" {
					other = SourceTopics
				}
				return nil, nil, &ImportError{SourceRates, lineNo, fmt.Sprintf("this is %s output, not produce rates: give it as its own input", other)}
			}
		}
		name, labels, value, ok := promSample(line)
		if !ok {
			// CSV: topic,bytes_per_sec (a header row is allowed).
			cols := strings.Split(line, ",")
			if len(cols) != 2 {
				return nil, nil, &ImportError{SourceRates, lineNo, fmt.Sprintf("want a Prometheus sample (name{labels} value) or a CSV row topic,bytes_per_sec; got %q", clip(line))}
			}
			topic, v := strings.TrimSpace(cols[0]), strings.TrimSpace(cols[1])
			f, err := strconv.ParseFloat(v, 64)
			if err != nil {
				if len(samples) == 0 && !csv {
					csv = true
					unused = append(unused, UnusedLine{SourceRates, lineNo, clip(line), "the CSV header"})
					continue
				}
				return nil, nil, &ImportError{SourceRates, lineNo, fmt.Sprintf("bytes_per_sec %q is not a number", v)}
			}
			if f < 0 || math.IsNaN(f) || math.IsInf(f, 0) || topic == "" {
				return nil, nil, &ImportError{SourceRates, lineNo, fmt.Sprintf("want a topic and a rate of 0 or more bytes per second, got %q", clip(line))}
			}
			csv = true
			samples = append(samples, sample{line: lineNo, topic: topic, value: f})
			continue
		}
		if csv {
			return nil, nil, &ImportError{SourceRates, lineNo, "a Prometheus sample in a CSV: give one format"}
		}
		lname := strings.ToLower(name)
		if !strings.Contains(lname, "bytesin") && !strings.EqualFold(labels["name"], "BytesInPerSec") {
			unused = append(unused, UnusedLine{SourceRates, lineNo, clip(line), "not BytesInPerSec"})
			continue
		}
		if labels["name"] != "" && !strings.EqualFold(labels["name"], "BytesInPerSec") {
			unused = append(unused, UnusedLine{SourceRates, lineNo, clip(line), "not BytesInPerSec"})
			continue
		}
		attr := -1
		for i, a := range rateAttributes {
			if strings.HasSuffix(lname, a) {
				attr = i
			}
		}
		if attr < 0 {
			unused = append(unused, UnusedLine{SourceRates, lineNo, clip(line), "a counter, not a rate (a rate needs two scrapes: use the OneMinuteRate, or a CSV from rate(...) in Prometheus)"})
			continue
		}
		if labels["topic"] == "" {
			unused = append(unused, UnusedLine{SourceRates, lineNo, clip(line), "the all-topics total; the per-topic lines are used"})
			continue
		}
		if value < 0 || math.IsNaN(value) || math.IsInf(value, 0) {
			return nil, nil, &ImportError{SourceRates, lineNo, fmt.Sprintf("rate %v is not 0 or more bytes per second", value)}
		}
		samples = append(samples, sample{line: lineNo, raw: line, topic: labels["topic"], attr: attr, value: value})
	}
	if len(samples) == 0 {
		return nil, nil, &ImportError{SourceRates, 0, "no per-topic rate found: paste the JMX exporter's BytesInPerSec lines (with a topic label) or a CSV topic,bytes_per_sec"}
	}
	best := len(rateAttributes)
	for _, s := range samples {
		best = min(best, s.attr)
	}
	r.Format = "CSV"
	if !csv {
		r.Format = "Prometheus (" + rateNames[best] + ")"
	}
	for _, s := range samples {
		if !csv && s.attr != best {
			unused = append(unused, UnusedLine{SourceRates, s.line, clip(s.raw), "another rate attribute; the " + strings.TrimSuffix(strings.TrimPrefix(r.Format, "Prometheus ("), ")") + " lines are used"})
			continue
		}
		r.ByTopic[s.topic] += s.value
		r.Lines[s.topic] = append(r.Lines[s.topic], s.line)
	}
	return r, unused, nil
}

// promSample reads a Prometheus text sample: name{k="v",...} value [timestamp].
func promSample(line string) (name string, labels map[string]string, value float64, ok bool) {
	labels = map[string]string{}
	i := strings.IndexAny(line, "{ \t")
	if i <= 0 {
		return "", nil, 0, false
	}
	name, rest := line[:i], line[i:]
	for _, c := range name {
		if !(c == '_' || c == ':' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			return "", nil, 0, false
		}
	}
	if strings.HasPrefix(rest, "{") {
		end := strings.IndexByte(rest, '}')
		if end < 0 {
			return "", nil, 0, false
		}
		for _, pair := range strings.Split(rest[1:end], ",") {
			k, v, ok := strings.Cut(strings.TrimSpace(pair), "=")
			if ok {
				labels[k] = strings.Trim(v, `"`)
			}
		}
		rest = rest[end+1:]
	}
	f := strings.Fields(rest)
	if len(f) < 1 || len(f) > 2 {
		return "", nil, 0, false
	}
	value, err := strconv.ParseFloat(f[0], 64)
	if err != nil {
		return "", nil, 0, false
	}
	return name, labels, value, true
}
