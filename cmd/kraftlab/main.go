// Command kraftlab is KRaft Lab's headless command line. It runs scenario files against the
// toy cluster or the engine's controller and prints what happened, for scripts, CI and people
// who prefer a terminal:
//
//	kraftlab run [--format json|text] [--set NAME=VALUE]... FILE   run a scenario (FILE may be - for stdin)
//	kraftlab compare FILE --a NAME=VALUE... --b NAME=VALUE...       run it twice, compare the summaries
//	kraftlab sweep FILE --grid NAME=VALUES [--grid NAME=VALUES]     run a grid of configs on every core (docs/lab.md)
//	kraftlab lab FILE [--policy NAME=VALUE,...]... [--sensitivity]   compare policies with the KIP's verdicts
//	kraftlab lesson check [-v] [FILE...]                             check lessons (docs/lessons.md)
//	kraftlab help [COMMAND]                                         describe the commands
//
// Exit status: 0 on success, 2 for invalid input or usage (one line on stderr, nothing on
// stdout), 1 for anything else (an I/O failure, or a bug in KRaft Lab).
//
// Each subcommand is one entry of the commands table, so sweep and serve slot in beside run and
// compare. This package imports cluster/; nothing imports it.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"slices"
	"strings"
	"syscall"
)

// Exit statuses.
const (
	exitOK      = 0
	exitFailure = 1
	exitUsage   = 2
	// exitInterrupted is the shell's status for a command ended by SIGINT (128 + 2).
	exitInterrupted = 130
)

func main() {
	// Ctrl-C (or a TERM) ends the context: a long sweep stops at once and keeps what is done.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := runContext(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// env is what a command may touch: tests run the CLI in-process with buffers.
type env struct {
	// ctx ends when the user interrupts the command.
	ctx            context.Context
	stdin          io.Reader
	stdout, stderr io.Writer
}

// command is one subcommand.
type command struct {
	name    string
	args    string // the synopsis after the name
	summary string // one line for the overview
	help    string // the rest of `kraftlab help NAME`
	// flags declares the command's flags on a fresh set; nil for none.
	flags func(fs *flag.FlagSet) any
	// main runs the command with its parsed flags and positional arguments.
	main func(e *env, opts any, args []string) int
}

// commands lists the subcommands in the order help shows them. It is filled in init because
// help itself looks commands up.
var commands []*command

func init() {
	commands = []*command{runCommand, compareCommand, sweepCommand, labCommand, lessonCommand, helpCommand}
}

func lookup(name string) *command {
	for _, c := range commands {
		if c.name == name {
			return c
		}
	}
	return nil
}

// run is the whole CLI: it dispatches to a subcommand and returns the exit status.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) (status int) {
	return runContext(context.Background(), args, stdin, stdout, stderr)
}

// runContext is run that stops its command's work when ctx ends (an interrupt).
func runContext(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) (status int) {
	e := &env{ctx: ctx, stdin: stdin, stdout: stdout, stderr: stderr}
	defer func() {
		if v := recover(); v != nil {
			fmt.Fprintf(stderr, "kraftlab: internal error (a bug in KRaft Lab; please report it with the input): %v\n%s", v, debug.Stack())
			status = exitFailure
		}
	}()
	if len(args) == 0 {
		writeOverview(stderr)
		return exitUsage
	}
	name := args[0]
	if name == "-h" || name == "--help" {
		writeOverview(stdout)
		return exitOK
	}
	c := lookup(name)
	if c == nil {
		return usageError(e, "kraftlab: unknown command %q (commands: %s; see 'kraftlab help')", name, commandNames())
	}
	fs := flag.NewFlagSet("kraftlab "+c.name, flag.ContinueOnError)
	fs.SetOutput(io.Discard) // errors are reported on one line below, not with the usage text
	var opts any
	if c.flags != nil {
		opts = c.flags(fs)
	}
	pos, err := parseInterspersed(fs, args[1:])
	if errors.Is(err, flag.ErrHelp) {
		writeHelp(stdout, c)
		return exitOK
	}
	if err != nil {
		return usageError(e, "kraftlab %s: %v (usage: kraftlab %s %s)", c.name, err, c.name, c.args)
	}
	return c.main(e, opts, pos)
}

// parseInterspersed parses flags wherever they appear among the positional arguments, so
// `kraftlab run x.json --format text` works as well as the flag-first form. A lone "-" is a
// positional argument (stdin); "--" ends the flags.
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return pos, nil
		}
		if len(args) > len(rest) && args[len(args)-len(rest)-1] == "--" {
			return append(pos, rest...), nil
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}

func usageError(e *env, format string, args ...any) int {
	msg := fmt.Sprintf(format, args...)
	fmt.Fprintln(e.stderr, strings.ReplaceAll(msg, "\n", " "))
	return exitUsage
}

// checkFormatAndFile checks what every FILE-taking command checks first: that --format is one of
// the command's formats and that exactly one FILE was given. It returns the exit status and
// false when either is wrong, having said why on stderr.
func checkFormatAndFile(e *env, cmd, format string, formats []string, args []string, usage string) (int, bool) {
	if !slices.Contains(formats, format) {
		return usageError(e, "kraftlab %s: --format must be %s, got %q", cmd, strings.Join(formats, " or "), format), false
	}
	if len(args) != 1 {
		return usageError(e, "kraftlab %s: want exactly one FILE, got %d arguments (usage: kraftlab %s %s)", cmd, len(args), cmd, usage), false
	}
	return 0, true
}

func commandNames() string {
	names := make([]string, len(commands))
	for i, c := range commands {
		names[i] = c.name
	}
	return strings.Join(names, ", ")
}

func writeOverview(w io.Writer) {
	fmt.Fprint(w, "kraftlab: KRaft Lab's command line, a playground for Apache Kafka's KRaft controller.\n\nUsage:\n")
	for _, c := range commands {
		fmt.Fprintf(w, "  kraftlab %s %s\n      %s\n", c.name, c.args, c.summary)
	}
	fmt.Fprint(w, "\nRun 'kraftlab help COMMAND' for a command's details; docs/scenario.md describes the scenario format.\n")
}

func writeHelp(w io.Writer, c *command) {
	fmt.Fprintf(w, "Usage: kraftlab %s %s\n\n%s\n", c.name, c.args, c.summary)
	if c.help != "" {
		fmt.Fprintf(w, "\n%s", c.help)
	}
}

var helpCommand = &command{
	name:    "help",
	args:    "[COMMAND]",
	summary: "Describe the commands, or one of them.",
	main: func(e *env, _ any, args []string) int {
		switch len(args) {
		case 0:
			writeOverview(e.stdout)
			return exitOK
		case 1:
			c := lookup(args[0])
			if c == nil {
				return usageError(e, "kraftlab help: unknown command %q (commands: %s)", args[0], commandNames())
			}
			writeHelp(e.stdout, c)
			return exitOK
		}
		return usageError(e, "kraftlab help: too many arguments (usage: kraftlab help [COMMAND])")
	},
}
