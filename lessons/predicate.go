package lessons

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/kraftlab/kraftlab/cluster"
	"github.com/kraftlab/kraftlab/engine/metrics"
)

// Predicates lists the predicate vocabulary's first words, as errors and docs/lessons.md name
// them. Each is documented in docs/lessons.md.
func Predicates() []string {
	return []string{"acked_records_lost", "active_controller", "broker", "elections", "elr", "isr",
		"last_known_elr", "leader", "leader_epoch", "metric", "offline_partitions", "partition_epoch",
		"produce_p99", "records", "recovering", "runs", "snapshots", "step_time", "time",
		"unclean_elections", "under_replicated"}
}

// brokerStates are the one-word facts of `broker N STATE`.
var brokerStates = []string{"controlled_shutdown", "fenced", "gated", "not_running", "recovery", "registered",
	"running", "shutting_down", "starting", "stopped", "unfenced"}

// brokerCounts are the numeric facts of `broker N FIELD CMP K`, as BrokerSample names them.
var brokerCounts = []string{"epoch", "leaders", "out_of_sync", "out_of_sync_preferred", "preferred_led", "preferred_total"}

// Mark is where a step started: its time, the committed log's end and the balancer runs so far.
// Predicates that count (runs, elections, records, step_time) count from it.
type Mark struct {
	TimeMs int64
	Offset int64
	Runs   int
}

// MarkNow marks the cluster's present as a step start.
func MarkNow(c *cluster.Cluster) Mark {
	return Mark{TimeMs: c.Now(), Offset: c.Controllers().CommittedEnd(), Runs: len(c.BalancerRuns())}
}

// Expr is a parsed goal expression.
type Expr interface {
	// eval reports whether the expression holds now, counting from the step start m. When why
	// is not nil it also writes there a short explanation of the current value. A lesson's
	// waits poll their expressions every UntilPollMs of cluster time and need the truth
	// alone, which costs far less than its explanation's formatting.
	eval(c *cluster.Cluster, m Mark, why *strings.Builder) bool
	String() string
}

// Eval evaluates an expression against the cluster now, counting from the step start m. The
// explanation says what the current value is and what the goal asks, e.g.
// "leader of payments-0 is 1, goal == 2".
func Eval(e Expr, c *cluster.Cluster, m Mark) (bool, string) {
	var why strings.Builder
	ok := e.eval(c, m, &why)
	return ok, why.String()
}

// Holds reports whether an expression holds now, counting from the step start m, without
// its explanation.
func Holds(e Expr, c *cluster.Cluster, m Mark) bool { return e.eval(c, m, nil) }

// ParseExpr parses one goal expression. Errors name the word at fault and what was allowed.
func ParseExpr(src string) (Expr, error) {
	toks, err := tokenize(src)
	if err != nil {
		return nil, err
	}
	if len(toks) == 0 {
		return nil, fmt.Errorf("empty expression; write a predicate such as \"leader payments-0 == 2\"")
	}
	p := &exprParser{toks: toks}
	e, err := p.or()
	if err != nil {
		return nil, err
	}
	if !p.done() {
		return nil, fmt.Errorf("unexpected %q after %q; join predicates with \"and\" or \"or\"", p.peek(), e.String())
	}
	return e, nil
}

func tokenize(src string) ([]string, error) {
	var toks []string
	i := 0
	for i < len(src) {
		ch := src[i]
		switch {
		case ch == ' ' || ch == '\t':
			i++
		case strings.IndexByte("[](),", ch) >= 0:
			toks = append(toks, string(ch))
			i++
		case strings.IndexByte("=!<>", ch) >= 0:
			j := i + 1
			for j < len(src) && strings.IndexByte("=!<>", src[j]) >= 0 {
				j++
			}
			op := src[i:j]
			if !slices.Contains(comparators, op) {
				return nil, fmt.Errorf("unknown comparison %q (allowed: %s)", op, strings.Join(comparators, ", "))
			}
			toks = append(toks, op)
			i = j
		default:
			j := i
			for j < len(src) && strings.IndexByte(" \t[](),=!<>", src[j]) < 0 {
				j++
			}
			toks = append(toks, src[i:j])
			i = j
		}
	}
	return toks, nil
}

