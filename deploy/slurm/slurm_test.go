//go:build slurm

package slurm_test

import (
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestSweepMatchesRun: sweep.sbatch runs the quickstart at 2 repetitions
// across both nodes to completion, writes its results and report, and
// its r2 and mse cells are bit-identical to `coordinator run` of the
// same grid on this machine.
func TestSweepMatchesRun(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "sweep")
	start := time.Now()
	id := sbatch(t, []string{"MISSLAB_REPS=2"}, "-N", strconv.Itoa(len(nodes)), "-c", strconv.Itoa(cl.cpus),
		"--time=10", "--output", filepath.Join(dir, "job.out"), script("sweep.sbatch"), quickstart(), out)
	info := waitJob(t, id, 4*time.Minute)
	t.Logf("sweep.sbatch: job %s %s in %.1fs:\n%s", id, info["JobState"], time.Since(start).Seconds(), readFile(t, filepath.Join(dir, "job.out")))
	if info["JobState"] != "COMPLETED" {
		t.Fatalf("job %s ended %s", id, info["JobState"])
	}
	if _, err := os.Stat(filepath.Join(out, "report", "quickstart", "index.html")); err != nil {
		t.Errorf("no report: %v", err)
	}
	for i := range nodes { // a worker ran on every node
		if log := readFile(t, filepath.Join(out, "logs", "worker-"+id+"-"+strconv.Itoa(i)+".log")); !strings.Contains(log, "drained; exiting") {
			t.Errorf("worker of task %d did not drain and exit:\n%s", i, log)
		}
	}
	got, jobs := readResults(t, filepath.Join(out, "results.csv"))
	if jobs != 6 {
		t.Errorf("results.csv holds %d jobs, want 6", jobs)
	}
	start = time.Now()
	cli(t, "run", quickstart(), "--reps", "2", "--out", filepath.Join(dir, "run"))
	t.Logf("coordinator run: %.1fs", time.Since(start).Seconds())
	want, _ := readResults(t, filepath.Join(dir, "run", "results.csv"))
	compared := 0
	for k, w := range want {
		if k.metric != "r2" && k.metric != "mse" {
			continue
		}
		compared++
		if g, ok := got[k]; !ok || g != w {
			t.Errorf("%v: Slurm %q, run %q", k, g, w)
		}
	}
	if compared == 0 || len(got) != len(want) {
		t.Errorf("compared %d r2/mse cells; Slurm has %d cells, run %d", compared, len(got), len(want))
	}
	t.Logf("%d r2/mse cells bit-identical", compared)
}

// TestWorkersScancel: workers.sbatch array tasks join a coordinator run
// outside Slurm; two of three are cancelled (plain scancel) mid-sweep and
// a new array adds one; the sweep completes with every job stored once.
func TestWorkersScancel(t *testing.T) {
	dir := t.TempDir()
	co := startCoordinator(t)
	addr := func() string { return co.addr(t) }
	sweep := submit(t, addr(), co.token, 10) // 30 jobs
	env := []string{"MISSLAB_WORKER_FLAGS=--executor deterministic --delay 1500ms", "MISSLAB_DRAIN=5s"}
	arr := sbatch(t, env, "--array=1-3", "-c", "1", "--time=10", "--output", filepath.Join(dir, "w-%A_%a.out"),
		script("workers.sbatch"), co.addrFile)
	before := waitProgress(t, addr, co.token, sweep, 2*time.Minute, "6 jobs done", func(p progress) bool { return p.done >= 6 })
	slurm(t, "scancel", arr+"_1", arr+"_2")
	for _, task := range []string{arr + "_1", arr + "_2"} {
		if st := waitJob(t, task, time.Minute)["JobState"]; st != "CANCELLED" {
			t.Errorf("task %s ended %s, want CANCELLED", task, st)
		}
	}
	mid, _ := status(addr(), co.token, sweep)
	more := sbatch(t, env, "--array=1-1", "-c", "1", "--time=10", "--output", filepath.Join(dir, "m-%A_%a.out"),
		script("workers.sbatch"), co.addrFile)
	end := waitProgress(t, addr, co.token, sweep, 3*time.Minute, "the sweep complete", func(p progress) bool { return p.done+p.failed == p.jobs })
	t.Logf("done %d at scancel of 2 of 3 tasks, %d once they ended, %d/%d at the end (failed %d)", before.done, mid.done, end.done, end.jobs, end.failed)
	slurm(t, "scancel", arr, more)
	if end.failed != 0 || end.jobs != 30 {
		t.Errorf("progress %+v, want 30 jobs done, none failed", end)
	}
	csvPath := filepath.Join(dir, "results.csv")
	cli(t, "export", sweep, "--out", csvPath, "--addr", addr(), "--token-file", co.token)
	if _, jobs := readResults(t, csvPath); jobs != 30 {
		t.Errorf("export holds %d jobs, want 30", jobs)
	}
	co.stop()
	t.Logf("coordinator check: %s", strings.TrimSpace(cli(t, "check", "--data", co.data)))
}

