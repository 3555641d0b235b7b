package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/misslab/misslab/internal/cli"
	"github.com/misslab/misslab/internal/version"
)

// commandHelp is what the usages say of a subcommand: its arguments, a
// one-line summary for `coordinator --help` and a paragraph for its own.
type commandHelp struct {
	name, synopsis, summary, about string
}

// sweepArg says what a SWEEP argument may be.
const sweepArg = "SWEEP is a sweep id, a unique id prefix or a sweep name (the latest\nsubmitted sweep of that name)."

// commandHelps lists the subcommands in the order `coordinator --help`
// shows them.
var commandHelps = []commandHelp{
	{"serve", "--data DIR [--listen ADDR] [flags]", "run a coordinator for workers",
		"Serves the sweeps stored in the data directory DIR to workers (worker --join\n" +
			"ADDR) and to submit, status, cancel, retry and export, until SIGTERM or\n" +
			"Ctrl-C. docs/OPERATIONS.md covers deployment, security and metrics."},
	{"submit", "GRID [--addr ADDR] [--reps N] [flags]", "submit a grid and follow it (Ctrl-C detaches)",
		"Submits every sweep of the grid file GRID to the coordinator at --addr\n" +
			"(uploading a table sweep's table when the coordinator lacks it) and follows\n" +
			"them until they complete; Ctrl-C detaches and leaves them running."},
	{"status", "[SWEEP] [--addr ADDR] [--json] [flags]", "progress of one or every sweep",
		"Prints the progress of sweep SWEEP, or of every sweep the coordinator holds,\n" +
			"as a table or, with --json, as JSON (keys in docs/OPERATIONS.md).\n\n" + sweepArg},
	{"cancel", "SWEEP [--addr ADDR] [flags]", "stop a sweep (a later submit resumes it)",
		"Stops a sweep and revokes its leases; submitting its grid again resumes it.\n\n" + sweepArg},
	{"retry", "SWEEP [--addr ADDR] [flags]", "run a sweep's failed jobs again",
		"Puts the jobs of a sweep that failed for good back to run, with their error\n" +
			"counts at zero, and deletes their stored failures.\n\n" + sweepArg},
	{"export", "SWEEP --out FILE [--folds] [--data DIR | --addr ADDR] [flags]",
		"write a sweep's results as tidy CSV, or with --folds a table sweep's folds, from a coordinator " +
			"or offline from its data directory (--data)",
		"Writes a sweep's results as tidy CSV (one row per scenario, repetition,\n" +
			"pipeline and metric), or with --folds a table sweep's fold assignment, to\n" +
			"FILE ('-' for standard output). It asks the coordinator at --addr, or with\n" +
			"--data reads the data directory DIR itself, read-only and with no\n" +
			"coordinator (after coordinator run, or on a copy of a served directory):\n" +
			"both write the same bytes.\n\n" + sweepArg},
	{"plan", "GRID [--reps N] [--json] [--slurm] [flags]", "what a grid would run, and its cost",
		"Prints what the grid file GRID would run, without running it: sweeps,\n" +
			"scenarios, jobs, fits per learner family, estimated CPU and wall time, and a\n" +
			"table sweep's table; with --json the same as JSON (keys in\n" +
			"docs/OPERATIONS.md), with --slurm a Slurm allocation too."},
	{"run", "GRID --out DIR [--reps N] [flags]",
		"run a grid here on all cores, write DIR/results.csv and each sweep's report in DIR/report/<sweep>/",
		"Runs every sweep of the grid file GRID on this machine (a coordinator and a\n" +
			"worker in this process), then writes DIR/results.csv and each sweep's report\n" +
			"in DIR/report/<sweep>/. Stored results are reused: an interrupted run resumes."},
	{"report", "[SWEEP] --data DIR --out DIR", "write a sweep's report from a data directory (offline)",
		"Writes the report (index.html, figures, CSV) of a stored sweep from a data\n" +
			"directory, read-only and with no coordinator. Without SWEEP the store must\n" +
			"hold a single sweep.\n\n" + sweepArg},
	{"check", "--data DIR", "verify a data directory's store (read only); fails on damage",
		"Checks a store without changing it: every page, every record's checksum\n" +
			"and count, bbolt's consistency check, the schema version and every record,\n" +
			"naming each damaged one. A store of an older schema is migrated in a\n" +
			"temporary copy, to say what opening it would do. Stop the coordinator\n" +
			"first, or check a copy of its data directory. Exits non-zero on damage."},
	{"version", "", "misslab's version, commit, Go release and floating-point class",
		"Prints one line: misslab's version and commit, the Go release and platform it\n" +
			"was built with, and its floating-point class (docs/OPERATIONS.md). Workers\n" +
			"must compute in the coordinator's class. Also coordinator --version."},
	{"help", "[COMMAND]", "this usage, or a command's", ""},
}

