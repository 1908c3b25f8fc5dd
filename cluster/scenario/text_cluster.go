package scenario

import (
	"bytes"
	"fmt"
	"strings"
)

// maxElectionsShown bounds the elections a balancer run's text line lists: a capped run
// elects hundreds, and the count says the rest.
const maxElectionsShown = 6

// writeText writes a cluster-mode result as a timeline, in the order things happened: the
// samples (one line each) and balancer runs up to each event, the event with its error and,
// for a describe, its table as kafka-topics.sh --describe prints it; then the summary.
func (r *ClusterResult) writeText(b *bytes.Buffer) {
	fmt.Fprintf(b, "seed %d, %s (%d ms)\n", r.Seed, clock(r.DurationMs), r.DurationMs)
	runs, samples := 0, 0
	upTo := func(nRuns, nSamples int) {
		// Runs and samples between two events interleave by time; the result does not record
		// their order within one instant, so there the run is written first.
		for runs < nRuns || samples < nSamples {
			if runs < nRuns && (samples >= nSamples || r.BalancerRuns[runs].TimeMs <= r.Samples[samples].TimeMs) {
				b.WriteString(clusterRunLine(r.BalancerRuns[runs]) + "\n")
				runs++
			} else {
				b.WriteString(sampleLine(r.Samples[samples]) + "\n")
				samples++
			}
		}
	}
	for _, ev := range r.Events {
		upTo(min(ev.runs, len(r.BalancerRuns)), min(ev.samples, len(r.Samples)))
		fmt.Fprintf(b, "[%s] event %d: %s", clock(ev.TimeMs), ev.Index, ev.Op)
		if ev.Note != "" {
			b.WriteString(" # " + ev.Note)
		}
		b.WriteByte('\n')
		if ev.Error != nil {
			b.WriteString("  error: " + codeText(ev.Error.Code, ev.Error.Message) + "\n")
		}
		for _, pr := range ev.Results {
			fmt.Fprintf(b, "  %s-%d: %s\n", pr.Topic, pr.Partition, codeText(pr.Error, pr.Message))
		}
		if ev.describe >= 0 && ev.describe < len(r.Describes) {
			writeDescribe(b, r.Describes[ev.describe].Partitions)
		}
	}
	upTo(len(r.BalancerRuns), len(r.Samples))
	if r.Violation != "" {
		b.WriteString("stopped: " + r.Violation + "\n")
	}
	fmt.Fprintf(b, "records: %d listed", len(r.Records))
	if r.Records == nil {
		b.WriteString(" (output.records is false)")
	}
	fmt.Fprintf(b, ", %d NoOpRecords, %d setup records\n", r.NoOpRecords, r.SetupRecords)
	b.WriteString("summary:\n")
	for _, f := range r.Summary.Fields {
		fmt.Fprintf(b, "  %s: %s", f.Name, f.text())
		if f.Time && f.Value >= 0 && strings.HasSuffix(f.Name, "_at_ms") {
			fmt.Fprintf(b, " (%s)", clock(int64(f.Value)))
		}
		if f.Time && f.Value < 0 {
			b.WriteString(" (never)")
		}
		if f.Note != "" {
			fmt.Fprintf(b, " (%s)", f.Note)
		}
		b.WriteByte('\n')
	}
}

// clock writes scenario time as h:mm:ss.mmm.
func clock(ms int64) string {
	sign := ""
	if ms < 0 {
		sign, ms = "-", -ms
	}
	return fmt.Sprintf("%s%d:%02d:%02d.%03d", sign, ms/3_600_000, ms/60_000%60, ms/1000%60, ms%1000)
}

// sampleLine writes a sample: the cluster's figures, then one short group per broker.
func sampleLine(s SampleResult) string {
	var b strings.Builder
	fmt.Fprintf(&b, "[%s] sample: produce p50 %s p99 %s p99.9 %s ms, errors %d, timeouts %d; under-replicated %d, offline %d, elections %d, records %d",
		clock(s.TimeMs), millisText(s.ProduceP50Ms), millisText(s.ProduceP99Ms), millisText(s.ProduceP999Ms),
		s.ProduceErrors, s.ProduceTimeouts, s.UnderReplicated, s.Offline, s.Elections, s.recordsSincePrevSample)
	for _, br := range s.Brokers {
		fmt.Fprintf(&b, " | %d %s lead %d pref %d/%d oos %d/%d", br.ID, br.State, br.Leaders, br.PreferredLed, br.PreferredTotal,
			br.OutOfSync, br.OutOfSyncPreferred)
		if br.Gated {
			b.WriteString(" gated")
		}
	}
	return b.String()
}

func millisText(m Millis) string {
	enc, _ := m.MarshalJSON() // never fails
	if string(enc) == "null" {
		return "-"
	}
	return string(enc)
}

// clusterRunLine summarizes an electPreferred run: who ran it, how many it elected (the first
// few named), and what held the rest back.
func clusterRunLine(run BalancerRun) string {
	var parts []string
	switch n := len(run.Elections); {
	case n == 0:
		parts = append(parts, "no election")
	default:
		shown := make([]string, 0, maxElectionsShown)
		for _, e := range run.Elections[:min(n, maxElectionsShown)] {
			shown = append(shown, fmt.Sprintf("%s-%d→%d", e.Topic, e.Partition, e.Leader))
		}
		more := ""
		if n > maxElectionsShown {
			more = fmt.Sprintf(", ... (%d more)", n-maxElectionsShown)
		}
		parts = append(parts, fmt.Sprintf("%d elected: %s%s", n, strings.Join(shown, ", "), more))
	}
	parts = append(parts, gateFacts(run)...)
	if run.NextRunMs != nil {
		parts = append(parts, "next run at "+clock(*run.NextRunMs))
	} else {
		parts = append(parts, "no next run scheduled")
	}
	return fmt.Sprintf("[%s] electPreferred on controller %d: %s", clock(run.TimeMs), run.Controller, strings.Join(parts, "; "))
}
