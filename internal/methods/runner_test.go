package methods

import (
	"context"
	"errors"
	"math"
	"os"
	"strings"
	"sync"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/misslab/misslab/internal/learn"
	"github.com/misslab/misslab/internal/methodid"
)

func TestFitPredictMean(t *testing.T) {
	f := newFixture(t, 1, fake{name: "hgb", behaviour: "mean", kind: "learner"})
	for i := range 3 {
		X, y, Xt := data(30, 4, 9, 0)
		for k := range y {
			y[k] = float64(k)
		}
		pred, tm, err := f.r.ForSweep("s1").FitPredict(t.Context(), f.call("hgb"), X, y, Xt)
		if err != nil {
			t.Fatalf("call %d: %v", i, err)
		}
		if len(pred) != 9 || pred[0] != 14.5 || pred[8] != 14.5 {
			t.Errorf("pred = %v, want 9 × 14.5", pred)
		}
		if tm.FitSeconds != 0.001 || tm.PredictSeconds != 0.0005 {
			t.Errorf("timing = %+v, want the method's own", tm)
		}
	}
	if st := f.r.Stats(); st != (Stats{Starts: 1, Calls: 3}) {
		t.Errorf("stats = %+v, want one start for three calls", st)
	}
}

// TestColumnMajor checks the layout: the fake predicts Xtest's last
// column (read with its own decoder), on a non-square matrix.
func TestColumnMajor(t *testing.T) {
	f := newFixture(t, 1, fake{name: "lastcol", behaviour: "lastcol", kind: "learner"})
	X, y, Xt := data(20, 3, 7, 1)
	pred, _, err := f.r.ForSweep("s").FitPredict(t.Context(), f.call("lastcol"), X, y, Xt)
	if err != nil {
		t.Fatal(err)
	}
	for i, p := range pred {
		if p != Xt.At(i, 2) {
			t.Fatalf("pred[%d] = %v, want Xtest[%d, 2] = %v", i, p, i, Xt.At(i, 2))
		}
	}
}

func TestImputeFill0(t *testing.T) {
	f := newFixture(t, 1, fake{name: "zero", behaviour: "fill0", kind: "imputer"})
	X, _, Xt := data(25, 4, 6, 0)
	X, Xt = withNA(X, 3), withNA(Xt, 5)
	Xi, Xti, _, err := f.r.ForSweep("s").Impute(t.Context(), f.call("zero"), X, Xt)
	if err != nil {
		t.Fatal(err)
	}
	for _, pair := range [][2]*mat.Dense{{X, Xi}, {Xt, Xti}} {
		r, c := pair[0].Dims()
		for i := range r {
			for j := range c {
				in, out := pair[0].At(i, j), pair[1].At(i, j)
				if math.IsNaN(in) && out != 0 || !math.IsNaN(in) && in != out {
					t.Fatalf("(%d, %d): %v → %v", i, j, in, out)
				}
			}
		}
	}
}

// TestFailures runs each misbehaviour and checks the error's sentinel and
// text, and whether the process was kept.
func TestFailures(t *testing.T) {
	tests := []struct {
		behaviour, kind, timeout string
		want                     error
		text                     []string
		starts                   int64 // after the failed call and one good one (once-only misbehaviours)
	}{
		{"garbage", "learner", "", learn.ErrMethodOutput, []string{`replied "this is not JSON", not a protocol reply`, "fake garbage pid"}, 2},
		{"sleep", "learner", "300ms", learn.ErrMethodTimeout, []string{"m: timed out after 300ms (stderr tail: \"fake sleep pid"}, 2},
		{"crash-once", "learner", "", nil, nil, 2},
		{"error", "learner", "", learn.ErrMethodFailed, []string{"m: deliberate failure (stderr tail:"}, 1},
		{"badlen", "learner", "", learn.ErrMethodOutput, []string{"pred.f64 has 48 bytes, want 56 (7 values)"}, 1},
		{"nan", "learner", "", learn.ErrMethodOutput, []string{"prediction 1 is NaN"}, 1},
		{"mutate", "imputer", "", learn.ErrMethodOutput, []string{"x_train_imputed.f64: observed entry (2, 1) changed"}, 1},
	}
	for _, tc := range tests {
		t.Run(tc.behaviour, func(t *testing.T) {
			f := newFixture(t, 1, fake{name: "m", behaviour: tc.behaviour, kind: tc.kind, timeout: tc.timeout, once: true})
			err := f.run("s", "m")
			if !errors.Is(err, tc.want) || (tc.want == nil) != (err == nil) {
				t.Fatalf("err = %v, want %v", err, tc.want)
			}
			for _, s := range tc.text {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("error %q does not contain %q", err, s)
				}
			}
			if d := f.callDirs(); len(d) != 0 {
				t.Errorf("call directories left after the failure: %v", d)
			}
			if err := f.run("s", "m"); err != nil {
				t.Fatalf("the call after the failure: %v", err)
			}
			if st := f.r.Stats(); st.Starts != tc.starts {
				t.Errorf("stats = %+v, want %d starts", st, tc.starts)
			}
			if d := f.callDirs(); len(d) != 0 {
				t.Errorf("call directories left after success: %v", d)
			}
		})
	}
}

