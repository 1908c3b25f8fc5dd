package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/kraftlab/kraftlab/cluster/scenario"
)

// Output formats of run and compare.
const (
	formatJSON = "json"
	formatText = "text"
)

// settingsFlag collects a repeatable NAME=VALUE flag. Values are validated after flag parsing,
// so that the error names the flag and the setting on one line.
type settingsFlag struct {
	name string // the flag, "--set"
	list []string
}

// String implements flag.Value.
func (s *settingsFlag) String() string { return strings.Join(s.list, " ") }

// Set implements flag.Value: each use of the flag adds one setting.
func (s *settingsFlag) Set(v string) error {
	s.list = append(s.list, v)
	return nil
}

// parse validates every setting; the first bad one is the error.
func (s *settingsFlag) parse() ([]scenario.Setting, error) {
	var out []scenario.Setting
	for _, text := range s.list {
		st, err := scenario.ParseSetting(s.name, text)
		if err != nil {
			return nil, err
		}
		out = append(out, st)
	}
	return out, nil
}

type runOptions struct {
	format string
	set    settingsFlag
}

const setHelp = `  --set NAME=VALUE  override a config, repeatable: a cluster-level Kafka config, validated
                    as the "config" object's are (leader.imbalance.election.algorithm=wait-for-sync),
                    or, in cluster mode, a broker or producer setting under Kafka's name
                    (replica.lag.time.max.ms, follower.replication.throttled.rate, acks, linger.ms...)
`

// runArgs is run's synopsis, also quoted by its usage errors.
const runArgs = "[--format json|text] [--set NAME=VALUE]... FILE"

var runCommand = &command{
	name:    "run",
	args:    runArgs,
	summary: "Run a scenario file (- for stdin) and print its result.",
	help: `The scenario runs on a virtual clock; the same file, seed and settings always give the
same output, byte for byte. A file without "mode" is a cluster-mode scenario (the toy
cluster: quorum, brokers, producers, timed events); "mode": "controller" plays steps against
the engine's controller alone.

  --format json   (default) the result as JSON. Cluster mode: the events, the committed
                  records, balancer runs, describes, samples and the summary. Controller
                  mode: every step's records, balancer runs, errors and per-partition
                  results, then the final metrics, partitions and brokers
  --format text   the same for people: a timeline (cluster mode) or one line per record
                  (controller mode); partitions as kafka-topics.sh --describe prints them
` + setHelp + `
An invalid scenario or setting exits with status 2 and one line on stderr naming the field
and the problem, e.g. "events[3].broker: broker 7 does not exist (brokers: 0, 1, 2)".
A cluster-mode run stopped by an invariant violation prints its result up to the violation,
then exits with status 1 and the violation on stderr.
The format is documented in docs/scenario.md.
`,
	flags: func(fs *flag.FlagSet) any {
		o := &runOptions{set: settingsFlag{name: "--set"}}
		fs.StringVar(&o.format, "format", formatJSON, "output format: json or text")
		fs.Var(&o.set, "set", "override a config: NAME=VALUE (repeatable)")
		return o
	},
	main: runMain,
}

func runMain(e *env, opts any, args []string) int {
	o := opts.(*runOptions)
	if code, ok := checkFormatAndFile(e, "run", o.format, []string{formatJSON, formatText}, args, runArgs); !ok {
		return code
	}
	settings, err := o.set.parse()
	if err != nil {
		return usageError(e, "%v", err)
	}
	data, err := readInput(e, args[0])
	if err != nil {
		return usageError(e, "kraftlab run: %v", err)
	}
	s, err := scenario.Parse(data, settings...)
	if err != nil {
		return usageError(e, "%v", err)
	}
	res, err := scenario.Run(s)
	if err != nil {
		return runError(e, "run", err)
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
	if res.Cluster != nil && res.Cluster.Violation != "" {
		fmt.Fprintf(e.stderr, "kraftlab run: the run stopped at an invariant violation (a bug in KRaft Lab's model; please report it with the input): %s\n", res.Cluster.Violation)
		return exitFailure
	}
	return exitOK
}

// runError reports a scenario that could not run: status 2 for the scenario's own problem
// (an *scenario.Error), 1 for anything else.
func runError(e *env, cmd string, err error) int {
	var se *scenario.Error
	if errors.As(err, &se) {
		return usageError(e, "%v", err)
	}
	fmt.Fprintf(e.stderr, "kraftlab %s: %v\n", cmd, err)
	return exitFailure
}

// readInput reads a scenario or lab file (- for stdin), refusing one over
// scenario.MaxFileBytes at once: a file's size is known before reading, stdin's after at most
// that many bytes.
func readInput(e *env, name string) ([]byte, error) {
	return readCapped(e, name, scenario.MaxFileBytes, "a scenario file")
}

// maxToolOutputBytes bounds what --topics, --log-dirs, --quorum and --rates read: a Kafka
// tool's output, not a scenario file. kafka-log-dirs.sh on a 200,000-partition cluster at
// replication factor 3 prints about 110 MB, and a describe of the model's largest cluster (a
// million partitions) about 200 MB; the import needs several times its input in memory.
const maxToolOutputBytes = 512 << 20

// readCapped reads a file or stdin (-), refusing more than limit bytes, named as what.
func readCapped(e *env, name string, limit int64, what string) ([]byte, error) {
	tooLarge := func(size string) error {
		return fmt.Errorf("%s is %s; %s holds at most %d bytes (%d MiB)", displayName(name), size, what, limit, limit>>20)
	}
	var r io.Reader = e.stdin
	if name != "-" {
		f, err := os.Open(name)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		if st, err := f.Stat(); err == nil && st.Mode().IsRegular() && st.Size() > limit {
			return nil, tooLarge(fmt.Sprintf("%d bytes", st.Size()))
		}
		r = f
	}
	data, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, tooLarge("larger")
	}
	return data, nil
}

// displayName is how a file is named in messages: stdin for -.
func displayName(name string) string {
	if name == "-" {
		return "stdin"
	}
	return name
}