var comparators = []string{"==", "!=", "<", "<=", ">", ">="}

type exprParser struct {
	toks []string
	pos  int
}

func (p *exprParser) done() bool { return p.pos >= len(p.toks) }

func (p *exprParser) peek() string {
	if p.done() {
		return ""
	}
	return p.toks[p.pos]
}

func (p *exprParser) next(what string) (string, error) {
	if p.done() {
		return "", fmt.Errorf("expected %s, found the end of the expression", what)
	}
	p.pos++
	return p.toks[p.pos-1], nil
}

func (p *exprParser) or() (Expr, error) {
	l, err := p.and()
	for err == nil && p.peek() == "or" {
		p.pos++
		var r Expr
		if r, err = p.and(); err == nil {
			l = &binary{op: "or", l: l, r: r}
		}
	}
	return l, err
}

func (p *exprParser) and() (Expr, error) {
	l, err := p.unary()
	for err == nil && p.peek() == "and" {
		p.pos++
		var r Expr
		if r, err = p.unary(); err == nil {
			l = &binary{op: "and", l: l, r: r}
		}
	}
	return l, err
}

func (p *exprParser) unary() (Expr, error) {
	switch p.peek() {
	case "not":
		p.pos++
		e, err := p.unary()
		if err != nil {
			return nil, err
		}
		return &not{e}, nil
	case "(":
		p.pos++
		e, err := p.or()
		if err != nil {
			return nil, err
		}
		if t, _ := p.next(`")"`); t != ")" {
			return nil, fmt.Errorf(`expected ")" to close "(", found %q`, t)
		}
		return &paren{e}, nil
	}
	return p.atom()
}

// cmp reads a comparison and an integer.
func (p *exprParser) cmp(what string) (string, float64, error) {
	op, err := p.next("a comparison (" + strings.Join(comparators, ", ") + ")")
	if err != nil {
		return "", 0, err
	}
	if !slices.Contains(comparators, op) {
		return "", 0, fmt.Errorf("%s: expected a comparison (%s), found %q", what, strings.Join(comparators, ", "), op)
	}
	v, err := p.number(what)
	return op, v, err
}

func (p *exprParser) number(what string) (float64, error) {
	t, err := p.next("a number")
	if err != nil {
		return 0, err
	}
	if t == "none" {
		return -1, nil
	}
	v, err := strconv.ParseFloat(strings.ReplaceAll(t, "_", ""), 64)
	if err != nil {
		return 0, fmt.Errorf("%s: expected a number, found %q", what, t)
	}
	return v, nil
}

func (p *exprParser) brokerID(what string) (int32, error) {
	t, err := p.next("a broker id")
	if err != nil {
		return 0, err
	}
	v, err := strconv.ParseInt(t, 10, 32)
	if err != nil || v < 0 {
		return 0, fmt.Errorf("%s: expected a broker id, found %q", what, t)
	}
	return int32(v), nil
}

// partition reads TOPIC-N.
func (p *exprParser) partition(what string) (topicPartition, error) {
	t, err := p.next("a partition (topic-N)")
	if err != nil {
		return topicPartition{}, err
	}
	return parseTopicPartition(what, t)
}

func parseTopicPartition(what, t string) (topicPartition, error) {
	i := strings.LastIndexByte(t, '-')
	if i <= 0 {
		return topicPartition{}, fmt.Errorf("%s: expected a partition as topic-N (payments-0), found %q", what, t)
	}
	n, err := strconv.ParseInt(t[i+1:], 10, 32)
	if err != nil || n < 0 {
		return topicPartition{}, fmt.Errorf("%s: expected a partition as topic-N (payments-0), found %q", what, t)
	}
	return topicPartition{Topic: t[:i], Partition: int32(n)}, nil
}

