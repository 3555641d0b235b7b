package embedded

import (
	"context"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/misslab/misslab/internal/grid"
	"github.com/misslab/misslab/internal/methods"
	"github.com/misslab/misslab/internal/worker"
)

// fakeMethods writes a methods file of testdata/methods/fake.py (standard
// library only, so any python3 runs it) in dir, in five behaviours.
func fakeMethods(t *testing.T, dir string) *methods.Catalog {
	t.Helper()
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("no python3 on PATH")
	}
	src, err := os.ReadFile(filepath.Join("testdata", "methods", "fake.py"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "fake.py"), src, 0o644); err != nil {
		t.Fatal(err)
	}
	method := func(name, kind, mode string, extra string) string {
		accepts := ""
		if kind == "learner" {
			accepts = "accepts_missing = true"
		}
		return fmt.Sprintf(`method %q {
  kind = %q
  command = [%q, "fake.py"]
  files = ["fake.py"]
  version = "test"
  %s
  timeout = "2s"
  env = { FAKE = %q %s }
}
`, name, kind, py, accepts, mode, extra)
	}
	q := func(p string) string { return strconv.Quote(filepath.Join(dir, p)) }
	hcl := method("avg", "learner", "mean", "") + method("fillmean", "imputer", "fill", "") +
		method("junk", "learner", "garbage", "") + method("slow", "learner", "sleep", "") +
		method("flaky", "learner", "crashonce", ", FAKE_MARKER = "+q("crashed")) +
		method("victim", "learner", "pidfile", ", FAKE_PIDFILE = "+q("pid")+", FAKE_GO = "+q("go"))
	path := filepath.Join(dir, "methods.hcl")
	if err := os.WriteFile(path, []byte(hcl), 0o644); err != nil {
		t.Fatal(err)
	}
	cat, err := methods.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	return cat
}

const methodsGrid = `
sweep "byom" {
  seed        = 4
  repetitions = 1
  methods     = ["avg", "fillmean", "junk", "slow", "flaky", "victim"]
  data {
    model   = "quadratic"
    n_train = 300
    n_test  = 300
  }
  missingness {
    mechanism = "mcar"
    rate      = 0.2
  }
  pipelines {
    names = ["tree/mean", "tree/fillmean", "avg/native", "junk/native", "slow/native", "flaky/native", "victim/native"]
  }
}
`

// TestEmbeddedRunWithMethods runs built-in and external pipelines side by
// side through the embedded coordinator and worker: an external imputer
// feeding a built-in tree matches the built-in imputer, a crash and a
// process killed mid-fit are retried, garbage and a method sleeping past
// its timeout fail with their stderr in the result, and no temporary
// file or process is left behind.
func TestEmbeddedRunWithMethods(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp) // the runner's private root goes here
	dir := t.TempDir()
	cat := fakeMethods(t, dir)
	f, err := grid.Parse([]byte(methodsGrid), "byom.hcl", grid.ParseOptions{})
	if err != nil {
		t.Fatal(err)
	}
	killed := make(chan int, 1)
	go killOnce(t, dir, killed)
	out := t.TempDir()
	ids, err := Run(context.Background(), f, Options{OutDir: out, Parallel: 2, Executor: worker.NewExperiment(1, nil), Methods: cat})
	if err != nil || len(ids) != 1 {
		t.Fatalf("Run: %v, %v", ids, err)
	}
	res := resultsByPipeline(t, filepath.Join(out, ResultsFile))
	for _, ok := range []string{"tree/mean", "tree/fillmean", "avg/native", "flaky/native", "victim/native"} {
		if r := res[ok]; r.err != "" || math.IsNaN(r.r2) {
			t.Errorf("%s: %+v, want a score", ok, r)
		}
	}
	if a, b := res["tree/mean"].r2, res["tree/fillmean"].r2; math.Abs(a-b) > 1e-9 {
		t.Errorf("tree behind the external mean imputer R² %v, built-in mean imputation %v", b, a)
	}
	if r := res["avg/native"].r2; math.Abs(r) > 0.15 { // population Var(Y) vs a 300-row test set
		t.Errorf("predicting the training mean gives R² %v, want about 0", r)
	}
	for name, want := range map[string][]string{
		"junk/native": {"method-output", "fake garbage: request"},
		"slow/native": {"method-timeout", "sleeping past the timeout"},
	} {
		for _, w := range want {
			if !strings.Contains(res[name].err, w) {
				t.Errorf("%s: error %q lacks %q", name, res[name].err, w)
			}
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "crashed")); err != nil {
		t.Errorf("flaky never crashed: %v", err)
	}
	pid := <-killed
	if err := syscall.Kill(pid, 0); err == nil {
		t.Errorf("the killed method process %d is still there", pid)
	}
	left, _ := filepath.Glob(filepath.Join(tmp, "*"))
	if len(left) != 0 {
		t.Errorf("temporary files left behind: %v", left)
	}
}

