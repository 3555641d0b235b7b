package worker

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"runtime"
	"runtime/debug"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"
	"google.golang.org/grpc"
	"google.golang.org/grpc/backoff"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/misslab/misslab/internal/grid"
	"github.com/misslab/misslab/internal/methodid"
	"github.com/misslab/misslab/internal/wire"
	pb "github.com/misslab/misslab/proto/misslab/v1"
)

// Options configure a worker. Zero fields take the defaults.
type Options struct {
	Addr     string   // coordinator host:port (required)
	ID       string   // default DefaultID()
	Parallel int      // jobs run at once; default runtime.NumCPU()
	Prefetch int      // leases held beyond Parallel; default Parallel
	Executor Executor // required
	Logger   hclog.Logger
	// MinBackoff and MaxBackoff bound the reconnection delay, which doubles
	// from MinBackoff (default 100 ms) to MaxBackoff (default 5 s), jittered.
	MinBackoff, MaxBackoff time.Duration
	// DrainTimeout is how long a draining worker lets running jobs finish
	// before it abandons and releases them; default 10 min.
	DrainTimeout time.Duration
	// Transport secures the connection (credentials.NewTLS for TLS); nil:
	// plaintext. Give TLS here rather than in DialOptions: the worker
	// watches its handshakes to tell a refusal at the TLS layer (Run
	// returns ErrRefused) from a coordinator that is away (it retries).
	Transport   credentials.TransportCredentials
	DialOptions []grpc.DialOption // added last (per-call credentials)
	// Tables is the local store of the tables of table sweeps: a sweep's
	// table is fetched from the coordinator into it before the sweep's
	// jobs run. nil: such sweeps' jobs fail on this worker.
	Tables *TableStore
	// Methods are the external methods this worker can run (its methods
	// file, identities computed), announced in every Hello so that the
	// coordinator leases it only jobs it can run; the Executor must run
	// them (see WithMethods).
	Methods []methodid.Method
}

// Results go out in messages of about resultBatchBytes; a message from
// the coordinator (a sweep's spec may be large) is bounded by
// wire.MaxMessageBytes.
const (
	resultBatchBytes = 1 << 20
	maxErrText       = 4096
)

type jobState int

const (
	queued jobState = iota
	running
	finished
)

type jobKey struct {
	sweep string
	job   int64
}

// job is a leased job the worker holds until its result is acknowledged.
type job struct {
	key      jobKey
	token    uint64
	proof    []byte // the lease's Job.proof, returned in Held on reconnection
	scenario int
	rep      int
	pipes    []int
	state    jobState
	cancel   context.CancelFunc
	result   *pb.JobResult // set when finished
	sent     bool          // result sent on the current stream
}

// Worker is a running worker. Use Run.
type Worker struct {
	opts Options
	log  hclog.Logger

	mu       sync.Mutex
	cond     *sync.Cond // signalled when jobs are queued or finish
	specs    map[string]*grid.Sweep
	jobs     map[jobKey]*job
	byToken  map[uint64]*job
	queue    []*job
	draining bool
	stopping bool
	cur      *session // nil while disconnected
	refusal  refusal  // closed when the coordinator refuses the worker
	seen     attempts // how the connection attempts ended
	closed   bool     // the drained worker closed its stream: no reconnection
	opening  bool     // runSession has opened a stream that has not started yet (see closeSession)
}

// Run connects to the coordinator and runs jobs until ctx ends, or until
// the coordinator refuses the worker (then Run returns an error wrapping
// ErrRefused that says why), then drains: queued leases are handed back,
// running jobs finish (up to DrainTimeout), their results are delivered,
// and Run returns. While the coordinator is away (refusing connections,
// resetting them, restarting) it keeps running the jobs it has and
// reconnects with backoff; results are delivered after reconnecting.
func Run(ctx context.Context, opts Options) error {
	w, err := newWorker(opts)
	if err != nil {
		return err
	}
	conn, err := grpc.NewClient(opts.Addr, w.dialOptions()...)
	if err != nil {
		return fmt.Errorf("worker: dial %s: %w", opts.Addr, err)
	}
	defer conn.Close()
	var wg sync.WaitGroup
	for range w.opts.Parallel {
		wg.Add(1)
		go func() { defer wg.Done(); w.execLoop() }()
	}
	connCtx, stopConn := context.WithCancel(context.Background())
	connDone := make(chan struct{})
	go func() { defer close(connDone); w.connectLoop(connCtx, pb.NewWorkServiceClient(conn)) }()
	select {
	case <-ctx.Done():
	case <-w.refusal.done:
	}
	w.drain()
	stopConn()
	<-connDone
	w.mu.Lock()
	w.stopping = true
	w.cond.Broadcast()
	w.mu.Unlock()
	wg.Wait()
	return w.refusal.err
}