// list reads [a, b, c] (commas optional).
func (p *exprParser) list(what string) ([]int32, error) {
	if t, _ := p.next(`"["`); t != "[" {
		return nil, fmt.Errorf(`%s: expected a list such as [2,0], found %q`, what, t)
	}
	out := []int32{}
	for {
		t, err := p.next(`"]"`)
		if err != nil {
			return nil, err
		}
		switch t {
		case "]":
			return out, nil
		case ",":
			continue
		}
		v, err := strconv.ParseInt(t, 10, 32)
		if err != nil {
			return nil, fmt.Errorf("%s: expected a broker id in the list, found %q", what, t)
		}
		out = append(out, int32(v))
	}
}

type topicPartition struct {
	Topic     string
	Partition int32
}

func (tp topicPartition) String() string { return fmt.Sprintf("%s-%d", tp.Topic, tp.Partition) }

func (p *exprParser) atom() (Expr, error) {
	word, err := p.next("a predicate")
	if err != nil {
		return nil, err
	}
	switch word {
	case "leader", "leader_epoch", "partition_epoch":
		tp, err := p.partition(word)
		if err != nil {
			return nil, err
		}
		op, v, err := p.cmp(word)
		return &partitionNum{field: word, tp: tp, op: op, v: v}, err
	case "isr", "elr", "last_known_elr":
		tp, err := p.partition(word)
		if err != nil {
			return nil, err
		}
		a := &partitionSet{field: word, tp: tp}
		switch t, _ := p.next(`"==" or "contains"`); t {
		case "==", "!=":
			a.op = t
			a.list, err = p.list(word)
		case "contains":
			a.op = t
			var b int32
			b, err = p.brokerID(word)
			a.list = []int32{b}
		case "size":
			a.op = t
			a.sizeOp, a.size, err = p.cmp(word + " size")
		default:
			err = fmt.Errorf(`%s: expected "== [..]", "!= [..]", "contains N" or "size CMP N", found %q`, word, t)
		}
		return a, err
	case "recovering":
		tp, err := p.partition(word)
		return &recovering{tp: tp}, err
	case "broker":
		id, err := p.brokerID(word)
		if err != nil {
			return nil, err
		}
		what, err := p.next("a broker state or count")
		if err != nil {
			return nil, err
		}
		if slices.Contains(brokerStates, what) {
			return &brokerState{id: id, state: what}, nil
		}
		if slices.Contains(brokerCounts, what) {
			op, v, err := p.cmp("broker " + what)
			return &brokerCount{id: id, field: what, op: op, v: v}, err
		}
		return nil, fmt.Errorf("broker: unknown fact %q (known states: %s; counts: %s)", what,
			strings.Join(brokerStates, ", "), strings.Join(brokerCounts, ", "))
	case "metric":
		name, err := p.next("a metric name")
		if err != nil {
			return nil, err
		}
		if !knownMetric(name) {
			return nil, fmt.Errorf("metric: unknown metric %q (known: %s)", name, strings.Join(metricNames(), ", "))
		}
		m := &metric{name: name, broker: -1}
		if p.peek() == "broker" {
			p.pos++
			if m.broker, err = p.brokerID("metric " + name + " broker"); err != nil {
				return nil, err
			}
		}
		m.op, m.v, err = p.cmp("metric " + name)
		return m, err
	case "runs":
		r := &runs{elected: -1}
		if p.peek() == "elected" {
			p.pos++
			if slices.Contains(comparators, p.peek()) {
				r.electedOp, r.elected, err = p.cmp("runs elected")
			} else {
				r.electedOp = "=="
				r.elected, err = p.number("runs elected")
			}
			if err != nil {
				return nil, err
			}
		}
		r.op, r.v, err = p.cmp("runs")
		return r, err
	case "records":
		typ, err := p.next("a record type")
		if err != nil {
			return nil, err
		}
		if !slices.Contains(recordTypes, typ) {
			return nil, fmt.Errorf("records: unknown record type %q (known: %s)", typ, strings.Join(recordTypes, ", "))
		}
		op, v, err := p.cmp("records " + typ)
		return &records{typ: typ, op: op, v: v}, err
	case "time", "step_time", "offline_partitions", "under_replicated", "elections", "active_controller",
		"snapshots", "acked_records_lost", "unclean_elections", "produce_p99":
		op, v, err := p.cmp(word)
		return &scalar{name: word, op: op, v: v}, err
	}
	return nil, fmt.Errorf("unknown predicate %q (known: %s)", word, strings.Join(Predicates(), ", "))
}

