package server_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/status"

	"github.com/misslab/misslab/internal/auth"
	"github.com/misslab/misslab/internal/client"
	"github.com/misslab/misslab/internal/fpclass"
	"github.com/misslab/misslab/internal/grid"
	"github.com/misslab/misslab/internal/sched"
	"github.com/misslab/misslab/internal/server"
	"github.com/misslab/misslab/internal/store"
	"github.com/misslab/misslab/internal/worker"
	pb "github.com/misslab/misslab/proto/misslab/v1"
)

const testToken = "0123456789abcdef0123456789abcdef"

func securedOptions(p *auth.Policy) server.Options {
	return server.Options{Unary: []grpc.UnaryServerInterceptor{p.UnaryInterceptor()},
		Stream: []grpc.StreamServerInterceptor{p.StreamInterceptor()}}
}

func runWorker(addr string, creds auth.Credentials, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	return worker.Run(ctx, worker.Options{Addr: addr, ID: "w-" + creds.Cluster, Parallel: 1, Executor: worker.Deterministic{},
		MinBackoff: 10 * time.Millisecond, MaxBackoff: 50 * time.Millisecond, DrainTimeout: time.Second,
		DialOptions: []grpc.DialOption{grpc.WithPerRPCCredentials(creds)}})
}

func TestCoordinatorRefusesWithoutCredentials(t *testing.T) {
	c := startCluster(t, t.TempDir(), securedOptions(auth.NewPolicy(auth.PolicyOptions{Tokens: []string{testToken}, Cluster: "fig3"})))
	// The test cluster's own client has no credentials.
	_, err := c.client.Status(context.Background(), &pb.StatusRequest{})
	if status.Code(err) != codes.Unauthenticated || !strings.Contains(err.Error(), "no token") {
		t.Fatalf("status without a token: %v", err)
	}
	dialRawWorker(t, c.addr).healthy(t) // probes need no credentials
	refusals := []struct {
		name  string
		creds auth.Credentials
		code  codes.Code
	}{
		{"wrong token", auth.Credentials{Token: testToken + "x", Cluster: "fig3"}, codes.Unauthenticated},
		{"other cluster", auth.Credentials{Token: testToken, Cluster: "fig4"}, codes.PermissionDenied},
	}
	for _, r := range refusals {
		t.Run(r.name, func(t *testing.T) {
			start := time.Now()
			err := runWorker(c.addr, r.creds, 20*time.Second)
			if !errors.Is(err, worker.ErrRefused) || time.Since(start) > 10*time.Second {
				t.Fatalf("worker with %s: %v after %v, want ErrRefused at once", r.name, err, time.Since(start))
			}
			cl, err := client.Dial(c.addr, grpc.WithPerRPCCredentials(r.creds))
			if err != nil {
				t.Fatal(err)
			}
			defer cl.Close()
			if _, err := cl.Status(context.Background(), &pb.StatusRequest{}); status.Code(err) != r.code {
				t.Fatalf("client with %s: %v, want %v", r.name, err, r.code)
			}
		})
	}
	// The right credentials run a sweep.
	good := auth.Credentials{Token: testToken, Cluster: "fig3"}
	cl, err := client.Dial(c.addr, grpc.WithPerRPCCredentials(good))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	sw := testSweep(t, 3, 3, []float64{0.1, 0.2}, "tree/mia")
	ids, err := cl.SubmitFile(context.Background(), fileOf(sw))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- worker.Run(ctx, worker.Options{Addr: c.addr, Parallel: 2, Executor: worker.Deterministic{},
			DialOptions: []grpc.DialOption{grpc.WithPerRPCCredentials(good)}})
	}()
	p := &client.Progress{Out: &strings.Builder{}}
	fctx, fcancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer fcancel()
	if err := cl.Follow(fctx, ids, 20*time.Millisecond, p); err != nil {
		t.Fatal(err)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	checkScores(t, c.coord, sw)
}

// counts is what a recorder has heard.
type counts struct {
	opened    int
	workers   int // connected now
	peak      int
	granted   int
	outcomes  map[sched.Outcome]int
	ended     map[string]int
	committed int
	commitDur time.Duration
}

// recorder is an Observer that counts what it hears.
type recorder struct {
	mu sync.Mutex
	c  counts
}

func newRecorder() *recorder {
	return &recorder{c: counts{outcomes: map[sched.Outcome]int{}, ended: map[string]int{}}}
}

func (r *recorder) with(f func(c *counts)) { r.mu.Lock(); f(&r.c); r.mu.Unlock() }

func (r *recorder) Opened(*server.Coordinator) { r.with(func(c *counts) { c.opened++ }) }
func (r *recorder) WorkerConnected(string) {
	r.with(func(c *counts) { c.workers++; c.peak = max(c.peak, c.workers) })
}
func (r *recorder) WorkerDisconnected(string) { r.with(func(c *counts) { c.workers-- }) }
func (r *recorder) Granted(_ string, n int)   { r.with(func(c *counts) { c.granted += n }) }
func (r *recorder) Judged(_ string, o sched.Outcome) {
	r.with(func(c *counts) { c.outcomes[o]++ })
}
func (r *recorder) LeasesEnded(why string, n int) { r.with(func(c *counts) { c.ended[why] += n }) }
func (r *recorder) Committed(n int, d time.Duration, err error) {
	if err == nil {
		r.with(func(c *counts) { c.committed += n; c.commitDur += d })
	}
}

