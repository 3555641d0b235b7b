package server_test

import (
	"testing"
	"time"

	"github.com/misslab/misslab/internal/grid"

	"github.com/misslab/misslab/internal/sched"
	"github.com/misslab/misslab/internal/server"
	"github.com/misslab/misslab/internal/worker"
	pb "github.com/misslab/misslab/proto/misslab/v1"
)

// TestRetryAndResubmitPutFailedJobsBack: a job that failed for good
// while the rest of its sweep runs is put back by `coordinator retry`,
// by submitting the grid again while the sweep runs, and by submitting
// it again after a cancel; its stored failure is gone (a restarted
// coordinator does not find it) and it runs to a result. (Before: only
// a resubmission of a closed sweep put failures back, so a cancel then a
// submit left them failed, and there was no retry.)
func TestRetryAndResubmitPutFailedJobsBack(t *testing.T) {
	cases := []struct {
		name string
		act  func(t *testing.T, c *cluster, id string) *pb.SweepStatus
	}{
		{"coordinator retry", func(t *testing.T, c *cluster, id string) *pb.SweepStatus {
			resp, err := c.client.Retry(t.Context(), &pb.RetryRequest{SweepId: id[:10]})
			must(t, err)
			if resp.GetRetried() != 1 {
				t.Errorf("retried %d jobs, want 1", resp.GetRetried())
			}
			return resp.GetStatus()
		}},
		{"submit while it runs", func(t *testing.T, c *cluster, id string) *pb.SweepStatus {
			return c.submit(retrySweep(t)).GetStatus()
		}},
		{"cancel, then submit", func(t *testing.T, c *cluster, id string) *pb.SweepStatus {
			_, err := c.client.Cancel(t.Context(), &pb.CancelRequest{SweepId: id})
			must(t, err)
			return c.submit(retrySweep(t)).GetStatus()
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			c := startCluster(t, dir, server.Options{MaxDeliveries: 1, SpeculateAfter: time.Hour})
			sw := retrySweep(t)
			id := c.submit(sw).SweepId
			failOneJob(t, c, id) // and keep another leased: the sweep runs
			st := tc.act(t, c, id)
			if st.GetFailed() != 0 || st.GetState() != pb.SweepStatus_STATE_RUNNING {
				t.Fatalf("after %s: %v, want running with no failed job", tc.name, st)
			}
			c.close()
			c2 := startCluster(t, dir, server.Options{})
			if st, err := c2.coord.Status(id); err != nil || st.Failed != 0 {
				t.Fatalf("restarted: %+v (%v), want the stored failure cleared", st, err)
			}
			c2.startWorker("w", 2, worker.Deterministic{})
			if st := c2.wait(id); st.GetDone() != int64(sw.Jobs()) {
				t.Fatalf("final status %v", st)
			}
			checkScores(t, c2.coord, sw)
		})
	}
}

func retrySweep(t *testing.T) *grid.Sweep {
	return testSweep(t, 51, 3, []float64{0.1, 0.2}, "tree/mia")
}

// failOneJob takes two leases on a raw stream, reports the first job
// failed (its last delivery: the limit is 1) and keeps the second (and
// the lease it gets in its place).
func failOneJob(t *testing.T, c *cluster, id string) {
	t.Helper()
	s, _ := hello(t.Context(), t, dialRawWorker(t, c.addr), "failing", 2)
	jobs := takeLeases(t, s, 2)
	it := sendResult(t, s, &pb.JobResult{Token: jobs[0].GetToken(), SweepId: id, Job: jobs[0].GetJob(), Error: "fit: singular"})
	if it.GetOutcome() != pb.Ack_OUTCOME_ACCEPTED {
		t.Fatalf("error report: %v", it)
	}
	pollSched(t, c, id, func(st sched.Status) bool { return st.Failed == 1 })
}