var recordTypes = []string{"BrokerRegistrationChangeRecord", "ClearElrRecord", "ConfigRecord", "FeatureLevelRecord",
	"LeaderChangeMessage", "NoOpRecord", "PartitionChangeRecord", "PartitionRecord", "RegisterBrokerRecord",
	"RemoveTopicRecord", "TopicRecord"}

func metricNames() []string {
	var out []string
	for _, m := range metrics.Catalogue() {
		out = append(out, m.Name)
	}
	slices.Sort(out)
	return out
}

func knownMetric(name string) bool { return slices.Contains(metricNames(), name) }

func compare(a float64, op string, b float64) bool {
	switch op {
	case "==":
		return a == b
	case "!=":
		return a != b
	case "<":
		return a < b
	case "<=":
		return a <= b
	case ">":
		return a > b
	case ">=":
		return a >= b
	}
	return false
}

// num writes a number without a trailing .0, rounded to three decimals (records lost and
// latencies are fractional; more digits would only be noise in an explanation).
func num(v float64) string { return strconv.FormatFloat(math.Round(v*1000)/1000, 'f', -1, 64) }

func leaderText(v float64) string {
	if v < 0 {
		return "none"
	}
	return num(v)
}

func listText(l []int32) string {
	parts := make([]string, len(l))
	for i, v := range l {
		parts[i] = strconv.Itoa(int(v))
	}
	return "[" + strings.Join(parts, ",") + "]"
}

type binary struct {
	op   string
	l, r Expr
}

func (b *binary) String() string { return b.l.String() + " " + b.op + " " + b.r.String() }

func (b *binary) eval(c *cluster.Cluster, m Mark, why *strings.Builder) bool {
	lv := b.l.eval(c, m, why)
	if why == nil {
		// Without an explanation to write, the right side matters only when the left does
		// not decide.
		if b.op == "and" {
			return lv && b.r.eval(c, m, nil)
		}
		return lv || b.r.eval(c, m, nil)
	}
	why.WriteString("; ")
	rv := b.r.eval(c, m, why)
	if b.op == "and" {
		return lv && rv
	}
	return lv || rv
}

type not struct{ e Expr }

func (n *not) String() string { return "not " + n.e.String() }

func (n *not) eval(c *cluster.Cluster, m Mark, why *strings.Builder) bool {
	if why == nil {
		return !n.e.eval(c, m, nil)
	}
	why.WriteString("not (")
	v := n.e.eval(c, m, why)
	why.WriteString(")")
	return !v
}

type paren struct{ e Expr }

func (p *paren) String() string { return "(" + p.e.String() + ")" }
func (p *paren) eval(c *cluster.Cluster, m Mark, why *strings.Builder) bool {
	return p.e.eval(c, m, why)
}

type partitionNum struct {
	field string
	tp    topicPartition
	op    string
	v     float64
}

func (a *partitionNum) String() string {
	return fmt.Sprintf("%s %s %s %s", a.field, a.tp, a.op, num(a.v))
}

