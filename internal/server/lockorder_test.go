package server_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/misslab/misslab/internal/fpclass"
	"github.com/misslab/misslab/internal/server"
	"github.com/misslab/misslab/internal/store"
	"github.com/misslab/misslab/internal/worker"
	pb "github.com/misslab/misslab/proto/misslab/v1"
)

// churner is a worker stream that, round after round, takes its first
// batch of leases, completes some jobs, reports others failed, keeps the
// rest and aborts its stream: the lease ends that the scheduler reports
// under its lock (failed and lost deliveries, and jobs reaching their
// limits, whose failures go to the store's writer) race with the results
// the writer commits and reports back into the scheduler.
type churner struct {
	conn   *rawWorker
	id     string // sweep
	pipes  int
	rng    *rand.Rand
	rounds int
}

// run plays the churner's rounds until they are over or ctx ends (the
// sweep is complete: no more leases to wait for).
func (ch *churner) run(ctx context.Context, name string) error {
	for range ch.rounds {
		if err := ch.round(ctx, name); err != nil || ctx.Err() != nil {
			return err
		}
	}
	return nil
}

func (ch *churner) round(ctx context.Context, name string) error {
	sctx, abort := context.WithCancel(ctx)
	defer abort() // breaks the stream off, leases and all
	s, err := pb.NewWorkServiceClient(ch.conn.conn).Work(sctx)
	if err != nil {
		return nil // ctx ended
	}
	hello := &pb.Hello{FpClass: fpclass.Current(), WorkerId: name, Capacity: 8}
	if s.Send(&pb.WorkRequest{Msg: &pb.WorkRequest_Hello{Hello: hello}}) != nil {
		return nil
	}
	for {
		m, err := s.Recv()
		if err != nil {
			return nil // ctx ended or the coordinator cut the stream
		}
		if b := m.GetJobs(); b != nil {
			return s.Send(&pb.WorkRequest{Msg: &pb.WorkRequest_Results{Results: &pb.ResultBatch{Results: ch.judge(b)}}})
		}
	}
}

// judge returns, for each job of b, a result (half the jobs), a job error
// (a quarter) or nothing (kept, then lost with the stream).
func (ch *churner) judge(b *pb.JobBatch) []*pb.JobResult {
	var out []*pb.JobResult
	for _, j := range b.GetJobs() {
		r := &pb.JobResult{Token: j.GetToken(), SweepId: ch.id, Job: j.GetJob()}
		switch ch.rng.IntN(4) {
		case 0, 1:
			for p := range ch.pipes {
				r.Pipelines = append(r.Pipelines, &pb.PipelineResult{Pipeline: int32(p), R2: 0.5, Mse: 0.25})
			}
		case 2:
			r.Error = "churn: job error"
		default:
			continue
		}
		out = append(out, r)
	}
	return out
}

// watchToEnd follows sweep id until it is complete, for up to a minute,
// and returns the last status it saw (nil if none); unlike cluster.wait
// it may run outside the test's goroutine.
func watchToEnd(c *cluster, id string) *pb.SweepStatus {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	stream, err := c.client.Watch(ctx, &pb.WatchRequest{SweepId: id, IntervalSeconds: 0.05})
	if err != nil {
		return nil
	}
	var last *pb.SweepStatus
	for {
		m, err := stream.Recv()
		if err != nil {
			return last
		}
		last = m.GetStatus()
	}
}

// TestLockOrderUnderChurn drives the lock order sched.mu → store.Writer.mu
// / backlog.mu concurrently against a real coordinator: churning streams
// complete, fail and abort (lease ends under the scheduler's lock enqueue
// failures into the writer and the backlog) while the writer commits
// small batches and its callback calls back into the scheduler, and a
// backlog of 2 records makes streams wait for the store. A lock taken out
// of order deadlocks (the sweep never completes and the test times out)
// and a data race fails under -race. At the end every job is done or
// failed, and a coordinator reopened on the directory counts the same
// from the store alone.
func TestLockOrderUnderChurn(t *testing.T) {
	dir := t.TempDir()
	rec := newRecorder()
	opts := server.Options{Observer: rec, MaxDeliveries: 1, MaxLostDeliveries: 1, MaxBacklog: 2, SpeculateAfter: time.Hour,
		Writer: store.WriterOptions{MaxBatch: 3, MaxDelay: time.Millisecond}}
	c := startCluster(t, dir, opts)
	sw := testSweep(t, 41, 800, []float64{0.1, 0.2, 0.3}, "tree/mia", "linear/mean") // 2,400 jobs
	id := c.submit(sw).SweepId
	ctx, complete := context.WithCancel(t.Context())
	watched := make(chan *pb.SweepStatus, 1)
	go func() { defer complete(); watched <- watchToEnd(c, id) }()

	raw := dialRawWorker(t, c.addr)
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for i := range 8 {
		ch := &churner{conn: raw, id: id, pipes: len(sw.Pipelines), rng: rand.New(rand.NewPCG(41, uint64(i))), rounds: 200}
		wg.Add(1)
		go func() { defer wg.Done(); errs <- ch.run(ctx, fmt.Sprint("churner", i)) }()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		must(t, err)
	}
	c.startWorker("finisher", 2, worker.Deterministic{}) // whatever the churners left
	st := <-watched
	if st.GetState() != pb.SweepStatus_STATE_COMPLETE {
		t.Fatalf("the sweep did not complete in a minute (a lock taken out of order?): last status %v", st)
	}
	if st.Done+st.Failed != st.Jobs || st.Done == 0 || st.Failed == 0 {
		t.Fatalf("final status %v: want every job done or failed, some of each", st)
	}
	if got := rec.snapshot(); got.ended["disconnected"] == 0 {
		t.Fatalf("no lease was lost with its stream (%v): the churn did not happen", got.ended)
	}
	t.Logf("final %v; lease ends %v", st, rec.snapshot().ended)
	must(t, c.coord.Flush(t.Context()))
	if n, err := c.coord.Store().CountResults(); err != nil || n != int(st.Done)*len(sw.Pipelines) {
		t.Fatalf("%d results stored (%v), want %d for %d done jobs", n, err, int(st.Done)*len(sw.Pipelines), st.Done)
	}
	c.close()
	c2 := startCluster(t, dir, server.Options{})
	again, err := c2.coord.Status(id)
	must(t, err)
	if int64(again.Done) != st.Done || int64(again.Failed) != st.Failed {
		t.Fatalf("reopened: %d done, %d failed; the running coordinator said %d and %d", again.Done, again.Failed, st.Done, st.Failed)
	}
}
