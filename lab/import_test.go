package lab

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kraftlab/kraftlab/cluster/scenario"
	"github.com/kraftlab/kraftlab/internal/jsskip"
)

func readFixture(t testing.TB, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "import", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// fixtureInputs are the Kafka 4.x fixtures: brokers 1, 2, 3, 5, 6; dotted, dashed and internal
// topics; Leader: none; Elr and LastKnownElr; a reassignment in progress; a log line.
func fixtureInputs(t testing.TB) Inputs {
	return Inputs{Topics: readFixture(t, "topics-4x.txt"), LogDirs: readFixture(t, "log-dirs.txt"),
		Quorum: readFixture(t, "quorum-4x.txt"), Rates: readFixture(t, "rates.prom")}
}

func TestParseTopicsDescribe4x(t *testing.T) {
	topics, unused, err := ParseTopicsDescribe(readFixture(t, "topics-4x.txt"))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tp := range topics {
		names = append(names, tp.Name)
	}
	if want := []string{"orders.v2", "payments-eu", "__consumer_offsets", "audit_log"}; !slices.Equal(names, want) {
		t.Fatalf("topics %v, want %v", names, want)
	}
	o := topics[0]
	if o.PartitionCount != 6 || len(o.Partitions) != 6 || o.Line != 2 {
		t.Errorf("orders.v2: count %d, %d partitions, line %d", o.PartitionCount, len(o.Partitions), o.Line)
	}
	want := []Override{{"min.insync.replicas", "2"}, {"cleanup.policy", "compact,delete"}, {"retention.ms", "604800000"}}
	if !reflect.DeepEqual(o.Configs, want) {
		t.Errorf("configs %v, want %v", o.Configs, want)
	}
	p2 := o.Partitions[2]
	if p2.Leader != -1 || len(p2.Isr) != 0 || !slices.Equal(p2.Elr, []int32{3, 5}) || !slices.Equal(p2.LastKnownElr, []int32{6}) {
		t.Errorf("orders.v2-2: %+v, want Leader none, Isr empty, Elr 3,5, LastKnownElr 6", p2)
	}
	r := topics[1].Partitions[1]
	if !slices.Equal(r.Replicas, []int32{3, 6, 1, 2}) || !slices.Equal(r.Adding, []int32{2}) || !slices.Equal(r.Removing, []int32{1}) ||
		!slices.Equal(r.Assignment(), []int32{3, 6, 1}) {
		t.Errorf("payments-eu-1: %+v, assignment %v", r, r.Assignment())
	}
	if na := topics[1].Partitions[2]; na.Elr != nil || na.LastKnownElr != nil {
		t.Errorf("Elr: N/A read as %v / %v, want nil", na.Elr, na.LastKnownElr)
	}
	if len(unused) != 1 || unused[0].Line != 1 || unused[0].Reason != "a log message, not describe output" {
		t.Errorf("unused %+v, want the WARN line 1", unused)
	}
}

func TestParseTopicsDescribe3x(t *testing.T) {
	topics, unused, err := ParseTopicsDescribe(readFixture(t, "topics-3x.txt"))
	if err != nil || len(unused) != 0 {
		t.Fatal(err, unused)
	}
	if len(topics) != 2 || topics[1].Name != "clicks.dlq" || topics[1].Partitions[0].Leader != -1 || topics[1].Partitions[0].Elr != nil {
		t.Fatalf("%+v", topics)
	}
}

// A paste whose tabs became spaces and whose trailing spaces were trimmed reads the same.
func TestParseTopicsDescribeSpaces(t *testing.T) {
	text := readFixture(t, "topics-4x.txt")
	a, _, err := ParseTopicsDescribe(text)
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, l := range strings.Split(strings.ReplaceAll(text, "\t", "    "), "\n") {
		lines = append(lines, strings.TrimRight(l, " "))
	}
	b, _, err := ParseTopicsDescribe(strings.Join(lines, "\n"))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(a, b) {
		t.Error("spaces instead of tabs read differently")
	}
}

func TestParseTopicsDescribeErrors(t *testing.T) {
	full := readFixture(t, "topics-4x.txt")
	lines := strings.Split(full, "\n")
	drop := func(i int) string { return strings.Join(slices.Delete(slices.Clone(lines), i, i+1), "\n") }
	for _, c := range []struct {
		name, text, want string
	}{
		{"cut short", drop(19), "kafka-topics.sh --describe, line 18: topic \"audit_log\": PartitionCount: 2 but 1 partition lines follow"},
		{"missing partition", drop(3), "line 2: topic \"orders.v2\": partition 1 is missing"},
		{"bad leader", strings.Replace(full, "Leader: 6", "Leader: six", 1), "line 6: Leader: \"six\" is not a broker id or none"},
		{"bad replicas", strings.Replace(full, "Replicas: 1,2,3", "Replicas: 1,x", 1), "line 3: Replicas: \"1,x\": \"x\" is not a broker id"},
		{"twice", full + lines[17] + "\n", "line 22: topic \"audit_log\" is described twice (first on line 18)"},
		{"log-dirs", readFixture(t, "log-dirs.txt"), "line 1: this is kafka-log-dirs.sh --describe output, not kafka-topics.sh --describe"},
		{"quorum", readFixture(t, "quorum-4x.txt"), "line 1: this is kafka-metadata-quorum.sh describe --status output"},
		{"nothing", "hello\n", "no topic found"},
	} {
		_, _, err := ParseTopicsDescribe(c.text)
		var ie *ImportError
		if !errors.As(err, &ie) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one containing %q", c.name, err, c.want)
		}
	}
}