// helpOf returns the help of subcommand name; it panics for an unknown
// one, which is a bug of this file.
func helpOf(name string) commandHelp {
	for _, h := range commandHelps {
		if h.name == name {
			return h
		}
	}
	panic("coordinator: no help for command " + name)
}

// newCommand returns the flag set of subcommand name, with its usage.
func newCommand(name string) *cli.Command {
	h := helpOf(name)
	return cli.New("coordinator "+name, h.synopsis, h.about)
}

// usage is `coordinator --help`: every subcommand with its arguments and
// summary.
func usage() string {
	var b strings.Builder
	b.WriteString("usage: coordinator <command> [arguments]\n\ncommands:\n")
	const col, width = 42, 80
	for _, h := range commandHelps {
		head := fmt.Sprintf("  %-8s %s", h.name, strings.TrimSuffix(h.synopsis, " [flags]"))
		if len(head) >= col-1 {
			b.WriteString(head + "\n")
			head = ""
		}
		line := ""
		for _, word := range strings.Fields(h.summary) {
			if line != "" && col+len(line)+1+len(word) > width {
				fmt.Fprintf(&b, "%-*s%s\n", col, head, line)
				head, line = "", ""
			}
			line = strings.TrimPrefix(line+" "+word, " ")
		}
		fmt.Fprintf(&b, "%-*s%s\n", col, head, line)
	}
	b.WriteString("\n" + sweepArg + "\n\n" +
		"'coordinator help COMMAND' or 'coordinator COMMAND --help' lists a command's\n" +
		"flags; 'coordinator --version' prints the version.\n")
	return b.String()
}

// commands maps each subcommand to its function, which writes its output
// to w.
func commands() map[string]func(w io.Writer, args []string) error {
	return map[string]func(io.Writer, []string) error{
		"serve": stdout(serve), "submit": submit, "status": statusTo, "cancel": cancelTo, "retry": retryTo,
		"export": exportTo, "plan": planTo, "run": stdout(run), "report": stdout(reportCmd), "check": checkTo,
		"version": versionCmd, "help": helpCmd,
	}
}

// stdout adapts a command that writes to os.Stdout itself.
func stdout(f func([]string) error) func(io.Writer, []string) error {
	return func(_ io.Writer, args []string) error { return f(args) }
}

// realMain runs the command line args (without the program's name) and
// returns its exit status: 0, 1 when the command failed, 2 when the
// command line does not parse (see cli.Exit).
func realMain(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage())
		return 2
	}
	name, rest := args[0], args[1:]
	switch name {
	case "-h", "-help", "--help":
		fmt.Fprint(stdout, usage())
		return 0
	case "-version", "--version":
		name = "version"
	}
	cmd := commands()[name]
	if cmd == nil {
		fmt.Fprintf(stderr, "coordinator: unknown command %q\n\n%s", name, usage())
		return 2
	}
	return cli.Exit(stdout, stderr, "coordinator "+name, cmd(stdout, rest))
}

// helpCmd prints the usage, or with a command's name that command's.
func helpCmd(w io.Writer, args []string) error {
	cmd := newCommand("help")
	pos, err := cmd.Parse(args)
	switch {
	case err != nil:
		return err
	case len(pos) > 1:
		return cmd.Usagef("give at most one command")
	case len(pos) == 0:
		_, err := io.WriteString(w, usage())
		return err
	}
	sub := commands()[pos[0]]
	if sub == nil {
		return cmd.Usagef("unknown command %q", pos[0])
	}
	return sub(w, []string{"--help"})
}

// versionCmd prints the version line (internal/version).
func versionCmd(w io.Writer, args []string) error {
	cmd := newCommand("version")
	pos, err := cmd.Parse(args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return cmd.Usagef("takes no argument")
	}
	_, err = fmt.Fprintln(w, version.Line())
	return err
}