func (a *partitionNum) eval(c *cluster.Cluster, _ Mark, why *strings.Builder) bool {
	p, ok := c.PartitionNow(a.tp.Topic, a.tp.Partition)
	if !ok {
		if why != nil {
			fmt.Fprintf(why, "%s does not exist", a.tp)
		}
		return false
	}
	var got float64
	switch a.field {
	case "leader":
		got = float64(p.Leader)
		if why != nil {
			fmt.Fprintf(why, "leader of %s is %s, goal %s %s", a.tp, leaderText(got), a.op, leaderText(a.v))
		}
		return compare(got, a.op, a.v)
	case "leader_epoch":
		got = float64(p.LeaderEpoch)
	default:
		got = float64(p.PartitionEpoch)
	}
	if why != nil {
		fmt.Fprintf(why, "%s of %s is %s, goal %s %s", strings.ReplaceAll(a.field, "_", " "), a.tp, num(got), a.op, num(a.v))
	}
	return compare(got, a.op, a.v)
}

type partitionSet struct {
	field  string
	tp     topicPartition
	op     string // ==, !=, contains, size
	list   []int32
	sizeOp string
	size   float64
}

func (a *partitionSet) String() string {
	switch a.op {
	case "contains":
		return fmt.Sprintf("%s %s contains %d", a.field, a.tp, a.list[0])
	case "size":
		return fmt.Sprintf("%s %s size %s %s", a.field, a.tp, a.sizeOp, num(a.size))
	}
	return fmt.Sprintf("%s %s %s %s", a.field, a.tp, a.op, listText(a.list))
}

func (a *partitionSet) eval(c *cluster.Cluster, _ Mark, why *strings.Builder) bool {
	p, ok := c.PartitionNow(a.tp.Topic, a.tp.Partition)
	if !ok {
		if why != nil {
			fmt.Fprintf(why, "%s does not exist", a.tp)
		}
		return false
	}
	got := p.Isr
	name := "ISR"
	switch a.field {
	case "elr":
		got, name = p.Elr, "ELR"
	case "last_known_elr":
		got, name = p.LastKnownElr, "LastKnownElr"
	}
	if why != nil {
		fmt.Fprintf(why, "%s of %s is %s, goal", name, a.tp, listText(got))
		switch a.op {
		case "contains":
			fmt.Fprintf(why, ": contains %d", a.list[0])
		case "size":
			fmt.Fprintf(why, ": size %s %s", a.sizeOp, num(a.size))
		case "!=":
			fmt.Fprintf(why, " != %s", listText(a.list))
		default:
			fmt.Fprintf(why, " %s", listText(a.list))
		}
	}
	switch a.op {
	case "contains":
		return slices.Contains(got, a.list[0])
	case "size":
		return compare(float64(len(got)), a.sizeOp, a.size)
	case "!=":
		return !slices.Equal(got, a.list)
	}
	// Kafka keeps the ISR in its own order (the leader's proposal), which the lesson quotes.
	return slices.Equal(got, a.list)
}

type recovering struct{ tp topicPartition }

func (a *recovering) String() string { return "recovering " + a.tp.String() }

func (a *recovering) eval(c *cluster.Cluster, _ Mark, why *strings.Builder) bool {
	p, ok := c.PartitionNow(a.tp.Topic, a.tp.Partition)
	switch {
	case why == nil:
	case !ok:
		fmt.Fprintf(why, "%s does not exist", a.tp)
	case p.Recovering:
		fmt.Fprintf(why, "%s is RECOVERING (an unclean election made its leader)", a.tp)
	default:
		fmt.Fprintf(why, "%s is RECOVERED", a.tp)
	}
	return ok && p.Recovering
}

type brokerState struct {
	id    int32
	state string
}

func (a *brokerState) String() string { return fmt.Sprintf("broker %d %s", a.id, a.state) }

