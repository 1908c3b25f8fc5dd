package lab

import (
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// describeHeaderRE is the regexp describeHeader replaced (package regexp would add 80 KB
// brotli to the lab page's wasm); it lives in this test, which the wasm never links.
var describeHeaderRE = regexp.MustCompile(`(?i)^(?:[A-Za-z]+ )*configs for (?:(broker|brokers|topic|client-metrics|group)s?\b(?: (.+?))?) are:?$`)

// headerCases are hand-picked section lines and near misses: case, plurals, the colon, names
// with spaces and quotes, several leading words, case folding's long s (ſ) and Kelvin sign (K).
var headerCases = []string{
	"Dynamic configs for broker 0 are:", "All configs for broker 1 are:", "Default configs for brokers in the cluster are:",
	"Dynamic configs for topic orders are:", "Dynamic configs for topic 'my orders' are", "DYNAMIC CONFIGS FOR TOPIC X ARE:",
	"configs for group g1 are:", "Static configs for client-metrics m are:", "configs for client-metricss are",
	"configs for brokers are:", "configs for broker are", "configs for broker  are", "configs for broker are are:",
	"configs for brokerss are", "configs for brokersss are", "configs for topics are", "configs for topicsx are",
	"configs for topic-x are", "configs for topic are::", "configs for topic x are: ", " configs for topic x are",
	"Dynamic  configs for topic x are", "Dyn4mic configs for topic x are", "configs for configs for topic x are",
	"configs for topic configs for topic y are", "a b c configs for topic t are", "configs for topic x\ny are",
	"configs for broker", "configs for ", "configs for broker 0 were:", "Dynamic config for broker 0 are:",
	"Dynamic conﬁgs for broker 0 are:", "Dynamic confiɡs for broker 0 are:", "Dynamic configſ for broker 0 are:",
	"Dynamic configs for broKer 0 are:", "Dynamic configs for brokerſ are:", "Dynamic configs for brokerſs are:",
	"Dynamic configs for topicſ x are:", "ſtatic configs for topic x are:", "Dynamic configs for topic \xff are:",
	"Dynamic configs for topic x ARE", "", "are:", "configs for group are:",
}

func TestDescribeHeaderMatchesTheRegexp(t *testing.T) {
	cases := append([]string(nil), headerCases...)
	r := rand.New(rand.NewPCG(5, 7))
	pick := func(p ...string) string { return p[r.IntN(len(p))] }
	for range 40000 {
		cases = append(cases, pick("", "", "Dynamic ", "All ", "a b ", "Dyn4 ", " ", "ſ ", "configs for ")+
			pick("configs for ", "configs for ", "CONFIGS FOR ", "configſ for ", "config for ", "configs  for ")+
			pick("broker", "brokers", "topic", "Topic", "client-metrics", "group", "broKer", "brokerſ", "topicx", "")+
			pick("", "", "s", "ss", "ſ", "S")+
			pick("", " 0", " x y", " 'orders'", "  ", " \n", " are", "-x")+
			pick(" are:", " are", " ARE:", " are::", "are", " were", ""))
	}
	matched := 0
	for _, c := range cases {
		kind, name, ok := describeHeader(c)
		m := describeHeaderRE.FindStringSubmatch(c)
		require.Equal(t, m != nil, ok, "%q", c)
		if ok {
			matched++
			require.Equal(t, m[1], kind, "%q", c)
			require.Equal(t, m[2], name, "%q", c)
		}
	}
	require.Greater(t, matched, len(cases)/100, "too few cases match: the test could not tell a reader that always says yes")
	require.Less(t, matched, len(cases)-len(cases)/100, "too few cases miss")
}

// In a paste, a header starts a section: a topic's configs are ignored, naming the topic
// without its quotes; a broker's are used; a near miss is no header but a bad line.
func TestDescribeHeaderSections(t *testing.T) {
	p := ParseProperties("Dynamic configs for topic 'my orders' are:\n  min.insync.replicas=2 sensitive=false synonyms={}\n" +
		"DEFAULT CONFIGS FOR BROKERS IN THE CLUSTER ARE\n  min.insync.replicas=2 sensitive=false synonyms={}\n" +
		"Dynamic configs for topicsx y are:\n")
	lines := byLine(p)
	assert.Equal(t, Header, lines[1].Status)
	assert.Equal(t, Ignored, lines[2].Status)
	assert.Contains(t, lines[2].Reason, "a config of topic my orders:")
	assert.Equal(t, Header, lines[3].Status)
	assert.Equal(t, Used, lines[4].Status)
	assert.Equal(t, Invalid, lines[5].Status)
	assert.True(t, strings.HasPrefix(lines[5].Text, "Dynamic configs for topicsx"))
}
