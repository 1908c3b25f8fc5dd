package lab

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/kraftlab/kraftlab/cluster/scenario"
	"github.com/kraftlab/kraftlab/engine/config"
)

// LineStatus is what became of one line of pasted properties.
type LineStatus string

// The statuses. Every line but blanks and comments gets one, so nothing is dropped silently.
const (
	// Used: the line became an override.
	Used LineStatus = "used"
	// Ignored: a Kafka config the model does not use, a sensitive value kafka-configs.sh hid,
	// a topic-level config, or a line a later one overrides. Reason says which.
	Ignored LineStatus = "ignored"
	// Invalid: not name=value, an unknown config, or a value out of range. Reason says why,
	// with the engine's ConfigError text for a value.
	Invalid LineStatus = "invalid"
	// Header: a kafka-configs.sh section line ("Dynamic configs for broker 0 are:").
	Header LineStatus = "header"
)

// PropertyLine is one logical line (continuations joined) and its fate.
type PropertyLine struct {
	// Line is the 1-based number of its first physical line.
	Line   int        `json:"line"`
	Text   string     `json:"text"`
	Name   string     `json:"name,omitempty"`
	Value  string     `json:"value,omitempty"`
	Status LineStatus `json:"status" ts:"PropertyStatus"`
	Reason string     `json:"reason,omitempty"`
}

// Properties is a parsed paste: the overrides it yields, in order, and every line's fate.
type Properties struct {
	Overrides []Override     `json:"overrides"`
	Lines     []PropertyLine `json:"lines"`
}

// Problems returns the lines that did not become an override, headers aside: what a form
// lists next to the paste.
func (p *Properties) Problems() []PropertyLine {
	var out []PropertyLine
	for _, l := range p.Lines {
		if l.Status == Invalid || l.Status == Ignored {
			out = append(out, l)
		}
	}
	return out
}

// describeHeader reads kafka-configs.sh --describe's section lines: "Dynamic configs for
// broker 0 are:", "All configs for broker 1 are:", "Default configs for brokers in the
// cluster are:", "Dynamic configs for topic orders are:". It returns the entity kind as
// written (broker, brokers, topic, client-metrics or group; a plural s is not part of it) and
// the entity's name ("" when none is given). The grammar, case-insensitive:
//
//	(WORD " ")* "configs for " KIND ["s"] [" " NAME] " are" [":"]
//
// where WORD is letters only and NAME is anything up to the closing " are". It is written out
// by hand rather than as a regexp because package regexp and its Unicode tables would add
// 80 KB (brotli) to the lab page's wasm; properties_match_test.go checks it against the
// regexp it replaces, whose choices it keeps: when "configs for " could start after several
// leading words, the latest start that gives a header wins.
func describeHeader(text string) (kind, name string, ok bool) {
	// The places "configs for " may start: after each letters-only word and its single space.
	starts := []int{0}
	for i := 0; ; {
		j := i
		for j < len(text) {
			r, size := utf8.DecodeRuneInString(text[j:])
			if !foldsToASCIILetter(r) {
				break
			}
			j += size
		}
		if j == i || j == len(text) || text[j] != ' ' {
			break
		}
		i = j + 1
		starts = append(starts, i)
	}
	for k := len(starts) - 1; k >= 0; k-- {
		if kind, name, ok := describeHeaderRest(text[starts[k]:]); ok {
			return kind, name, true
		}
	}
	return "", "", false
}

// describeKinds are the entities kafka-configs.sh describes, in the order they are tried
// (broker before brokers, so that "brokers" reads as broker plus a plural s).
var describeKinds = []string{"broker", "brokers", "topic", "client-metrics", "group"}

// describeHeaderRest reads a section line from "configs for " on.
func describeHeaderRest(s string) (kind, name string, ok bool) {
	n, ok := foldPrefix(s, "configs for ")
	if !ok {
		return "", "", false
	}
	s = s[n:]
	sp := strings.IndexByte(s, ' ')
	if sp < 0 {
		return "", "", false
	}
	word, rest := s[:sp], s[sp:]
	for _, k := range describeKinds {
		if n, ok := foldPrefix(word, k); ok {
			if plural := word[n:]; plural == "" || strings.EqualFold(plural, "s") {
				kind = word[:n]
				break
			}
		}
	}
	// The regexp's \b after the kind: a long s (ſ) is a plural s to the case folding but not
	// an ASCII word character, so "brokerſ are" was no header.
	if kind == "" || word[len(word)-1] >= utf8.RuneSelf {
		return "", "", false
	}
	tail := " are"
	if strings.HasSuffix(rest, ":") {
		tail = " are:"
	}
	if len(rest) < len(tail) || !strings.EqualFold(rest[len(rest)-len(tail):], tail) {
		return "", "", false
	}
	switch {
	case len(rest) == len(tail):
		return kind, "", true
	case len(rest) == len(tail)+1:
		return "", "", false // " " + an empty name + " are"
	}
	// The name runs from after the kind's space to the closing " are"; as the regexp's ".", it
	// never spans a line.
	if name = rest[1 : len(rest)-len(tail)]; strings.IndexByte(name, '\n') >= 0 {
		return "", "", false
	}
	return kind, name, true
}

