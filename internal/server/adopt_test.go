package server_test

import (
	"context"
	"testing"
	"time"

	"github.com/misslab/misslab/internal/fpclass"
	"github.com/misslab/misslab/internal/sched"
	"github.com/misslab/misslab/internal/server"
	pb "github.com/misslab/misslab/proto/misslab/v1"
)

// hello opens a raw worker stream, says Hello with the held jobs and
// returns the stream and the Welcome's rebinds; cancelling the stream's
// context (t.Context() ends with the test) breaks it off.
func hello(ctx context.Context, t *testing.T, raw *rawWorker, id string, capacity int32, held ...*pb.Held) (pb.WorkService_WorkClient, []*pb.Rebind) {
	t.Helper()
	s, err := pb.NewWorkServiceClient(raw.conn).Work(ctx)
	must(t, err)
	must(t, s.Send(&pb.WorkRequest{Msg: &pb.WorkRequest_Hello{Hello: &pb.Hello{FpClass: fpclass.Current(), WorkerId: id, Capacity: capacity, Held: held}}}))
	rb := recvType[*pb.WorkResponse_Welcome](t, s).Welcome.GetRebinds()
	if len(rb) != len(held) {
		t.Fatalf("%d rebinds for %d held jobs", len(rb), len(held))
	}
	return s, rb
}

// sendResult sends one job result and returns its acknowledgement.
func sendResult(t *testing.T, s pb.WorkService_WorkClient, r *pb.JobResult) *pb.Ack_Item {
	t.Helper()
	must(t, s.Send(&pb.WorkRequest{Msg: &pb.WorkRequest_Results{Results: &pb.ResultBatch{Results: []*pb.JobResult{r}}}}))
	return recvType[*pb.WorkResponse_Ack](t, s).Ack.GetItems()[0]
}