// dialOptions are the options of the connection to the coordinator: the
// transport watched for refusals, gRPC's own reconnection backoff set to
// the worker's (so that failed attempts are as frequent as retries), then
// the caller's options.
func (w *Worker) dialOptions() []grpc.DialOption {
	creds := w.opts.Transport
	if creds == nil {
		creds = insecure.NewCredentials()
	}
	watched := &watchedCreds{TransportCredentials: creds, tls: creds.Info().SecurityProtocol != "insecure", seen: &w.seen}
	bo := backoff.DefaultConfig
	bo.BaseDelay, bo.MaxDelay = w.opts.MinBackoff, w.opts.MaxBackoff
	return append([]grpc.DialOption{grpc.WithTransportCredentials(watched),
		grpc.WithConnectParams(grpc.ConnectParams{Backoff: bo, MinConnectTimeout: 20 * time.Second}),
		grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(wire.MaxMessageBytes)), keepaliveOption}, w.opts.DialOptions...)
}

// DefaultID is the id of a worker whose Options leave ID empty: its host
// name and process id, "host-pid".
func DefaultID() string {
	host, _ := os.Hostname()
	return fmt.Sprintf("%s-%d", host, os.Getpid())
}

func newWorker(opts Options) (*Worker, error) {
	if opts.Addr == "" || opts.Executor == nil {
		return nil, errors.New("worker: Addr and Executor are required")
	}
	if opts.Parallel <= 0 {
		opts.Parallel = runtime.NumCPU()
	}
	if opts.Prefetch <= 0 {
		opts.Prefetch = opts.Parallel
	}
	if opts.ID == "" {
		opts.ID = DefaultID()
	}
	if err := wire.CheckWorkerID(opts.ID); err != nil {
		return nil, fmt.Errorf("worker: --id: %w", err)
	}
	if opts.Logger == nil {
		opts.Logger = hclog.NewNullLogger()
	}
	if opts.MinBackoff <= 0 {
		opts.MinBackoff = 100 * time.Millisecond
	}
	if opts.MaxBackoff < opts.MinBackoff {
		opts.MaxBackoff = max(5*time.Second, opts.MinBackoff)
	}
	if opts.DrainTimeout <= 0 {
		opts.DrainTimeout = 10 * time.Minute
	}
	w := &Worker{opts: opts, log: opts.Logger.With("worker", opts.ID), specs: map[string]*grid.Sweep{},
		jobs: map[jobKey]*job{}, byToken: map[uint64]*job{}, refusal: refusal{done: make(chan struct{})}}
	w.cond = sync.NewCond(&w.mu)
	return w, nil
}

// execLoop runs queued jobs one at a time until the worker stops.
func (w *Worker) execLoop() {
	w.mu.Lock()
	defer w.mu.Unlock()
	for {
		for len(w.queue) == 0 && !w.stopping {
			w.cond.Wait()
		}
		if w.stopping {
			return
		}
		j := w.queue[0]
		w.queue = w.queue[1:]
		ctx, cancel := context.WithCancel(context.Background())
		j.state, j.cancel = running, cancel
		sw := w.specs[j.key.sweep]
		w.mu.Unlock()
		res := w.execute(ctx, sw, j)
		cancel()
		w.mu.Lock()
		if w.jobs[j.key] == j { // not revoked meanwhile
			j.state, j.result = finished, res
			w.signal()
		}
		w.cond.Broadcast()
	}
}