// ParseProperties reads a server.properties file or the output of `kafka-configs.sh
// --describe` (the two may be mixed). The rules:
//   - as java.util.Properties: blank lines, and comments starting with # or !, are skipped; a
//     line ending in an odd number of backslashes continues on the next, whose leading
//     whitespace is dropped; the key ends at the first unescaped '=', ':' or whitespace, and
//     whitespace around the separator is dropped; \t, \n, \\, \=, \:, \uXXXX are unescaped;
//   - unlike java.util.Properties, a line with no '=' or ':' ("log.dirs /data", a stray word)
//     is refused as not name=value: in a paste it is a mistake more often than a key;
//   - a kafka-configs.sh line ("  name=value sensitive=false synonyms={...}") gives name and
//     value; sensitive=true values are hidden by the tool and ignored; a topic section's configs
//     are ignored (the lab sets cluster-level configs; a topic's belong in the description);
//   - a later line for the same name wins; the earlier one is ignored, naming it.
//
// A name becomes an override when the model uses it: an engine config (validated with the
// engine's ConfigError text), or a broker or producer setting under Kafka's name (validated as
// the scenario format does). A Kafka config the model does not use is ignored as "not
// modelled"; any other name is invalid ("unknown config", with the closest known name).
func ParseProperties(text string) *Properties {
	p := &Properties{}
	last := map[string]int{} // name → index in p.Lines of its latest used line
	section := ""            // "topic NAME" inside a topic section of kafka-configs.sh output
	physical := strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n")
	for i := 0; i < len(physical); i++ {
		start := i + 1
		line := strings.TrimLeft(physical[i], " \t\f")
		if line == "" || line[0] == '#' || line[0] == '!' {
			continue
		}
		// Continuation: an odd number of trailing backslashes joins the next line.
		for trailingBackslashes(line)%2 == 1 && i+1 < len(physical) {
			i++
			line = line[:len(line)-1] + strings.TrimLeft(physical[i], " \t\f")
		}
		pl := PropertyLine{Line: start, Text: strings.TrimSpace(line)}
		if kind, entity, ok := describeHeader(pl.Text); ok {
			pl.Status = Header
			section = ""
			if strings.EqualFold(kind, "topic") {
				section = "topic " + strings.Trim(entity, "'\"")
			}
			p.Lines = append(p.Lines, pl)
			continue
		}
		describeLine := strings.Contains(pl.Text, " sensitive=")
		name, value, err := splitProperty(pl.Text, describeLine)
		pl.Name, pl.Value = name, value
		switch {
		case err != nil:
			pl.Status, pl.Reason = Invalid, err.Error()
		case describeLine && strings.Contains(pl.Text, " sensitive=true"):
			pl.Status, pl.Reason = Ignored, "a sensitive value, hidden by kafka-configs.sh"
		case section != "":
			pl.Status, pl.Reason = Ignored, fmt.Sprintf("a config of %s: the lab sets cluster-level configs; give a topic's in the description", section)
		default:
			pl.Status, pl.Reason = classify(name, value, describeLine, start)
		}
		if pl.Status == Used {
			if j, ok := last[name]; ok {
				p.Lines[j].Status = Ignored
				p.Lines[j].Reason = fmt.Sprintf("overridden by line %d", start)
			}
			last[name] = len(p.Lines)
		}
		p.Lines = append(p.Lines, pl)
	}
	for _, l := range p.Lines {
		if l.Status == Used {
			p.Overrides = append(p.Overrides, propertyOverride(l.Name, l.Value))
		}
	}
	return p
}