func TestParseLogDirs(t *testing.T) {
	ld, unused, err := ParseLogDirs(readFixture(t, "log-dirs.txt"))
	if err != nil || len(unused) != 0 {
		t.Fatal(err, unused)
	}
	if !slices.Equal(ld.Brokers, []int32{1, 2, 3, 5, 6}) || ld.Future != 1 || len(ld.OfflineDirs) != 1 || ld.Line != 3 {
		t.Errorf("brokers %v, future %d, offline %v, line %d", ld.Brokers, ld.Future, ld.OfflineDirs, ld.Line)
	}
	if got := ld.Sizes["payments-eu-1"]; len(got) != 4 || got[3] != 41_000_000_007 {
		t.Errorf("payments-eu-1 sizes %v (the dashed name splits at its last dash)", got)
	}
	if _, _, err := ParseLogDirs("Querying brokers for log directories information\n{\"version\":1,\"brokers\":[{\"broker\":1,\"logDirs\":[{\"logDir\":\"/d\",\"error\":null,\"partitions\":[{\"partition\":\"nodash\",\"size\":1}]}]}]}\n"); err == nil ||
		!strings.Contains(err.Error(), "kafka-log-dirs.sh --describe, line 2: broker 1, log dir /d, partitions[0]") {
		t.Errorf("bad partition: %v", err)
	}
}

func TestParseQuorum(t *testing.T) {
	for file, want := range map[string][]int32{"quorum-4x.txt": {3000, 3001, 3002}, "quorum-3x.txt": {3000, 3001, 3002, 3003, 3004}} {
		q, unused, err := ParseQuorum(readFixture(t, file))
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(q.Voters, want) || q.Line != 7 || len(unused) != 5 {
			t.Errorf("%s: voters %v line %d, %d unused", file, q.Voters, q.Line, len(unused))
		}
	}
}

func TestParseRates(t *testing.T) {
	r, unused, err := ParseRates(readFixture(t, "rates.prom"))
	if err != nil {
		t.Fatal(err)
	}
	if r.ByTopic["orders.v2"] != 5e7 || r.ByTopic["payments-eu"] != 4e6 || r.Format != "Prometheus (OneMinuteRate)" {
		t.Errorf("%+v", r)
	}
	var reasons []string
	for _, u := range unused {
		reasons = append(reasons, u.Reason)
	}
	if len(unused) != 5 {
		t.Errorf("unused %q, want the total, BytesOut, FiveMinuteRate, Count and the JVM lines", reasons)
	}
	c, unused, err := ParseRates(readFixture(t, "rates.csv"))
	if err != nil || c.ByTopic["audit_log"] != 1e6 || len(unused) != 2 {
		t.Errorf("csv: %+v %v %v", c, unused, err)
	}
}

