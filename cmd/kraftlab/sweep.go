package main

import (
	"bytes"
	"encoding/csv"
	"errors"
	"flag"
	"fmt"
	"math"
	"runtime"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/kraftlab/kraftlab/cluster/scenario"
	"github.com/kraftlab/kraftlab/lab"
)

// Formats of sweep's output.
const formatCSV = "csv"

// overridesFlag collects a repeatable flag's raw values; they are parsed after flag parsing so
// that an error names the flag.
type overridesFlag struct{ list []string }

// String implements flag.Value.
func (f *overridesFlag) String() string { return strings.Join(f.list, " ") }

// Set implements flag.Value: each use of the flag adds one value.
func (f *overridesFlag) Set(v string) error { f.list = append(f.list, v); return nil }

// overrides parses the flag's values as NAME=VALUE.
func (f *overridesFlag) overrides(flagName string) ([]lab.Override, error) {
	var out []lab.Override
	for _, text := range f.list {
		o, err := lab.ParseOverride(text)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", flagName, err)
		}
		out = append(out, o)
	}
	return out, nil
}

const labInputHelp = `FILE is a cluster-mode scenario, a lab description ({"lab": {"preset": "kip-load-test", ...}},
docs/lab.md), preset:NAME (small, kip-load-test, large) or - for stdin.
`

const labSetHelp = `  --set NAME=VALUE  an override of every run, repeatable: an engine config, a broker or producer
                    setting under Kafka's name, broker.PARAM or workload.PARAM (docs/scenario.md), seed
  --parallel N      runs at once (default: every core, GOMAXPROCS); results do not depend on it
`

// noCell is --export-cell's value when it is not given (any number given is checked, -2 too).
const noCell = math.MinInt

type sweepOptions struct {
	format   string
	parallel int
	export   int
	set      overridesFlag
	grid     overridesFlag
}

// sweepArgs is sweep's synopsis, also quoted by its usage errors.
const sweepArgs = "[--format csv|json] [--parallel N] [--set NAME=VALUE]... [--export-cell N] FILE --grid NAME=VALUES [--grid NAME=VALUES]"

var sweepCommand = &command{
	name:    "sweep",
	args:    sweepArgs,
	summary: "Run a grid of one or two configs on a cluster, on every core; one row per cell with the KIP's verdicts.",
	help: `Each cell is the scenario with the --set overrides and the cell's values, run to its end with
the scenario's seed; each is judged by KIP-1358's acceptance criteria (produce p99 within 1.5x
of steady over the 10 minutes after unfencing; no produce timeout; recovery at most 2x that of
immediate on the same cluster, which the sweep also runs). Rows come in cell order, the first
axis slowest, whatever order the runs finish in. CSV rows are written as their cells finish;
Ctrl-C stops the sweep at once, keeps the rows written and says on stderr how many (status 130).

` + labInputHelp + `
  --grid NAME=v1,v2,...        an axis: a name as --set takes it and its values (at most two axes,
  --grid NAME=FROM..TO:STEP    400 cells): threshold=0..20:5 is 0,5,10,15,20
  --format csv      (default) a header, then one row per cell: its values, recovery and p99
                    figures (-1: never or not measured) and the three verdicts
  --format json     {"axes": [...], "cells": [{"values", "summary", "verdicts" (with the model
                    parameters that drive them), ...}]}
  --export-cell N   print cell N's scenario instead of running: 'kraftlab run' replays it
` + labSetHelp + `
Example: the KIP's load test, threshold against max.per.run:
  kraftlab sweep preset:kip-load-test --set leader.imbalance.election.algorithm=wait-for-sync \
      --grid leader.imbalance.election.wait.for.sync.threshold.percent=0..20:5 \
      --grid leader.imbalance.election.max.per.run=50,100,200,500,1000
`,
	flags: func(fs *flag.FlagSet) any {
		o := &sweepOptions{export: noCell}
		fs.StringVar(&o.format, "format", formatCSV, "output format: csv or json")
		fs.IntVar(&o.parallel, "parallel", runtime.GOMAXPROCS(0), "runs at once")
		fs.IntVar(&o.export, "export-cell", noCell, "print this cell's scenario instead of running")
		fs.Var(&o.set, "set", "an override of every run: NAME=VALUE (repeatable)")
		fs.Var(&o.grid, "grid", "an axis: NAME=v1,v2,... or NAME=FROM..TO:STEP (one or two)")
		return o
	},
	main: sweepMain,
}