// propertyOverride turns a used line into an override; a throttled-replicas list becomes the
// model's all-or-nothing switch.
func propertyOverride(name, value string) Override {
	if name == "leader.replication.throttled.replicas" || name == "follower.replication.throttled.replicas" {
		return Override{Name: "broker.throttle_all_replicas", Value: strconv.FormatBool(value == "*")}
	}
	return Override{Name: name, Value: value}
}

func trailingBackslashes(s string) int {
	n := 0
	for n < len(s) && s[len(s)-1-n] == '\\' {
		n++
	}
	return n
}

// splitProperty splits a logical line into name and value.
func splitProperty(line string, describeLine bool) (string, string, error) {
	if describeLine {
		// "name=value sensitive=false synonyms={...}": the value runs to " sensitive=".
		nv := line[:strings.Index(line, " sensitive=")]
		name, value, ok := strings.Cut(nv, "=")
		if !ok || strings.TrimSpace(name) == "" {
			return "", "", fmt.Errorf("not name=value: a kafka-configs.sh line starts with name=value")
		}
		return strings.TrimSpace(name), strings.TrimSpace(value), nil
	}
	var key strings.Builder
	rs := []rune(line)
	i := 0
	for ; i < len(rs); i++ {
		r := rs[i]
		if r == '\\' && i+1 < len(rs) {
			i++
			key.WriteRune(unescape(rs, &i))
			continue
		}
		if r == '=' || r == ':' || r == ' ' || r == '\t' || r == '\f' {
			break
		}
		key.WriteRune(r)
	}
	for i < len(rs) && (rs[i] == ' ' || rs[i] == '\t' || rs[i] == '\f') {
		i++
	}
	if i >= len(rs) || (rs[i] != '=' && rs[i] != ':') {
		return key.String(), "", fmt.Errorf("not name=value (want a line such as leader.imbalance.election.max.per.run=200)")
	}
	i++
	var value strings.Builder
	for ; i < len(rs); i++ {
		if rs[i] == '\\' && i+1 < len(rs) {
			i++
			value.WriteRune(unescape(rs, &i))
			continue
		}
		value.WriteRune(rs[i])
	}
	if key.Len() == 0 {
		return "", "", fmt.Errorf("not name=value: the name is empty")
	}
	return key.String(), strings.TrimSpace(value.String()), nil
}

// unescape reads the escape whose letter is rs[*i] (the backslash already consumed), leaving
// *i on its last rune.
func unescape(rs []rune, i *int) rune {
	switch rs[*i] {
	case 't':
		return '\t'
	case 'n':
		return '\n'
	case 'r':
		return '\r'
	case 'f':
		return '\f'
	case 'u':
		if *i+4 < len(rs) {
			if n, err := strconv.ParseUint(string(rs[*i+1:*i+5]), 16, 32); err == nil {
				*i += 4
				return rune(n)
			}
		}
	}
	return rs[*i]
}

// classify decides a name=value line's fate.
func classify(name, value string, fromDescribe bool, line int) (LineStatus, string) {
	if def, ok := config.Lookup(name); ok {
		if _, err := parseConfig(def, value); err != nil {
			return Invalid, err.Error()
		}
		return Used, ""
	}
	if _, ok := aliasOf(name); ok {
		if _, err := scenario.ParseSetting(fmt.Sprintf("line %d", line), name+"="+value); err != nil {
			if se := (*scenario.Error)(nil); errors.As(err, &se) {
				return Invalid, se.Msg
			}
			return Invalid, err.Error()
		}
		return Used, ""
	}
	switch name {
	case "leader.replication.throttled.replicas", "follower.replication.throttled.replicas":
		if value == "*" || value == "" {
			return Used, ""
		}
		return Ignored, `not modelled: the model throttles all replicas ("*") or none, not a list`
	}
	if reason, ok := notModelled(name); ok {
		return Ignored, "not modelled: " + reason
	}
	if fromDescribe {
		// kafka-configs.sh printed it, so it is Kafka's.
		return Ignored, "not modelled: a Kafka config the model does not use"
	}
	return Invalid, config.UnknownError(name).Error()
}