// run calls method name (learner or imputer) once in sweep.
func (f *fixture) run(sweep, name string) error {
	m, _ := f.cat.Lookup(name)
	if m.Kind == methodid.Imputer {
		X, _, Xt := data(10, 3, 4, 0)
		_, _, _, err := f.r.ForSweep(sweep).Impute(f.t.Context(), f.call(name), withNA(X, 4), Xt)
		return err
	}
	_, err := f.fit(sweep, name, 1)
	return err
}

func TestTimeoutKillsProcess(t *testing.T) {
	f := newFixture(t, 1, fake{name: "m", behaviour: "sleep", kind: "learner", timeout: "200ms"})
	err := f.run("s", "m")
	if !errors.Is(err, learn.ErrMethodTimeout) {
		t.Fatalf("err = %v, want a timeout", err)
	}
	pids := f.pids()
	if len(pids) != 1 || !gone(pids[0]) {
		t.Errorf("pids %v: the timed-out process is still there", pids)
	}
	if st := f.r.Stats(); st.Timeouts != 1 || st.Crashes != 0 {
		t.Errorf("stats = %+v", st)
	}
}

func TestCrashAlways(t *testing.T) {
	f := newFixture(t, 1, fake{name: "m", behaviour: "crash", kind: "learner"})
	err := f.run("s", "m")
	if !errors.Is(err, learn.ErrMethodCrash) {
		t.Fatalf("err = %v, want a crash", err)
	}
	for _, s := range []string{"m: exited during the call (exit status 3), twice", `crashing on purpose`} {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("error %q does not contain %q", err, s)
		}
	}
	if st := f.r.Stats(); st.Starts != 2 || st.Crashes != 2 || st.Calls != 2 {
		t.Errorf("stats = %+v, want 2 starts, crashes and calls", st)
	}
}

func TestNoReadyLine(t *testing.T) {
	f := newFixture(t, 1, fake{name: "m", behaviour: "noready", kind: "learner", startTimeout: "200ms"})
	err := f.run("s", "m")
	if !errors.Is(err, learn.ErrMethodCrash) || !strings.Contains(err.Error(), "printed no ready line within 200ms") {
		t.Fatalf("err = %v, want a crash for the missing ready line", err)
	}
	pids := f.pids()
	if len(pids) != 2 || !gone(pids[0]) || !gone(pids[1]) {
		t.Errorf("pids %v: want two starts, both gone", pids)
	}
}

