package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/kraftlab/kraftlab/cluster/scenario"
)

// Output formats of run.
const (
	formatJSON = "json"
	formatText = "text"
)

type runOptions struct {
	format string
}

var runCommand = &command{
	name:    "run",
	args:    "[--format json|text] FILE",
	summary: "Run a scenario file (- for stdin) and print its result.",
	help: `The scenario's steps run on a virtual clock; the same file and seed always give the same
output, byte for byte.

  --format json   (default) the result as JSON: every step's records, balancer runs, errors
                  and per-partition results, then the final metrics, partitions and brokers
  --format text   the same for people: one line per record, partitions as
                  kafka-topics.sh --describe prints them

An invalid scenario exits with status 2 and one line on stderr naming the field and the
problem, e.g. "steps[3].broker: broker 7 does not exist (brokers: 0, 1, 2)".
The format is documented in docs/scenario.md.
`,
	flags: func(fs *flag.FlagSet) any {
		o := &runOptions{}
		fs.StringVar(&o.format, "format", formatJSON, "output format: json or text")
		return o
	},
	main: runMain,
}

func runMain(e *env, opts any, args []string) int {
	o := opts.(*runOptions)
	if o.format != formatJSON && o.format != formatText {
		return usageError(e, "kraftlab run: --format must be json or text, got %q", o.format)
	}
	if len(args) != 1 {
		return usageError(e, "kraftlab run: want exactly one FILE, got %d arguments (usage: kraftlab run [--format json|text] FILE)", len(args))
	}
	data, err := readInput(e, args[0])
	if err != nil {
		return usageError(e, "kraftlab run: %v", err)
	}
	s, err := scenario.Parse(data)
	if err != nil {
		return usageError(e, "%v", err)
	}
	res, err := scenario.Run(s)
	if err != nil {
		var se *scenario.Error
		if errors.As(err, &se) {
			return usageError(e, "%v", err)
		}
		fmt.Fprintf(e.stderr, "kraftlab run: %v\n", err)
		return exitFailure
	}
	// The whole output is built first, so a failure leaves stdout empty.
	var out bytes.Buffer
	if o.format == formatText {
		err = res.WriteText(&out)
	} else {
		err = res.WriteJSON(&out)
	}
	if err == nil {
		_, err = e.stdout.Write(out.Bytes())
	}
	if err != nil {
		fmt.Fprintf(e.stderr, "kraftlab run: writing the result: %v\n", err)
		return exitFailure
	}
	return exitOK
}

func readInput(e *env, name string) ([]byte, error) {
	if name == "-" {
		return io.ReadAll(e.stdin)
	}
	return os.ReadFile(name)
}