// Kafka configs the model does not use, by name and by prefix. Listing them tells a pasted
// server.properties apart from a typo: a name in neither list, nor the model's, is unknown.
var (
	unmodelledNames = map[string]string{
		"leader.imbalance.per.broker.percentage": "ZooKeeper mode only; KRaft rebalances any imbalance (KAFKA-18743)",
	}
	unmodelledList = strings.Fields(`process.roles node.id broker.id controller.quorum.voters controller.quorum.bootstrap.servers
		controller.listener.names listeners advertised.listeners listener.security.protocol.map inter.broker.listener.name
		inter.broker.protocol.version log.dirs log.dir metadata.log.dir num.partitions default.replication.factor
		auto.create.topics.enable delete.topic.enable compression.type message.max.bytes log.retention.hours
		log.retention.minutes log.retention.ms log.retention.bytes log.roll.hours log.roll.ms
		log.retention.check.interval.ms log.flush.interval.messages log.flush.interval.ms log.message.timestamp.type
		socket.send.buffer.bytes socket.receive.buffer.bytes socket.request.max.bytes socket.listen.backlog.size
		queued.max.requests queued.max.request.bytes num.replica.alter.log.dirs.threads replica.fetch.wait.max.ms
		replica.fetch.min.bytes replica.fetch.backoff.ms replica.socket.timeout.ms replica.socket.receive.buffer.bytes
		replica.high.watermark.checkpoint.interval.ms replica.selector.class broker.rack authorizer.class.name super.users
		allow.everyone.if.no.acl.found background.threads max.connections max.connections.per.ip
		max.incremental.fetch.session.cache.slots fetch.max.bytes request.timeout.ms.config connections.max.idle.ms
		metric.reporters metrics.num.samples metrics.recording.level metrics.sample.window.ms auto.include.jmx.reporter
		unstable.api.versions.enable unstable.feature.versions.enable min.insync.replicas.per.topic
		eligible.leader.replicas.enable cleanup.policy retention.ms retention.bytes segment.bytes segment.ms
		max.message.bytes message.timestamp.type initial.broker.registration.timeout.ms
		controlled.shutdown.enable controlled.shutdown.max.retries controlled.shutdown.retry.backoff.ms
		metadata.log.segment.bytes metadata.log.segment.ms metadata.max.retention.bytes metadata.max.retention.ms
		metadata.log.max.snapshot.interval.ms metadata.log.max.record.bytes.between.snapshots
		controller.quorum.election.timeout.ms controller.quorum.fetch.timeout.ms controller.quorum.election.backoff.max.ms
		controller.quorum.request.timeout.ms controller.quorum.retry.backoff.ms controller.quorum.append.linger.ms
		controller.socket.timeout.ms zookeeper.connect zookeeper.connection.timeout.ms zookeeper.session.timeout.ms
		group.initial.rebalance.delay.ms`)
	unmodelledPrefixes = []string{"ssl.", "sasl.", "listener.name.", "security.", "log.cleaner.", "log.local.", "remote.log.",
		"transaction.", "transactional.", "offsets.", "group.", "share.", "quota.", "client.quota.", "confluent.", "kafka.metrics.",
		"zookeeper.", "password.encoder.", "delegation.token.", "producer.id.", "sasl_", "principal.builder.", "connection.failed.",
		"create.topic.policy.", "alter.config.policy.", "log.message.", "log.preallocate", "log.index.", "num.", "telemetry.",
		"socket.connection.", "replica.alter.", "config.providers"}
)

func notModelled(name string) (string, bool) {
	if r, ok := unmodelledNames[name]; ok {
		return r, true
	}
	for _, n := range unmodelledList {
		if n == name {
			return "a Kafka config the model does not use", true
		}
	}
	for _, pre := range unmodelledPrefixes {
		if strings.HasPrefix(name, pre) {
			return "a Kafka config the model does not use", true
		}
	}
	return "", false
}

// foldsToASCIILetter says whether r is a letter of [A-Za-z] under Unicode case folding: the
// ASCII letters, the long s (ſ) and the Kelvin sign (K), as a case-insensitive regexp has it.
func foldsToASCIILetter(r rune) bool {
	return 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || r == '\u017f' || r == '\u212a'
}

// foldPrefix says whether s starts with prefix under Unicode simple case folding (as
// strings.EqualFold compares), and how many bytes of s that prefix takes: a folded rune need
// not have its partner's length (ſ is two bytes, s one).
func foldPrefix(s, prefix string) (int, bool) {
	n := 0
	for _, p := range prefix {
		if n == len(s) {
			return 0, false
		}
		r, size := utf8.DecodeRuneInString(s[n:])
		if !foldRune(r, p) {
			return 0, false
		}
		n += size
	}
	return n, true
}

// foldRune says whether a and b are the same rune under Unicode simple case folding.
func foldRune(a, b rune) bool {
	if a == b {
		return true
	}
	for r := unicode.SimpleFold(a); r != a; r = unicode.SimpleFold(r) {
		if r == b {
			return true
		}
	}
	return false
}