// execute runs one job, turning a panic or a malformed executor answer
// into a job error.
func (w *Worker) execute(ctx context.Context, sw *grid.Sweep, j *job) (res *pb.JobResult) {
	res = &pb.JobResult{SweepId: j.key.sweep, Job: j.key.job}
	defer func() {
		if p := recover(); p != nil {
			res.Pipelines, res.Error = nil, truncate(fmt.Sprintf("panic: %v\n%s", p, debug.Stack()))
		}
	}()
	if sw == nil {
		res.Error = "worker has no spec for sweep " + j.key.sweep
		return res
	}
	out, err := w.opts.Executor.Execute(ctx, sw, j.scenario, j.rep, j.pipes)
	if err == nil && len(out) != len(j.pipes) {
		err = fmt.Errorf("executor returned %d results for %d pipelines", len(out), len(j.pipes))
	}
	if err != nil {
		res.Error = truncate(err.Error())
		return res
	}
	for _, r := range out {
		pr := &pb.PipelineResult{Pipeline: int32(r.Pipeline), R2: r.R2, Mse: r.MSE, Mae: r.MAE,
			FitSeconds: r.FitSeconds, PredictSeconds: r.PredictSeconds, ErrKind: truncate(r.ErrKind), ErrMsg: truncate(r.ErrMsg),
			Root: truncate(r.Root), RootThreshold: r.RootThreshold}
		if !math.IsNaN(r.ImputeRMSETrain) {
			pr.ImputeRmseTrain = &r.ImputeRMSETrain
		}
		if !math.IsNaN(r.ImputeRMSETest) {
			pr.ImputeRmseTest = &r.ImputeRMSETest
		}
		if c := r.Class; c != nil {
			pr.ClassScores = &pb.ClassScores{LogLoss: c.LogLoss, Brier: c.Brier, Auc: c.AUC, AucHandTill: c.AUCHandTill,
				Accuracy: c.Accuracy, BalancedAccuracy: c.BalancedAccuracy, Ece: c.ECE}
			for _, b := range c.Reliability {
				pr.ClassScores.Reliability = append(pr.ClassScores.Reliability,
					&pb.CalibrationBin{Count: uint64(b.Count), Correct: uint64(b.Correct), Confidence: b.Confidence})
			}
		}
		res.Pipelines = append(res.Pipelines, pr)
	}
	return res
}

// signal wakes the current session's sender. Call with w.mu held.
func (w *Worker) signal() {
	if w.cur != nil {
		select {
		case w.cur.flush <- struct{}{}:
		default:
		}
	}
}

// remove forgets a job, stopping it if it runs. Call with w.mu held.
func (w *Worker) remove(j *job) {
	delete(w.jobs, j.key)
	delete(w.byToken, j.token)
	if j.cancel != nil {
		j.cancel()
	}
	if j.state == queued {
		for i, q := range w.queue {
			if q == j {
				w.queue = append(w.queue[:i], w.queue[i+1:]...)
				break
			}
		}
	}
	w.cond.Broadcast()
}

// addJobs takes a batch of leases, or hands it straight back when draining.
func (w *Worker) addJobs(b *pb.JobBatch) (release []uint64) {
	w.mu.Lock()
	defer w.mu.Unlock()
	sw := w.specs[b.GetSweepId()]
	for _, pj := range b.GetJobs() {
		if w.draining {
			release = append(release, pj.GetToken())
			continue
		}
		j := &job{key: jobKey{b.GetSweepId(), pj.GetJob()}, token: pj.GetToken(), proof: pj.GetProof(),
			scenario: int(pj.GetScenario()), rep: int(pj.GetRepetition())}
		if sw != nil { // the unit of a table sweep's fold: repetition·K + fold
			j.rep = j.rep*sw.Units() + int(pj.GetFold())
		}
		for _, p := range pj.GetPipelines() {
			j.pipes = append(j.pipes, int(p))
		}
		if len(j.pipes) == 0 && sw != nil {
			for i := range sw.Pipelines {
				j.pipes = append(j.pipes, i)
			}
		}
		if old := w.jobs[j.key]; old != nil { // a second lease on a job we hold
			release = append(release, j.token)
			continue
		}
		w.jobs[j.key] = j
		w.byToken[j.token] = j
		w.queue = append(w.queue, j)
	}
	w.cond.Broadcast()
	return release
}

// setSpec caches a sweep's spec.
func (w *Worker) setSpec(m *pb.SweepSpecMessage) {
	sw, err := wire.SpecFromProto(m.GetSpec())
	if err != nil {
		w.log.Error("bad sweep spec from coordinator", "sweep", m.GetSweepId(), "error", err)
		return
	}
	w.mu.Lock()
	w.specs[m.GetSweepId()] = sw
	w.mu.Unlock()
}

// ack drops acknowledged results and revoked leases.
func (w *Worker) ack(tokens []uint64, onlyFinished bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, t := range tokens {
		if j := w.byToken[t]; j != nil && (!onlyFinished || j.state == finished) {
			w.remove(j)
		}
	}
}

// renew keeps the fresh proofs of the leases a heartbeat extended, in
// place of the old ones, for Hello.held after a reconnection: an old
// proof expires a while after the deadline it was issued with.
func (w *Worker) renew(leases []*pb.Renewal) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, r := range leases {
		if j := w.byToken[r.GetToken()]; j != nil {
			j.proof = r.GetProof()
		}
	}
}

// truncate bounds an error text so that results stay small.
func truncate(s string) string {
	if len(s) > maxErrText {
		return s[:maxErrText]
	}
	return s
}

func jitter(d time.Duration) time.Duration {
	return d/2 + time.Duration(rand.Int64N(int64(d)/2+1))
}
