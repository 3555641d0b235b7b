package server_test

import (
	"context"
	"errors"
	"math"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/misslab/misslab/internal/fpclass"
	"github.com/misslab/misslab/internal/grid"
	"github.com/misslab/misslab/internal/server"
	"github.com/misslab/misslab/internal/store"
	"github.com/misslab/misslab/internal/storeconv"
	"github.com/misslab/misslab/internal/wire"
	"github.com/misslab/misslab/internal/worker"
	pb "github.com/misslab/misslab/proto/misslab/v1"
)

// realSweep is a small sweep for the real experiment executor.
func realSweep(t testing.TB) *grid.Sweep {
	sw := testSweep(t, 11, 4, []float64{0.1, 0.3, 0.5}, "linear/mean", "linear/median")
	for i := range sw.Scenarios {
		sw.Scenarios[i].NTrain, sw.Scenarios[i].NTest = 80, 80
	}
	return sw
}

// scores reads every stored (R², MSE, error kind) of sw.
func scores(t testing.TB, st *store.Store, sw *grid.Sweep) [][3]string {
	t.Helper()
	var out [][3]string
	for job := range sw.Jobs() {
		for p := range sw.Pipelines {
			r, ok, err := st.Lookup(storeconv.ToStore(sw), job, p)
			if err != nil || !ok {
				t.Fatalf("job %d pipeline %d: stored %v, err %v", job, p, ok, err)
			}
			out = append(out, [3]string{fbits(r.R2), fbits(r.MSE), r.ErrKind})
		}
	}
	return out
}

func fbits(f float64) string { return strconv.FormatUint(math.Float64bits(f), 16) }

// TestDeterminismAcrossWorkerCounts: the real experiment run by one worker
// with one slot and by four workers with 1–4 slots stores bit-identical
// scores.
func TestDeterminismAcrossWorkerCounts(t *testing.T) {
	sw := realSweep(t)
	run := func(parallel ...int) [][3]string {
		c := startCluster(t, t.TempDir(), server.Options{})
		for i, p := range parallel {
			c.startWorker("w"+string(rune('a'+i)), p, worker.Experiment{Threads: 1})
		}
		st := c.wait(c.submit(sw).SweepId)
		if st.Done != int64(sw.Jobs()) {
			t.Fatalf("status %v", st)
		}
		return scores(t, c.coord.Store(), sw)
	}
	one, four := run(1), run(1, 2, 3, 4)
	for i := range one {
		if one[i] != four[i] {
			t.Fatalf("result %d: one worker %v, four workers %v", i, one[i], four[i])
		}
		if one[i][2] != "" {
			t.Fatalf("result %d failed (%s): the test needs real scores", i, one[i][2])
		}
	}
}

// counting wraps Deterministic and counts runs per (job key, pipeline).
type counting struct {
	mu   sync.Mutex
	runs map[string]int
}

func (c *counting) Execute(ctx context.Context, sw *grid.Sweep, scenario, rep int, pipelines []int) ([]worker.Result, error) {
	c.mu.Lock()
	for _, p := range pipelines {
		c.runs[sw.Scenarios[scenario].Canonical()+"|"+string(rune('0'+rep))+"|"+sw.Pipelines[p].Canonical()]++
	}
	c.mu.Unlock()
	return worker.Deterministic{}.Execute(ctx, sw, scenario, rep, pipelines)
}

func (c *counting) total() (n int, twice bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, k := range c.runs {
		n += k
		twice = twice || k > 1
	}
	return n, twice
}

// of returns the runs of pipeline p, over every job.
func (c *counting) of(p grid.Pipeline) (n int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for k, runs := range c.runs {
		if strings.HasSuffix(k, "|"+p.Canonical()) {
			n += runs
		}
	}
	return n
}

// TestOverlappingGridsReuseResults: resubmitting a grid recomputes
// nothing; an overlapping grid with other pipelines and more repetitions
// runs only the (job, pipeline) pairs not stored yet.
func TestOverlappingGridsReuseResults(t *testing.T) {
	c := startCluster(t, t.TempDir(), server.Options{})
	exec := &counting{runs: map[string]int{}}
	c.startWorker("w", 2, exec)
	a := testSweep(t, 3, 3, []float64{0.1, 0.2}, "tree/mia", "tree/mean")
	c.wait(c.submit(a).SweepId)
	if n, _ := exec.total(); n != 12 {
		t.Fatalf("sweep a ran %d pipeline-jobs, want 12", n)
	}
	again := c.submit(a)
	if again.Status.State != pb.SweepStatus_STATE_COMPLETE || again.Status.Done != 6 {
		t.Fatalf("resubmission: %v", again.Status)
	}
	b := testSweep(t, 3, 4, []float64{0.1, 0.2, 0.3}, "tree/mean", "svm/mean")
	b.Name = "b"
	resp := c.submit(b)
	if resp.Status.Reused != 0 || resp.Status.Done != 0 {
		t.Fatalf("b shares pipelines but no whole job: %v", resp.Status)
	}
	c.wait(resp.SweepId)
	n, twice := exec.total()
	// b: 12 jobs × 2 pipelines, of which (0.1, 0.2) × reps 0–2 × tree/mean are stored.
	if n != 12+24-6 || twice {
		t.Fatalf("after b: %d pipeline-jobs (want %d), some twice: %v", n, 12+24-6, twice)
	}
	checkScores(t, c.coord, a)
	checkScores(t, c.coord, b)
	if stored, _ := c.coord.Store().CountResults(); stored != 30 {
		t.Fatalf("%d results stored, want 30 distinct", stored)
	}
}

