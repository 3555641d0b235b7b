package server_test

import (
	"context"
	"io"
	"math"
	"net"
	"sync"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"

	"github.com/misslab/misslab/internal/grid"
	"github.com/misslab/misslab/internal/server"
	"github.com/misslab/misslab/internal/sim"
	"github.com/misslab/misslab/internal/storeconv"
	"github.com/misslab/misslab/internal/wire"
	"github.com/misslab/misslab/internal/worker"
	pb "github.com/misslab/misslab/proto/misslab/v1"
)

// testSweep returns a sweep of len(rates) quadratic scenarios × reps with
// the given pipelines.
func testSweep(t testing.TB, seed uint64, reps int, rates []float64, pipes ...string) *grid.Sweep {
	t.Helper()
	sw := &grid.Sweep{Name: "test", Seed: seed, Repetitions: reps}
	for _, r := range rates {
		sc, err := sim.Defaults(sim.Quadratic)
		if err != nil {
			t.Fatal(err)
		}
		sc.Rate = r
		sw.Scenarios = append(sw.Scenarios, sc)
	}
	for _, p := range pipes {
		sw.Pipelines = append(sw.Pipelines, grid.MustPipeline(p, nil))
	}
	return sw
}

// cluster is a coordinator on a temporary data directory with a loopback
// listener.
type cluster struct {
	t      testing.TB
	dir    string
	addr   string
	coord  *server.Coordinator
	client pb.SweepServiceClient
	stop   context.CancelFunc
	done   chan error
}

