package lessons

import (
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The lesson parser reads links, error lines and error paths by hand instead of with package
// regexp, which would add 80 KB (brotli) to the page's wasm. These tests hold each reader to
// the regexp it replaced: the same answer on hand-picked edge cases and on many random strings
// built from the characters the pattern cares about. The regexps live here, in a test, which
// the wasm never links.

var (
	linkRE       = regexp.MustCompile(`^- \[([^\]]+)\]\((https?://[^ )]+)\)\s*$`)
	jsonLineRE   = regexp.MustCompile(`at line (\d+)`)
	lastKeyRE    = regexp.MustCompile(`(?:\.|^)([a-z_]+)(?:\[\d+\])*$|\["([^"]+)"\]$`)
	eventIndexRE = regexp.MustCompile(`^events\[(\d+)\]\.?(.*)$`)
)

// randomStrings returns n strings of up to max pieces drawn from pieces, from a fixed seed.
func randomStrings(seed uint64, n, max int, pieces []string) []string {
	r := rand.New(rand.NewPCG(seed, 7))
	out := make([]string, n)
	for i := range out {
		var b strings.Builder
		for range r.IntN(max + 1) {
			b.WriteString(pieces[r.IntN(len(pieces))])
		}
		out[i] = b.String()
	}
	return out
}

// shaped returns n strings made of one piece of each part in turn, from a fixed seed, so that
// most come close to the pattern and many match it.
func shaped(seed uint64, n int, parts ...[]string) []string {
	r := rand.New(rand.NewPCG(seed, 9))
	out := make([]string, n)
	for i := range out {
		var b strings.Builder
		for _, p := range parts {
			b.WriteString(p[r.IntN(len(p))])
		}
		out[i] = b.String()
	}
	return out
}

// requireBothSides fails a test whose random cases (nearly) all match or all miss: such a
// test could not tell a reader from one that always says yes, or no.
func requireBothSides(t *testing.T, matched, total int) {
	t.Helper()
	require.Greater(t, matched, total/100, "too few random cases match the pattern")
	require.Less(t, matched, total-total/100, "too few random cases miss the pattern")
}

func TestParseLinkMatchesTheRegexp(t *testing.T) {
	cases := []string{
		"- [KIP-966](https://cwiki.apache.org/confluence/display/KAFKA/KIP-966)",
		"- [Kafka docs](http://kafka.apache.org/documentation/#design) \t\r",
		"- [](https://x)", "- [T](https://)", "- [T](http://)", "- [T](https:///)", "- [T](http://x",
		"- [T](ftp://x)", "- [T](https://a b)", "- [T](https://a)x", "- [T](https://a) x", "- [T](https://a)\v",
		"- [a]b](https://x)", "- [a[b](https://x(y)", "-  [T](https://x)", "- [T] (https://x)",
		"- [T](https://x))", "- [T](https://x)\n", "- [Ünïcødé](https://例え.jp/ü)", "- [T](https://x\xff)",
		"", "- ", "- [", "- [T]", "- [T](",
	}
	pieces := []string{"- [", "[", "]", "(", ")", "](", "http", "s", "://", "https://", "http://", " ", "\t", "x", "é", "\n"}
	cases = append(cases, randomStrings(1, 10000, 12, pieces)...)
	cases = append(cases, shaped(11, 20000, []string{"- [", "- [", "- [", "-[", "- "}, []string{"x", "é", "x y", "", "]", "[", "a]b"},
		[]string{"](", "](", "](", "] (", "(", ")"}, []string{"http://", "https://", "https://", "https:/", "ftp://", "x"},
		[]string{"x", "x/y", "(", "", " ", ")", "]", "\xff"}, []string{")", ")", ")", " )", ""}, []string{"", "", " ", "\t", "\r", "\v", "\n", "x"})...)
	matched := 0
	for _, c := range cases {
		title, url, ok := parseLink(c)
		m := linkRE.FindStringSubmatch(c)
		require.Equal(t, m != nil, ok, "%q", c)
		if ok {
			matched++
		}
		if ok {
			require.Equal(t, m[1], title, "%q", c)
			require.Equal(t, m[2], url, "%q", c)
		}
	}
	requireBothSides(t, matched, len(cases))
	// The parser's own view of it: a good link is read, a bad one is refused with its line.
	title, url, ok := parseLink("- [KIP-1358](https://cwiki.apache.org/KIP-1358)  ")
	assert.True(t, ok)
	assert.Equal(t, "KIP-1358", title)
	assert.Equal(t, "https://cwiki.apache.org/KIP-1358", url)
	_, err := Parse("tiny.md", []byte(replaceLine(5, "- [KIP-966](mailto:dev@kafka.apache.org)")), nil)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "tiny.md:5: links:")
}

