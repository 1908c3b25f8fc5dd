package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"

	"github.com/kraftlab/kraftlab/lab"
)

// rehearseOptions are lab's flags for rehearsing on an imported cluster: the inputs collected
// with Kafka's tools, a plan and the report.
type rehearseOptions struct {
	topics, logDirs, quorum, rates string
	plan, report                   string
	// imported is the import, once load has run.
	imported *lab.Imported
}

const rehearseHelp = `Rehearse on your own cluster (docs/lab.md, "Rehearse a rollout on your cluster"):
  --topics FILE     kafka-topics.sh --describe output: brokers, topics, every replica assignment
                    (FILE is then optional: a description or preset gives the disks, throttles
                    and event; default preset:small)
  --log-dirs FILE   kafka-log-dirs.sh --describe output: replica sizes
  --quorum FILE     kafka-metadata-quorum.sh describe --status output: the controller voters
  --rates FILE      produce rates per topic: a JMX exporter's BytesInPerSec lines or a CSV
                    topic,bytes_per_sec (without: the description's total, and it says so)
                    The import's report goes to stderr: what came from where, and every line
                    not used with its line number and reason.
  --plan FILE       run a rollout plan (rolling-restart, replace-disk, shutdown, kill, pause;
                    docs/lab.md) under the current config and the candidate (the one --policy,
                    default the KIP's example), same seed, judged by the KIP's verdicts
  --report FILE     with --plan: write the change review's report, FILE.html (self-contained,
                    charts as inline SVG) or FILE.md
`

func (o *rehearseOptions) register(fs *flag.FlagSet) {
	fs.StringVar(&o.topics, "topics", "", "kafka-topics.sh --describe output")
	fs.StringVar(&o.logDirs, "log-dirs", "", "kafka-log-dirs.sh --describe output")
	fs.StringVar(&o.quorum, "quorum", "", "kafka-metadata-quorum.sh describe --status output")
	fs.StringVar(&o.rates, "rates", "", "produce rates per topic (Prometheus text or CSV)")
	fs.StringVar(&o.plan, "plan", "", "a rollout plan to rehearse")
	fs.StringVar(&o.report, "report", "", "with --plan: write a report, FILE.html or FILE.md")
}

// check refuses flags that go with others; it lets a missing FILE default to preset:small when
// a cluster is imported.
func (o *rehearseOptions) check(args []string) ([]string, error) {
	if o.topics == "" && (o.logDirs != "" || o.quorum != "" || o.rates != "") {
		return nil, fmt.Errorf("--log-dirs, --quorum and --rates refine an imported cluster: give --topics too")
	}
	if o.report != "" {
		if o.plan == "" {
			return nil, fmt.Errorf("--report writes a plan's rehearsal: give --plan too")
		}
		if ext := strings.ToLower(filepath.Ext(o.report)); ext != ".html" && ext != ".md" {
			return nil, fmt.Errorf("--report %s: the file must end in .html or .md", o.report)
		}
	}
	if o.topics != "" && len(args) == 0 {
		return []string{"preset:" + lab.PresetSmall}, nil
	}
	return args, nil
}