func code(err error) codes.Code { return status.Code(err) }

// TestBadInputIsRejected: malformed sweeps, unknown pipelines and a worker
// speaking nonsense get errors or invalid acks; the coordinator keeps
// serving and stores only valid results.
func TestBadInputIsRejected(t *testing.T) {
	c := startCluster(t, t.TempDir(), server.Options{LeaseTTL: time.Minute})
	ctx := context.Background()
	good := testSweep(t, 5, 1, []float64{0.1, 0.2}, "tree/mia", "tree/mean")
	bad := func(edit func(*pb.SweepSpec)) *pb.SweepSpec {
		p := wire.SpecToProto(good)
		edit(p)
		return p
	}
	for name, spec := range map[string]*pb.SweepSpec{
		"nil spec":           nil,
		"no repetitions":     bad(func(p *pb.SweepSpec) { p.Repetitions = 0 }),
		"rate out of range":  bad(func(p *pb.SweepSpec) { p.Scenarios[0].Rate = 1.5 }),
		"unknown model":      bad(func(p *pb.SweepSpec) { p.Scenarios[1].Model = "cubic" }),
		"unknown pipeline":   bad(func(p *pb.SweepSpec) { p.Pipelines[0].Name = "tree/bogus" }),
		"duplicate pipeline": bad(func(p *pb.SweepSpec) { p.Pipelines[1].Name = "tree/mia" }),
		"duplicate scenario": bad(func(p *pb.SweepSpec) { p.Scenarios[1].Rate = 0.1 }),
		"NaN setting":        bad(func(p *pb.SweepSpec) { p.Pipelines[0].Settings = map[string]float64{"cp": math.NaN()} }),
		"too many jobs":      bad(func(p *pb.SweepSpec) { p.Repetitions = grid.MaxJobs/2 + 1 }),
	} {
		if _, err := c.client.Submit(ctx, &pb.SubmitRequest{Spec: spec}); code(err) != codes.InvalidArgument {
			t.Errorf("%s: %v, want InvalidArgument", name, err)
		}
	}
	if _, err := c.client.Status(ctx, &pb.StatusRequest{SweepId: "feedbeef"}); code(err) != codes.NotFound {
		t.Errorf("status of unknown sweep: %v", err)
	}
	if _, err := c.client.Cancel(ctx, &pb.CancelRequest{SweepId: "feedbeef"}); code(err) != codes.NotFound {
		t.Errorf("cancel of unknown sweep: %v", err)
	}
	if sts, _ := c.client.Status(ctx, &pb.StatusRequest{}); len(sts.GetSweeps()) != 0 {
		t.Fatalf("rejected sweeps were stored: %v", sts)
	}
	rw := dialRawWorker(t, c.addr)
	// A stream that does not start with Hello is refused.
	noHello := rw.open(t)
	must(t, noHello.Send(&pb.WorkRequest{Msg: &pb.WorkRequest_Results{Results: &pb.ResultBatch{}}}))
	if _, err := noHello.Recv(); code(err) != codes.InvalidArgument {
		t.Fatalf("stream without Hello: %v", err)
	}
	s := rw.open(t)
	must(t, s.Send(&pb.WorkRequest{Msg: &pb.WorkRequest_Hello{Hello: &pb.Hello{FpClass: fpclass.Current(), WorkerId: "raw", Capacity: 2}}}))
	recvType[*pb.WorkResponse_Welcome](t, s)
	id := c.submit(good).SweepId
	recvType[*pb.WorkResponse_Sweep](t, s)
	batch := recvType[*pb.WorkResponse_Jobs](t, s).Jobs
	if len(batch.Jobs) != 2 {
		t.Fatalf("batch %v", batch)
	}
	j0, j1 := batch.Jobs[0], batch.Jobs[1]
	ok := func(j *pb.Job) *pb.JobResult {
		return &pb.JobResult{Token: j.Token, SweepId: id, Job: j.Job, Pipelines: []*pb.PipelineResult{
			{Pipeline: 0, R2: 0.5, Mse: float64(j.Job)}, {Pipeline: 1, R2: 0.25, Mse: 2}}}
	}
	outOfRange := ok(j0)
	outOfRange.Pipelines[1].Pipeline = 9
	twice := ok(j0)
	twice.Pipelines[1].Pipeline = 0
	wrongJob := ok(j0)
	wrongJob.Job = 57
	forged := ok(j1)
	forged.Token ^= 0xdead
	unknownSweep := ok(j1)
	unknownSweep.SweepId = "nope"
	must(t, s.Send(&pb.WorkRequest{})) // no message at all: ignored
	must(t, s.Send(&pb.WorkRequest{Msg: &pb.WorkRequest_Results{Results: &pb.ResultBatch{Results: []*pb.JobResult{
		unknownSweep, wrongJob, forged, twice, ok(j1), ok(j1),
	}}}}))
	ack := recvType[*pb.WorkResponse_Ack](t, s).Ack
	want := []pb.Ack_Outcome{pb.Ack_OUTCOME_INVALID, pb.Ack_OUTCOME_INVALID, pb.Ack_OUTCOME_STALE,
		pb.Ack_OUTCOME_INVALID, pb.Ack_OUTCOME_ACCEPTED, pb.Ack_OUTCOME_DUPLICATE}
	for i, it := range ack.Items {
		if it.Outcome != want[i] {
			t.Errorf("result %d: %v (%s), want %v", i, it.Outcome, it.Reason, want[i])
		}
	}
	// The malformed result ended job 0's lease; it comes back under a new
	// token, and the result under the old token is stale.
	again := recvType[*pb.WorkResponse_Jobs](t, s).Jobs
	if len(again.Jobs) != 1 || again.Jobs[0].Job != j0.Job || again.Jobs[0].Token == j0.Token {
		t.Fatalf("re-leased %v", again)
	}
	must(t, s.Send(&pb.WorkRequest{Msg: &pb.WorkRequest_Results{Results: &pb.ResultBatch{Results: []*pb.JobResult{ok(j0), ok(again.Jobs[0])}}}}))
	ack = recvType[*pb.WorkResponse_Ack](t, s).Ack
	if ack.Items[0].Outcome != pb.Ack_OUTCOME_STALE || ack.Items[1].Outcome != pb.Ack_OUTCOME_ACCEPTED {
		t.Fatalf("acks %v", ack)
	}
	st := c.wait(id)
	if st.Done != 2 || st.Failed != 0 {
		t.Fatalf("status %v", st)
	}
	if n, _ := c.coord.Store().CountResults(); n != 4 {
		t.Fatalf("%d results stored, want 4", n)
	}
	if r, _, _ := c.coord.Store().Lookup(storeconv.ToStore(good), 1, 0); r.R2 != 0.5 || r.MSE != 1 {
		t.Fatalf("stored %+v", r)
	}
	rw.healthy(t)
}

