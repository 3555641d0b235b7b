//go:build compose

package compose_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"

	"github.com/misslab/misslab/internal/auth"
	pb "github.com/misslab/misslab/proto/misslab/v1"
)

func grid(name string) string { return filepath.Join(root, name) }

var faults = filepath.Join("deploy", "compose", "testdata", "faults.hcl")

// TestQuickstartOnThreeWorkers runs the quickstart grid (3 repetitions,
// every learner family for real) on a TLS cluster of three worker
// containers, checks the scores against a local run, and meanwhile
// checks that clients and workers without the right credentials are
// refused with a reason, and that probes need none.
func TestQuickstartOnThreeWorkers(t *testing.T) {
	p := up(t, 3, "MISSLAB_EXECUTOR=experiment")
	id := p.submit(grid("examples/quickstart.hcl"), "--reps", "3")
	t.Run("refusals", func(t *testing.T) { checkRefusals(t, p) })
	start := time.Now()
	st := p.waitStatus(p.client(), id, 5*time.Minute, "quickstart complete", complete)
	t.Logf("quickstart, 9 jobs on 3 workers: %.1fs", time.Since(start).Seconds())
	if st.GetFailed() != 0 || st.GetDone() != 9 {
		t.Fatalf("final status %v", st)
	}
	sameScores(t, p.export(id), localRun(t, grid("examples/quickstart.hcl"), "--reps", "3"), 9)
}

