package main

import (
	"bytes"
	"flag"
	"fmt"

	"github.com/kraftlab/kraftlab/cluster/scenario"
)

type compareOptions struct {
	format string
	set    settingsFlag
	a, b   settingsFlag
}

// compareArgs is compare's synopsis, also quoted by its usage errors.
const compareArgs = "[--format text|json] [--set NAME=VALUE]... FILE --a NAME=VALUE... --b NAME=VALUE..."

var compareCommand = &command{
	name:    "compare",
	args:    compareArgs,
	summary: "Run a cluster-mode scenario twice with different settings; print the summaries side by side.",
	help: `Both runs use the file's seed, so they differ only in the settings: --set applies to both,
--a to the first and --b to the second (each repeatable; at least one --a or --b). The
summaries are printed side by side with the ratio b/a of every figure ("-" where it means
nothing: a is 0, or a moment never came).

  --format text   (default) a table for people
  --format json   {"seed", "set", "a": {"settings", "summary"}, "b": {...}, "ratio": {...}}
` + setHelp + `  --a NAME=VALUE    a setting of the first run only, as --set takes it
  --b NAME=VALUE    a setting of the second run only

Example: compare today's immediate policy with the wait-for-sync gate:
  kraftlab compare roll.json --a leader.imbalance.election.algorithm=immediate \
      --b leader.imbalance.election.algorithm=wait-for-sync
`,
	flags: func(fs *flag.FlagSet) any {
		o := &compareOptions{set: settingsFlag{name: "--set"}, a: settingsFlag{name: "--a"}, b: settingsFlag{name: "--b"}}
		fs.StringVar(&o.format, "format", formatText, "output format: text or json")
		fs.Var(&o.set, "set", "a setting of both runs: NAME=VALUE (repeatable)")
		fs.Var(&o.a, "a", "a setting of the first run: NAME=VALUE (repeatable)")
		fs.Var(&o.b, "b", "a setting of the second run: NAME=VALUE (repeatable)")
		return o
	},
	main: compareMain,
}

func compareMain(e *env, opts any, args []string) int {
	o := opts.(*compareOptions)
	if code, ok := checkFormatAndFile(e, "compare", o.format, []string{formatText, formatJSON}, args, compareArgs); !ok {
		return code
	}
	if len(o.a.list)+len(o.b.list) == 0 {
		return usageError(e, "kraftlab compare: give at least one --a or --b setting: they are what the two runs differ in")
	}
	var sides [3][]scenario.Setting
	for i, f := range []*settingsFlag{&o.set, &o.a, &o.b} {
		list, err := f.parse()
		if err != nil {
			return usageError(e, "%v", err)
		}
		sides[i] = list
	}
	data, err := readInput(e, args[0])
	if err != nil {
		return usageError(e, "kraftlab compare: %v", err)
	}
	cmp, err := scenario.Compare(data, sides[0], sides[1], sides[2])
	if err != nil {
		return runError(e, "compare", err)
	}
	var out bytes.Buffer
	if o.format == formatText {
		err = cmp.WriteText(&out)
	} else {
		err = cmp.WriteJSON(&out)
	}
	if err == nil {
		_, err = e.stdout.Write(out.Bytes())
	}
	if err != nil {
		fmt.Fprintf(e.stderr, "kraftlab compare: writing the result: %v\n", err)
		return exitFailure
	}
	for i, side := range []*scenario.ComparedRun{&cmp.A, &cmp.B} {
		if side.Violation != "" {
			fmt.Fprintf(e.stderr, "kraftlab compare: run %s stopped at an invariant violation (a bug in KRaft Lab's model; please report it with the input): %s\n",
				[]string{"a", "b"}[i], side.Violation)
			return exitFailure
		}
	}
	return exitOK
}