func (r *recorder) snapshot() counts {
	r.mu.Lock()
	defer r.mu.Unlock()
	cp := r.c
	cp.outcomes, cp.ended = map[sched.Outcome]int{}, map[string]int{}
	for k, v := range r.c.outcomes {
		cp.outcomes[k] = v
	}
	for k, v := range r.c.ended {
		cp.ended[k] = v
	}
	return cp
}

func TestObserverSeesASweep(t *testing.T) {
	rec := newRecorder()
	c := startCluster(t, t.TempDir(), server.Options{Observer: rec})
	stop1 := c.startWorker("w1", 2, worker.Deterministic{})
	stop2 := c.startWorker("w2", 2, worker.Deterministic{})
	sw := testSweep(t, 9, 5, []float64{0.1, 0.2, 0.3, 0.4}, "tree/mia")
	st := c.wait(c.submit(sw).SweepId)
	if err := c.coord.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	stop1()
	stop2()
	waitFor(t, func() bool { return rec.snapshot().workers == 0 })
	got := rec.snapshot()
	if got.opened != 1 || got.peak != 2 || got.workers != 0 {
		t.Errorf("opened %d, peak workers %d, workers after stop %d; want 1, 2, 0", got.opened, got.peak, got.workers)
	}
	if st.Done != 20 || got.outcomes[sched.Accepted] != 20 || got.committed != 20 {
		t.Errorf("done %d, accepted %d, committed %d; want 20 each", st.Done, got.outcomes[sched.Accepted], got.committed)
	}
	if acc := got.outcomes[sched.Accepted] + got.outcomes[sched.Duplicate] + got.outcomes[sched.Stale]; got.granted < acc {
		t.Errorf("%d leases granted for %d results", got.granted, acc)
	}
	if got.commitDur <= 0 || got.ended["expired"] != 0 {
		t.Errorf("commit time %v, expired %d", got.commitDur, got.ended["expired"])
	}
}