func TestJSONErrorLineMatchesTheRegexp(t *testing.T) {
	cases := []string{
		"invalid character '}' at line 3, column 4", "at line 12", "at line", "at line x, at line 7",
		"at line  5", "what line 5", "at line 0042 and at line 9", "flat line 3", "at line 99999999999999999999",
		"", "at line\n5",
	}
	cases = append(cases, randomStrings(2, 20000, 10, []string{"at line ", "at ", "line ", "a", "t", " ", "1", "23", "x", "\n"})...)
	matched := 0
	for _, c := range cases {
		n, ok := jsonErrorLine(c)
		m := jsonLineRE.FindStringSubmatch(c)
		require.Equal(t, m != nil, ok, "%q", c)
		if ok {
			matched++
			require.Equal(t, m[1], n, "%q", c)
		}
	}
	requireBothSides(t, matched, len(cases))
}

func TestLastKeyMatchesTheRegexp(t *testing.T) {
	cases := []string{
		"cluster.topics[0].partition_count", "events[3].broker", "topics[1]", "topics[1][2]", "seed",
		`config["min.insync.replicas"]`, `cluster.topics[0].config["min.insync.replicas"]`, `config[""]`,
		`config["a"b"]`, `["x"]`, `"x"]`, `[x"]`, "a.", ".a", "a..b", "a.B", "a.b1", "a[]", "a[x]", "a[1]]",
		"a]", "[1]", "", "a.b[1].c[2][3]", "events[0].at_ms", "workload.acks", "cluster.broker[\"x.y\"][1]",
	}
	cases = append(cases, randomStrings(3, 40000, 8, []string{".", "[", "]", `"`, `["`, `"]`, "a", "b_", "Z", "0", "12", "x.y"})...)
	matched := 0
	for _, c := range cases {
		key, ok := lastKey(c)
		m := lastKeyRE.FindStringSubmatch(c)
		require.Equal(t, m != nil, ok, "%q", c)
		if ok {
			matched++
			require.Equal(t, m[1]+m[2], key, "%q", c)
		}
	}
	requireBothSides(t, matched, len(cases))
}

func TestEventIndexMatchesTheRegexp(t *testing.T) {
	cases := []string{
		"events[0]", "events[12].broker", "events[3]broker", "events[3]..x", "events[].x", "events[a]",
		"events[1", "xevents[1]", "events[1].a\nb", "events[1]\n", "events[007].config[\"a.b\"]", "",
	}
	cases = append(cases, randomStrings(4, 10000, 6, []string{"events[", "events", "[", "]", ".", "1", "23", "x", "\n"})...)
	cases = append(cases, shaped(14, 10000, []string{"events[", "events[", "event[", "events"}, []string{"1", "23", "x", ""},
		[]string{"]", "].", "]..", ""}, []string{"", "a", ".", "[1]", "\n", "_"})...)
	matched := 0
	for _, c := range cases {
		k, field, ok := eventIndex(c)
		m := eventIndexRE.FindStringSubmatch(c)
		require.Equal(t, m != nil, ok, "%q", c)
		if ok {
			matched++
			require.Equal(t, m[1], k, "%q", c)
			require.Equal(t, m[2], field, "%q", c)
		}
	}
	requireBothSides(t, matched, len(cases))
}