func sweepMain(e *env, opts any, args []string) int {
	o := opts.(*sweepOptions)
	if o.parallel < 1 {
		return usageError(e, "kraftlab sweep: --parallel must be at least 1, got %d", o.parallel)
	}
	if code, ok := checkFormatAndFile(e, "sweep", o.format, []string{formatCSV, formatJSON}, args, sweepArgs); !ok {
		return code
	}
	if len(o.grid.list) == 0 {
		return usageError(e, "kraftlab sweep: give one or two --grid NAME=VALUES axes")
	}
	sets, err := o.set.overrides("--set")
	if err != nil {
		return usageError(e, "kraftlab sweep: %v", err)
	}
	var axes []lab.Axis
	for _, g := range o.grid.list {
		a, err := lab.ParseAxis(g)
		if err != nil {
			return usageError(e, "kraftlab sweep: --grid %v", err)
		}
		axes = append(axes, a)
	}
	doc, err := loadLabInput(e, args[0])
	if err != nil {
		return labError(e, "sweep", err)
	}
	sw, err := lab.PlanSweep(doc, sets, axes)
	if err != nil {
		return labError(e, "sweep", err)
	}
	if o.export != noCell {
		sc, err := sw.CellScenario(o.export)
		if err != nil {
			return usageError(e, "kraftlab sweep: --export-cell: %v", err)
		}
		_, err = e.stdout.Write(sc)
		return writeResult(e, "sweep", err)
	}
	// CSV rows are written as cells finish, in grid order, so an interrupted sweep keeps them;
	// JSON is one document, written at the end with the cells done.
	var cw *csv.Writer
	if o.format == formatCSV {
		cw = csv.NewWriter(e.stdout)
		if err := cw.Write(sw.CSVHeader()); err != nil {
			return writeResult(e, "sweep", err)
		}
		cw.Flush()
	}
	// The runs stop at their next simulated second once interrupted, but one that is still
	// building a large cluster cannot: the command does not wait for them. Rows go out under
	// mu, and none after the interrupt is noticed, so what is written is whole rows.
	var mu sync.Mutex
	done, closed := 0, false
	finished := make(chan error, 1)
	go func() {
		_, err := sw.Stream(e.ctx, lab.Options{Workers: o.parallel}, func(c *lab.Cell) error {
			mu.Lock()
			defer mu.Unlock()
			if closed {
				return e.ctx.Err()
			}
			if cw != nil {
				if err := cw.Write(sw.CSVRow(c)); err != nil {
					return err
				}
				cw.Flush()
				if err := cw.Error(); err != nil {
					return err
				}
			}
			done++
			return nil
		})
		finished <- err
	}()
	select {
	case err = <-finished:
	case <-e.ctx.Done():
		err = e.ctx.Err()
	}
	mu.Lock()
	closed = true
	mu.Unlock()
	interrupted := err != nil && e.ctx.Err() != nil
	if err != nil && !interrupted {
		if cw != nil && cw.Error() != nil {
			return writeResult(e, "sweep", err)
		}
		return labError(e, "sweep", err)
	}
	if cw == nil {
		var out bytes.Buffer
		err = sw.WriteJSONFirst(&out, done)
		if err == nil {
			_, err = e.stdout.Write(out.Bytes())
		}
		if status := writeResult(e, "sweep", err); status != exitOK {
			return status
		}
	}
	if interrupted {
		which := "none had finished"
		if done > 0 {
			which = fmt.Sprintf("cells 0 to %d, in grid order", done-1)
		}
		fmt.Fprintf(e.stderr, "kraftlab sweep: interrupted: %d of %d cells written (%s); the rest did not run\n", done, len(sw.Cells), which)
		return exitInterrupted
	}
	for _, c := range sw.Cells {
		if c.Result.Violation != "" {
			fmt.Fprintf(e.stderr, "kraftlab sweep: cell %d stopped at an invariant violation (a bug in KRaft Lab's model; please report it with the cell's scenario, --export-cell %d): %s\n",
				c.Index, c.Index, c.Result.Violation)
			return exitFailure
		}
	}
	return exitOK
}