func TestObserverCountsExpiredAndLostLeases(t *testing.T) {
	rec := newRecorder()
	c := startCluster(t, t.TempDir(), server.Options{Observer: rec, LeaseTTL: 500 * time.Millisecond, SpeculateAfter: time.Hour})
	sw := testSweep(t, 10, 1, []float64{0.1, 0.2}, "tree/mia")
	c.submit(sw)
	raw := dialRawWorker(t, c.addr)
	s := raw.open(t)
	must(t, s.Send(&pb.WorkRequest{Msg: &pb.WorkRequest_Hello{Hello: &pb.Hello{FpClass: fpclass.Current(), WorkerId: "silent", Capacity: 1}}}))
	recvType[*pb.WorkResponse_Welcome](t, s)
	recvType[*pb.WorkResponse_Sweep](t, s)
	job := recvType[*pb.WorkResponse_Jobs](t, s).Jobs.Jobs[0]
	// No heartbeat: the lease expires and is revoked.
	cancel := recvType[*pb.WorkResponse_Cancel](t, s)
	if len(cancel.Cancel.Tokens) != 1 || cancel.Cancel.Tokens[0] != job.Token {
		t.Fatalf("revoked %v, want [%d]", cancel.Cancel.Tokens, job.Token)
	}
	waitFor(t, func() bool { return rec.snapshot().ended["expired"] == 1 })
	// The late result of the expired lease is not counted.
	must(t, s.Send(&pb.WorkRequest{Msg: &pb.WorkRequest_Results{Results: &pb.ResultBatch{Results: []*pb.JobResult{{
		Token: job.Token, SweepId: sw.Hash(), Job: job.Job, Pipelines: []*pb.PipelineResult{{Pipeline: 0, R2: 0.5}}}}}}}))
	var ack *pb.WorkResponse_Ack
	for ack == nil { // the job is queued again and may come back first
		m, err := s.Recv()
		must(t, err)
		ack, _ = m.GetMsg().(*pb.WorkResponse_Ack)
	}
	if ack.Ack.Items[0].Outcome != pb.Ack_OUTCOME_STALE || rec.snapshot().outcomes[sched.Stale] != 1 {
		t.Fatalf("late result: %v", ack.Ack.Items[0])
	}
	// A second stream takes a lease and breaks off while holding it.
	ctx2, break2 := context.WithCancel(context.Background())
	s2, err := pb.NewWorkServiceClient(raw.conn).Work(ctx2)
	must(t, err)
	must(t, s2.Send(&pb.WorkRequest{Msg: &pb.WorkRequest_Hello{Hello: &pb.Hello{FpClass: fpclass.Current(), WorkerId: "lost", Capacity: 1}}}))
	recvType[*pb.WorkResponse_Welcome](t, s2)
	recvType[*pb.WorkResponse_Sweep](t, s2)
	recvType[*pb.WorkResponse_Jobs](t, s2)
	break2()
	waitFor(t, func() bool { return rec.snapshot().ended["disconnected"] == 1 })
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not met in 10 s")
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestServeHealthAnswersProbesOnly(t *testing.T) {
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- server.ServeHealth(ctx, lis) }()
	conn, err := grpc.NewClient(lis.Addr().String(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	for _, svc := range []string{"", "misslab.v1.WorkService", "misslab.v1.SweepService"} {
		resp, err := healthpb.NewHealthClient(conn).Check(context.Background(), &healthpb.HealthCheckRequest{Service: svc})
		if err != nil || resp.Status != healthpb.HealthCheckResponse_SERVING {
			t.Fatalf("health %q: %v %v", svc, resp, err)
		}
	}
	if _, err := pb.NewSweepServiceClient(conn).Status(context.Background(), &pb.StatusRequest{}); status.Code(err) != codes.Unimplemented {
		t.Fatalf("the health port serves sweeps: %v", err)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

func fileOf(sw *grid.Sweep) *grid.File { return &grid.File{Sweeps: []*grid.Sweep{sw}} }

// A worker that closes its side of the stream (a drained worker) hands
// back the leases it still holds without failed deliveries: with a limit
// of one delivery, a lease lost any other way would fail its job for good.
func TestClosedStreamHandsLeasesBack(t *testing.T) {
	rec := newRecorder()
	c := startCluster(t, t.TempDir(), server.Options{Observer: rec, MaxDeliveries: 1})
	sw := testSweep(t, 12, 2, []float64{0.1, 0.2}, "tree/mia")
	id := c.submit(sw).SweepId
	s := dialRawWorker(t, c.addr).open(t)
	must(t, s.Send(&pb.WorkRequest{Msg: &pb.WorkRequest_Hello{Hello: &pb.Hello{FpClass: fpclass.Current(), WorkerId: "leaving", Capacity: 3}}}))
	recvType[*pb.WorkResponse_Welcome](t, s)
	recvType[*pb.WorkResponse_Sweep](t, s)
	if n := len(recvType[*pb.WorkResponse_Jobs](t, s).Jobs.Jobs); n == 0 {
		t.Fatal("no lease")
	}
	must(t, s.CloseSend())
	for { // the coordinator ends the stream once it has taken the leases back
		if _, err := s.Recv(); err != nil {
			break
		}
	}
	c.startWorker("w", 2, worker.Deterministic{})
	st := c.wait(id)
	if st.Failed != 0 || st.Done != 4 || rec.snapshot().ended["disconnected"] != 0 {
		t.Fatalf("status %v, leases lost %d", st, rec.snapshot().ended["disconnected"])
	}
	checkScores(t, c.coord, sw)
}

// With a store slower than the workers, the results waiting for it stay
// bounded: leasing pauses past MaxBacklog.
func TestSlowStoreBoundsTheBacklog(t *testing.T) {
	const limit = 8
	slow := func() error { time.Sleep(20 * time.Millisecond); return nil } // a disk taking 20 ms a transaction
	c := startCluster(t, t.TempDir(), server.Options{MaxBacklog: limit, Store: store.Options{WriteHook: slow}})
	for i := range 3 {
		c.startWorker(fmt.Sprint("w", i), 2, worker.Noop{}) // up to 4 leases each
	}
	sw := testSweep(t, 13, 120, []float64{0.1, 0.2}, "tree/mia") // 240 jobs
	id := c.submit(sw).SweepId
	peak := 0
	deadline := time.Now().Add(60 * time.Second)
	for st := sweepStatus(t, c, id); st.State != pb.SweepStatus_STATE_COMPLETE; st = sweepStatus(t, c, id) {
		if time.Now().After(deadline) {
			t.Fatalf("sweep not complete in 60 s: %v", st)
		}
		peak = max(peak, c.coord.Backlog())
		time.Sleep(2 * time.Millisecond) // sampling the backlog, not waiting for it
	}
	// Past the limit only results of leases already out arrive (at most
	// 3 workers × 4 leases), and each of the 3 streams racing past the
	// check may add one more batch of 4: the peak is bounded by the limit
	// and twice the workers' capacity (32, reached under load in CI), not
	// by the 240 jobs (without the limit it reaches all of them).
	if bound := limit + 2*3*4; peak > bound || peak == 0 {
		t.Fatalf("peak backlog %d, want 1..%d", peak, bound)
	}
	t.Logf("peak backlog %d records", peak)
}

func sweepStatus(t *testing.T, c *cluster, id string) *pb.SweepStatus {
	t.Helper()
	resp, err := c.client.Status(context.Background(), &pb.StatusRequest{SweepId: id})
	if err != nil {
		t.Fatal(err)
	}
	return resp.Sweeps[0]
}
