package cli

import (
	"bytes"
	"errors"
	"flag"
	"slices"
	"strings"
	"testing"
)

func testCommand() (*Command, *int, *bool) {
	c := New("prog sub", "ARG [flags]", "About the command.")
	n := c.Int("reps", 0, "repetitions")
	v := c.Bool("v", false, "verbose")
	c.String("secret", "x", "a knob for tests")
	c.Hide("secret")
	return c, n, v
}

// TestParse: flags and positional arguments mix in any order, "--" ends
// the flags, help is asked for in four ways, and a bad command line is a
// usage error written with --flag names.
func TestParse(t *testing.T) {
	cases := []struct {
		args  []string
		pos   []string
		reps  int
		help  bool
		usage string // the usage error's message, "" for none
	}{
		{[]string{"a", "--reps", "3", "b"}, []string{"a", "b"}, 3, false, ""},
		{[]string{"--reps=2", "a", "-v"}, []string{"a"}, 2, false, ""},
		{[]string{"a", "--", "--reps", "4"}, []string{"a", "--reps", "4"}, 0, false, ""},
		{[]string{"--secret", "y", "a"}, []string{"a"}, 0, false, ""},
		{[]string{"-h"}, nil, 0, true, ""},
		{[]string{"--help"}, nil, 0, true, ""},
		{[]string{"a", "-help"}, nil, 0, true, ""},
		{[]string{"help"}, nil, 0, true, ""},
		{[]string{"help", "a"}, []string{"help", "a"}, 0, false, ""},
		{[]string{"--bogus"}, nil, 0, false, "unknown flag --bogus"},
		{[]string{"-x"}, nil, 0, false, "unknown flag -x"},
		{[]string{"--reps", "x"}, nil, 0, false, `invalid value "x" for flag --reps: parse error`},
		{[]string{"a", "--reps"}, nil, 0, false, "flag --reps needs a value"},
	}
	for _, tc := range cases {
		c, reps, _ := testCommand()
		pos, err := c.Parse(tc.args)
		var help *HelpError
		var usage *UsageError
		switch {
		case tc.help:
			if !errors.As(err, &help) || !errors.Is(err, flag.ErrHelp) {
				t.Errorf("%q: %v, want a help request", tc.args, err)
			}
		case tc.usage != "":
			if !errors.As(err, &usage) || err.Error() != tc.usage {
				t.Errorf("%q: %v, want the usage error %q", tc.args, err, tc.usage)
			}
		case err != nil || !slices.Equal(pos, tc.pos) || *reps != tc.reps:
			t.Errorf("%q: %q, --reps %d, %v; want %q, %d", tc.args, pos, *reps, err, tc.pos, tc.reps)
		}
	}
}

// TestUsage: the usage names the command, says what it is, and lists
// every flag but the hidden ones in --flag form (-v for one letter),
// with non-zero defaults.
func TestUsage(t *testing.T) {
	c, _, _ := testCommand()
	c.AddOutput("the thing")
	var b bytes.Buffer
	c.WriteUsage(&b)
	out := b.String()
	for _, want := range []string{"usage: prog sub ARG [flags]\n\nAbout the command.\n\nflags:\n", "\n  --reps int\n        repetitions\n",
		"\n  -v\n", "\n  --json\n", "\n  -o string\n", `(default "text")`} {
		if !strings.Contains(out, want) {
			t.Errorf("usage lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "secret") || strings.Contains(out, "(default 0)") {
		t.Errorf("usage shows a hidden flag or a zero default:\n%s", out)
	}
	defer func() {
		if recover() == nil {
			t.Error("Hide of an undefined flag did not panic")
		}
	}()
	c.Hide("nosuch")
}

// TestExit: help goes to stdout with status 0, a usage error to stderr
// with the usage line and status 2, another error to stderr with 1.
func TestExit(t *testing.T) {
	c, _, _ := testCommand()
	_, helpErr := c.Parse([]string{"--help"})
	_, usageErr := c.Parse([]string{"--bogus"})
	cases := []struct {
		err            error
		code           int
		stdout, stderr string
	}{
		{nil, 0, "", ""},
		{helpErr, 0, "usage: prog sub ARG [flags]", ""},
		{usageErr, 2, "", "prog sub: unknown flag --bogus\nusage: prog sub ARG [flags]\nRun 'prog sub --help' for more.\n"},
		{c.Usagef("need %s", "ARG"), 2, "", "prog sub: need ARG\nusage: prog sub ARG [flags]\n"},
		{errors.New("it broke"), 1, "", "prog sub: it broke\n"},
	}
	for _, tc := range cases {
		var stdout, stderr bytes.Buffer
		code := Exit(&stdout, &stderr, "prog sub", tc.err)
		if code != tc.code || !strings.HasPrefix(stdout.String(), tc.stdout) || !strings.HasPrefix(stderr.String(), tc.stderr) ||
			(tc.stdout == "") != (stdout.Len() == 0) || (tc.stderr == "") != (stderr.Len() == 0) {
			t.Errorf("%v: status %d, stdout %q, stderr %q; want %d, %q, %q", tc.err, code, stdout.String(), stderr.String(),
				tc.code, tc.stdout, tc.stderr)
		}
	}
}

func TestOutput(t *testing.T) {
	for _, tc := range []struct {
		args []string
		json bool
		bad  bool
	}{
		{nil, false, false}, {[]string{"--json"}, true, false}, {[]string{"-o", "json"}, true, false},
		{[]string{"-o", "text"}, false, false}, {[]string{"-o=json"}, true, false}, {[]string{"-o", "yaml"}, false, true},
	} {
		c := New("p", "", "")
		o := c.AddOutput("it")
		if _, err := c.Parse(tc.args); err != nil {
			t.Fatal(err)
		}
		got, err := o.JSON()
		var usage *UsageError
		if got != tc.json || errors.As(err, &usage) != tc.bad || (err != nil) != tc.bad {
			t.Errorf("%q: %v, %v", tc.args, got, err)
		}
	}
}
