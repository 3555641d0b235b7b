package server_test

import (
	"bytes"
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/backoff"

	"github.com/misslab/misslab/internal/client"
	"github.com/misslab/misslab/internal/embedded"
	"github.com/misslab/misslab/internal/store"
	pb "github.com/misslab/misslab/proto/misslab/v1"
)

var (
	buildOnce sync.Once
	binDir    string
	buildErr  error
)

// binaries builds cmd/coordinator and cmd/worker once per test process.
func binaries(t *testing.T) (coordinator, worker string) {
	t.Helper()
	buildOnce.Do(func() {
		binDir, buildErr = os.MkdirTemp("", "misslab-bin-")
		if buildErr != nil {
			return
		}
		cmd := exec.Command("go", "build", "-o", binDir+"/", "github.com/misslab/misslab/cmd/coordinator", "github.com/misslab/misslab/cmd/worker")
		out, err := cmd.CombinedOutput()
		if err != nil {
			buildErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return filepath.Join(binDir, "coordinator"), filepath.Join(binDir, "worker")
}

func TestMain(m *testing.M) {
	code := m.Run()
	if binDir != "" {
		os.RemoveAll(binDir)
	}
	os.Exit(code)
}

// proc is a child process whose output goes to a buffer shown on failure.
type proc struct {
	name string
	cmd  *exec.Cmd
	out  *bytes.Buffer
	done chan struct{}
}

func start(t *testing.T, name, bin string, args ...string) *proc {
	t.Helper()
	p := &proc{name: name, cmd: exec.Command(bin, args...), out: &bytes.Buffer{}, done: make(chan struct{})}
	p.cmd.Stdout, p.cmd.Stderr = p.out, p.out
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { _ = p.cmd.Wait(); close(p.done) }()
	t.Cleanup(func() {
		p.signal(syscall.SIGKILL)
		if t.Failed() {
			t.Logf("--- %s output:\n%s", p.name, p.out.String())
		}
	})
	return p
}

// signal sends sig and waits for the process to exit.
func (p *proc) signal(sig syscall.Signal) {
	p.send(sig)
	p.wait()
}

// send sends sig without waiting.
func (p *proc) send(sig syscall.Signal) {
	select {
	case <-p.done:
	default:
		_ = p.cmd.Process.Signal(sig)
	}
}

func (p *proc) wait() {
	select {
	case <-p.done:
	case <-time.After(30 * time.Second):
		_ = p.cmd.Process.Kill()
		<-p.done
	}
}

const crashGrid = `
sweep "crash" {
  seed        = 20260101
  repetitions = 40
  data {
    model   = "quadratic"
    n_train = 60
    n_test  = 60
  }
  missingness {
    mechanism = "mcar"
    rate      = [0.1, 0.2, 0.3, 0.4, 0.5, 0.6]
  }
  pipelines {
    names = ["linear/mean", "linear/median"]
  }
}
`

// readScores reads the r2 and mse rows of a results table, keyed by
// scenario, repetition, pipeline and metric.
func readScores(t *testing.T, path string) map[string]string {
	t.Helper()
	raw, err := os.ReadFile(path)
	must(t, err)
	rows, err := csv.NewReader(bytes.NewReader(raw)).ReadAll()
	must(t, err)
	out := map[string]string{}
	for _, r := range rows[1:] {
		if m := r[15]; m == "r2" || m == "mse" {
			k := strings.Join([]string{r[2], r[13], r[14], m}, "|")
			if _, dup := out[k]; dup {
				t.Fatalf("%s: two rows for %s", path, k)
			}
			if r[17] != "" {
				t.Fatalf("%s: %s failed: %s", path, k, r[17])
			}
			out[k] = r[16]
		}
	}
	return out
}

// TestCrashAndResume kills the coordinator with SIGKILL at random points
// several times, restarting it on the same data directory, and kills and
// restarts workers too (SIGKILL and SIGTERM). At the end every job has
// exactly one stored result per pipeline and the scores of the real
// experiment are bit-identical to an uninterrupted single-worker run.
func TestCrashAndResume(t *testing.T) {
	if testing.Short() {
		t.Skip("builds both binaries and runs 240 real jobs through 4 coordinator kills (~10 s); runs without -short, as in CI")
	}
	coordBin, workerBin := binaries(t)
	dir := t.TempDir()
	gridPath := filepath.Join(dir, "crash.hcl")
	must(t, os.WriteFile(gridPath, []byte(crashGrid), 0o644))
	data := filepath.Join(dir, "data")
	seed := uint64(time.Now().UnixNano())
	rng := rand.New(rand.NewPCG(seed, 0))
	t.Logf("kill schedule seed %d", seed)

	// Every coordinator binds a port of the kernel's choosing and writes
	// it to its --addr-file; a restarted one gets a new port, never one
	// freed a moment earlier, which another process may have taken. The
	// workers (whose --join cannot change), the CLI and the status client
	// all use the address of a relay that the test holds open throughout
	// and points at the live coordinator.
	rl := newRelay(t)
	addr, addrFile := rl.addr(), filepath.Join(dir, "coordinator.addr")
	serve := func() *proc {
		if err := os.Remove(addrFile); err != nil && !errors.Is(err, fs.ErrNotExist) {
			t.Fatal(err)
		}
		p := start(t, "coordinator", coordBin, "serve", "--listen", "127.0.0.1:0", "--addr-file", addrFile,
			"--data", data, "--lease", "2s", "--max-deliveries", "1000", "--log-level", "warn")
		rl.to(readAddrFile(t, p, addrFile))
		return p
	}
	coord := serve()
	// The client reconnects within 100 ms of a restart; with gRPC's default
	// backoff (1 s growing to 120 s) the status polls would go blind for
	// seconds while the workers, which retry fast, finish the sweep.
	cl, err := client.Dial(addr, grpc.WithConnectParams(grpc.ConnectParams{
		Backoff:           backoff.Config{BaseDelay: 20 * time.Millisecond, Multiplier: 1.6, MaxDelay: 100 * time.Millisecond},
		MinConnectTimeout: time.Second,
	}))
	must(t, err)
	defer cl.Close()
	waitUp(t, cl)
	// Malformed grids are refused by the CLI; the coordinator never notices.
	for name, src := range map[string]string{
		"syntax.hcl":   `sweep "x" { seed = `,
		"pipeline.hcl": strings.Replace(crashGrid, "linear/median", "linear/bogus", 1),
		"rate.hcl":     strings.Replace(crashGrid, "0.6]", "1.6]", 1),
	} {
		bad := filepath.Join(dir, name)
		must(t, os.WriteFile(bad, []byte(src), 0o644))
		out, err := exec.Command(coordBin, "submit", bad, "--addr", addr, "--detach").CombinedOutput()
		if err == nil || !strings.Contains(string(out), name) {
			t.Fatalf("submit %s: err %v, output %s (want an error naming the file)", name, err, out)
		}
	}
	if out, err := exec.Command(coordBin, "plan", gridPath, "--reps", "2").CombinedOutput(); err != nil ||
		!strings.Contains(string(out), `sweep "crash"`) {
		t.Fatalf("plan: %v\n%s", err, out)
	}
	sub := exec.Command(coordBin, "submit", gridPath, "--addr", addr, "--detach")
	if out, err := sub.CombinedOutput(); err != nil {
		t.Fatalf("submit: %v\n%s", err, out)
	}
	f, err := client.LoadGrid(gridPath, 0)
	must(t, err)
	sw := f.Sweeps[0]
	id := sw.Hash()

	workerArgs := []string{"--join", addr, "--executor", "experiment", "--delay", "60ms", "--max-backoff", "200ms", "--log-level", "warn"}
	workers := make([]*proc, 3)
	for i := range workers {
		workers[i] = start(t, fmt.Sprintf("worker%d", i), workerBin, append(workerArgs, "--parallel", fmt.Sprint(i+1))...)
	}
	var drained []*proc
	midSweep := 0
	jobs := int64(sw.Jobs())
	for round := range 4 {
		// Kill on progress, not on the clock: round r fires once a random
		// point in the (r+1)-th fifth of the sweep is stored, so every kill
		// lands mid-sweep however fast or slow the machine is.
		target := jobs*int64(round+1)/5 + rng.Int64N(jobs/10)
		sts := waitProgress(t, cl, id, target, 60*time.Second)
		refusals := rng.IntN(len(workers) + 1)
		t.Logf("round %d: killing the coordinator at %d/%d done, %d running; back after %d refused connections",
			round, sts.Done, sts.Jobs, sts.Running, refusals)
		if sts.Done < sts.Jobs {
			midSweep++
		}
		rl.to("") // refuse new connections from now on
		coord.signal(syscall.SIGKILL)
		if i := rng.IntN(len(workers)); round%2 == 0 {
			workers[i].signal(syscall.SIGKILL)
			workers[i] = start(t, fmt.Sprintf("worker%d", i), workerBin, append(workerArgs, "--parallel", "2")...)
		} else {
			// Drains: hands back queued leases, finishes the running ones
			// and delivers them once the coordinator is back.
			workers[i].send(syscall.SIGTERM)
			drained = append(drained, workers[i])
			workers[i] = start(t, fmt.Sprintf("worker%d", i), workerBin, append(workerArgs, "--parallel", "1")...)
		}
		// The coordinator stays away until the workers have found it gone
		// a random number of times (0 to one per worker): the outage is
		// measured in refused reconnections, not in milliseconds that a
		// loaded machine may spend before any worker notices.
		rl.waitRefused(t, refusals, 30*time.Second)
		coord = serve()
		waitUp(t, cl)
	}
	if midSweep < 4 {
		t.Fatalf("only %d of 4 kills hit a running sweep", midSweep)
	}
	st := waitDone(t, cl, id, 90*time.Second)
	if st.Done != int64(sw.Jobs()) || st.Failed != 0 {
		t.Fatalf("final status %v", st)
	}
	crashCSV := filepath.Join(dir, "crash.csv")
	if out, err := exec.Command(coordBin, "export", id[:10], "--out", crashCSV, "--addr", addr).CombinedOutput(); err != nil {
		t.Fatalf("export: %v\n%s", err, out)
	}
	for _, w := range append(workers, drained...) {
		w.signal(syscall.SIGTERM)
		if code := w.cmd.ProcessState.ExitCode(); code != 0 {
			t.Errorf("%s exited with %d after SIGTERM, want 0", w.name, code)
		}
	}
	coord.signal(syscall.SIGKILL)

	st2, err := store.Open(data, store.Options{})
	must(t, err)
	n, err := st2.CountResults()
	st2.Close()
	if err != nil || n != sw.Jobs()*len(sw.Pipelines) {
		t.Fatalf("%d results stored (err %v), want exactly %d", n, err, sw.Jobs()*len(sw.Pipelines))
	}

	ref := filepath.Join(dir, "ref")
	if out, err := exec.Command(coordBin, "run", gridPath, "--out", ref, "--parallel", "1", "--executor", "experiment").CombinedOutput(); err != nil {
		t.Fatalf("reference run: %v\n%s", err, out)
	}
	want, got := readScores(t, filepath.Join(ref, embedded.ResultsFile)), readScores(t, crashCSV)
	if len(want) != 2*sw.Jobs()*len(sw.Pipelines) || len(got) != len(want) {
		t.Fatalf("%d reference and %d crash-run scores, want %d", len(want), len(got), 2*sw.Jobs()*len(sw.Pipelines))
	}
	for k, v := range want {
		if got[k] != v {
			t.Fatalf("%s: %s after crashes, %s uninterrupted", k, got[k], v)
		}
	}
}

// readAddrFile waits for the coordinator p to write its address to path
// and returns it; it fails the test if p exits first or after 30 s.
func readAddrFile(t *testing.T, p *proc, path string) string {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		b, err := os.ReadFile(path)
		if err == nil {
			return strings.TrimSpace(string(b))
		}
		if !errors.Is(err, fs.ErrNotExist) {
			t.Fatal(err)
		}
		select {
		case <-p.done:
			t.Fatalf("%s exited before listening", p.name)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s wrote no address to %s in 30 s", p.name, path)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func waitUp(t *testing.T, c *client.Client) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		_, err := c.Status(ctx, &pb.StatusRequest{})
		cancel()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("coordinator not up: %v", err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func waitDone(t *testing.T, c *client.Client, id string, limit time.Duration) *pb.SweepStatus {
	t.Helper()
	deadline := time.Now().Add(limit)
	for {
		sts, err := c.Statuses(context.Background(), []string{id})
		if err == nil && sts[0].State == pb.SweepStatus_STATE_COMPLETE {
			return sts[0]
		}
		if time.Now().After(deadline) {
			t.Fatalf("sweep not complete: %v %v", sts, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// waitProgress polls until at least target jobs of sweep id are done and
// returns that status; it fails the test after limit.
func waitProgress(t *testing.T, c *client.Client, id string, target int64, limit time.Duration) *pb.SweepStatus {
	t.Helper()
	deadline := time.Now().Add(limit)
	for {
		sts, err := c.Statuses(context.Background(), []string{id})
		if err == nil && sts[0].Done >= target {
			return sts[0]
		}
		if time.Now().After(deadline) {
			t.Fatalf("sweep never reached %d done jobs: %v %v", target, sts, err)
		}
		time.Sleep(5 * time.Millisecond)
	}
}
