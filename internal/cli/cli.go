package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
)

// Command is one command's flag set, with what its usage says: the
// command's name ("coordinator plan"), its synopsis ("GRID [flags]") and
// a paragraph about it. Flags are defined on the embedded flag.FlagSet as
// usual; Hide keeps some out of the usage.
type Command struct {
	*flag.FlagSet
	Name     string // what the usage line and error messages name
	Synopsis string // the arguments after Name in the usage line
	About    string // text after the usage line ("" for none)
	hidden   map[string]bool
}

// New returns a command whose flag set continues on error and prints
// nothing itself: Parse's errors carry what to print (see Exit).
func New(name, synopsis, about string) *Command {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	return &Command{FlagSet: fs, Name: name, Synopsis: synopsis, About: about, hidden: map[string]bool{}}
}

// Hide keeps the named flags out of the usage (knobs for tests and
// scripts that users need not see); they still parse. Naming a flag
// that is not defined panics: the list must not drift from the flags.
func (c *Command) Hide(names ...string) {
	for _, n := range names {
		if c.Lookup(n) == nil {
			panic("cli: Hide of undefined flag --" + n)
		}
		c.hidden[n] = true
	}
}

// Hidden reports whether the flag name is hidden from the usage.
func (c *Command) Hidden(name string) bool { return c.hidden[name] }

// Parse parses flags and positional arguments in any order (a "--" ends
// the flags) and returns the positional arguments. -h, -help, --help,
// and "help" as the only argument, return a *HelpError; a flag that does
// not parse a *UsageError.
func (c *Command) Parse(args []string) ([]string, error) {
	if len(args) == 1 && args[0] == "help" {
		return nil, &HelpError{Cmd: c}
	}
	var pos []string
	for {
		if err := c.FlagSet.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, &HelpError{Cmd: c}
			}
			return nil, &UsageError{Cmd: c, Err: dashes(err)}
		}
		rest := c.Args()
		if len(rest) == 0 {
			return pos, nil
		}
		if used := len(args) - len(rest); used > 0 && args[used-1] == "--" {
			return append(pos, rest...), nil
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}

// dashes rewrites the flag package's errors, which write every flag with
// one dash, in the --flag form of the usage.
func dashes(err error) error {
	msg := err.Error()
	if name, ok := strings.CutPrefix(msg, "flag provided but not defined: -"); ok {
		return errors.New("unknown flag " + dash(name))
	}
	if name, ok := strings.CutPrefix(msg, "flag needs an argument: -"); ok {
		return errors.New("flag " + dash(name) + " needs a value")
	}
	if before, after, ok := strings.Cut(msg, " for flag -"); ok {
		name, rest, _ := strings.Cut(after, ":")
		return errors.New(before + " for flag " + dash(name) + ":" + rest)
	}
	return err
}

// dash returns a flag's name with its dashes: -o, --reps.
func dash(name string) string {
	name = strings.TrimLeft(name, "-")
	if len(name) == 1 {
		return "-" + name
	}
	return "--" + name
}

// Usagef returns a *UsageError: the command line itself is wrong (a
// missing argument or flag), and the usage is shown with the message.
func (c *Command) Usagef(format string, args ...any) error {
	return &UsageError{Cmd: c, Err: fmt.Errorf(format, args...)}
}

// HelpError is Parse's answer to -h, --help or "help": print the usage to
// standard output and exit 0. It matches flag.ErrHelp under errors.Is.
type HelpError struct{ Cmd *Command }

func (e *HelpError) Error() string        { return "help requested" }
func (e *HelpError) Is(target error) bool { return target == flag.ErrHelp }

// UsageError is a command line that does not parse (an unknown flag, a
// bad value, a missing argument): print the message and the usage to
// standard error and exit 2.
type UsageError struct {
	Cmd *Command
	Err error
}

func (e *UsageError) Error() string { return e.Err.Error() }
func (e *UsageError) Unwrap() error { return e.Err }

// Exit reports a command's error as a command line does and returns the
// exit status: nil is 0; a *HelpError prints the usage to stdout and is
// 0; a *UsageError prints "name: message", the usage line and where to
// find more to stderr and is 2; any other error prints "name: message" to stderr and
// is 1. name is the command's name as the user typed it.
func Exit(stdout, stderr io.Writer, name string, err error) int {
	var help *HelpError
	var usage *UsageError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &help):
		help.Cmd.WriteUsage(stdout)
		return 0
	case errors.As(err, &usage):
		fmt.Fprintf(stderr, "%s: %v\n%s\nRun '%s --help' for more.\n", name, usage.Err, usage.Cmd.usageLine(), usage.Cmd.Name)
		return 2
	}
	fmt.Fprintf(stderr, "%s: %v\n", name, err)
	return 1
}

// WriteUsage writes the usage line, the text about the command and every
// flag that is not hidden, in --flag form (a one-letter flag as -f), with
// its value's kind, its description and its default when not zero.
func (c *Command) WriteUsage(w io.Writer) {
	var b strings.Builder
	b.WriteString(c.usageLine() + "\n")
	if c.About != "" {
		b.WriteString("\n" + strings.TrimRight(c.About, "\n") + "\n")
	}
	first := true
	c.VisitAll(func(f *flag.Flag) {
		if c.hidden[f.Name] {
			return
		}
		if first {
			b.WriteString("\nflags:\n")
			first = false
		}
		kind, text := flag.UnquoteUsage(f)
		b.WriteString("  " + dash(f.Name))
		if kind != "" {
			b.WriteString(" " + kind)
		}
		b.WriteString("\n")
		if !zeroDefault(f) {
			if kind == "string" {
				text += fmt.Sprintf(" (default %q)", f.DefValue)
			} else {
				text += fmt.Sprintf(" (default %s)", f.DefValue)
			}
		}
		wrap(&b, text, "        ", 78)
	})
	io.WriteString(w, b.String())
}

// usageLine is "usage: NAME SYNOPSIS".
func (c *Command) usageLine() string {
	return "usage: " + strings.TrimSpace(c.Name+" "+c.Synopsis)
}

// zeroDefault reports whether a flag's default is its type's zero value,
// which the usage leaves unsaid.
func zeroDefault(f *flag.Flag) bool {
	switch f.DefValue {
	case "", "0", "0s", "false", "[]":
		return true
	}
	return false
}

// wrap writes text in lines of at most width columns, each after indent.
func wrap(b *strings.Builder, text, indent string, width int) {
	line := indent
	for _, word := range strings.Fields(text) {
		if len(line) > len(indent) && len(line)+1+len(word) > width {
			b.WriteString(line + "\n")
			line = indent
		}
		if len(line) > len(indent) {
			line += " "
		}
		line += word
	}
	b.WriteString(line + "\n")
}

// Output is the output-format flags of a command that can print JSON:
// --json, and its alias -o json (-o text is the default).
type Output struct {
	cmd    *Command
	json   *bool
	format *string
}

// AddOutput defines --json and -o on c; what names what the JSON holds
// ("the plan").
func (c *Command) AddOutput(what string) *Output {
	return &Output{cmd: c,
		json:   c.Bool("json", false, "print "+what+" as JSON (schema in docs/OPERATIONS.md) instead of text"),
		format: c.String("o", "text", "output format, text or json (-o json is --json)")}
}

// JSON reports whether the command line asked for JSON; a format other
// than text or json is a *UsageError.
func (o *Output) JSON() (bool, error) {
	switch *o.format {
	case "json":
		return true, nil
	case "text":
		return *o.json, nil
	}
	return false, o.cmd.Usagef("-o %q: the output formats are text and json", *o.format)
}