func checkRefusals(t *testing.T, p *project) {
	addr := p.port(7420)
	ca := filepath.Join(certs, "ca.pem")
	dir := t.TempDir()
	if err := os.Chmod(dir, 0o755); err != nil { // the containers' user reads it
		t.Fatal(err)
	}
	bad := filepath.Join(dir, "token")
	if err := os.WriteFile(bad, []byte("not-the-token-not-the-token\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	clients := []struct {
		name string
		args []string
		want string
	}{
		{"no token", []string{"--tls-ca", ca}, "code = Unauthenticated desc = auth: unauthenticated: no token"},
		{"wrong token", []string{"--tls-ca", ca, "--token-file", bad, "--cluster", "ci"}, "code = Unauthenticated desc = auth: unauthenticated: wrong token"},
		{"other cluster", []string{"--tls-ca", ca, "--token-file", filepath.Join(certs, "token"), "--cluster", "other"}, "code = PermissionDenied"},
		{"plaintext", []string{"--token-file", filepath.Join(certs, "token"), "--cluster", "ci"}, "code = Unavailable"},
	}
	for _, c := range clients {
		out, err := p.cli(append([]string{"status", "--addr", addr}, c.args...)...)
		if err == nil || !strings.Contains(out, c.want) {
			t.Errorf("client with %s: err %v, output %q; want a refusal with %q", c.name, err, out, c.want)
		}
	}
	// Health answers without credentials (over TLS here; --health-listen
	// serves it in plaintext for Kubernetes probes).
	cfg, err := auth.ClientTLS(ca, "", "", "")
	if err != nil {
		t.Fatal(err)
	}
	conn, err := grpc.NewClient(addr, grpc.WithTransportCredentials(credentials.NewTLS(cfg)))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if resp, err := healthpb.NewHealthClient(conn).Check(ctx, &healthpb.HealthCheckRequest{}); err != nil ||
		resp.GetStatus() != healthpb.HealthCheckResponse_SERVING {
		t.Errorf("health without credentials: %v %v", resp, err)
	}
	// Worker containers with a wrong token or of another cluster exit
	// with the reason, and the coordinator logs who and why.
	workers := []struct{ id, token, cluster, want string }{
		{"intruder", "/run/bad/token", "ci", "wrong token"},
		{"stranger", "/run/misslab/token", "other", `deployed for cluster \"other\" but this coordinator serves cluster \"ci\"`},
	}
	for _, w := range workers {
		out, err := p.composeErr(2*time.Minute, "run", "--rm", "-T", "-v", dir+":/run/bad:ro", "worker",
			"--join=coordinator:7420", "--tls-ca=/run/misslab/ca.pem", "--token-file="+w.token, "--cluster="+w.cluster,
			"--executor=noop", "--id="+w.id)
		if err == nil || !strings.Contains(out, "the coordinator refused this worker") {
			t.Errorf("worker %s: err %v, output:\n%s", w.id, err, out)
		}
	}
	logs := p.logs("coordinator")
	for _, w := range workers {
		found := false
		for _, line := range strings.Split(logs, "\n") {
			if strings.Contains(line, "refused a call") && strings.Contains(line, "client="+w.id) && strings.Contains(line, w.want) {
				found = true
			}
		}
		if !found {
			t.Errorf("no refusal of %s (%s) in the coordinator's log", w.id, w.want)
		}
	}
}

// TestWorkerKilledMidJob kills a worker container while it holds leases:
// its jobs go to the others and every job is stored once.
func TestWorkerKilledMidJob(t *testing.T) {
	p := up(t, 3, "MISSLAB_EXECUTOR=deterministic", "MISSLAB_DELAY=1s", "MISSLAB_PARALLEL=2")
	c := p.client()
	id := p.submit(grid(faults), "--reps", "20") // 40 jobs
	p.waitStatus(c, id, time.Minute, "first results", func(st *pb.SweepStatus) bool { return st.GetDone() >= 4 })
	victim := p.containers("worker")[0]
	p.docker("kill", "-s", "KILL", victim)
	p.waitMetric("misslab_leases_lost_on_disconnect_total", "", func(v float64) bool { return v >= 1 }, 30*time.Second)
	st := p.waitStatus(c, id, 2*time.Minute, "sweep complete", complete)
	if st.GetFailed() != 0 || st.GetDone() != 40 {
		t.Fatalf("final status %v", st)
	}
	m := p.metrics()
	t.Logf("leases lost with the killed worker: %v", m["misslab_leases_lost_on_disconnect_total"])
	sameScores(t, p.export(id), localRun(t, grid(faults), "--reps", "20", "--executor", "deterministic"), 40)
}

// TestCoordinatorKilledAndRestarted kills the coordinator mid-sweep
// (SIGKILL: no clean shutdown) and starts it again on the same volume:
// the results stored before the kill are kept, the workers reconnect,
// the sweep finishes, and every score is bit-identical to a local,
// uninterrupted run of the same grid with the real learners.
func TestCoordinatorKilledAndRestarted(t *testing.T) {
	p := up(t, 2, "MISSLAB_EXECUTOR=experiment", "MISSLAB_DELAY=1s", "MISSLAB_PARALLEL=1")
	c := p.client()
	id := p.submit(grid(faults)) // 24 jobs
	before := p.waitStatus(c, id, 2*time.Minute, "first results", func(st *pb.SweepStatus) bool { return st.GetDone() >= 4 })
	killed := time.Now()
	p.compose(time.Minute, "kill", "-s", "SIGKILL", "coordinator")
	if before.GetDone() >= 24 {
		t.Fatalf("the sweep finished before the kill: %v", before)
	}
	// The coordinator stays down until every worker has found it gone.
	for _, w := range p.containers("worker") {
		p.waitLog(w, killed, "not connected to coordinator", time.Minute)
	}
	p.compose(time.Minute, "start", "coordinator")
	c = p.client() // the published port changed
	after := p.waitStatus(c, id, time.Minute, "coordinator back", func(*pb.SweepStatus) bool { return true })
	if after.GetDone() < before.GetDone() {
		t.Fatalf("%d results stored before the kill, %d after the restart", before.GetDone(), after.GetDone())
	}
	t.Logf("done before the kill %d, right after the restart %d", before.GetDone(), after.GetDone())
	st := p.waitStatus(c, id, 3*time.Minute, "sweep complete", complete)
	if st.GetFailed() != 0 || st.GetDone() != 24 {
		t.Fatalf("final status %v", st)
	}
	sameScores(t, p.export(id), localRun(t, grid(faults)), 24)
	if n := strings.Count(p.logs("worker"), "connected to coordinator"); n < 4 {
		t.Errorf("%d worker connections in the logs, want at least 4 (2 workers, before and after)", n)
	}
}

// waitLog polls container's log since since until it contains text, and
// fails the test after timeout.
func (p *project) waitLog(container string, since time.Time, text string, timeout time.Duration) {
	p.t.Helper()
	from := fmt.Sprintf("%d.%09d", since.Unix(), since.Nanosecond())
	for deadline := time.Now().Add(timeout); !strings.Contains(p.docker("logs", "--since", from, container), text); {
		if time.Now().After(deadline) {
			p.t.Fatalf("container %.12s logged no %q in %v", container, text, timeout)
		}
		time.Sleep(250 * time.Millisecond)
	}
}

// TestWorkerCutOffFromNetwork disconnects a worker's container from the
// network for longer than the lease: its leases expire and its jobs go
// to the others; when it is reconnected its late results are refused as
// stale or duplicate, and nothing is counted twice.
func TestWorkerCutOffFromNetwork(t *testing.T) {
	p := up(t, 3, "MISSLAB_EXECUTOR=deterministic", "MISSLAB_DELAY=3s", "MISSLAB_PARALLEL=1", "MISSLAB_PREFETCH=1",
		"MISSLAB_LEASE=4s")
	c := p.client()
	id := p.submit(grid(faults)) // 24 jobs of 3 s on 3 one-slot workers
	p.waitStatus(c, id, time.Minute, "first results", func(st *pb.SweepStatus) bool { return st.GetDone() >= 3 })
	victim := p.containers("worker")[2]
	network := p.name + "_default"
	ipBefore := p.docker("inspect", "-f", "{{range .NetworkSettings.Networks}}{{.IPAddress}}{{end}}", victim)
	cut := time.Now()
	p.docker("network", "disconnect", network, victim)
	p.waitMetric("misslab_lease_expiries_total", "", func(v float64) bool { return v >= 1 }, 20*time.Second)
	// The cut-off worker finishes its jobs meanwhile. It is unreachable
	// and logs nothing per job, so this is a bound from its settings, not
	// a wait on what it reports: it holds at most 2 jobs (1 slot, 1
	// prefetched) of 3 s each, all done 6 s after the cut; 1 s of margin.
	time.Sleep(time.Until(cut.Add(7 * time.Second)))
	p.docker("network", "connect", network, victim)
	ipAfter := p.docker("inspect", "-f", "{{range .NetworkSettings.Networks}}{{.IPAddress}}{{end}}", victim)
	t.Logf("worker %s cut off at %s, back at %s", victim[:12], ipBefore, ipAfter)
	if ipAfter == ipBefore {
		// The same TCP connection resumes and delivers the results the
		// worker computed while cut off, under its expired leases.
		p.waitMetric("misslab_results_total", `{outcome="stale"}`, func(v float64) bool {
			m := p.metrics()
			return m[`misslab_results_total{outcome="stale"}`]+m[`misslab_results_total{outcome="duplicate"}`] >= 1
		}, 60*time.Second)
		if !strings.Contains(p.logs("coordinator"), "result not counted") {
			t.Error("the coordinator's log does not show the late results it refused")
		}
	} else {
		// On a new address the old connection is dead: the worker
		// reconnects and its finished jobs are dropped at rebinding
		// instead. Nothing may be counted twice either way (checked below).
		t.Logf("Docker gave the worker a new address: no late result can arrive on the old stream")
	}
	st := p.waitStatus(c, id, 2*time.Minute, "sweep complete", complete)
	if st.GetFailed() != 0 || st.GetDone() != 24 {
		t.Fatalf("final status %v", st)
	}
	m := p.metrics()
	t.Logf("lease expiries %v, results accepted %v, stale %v, duplicate %v", m["misslab_lease_expiries_total"],
		m[`misslab_results_total{outcome="accepted"}`], m[`misslab_results_total{outcome="stale"}`],
		m[`misslab_results_total{outcome="duplicate"}`])
	sameScores(t, p.export(id), localRun(t, grid(faults), "--executor", "deterministic"), 24)
}

// TestRollingRestartOfWorkers restarts every worker in turn (SIGTERM:
// each drains, handing back queued leases and finishing running jobs)
// while a sweep runs; it finishes with nothing failed or stored twice.
func TestRollingRestartOfWorkers(t *testing.T) {
	p := up(t, 3, "MISSLAB_EXECUTOR=deterministic", "MISSLAB_DELAY=1s", "MISSLAB_PARALLEL=2", "MISSLAB_DRAIN=30s")
	c := p.client()
	id := p.submit(grid(faults), "--reps", "40") // 80 jobs
	p.waitStatus(c, id, time.Minute, "first results", func(st *pb.SweepStatus) bool { return st.GetDone() >= 4 })
	for i, w := range p.containers("worker") {
		p.docker("restart", "-t", "30", w)
		p.waitMetric("misslab_workers", "", func(v float64) bool { return v == 3 }, time.Minute)
		st := status(c, id)
		t.Logf("worker %d restarted; %d of 80 jobs done", i+1, st.GetDone())
		if complete(st) {
			t.Fatalf("the sweep finished before worker %d restarted: too short to test", i+1)
		}
	}
	st := p.waitStatus(c, id, 2*time.Minute, "sweep complete", complete)
	if st.GetFailed() != 0 || st.GetDone() != 80 {
		t.Fatalf("final status %v", st)
	}
	if n := strings.Count(p.logs("worker"), "drained; exiting"); n != 3 {
		t.Errorf("%d workers drained and exited cleanly, want 3", n)
	}
	// A drained worker hands back what it holds: no lease is lost or expires.
	m := p.metrics()
	if lost, exp := m["misslab_leases_lost_on_disconnect_total"], m["misslab_lease_expiries_total"]; lost != 0 || exp != 0 {
		t.Errorf("%v leases lost on disconnect and %v expired during a rolling restart, want none", lost, exp)
	}
	sameScores(t, p.export(id), localRun(t, grid(faults), "--reps", "40", "--executor", "deterministic"), 80)
}
