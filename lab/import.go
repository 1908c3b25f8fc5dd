package lab

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/kraftlab/kraftlab/cluster/broker"
	"github.com/kraftlab/kraftlab/cluster/scenario"
	"github.com/kraftlab/kraftlab/cluster/workload"
)

// Inputs are what an operator collects from their cluster with Kafka's tools (docs/lab.md,
// "Rehearse a rollout on your cluster"). Topics is required; the others refine the model.
type Inputs struct {
	// Topics is `kafka-topics.sh --describe` output: the brokers, topics and exact replica
	// assignment, each topic's min.insync.replicas.
	Topics string
	// LogDirs is `kafka-log-dirs.sh --describe` output: each replica's size.
	LogDirs string
	// Quorum is `kafka-metadata-quorum.sh describe --status` output: the controller voters.
	Quorum string
	// Rates are produce rates per topic (Prometheus text of BytesInPerSec, or a CSV).
	Rates string
}

// Imported is a cluster imported from Kafka's tools: a Description carrying its exact
// assignment, and the report of what came from where.
type Imported struct {
	Description *Description
	// Topics are the topics as the describe printed them, with their partitions' leaders and
	// ISRs at the time (the model starts every partition in sync, led by its preferred replica).
	Topics []DescribedTopic
	Report ImportReport
}

// ImportReport says what came from where, what the model assumes instead, and every input
// line the import did not use (blank lines aside) with its line number and reason.
type ImportReport struct {
	// Summary is one line: "5 brokers, 15 partitions, 1.6 TB from log-dirs; rates from …".
	Summary string `json:"summary"`
	// Sources lists, per input, what it gave.
	Sources []string `json:"sources"`
	// Notes are where the model departs from the imported cluster.
	Notes  []string     `json:"notes"`
	Unused []UnusedLine `json:"unused"`
}