// pollSched polls the scheduler's status of sweep id until cond holds (10 s).
func pollSched(t *testing.T, c *cluster, id string, cond func(sched.Status) bool) sched.Status {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		st, err := c.coord.Scheduler().Status(id)
		if err != nil {
			t.Fatal(err)
		}
		if cond(st) {
			return st
		}
		if time.Now().After(deadline) {
			t.Fatalf("status %+v: condition not met in 10 s", st)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestHeldJobsNeedTheirLeaseToken: a client that names pending jobs in
// Hello.held under made-up tokens (even a lease's neighbours) is told to
// drop them, and its results and error reports under those tokens neither
// complete nor fail the job; the genuine worker, reconnecting with its old
// tokens, adopts its jobs whether or not its old stream was noticed dead.
func TestHeldJobsNeedTheirLeaseToken(t *testing.T) {
	c := startCluster(t, t.TempDir(), server.Options{LeaseTTL: time.Minute, SpeculateAfter: time.Hour})
	sw := testSweep(t, 21, 1, []float64{0.1, 0.2, 0.3}, "tree/mia") // jobs 0..2
	id := c.submit(sw).SweepId
	raw := dialRawWorker(t, c.addr)

	// The genuine worker holds every job.
	gctx, breakG := context.WithCancel(t.Context())
	g, _ := hello(gctx, t, raw, "genuine", 3)
	recvType[*pb.WorkResponse_Sweep](t, g)
	tokens := map[int64]uint64{}
	for len(tokens) < 3 {
		for _, j := range recvType[*pb.WorkResponse_Jobs](t, g).Jobs.GetJobs() {
			tokens[j.GetJob()] = j.GetToken()
		}
	}

	// A forger claims them under made-up tokens.
	forged := []uint64{tokens[1] + 1, tokens[1] - 1, tokens[0] ^ 1, 12345}
	var held []*pb.Held
	for i, tok := range forged {
		held = append(held, &pb.Held{SweepId: id, Job: int64(i % 3), Token: tok})
	}
	f, rb := hello(t.Context(), t, raw, "forger", 1, held...)
	for i, r := range rb {
		if r.GetOldToken() != forged[i] || r.GetNewToken() != 0 {
			t.Fatalf("rebind %d: %v, want old token %d and new token 0", i, r, forged[i])
		}
	}
	for range 3 { // as many error reports as the delivery limit
		it := sendResult(t, f, &pb.JobResult{Token: forged[0], SweepId: id, Job: 1, Error: "forged failure"})
		if it.GetOutcome() != pb.Ack_OUTCOME_STALE {
			t.Fatalf("forged error report: %v, want stale", it)
		}
	}
	it := sendResult(t, f, &pb.JobResult{Token: forged[0], SweepId: id, Job: 1,
		Pipelines: []*pb.PipelineResult{{Pipeline: 0, R2: 0.99, Mse: 0.01}}})
	if it.GetOutcome() != pb.Ack_OUTCOME_STALE {
		t.Fatalf("forged result: %v, want stale", it)
	}
	if st := pollSched(t, c, id, func(sched.Status) bool { return true }); st.Done != 0 || st.Failed != 0 || st.Running != 3 {
		t.Fatalf("after the forger: %+v, want 3 running jobs, none done or failed", st)
	}
	must(t, f.CloseSend())

	// The genuine worker reconnects before its old stream is noticed dead:
	// job 0's current lease moves to the new stream (capacity 1: full).
	g2, rb := hello(t.Context(), t, raw, "genuine", 1, &pb.Held{SweepId: id, Job: 0, Token: tokens[0]})
	if rb[0].GetNewToken() == 0 || rb[0].GetNewToken() == tokens[0] {
		t.Fatalf("rebind of a current lease: %v, want a new token", rb[0])
	}
	// Its old stream then breaks: jobs 1 and 2 wait for it, and it adopts
	// job 1 under its old token (named twice: the copy is refused); a
	// forged claim on job 2 in the same Hello is refused.
	breakG() // not CloseSend, which hands the leases back (drain)
	pollSched(t, c, id, func(st sched.Status) bool { return st.Running == 1 })
	g3, rb3 := hello(t.Context(), t, raw, "genuine", 1, &pb.Held{SweepId: id, Job: 1, Token: tokens[1]},
		&pb.Held{SweepId: id, Job: 1, Token: tokens[1]}, &pb.Held{SweepId: id, Job: 2, Token: tokens[2] + 7})
	if rb3[0].GetNewToken() == 0 || rb3[1].GetNewToken() != 0 || rb3[2].GetNewToken() != 0 {
		t.Fatalf("rebinds %v, want job 1 adopted once, the copy and job 2 refused", rb3)
	}
	for _, w := range []struct {
		s     pb.WorkService_WorkClient
		job   int64
		token uint64
	}{{g2, 0, rb[0].GetNewToken()}, {g3, 1, rb3[0].GetNewToken()}} {
		it := sendResult(t, w.s, &pb.JobResult{Token: w.token, SweepId: id, Job: w.job,
			Pipelines: []*pb.PipelineResult{{Pipeline: 0, R2: 0.5, Mse: 0.5}}})
		if it.GetOutcome() != pb.Ack_OUTCOME_ACCEPTED {
			t.Fatalf("adopted job %d's result: %v", w.job, it)
		}
	}
	st := pollSched(t, c, id, func(st sched.Status) bool { return st.Done == 2 })
	if st.Failed != 0 {
		t.Fatalf("status %+v", st)
	}
}

// TestHelloHeldIsBounded: past the first maxHeld (4096) entries of
// Hello.held, even a genuine claim is refused (the worker drops the job,
// which runs again).
func TestHelloHeldIsBounded(t *testing.T) {
	c := startCluster(t, t.TempDir(), server.Options{LeaseTTL: time.Minute})
	sw := testSweep(t, 22, 1, []float64{0.1}, "tree/mia")
	id := c.submit(sw).SweepId
	raw := dialRawWorker(t, c.addr)
	gctx, breakG := context.WithCancel(t.Context())
	g, _ := hello(gctx, t, raw, "genuine", 1)
	recvType[*pb.WorkResponse_Sweep](t, g)
	job := recvType[*pb.WorkResponse_Jobs](t, g).Jobs.GetJobs()[0]
	breakG()
	pollSched(t, c, id, func(st sched.Status) bool { return st.Running == 0 })
	genuine := &pb.Held{SweepId: id, Job: job.GetJob(), Token: job.GetToken()}
	held := make([]*pb.Held, 4096, 4097)
	for i := range held {
		held[i] = &pb.Held{SweepId: id, Job: 5 + int64(i), Token: uint64(i) + 1}
	}
	_, rb := hello(t.Context(), t, raw, "genuine", 1, append(held, genuine)...)
	for i, r := range rb {
		if r.GetNewToken() != 0 {
			t.Fatalf("rebind %d of %d: %v, want every claim refused", i, len(rb), r)
		}
	}
	_, rb = hello(t.Context(), t, raw, "genuine", 1, genuine)
	if rb[0].GetNewToken() == 0 {
		t.Fatal("the genuine claim alone was refused; it must have been left unused")
	}
}