// load reads FILE as loadLabInput does, or, with --topics, imports the cluster into FILE's
// description (a scenario file has no description to import into) and reports the import on
// stderr.
func (o *rehearseOptions) load(e *env, name string) ([]byte, error) {
	if o.topics == "" {
		return loadLabInput(e, name)
	}
	var base *lab.Description
	if p, ok := strings.CutPrefix(name, "preset:"); ok {
		d, err := lab.Preset(p)
		if err != nil {
			return nil, usage{err}
		}
		base = d
	} else {
		data, err := readInput(e, name)
		if err != nil {
			return nil, usage{err}
		}
		if !lab.IsDescription(data) {
			return nil, usage{fmt.Errorf("%s: with --topics, FILE must be a description ({\"lab\": {...}}) or preset:NAME, whose disks, throttles and event the imported cluster takes", name)}
		}
		if base, err = lab.ParseDescription(data); err != nil {
			return nil, usage{err}
		}
	}
	var in lab.Inputs
	for _, f := range []struct {
		flag, file string
		dst        *string
	}{{"--topics", o.topics, &in.Topics}, {"--log-dirs", o.logDirs, &in.LogDirs}, {"--quorum", o.quorum, &in.Quorum}, {"--rates", o.rates, &in.Rates}} {
		if f.file == "" {
			continue
		}
		data, err := readCapped(e, f.file, maxToolOutputBytes, "a tool's output")
		if err != nil {
			return nil, usage{fmt.Errorf("%s: %v", f.flag, err)}
		}
		*f.dst = string(data)
	}
	imp, err := lab.Import(in, base)
	if err != nil {
		return nil, usage{err}
	}
	o.imported = imp
	files := map[string]string{lab.SourceTopics: o.topics, lab.SourceLogDirs: o.logDirs, lab.SourceQuorum: o.quorum, lab.SourceRates: o.rates}
	fmt.Fprintf(e.stderr, "imported: %s\n", imp.Report.Summary)
	for _, s := range imp.Report.Sources {
		fmt.Fprintf(e.stderr, "  from %s\n", s)
	}
	for _, n := range imp.Report.Notes {
		fmt.Fprintf(e.stderr, "  note: %s\n", n)
	}
	for _, u := range imp.Report.Unused {
		fmt.Fprintf(e.stderr, "%s:%d: unused: %s: %s\n", files[u.Source], u.Line, u.Text, u.Reason)
	}
	return imp.Description.Scenario()
}

// rehearse runs the plan under the current config (doc, overrides applied) and the candidate,
// and writes the comparison and, with --report, the report.
func (o *rehearseOptions) rehearse(e *env, lo *labOptions, doc []byte, current []lab.Override, policies []lab.Policy) int {
	if len(lo.policies.list) > 1 {
		return usageError(e, "kraftlab lab: --plan compares the current config with one candidate: give at most one --policy")
	}
	candidate := lab.DefaultPolicies()[1]
	if len(lo.policies.list) == 1 {
		candidate = policies[0]
	}
	text, err := readInput(e, o.plan)
	if err != nil {
		return usageError(e, "kraftlab lab: --plan: %v", err)
	}
	plan, err := lab.ParsePlan(string(text))
	if err != nil {
		return usageError(e, "kraftlab lab: %s: %v", o.plan, err)
	}
	opts := lab.Options{Workers: lo.parallel}
	pc, err := lab.RunPlanComparison(e.ctx, doc, plan, candidate, opts)
	if e.ctx.Err() != nil {
		return interruptedLab(e)
	}
	if err != nil {
		return labError(e, "lab", err)
	}
	rep := &lab.Report{Version: kraftlabVersion(), Imported: o.imported, Current: current, Comparison: pc, Sensitivity: lo.sensitivity}
	if lo.sensitivity {
		var keys []string
		if lo.assumptions != "" {
			keys = strings.Split(lo.assumptions, ",")
		}
		rep.Flips, err = lab.RunPlanSensitivity(e.ctx, doc, plan, candidate, keys, pc, opts)
		if e.ctx.Err() != nil {
			return interruptedLab(e)
		}
		if err != nil {
			return labError(e, "lab", err)
		}
	}
	if o.report != "" {
		var buf bytes.Buffer
		if strings.EqualFold(filepath.Ext(o.report), ".html") {
			err = rep.WriteHTML(&buf)
		} else {
			err = rep.WriteMarkdown(&buf)
		}
		if err == nil {
			err = os.WriteFile(o.report, buf.Bytes(), 0o644)
		}
		if err != nil {
			fmt.Fprintf(e.stderr, "kraftlab lab: --report: %v\n", err)
			return exitFailure
		}
	}
	var out bytes.Buffer
	if lo.format == formatJSON {
		err = pc.WriteJSON(&out, rep.Flips)
	} else {
		err = rep.WriteMarkdown(&out)
	}
	if err == nil {
		_, err = e.stdout.Write(out.Bytes())
	}
	return writeResult(e, "lab", err)
}

// kraftlabVersion is the binary's module version, or its VCS revision for a build from a
// checkout ("dev" when neither is known).
func kraftlabVersion() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "dev"
	}
	if v := info.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	for _, s := range info.Settings {
		if s.Key == "vcs.revision" && len(s.Value) >= 12 {
			return "dev-" + s.Value[:12]
		}
	}
	return "dev"
}
