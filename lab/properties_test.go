package lab

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// byLine indexes a parse's lines by their first physical line number.
func byLine(p *Properties) map[int]PropertyLine {
	out := map[int]PropertyLine{}
	for _, l := range p.Lines {
		out[l.Line] = l
	}
	return out
}

func TestParseServerProperties(t *testing.T) {
	text := "# KRaft broker\n" +
		"! also a comment\n" +
		"\n" +
		"process.roles=broker\n" + // 4: Kafka's, not modelled
		"leader.imbalance.election.algorithm = wait-for-sync\n" + // 5: used, spaces around =
		"leader.imbalance.election.max.per.run: 200\n" + // 6: used, ':' separator
		"leader.imbalance.election.wait.for.sync.threshold.percent=105\n" + // 7: out of range
		"leader.imbalance.election.throttle.interval.ms=\\\n" + // 8: continued on 9
		"    15000\n" +
		"log.dirs /var/lib/kafka\n" + // 10: not name=value
		"leader.imbalance.elektion.algorithm=immediate\n" + // 11: unknown, with a suggestion
		"follower.replication.throttled.rate=50000000\n" + // 12: a broker setting under Kafka's name
		"follower.replication.throttled.replicas=*\n" + // 13: the model's all-replicas switch
		"num.replica.fetchers=0\n" + // 14: out of the scenario's range
		"leader.imbalance.per.broker.percentage=10\n" + // 15: ZooKeeper only
		"leader.imbalance.election.max.per.run=300\n" + // 16: overrides line 6
		"ssl.keystore.location=/etc/kafka/ks.jks\n" + // 17: a prefix of unmodelled configs
		"just-a-word\n" // 18
	p := ParseProperties(text)
	lines := byLine(p)

	assert.Equal(t, []Override{
		{"leader.imbalance.election.algorithm", "wait-for-sync"},
		{"leader.imbalance.election.throttle.interval.ms", "15000"},
		{"follower.replication.throttled.rate", "50000000"},
		{"broker.throttle_all_replicas", "true"},
		{"leader.imbalance.election.max.per.run", "300"},
	}, p.Overrides)

	assert.Equal(t, Ignored, lines[4].Status)
	assert.Contains(t, lines[4].Reason, "not modelled")
	assert.Equal(t, Ignored, lines[6].Status)
	assert.Equal(t, "overridden by line 16", lines[6].Reason)
	assert.Equal(t, Invalid, lines[7].Status)
	assert.Equal(t, "Invalid value 105 for configuration leader.imbalance.election.wait.for.sync.threshold.percent: Value must be no more than 100", lines[7].Reason)
	assert.Equal(t, Used, lines[8].Status, "a continuation joins line 9 and reports line 8")
	assert.Equal(t, "15000", lines[8].Value)
	assert.Equal(t, Invalid, lines[10].Status)
	assert.Contains(t, lines[10].Reason, "not name=value")
	assert.Equal(t, Invalid, lines[11].Status)
	assert.Contains(t, lines[11].Reason, `Unknown configuration "leader.imbalance.elektion.algorithm"`)
	assert.Contains(t, lines[11].Reason, "leader.imbalance.election.algorithm", "the closest known name is suggested")
	assert.Equal(t, Invalid, lines[14].Status)
	assert.Contains(t, lines[14].Reason, "must be an integer from 1 to 64")
	assert.Contains(t, lines[15].Reason, "ZooKeeper mode only")
	assert.Equal(t, Ignored, lines[17].Status)
	assert.Equal(t, Invalid, lines[18].Status)
	_, hasComment := lines[1]
	assert.False(t, hasComment, "comments are skipped")

	// Every non-comment line is accounted for: used, or listed as a problem.
	assert.Len(t, p.Lines, 14)
	assert.Len(t, p.Problems(), 14-5)
}