// The import round-trips the exact assignment: every partition's replicas in the scenario are
// the describe's (before a reassignment), brokers keep their ids, topics their min ISR.
func TestImportRoundTripsAssignment(t *testing.T) {
	base, _ := Preset(PresetSmall)
	in := fixtureInputs(t)
	imp, err := Import(in, base)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := imp.Description.Scenario()
	if err != nil {
		t.Fatal(err)
	}
	s, err := scenario.ParseCluster(doc)
	if err != nil {
		t.Fatal(err)
	}
	spec := s.Cluster.Spec
	if !slices.Equal(spec.Brokers, []int32{1, 2, 3, 5, 6}) {
		t.Errorf("brokers %v", spec.Brokers)
	}
	topics, _, _ := ParseTopicsDescribe(in.Topics)
	if len(spec.Topics) != len(topics) {
		t.Fatalf("%d topics, want %d", len(spec.Topics), len(topics))
	}
	for i, tp := range topics {
		st := spec.Topics[i]
		if st.Name != tp.Name || len(st.Replicas) != len(tp.Partitions) {
			t.Fatalf("topic %d: %s with %d partitions, want %s with %d", i, st.Name, len(st.Replicas), tp.Name, len(tp.Partitions))
		}
		for p := range tp.Partitions {
			if !slices.Equal(st.Replicas[p], tp.Partitions[p].Assignment()) {
				t.Errorf("%s-%d: replicas %v, want %v", tp.Name, p, st.Replicas[p], tp.Partitions[p].Assignment())
			}
		}
	}
	if s.Cluster.Spec.Controllers != 3 {
		t.Errorf("controllers %d", s.Cluster.Spec.Controllers)
	}
	// Each partition's size (its largest replica in log-dirs) and rate (its topic's rate
	// spread by size) reach the scenario as they were imported.
	lg, _, _ := ParseLogDirs(in.LogDirs)
	rates, _, _ := ParseRates(in.Rates)
	for i, tp := range topics {
		st := spec.Topics[i]
		var sum float64
		want := make([]float64, len(tp.Partitions))
		for p := range tp.Partitions {
			for _, v := range lg.Sizes[fmt.Sprintf("%s-%d", tp.Name, p)] {
				want[p] = max(want[p], float64(v))
			}
			sum += want[p]
		}
		if !slices.Equal(st.SizeBytes, want) {
			t.Errorf("%s: sizes %v, want %v", tp.Name, st.SizeBytes, want)
		}
		for p := range tp.Partitions {
			if r := rates.ByTopic[tp.Name] * want[p] / sum; math.Abs(st.ProduceBytesPerSec[p]-r) > 1e-9*r {
				t.Errorf("%s-%d: rate %v, want %v", tp.Name, p, st.ProduceBytesPerSec[p], r)
			}
		}
	}
	rep := imp.Report
	if !strings.HasPrefix(rep.Summary, "5 brokers, 15 partitions, ") || !strings.Contains(rep.Summary, "from log-dirs") || !strings.Contains(rep.Summary, "rates from Prometheus") {
		t.Errorf("summary %q", rep.Summary)
	}
	if imp.Description.ProduceBytesPerSec != 5e7+4e6+1e6 {
		t.Errorf("produce rate %v", imp.Description.ProduceBytesPerSec)
	}
	if imp.Description.Topics[3].MinInsyncReplicas != 1 || imp.Description.Topics[0].MinInsyncReplicas != 2 {
		t.Errorf("min ISR %+v", imp.Description.Topics)
	}
	for _, u := range rep.Unused {
		if u.Line < 1 || u.Reason == "" || u.Source == "" {
			t.Errorf("unused line without a place or reason: %+v", u)
		}
	}
}