func TestFilesChanged(t *testing.T) {
	f := newFixture(t, 1, fake{name: "m", behaviour: "mean", kind: "learner"})
	if err := os.WriteFile(f.dir+"/fixture.txt", []byte("changed\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	err := f.run("s", "m")
	if !errors.Is(err, learn.ErrMethodCrash) || !strings.Contains(err.Error(), "files changed since the worker started") {
		t.Fatalf("err = %v, want a refusal to start", err)
	}
	if len(f.pids()) != 0 {
		t.Error("a process started on changed files")
	}
}

// TestEnvironment proves the child sees only the protocol's variables:
// not the worker's secrets nor its HOME.
func TestEnvironment(t *testing.T) {
	t.Setenv("MISSLAB_TOKEN", "secret")
	t.Setenv("HOME", "/home/worker-home")
	env := map[string]string{"MISSLAB_FAKE_WORKER_HOME": "/home/worker-home",
		"MISSLAB_FAKE_WORKER_PATH": os.Getenv("PATH"), "MISSLAB_FAKE_DIR": "$DIR"}
	leaky := map[string]string{"FOO": "1"} // proves that the fake's check can fail
	for k, v := range env {
		leaky[k] = v
	}
	f := newFixture(t, 1, fake{name: "envcheck", behaviour: "env", kind: "learner", env: env},
		fake{name: "envcheck_leak", behaviour: "env", kind: "learner", env: leaky})
	if err := f.run("s", "envcheck"); err != nil {
		t.Fatal(err)
	}
	err := f.run("s", "envcheck_leak")
	if !errors.Is(err, learn.ErrMethodFailed) || !strings.Contains(err.Error(), "leaked variables: [FOO]") {
		t.Errorf("method with an extra variable: %v, want the fake to see FOO", err)
	}
}

// TestSweepsNeverShare alternates two sweeps on one method and checks,
// from the fakes' log, that every process saw one sweep's data only.
func TestSweepsNeverShare(t *testing.T) {
	for _, procs := range []int{1, 2} {
		f := newFixture(t, procs, fake{name: "m", behaviour: "mean", kind: "learner"})
		for i := range 6 {
			sweep, y0 := "a", 1.0
			if i%2 == 1 {
				sweep, y0 = "b", 2.0
			}
			if _, err := f.fit(sweep, "m", y0); err != nil {
				t.Fatal(err)
			}
		}
		seen := map[string]string{}
		for _, l := range f.logLines("call ") {
			fs := strings.Fields(l)
			if prev, ok := seen[fs[1]]; ok && prev != fs[2] {
				t.Fatalf("MaxProcs %d: process %s saw sweeps with y = %s and %s", procs, fs[1], prev, fs[2])
			}
			seen[fs[1]] = fs[2]
		}
		if want := map[int]int64{1: 6, 2: 2}[procs]; f.r.Stats().Starts != want {
			t.Errorf("MaxProcs %d: %d starts, want %d", procs, f.r.Stats().Starts, want)
		}
	}
}

// TestConcurrentCalls runs many calls of two sweeps at once with
// MaxProcs = 2 (run it with -race).
func TestConcurrentCalls(t *testing.T) {
	f := newFixture(t, 2, fake{name: "m", behaviour: "mean", kind: "learner"},
		fake{name: "z", behaviour: "fill0", kind: "imputer"})
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for g := range 8 {
		wg.Go(func() {
			sweep := []string{"a", "b"}[g%2]
			for range 4 {
				pred, err := f.fit(sweep, "m", float64(g%2+1))
				if err == nil && pred[0] != float64(g%2+1) {
					err = errors.New("wrong prediction")
				}
				if err == nil {
					err = f.run(sweep, "z")
				}
				if err != nil {
					errs <- err
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	t.Logf("stats %+v", f.r.Stats())
	if st := f.r.Stats(); st.Crashes != 0 || st.Calls != 64 {
		t.Errorf("stats = %+v, want 64 calls and no crash", st)
	}
}

func TestContextCancelKills(t *testing.T) {
	f := newFixture(t, 1, fake{name: "m", behaviour: "sleep", kind: "learner"})
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() {
		X, y, Xt := data(10, 2, 3, 1)
		_, _, err := f.r.ForSweep("s").FitPredict(ctx, f.call("m"), X, y, Xt)
		done <- err
	}()
	waitFor(t, "the fake to receive the request", func() bool { return len(f.logLines("call ")) == 1 })
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if pids := f.pids(); len(pids) != 1 || !gone(pids[0]) {
		t.Errorf("pids %v: the cancelled call's process is still there", pids)
	}
	if d := f.callDirs(); len(d) != 0 {
		t.Errorf("call directories left: %v", d)
	}
}

func TestCloseStopsEverything(t *testing.T) {
	f := newFixture(t, 2, fake{name: "m", behaviour: "mean", kind: "learner"},
		fake{name: "z", behaviour: "fill0", kind: "imputer"})
	for _, s := range []string{"a", "b"} {
		if err := f.run(s, "m"); err != nil {
			t.Fatal(err)
		}
		if err := f.run(s, "z"); err != nil {
			t.Fatal(err)
		}
	}
	pids := f.pids()
	if len(pids) != 4 {
		t.Fatalf("pids %v, want 4", pids)
	}
	if err := f.r.Close(); err != nil {
		t.Fatal(err)
	}
	for _, pid := range pids {
		if !gone(pid) {
			t.Errorf("process %d survived Close", pid)
		}
	}
	if _, err := os.Stat(f.r.Root()); !os.IsNotExist(err) {
		t.Errorf("root %s: %v, want it removed", f.r.Root(), err)
	}
	if err := f.run("a", "m"); !errors.Is(err, ErrClosed) {
		t.Errorf("call after Close: %v, want ErrClosed", err)
	}
}

// TestCloseDuringCall checks that Close kills a busy process and the call
// fails with ErrClosed.
func TestCloseDuringCall(t *testing.T) {
	f := newFixture(t, 1, fake{name: "m", behaviour: "sleep", kind: "learner"})
	done := make(chan error, 1)
	go func() { done <- f.run("s", "m") }()
	waitFor(t, "the fake to receive the request", func() bool { return len(f.logLines("call ")) == 1 })
	if err := f.r.Close(); err != nil {
		t.Fatal(err)
	}
	if err := <-done; !errors.Is(err, ErrClosed) {
		t.Errorf("err = %v, want ErrClosed", err)
	}
	if pids := f.pids(); len(pids) != 1 || !gone(pids[0]) {
		t.Errorf("pids %v survived Close", pids)
	}
}

// TestBadCalls checks the calls refused before any process starts.
func TestBadCalls(t *testing.T) {
	f := newFixture(t, 1, fake{name: "m", behaviour: "mean", kind: "learner"},
		fake{name: "z", behaviour: "fill0", kind: "imputer"})
	X, y, Xt := data(10, 3, 4, 1)
	good := f.call("m")
	with := func(change func(c *learn.MethodCall)) learn.MethodCall {
		c := good
		change(&c)
		return c
	}
	tests := []struct {
		name string
		call learn.MethodCall
		X    *mat.Dense
		y    []float64
		want error
	}{
		{"unknown method", with(func(c *learn.MethodCall) { c.Method.Name = "nope" }), X, y, ErrUnknownMethod},
		{"other identity", with(func(c *learn.MethodCall) { c.Method.ID = strings.Repeat("0", 64) }), X, y, ErrUnknownMethod},
		{"imputer as learner", f.call("z"), X, y, ErrUnknownMethod},
		{"seed too large", with(func(c *learn.MethodCall) { c.Seed = 1<<31 - 1 }), X, y, learn.ErrBadInput},
		{"no threads", with(func(c *learn.MethodCall) { c.Threads = 0 }), X, y, learn.ErrBadInput},
		{"NaN setting", with(func(c *learn.MethodCall) { c.Settings = learn.Settings{"a": math.NaN()} }), X, y, learn.ErrBadSetting},
		{"short y", good, X, y[1:], learn.ErrBadInput},
		{"NaN target", good, X, append([]float64{math.NaN()}, y[1:]...), learn.ErrBadInput},
		{"NaN in X, no native NA", good, withNA(X, 2), y, learn.ErrBadInput},
	}
	for _, tc := range tests {
		_, _, err := f.r.ForSweep("s").FitPredict(t.Context(), tc.call, tc.X, tc.y, Xt)
		if !errors.Is(err, tc.want) {
			t.Errorf("%s: err = %v, want %v", tc.name, err, tc.want)
		}
	}
	if _, _, _, err := f.r.ForSweep("s").Impute(t.Context(), f.call("z"), X, mat.NewDense(2, 2, nil)); !errors.Is(err, learn.ErrBadInput) {
		t.Errorf("Impute with mismatched columns: %v", err)
	}
	if st := f.r.Stats(); st.Starts != 0 {
		t.Errorf("stats = %+v: a bad call started a process", st)
	}
}

// TestDefaultTempDir: $TMPDIR wins when set; otherwise the choice is a
// writable directory (/dev/shm where it is big enough).
func TestDefaultTempDir(t *testing.T) {
	d := t.TempDir()
	t.Setenv("TMPDIR", d)
	if got := DefaultTempDir(); got != d {
		t.Errorf("with TMPDIR=%s: %s", d, got)
	}
	t.Setenv("TMPDIR", "")
	got := DefaultTempDir()
	f, err := os.CreateTemp(got, "probe-")
	if err != nil {
		t.Fatalf("DefaultTempDir %s is not writable: %v", got, err)
	}
	f.Close()
	os.Remove(f.Name())
	t.Logf("default: %s", got)
}
