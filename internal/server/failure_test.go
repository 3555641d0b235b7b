package server_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/misslab/misslab/internal/client"
	"github.com/misslab/misslab/internal/grid"
	"github.com/misslab/misslab/internal/sched"
	"github.com/misslab/misslab/internal/server"
	"github.com/misslab/misslab/internal/worker"
	pb "github.com/misslab/misslab/proto/misslab/v1"
)

// poison panics on job (scenario 0, repetition 0) and scores the others.
type poison struct{}

func (poison) Execute(ctx context.Context, sw *grid.Sweep, scenario, rep int, pipelines []int) ([]worker.Result, error) {
	if scenario == 0 && rep == 0 {
		panic("poisoned job")
	}
	return worker.Deterministic{}.Execute(ctx, sw, scenario, rep, pipelines)
}

// TestPoisonJobFailsAtDeliveryLimit: a job whose every delivery fails is
// marked failed with its last error after the delivery limit, the rest of
// the sweep completes, the failure survives a restart (rebuilt from the
// store) and a resubmission retries it.
func TestPoisonJobFailsAtDeliveryLimit(t *testing.T) {
	dir := t.TempDir()
	c := startCluster(t, dir, server.Options{MaxDeliveries: 2})
	stop := c.startWorker("w", 2, poison{})
	sw := testSweep(t, 8, 3, []float64{0.1, 0.2}, "tree/mia")
	id := c.submit(sw).SweepId
	st := c.wait(id)
	if st.Done != 5 || st.Failed != 1 || !strings.Contains(st.LastError, "panic: poisoned job") {
		t.Fatalf("status %v: want 5 done, 1 failed with the panic", st)
	}
	stop()
	c.close()
	rec := newRecorder()
	c2 := startCluster(t, dir, server.Options{Observer: rec})
	sts, err := c2.client.Status(context.Background(), &pb.StatusRequest{SweepId: id[:8]})
	must(t, err)
	if s := sts.Sweeps[0]; s.Done != 5 || s.Failed != 1 || s.State != pb.SweepStatus_STATE_COMPLETE {
		t.Fatalf("after restart: %v", s)
	}
	var csv strings.Builder
	cl, err := client.Dial(c2.addr)
	must(t, err)
	defer cl.Close()
	must(t, cl.Export(context.Background(), id, &csv))
	if n := strings.Count(csv.String(), ",NA,job: panic: poisoned job"); n != 4 {
		t.Fatalf("%d NA rows for the failed job, want 4 (one per metric):\n%.500s", n, csv.String())
	}
	// The resubmission finds a connected, idle worker waiting for work.
	c2.startWorker("healthy", 2, worker.Deterministic{})
	waitFor(t, func() bool { return rec.snapshot().workers == 1 })
	if again := c2.submit(sw); again.Status.Failed != 0 {
		t.Fatalf("resubmission did not retry the failed job: %v", again.Status)
	}
	if st := c2.wait(id); st.Done != 6 || st.Failed != 0 {
		t.Fatalf("after retry: %v", st)
	}
	checkScores(t, c2.coord, sw)
}

// TestCancelStopsAndResubmitResumes: a cancelled sweep gets no more
// leases, stays cancelled across a restart, keeps its stored results and
// resumes where it stopped when submitted again.
func TestCancelStopsAndResubmitResumes(t *testing.T) {
	dir := t.TempDir()
	c := startCluster(t, dir, server.Options{})
	exec := &counting{runs: map[string]int{}}
	stop := c.startWorker("w", 2, worker.Slow{Executor: exec, Delay: 5 * time.Millisecond})
	sw := testSweep(t, 12, 20, []float64{0.1, 0.2}, "tree/mia")
	id := c.submit(sw).SweepId
	waitFor(t, func() bool { n, _ := exec.total(); return n >= 5 })
	resp, err := c.client.Cancel(context.Background(), &pb.CancelRequest{SweepId: id[:6]})
	must(t, err)
	if resp.Status.State != pb.SweepStatus_STATE_CANCELLED {
		t.Fatalf("cancel: %v", resp.Status)
	}
	var st sched.Status
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		st, err = c.coord.Status(id)
		must(t, err)
		if st.Running == 0 { // leases revoked, accepted results committed
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("leases outlive the cancel: %+v", st)
		}
	}
	// No lease after the cancel: a later sweep, queued behind the
	// cancelled one (sweeps are leased in load order), runs to the end on
	// the same worker while the cancelled one stays where it was.
	later := testSweep(t, 13, 3, []float64{0.1}, "tree/mean")
	c.wait(c.submit(later).SweepId)
	if st2, _ := c.coord.Status(id); st2.Done != st.Done || st2.Running != 0 || st.Done >= 40 {
		t.Fatalf("still running after cancel: %+v then %+v", st, st2)
	}
	stop()
	c.close()
	c2 := startCluster(t, dir, server.Options{}) // on a new port
	sts, err := c2.client.Status(context.Background(), &pb.StatusRequest{SweepId: id})
	must(t, err)
	if s := sts.Sweeps[0]; s.State != pb.SweepStatus_STATE_CANCELLED || s.Done != int64(st.Done) {
		t.Fatalf("after restart: %v, want cancelled with %d done", s, st.Done)
	}
	c2.startWorker("w2", 2, exec)
	if again := c2.submit(sw); again.Status.State != pb.SweepStatus_STATE_RUNNING {
		t.Fatalf("resubmission: %v", again.Status)
	}
	c2.wait(id)
	checkScores(t, c2.coord, sw)
	// At most the 4 leases the worker held at the cancel run twice.
	if n := exec.of(sw.Pipelines[0]); n > 40+4 {
		t.Fatalf("%d executions for 40 jobs: stored results were recomputed", n)
	}
}