// TestImportSpreadsTheTotalBySize checks the import's other ways to per-partition figures:
// sizes without rates spread the assumed total by size; neither leaves the model's skew.
func TestImportSpreadsTheTotalBySize(t *testing.T) {
	base, _ := Preset(PresetSmall)
	in := fixtureInputs(t)
	in.Rates = ""
	imp, err := Import(in, base)
	if err != nil {
		t.Fatal(err)
	}
	var total, size float64
	var sizes, rates []float64
	for _, tp := range imp.Description.Topics {
		sizes, rates = append(sizes, tp.SizeBytes...), append(rates, tp.ProduceBytesPerSec...)
	}
	for i := range sizes {
		total, size = total+rates[i], size+sizes[i]
	}
	if math.Abs(total-base.ProduceBytesPerSec) > 1e-6*total {
		t.Errorf("rates add up to %v, want the assumed %v", total, base.ProduceBytesPerSec)
	}
	for i := range sizes {
		if want := base.ProduceBytesPerSec * sizes[i] / size; math.Abs(rates[i]-want) > 1e-9*want {
			t.Errorf("partition %d: rate %v, want %v (by size)", i, rates[i], want)
		}
	}
	if !strings.Contains(imp.Report.Summary, "rates assumed from partition sizes") {
		t.Errorf("summary %q", imp.Report.Summary)
	}

	// A partition no log dir lists gets its topic's mean size, and the report says so.
	lg, _, _ := ParseLogDirs(in.LogDirs)
	var one float64
	for _, v := range lg.Sizes["audit_log-1"] {
		one = max(one, float64(v))
	}
	in.LogDirs = strings.ReplaceAll(in.LogDirs, `"audit_log-0"`, `"audit_log-7"`)
	if imp, err = Import(in, base); err != nil {
		t.Fatal(err)
	}
	audit := imp.Description.Topics[3]
	if audit.Name != "audit_log" || audit.SizeBytes[0] != one || audit.SizeBytes[1] != one {
		t.Errorf("%s: sizes %v, want both %v (partition 0's missing: the topic's mean)", audit.Name, audit.SizeBytes, one)
	}
	if !slices.ContainsFunc(imp.Report.Notes, func(n string) bool { return strings.HasPrefix(n, "1 partition has no replica in log-dirs") }) {
		t.Errorf("notes %q", imp.Report.Notes)
	}

	in.LogDirs = ""
	if imp, err = Import(in, base); err != nil {
		t.Fatal(err)
	}
	for _, tp := range imp.Description.Topics {
		if tp.SizeBytes != nil || tp.ProduceBytesPerSec != nil {
			t.Errorf("%s: figures without log-dirs or rates: %v %v", tp.Name, tp.SizeBytes, tp.ProduceBytesPerSec)
		}
	}
}

func TestImportRefusesMixedInput(t *testing.T) {
	base, _ := Preset(PresetSmall)
	in := fixtureInputs(t)
	in.Quorum = readFixture(t, "topics-3x.txt")
	if _, err := Import(in, base); err == nil || !strings.Contains(err.Error(), "kafka-metadata-quorum.sh describe --status, line 1: this is kafka-topics.sh --describe output") {
		t.Errorf("mixed quorum input: %v", err)
	}
	in = fixtureInputs(t)
	in.Topics = strings.Replace(in.Topics, "Replicas: 1,3,5", "Replicas: 1,3,3005", 1)
	if _, err := Import(in, base); err == nil || !strings.Contains(err.Error(), "line 8: broker id 3005") {
		t.Errorf("broker id over the model's: %v", err)
	}
}

// bigDescribe writes a describe of brokers brokers (ids from 1, every tenth missing) and
// partitions partitions at replication factor 3, in Kafka 4.x's format.
func bigDescribe(brokers, partitions int) string {
	var ids []int32
	for id := int32(1); len(ids) < brokers; id++ {
		if id%10 != 0 {
			ids = append(ids, id)
		}
	}
	var b strings.Builder
	const perTopic = 1000
	for t := 0; t*perTopic < partitions; t++ {
		n := min(perTopic, partitions-t*perTopic)
		// Topic names of about 110 characters (Kafka allows 249) make the text the 40 MB the
		// import's bound names.
		name := fmt.Sprintf("prod.eu-west-1.payments.card-transactions.v%03d.events-by-customer-and-merchant.compacted-changelog-retained-7d", t)
		fmt.Fprintf(&b, "Topic: %s\tTopicId: AAAAAAAAAAAAAAAAAAAAAA\tPartitionCount: %d\tReplicationFactor: 3\tConfigs: min.insync.replicas=2,retention.ms=604800000\n", name, n)
		for p := range n {
			k := t*perTopic + p
			r := []int32{ids[k%len(ids)], ids[(k+1)%len(ids)], ids[(k+2)%len(ids)]}
			fmt.Fprintf(&b, "\tTopic: %s\tPartition: %d\tLeader: %d\tReplicas: %d,%d,%d\tIsr: %d,%d,%d\tElr: \tLastKnownElr: \n", name, p, r[0], r[0], r[1], r[2], r[0], r[1], r[2])
		}
	}
	return b.String()
}