// TestFullDiskFailsCleanly: while every write fails, submissions are
// refused whole and accepted results are not stored but queued again;
// earlier results stay; once space is back the sweep completes.
func TestFullDiskFailsCleanly(t *testing.T) {
	var full atomic.Bool
	diskFull := errors.New("no space left on device")
	opts := server.Options{
		Store:  store.Options{WriteHook: func() error { return map[bool]error{true: diskFull}[full.Load()] }},
		Writer: store.WriterOptions{MaxDelay: time.Millisecond, Retries: 2, Backoff: time.Millisecond},
	}
	c := startCluster(t, t.TempDir(), opts)
	a := testSweep(t, 1, 3, []float64{0.1, 0.2}, "tree/mia")
	b := testSweep(t, 2, 3, []float64{0.1, 0.2}, "tree/mia")
	gate := make(chan struct{}) // b's jobs run once the disk is full
	c.startWorker("w", 2, seedGate{worker.Slow{Executor: worker.Deterministic{}, Delay: 2 * time.Millisecond}, b.Seed, gate})
	c.wait(c.submit(a).SweepId)
	idb := c.submit(b).SweepId // stored while there is space
	full.Store(true)
	close(gate)
	_, err := c.client.Submit(context.Background(), &pb.SubmitRequest{Spec: wire.SpecToProto(testSweep(t, 9, 1, []float64{0.1}, "tree/mia"))})
	if code(err) != codes.Unavailable {
		t.Fatalf("submit on a full disk: %v, want Unavailable", err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		st, err := c.coord.Status(idb)
		must(t, err)
		if strings.Contains(st.LastError, diskFull.Error()) {
			if st.Done != 0 {
				t.Fatalf("status %+v: nothing can be done on a full disk", st)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no write failure reported: %+v", st)
		}
		time.Sleep(5 * time.Millisecond)
	}
	checkScores(t, c.coord, a) // earlier results intact
	full.Store(false)
	st := c.wait(idb)
	if st.Done != 6 || st.Failed != 0 {
		t.Fatalf("after space came back: %v", st)
	}
	checkScores(t, c.coord, b)
	if n, _ := c.coord.Store().CountResults(); n != 12 {
		t.Fatalf("%d results, want 12", n)
	}
	if sts, _ := c.client.Status(context.Background(), &pb.StatusRequest{}); len(sts.Sweeps) != 2 {
		t.Fatalf("the refused submission left a sweep behind: %v", sts)
	}
}

// gated blocks every job until open is closed, counts the calls and
// signals each start and each return on started and finished.
type gated struct {
	open     chan struct{}
	started  chan struct{}
	finished chan struct{}
	calls    atomic.Int32
}

func newGated() *gated {
	return &gated{open: make(chan struct{}), started: make(chan struct{}, 100), finished: make(chan struct{}, 100)}
}

func (g *gated) Execute(ctx context.Context, sw *grid.Sweep, scenario, rep int, pipelines []int) ([]worker.Result, error) {
	g.calls.Add(1)
	g.started <- struct{}{}
	defer func() { g.finished <- struct{}{} }()
	select {
	case <-g.open:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	return worker.Deterministic{}.Execute(ctx, sw, scenario, rep, pipelines)
}

// TestWorkerKeepsJobsAcrossCoordinatorRestart: the coordinator goes away
// while a worker runs its jobs; the worker finishes them, reconnects to
// the restarted coordinator and delivers them: nothing is recomputed.
func TestWorkerKeepsJobsAcrossCoordinatorRestart(t *testing.T) {
	dir := t.TempDir()
	c := startCluster(t, dir, server.Options{})
	sw := testSweep(t, 4, 2, []float64{0.1, 0.2}, "tree/mia")
	id := c.submit(sw).SweepId
	g := newGated()
	// The worker joins through a relay: the restarted coordinator listens
	// on a new port and the relay sends the worker there.
	rl := newRelay(t)
	rl.to(c.addr)
	startWorkerAt(t, rl.addr(), "w", 4, g)
	for range 4 {
		<-g.started
	}
	rl.to("") // refused, as by a stopped coordinator
	c.close()
	close(g.open) // the jobs finish while nobody listens
	for range 4 {
		<-g.finished
	}
	c2 := startCluster(t, dir, server.Options{}) // on a new port
	rl.to(c2.addr)
	st := c2.wait(id)
	if st.Done != 4 || g.calls.Load() != 4 {
		t.Fatalf("status %v after %d executions, want 4 done from 4 executions", st, g.calls.Load())
	}
	checkScores(t, c2.coord, sw)
}

// TestDrainHandsBackQueuedJobs: a draining worker releases the jobs it has
// not started (another worker runs them), finishes the one it runs,
// delivers it and exits.
func TestDrainHandsBackQueuedJobs(t *testing.T) {
	// No speculative copy of a's running job: it must finish it itself.
	c := startCluster(t, t.TempDir(), server.Options{SpeculateAfter: time.Hour})
	sw := testSweep(t, 6, 2, []float64{0.1, 0.2}, "tree/mia")
	id := c.submit(sw).SweepId
	g := newGated()
	ctx, drain := context.WithCancel(context.Background())
	exited := make(chan error, 1)
	go func() {
		exited <- worker.Run(ctx, worker.Options{Addr: c.addr, ID: "a", Parallel: 1, Prefetch: 3, Executor: g})
	}()
	<-g.started // a holds 4 leases and runs one
	drain()
	other := &counting{runs: map[string]int{}}
	c.startWorker("b", 2, other)
	deadline := time.Now().Add(20 * time.Second)
	for n, _ := other.total(); n < 3; n, _ = other.total() {
		if time.Now().After(deadline) {
			t.Fatalf("b ran %d released jobs, want 3", n)
		}
		time.Sleep(5 * time.Millisecond)
	}
	select {
	case <-exited:
		t.Fatal("a exited before finishing its running job")
	default:
	}
	close(g.open)
	must(t, <-exited)
	st := c.wait(id)
	if n, twice := other.total(); st.Done != 4 || g.calls.Load() != 1 || n != 3 || twice {
		t.Fatalf("status %v; a ran %d jobs (want 1), b ran %d (want 3)", st, g.calls.Load(), n)
	}
	checkScores(t, c.coord, sw)
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// seedGate runs the jobs of the sweep of seed seed once gate is closed.
type seedGate struct {
	worker.Executor
	seed uint64
	gate chan struct{}
}

// Execute implements worker.Executor.
func (g seedGate) Execute(ctx context.Context, sw *grid.Sweep, scenario, rep int, pipelines []int) ([]worker.Result, error) {
	if sw.Seed == g.seed {
		select {
		case <-g.gate:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	return g.Executor.Execute(ctx, sw, scenario, rep, pipelines)
}