func (a *brokerState) eval(c *cluster.Cluster, _ Mark, why *strings.Builder) bool {
	b, ok := c.BrokerNow(a.id)
	if !ok {
		if why != nil {
			fmt.Fprintf(why, "broker %d does not exist", a.id)
		}
		return false
	}
	var holds bool
	switch a.state {
	case "fenced":
		holds = b.Registered && b.Fenced
	case "unfenced":
		holds = b.Registered && !b.Fenced
	case "registered":
		holds = b.Registered
	case "controlled_shutdown":
		holds = b.InControlledShutdown
	case "gated":
		holds = b.Gated
	case "stopped", "not_running":
		holds = b.State == "not_running"
	default:
		holds = b.State == a.state
	}
	if why == nil {
		return holds
	}
	reg := "unfenced"
	switch {
	case !b.Registered:
		reg = "not registered"
	case b.Fenced:
		reg = "fenced"
	}
	gate := ""
	if b.Gated {
		gate = ", gated"
	}
	fmt.Fprintf(why, "broker %d is %s and %s%s, goal %s", a.id, stateWords(b.State), reg, gate, stateWords(a.state))
	return holds
}

// stateWords says a broker state (the process's, cluster.BrokerNow's State, or a goal's) as
// the page does: the learner reads "stopped", not the enum spelling "not_running".
func stateWords(state string) string {
	switch state {
	case "not_running":
		return "stopped"
	case "recovery":
		return "recovering its log"
	case "shutting_down":
		return "shutting down"
	case "pending_controlled_shutdown", "controlled_shutdown":
		return "in controlled shutdown"
	}
	return state
}

type brokerCount struct {
	id    int32
	field string
	op    string
	v     float64
}

func (a *brokerCount) String() string {
	return fmt.Sprintf("broker %d %s %s %s", a.id, a.field, a.op, num(a.v))
}

func (a *brokerCount) eval(c *cluster.Cluster, _ Mark, why *strings.Builder) bool {
	b, ok := c.BrokerNow(a.id)
	if !ok {
		if why != nil {
			fmt.Fprintf(why, "broker %d does not exist", a.id)
		}
		return false
	}
	var got float64
	switch a.field {
	case "leaders":
		got = float64(b.Leaders)
	case "preferred_led":
		got = float64(b.PreferredLed)
	case "preferred_total":
		got = float64(b.PreferredTotal)
	case "out_of_sync":
		got = float64(b.OutOfSync)
	case "out_of_sync_preferred":
		got = float64(b.OutOfSyncPreferred)
	case "epoch":
		got = float64(b.Epoch)
	}
	if why != nil {
		fmt.Fprintf(why, "broker %d %s is %s, goal %s %s", a.id, strings.ReplaceAll(a.field, "_", " "), num(got), a.op, num(a.v))
	}
	return compare(got, a.op, a.v)
}

type metric struct {
	name   string
	broker int32 // for a per-broker gauge; -1 otherwise
	op     string
	v      float64
}

func (a *metric) String() string {
	if a.broker >= 0 {
		return fmt.Sprintf("metric %s broker %d %s %s", a.name, a.broker, a.op, num(a.v))
	}
	return fmt.Sprintf("metric %s %s %s", a.name, a.op, num(a.v))
}

func (a *metric) eval(c *cluster.Cluster, _ Mark, why *strings.Builder) bool {
	ms := c.Metrics()
	if ms == nil {
		if why != nil {
			why.WriteString("no controller is active: no metrics")
		}
		return false
	}
	var got float64
	switch v := ms[a.name].(type) {
	case int:
		got = float64(v)
	case int64:
		got = float64(v)
	case float64:
		got = v
	case map[string]int:
		// A per-broker gauge: one broker's value, or (without "broker") the number of brokers
		// it reports, as JMX would list one MBean per broker.
		if a.broker >= 0 {
			got = float64(v[strconv.Itoa(int(a.broker))])
		} else {
			got = float64(len(v))
		}
	}
	if why != nil {
		why.WriteString(a.name)
		if a.broker >= 0 {
			fmt.Fprintf(why, ",broker=%d", a.broker)
		}
		fmt.Fprintf(why, " is %s, goal %s %s", num(got), a.op, num(a.v))
	}
	return compare(got, a.op, a.v)
}

