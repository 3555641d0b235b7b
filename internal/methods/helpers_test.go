package methods

import (
	"bufio"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/misslab/misslab/internal/learn"
)

// fake describes one fake method of a test methods file.
type fake struct {
	name, behaviour, kind string
	timeout, startTimeout string // "" for the defaults
	tasks                 string // the tasks attribute's value, "" for none
	once                  bool   // misbehave on the first call only
	env                   map[string]string
}

// fixture is a methods file of fake methods and a Runner over it.
type fixture struct {
	t   testing.TB
	dir string // the methods file's directory
	log string // the fakes' shared log
	cat *Catalog
	r   *Runner
}

// newFixture writes a methods file for fakes (the test binary as command,
// fixture.txt as file), loads it and makes a Runner with maxProcs.
func newFixture(t testing.TB, maxProcs int, fakes ...fake) *fixture {
	t.Helper()
	return newFixtureIn(t, t.TempDir(), maxProcs, fakes...)
}

// newFixtureIn is newFixture with the Runner's TempDir.
func newFixtureIn(t testing.TB, tmp string, maxProcs int, fakes ...fake) *fixture {
	t.Helper()
	exe, err := filepath.Abs(os.Args[0])
	if err != nil {
		t.Fatal(err)
	}
	f := &fixture{t: t, dir: t.TempDir()}
	f.log = filepath.Join(f.dir, "fake.log")
	var b strings.Builder
	for _, fk := range fakes {
		fmt.Fprintf(&b, "method %q {\n  kind = %q\n  command = [%q, \"-test.run=^$\"]\n  files = [\"fixture.txt\"]\n",
			fk.name, fk.kind, exe)
		if fk.timeout != "" {
			fmt.Fprintf(&b, "  timeout = %q\n", fk.timeout)
		}
		if fk.tasks != "" {
			fmt.Fprintf(&b, "  tasks = %s\n", fk.tasks)
		}
		if fk.startTimeout != "" {
			fmt.Fprintf(&b, "  start_timeout = %q\n", fk.startTimeout)
		}
		// GORACE: a race-enabled fake would otherwise sleep 1 s when it exits.
		fmt.Fprintf(&b, "  env = {\n    MISSLAB_FAKE_METHOD = %q\n    MISSLAB_FAKE_LOG = %q\n    GORACE = \"atexit_sleep_ms=0\"\n",
			fk.behaviour, f.log)
		if fk.once || fk.behaviour == "crash-once" {
			fmt.Fprintf(&b, "    MISSLAB_FAKE_MARKER = %q\n", filepath.Join(f.dir, "marker-"+fk.name))
		}
		for k, v := range fk.env {
			fmt.Fprintf(&b, "    %s = %q\n", k, strings.ReplaceAll(v, "$DIR", f.dir))
		}
		b.WriteString("  }\n}\n")
	}
	path := filepath.Join(f.dir, "methods.hcl")
	for name, s := range map[string]string{path: b.String(), filepath.Join(f.dir, "fixture.txt"): "fixture\n"} {
		if err := os.WriteFile(name, []byte(s), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if f.cat, err = Load(path); err != nil {
		t.Fatal(err)
	}
	if f.r, err = NewRunner(f.cat, Options{TempDir: tmp, MaxProcs: maxProcs}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.r.Close() })
	return f
}

// call returns a MethodCall of the named method with seed 1 and 1 thread.
func (f *fixture) call(name string) learn.MethodCall {
	m, ok := f.cat.Lookup(name)
	if !ok {
		f.t.Fatalf("no method %q", name)
	}
	return learn.MethodCall{Method: m, Seed: 1, Threads: 1, Settings: learn.Settings{"max_iter": 100}}
}

// fit runs the named learner on data whose targets all equal y0.
func (f *fixture) fit(sweep, name string, y0 float64) ([]float64, error) {
	X, y, Xt := data(20, 3, 7, y0)
	pred, _, err := f.r.ForSweep(sweep).FitPredict(f.t.Context(), f.call(name), X, y, Xt)
	return pred, err
}

// logLines returns the fakes' log lines starting with prefix.
func (f *fixture) logLines(prefix string) []string {
	b, err := os.ReadFile(f.log)
	if err != nil && !os.IsNotExist(err) {
		f.t.Fatal(err)
	}
	var out []string
	sc := bufio.NewScanner(strings.NewReader(string(b)))
	for sc.Scan() {
		if strings.HasPrefix(sc.Text(), prefix) {
			out = append(out, sc.Text())
		}
	}
	return out
}

// pids returns the pids of every fake process started.
func (f *fixture) pids() []int {
	var out []int
	for _, l := range f.logLines("start ") {
		var pid int
		fmt.Sscanf(l, "start %d", &pid)
		out = append(out, pid)
	}
	return out
}

// data returns an n × d training set with targets y0 + 0·noise, and an
// m × d test set, from a fixed seed.
func data(n, d, m int, y0 float64) (X *mat.Dense, y []float64, Xt *mat.Dense) {
	rng := rand.New(rand.NewPCG(1, 2))
	X, Xt = mat.NewDense(n, d, nil), mat.NewDense(m, d, nil)
	for _, a := range []*mat.Dense{X, Xt} {
		r, c := a.Dims()
		for i := range r {
			for j := range c {
				a.Set(i, j, rng.NormFloat64())
			}
		}
	}
	y = make([]float64, n)
	for i := range y {
		y[i] = y0
	}
	return X, y, Xt
}

// withNA sets every k-th entry of a copy of X to NaN.
func withNA(X *mat.Dense, k int) *mat.Dense {
	out := mat.DenseCopyOf(X)
	r, c := out.Dims()
	for i := range r {
		for j := range c {
			if (i*c+j)%k == 0 {
				out.Set(i, j, math.NaN())
			}
		}
	}
	return out
}

// gone reports whether no process has pid (reaped or never existed).
func gone(pid int) bool {
	return syscall.Kill(pid, 0) == syscall.ESRCH
}

// waitFor polls cond every few milliseconds until it holds or 10 s pass.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// callDirs lists the per-call directories left under the runner's root.
func (f *fixture) callDirs() []string {
	ents, err := os.ReadDir(f.r.Root())
	if err != nil {
		f.t.Fatal(err)
	}
	var out []string
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), "call-") {
			out = append(out, e.Name())
		}
	}
	return out
}