// startCluster opens the coordinator of dir and serves it on a loopback
// port of the kernel's choosing until the test ends.
func startCluster(t testing.TB, dir string, opts server.Options) *cluster {
	t.Helper()
	coord, err := server.Open(context.Background(), dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, stop := context.WithCancel(context.Background())
	c := &cluster{t: t, dir: dir, addr: lis.Addr().String(), coord: coord, stop: stop, done: make(chan error, 1)}
	go func() { c.done <- coord.Serve(ctx, lis) }()
	conn, err := grpc.NewClient(c.addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	c.client = pb.NewSweepServiceClient(conn)
	t.Cleanup(func() { conn.Close(); c.close() })
	return c
}

func (c *cluster) close() {
	if c.stop == nil {
		return
	}
	c.stop()
	<-c.done
	c.coord.Close()
	c.stop = nil
}

// startWorker runs an in-process worker joining c until the test ends.
func (c *cluster) startWorker(id string, parallel int, exec worker.Executor) context.CancelFunc {
	return startWorkerAt(c.t, c.addr, id, parallel, exec)
}

// startWorkerAt runs an in-process worker joining addr until the test
// ends; the returned function stops it and waits for it to exit.
func startWorkerAt(t testing.TB, addr, id string, parallel int, exec worker.Executor) context.CancelFunc {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		err := worker.Run(ctx, worker.Options{Addr: addr, ID: id, Parallel: parallel, Executor: exec,
			MinBackoff: 10 * time.Millisecond, MaxBackoff: 100 * time.Millisecond, DrainTimeout: 5 * time.Second})
		if err != nil {
			t.Error(err)
		}
	}()
	stop := func() { cancel(); <-done }
	t.Cleanup(stop)
	return stop
}

func (c *cluster) submit(sw *grid.Sweep) *pb.SubmitResponse {
	c.t.Helper()
	resp, err := c.client.Submit(context.Background(), &pb.SubmitRequest{Spec: wire.SpecToProto(sw)})
	if err != nil {
		c.t.Fatal(err)
	}
	return resp
}

// wait watches a sweep until it completes (or 60 s pass).
func (c *cluster) wait(id string) *pb.SweepStatus {
	c.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	stream, err := c.client.Watch(ctx, &pb.WatchRequest{SweepId: id, IntervalSeconds: 0.05})
	if err != nil {
		c.t.Fatal(err)
	}
	var last *pb.SweepStatus
	for {
		m, err := stream.Recv()
		if err != nil {
			if last == nil || last.State != pb.SweepStatus_STATE_COMPLETE {
				c.t.Fatalf("watch ended at %v: %v", last, err)
			}
			return last
		}
		last = m.GetStatus()
	}
}

// checkScores asserts every stored score of sw is bit-identical to the
// deterministic executor's.
func checkScores(t testing.TB, coord *server.Coordinator, sw *grid.Sweep) {
	t.Helper()
	st := coord.Store()
	for job := range sw.Jobs() {
		si, rep := sw.Job(job)
		for p := range sw.Pipelines {
			r, ok, err := st.Lookup(storeconv.ToStore(sw), job, p)
			if err != nil || !ok {
				t.Fatalf("job %d pipeline %d: stored %v, err %v", job, p, ok, err)
			}
			r2, mse := worker.DeterministicScores(sw.Seed, sw.Scenarios[si].Canonical(), rep, sw.Pipelines[p].Canonical())
			if math.Float64bits(r.R2) != math.Float64bits(r2) || math.Float64bits(r.MSE) != math.Float64bits(mse) {
				t.Fatalf("job %d pipeline %d: (%v, %v), want (%v, %v)", job, p, r.R2, r.MSE, r2, mse)
			}
		}
	}
}

func TestSweepRunsToCompletionThroughGRPC(t *testing.T) {
	c := startCluster(t, t.TempDir(), server.Options{})
	c.startWorker("w1", 2, worker.Deterministic{})
	c.startWorker("w2", 3, worker.Deterministic{})
	sw := testSweep(t, 1, 5, []float64{0.1, 0.2, 0.3, 0.4}, "tree/mia", "svm/mean")
	resp := c.submit(sw)
	if resp.SweepId != sw.Hash() || resp.Status.Jobs != 20 {
		t.Fatalf("submit: %v", resp)
	}
	st := c.wait(resp.SweepId)
	if st.Done != 20 || st.Failed != 0 || st.Reused != 0 {
		t.Fatalf("final status %v", st)
	}
	checkScores(t, c.coord, sw)
	if n, _ := c.coord.Store().CountResults(); n != 40 {
		t.Fatalf("%d stored results, want 40 (one per job and pipeline)", n)
	}
}

// rawWorker speaks the worker protocol by hand.
type rawWorker struct {
	conn *grpc.ClientConn
}

func dialRawWorker(t testing.TB, addr string) *rawWorker {
	conn, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return &rawWorker{conn: conn}
}

func (r *rawWorker) open(t testing.TB) pb.WorkService_WorkClient {
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	s, err := pb.NewWorkServiceClient(r.conn).Work(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// healthy asserts the standard health service reports SERVING.
func (r *rawWorker) healthy(t testing.TB) {
	t.Helper()
	resp, err := healthpb.NewHealthClient(r.conn).Check(context.Background(), &healthpb.HealthCheckRequest{})
	if err != nil || resp.Status != healthpb.HealthCheckResponse_SERVING {
		t.Fatalf("health: %v %v", resp, err)
	}
}

// recvType receives the next message, which must be of type T.
func recvType[T any](t testing.TB, s pb.WorkService_WorkClient) T {
	t.Helper()
	var zero T
	if v, ok := takeStashed[T](s); ok {
		return v
	}
	for {
		m, err := s.Recv()
		if err != nil {
			t.Fatal(err)
		}
		if _, isCancel := m.GetMsg().(*pb.WorkResponse_Cancel); isCancel {
			if _, want := any(zero).(*pb.WorkResponse_Cancel); !want {
				continue // revocations may interleave
			}
		}
		if _, isJobs := m.GetMsg().(*pb.WorkResponse_Jobs); isJobs {
			if _, wantAck := any(zero).(*pb.WorkResponse_Ack); wantAck {
				stash(s, m) // a re-queued job may be leased before the ack goes out: kept for the next recvType
				continue
			}
		}
		v, ok := m.GetMsg().(T)
		if !ok {
			t.Fatalf("got %T, want %T", m.GetMsg(), *new(T))
		}
		return v
	}
}

// stashed holds, per stream, the messages recvType passed over while it
// waited for another type.
var stashed = struct {
	sync.Mutex
	m map[pb.WorkService_WorkClient][]*pb.WorkResponse
}{m: map[pb.WorkService_WorkClient][]*pb.WorkResponse{}}

func stash(s pb.WorkService_WorkClient, m *pb.WorkResponse) {
	stashed.Lock()
	defer stashed.Unlock()
	stashed.m[s] = append(stashed.m[s], m)
}

// takeStashed returns the first message of type T stashed for s.
func takeStashed[T any](s pb.WorkService_WorkClient) (T, bool) {
	stashed.Lock()
	defer stashed.Unlock()
	for i, m := range stashed.m[s] {
		if v, ok := m.GetMsg().(T); ok {
			stashed.m[s] = append(stashed.m[s][:i:i], stashed.m[s][i+1:]...)
			return v, true
		}
	}
	var zero T
	return zero, false
}

// relay forwards TCP connections from a loopback address of its own,
// bound once to port 0 and held for the whole test, to a coordinator
// that may move. A restarted coordinator binds port 0 again (never a
// port freed a moment earlier, which another process may have taken in
// between); clients and workers that must find it again join the relay
// instead, and the test points the relay at each new address. While it
// points nowhere it accepts and closes every connection at once, as an
// absent coordinator would refuse it, and counts these refusals.
type relay struct {
	lis     net.Listener
	mu      sync.Mutex
	target  string
	refused int
	conns   map[net.Conn]struct{}
	wg      sync.WaitGroup
}

func newRelay(t testing.TB) *relay {
	t.Helper()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	r := &relay{lis: lis, conns: map[net.Conn]struct{}{}}
	r.wg.Add(1)
	go r.accept()
	t.Cleanup(r.close)
	return r
}

func (r *relay) addr() string { return r.lis.Addr().String() }

// to points the relay at target ("" for nowhere) and resets the count of
// refusals; connections already relayed keep their old target.
func (r *relay) to(target string) {
	r.mu.Lock()
	r.target, r.refused = target, 0
	r.mu.Unlock()
}

// waitRefused waits until the relay has refused n connections since it
// was last pointed somewhere, and fails the test after limit.
func (r *relay) waitRefused(t testing.TB, n int, limit time.Duration) {
	t.Helper()
	deadline := time.Now().Add(limit)
	for {
		r.mu.Lock()
		got := r.refused
		r.mu.Unlock()
		if got >= n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the relay refused %d connections in %v, want %d", got, limit, n)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func (r *relay) accept() {
	defer r.wg.Done()
	for {
		down, err := r.lis.Accept()
		if err != nil {
			return // closed
		}
		r.mu.Lock()
		target := r.target
		if target == "" {
			r.refused++
		} else {
			r.conns[down] = struct{}{}
		}
		r.mu.Unlock()
		if target == "" {
			down.Close()
			continue
		}
		r.wg.Add(1)
		go r.forward(down, target)
	}
}

// forward copies bytes both ways between down and a new connection to
// target until either side ends, then closes both.
func (r *relay) forward(down net.Conn, target string) {
	defer r.wg.Done()
	defer func() {
		r.mu.Lock()
		delete(r.conns, down)
		r.mu.Unlock()
		down.Close()
	}()
	up, err := net.DialTimeout("tcp", target, 5*time.Second)
	if err != nil {
		r.mu.Lock()
		r.refused++
		r.mu.Unlock()
		return
	}
	defer up.Close()
	ended := make(chan struct{}, 2)
	go func() { _, _ = io.Copy(up, down); ended <- struct{}{} }()
	go func() { _, _ = io.Copy(down, up); ended <- struct{}{} }()
	<-ended
	up.Close()
	down.Close()
	<-ended
}

// close stops accepting, cuts every relayed connection and waits for the
// relay's goroutines.
func (r *relay) close() {
	r.lis.Close()
	r.mu.Lock()
	for c := range r.conns {
		c.Close()
	}
	r.mu.Unlock()
	r.wg.Wait()
}