type runs struct {
	electedOp string
	elected   float64 // -1: any run
	op        string
	v         float64
}

func (a *runs) String() string {
	if a.elected < 0 {
		return fmt.Sprintf("runs %s %s", a.op, num(a.v))
	}
	return fmt.Sprintf("runs elected %s %s %s %s", a.electedOp, num(a.elected), a.op, num(a.v))
}

func (a *runs) eval(c *cluster.Cluster, m Mark, why *strings.Builder) bool {
	all := c.BalancerRuns()
	n := 0
	for _, r := range all[min(m.Runs, len(all)):] {
		if a.elected < 0 || compare(float64(len(r.Elected)), a.electedOp, a.elected) {
			n++
		}
	}
	if why != nil {
		why.WriteString("electPreferred runs")
		if a.elected >= 0 {
			fmt.Fprintf(why, " that elected %s %s", a.electedOp, num(a.elected))
		}
		fmt.Fprintf(why, " since the step began: %d, goal %s %s", n, a.op, num(a.v))
	}
	return compare(float64(n), a.op, a.v)
}

type records struct {
	typ string
	op  string
	v   float64
}

func (a *records) String() string { return fmt.Sprintf("records %s %s %s", a.typ, a.op, num(a.v)) }

func (a *records) eval(c *cluster.Cluster, m Mark, why *strings.Builder) bool {
	n := 0
	for _, e := range c.Controllers().CommittedSince(m.Offset) {
		if e.Record.Type() == a.typ {
			n++
		}
	}
	if why != nil {
		fmt.Fprintf(why, "%ss committed since the step began: %d, goal %s %s", a.typ, n, a.op, num(a.v))
	}
	return compare(float64(n), a.op, a.v)
}

type scalar struct {
	name string
	op   string
	v    float64
}

func (a *scalar) String() string { return fmt.Sprintf("%s %s %s", a.name, a.op, num(a.v)) }

func (a *scalar) eval(c *cluster.Cluster, m Mark, why *strings.Builder) bool {
	var got float64
	desc := a.name
	switch a.name {
	case "time":
		got, desc = float64(c.Now()), "time (ms)"
	case "step_time":
		got, desc = float64(c.Now()-m.TimeMs), "time since the step began (ms)"
	case "offline_partitions":
		got, desc = float64(len(c.View().Leaderless())), "offline partitions"
	case "under_replicated":
		for _, p := range c.Partitions() {
			if len(p.Isr) < len(p.Replicas) {
				got++
			}
		}
		desc = "under-replicated partitions"
	case "elections":
		all := c.BalancerRuns()
		for _, r := range all[min(m.Runs, len(all)):] {
			got += float64(len(r.Elected))
		}
		desc = "preferred elections since the step began"
	case "active_controller":
		node, _, ok := c.Controllers().Active()
		got = -1
		if ok {
			got = float64(node)
		}
		if why != nil {
			fmt.Fprintf(why, "the active controller is %s, goal %s %s", leaderText(got), a.op, leaderText(a.v))
		}
		return compare(got, a.op, a.v)
	case "snapshots":
		got, desc = float64(c.Controllers().Stats().SnapshotsTaken), "controller snapshots taken"
	case "acked_records_lost":
		got, desc = c.Fleet().Stats().LostAckedRecords, "acknowledged records lost"
	case "unclean_elections":
		got, desc = float64(c.Summary().UncleanElections), "unclean elections"
	case "produce_p99":
		desc = "produce p99 of the last sample (ms)"
		if s := c.Samples(); len(s) > 0 {
			got = s[len(s)-1].ProduceP99Ms
		}
	}
	if why != nil {
		fmt.Fprintf(why, "%s is %s, goal %s %s", strings.ReplaceAll(desc, "_", " "), num(got), a.op, num(a.v))
	}
	return compare(got, a.op, a.v)
}