// TestRequeueResumes: `scontrol requeue` of a sweep.sbatch job mid-sweep
// restarts it; the coordinator reopens its store, the same grid is
// resubmitted and resumes, and the sweep completes with every job once.
func TestRequeueResumes(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "sweep")
	run := filepath.Join(out, "run")
	env := []string{"MISSLAB_REPS=10", "MISSLAB_WORKER_FLAGS=--executor deterministic --delay 2s", "MISSLAB_DRAIN=5s"}
	id := sbatch(t, env, "-N", strconv.Itoa(len(nodes)), "-c", "1", "--time=10", "--output", filepath.Join(dir, "job.out"),
		script("sweep.sbatch"), quickstart(), out)
	addr := func() string {
		b, _ := os.ReadFile(filepath.Join(run, "coordinator.addr"))
		return strings.TrimSpace(string(b))
	}
	token := filepath.Join(run, "token")
	if err := poll(t.Context(), 2*time.Minute, "the coordinator's address", func() (bool, error) { return addr() != "", nil }); err != nil {
		t.Fatal(err)
	}
	f := strings.Fields(waitSubmitted(t, filepath.Join(out, "logs", "submit.log")))
	sweep := f[len(f)-1]
	before := waitProgress(t, addr, token, sweep, 2*time.Minute, "6 jobs done", func(p progress) bool { return p.done >= 6 })
	slurm(t, "scontrol", "requeue", id)
	start := time.Now()
	var info map[string]string
	err := poll(t.Context(), 3*time.Minute, "the requeued job to finish", func() (bool, error) {
		info = jobInfo(t, id)
		return info["Restarts"] == "1" && finished[info["JobState"]], nil
	})
	joblog := readFile(t, filepath.Join(dir, "job.out"))
	if err != nil || info["JobState"] != "COMPLETED" {
		t.Fatalf("requeued job: %v, %v\n%s", err, info, joblog)
	}
	t.Logf("requeued at %d/%d done; the restarted job completed %.1fs later:\n%s", before.done, before.jobs, time.Since(start).Seconds(), joblog)
	if !strings.Contains(joblog, "(restart 1)") {
		t.Errorf("the job's output shows no restart")
	}
	loaded := regexp.MustCompile(`loaded sweep: .* done=(\d+)`).FindAllStringSubmatch(readFile(t, filepath.Join(out, "logs", "coordinator.log")), -1)
	resumed := 0
	for _, m := range loaded {
		resumed = max(resumed, atoi(m[1]))
	}
	if resumed < before.done {
		t.Errorf("the restarted coordinator loaded %d done jobs, want at least the %d done before the requeue", resumed, before.done)
	}
	if _, jobs := readResults(t, filepath.Join(out, "results.csv")); jobs != 30 {
		t.Errorf("results.csv holds %d jobs, want 30", jobs)
	}
}

