package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/misslab/misslab/internal/client"
	"github.com/misslab/misslab/internal/plan"
	"github.com/misslab/misslab/internal/server"
	"github.com/misslab/misslab/internal/store"
	"github.com/misslab/misslab/internal/version"
)

// call runs the coordinator's command line args in this process and
// returns its exit status, standard output and standard error.
func call(args ...string) (int, string, string) {
	var stdout, stderr bytes.Buffer
	code := realMain(args, &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

// TestHelpEverywhere: the coordinator and every subcommand answer -h,
// --help and help with their usage on standard output and status 0; a
// subcommand's usage lists its flags in --flag form.
func TestHelpEverywhere(t *testing.T) {
	type want struct {
		args   []string
		prefix string
		has    []string
	}
	top := []string{"serve    --data DIR", "export   SWEEP --out FILE", "version", "help     [COMMAND]"}
	cases := []want{{[]string{"--help"}, "usage: coordinator <command>", top}, {[]string{"-h"}, "usage: coordinator <command>", top},
		{[]string{"help"}, "usage: coordinator <command>", top}, {[]string{"-help"}, "usage: coordinator <command>", top}}
	flags := map[string][]string{
		"serve":  {"--data string", "--listen string", "--fp-class string", "--token-file string", "--addr-file string"},
		"submit": {"--addr string", "--reps int", "--detach"}, "status": {"--addr string", "--json", "-o string"},
		"cancel": {"--addr string"}, "retry": {"--addr string"}, "export": {"--out string", "--folds", "--data string", "--addr string"},
		"plan": {"--reps int", "--json", "--slurm", "--calibrate"}, "run": {"--out string", "--reps int", "--parallel int", "--methods string"},
		"report": {"--data string", "--out string"}, "check": {"--data string"}, "version": nil, "help": nil,
	}
	for _, h := range commandHelps {
		if _, ok := flags[h.name]; !ok {
			t.Errorf("command %s is not tested", h.name)
		}
	}
	for name, fl := range flags {
		prefix := "usage: coordinator " + name
		for _, args := range [][]string{{name, "-h"}, {name, "--help"}, {name, "help"}, {"help", name}} {
			cases = append(cases, want{args, prefix, fl})
		}
	}
	for _, c := range cases {
		code, stdout, stderr := call(c.args...)
		if code != 0 || stderr != "" || !strings.HasPrefix(stdout, c.prefix) {
			t.Errorf("%q: status %d, stderr %q, stdout:\n%s", c.args, code, stderr, stdout)
			continue
		}
		for _, h := range c.has {
			if !strings.Contains(stdout, "\n"+strings.TrimRight("  "+h, " ")) {
				t.Errorf("%q: the usage lacks %q:\n%s", c.args, h, stdout)
			}
		}
	}
}

// TestBadCommandLines: an unknown command, flag or argument exits 2 with
// a short message and the usage on standard error, nothing on standard
// output; a command that fails exits 1.
func TestBadCommandLines(t *testing.T) {
	grid := writeGrid(t)
	for _, c := range []struct {
		args []string
		code int
		msg  string
	}{
		{nil, 2, "usage: coordinator <command>"},
		{[]string{"bogus"}, 2, "coordinator: unknown command \"bogus\"\n\nusage: coordinator <command>"},
		{[]string{"--bogus"}, 2, "coordinator: unknown command \"--bogus\""},
		{[]string{"help", "bogus"}, 2, "coordinator help: unknown command \"bogus\"\nusage: coordinator help [COMMAND]"},
		{[]string{"plan", "--bogus", grid}, 2, "coordinator plan: unknown flag --bogus\nusage: coordinator plan GRID"},
		{[]string{"plan"}, 2, "coordinator plan: need exactly one grid file\nusage: coordinator plan GRID"},
		{[]string{"plan", grid, "--reps", "x"}, 2, `coordinator plan: invalid value "x" for flag --reps`},
		{[]string{"plan", grid, "-o", "yaml"}, 2, "coordinator plan: -o \"yaml\": the output formats are text and json"},
		{[]string{"status", "a", "b"}, 2, "coordinator status: give at most one sweep\nusage: coordinator status"},
		{[]string{"export", "x"}, 2, "coordinator export: need one sweep and --out"},
		{[]string{"export", "x", "--out", "-", "--data", "d", "--addr", "h:1"}, 2, "give --data (a data directory, offline) or --addr"},
		{[]string{"run", grid}, 2, "coordinator run: --out is required"},
		{[]string{"check"}, 2, "coordinator check: need --data"},
		{[]string{"serve"}, 2, "coordinator serve: need --data"},
		{[]string{"version", "x"}, 2, "coordinator version: takes no argument"},
		{[]string{"plan", filepath.Join(t.TempDir(), "none.hcl")}, 1, "coordinator plan: "},
		{[]string{"run", grid, "--out", t.TempDir(), "--executor", "bogus"}, 1, "coordinator run: "},
	} {
		code, stdout, stderr := call(c.args...)
		if code != c.code || stdout != "" || !strings.HasPrefix(stderr, c.msg) && !strings.Contains(stderr, c.msg) {
			t.Errorf("%q: status %d (want %d), stdout %q, stderr:\n%s", c.args, code, c.code, stdout, stderr)
		}
		if c.code == 2 && len(c.args) > 0 && !strings.Contains(stderr, "usage: coordinator") {
			t.Errorf("%q: no usage on standard error:\n%s", c.args, stderr)
		}
	}
}

// TestVersion: version and --version print the version line.
func TestVersion(t *testing.T) {
	for _, args := range [][]string{{"version"}, {"--version"}, {"-version"}} {
		code, stdout, stderr := call(args...)
		if code != 0 || stderr != "" || stdout != version.Line()+"\n" ||
			!strings.HasSuffix(stdout, ", floating-point class "+version.Get().FPClass+"\n") {
			t.Errorf("%q: status %d, stdout %q, stderr %q", args, code, stdout, stderr)
		}
	}
}

// TestHiddenFlags: run --executor, a knob for tests, is absent from the
// usage but still parses.
func TestHiddenFlags(t *testing.T) {
	_, usage, _ := call("run", "--help")
	if strings.Contains(usage, "executor") || strings.Contains(usage, "for tests") {
		t.Errorf("run's usage shows a test knob:\n%s", usage)
	}
	out := filepath.Join(t.TempDir(), "out")
	if code, _, stderr := call("run", writeGrid(t), "--out", out, "--executor", "noop"); code != 0 {
		t.Fatalf("run --executor noop: status %d\n%s", code, stderr)
	}
}

// writeGrid writes testGrid to a file and returns its path.
func writeGrid(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "tiny.hcl")
	must(t, os.WriteFile(path, []byte(testGrid), 0o644))
	return path
}

// TestPlanJSON: plan --json (or -o json) prints a JSON document whose
// numbers are the text plan's.
func TestPlanJSON(t *testing.T) {
	grid := writeGrid(t)
	code, text, _ := call("plan", grid)
	if code != 0 {
		t.Fatalf("plan: status %d", code)
	}
	code, out, stderr := call("plan", grid, "--json")
	_, alias, _ := call("plan", "-o", "json", grid)
	if code != 0 || stderr != "" || out != alias {
		t.Fatalf("plan --json: status %d, stderr %q; -o json printed another document:\n%s\n%s", code, stderr, out, alias)
	}
	var doc plan.JSON
	must(t, json.Unmarshal([]byte(out), &doc))
	sw := doc.Sweeps[0]
	head := fmt.Sprintf("grid %s: 1 sweep(s), %d jobs, %d fits; estimated %.1fs CPU, %.1fs wall on %d core(s)",
		grid, doc.Jobs, doc.Fits, doc.CPUSeconds, doc.WallSeconds, doc.Cores)
	row := fmt.Sprintf("tiny %d %d %d %d %d %.1fs %.1fs", sw.Scenarios, sw.Repetitions, sw.Jobs, len(sw.Pipelines),
		sw.FitsPerLearner["tree"], sw.CPUSeconds, sw.WallSeconds)
	found := false
	for _, line := range strings.Split(text, "\n") {
		found = found || strings.Join(strings.Fields(line), " ") == row
	}
	if !found {
		t.Errorf("the text plan lacks the row %q, from the JSON:\n%s", row, text)
	}
	for _, want := range []string{head, fmt.Sprintf("sweep %q (hash %s)", sw.Name, sw.Hash[:12]), "pipelines: " + strings.Join(sw.Pipelines, ", ")} {
		if !strings.Contains(text, want) {
			t.Errorf("the text plan lacks %q, from the JSON:\n%s", want, text)
		}
	}
	if doc.SchemaVersion != 1 || doc.Jobs != 4 || sw.Scenarios != 2 || sw.Repetitions != 2 || doc.Fits != 8 || sw.Table != nil || doc.Slurm != nil {
		t.Errorf("JSON plan: %s", out)
	}
	_, out, _ = call("plan", grid, "--json", "--slurm")
	must(t, json.Unmarshal([]byte(out), &doc))
	if doc.Slurm == nil || doc.Slurm.Nodes < 1 || !strings.HasSuffix(doc.Slurm.Command, "deploy/slurm/sweep.sbatch "+grid) {
		t.Errorf("plan --json --slurm: %s", out)
	}
}

// serveDir serves a coordinator on data directory dir and returns its
// address and a function that stops it and closes the store.
func serveDir(t *testing.T, dir string) (string, func()) {
	t.Helper()
	coord, err := server.Open(context.Background(), dir, server.Options{})
	must(t, err)
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	must(t, err)
	ctx, cancel := context.WithCancel(t.Context())
	served := make(chan error, 1)
	go func() { served <- coord.Serve(ctx, lis) }()
	stopped := false
	stop := func() {
		if !stopped {
			stopped = true
			cancel()
			must(t, <-served)
			must(t, coord.Close())
		}
	}
	t.Cleanup(stop)
	return lis.Addr().String(), stop
}

// TestStatusJSON: status --json prints every sweep with the text table's
// numbers and its full id.
func TestStatusJSON(t *testing.T) {
	dir := t.TempDir()
	id := writeFailedStore(t, dir)
	addr, _ := serveDir(t, dir)
	var text, js bytes.Buffer
	must(t, statusTo(&text, []string{"--addr", addr}))
	must(t, statusTo(&js, []string{"tiny", "--addr", addr, "-o", "json"}))
	var doc client.StatusJSON
	must(t, json.Unmarshal(js.Bytes(), &doc))
	if doc.SchemaVersion != 1 || len(doc.Sweeps) != 1 {
		t.Fatalf("status --json: %s", &js)
	}
	s := doc.Sweeps[0]
	if s.SweepID != id || s.Name != "tiny" || s.State != "complete" || s.Jobs != 4 || s.Done != 3 || s.Failed != 1 ||
		s.Scenarios != 2 || s.Repetitions != 2 || s.Pipelines != 2 || s.LastError == "" || s.WaitingFor == nil {
		t.Errorf("status --json: %s", &js)
	}
	lines := strings.Split(strings.TrimSpace(text.String()), "\n")
	fields := strings.Fields(lines[1])
	want := []string{id[:12], s.Name, s.State, strconv.FormatInt(s.Jobs, 10), strconv.FormatInt(s.Done, 10),
		strconv.FormatInt(s.Failed, 10), strconv.FormatInt(s.Running, 10), strconv.FormatInt(s.Reused, 10)}
	if len(lines) != 2 || len(fields) < len(want) || strings.Join(fields[:len(want)], " ") != strings.Join(want, " ") {
		t.Errorf("the text status %q does not show the JSON's numbers %q", lines, want)
	}
}

const tableGrid = `
sweep "air" {
  seed        = 3
  repetitions = 2
  table {
    file   = "airquality.csv"
    target = "Ozone"
  }
  split { folds = 3 }
  pipelines { names = ["tree/mia"] }
}
`

// TestExportOffline: export --data writes, from a data directory and
// with no coordinator, the bytes the coordinator's export writes of the
// same store, results and folds, and leaves the store as it was; an
// unreachable coordinator is said in plain words, with no file written.
func TestExportOffline(t *testing.T) {
	dir := t.TempDir()
	id := writeTestStore(t, dir, func(job, pi int) store.Result {
		return store.Result{R2: 0.5 + 0.1*float64(pi) + 0.01*float64(job), MSE: 1, FitSeconds: 0.01, PredictSeconds: 0.001}
	})
	gridDir := t.TempDir()
	csv, err := os.ReadFile(filepath.Join("..", "..", "examples", "data", "airquality.csv"))
	must(t, err)
	must(t, os.WriteFile(filepath.Join(gridDir, "airquality.csv"), csv, 0o644))
	must(t, os.WriteFile(filepath.Join(gridDir, "air.hcl"), []byte(tableGrid), 0o644))
	f, err := client.LoadGrid(filepath.Join(gridDir, "air.hcl"), 0)
	must(t, err)

	addr, stop := serveDir(t, dir)
	c, err := client.Dial(addr)
	must(t, err)
	_, err = c.SubmitFile(context.Background(), f)
	c.Close()
	must(t, err)
	cases := []struct {
		name string
		args []string
		want string // what the export starts with
	}{
		{"results by id", []string{id}, "sweep_id,sweep,scenario,"},
		{"results by name", []string{"tiny"}, "sweep_id,sweep,scenario,"},
		{"folds", []string{"air", "--folds"}, "repetition,fold,row\n"},
		{"results of a sweep without any", []string{"air"}, "sweep_id,sweep,scenario,"},
	}
	online := map[string]string{}
	for _, tc := range cases {
		out := filepath.Join(t.TempDir(), "online.csv")
		code, stdout, stderr := call(append([]string{"export", "--addr", addr, "--out", out}, tc.args...)...)
		b, _ := os.ReadFile(out)
		if code != 0 || stdout != "" || stderr != "" || !strings.HasPrefix(string(b), tc.want) {
			t.Fatalf("%s online: status %d, stderr %q, file %.200q", tc.name, code, stderr, b)
		}
		online[tc.name] = string(b)
	}
	stop()

	storeFile := filepath.Join(dir, store.FileName)
	before, err := os.ReadFile(storeFile)
	must(t, err)
	for _, tc := range cases {
		code, stdout, stderr := call(append([]string{"export", "--data", dir, "--out", "-"}, tc.args...)...)
		if code != 0 || stderr != "" || stdout != online[tc.name] {
			t.Errorf("%s offline: status %d, stderr %q; %d bytes, online %d", tc.name, code, stderr, len(stdout), len(online[tc.name]))
		}
		out := filepath.Join(t.TempDir(), "offline.csv")
		if code, _, stderr := call(append([]string{"export", "--data", dir, "--out", out}, tc.args...)...); code != 0 {
			t.Errorf("%s offline to a file: status %d, %s", tc.name, code, stderr)
		} else if b, _ := os.ReadFile(out); string(b) != online[tc.name] {
			t.Errorf("%s offline to a file: other bytes than online", tc.name)
		}
	}
	if after, _ := os.ReadFile(storeFile); !bytes.Equal(after, before) {
		t.Error("the offline export changed the store")
	}

	for _, tc := range []struct {
		args []string
		want []string
	}{
		{[]string{"tiny", "--folds", "--data", dir, "--out", "-"}, []string{"only a table sweep has folds"}},
		{[]string{"nosuch", "--data", dir, "--out", "-"}, []string{"nosuch"}},
		{[]string{"tiny", "--data", t.TempDir(), "--out", "-"}, []string{"no store"}},
		{[]string{"tiny", "--addr", addr, "--out", filepath.Join(gridDir, "none.csv")},
			[]string{"coordinator export: no coordinator answers at " + addr + " (connection refused)", "--data DIR"}},
	} {
		code, _, stderr := call(append([]string{"export"}, tc.args...)...)
		for _, w := range tc.want {
			if code != 1 || !strings.Contains(stderr, w) || strings.Contains(stderr, "rpc error") || strings.Contains(stderr, "atomicfile") {
				t.Errorf("%q: status %d, stderr %q; want status 1 saying %q in plain words", tc.args, code, stderr, w)
			}
		}
	}
	if _, err := os.Stat(filepath.Join(gridDir, "none.csv")); !os.IsNotExist(err) {
		t.Error("the failed online export left a file")
	}
}