func TestParseKafkaConfigsDescribe(t *testing.T) {
	text := `Dynamic configs for broker 0 are:
  leader.replication.throttled.rate=100000000 sensitive=false synonyms={DYNAMIC_BROKER_CONFIG:leader.replication.throttled.rate=100000000}
  ssl.keystore.password=null sensitive=true synonyms={DYNAMIC_BROKER_CONFIG:ssl.keystore.password=null}
  log.cleaner.threads=2 sensitive=false synonyms={DYNAMIC_BROKER_CONFIG:log.cleaner.threads=2, DEFAULT_CONFIG:log.cleaner.threads=1}
  some.future.kafka.config=1 sensitive=false synonyms={DEFAULT_CONFIG:some.future.kafka.config=1}
Default configs for brokers in the cluster are:
  leader.imbalance.election.algorithm=wait-for-sync sensitive=false synonyms={DYNAMIC_DEFAULT_BROKER_CONFIG:leader.imbalance.election.algorithm=wait-for-sync}
  leader.imbalance.election.max.per.run=-5 sensitive=false synonyms={}
Dynamic configs for topic orders are:
  min.insync.replicas=2 sensitive=false synonyms={DYNAMIC_TOPIC_CONFIG:min.insync.replicas=2}
`
	p := ParseProperties(text)
	lines := byLine(p)
	assert.Equal(t, []Override{
		{"leader.replication.throttled.rate", "100000000"},
		{"leader.imbalance.election.algorithm", "wait-for-sync"},
	}, p.Overrides)
	assert.Equal(t, Header, lines[1].Status)
	assert.Equal(t, Ignored, lines[3].Status)
	assert.Contains(t, lines[3].Reason, "sensitive")
	assert.Equal(t, Ignored, lines[4].Status)
	assert.Equal(t, Ignored, lines[5].Status, "a name kafka-configs.sh printed is Kafka's, so not modelled rather than unknown")
	assert.Contains(t, lines[5].Reason, "not modelled")
	assert.Equal(t, Header, lines[6].Status)
	assert.Equal(t, Invalid, lines[8].Status)
	assert.Contains(t, lines[8].Reason, "Value must be at least 1")
	assert.Equal(t, Header, lines[9].Status)
	assert.Equal(t, Ignored, lines[10].Status)
	assert.Contains(t, lines[10].Reason, "topic orders")
}

// What a parse yields applies to a scenario as it is.
func TestPropertiesApplyToAScenario(t *testing.T) {
	p := ParseProperties("leader.imbalance.election.algorithm=wait-for-sync\nfollower.replication.throttled.rate=150000000\nfollower.replication.throttled.replicas=*\nacks=1\n")
	require.Len(t, p.Problems(), 0)
	doc, err := ApplyOverrides(smallDoc(t, nil), p.Overrides)
	require.NoError(t, err)
	r, err := NewRunner(doc)
	require.NoError(t, err)
	assert.Equal(t, 150e6, r.cs.Spec.Broker.FollowerThrottleBytesPerSec)
	assert.True(t, r.cs.Spec.Broker.ThrottleAllReplicas)
	assert.Equal(t, "1", r.cs.Spec.Broker.Acks.String())
	v, _ := r.cs.Spec.Static.Get("leader.imbalance.election.algorithm")
	assert.Equal(t, "wait-for-sync", v)
}

func TestPropertiesEscapes(t *testing.T) {
	p := ParseProperties(`kraftlab.gate.denominator=pre\u0066erred` + "\n" + `leader.imbalance.election.algorithm=wait-for-sync\\` + "\n")
	lines := byLine(p)
	assert.Equal(t, Used, lines[1].Status)
	assert.Equal(t, "preferred", lines[1].Value)
	// An even number of trailing backslashes is an escaped backslash, not a continuation.
	assert.Equal(t, Invalid, lines[2].Status)
	assert.Contains(t, lines[2].Reason, `"wait-for-sync\\"`)
}

// No paste makes the parser panic, and every line it keeps has a status.
func FuzzParseProperties(f *testing.F) {
	for _, seed := range []string{"a=b\n", "x\\", "\\u12", "  n=v sensitive=true synonyms={}", "Dynamic configs for topic t are:\n min.insync.replicas=2 sensitive=false", "k:\\\n\\\n", "=", ": v"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, text string) {
		p := ParseProperties(text)
		for _, l := range p.Lines {
			assert.NotEmpty(t, l.Status)
			if l.Status == Invalid {
				assert.NotEmpty(t, l.Reason)
			}
		}
	})
}