// killOnce waits for the victim method to write its pid mid-fit, kills
// it (SIGKILL), and lets the retried call through.
func killOnce(t *testing.T, dir string, killed chan<- int) {
	deadline := time.Now().Add(2 * time.Minute)
	for time.Now().Before(deadline) {
		b, err := os.ReadFile(filepath.Join(dir, "pid"))
		if pid, perr := strconv.Atoi(strings.TrimSpace(string(b))); err == nil && perr == nil && pid > 0 {
			_ = syscall.Kill(pid, syscall.SIGKILL)
			_ = os.WriteFile(filepath.Join(dir, "go"), nil, 0o644)
			killed <- pid
			return
		}
		time.Sleep(10 * time.Millisecond) // polling a condition with a deadline
	}
	t.Error("the victim method never started its fit")
	killed <- -1
}

type pipelineResult struct {
	r2  float64
	err string
}

// resultsByPipeline reads the r2 rows of a one-job results table.
func resultsByPipeline(t *testing.T, path string) map[string]pipelineResult {
	rows := readCSV(t, path)
	col := map[string]int{}
	for i, h := range rows[0] {
		col[h] = i
	}
	out := map[string]pipelineResult{}
	for _, r := range rows[1:] {
		if r[col["metric"]] != "r2" {
			continue
		}
		name, _, _ := strings.Cut(r[col["pipeline"]], "@")
		v, err := strconv.ParseFloat(r[col["value"]], 64)
		if err != nil {
			v = math.NaN()
		}
		out[name] = pipelineResult{r2: v, err: r[col["error"]]}
	}
	return out
}

const identityGrid = `
sweep "identity" {
  seed        = 5
  repetitions = 2
  methods     = ["avg"]
  data {
    model   = "quadratic"
    n_train = 200
    n_test  = 200
  }
  pipelines {
    names = ["tree/mean", "avg/native"]
  }
}
`

// TestMethodIdentityKeysResults: a method's results are keyed by its
// identity. Running again with the same files is the same sweep (nothing
// recomputed); editing the script, even a comment, makes a new sweep
// whose external results are computed afresh under the new identity, with
// the same seeds and so, here, the same scores.
func TestMethodIdentityKeysResults(t *testing.T) {
	dir, out := t.TempDir(), t.TempDir()
	f, err := grid.Parse([]byte(identityGrid), "identity.hcl", grid.ParseOptions{})
	if err != nil {
		t.Fatal(err)
	}
	run := func() (string, map[string]string) {
		cat := fakeMethods(t, dir)
		ids, err := Run(context.Background(), f, Options{OutDir: out, Parallel: 2, Executor: worker.NewExperiment(1, nil), Methods: cat})
		if err != nil || len(ids) != 1 {
			t.Fatalf("Run: %v %v", ids, err)
		}
		return ids[0], r2ByFullName(t, filepath.Join(out, ResultsFile))
	}
	id1, r1 := run()
	id2, _ := run()
	if id1 != id2 {
		t.Fatalf("the same files gave another sweep: %s then %s", id1, id2)
	}
	// Edit the method's script (a comment only) and reload its file.
	orig, err := os.ReadFile(filepath.Join("testdata", "methods", "fake.py"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "fake.py"), append(orig, "# edited\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	cat, err := methods.Load(filepath.Join(dir, "methods.hcl"))
	if err != nil {
		t.Fatal(err)
	}
	ids, err := Run(context.Background(), f, Options{OutDir: out, Parallel: 2, Executor: worker.NewExperiment(1, nil), Methods: cat})
	if err != nil || len(ids) != 1 || ids[0] == id1 {
		t.Fatalf("after editing the script: sweep %v (first %s), %v", ids, id1, err)
	}
	r3 := r2ByFullName(t, filepath.Join(out, ResultsFile))
	if len(r1) != 4 || len(r3) != 4 {
		t.Fatalf("results %v then %v, want 2 pipelines × 2 repetitions", r1, r3)
	}
	for k, v := range r1 {
		label, rep, _ := strings.Cut(k, "#")
		name, id, external := strings.Cut(label, "@")
		found := false
		for k3, v3 := range r3 {
			label3, rep3, _ := strings.Cut(k3, "#")
			name3, id3, _ := strings.Cut(label3, "@")
			if name3 != name || rep3 != rep {
				continue
			}
			found = true
			if external && id3 == id {
				t.Errorf("%s: the same identity %s after the edit", name, id)
			}
			if v3 != v {
				t.Errorf("%s rep %s: R² %s after the edit, %s before (same seeds)", name, rep, v3, v)
			}
		}
		if !found {
			t.Errorf("%s rep %s: no result after the edit", name, rep)
		}
	}
}

// r2ByFullName reads the R² cells of a results table by repetition and
// full pipeline name (with the methods' identities).
func r2ByFullName(t *testing.T, path string) map[string]string {
	rows := readCSV(t, path)
	col := map[string]int{}
	for i, h := range rows[0] {
		col[h] = i
	}
	out := map[string]string{}
	for _, r := range rows[1:] {
		if r[col["metric"]] == "r2" {
			out[r[col["pipeline"]]+"#"+r[col["rep"]]] = r[col["value"]]
		}
	}
	return out
}
