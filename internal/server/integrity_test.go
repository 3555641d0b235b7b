package server_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/misslab/misslab/internal/sched"
	"github.com/misslab/misslab/internal/server"
	pb "github.com/misslab/misslab/proto/misslab/v1"
)

// manualClock is a sched.Clock the test moves by hand: leases expire and
// grant credit refills only when it says so.
type manualClock struct {
	mu  sync.Mutex
	now time.Time
}

func newManualClock() *manualClock { return &manualClock{now: time.Unix(1e9, 0)} }

func (c *manualClock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }

func (c *manualClock) Advance(d time.Duration) { c.mu.Lock(); c.now = c.now.Add(d); c.mu.Unlock() }

// takeLeases reads s until at least n leases have arrived and returns them.
func takeLeases(t *testing.T, s pb.WorkService_WorkClient, n int) []*pb.Job {
	t.Helper()
	var got []*pb.Job
	for len(got) < n {
		m, err := s.Recv()
		must(t, err)
		got = append(got, m.GetJobs().GetJobs()...)
	}
	return got
}

// sendResultAmidLeases sends one job result and returns its
// acknowledgement, passing over the sweep's spec and leases that a
// stream with room may be sent first.
func sendResultAmidLeases(t *testing.T, s pb.WorkService_WorkClient, r *pb.JobResult) *pb.Ack_Item {
	t.Helper()
	must(t, s.Send(&pb.WorkRequest{Msg: &pb.WorkRequest_Results{Results: &pb.ResultBatch{Results: []*pb.JobResult{r}}}}))
	for {
		m, err := s.Recv()
		must(t, err)
		if a := m.GetAck(); a != nil {
			return a.GetItems()[0]
		}
	}
}

// TestDroppedStreamsFailNoJob: a client opens a worker stream asking for
// 4096 leases, takes what it is given and aborts, three rounds over, on an
// open coordinator of 5,000 jobs. The stream is given only its first
// batch (the scheduler's grant burst), and the leases it drops are lost
// deliveries, which the job survives up to the larger lost bound: no job
// fails. (Before: 4,096 leases a round, each loss a failed delivery, and
// 4,096 jobs failed for good after the third round.)
func TestDroppedStreamsFailNoJob(t *testing.T) {
	clock := newManualClock() // no credit refills with time: only the first batch
	c := startCluster(t, t.TempDir(), server.Options{Clock: clock, LeaseTTL: time.Minute, SpeculateAfter: time.Hour})
	sw := testSweep(t, 31, 1000, []float64{0.1, 0.2, 0.3, 0.4, 0.5}, "tree/mia") // 5,000 jobs
	id := c.submit(sw).SweepId
	raw := dialRawWorker(t, c.addr)
	most := 0
	for range 3 {
		ctx, abort := context.WithCancel(t.Context())
		s, _ := hello(ctx, t, raw, "grabber", 4096)
		takeLeases(t, s, sched.DefaultGrantBurst)
		st := pollSched(t, c, id, func(sched.Status) bool { return true })
		most = max(most, st.Running)
		abort()
		pollSched(t, c, id, func(st sched.Status) bool { return st.Running == 0 })
	}
	st := pollSched(t, c, id, func(sched.Status) bool { return true })
	if st.Failed != 0 {
		t.Fatalf("%d jobs failed for good after three aborted streams, want none", st.Failed)
	}
	if most != sched.DefaultGrantBurst {
		t.Fatalf("one stream held %d leases at once, want its first batch of %d", most, sched.DefaultGrantBurst)
	}
}

// TestReplayedLeaseProofIsRefused: a worker held job 4 once and dropped
// it; reconnecting, it adopts the job under that lease's token and proof
// (a lease lost with its stream is the worker's to take back, once) and
// reports a job error. Presenting the same token and proof again, or the
// adopted lease's own, after that lease ended, gets no lease: a proof
// vouches only for a lease of an earlier life of the coordinator, once.
// (Before: each replay got a fresh lease, and three replayed error
// reports failed job 4 for good.)
func TestReplayedLeaseProofIsRefused(t *testing.T) {
	c := startCluster(t, t.TempDir(), server.Options{LeaseTTL: time.Minute, SpeculateAfter: time.Hour})
	sw := testSweep(t, 32, 2, []float64{0.1, 0.2, 0.3}, "tree/mia") // jobs 0..5
	id := c.submit(sw).SweepId
	raw := dialRawWorker(t, c.addr)
	bystander, _ := hello(t.Context(), t, raw, "bystander", 4) // holds jobs 0..3 throughout
	takeLeases(t, bystander, 4)

	ctx, drop := context.WithCancel(t.Context())
	s, _ := hello(ctx, t, raw, "replayer", 1)
	j := takeLeases(t, s, 1)[0]
	if j.GetJob() != 4 {
		t.Fatalf("the replayer got job %d, want 4", j.GetJob())
	}
	drop()
	pollSched(t, c, id, func(st sched.Status) bool { return st.Running == 4 })
	old := &pb.Held{SweepId: id, Job: 4, Token: j.GetToken(), Proof: j.GetProof()}

	// Once: the lease was lost with the stream, the worker takes it back.
	ctx, drop = context.WithCancel(t.Context())
	s, rb := hello(ctx, t, raw, "replayer", 1, old)
	if rb[0].GetNewToken() == 0 {
		t.Fatalf("the first claim of a lease lost with its stream was refused: %v", rb[0])
	}
	adopted := &pb.Held{SweepId: id, Job: 4, Token: rb[0].GetNewToken(), Proof: rb[0].GetProof()}
	if it := sendResult(t, s, &pb.JobResult{Token: adopted.Token, SweepId: id, Job: 4, Error: "job error"}); it.GetOutcome() != pb.Ack_OUTCOME_ACCEPTED {
		t.Fatalf("error report of the adopted lease: %v", it)
	}
	drop()

	for i, claim := range []*pb.Held{old, old, adopted} {
		ctx, drop := context.WithCancel(t.Context())
		s, rb := hello(ctx, t, raw, "replayer", 1, claim)
		if rb[0].GetNewToken() != 0 {
			t.Fatalf("replay %d of token %d got a lease: %v", i+1, claim.Token, rb[0])
		}
		it := sendResultAmidLeases(t, s, &pb.JobResult{Token: claim.Token, SweepId: id, Job: 4, Error: "replayed job error"})
		if it.GetOutcome() != pb.Ack_OUTCOME_STALE {
			t.Fatalf("replay %d: error report under the replayed token: %v, want stale", i+1, it)
		}
		drop()
	}
	if st := pollSched(t, c, id, func(sched.Status) bool { return true }); st.Failed != 0 {
		t.Fatalf("status %+v: job 4 failed for good through replayed proofs", st)
	}
}