// Import reads the inputs into a copy of base (the event, the duration, disks, NICs, throttles
// and configs to rehearse with: a preset or a description file). The brokers, topics,
// assignment, min.insync.replicas, controllers, data per broker, produce rate and skew come from
// the inputs where they give them. Any refusal is an *ImportError naming the input and line,
// and nothing is imported.
func Import(in Inputs, base *Description) (*Imported, error) {
	if strings.TrimSpace(in.Topics) == "" {
		return nil, &ImportError{Source: SourceTopics, Msg: "required: paste the output of kafka-topics.sh --bootstrap-server HOST:PORT --describe"}
	}
	topics, unused, err := ParseTopicsDescribe(in.Topics)
	if err != nil {
		return nil, err
	}
	d := *base
	d.Preset, d.Config = "", slices.Clone(base.Config)
	d.Name = "Imported cluster"
	rep := ImportReport{Unused: unused}
	note := func(format string, args ...any) { rep.Notes = append(rep.Notes, fmt.Sprintf(format, args...)) }

	brokers := map[int32]int{} // id → the first line naming it
	addBroker := func(id int32, line int, source string) error {
		if id >= maxBrokers {
			return &ImportError{Source: source, Line: line, Msg: fmt.Sprintf("broker id %d: the model's broker ids are 0 to %d (its controllers are %d and up)", id, maxBrokers-1, maxBrokers)}
		}
		if _, ok := brokers[id]; !ok {
			brokers[id] = line
		}
		return nil
	}
	var lg *LogDirs
	if strings.TrimSpace(in.LogDirs) != "" {
		var u []UnusedLine
		if lg, u, err = ParseLogDirs(in.LogDirs); err != nil {
			return nil, err
		}
		rep.Unused = append(rep.Unused, u...)
	}
	var q *Quorum
	if strings.TrimSpace(in.Quorum) != "" {
		var u []UnusedLine
		if q, u, err = ParseQuorum(in.Quorum); err != nil {
			return nil, err
		}
		rep.Unused = append(rep.Unused, u...)
	}
	var rates *Rates
	if strings.TrimSpace(in.Rates) != "" {
		var u []UnusedLine
		if rates, u, err = ParseRates(in.Rates); err != nil {
			return nil, err
		}
		rep.Unused = append(rep.Unused, u...)
	}

	// Topics and the assignment.
	d.Topics = nil
	total, reassigning, leaderless, underReplicated, nonPreferred, withElr := 0, 0, 0, 0, 0, 0
	minISRDefault := 1 // Kafka's default; the describe prints only non-default configs
	for _, t := range topics {
		at := Topic{Name: t.Name, Partitions: len(t.Partitions), Replicas: make([][]int32, len(t.Partitions))}
		for i := range t.Partitions {
			p := &t.Partitions[i]
			a := p.Assignment()
			if len(a) > maxRF {
				return nil, &ImportError{Source: SourceTopics, Line: p.Line, Msg: fmt.Sprintf("partition %s-%d has %d replicas; the model allows at most %d", t.Name, p.Partition, len(a), maxRF)}
			}
			for _, r := range a {
				if err := addBroker(r, p.Line, SourceTopics); err != nil {
					return nil, err
				}
			}
			at.Replicas[i] = a
			if len(p.Adding) > 0 || len(p.Removing) > 0 {
				reassigning++
			}
			switch {
			case p.Leader < 0:
				leaderless++
			case p.Leader != a[0]:
				nonPreferred++
			}
			if len(p.Isr) < len(a) {
				underReplicated++
			}
			if len(p.Elr) > 0 || len(p.LastKnownElr) > 0 {
				withElr++
			}
		}
		total += len(t.Partitions)
		rf := assignmentRF(at.Replicas)
		for _, c := range t.Configs {
			if c.Name != "min.insync.replicas" {
				continue
			}
			n, err := strconv.Atoi(c.Value)
			if err != nil || n < 1 {
				return nil, &ImportError{Source: SourceTopics, Line: t.Line, Msg: fmt.Sprintf("topic %q: min.insync.replicas=%s is not an integer of 1 or more", t.Name, c.Value)}
			}
			if n > rf {
				note("topic %s: min.insync.replicas=%d is above its replication factor %d (every acks=all write fails in Kafka); imported as %d", t.Name, n, rf, rf)
				n = rf
			}
			at.MinInsyncReplicas = n
		}
		if at.MinInsyncReplicas == 0 {
			at.MinInsyncReplicas = minISRDefault
		}
		d.Topics = append(d.Topics, at)
	}
	if total > scenario.MaxPartitions {
		return nil, &ImportError{Source: SourceTopics, Msg: fmt.Sprintf("%d partitions: the model runs at most %d", total, scenario.MaxPartitions)}
	}
	if lg != nil {
		for _, b := range lg.Brokers {
			if err := addBroker(b, lg.Line, SourceLogDirs); err != nil {
				return nil, err
			}
		}
	}
	if q != nil {
		for _, b := range q.Observers {
			if err := addBroker(b, q.Line+1, SourceQuorum); err != nil {
				return nil, err
			}
		}
	}
	ids := make([]int32, 0, len(brokers))
	for id := range brokers {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	d.BrokerIDs, d.Brokers = ids, len(ids)
	d.ReplicationFactor = min(d.Brokers, maxRF)
	d.MinInsyncReplicas = minISRDefault
	rep.Sources = append(rep.Sources, fmt.Sprintf("%s: %d brokers (%s), %d topics, %d partitions, every replica assignment as printed, min.insync.replicas per topic",
		SourceTopics, len(ids), joinIDs(ids, ", "), len(topics), total))
	if reassigning > 0 {
		note("%s being reassigned: imported with their replicas before the reassignment (Replicas without Adding Replicas); the model does not move replicas", plural(reassigning, "partition was", "partitions were"))
	}
	if leaderless+underReplicated+nonPreferred+withElr > 0 {
		note("at the describe, %s no leader, %s under-replicated, %s led by a replica other than the preferred one and %s an ELR: the model starts every partition with all its replicas in sync, led by its preferred replica",
			plural(leaderless, "partition had", "partitions had"), plural(underReplicated, "was", "were"), plural(nonPreferred, "was", "were"), plural(withElr, "had", "had"))
	}
	if d.Event.Kind == EventRestart || d.Event.Kind == EventDiskSwap {
		if !d.hasBroker(d.Event.Broker) {
			note("the description's event names broker %d, not one of the cluster's: it is on broker %d instead (a plan replaces the event)", d.Event.Broker, ids[0])
			d.Event.Broker = ids[0]
		}
	}
	if d.Event.Kind == EventRollingRestart && d.Event.Brokers > len(ids) {
		d.Event.Brokers = len(ids)
	}

	// Controllers.
	if q != nil {
		n := len(q.Voters)
		if n != 1 && n != 3 && n != 5 {
			return nil, &ImportError{Source: SourceQuorum, Line: q.Line, Msg: fmt.Sprintf("%d voters: the model runs 1, 3 or 5 controllers", n)}
		}
		d.Controllers = n
		rep.Sources = append(rep.Sources, fmt.Sprintf("%s: %d controller voters (%s); the model numbers them %d and up", SourceQuorum, n, joinIDs(q.Voters, ", "), maxBrokers))
	} else {
		note("controllers: %d assumed (give kafka-metadata-quorum.sh describe --status)", d.Controllers)
	}

	// Sizes and rates: each partition's own, where the inputs give them.
	sizes, unsized := partitionSizes(topics, lg)
	if lg != nil {
		perBroker := map[int32]int64{}
		var sum int64
		known := map[string]bool{}
		for _, t := range topics {
			known[t.Name] = true
		}
		missing := 0
		for key, m := range lg.Sizes {
			topic, _, _ := splitTopicPartition(key)
			if !known[topic] {
				missing++
				continue
			}
			for b, s := range m {
				perBroker[b] += s
				sum += s
			}
		}
		if missing > 0 {
			rep.Unused = append(rep.Unused, UnusedLine{SourceLogDirs, lg.Line, "(the JSON line)", fmt.Sprintf("%d replicas of partitions the describe does not list", missing)})
		}
		if lg.Future > 0 {
			rep.Unused = append(rep.Unused, UnusedLine{SourceLogDirs, lg.Line, "(the JSON line)", fmt.Sprintf("%d future replicas (moves between a broker's log dirs in progress)", lg.Future)})
		}
		for _, od := range lg.OfflineDirs {
			note("log dir with an error: %s (its replicas' sizes are unknown)", od)
		}
		if unsized > 0 {
			note("%s no replica in log-dirs: each is given the mean size of its topic's other partitions", plural(unsized, "partition has", "partitions have"))
		}
		d.DataBytesPerBroker = float64(sum) / float64(len(ids))
		lo, hi := int64(math.MaxInt64), int64(0)
		for _, id := range ids {
			lo, hi = min(lo, perBroker[id]), max(hi, perBroker[id])
		}
		rep.Sources = append(rep.Sources, fmt.Sprintf("%s: %s of replicas, %s per broker on average (from %s to %s); every partition has its own size (its largest replica's): what a replaced disk copies",
			SourceLogDirs, bytesText(float64(sum)), bytesText(d.DataBytesPerBroker), bytesText(float64(lo)), bytesText(float64(hi))))
	} else {
		note("data per broker: %s assumed, each partition's in proportion to its rate (give kafka-log-dirs.sh --describe)", bytesText(d.DataBytesPerBroker))
	}
	// partRates are each partition's rate, by topic; nil when neither rates nor sizes say.
	var partRates map[string][]float64
	if rates != nil {
		partRates = map[string][]float64{}
		var sum float64
		var unrated []string
		for _, t := range topics {
			r, ok := rates.ByTopic[t.Name]
			if !ok {
				unrated = append(unrated, t.Name)
			}
			sum += r
			partRates[t.Name] = spreadRate(r, t, sizes)
		}
		for topic, lines := range rates.Lines {
			if !slices.ContainsFunc(topics, func(t DescribedTopic) bool { return t.Name == topic }) {
				for _, l := range lines {
					rep.Unused = append(rep.Unused, UnusedLine{SourceRates, l, topic, "a topic the describe does not list"})
				}
			}
		}
		if sum <= 0 {
			return nil, &ImportError{Source: SourceRates, Msg: "no rate above 0 for a topic the describe lists"}
		}
		if len(unrated) > 0 {
			note("no rate for %s: %s produce nothing in the model", plural(len(unrated), "topic", "topics"), strings.Join(firstNames(unrated, 5), ", "))
		}
		d.ProduceBytesPerSec = sum
		spread := "evenly over each topic's partitions"
		if sizes != nil {
			spread = "over each topic's partitions by size"
		}
		rep.Sources = append(rep.Sources, fmt.Sprintf("%s (%s): %s/s in all, over %d topics, spread %s", SourceRates, rates.Format, bytesText(sum), len(rates.ByTopic), spread))
	} else if sizes != nil {
		partRates = spreadBySize(d.ProduceBytesPerSec, topics, sizes)
		note("produce rate: %s/s in all assumed, spread over the partitions by size (give rates per topic)", bytesText(d.ProduceBytesPerSec))
	} else {
		note("produce rate: %s/s in all assumed, spread over the partitions by the model's lognormal skew (give rates per topic)", bytesText(d.ProduceBytesPerSec))
	}
	if partRates != nil {
		var flat []float64
		for i := range d.Topics {
			t := &d.Topics[i]
			t.ProduceBytesPerSec = partRates[t.Name]
			flat = append(flat, t.ProduceBytesPerSec...)
			if sizes != nil {
				t.SizeBytes = sizes[t.Name]
			}
		}
		room := broker.MaxClasses - workload.DefaultParams().Classes
		levels, of := workload.GroupRates(flat, room)
		if e := workload.GroupError(flat, levels, of); e > 0 {
			note("rates per partition: the model groups them into %d rate classes (its closed-form catch-up needs few), each partition within %.1f %% of its own rate, every class's total exact", len(levels), 100*e)
		}
		if σ, ok := lognormalSigma(flat); ok {
			d.Skew = σ // for partitions created later only
		}
	} else {
		note("skew: σ = %g assumed (give kafka-log-dirs.sh --describe or rates)", d.Skew)
	}
	if err := d.Validate(); err != nil {
		return nil, inputErrorf("imported cluster: %w", err)
	}
	parts := []string{fmt.Sprintf("%d brokers, %d partitions", len(ids), total)}
	if lg != nil {
		parts = append(parts, bytesText(d.DataBytesPerBroker*float64(len(ids)))+" from log-dirs")
	}
	if rates != nil {
		parts = append(parts, "rates from "+rates.Format)
	} else if lg != nil {
		parts = append(parts, "rates assumed from partition sizes")
	} else {
		parts = append(parts, "rates assumed")
	}
	rep.Summary = strings.Join(parts, ", ")
	// sort.SliceStable rather than slices.SortStableFunc: each struct type a generic sort is
	// instantiated for is another copy of the sort in the wasm (see "Sorting for the wasm" in doc.go), and
	// this runs once per import.
	u := rep.Unused
	sort.SliceStable(u, func(i, j int) bool {
		if u[i].Source != u[j].Source {
			return sourceOrder(u[i].Source) < sourceOrder(u[j].Source)
		}
		return u[i].Line < u[j].Line
	})
	return &Imported{Description: &d, Topics: topics, Report: rep}, nil
}

// sourceOrder sorts the inputs in the order Inputs lists them, any other after them.
func sourceOrder(s string) int {
	order := []string{SourceTopics, SourceLogDirs, SourceQuorum, SourceRates}
	if i := slices.Index(order, s); i >= 0 {
		return i
	}
	return len(order)
}

// partitionSizes is each partition's size (its largest replica's: the leader's log, which a
// lagging follower has less of), by topic and partition, and how many partitions had no
// replica in log-dirs (given their topic's mean); nil without log-dirs.
func partitionSizes(topics []DescribedTopic, lg *LogDirs) (map[string][]float64, int) {
	if lg == nil {
		return nil, 0
	}
	out := map[string][]float64{}
	unsized := 0
	for _, t := range topics {
		s := make([]float64, len(t.Partitions))
		known := make([]bool, len(s))
		var sum float64
		n := 0
		for i := range t.Partitions {
			m, ok := lg.Sizes[t.Name+"-"+strconv.Itoa(int(t.Partitions[i].Partition))]
			if !ok {
				continue
			}
			for _, v := range m {
				s[i] = max(s[i], float64(v))
			}
			known[i], n, sum = true, n+1, sum+s[i]
		}
		if n < len(s) {
			unsized += len(s) - n
			mean := 0.0
			if n > 0 {
				mean = sum / float64(n)
			}
			for i := range s {
				if !known[i] {
					s[i] = mean
				}
			}
		}
		out[t.Name] = s
	}
	return out, unsized
}

// spreadRate spreads a topic's rate over its partitions by size (evenly without sizes, or
// when they are all 0).
func spreadRate(rate float64, t DescribedTopic, sizes map[string][]float64) []float64 {
	out := make([]float64, len(t.Partitions))
	var sum float64
	for _, s := range sizes[t.Name] {
		sum += s
	}
	for i := range out {
		if sum > 0 {
			out[i] = rate * sizes[t.Name][i] / sum
		} else {
			out[i] = rate / float64(len(out))
		}
	}
	return out
}

// spreadBySize spreads a total rate over every partition by size (evenly when they are all 0).
func spreadBySize(total float64, topics []DescribedTopic, sizes map[string][]float64) map[string][]float64 {
	var sum float64
	n := 0
	for _, t := range topics {
		n += len(t.Partitions)
		for _, s := range sizes[t.Name] {
			sum += s
		}
	}
	out := map[string][]float64{}
	for _, t := range topics {
		r := make([]float64, len(t.Partitions))
		for i := range r {
			if sum > 0 {
				r[i] = total * sizes[t.Name][i] / sum
			} else {
				r[i] = total / float64(n)
			}
		}
		out[t.Name] = r
	}
	return out
}

// firstNames lists at most n names, and how many more.
func firstNames(names []string, n int) []string {
	if len(names) <= n {
		return names
	}
	return append(slices.Clone(names[:n]), fmt.Sprintf("and %d more", len(names)-n))
}

// lognormalSigma fits σ of a lognormal to positive values (the standard deviation of their
// logs), rounded to 0.01 and capped at the model's 5; false with fewer than two.
func lognormalSigma(v []float64) (float64, bool) {
	var n, sum, sq float64
	for _, x := range v {
		if x > 0 {
			l := math.Log(x)
			n, sum, sq = n+1, sum+l, sq+l*l
		}
	}
	if n < 2 {
		return 0, false
	}
	mean := sum / n
	σ := math.Sqrt(max(0, sq/n-mean*mean))
	return min(5, math.Round(σ*100)/100), true
}

// bytesText writes a size in decimal units: 1.6 TB, 512 MB.
func bytesText(b float64) string {
	units := []string{"B", "kB", "MB", "GB", "TB", "PB"}
	i := 0
	for b >= 1000 && i < len(units)-1 {
		b /= 1000
		i++
	}
	digits := 1
	if b >= 100 || i == 0 {
		digits = 0
	}
	return strconv.FormatFloat(b, 'f', digits, 64) + " " + units[i]
}

// plural writes "1 partition was" or "3 partitions were".
func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}
