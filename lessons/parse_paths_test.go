package lessons

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// The readers of link lines and of error messages and paths place a lesson's errors on the
// right line; these cases pin what each reads, including the near misses.

func TestParseLink(t *testing.T) {
	for _, c := range []struct{ line, title, url string }{
		{"- [KIP-966](https://cwiki.apache.org/confluence/display/KAFKA/KIP-966)", "KIP-966", "https://cwiki.apache.org/confluence/display/KAFKA/KIP-966"},
		{"- [Kafka docs](http://kafka.apache.org/documentation/#design) \t\r", "Kafka docs", "http://kafka.apache.org/documentation/#design"},
		{"- [Ünïcødé](https://例え.jp/ü)", "Ünïcødé", "https://例え.jp/ü"},
		{"- [](https://x)", "", ""}, {"- [T](https://)", "", ""}, {"- [T](ftp://x)", "", ""},
		{"- [T](https://a b)", "", ""}, {"- [T](https://a)x", "", ""}, {"- [a]b](https://x)", "", ""},
		{"-  [T](https://x)", "", ""}, {"- [T] (https://x)", "", ""}, {"- [T](https://x))", "", ""}, {"", "", ""},
	} {
		title, url, ok := parseLink(c.line)
		assert.Equal(t, c.url != "", ok, "%q", c.line)
		assert.Equal(t, c.title, title, "%q", c.line)
		assert.Equal(t, c.url, url, "%q", c.line)
	}
}

func TestJSONErrorLine(t *testing.T) {
	for msg, want := range map[string]string{
		"invalid character '}' at line 3, column 4": "3", "at line x, at line 7": "7",
		"at line 0042 and at line 9": "0042", "at line": "", "at line  5": "", "the line 5": "", "": "",
	} {
		n, ok := jsonErrorLine(msg)
		assert.Equal(t, want != "", ok, "%q", msg)
		assert.Equal(t, want, n, "%q", msg)
	}
}

func TestLastKey(t *testing.T) {
	for path, want := range map[string]string{
		"cluster.topics[0].partition_count": "partition_count", "topics[1][2]": "topics", "seed": "seed",
		`cluster.topics[0].config["min.insync.replicas"]`: "min.insync.replicas", "events[0].at_ms": "at_ms",
		`config[""]`: "", "a.B": "", "a.b1": "", "a[x]": "", "a.": "", "": "",
	} {
		key, ok := lastKey(path)
		assert.Equal(t, want != "", ok, "%q", path)
		assert.Equal(t, want, key, "%q", path)
	}
}

func TestEventIndex(t *testing.T) {
	for _, c := range []struct{ path, k, field string }{
		{"events[0]", "0", ""}, {"events[12].broker", "12", "broker"}, {"events[3]broker", "3", "broker"},
		{`events[007].config["a.b"]`, "007", `config["a.b"]`},
		{"events[].x", "", ""}, {"events[a]", "", ""}, {"xevents[1]", "", ""}, {"events[1].a\nb", "", ""},
	} {
		k, field, ok := eventIndex(c.path)
		assert.Equal(t, c.k != "", ok, "%q", c.path)
		assert.Equal(t, c.k, k, "%q", c.path)
		assert.Equal(t, c.field, field, "%q", c.path)
	}
}