// loadLabInput reads FILE as a scenario, a lab description or preset:NAME, and returns the
// cluster-mode scenario it stands for.
func loadLabInput(e *env, name string) ([]byte, error) {
	if p, ok := strings.CutPrefix(name, "preset:"); ok {
		d, err := lab.Preset(p)
		if err != nil {
			return nil, usage{err}
		}
		return d.Scenario()
	}
	data, err := readInput(e, name)
	if err != nil {
		return nil, usage{err}
	}
	if lab.IsDescription(data) {
		d, err := lab.ParseDescription(data)
		if err != nil {
			return nil, usage{err}
		}
		return d.Scenario()
	}
	return data, nil
}

// usage marks an error as the user's input (exit status 2).
type usage struct{ error }

// Unwrap returns the cause.
func (u usage) Unwrap() error { return u.error }

// labError reports an input the lab refused with status 2 (a bad file, override or grid, the
// user's to fix) and anything else with 1.
func labError(e *env, cmd string, err error) int {
	var se *scenario.Error
	var fe *lab.FieldError
	var ie *lab.InputError
	var u usage
	if errors.As(err, &se) || errors.As(err, &fe) || errors.As(err, &ie) || errors.As(err, &u) {
		return usageError(e, "kraftlab %s: %v", cmd, err)
	}
	fmt.Fprintf(e.stderr, "kraftlab %s: %v\n", cmd, err)
	return exitFailure
}

func writeResult(e *env, cmd string, err error) int {
	if err != nil {
		fmt.Fprintf(e.stderr, "kraftlab %s: writing the result: %v\n", cmd, err)
		return exitFailure
	}
	return exitOK
}

type labOptions struct {
	format      string
	parallel    int
	set         overridesFlag
	policies    overridesFlag
	properties  string
	sensitivity bool
	assumptions string
	scenario    bool
	rehearse    rehearseOptions
}

const labArgs = "[--format text|json] [--parallel N] [--set NAME=VALUE]... [--properties FILE] [--policy NAME=VALUE,...]... [--sensitivity [--assumptions KEY,...]] [--scenario] " +
	"[--topics FILE [--log-dirs FILE] [--quorum FILE] [--rates FILE]] [--plan FILE [--report FILE.html|FILE.md]] FILE"

var labCommand = &command{
	name:    "lab",
	args:    labArgs,
	summary: "Compare policies on a cluster with the KIP's verdicts, optionally with the model's assumptions moved.",
	help: `Runs each policy and today's immediate policy on the same cluster and seed, and prints the
verdict table of KIP-1358's acceptance criteria: each criterion's measured figure, its limit and
pass, fail or "not measured" (never a pass by default), then the model parameters the verdicts
rest on.

` + labInputHelp + `
  --policy NAME=VALUE,...  a policy: overrides separated by commas (repeatable; default: immediate
                    and the KIP's example, wait-for-sync threshold 5 %, max.per.run 200, throttle 15 s)
  --properties FILE a server.properties or 'kafka-configs.sh --describe' output, applied to every
                    run; each line not used is listed on stderr with its line number and reason
  --sensitivity     run the comparison again with each uncertain model parameter at its low and
                    high value, and flag the verdicts that flip
  --assumptions K,… only these (` + strings.Join(lab.AssumptionKeys(), ", ") + `)
  --scenario        print the scenario FILE stands for (--set and --properties applied) and stop
  --format text     (default) tables for people; json: policies with summaries, verdicts, series
` + labSetHelp + "\n" + rehearseHelp,
	flags: func(fs *flag.FlagSet) any {
		o := &labOptions{}
		fs.StringVar(&o.format, "format", formatText, "output format: text or json")
		fs.IntVar(&o.parallel, "parallel", runtime.GOMAXPROCS(0), "runs at once")
		fs.Var(&o.set, "set", "an override of every run: NAME=VALUE (repeatable)")
		fs.Var(&o.policies, "policy", "a policy: NAME=VALUE,... (repeatable)")
		fs.StringVar(&o.properties, "properties", "", "a server.properties or kafka-configs.sh --describe output")
		fs.BoolVar(&o.sensitivity, "sensitivity", false, "move the model's assumptions to their low and high values")
		fs.StringVar(&o.assumptions, "assumptions", "", "the assumptions to move (default all)")
		fs.BoolVar(&o.scenario, "scenario", false, "print the scenario and stop")
		o.rehearse.register(fs)
		return o
	},
	main: labMain,
}

