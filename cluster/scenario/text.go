package scenario

import (
	"bytes"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
)

// WriteText writes the result for people. Controller mode: per step, its records (one line
// each), balancer runs, error and per-partition results; partitions in the layout of
// kafka-topics.sh --describe; then the final partitions, brokers and metrics. Cluster mode: a
// timeline of samples, balancer runs and events, then the summary.
func (r *Result) WriteText(w io.Writer) error {
	var b bytes.Buffer
	if r.Description != "" {
		b.WriteString("# " + strings.ReplaceAll(r.Description, "\n", "\n# ") + "\n")
	}
	if r.Cluster != nil {
		r.Cluster.writeText(&b)
		_, err := w.Write(b.Bytes())
		return err
	}
	now := int64(0)
	for _, st := range r.Steps {
		now = st.TimeMs
		fmt.Fprintf(&b, "step %d %s at %d ms\n", st.Index, st.Op, st.TimeMs)
		if st.Note != "" {
			fmt.Fprintf(&b, "  # %s\n", st.Note)
		}
		for _, e := range st.Records {
			line, err := recordLine(e)
			if err != nil {
				return err
			}
			b.WriteString("  " + line + "\n")
		}
		if st.NoOpRecords > 0 {
			fmt.Fprintf(&b, "  (%d NoOpRecords)\n", st.NoOpRecords)
		}
		for _, run := range st.BalancerRuns {
			b.WriteString("  " + runLine(run) + "\n")
		}
		if st.Error != nil {
			b.WriteString("  error: " + codeText(st.Error.Code, st.Error.Message) + "\n")
		}
		for _, pr := range st.Results {
			fmt.Fprintf(&b, "  %s-%d: %s\n", pr.Topic, pr.Partition, codeText(pr.Error, pr.Message))
		}
		writeDescribe(&b, st.Partitions)
	}
	fmt.Fprintf(&b, "partitions at %d ms:\n", now)
	writeDescribe(&b, r.Partitions)
	b.WriteString("brokers:\n")
	for _, br := range r.Brokers {
		fmt.Fprintf(&b, "  %d: %s, epoch %d\n", br.ID, br.State, br.Epoch)
	}
	b.WriteString("metrics:\n")
	names := make([]string, 0, len(r.Metrics))
	for n := range r.Metrics {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		v, err := metricJSON(r.Metrics[n])
		if err != nil {
			return err
		}
		fmt.Fprintf(&b, "  %s: %s\n", n, v)
	}
	_, err := w.Write(b.Bytes())
	return err
}

func codeText(code, msg string) string {
	if msg == "" {
		return code
	}
	return code + ": " + msg
}

// writeDescribe writes partition lines exactly as kafka-topics.sh --describe prints them,
// leading tab included; "none" stands for no leader. A RECOVERING leader is flagged after the
// line, where Kafka's tool has nothing to say about it.
func writeDescribe(b *bytes.Buffer, parts []PartitionState) {
	for _, p := range parts {
		leader := "none"
		if p.Leader >= 0 {
			leader = strconv.Itoa(int(p.Leader))
		}
		fmt.Fprintf(b, "\tTopic: %s\tPartition: %d\tLeader: %s\tReplicas: %s\tIsr: %s\tElr: %s\tLastKnownElr: %s",
			p.Topic, p.Partition, leader, joinIDs(p.Replicas, ","), joinIDs(p.Isr, ","), joinIDs(p.Elr, ","), joinIDs(p.LastKnownElr, ","))
		if p.LeaderRecoveryState != "" {
			b.WriteString("\t(" + p.LeaderRecoveryState + ")")
		}
		b.WriteByte('\n')
	}
}

// recordLine writes a record as "[time] offset Type field=value ...", from its JSON form so
// that the text and JSON outputs name the same fields.
func recordLine(e Record) (string, error) {
	enc, err := e.Entry.MarshalJSON()
	if err != nil {
		return "", err
	}
	n, err := parseTree(enc)
	if err != nil {
		return "", err
	}
	parts := []string{fmt.Sprintf("[%d ms]", e.TimeMs), strconv.FormatInt(e.Offset, 10), e.Record.Type()}
	for i, k := range n.keys {
		if k == "offset" || k == "type" {
			continue
		}
		var v bytes.Buffer
		if val := n.vals[i]; val.kind == kindString && plainText(val.s) {
			v.WriteString(val.s)
		} else {
			writeCompact(&v, val)
		}
		parts = append(parts, k+"="+v.String())
	}
	return strings.Join(parts, " "), nil
}

// plainText reports whether a string reads unambiguously without quotes.
func plainText(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if !(r == '.' || r == '_' || r == '-' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}

// runLine summarizes one electPreferred run.
func runLine(run BalancerRun) string {
	parts := []string{}
	if len(run.Elections) == 0 {
		parts = append(parts, "no election")
	} else {
		el := make([]string, len(run.Elections))
		for i, e := range run.Elections {
			el[i] = fmt.Sprintf("%s-%d→%d", e.Topic, e.Partition, e.Leader)
		}
		parts = append(parts, "elected "+strings.Join(el, ", "))
	}
	parts = append(parts, gateFacts(run)...)
	next := "no next run scheduled"
	if run.NextRunMs != nil {
		next = fmt.Sprintf("next run at %d ms", *run.NextRunMs)
	}
	parts = append(parts, next)
	return fmt.Sprintf("electPreferred at %d ms: %s", run.TimeMs, strings.Join(parts, "; "))
}

// gateFacts describes what a balancer run reports beyond its elections: more work, the cap, the
// gate and the escape hatch. Both modes' timelines use it.
func gateFacts(run BalancerRun) []string {
	var parts []string
	if run.MoreWork {
		parts = append(parts, "more work")
	}
	if run.DeferredByCap > 0 {
		parts = append(parts, fmt.Sprintf("deferred by cap %d", run.DeferredByCap))
	}
	if len(run.GatedBrokers) > 0 {
		oos := make([]string, len(run.OutOfSync))
		for i, v := range run.OutOfSync {
			oos[i] = fmt.Sprintf("%d=%d", v.Broker, v.Value)
		}
		parts = append(parts, fmt.Sprintf("gated brokers %s (out of sync: %s)", joinIDs(run.GatedBrokers, ","), strings.Join(oos, ", ")))
	}
	if len(run.EscapeHatchBrokers) > 0 {
		parts = append(parts, "escape hatch for brokers "+joinIDs(run.EscapeHatchBrokers, ","))
	}
	if run.SkippedByGate > 0 {
		parts = append(parts, fmt.Sprintf("skipped by gate %d", run.SkippedByGate))
	}
	return parts
}
