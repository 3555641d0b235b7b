//go:build slurm

package slurm_test

import (
	"context"
	"encoding/csv"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Shared by every test: the repository, the static binaries built for
// the test, and the running cluster.
var (
	root   string   // repository root
	binDir string   // coordinator and worker, built with CGO_ENABLED=0
	cl     *cluster // the Slurm cluster every test submits to
)

func TestMain(m *testing.M) { os.Exit(setup(m)) }

// setup checks the machine, builds the binaries and starts the cluster
// for the whole run; everything is stopped and removed after.
func setup(m *testing.M) int {
	flag.Parse()
	if os.Geteuid() != 0 {
		fmt.Fprintln(os.Stderr, "slurm tests: need root (munged, slurmctld and slurmd run as root here)")
		return 1
	}
	for _, c := range []string{"munged", "munge", "slurmctld", "slurmd", "sbatch", "squeue", "scancel", "scontrol", "sinfo"} {
		if _, err := exec.LookPath(c); err != nil {
			fmt.Fprintf(os.Stderr, "slurm tests: %s not found (run scripts/install-slurm.sh): %v\n", c, err)
			return 1
		}
	}
	wd, _ := os.Getwd()
	root = filepath.Join(wd, "..", "..")
	tmp, err := os.MkdirTemp("", "misslab-slurm-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(tmp)
	if err := os.Chmod(tmp, 0o755); err != nil { // munged checks its socket's parents
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	binDir = filepath.Join(tmp, "bin")
	build := exec.Command("go", "build", "-trimpath", "-o", binDir+"/", "./cmd/coordinator", "./cmd/worker")
	build.Dir, build.Env = root, append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "slurm tests: build: %v\n%s", err, out)
		return 1
	}
	start := time.Now()
	cl, err = startCluster(context.Background(), filepath.Join(tmp, "slurm"), max(2, runtime.NumCPU()))
	if err != nil {
		fmt.Fprintf(os.Stderr, "slurm tests: cannot start the cluster: %v\n", err)
		return 1
	}
	defer cl.stop()
	fmt.Fprintf(os.Stderr, "slurm tests: %d nodes of %d CPUs idle after %.1fs\n", len(nodes), cl.cpus, time.Since(start).Seconds())
	return m.Run()
}

func script(name string) string { return filepath.Join(root, "deploy", "slurm", name) }

// quickstart is the grid every test runs, at reduced repetitions.
func quickstart() string { return filepath.Join(root, "examples", "quickstart.hcl") }

// sbatch submits a batch job with the MISSLAB_* settings env and returns
// its id.
func sbatch(t *testing.T, env []string, args ...string) string {
	t.Helper()
	cmd := exec.Command("sbatch", append([]string{"--parsable"}, args...)...)
	cmd.Env = append(append(cl.env, "MISSLAB_BIN="+binDir), env...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("sbatch %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	id, _, _ := strings.Cut(strings.TrimSpace(string(out)), ";")
	return id
}

// slurm runs a Slurm command and fails the test if it fails.
func slurm(t *testing.T, name string, args ...string) string {
	t.Helper()
	out, err := cl.run(context.Background(), name, args...)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// jobInfo is scontrol's record of one job (or array task): JobState,
// Restarts, RunTime, ...
func jobInfo(t *testing.T, id string) map[string]string {
	t.Helper()
	out := slurm(t, "scontrol", "show", "job", "-o", id)
	line, _, _ := strings.Cut(out, "\n")
	info := map[string]string{}
	for _, f := range strings.Fields(line) {
		if k, v, ok := strings.Cut(f, "="); ok {
			info[k] = v
		}
	}
	return info
}

var finished = map[string]bool{"COMPLETED": true, "FAILED": true, "CANCELLED": true, "TIMEOUT": true,
	"NODE_FAIL": true, "PREEMPTED": true, "OUT_OF_MEMORY": true, "BOOT_FAIL": true, "DEADLINE": true}

// waitJob waits until job id has finished and returns its record.
func waitJob(t *testing.T, id string, timeout time.Duration) map[string]string {
	t.Helper()
	var info map[string]string
	err := poll(context.Background(), timeout, "job "+id+" to finish", func() (bool, error) {
		info = jobInfo(t, id)
		return finished[info["JobState"]], nil
	})
	if err != nil {
		t.Fatalf("%v (last record %v)", err, info)
	}
	return info
}

// coordinator is a coordinator the test runs itself, as on a login node.
type coordinator struct {
	addrFile, token, data, log string
	cmd                        *exec.Cmd
	done                       chan struct{}
}

// startCoordinator starts `coordinator serve` with a token and extra
// flags, waits for its address file and stops it when the test ends.
func startCoordinator(t *testing.T, extra ...string) *coordinator {
	t.Helper()
	dir := t.TempDir()
	c := &coordinator{addrFile: filepath.Join(dir, "coordinator.addr"), token: filepath.Join(dir, "token"),
		data: filepath.Join(dir, "data"), log: filepath.Join(dir, "coordinator.log"), done: make(chan struct{})}
	if err := os.WriteFile(c.token, []byte("slurm-test-token-"+strconv.FormatInt(time.Now().UnixNano(), 36)+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(c.log)
	if err != nil {
		t.Fatal(err)
	}
	args := append([]string{"serve", "--listen", "127.0.0.1:0", "--data", c.data, "--addr-file", c.addrFile,
		"--token-file", c.token}, extra...)
	c.cmd = exec.Command(filepath.Join(binDir, "coordinator"), args...)
	c.cmd.Stdout, c.cmd.Stderr = f, f
	if err := c.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { _ = c.cmd.Wait(); f.Close(); close(c.done) }()
	t.Cleanup(c.stop)
	err = poll(context.Background(), 30*time.Second, "the coordinator's address file", func() (bool, error) {
		_, err := os.Stat(c.addrFile)
		return err == nil, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func (c *coordinator) addr(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(c.addrFile)
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(b))
}

// stop stops the coordinator (SIGTERM) and waits for it.
func (c *coordinator) stop() {
	_ = c.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-c.done:
	case <-time.After(30 * time.Second):
		_ = c.cmd.Process.Kill()
		<-c.done
	}
}

// cli runs the test's coordinator binary and fails the test if it fails.
func cli(t *testing.T, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, filepath.Join(binDir, "coordinator"), args...).CombinedOutput()
	if err != nil {
		t.Fatalf("coordinator %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// submit submits quickstart.hcl at reps repetitions, detached, and
// returns the sweep id.
func submit(t *testing.T, addr, token string, reps int) string {
	t.Helper()
	out := cli(t, "submit", quickstart(), "--reps", strconv.Itoa(reps), "--detach", "--addr", addr, "--token-file", token)
	f := strings.Fields(out)
	return f[len(f)-1]
}

// progress is a sweep's line of `coordinator status`.
type progress struct{ jobs, done, failed, running int }

// status returns a sweep's progress, or an error if the coordinator
// cannot be reached (it may be restarting).
func status(addr, token, sweep string) (progress, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, filepath.Join(binDir, "coordinator"), "status", sweep, "--addr", addr, "--token-file", token).CombinedOutput()
	if err != nil {
		return progress{}, fmt.Errorf("status: %w: %s", err, out)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	f := strings.Fields(lines[len(lines)-1])
	if len(lines) < 2 || len(f) < 7 {
		return progress{}, fmt.Errorf("status: unexpected output %q", out)
	}
	var p progress
	for i, dst := range []*int{&p.jobs, &p.done, &p.failed, &p.running} {
		if *dst, err = strconv.Atoi(f[3+i]); err != nil {
			return progress{}, fmt.Errorf("status: %q: %w", lines[1], err)
		}
	}
	return p, nil
}

// waitProgress polls a sweep's status until cond holds.
func waitProgress(t *testing.T, addr func() string, token, sweep string, timeout time.Duration, what string, cond func(progress) bool) progress {
	t.Helper()
	var p progress
	var last error
	err := poll(context.Background(), timeout, what, func() (bool, error) {
		var err error
		p, err = status(addr(), token, sweep)
		last = err
		return err == nil && cond(p), nil
	})
	if err != nil {
		t.Fatalf("%v (last %+v, %v)", err, p, last)
	}
	return p
}

// result is one results.csv cell: a job's pipeline's metric.
type result struct{ scenario, rep, pipeline, metric string }

// readResults reads a tidy results CSV into value by cell, failing the
// test on a cell stored twice; it also returns the number of distinct
// jobs (scenario, repetition).
func readResults(t *testing.T, path string) (map[result]string, int) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil || len(rows) < 2 {
		t.Fatalf("%s: %d rows, %v", path, len(rows), err)
	}
	col := map[string]int{}
	for i, h := range rows[0] {
		col[h] = i
	}
	cells, jobs := map[result]string{}, map[[2]string]bool{}
	for _, r := range rows[1:] {
		k := result{r[col["scenario"]], r[col["rep"]], r[col["pipeline"]], r[col["metric"]]}
		if _, dup := cells[k]; dup {
			t.Errorf("%s: %v stored twice", path, k)
		}
		cells[k] = r[col["value"]]
		jobs[[2]string{k.scenario, k.rep}] = true
	}
	return cells, len(jobs)
}

// readFile returns a file's contents, failing the test if it cannot.
func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// metric returns a Prometheus counter's value from a metrics page.
func metric(page, name string) (float64, bool) {
	m := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(name) + ` (\S+)$`).FindStringSubmatch(page)
	if m == nil {
		return 0, false
	}
	v, err := strconv.ParseFloat(m[1], 64)
	return v, err == nil
}