// bigLogDirs writes kafka-log-dirs.sh --describe output for bigDescribe's cluster: every
// replica on its broker's one log dir, sizes from 10 to 406 MB (about 2 TB per broker).
func bigLogDirs(brokers, partitions int) string {
	topics, _, err := ParseTopicsDescribe(bigDescribe(brokers, partitions))
	if err != nil {
		panic(err)
	}
	byBroker := map[int32][]string{}
	var ids []int32
	k := 0
	for _, t := range topics {
		for _, p := range t.Partitions {
			for _, r := range p.Assignment() {
				if byBroker[r] == nil {
					ids = append(ids, r)
				}
				byBroker[r] = append(byBroker[r], fmt.Sprintf(`{"partition":"%s-%d","size":%d,"offsetLag":0,"isFuture":false}`, t.Name, p.Partition, 1e7+int64(k%100)*4e6))
			}
			k++
		}
	}
	slices.Sort(ids)
	var b strings.Builder
	b.WriteString("Querying brokers for log directories information\nReceived log directory information from brokers " + joinIDs(ids, ",") + "\n")
	b.WriteString(`{"version":1,"brokers":[`)
	for i, id := range ids {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `{"broker":%d,"logDirs":[{"logDir":"/var/lib/kafka/data","error":null,"partitions":[%s]}]}`, id, strings.Join(byBroker[id], ","))
	}
	b.WriteString("]}\n")
	return b.String()
}

// BenchmarkImport200k imports a 60-broker, 200,000-partition describe (about 40 MB), the
// rehearsal's scale target; /scenario also writes and checks its scenario file, as every run
// does before it starts; log-dirs/ adds every replica's size (about 110 MB of JSON more).
func BenchmarkImport200k(b *testing.B) {
	text := bigDescribe(60, 200_000)
	logDirs := bigLogDirs(60, 200_000)
	base, _ := Preset(PresetSmall)
	for _, c := range []struct {
		name         string
		in           Inputs
		withScenario bool
	}{
		{"import", Inputs{Topics: text}, false},
		{"scenario", Inputs{Topics: text}, true},
		{"log-dirs/import", Inputs{Topics: text, LogDirs: logDirs}, false},
		{"log-dirs/scenario", Inputs{Topics: text, LogDirs: logDirs}, true},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(c.in.Topics) + len(c.in.LogDirs)))
			cpu := cpuSeconds()
			for b.Loop() {
				imp, err := Import(c.in, base)
				if err != nil {
					b.Fatal(err)
				}
				if c.withScenario {
					if _, err := imp.Description.Scenario(); err != nil {
						b.Fatal(err)
					}
				}
			}
			reportCPU(b, cpu)
		})
	}
}

// BenchmarkRehearsalStart200k is what each of the page's workers does on Rehearse
// (labmsg's lab.rehearse.start) with a 200,000-partition describe: import it, write its plan's
// setup (the file, the partitions apart), prepare the plan's runs (the current, candidate and
// baseline files, each checked with the partitions) and choose the one it plays.
func BenchmarkRehearsalStart200k(b *testing.B) {
	text := bigDescribe(60, 200_000)
	base, _ := Preset(PresetSmall)
	plan, err := ParsePlan("rolling-restart all timeout=15m\n")
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(text)))
	cpu := cpuSeconds()
	for b.Loop() {
		imp, err := Import(Inputs{Topics: text}, base)
		if err != nil {
			b.Fatal(err)
		}
		setup, err := imp.Description.PlanSetup(nil)
		if err != nil {
			b.Fatal(err)
		}
		r, err := setup.Rehearsal(plan, DefaultPolicies()[1])
		if err != nil {
			b.Fatal(err)
		}
		if err := r.PlayOnly(0); err != nil {
			b.Fatal(err)
		}
		r.Close()
	}
	reportCPU(b, cpu)
}