func labMain(e *env, opts any, args []string) int {
	o := opts.(*labOptions)
	args, err := o.rehearse.check(args)
	if err != nil {
		return usageError(e, "kraftlab lab: %v", err)
	}
	if code, ok := checkFormatAndFile(e, "lab", o.format, []string{formatText, formatJSON}, args, labArgs); !ok {
		return code
	}
	sets, err := o.set.overrides("--set")
	if err != nil {
		return usageError(e, "kraftlab lab: %v", err)
	}
	if o.properties != "" {
		text, err := readCapped(e, o.properties, maxPropertiesBytes, "a properties file")
		if err == nil {
			err = checkText(text)
		}
		if err != nil {
			return usageError(e, "kraftlab lab: --properties %s: %v", displayName(o.properties), err)
		}
		props := lab.ParseProperties(string(text))
		for _, l := range props.Problems() {
			fmt.Fprintf(e.stderr, "%s:%d: %s: %s: %s\n", o.properties, l.Line, l.Status, l.Text, l.Reason)
		}
		sets = append(props.Overrides, sets...)
	}
	policies := lab.DefaultPolicies()
	if len(o.policies.list) > 0 {
		policies = nil
		for _, text := range o.policies.list {
			p := lab.Policy{Name: text}
			for _, part := range strings.Split(text, ",") {
				ov, err := lab.ParseOverride(part)
				if err != nil {
					return usageError(e, "kraftlab lab: --policy %v", err)
				}
				p.Overrides = append(p.Overrides, ov)
			}
			policies = append(policies, p)
		}
	}
	doc, err := o.rehearse.load(e, args[0])
	if err == nil {
		doc, err = lab.ApplyOverrides(doc, sets)
	}
	if err != nil {
		return labError(e, "lab", err)
	}
	if o.scenario {
		_, err := e.stdout.Write(doc)
		return writeResult(e, "lab", err)
	}
	if o.rehearse.plan != "" {
		return o.rehearse.rehearse(e, o, doc, sets, policies)
	}
	run := lab.Options{Workers: o.parallel}
	var out bytes.Buffer
	if o.sensitivity {
		var keys []string
		if o.assumptions != "" {
			keys = strings.Split(o.assumptions, ",")
		}
		s, err := lab.RunSensitivity(e.ctx, doc, policies, keys, run)
		if e.ctx.Err() != nil {
			return interruptedLab(e)
		}
		if err != nil {
			return labError(e, "lab", err)
		}
		if o.format == formatText {
			err = s.WriteText(&out)
		} else {
			err = s.WriteJSON(&out)
		}
		if err == nil {
			_, err = e.stdout.Write(out.Bytes())
		}
		return writeResult(e, "lab", err)
	}
	cmp, err := lab.Compare(e.ctx, doc, policies, run)
	if e.ctx.Err() != nil {
		return interruptedLab(e)
	}
	if err != nil {
		return labError(e, "lab", err)
	}
	if o.format == formatText {
		err = cmp.WriteText(&out)
	} else {
		err = cmp.WriteJSON(&out)
	}
	if err == nil {
		_, err = e.stdout.Write(out.Bytes())
	}
	return writeResult(e, "lab", err)
}

// maxPropertiesBytes bounds --properties: a broker's server.properties is a few kB, and a
// describe of every topic of a large cluster a few MB.
const maxPropertiesBytes = 16 << 20

// checkText refuses what is not text (a binary file given by mistake), naming where: its
// lines would otherwise be echoed to the terminal as unused lines.
func checkText(b []byte) error {
	if !utf8.Valid(b) {
		return errors.New("it is not UTF-8 text (give a server.properties or kafka-configs.sh --describe output)")
	}
	for i, c := range b {
		if c < 0x20 && c != '\t' && c != '\n' && c != '\r' && c != '\f' {
			return fmt.Errorf("it is not text: control byte 0x%02x at offset %d (give a server.properties or kafka-configs.sh --describe output)", c, i)
		}
	}
	return nil
}

// interruptedLab reports a lab command stopped by an interrupt: its table compares every run
// with the others, so nothing of it is written.
func interruptedLab(e *env) int {
	fmt.Fprintln(e.stderr, "kraftlab lab: interrupted before every run was done; nothing written (the verdicts compare each policy with the others)")
	return exitInterrupted
}