// waitSubmitted waits for sweep.sbatch's submit log to name the sweep
// and returns that line.
func waitSubmitted(t *testing.T, path string) string {
	t.Helper()
	var line string
	err := poll(t.Context(), time.Minute, "the sweep's id", func() (bool, error) {
		b, _ := os.ReadFile(path)
		line = regexp.MustCompile(`(?m)^submitted sweep .*$`).FindString(string(b))
		return line != "", nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return line
}

func atoi(s string) int { n, _ := strconv.Atoi(s); return n }

// TestTimeLimitDrains: a workers.sbatch task with a 2-minute limit is sent
// SIGTERM a minute before it (--signal=B:TERM@60) while it holds leases
// whose jobs take 45 s; the worker hands them back and exits before the
// limit (the job COMPLETED, not TIMEOUT), the coordinator counts no
// expired or lost lease (its lease lifetime is 5 minutes, so a lease left
// behind would stall the sweep), and another task finishes the sweep.
func TestTimeLimitDrains(t *testing.T) {
	dir := t.TempDir()
	co := startCoordinator(t, "--lease", "5m", "--metrics-listen", "127.0.0.1:0")
	addr := func() string { return co.addr(t) }
	sweep := submit(t, addr(), co.token, 4) // 12 jobs
	env := []string{"MISSLAB_WORKER_FLAGS=--executor deterministic --delay 45s", "MISSLAB_DRAIN=5s"}
	id := sbatch(t, env, "-c", "1", "--time=2", "--signal=B:TERM@60", "--output", filepath.Join(dir, "slow.out"),
		script("workers.sbatch"), co.addrFile)
	waitProgress(t, addr, co.token, sweep, time.Minute, "leases held", func(p progress) bool { return p.running > 0 })
	info := waitJob(t, id, 3*time.Minute)
	wlog := readFile(t, filepath.Join(dir, "slow.out"))
	t.Logf("time-limited worker: %s after %s (limit %s):\n%s", info["JobState"], info["RunTime"], info["TimeLimit"], wlog)
	if info["JobState"] != "COMPLETED" {
		t.Errorf("the worker's job ended %s, want COMPLETED (drained before its limit)", info["JobState"])
	}
	if !regexp.MustCompile(`draining: .*released=[1-9]|drain timeout: abandoning running jobs`).MatchString(wlog) || !strings.Contains(wlog, "drained; exiting") {
		t.Errorf("the worker did not hand back leases and exit")
	}
	p, err := status(addr(), co.token, sweep)
	if err != nil || p.running != 0 {
		t.Errorf("after the worker left: %+v, %v; want no job running (leases handed back)", p, err)
	}
	page := metricsPage(t, co.log)
	for name, want := range map[string]float64{"misslab_lease_expiries_total": 0, "misslab_leases_lost_on_disconnect_total": 0} {
		if v, ok := metric(page, name); !ok || v != want {
			t.Errorf("%s = %v (found %v), want %v", name, v, ok, want)
		}
	}
	if strings.Contains(readFile(t, co.log), "lease expired") {
		t.Errorf("the coordinator logged an expired lease")
	}
	fast := sbatch(t, []string{"MISSLAB_WORKER_FLAGS=--executor deterministic"}, "-c", "1", "--time=5",
		"--output", filepath.Join(dir, "fast.out"), script("workers.sbatch"), co.addrFile)
	end := waitProgress(t, addr, co.token, sweep, 2*time.Minute, "the sweep complete", func(p progress) bool { return p.done+p.failed == p.jobs })
	slurm(t, "scancel", fast)
	if end.done != 12 {
		t.Errorf("progress %+v, want 12 jobs done", end)
	}
}

// metricsPage fetches the coordinator's Prometheus page, whose address
// its log names.
func metricsPage(t *testing.T, logPath string) string {
	t.Helper()
	m := regexp.MustCompile(`serving metrics: addr=(\S+)`).FindStringSubmatch(readFile(t, logPath))
	if m == nil {
		t.Fatal("the coordinator's log names no metrics address")
	}
	resp, err := http.Get(m[1])
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