// describeOf writes a scenario's starting partitions as kafka-topics.sh --describe prints them
// (TopicCommand's 4.x format), with min.insync.replicas in each topic's Configs.
func describeOf(t *testing.T, doc []byte, minISR int) string {
	t.Helper()
	r, err := NewRunner(doc)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	parts := r.c.Partitions()
	for i, p := range parts {
		if i == 0 || parts[i-1].Topic != p.Topic {
			n := 0
			for _, q := range parts {
				if q.Topic == p.Topic {
					n++
				}
			}
			fmt.Fprintf(&b, "Topic: %s\tTopicId: AAAAAAAAAAAAAAAAAAAAAA\tPartitionCount: %d\tReplicationFactor: %d\tConfigs: min.insync.replicas=%d\n", p.Topic, n, len(p.Replicas), minISR)
		}
		fmt.Fprintf(&b, "\tTopic: %s\tPartition: %d\tLeader: %d\tReplicas: %s\tIsr: %s\tElr: \tLastKnownElr: \n", p.Topic, p.Partition, p.Leader, joinIDs(p.Replicas, ","), joinIDs(p.Isr, ","))
	}
	return b.String()
}

// A rehearsal's verdicts match the same cluster described by hand: the small preset, described
// by its fields, and imported from its own describe output, give the same verdicts.
func TestImportedVerdictsMatchHandDescription(t *testing.T) {
	jsskip.CoveredNatively(t, "an imported cluster's verdicts against the same cluster described by hand, both in this process")
	hand, _ := Preset(PresetSmall)
	handDoc, err := hand.Scenario()
	if err != nil {
		t.Fatal(err)
	}
	base, _ := Preset(PresetSmall)
	imp, err := Import(Inputs{Topics: describeOf(t, handDoc, hand.MinInsyncReplicas)}, base)
	if err != nil {
		t.Fatal(err)
	}
	if imp.Description.Event.Broker != 0 || !slices.Equal(imp.Description.BrokerIDs, []int32{0, 1, 2}) {
		t.Fatalf("imported brokers %v, event on %d", imp.Description.BrokerIDs, imp.Description.Event.Broker)
	}
	impDoc, err := imp.Description.Scenario()
	if err != nil {
		t.Fatal(err)
	}
	ps := DefaultPolicies()
	a, err := Compare(context.Background(), handDoc, ps, Options{Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	b, err := Compare(context.Background(), impDoc, ps, Options{Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	measured := 0
	for i := range ps {
		for j, v := range a.Policies[i].Verdicts {
			w := b.Policies[i].Verdicts[j]
			if v.Status != NotMeasured {
				measured++
			}
			if v.Status != w.Status {
				t.Errorf("%s, %s: by hand %s (%s), imported %s (%s)", ps[i].Name, v.Criterion, v.Status, v.MeasuredText, w.Status, w.MeasuredText)
			}
		}
	}
	if measured < 4 {
		t.Errorf("only %d verdicts measured: the comparison says too little to compare", measured)
	}
}

// A plan's setup (PlanSetup) is the described cluster of Scenario, with the current config
// applied after the description's own, no events (a plan replaces them), and the imported
// partitions given apart rather than in its file.
func TestPlanSetupIsScenarioWithoutTheEvent(t *testing.T) {
	base, _ := Preset(PresetSmall)
	imp, err := Import(fixtureInputs(t), base)
	require.NoError(t, err)
	require.NotEmpty(t, imp.Description.Event.Kind)
	current := []Override{{Name: "leader.imbalance.check.interval.seconds", Value: "5"}}
	doc, err := imp.Description.Scenario()
	require.NoError(t, err)
	doc, err = ApplyOverrides(doc, current)
	require.NoError(t, err)
	want, err := scenario.ParseCluster(doc)
	require.NoError(t, err)
	require.NotEmpty(t, want.Cluster.Events)

	setup, err := imp.Description.PlanSetup(current)
	require.NoError(t, err)
	assert.NotContains(t, string(setup.doc), `"replicas"`, "the partitions are given apart")
	got, err := setup.reader()(setup.doc)
	require.NoError(t, err)
	assert.Empty(t, got.Cluster.Events)
	assert.Equal(t, want.Cluster.Spec, got.Cluster.Spec)
	assert.Equal(t, want.Config, got.Config)
	assert.Equal(t, want.Cluster.MemoryBytes, got.Cluster.MemoryBytes)

	_, err = imp.Description.PlanSetup([]Override{{Name: "leader.imbalance.check.interval.seconds", Value: "x"}})
	assert.ErrorContains(t, err, "leader.imbalance.check.interval.seconds")
}

// A rehearsal of the imported cluster's setup (the page's: partitions given apart, each run
// played by its own rehearsal, the first of the import, the others of the description handed
// over in its binary form, and gathered by Export and Adopt) is the rehearsal of the same
// cluster written as one file (the CLI's): the same comparison, byte for byte, and the same
// report, for a plan that rolls the candidate in with the controllers too.
func TestRehearsalOfSetupIsTheFileRehearsal(t *testing.T) {
	jsskip.CoveredNatively(t, "the page's rehearsal of the imported setup against the file's, both in this process")
	base, _ := Preset(PresetSmall)
	imp, err := Import(fixtureInputs(t), base)
	require.NoError(t, err)
	scaleData(imp.Description, 2e9)
	current := []Override{{Name: "leader.imbalance.check.interval.seconds", Value: "60"}}
	doc, err := imp.Description.Scenario()
	require.NoError(t, err)
	doc, err = ApplyOverrides(doc, current)
	require.NoError(t, err)
	setup, err := imp.Description.PlanSetup(current)
	require.NoError(t, err)
	// The page's other workers are handed the imported description in its binary form.
	bin, err := EncodeDescription(imp.Description)
	require.NoError(t, err)
	handed, err := DecodeDescription(bin)
	require.NoError(t, err)
	handedSetup, err := handed.PlanSetup(current)
	require.NoError(t, err)
	for _, text := range []string{"rolling-restart all timeout=10m\n", "roll-controllers\nrolling-restart 1,2 timeout=10m\n"} {
		plan, err := ParsePlan(text)
		require.NoError(t, err)
		cand := DefaultPolicies()[1]
		byFile, err := NewRehearsal(doc, plan, cand)
		require.NoError(t, err)
		for done := false; !done; {
			done, _, err = byFile.Step(300_000)
			require.NoError(t, err)
		}
		want, err := byFile.Comparison()
		require.NoError(t, err)

		probe, err := setup.Rehearsal(plan, cand)
		require.NoError(t, err)
		require.Equal(t, byFile.Runs(), probe.Runs())
		var parts []*Rehearsal
		for i := range probe.Runs() {
			from := setup
			if i > 0 {
				from = handedSetup
			}
			w, err := from.Rehearsal(plan, cand)
			require.NoError(t, err)
			require.NoError(t, w.PlayOnly(i))
			for done := false; !done; {
				done, _, err = w.Step(300_000)
				require.NoError(t, err)
			}
			parts = append(parts, w)
		}
		for i := 1; i < len(parts); i++ {
			data, err := parts[i].Export(i)
			require.NoError(t, err)
			require.NoError(t, parts[0].Adopt(i, data))
		}
		got, err := parts[0].Comparison()
		require.NoError(t, err)

		var a, b bytes.Buffer
		require.NoError(t, want.WriteJSON(&a, nil))
		require.NoError(t, got.WriteJSON(&b, nil))
		assert.Equal(t, a.String(), b.String(), text)
		assert.Equal(t, want.Current.Verdicts, got.Current.Verdicts, text)
		assert.Equal(t, want.Candidate.Verdicts, got.Candidate.Verdicts, text)
		for _, w := range []func(*Report, io.Writer) error{(*Report).WriteHTML, (*Report).WriteMarkdown} {
			var ra, rb bytes.Buffer
			require.NoError(t, w(&Report{Version: "test", Imported: imp, Current: current, Comparison: want}, &ra))
			require.NoError(t, w(&Report{Version: "test", Imported: imp, Current: current, Comparison: got}, &rb))
			assert.Equal(t, ra.String(), rb.String(), text)
		}
	}
}

// The describe's words are split where strings.Fields splits them, whatever the white space:
// tabs, spaces, a non-breaking space from a web page, a control character that is not space.
func TestNextWordSplitsAsFields(t *testing.T) {
	for _, s := range []string{"", "  ", "\tTopic: a\tPartition: 0\tLeader: 1\tReplicas: 1,2\tIsr: 1\tElr: \tLastKnownElr: \n",
		"Topic:\u00a0a\u00a0 Partition: 1", "é Topic:\u2003b\u0085c", "a\x01b c\v\fd\r", "Topic: änd\u00a0"} {
		var got []string
		for rest := s; ; {
			var w string
			if w, rest = nextWord(rest); w == "" {
				break
			}
			got = append(got, w)
		}
		if want := strings.Fields(s); !slices.Equal(got, want) && len(want)+len(got) > 0 {
			t.Errorf("%q: nextWord gives %q, strings.Fields %q", s, got, want)
		}
	}
}
