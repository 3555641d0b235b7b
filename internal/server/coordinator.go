package server

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"
	"google.golang.org/grpc"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/keepalive"
	"google.golang.org/grpc/reflection"

	"github.com/misslab/misslab/internal/fpclass"
	"github.com/misslab/misslab/internal/grid"
	"github.com/misslab/misslab/internal/methodid"
	"github.com/misslab/misslab/internal/sched"
	"github.com/misslab/misslab/internal/store"
	"github.com/misslab/misslab/internal/storeconv"
	"github.com/misslab/misslab/internal/wire"
	pb "github.com/misslab/misslab/proto/misslab/v1"
)

// Options configure a Coordinator. Zero fields take the defaults.
type Options struct {
	Logger        hclog.Logger  // default: discard
	LeaseTTL      time.Duration // default 30 s
	MaxDeliveries int           // default 3
	// MaxLostDeliveries: see sched.Options; default
	// sched.DefaultMaxLostDeliveries.
	MaxLostDeliveries int
	// SpeculateAfter: see sched.Options; default 0.
	SpeculateAfter time.Duration
	Clock          sched.Clock // default wall clock
	Store          store.Options
	Writer         store.WriterOptions
	// RestartGrace is how long past its lease's deadline a lease's proof
	// still lets a worker keep the job after a restart of the coordinator
	// (a proof vouches only for a lease of an earlier life, once); it
	// should cover the time a restart takes, store loading included.
	// Default DefaultRestartGrace.
	RestartGrace time.Duration
	// GRPCOptions are added to the gRPC server (e.g. grpc.Creds for TLS).
	GRPCOptions []grpc.ServerOption
	// Unary and Stream interceptors run after the error mapping (so their
	// errors become status codes in errors.go) and before the handlers:
	// the place for access checks (see internal/auth).
	Unary  []grpc.UnaryServerInterceptor
	Stream []grpc.StreamServerInterceptor
	// Observer hears about workers, leases, results and store commits;
	// default: nothing.
	Observer Observer
	// HealthListen, if set, is where ServeDir also serves the health
	// service alone, in plaintext (see ServeHealth).
	HealthListen string
	// MetricsListen, if set, is where ServeDir also serves the
	// coordinator's Prometheus metrics over HTTP (/metrics, /healthz); its
	// collector (NewMetrics) then replaces Observer.
	MetricsListen string
	// MaxBacklog is how many accepted results may wait for the store
	// before leasing pauses; default DefaultMaxBacklog.
	MaxBacklog int
	// Methods are the external methods of the coordinator's own methods
	// file (coordinator --methods), identities computed: a grid's method
	// name they list binds to them at Submit, whatever workers offer.
	// Without them a name binds to what connected workers offer.
	Methods []methodid.Method
	// FPClass is the floating-point class of the workers the coordinator
	// accepts (see internal/fpclass): a worker of another class is
	// refused at Hello, since it could score a job differently in the
	// last bits. Default: the coordinator's own class; fpclass.Any
	// accepts every class (results then depend on which worker ran a job).
	// The data directory keeps the class of its results: Open refuses a
	// directory whose results were computed under a class it does not
	// accept (see bindFPClass).
	FPClass string
	// VerifyClass, if set, lets Open take a data directory whose results
	// carry another class when the coordinator accepts its own class: it
	// recomputes a sample of the stored results in this process
	// (cmd/coordinator passes verify.Stored) and returns how many scores
	// it compared, with nil when every one is bit-identical; the
	// directory then takes the coordinator's class. Nil: such a
	// directory is refused.
	VerifyClass func(ctx context.Context, st *store.Store) (compared int, err error)
}

// Coordinator owns a data directory: the store, its batch writer and the
// scheduler with every stored sweep loaded.
type Coordinator struct {
	log     hclog.Logger
	opts    Options
	obs     Observer
	commit  commitClock
	backlog *backlog
	st      *store.Store
	signer  signer // signs leases, so held jobs can be adopted after a restart
	writer  *store.Writer
	sched   *sched.Scheduler
	methods *methodBook

	mu     sync.Mutex // serialises Submit, Cancel and loading
	stop   chan struct{}
	ticker sync.WaitGroup // the lease ticker (tick), started by Open, stopped by Close

	closeOnce sync.Once
	closeErr  error
}

// sweepInfo is what the server keeps per loaded sweep (sched.Sweep.Data).
type sweepInfo struct {
	spec  *grid.Sweep
	wire  *pb.SweepSpec
	draws []store.DrawKey // per scenario
	pipes []store.PipeKey // per pipeline
}

// Open opens the data directory, reconstructs every stored sweep's
// progress from its stored results, and starts expiring leases. ctx
// bounds the recomputation that may vouch for the directory's
// floating-point class (Options.VerifyClass).
func Open(ctx context.Context, dir string, opts Options) (*Coordinator, error) {
	if opts.Logger == nil {
		opts.Logger = hclog.NewNullLogger()
	}
	if opts.Observer == nil {
		opts.Observer = nopObserver{}
	}
	if opts.MaxBacklog <= 0 {
		opts.MaxBacklog = DefaultMaxBacklog
	}
	if opts.FPClass == "" {
		opts.FPClass = fpclass.Current()
	}
	c := &Coordinator{log: opts.Logger, opts: opts, obs: opts.Observer, stop: make(chan struct{}),
		backlog: newBacklog(opts.MaxBacklog), methods: newMethodBook(opts.Methods)}
	c.commit.next = opts.Store.WriteHook
	opts.Store.WriteHook = c.commit.hook
	st, err := store.Open(dir, opts.Store)
	if err != nil {
		return nil, err
	}
	c.st = st
	for _, m := range st.Migrations() {
		c.log.Info("migrated the store", "data", dir, "from", m.From, "to", m.To, "backup", m.Backup, "records", m.Records)
	}
	key, err := st.LeaseKey()
	if err != nil {
		st.Close()
		return nil, err
	}
	c.signer = newSigner(key, cmp.Or(opts.RestartGrace, DefaultRestartGrace))
	if err := c.bindFPClass(ctx, dir); err != nil {
		st.Close()
		return nil, err
	}
	c.sched = sched.New(sched.Options{Clock: opts.Clock, LeaseTTL: opts.LeaseTTL, MaxDeliveries: opts.MaxDeliveries,
		MaxLostDeliveries: opts.MaxLostDeliveries, SpeculateAfter: opts.SpeculateAfter, OnLeaseEnd: c.leaseEnded})
	c.writer = st.NewWriter(opts.Writer, c.committed)
	recs, err := storeconv.Sweeps(st)
	if err != nil {
		c.Close()
		return nil, err
	}
	for _, rec := range recs {
		if _, err := c.load(rec); err != nil {
			c.Close()
			return nil, err
		}
	}
	c.ticker.Add(1)
	go c.tick(c.sched.LeaseTTL() / 10)
	c.obs.Opened(c)
	return c, nil
}

func (c *Coordinator) tick(every time.Duration) {
	defer c.ticker.Done()
	t := time.NewTicker(max(every, 10*time.Millisecond))
	defer t.Stop()
	for {
		select {
		case <-c.stop:
			return
		case <-t.C:
			c.sched.Tick()
		}
	}
}

// Close stops the coordinator after committing queued results: the
// lease ticker, then the store's writer, then the store. It may be called
// more than once, also concurrently; every call waits for the first to
// finish and returns its error.
func (c *Coordinator) Close() error {
	c.closeOnce.Do(func() {
		close(c.stop)
		c.ticker.Wait()
		if c.writer != nil {
			c.writer.Close()
		}
		c.closeErr = c.st.Close()
	})
	return c.closeErr
}

// Store returns the coordinator's store.
func (c *Coordinator) Store() *store.Store { return c.st }

// Scheduler returns the coordinator's scheduler.
func (c *Coordinator) Scheduler() *sched.Scheduler { return c.sched }

// Flush waits until every accepted result is committed.
func (c *Coordinator) Flush(ctx context.Context) error { return c.writer.Flush(ctx) }

// load builds the scheduler state of a stored sweep from its stored
// results and failures.
func (c *Coordinator) load(rec storeconv.Record) (*sched.Sweep, error) {
	spec := rec.Spec
	info := &sweepInfo{spec: spec, wire: wire.SpecToProto(spec)}
	for _, sc := range rec.Stored.Scenarios {
		info.draws = append(info.draws, store.NewDrawKey(spec.Seed, sc))
	}
	for _, p := range rec.Stored.Pipelines {
		info.pipes = append(info.pipes, store.NewPipeKey(p))
	}
	sw := sched.NewSweep(rec.ID, spec.Name, len(spec.Scenarios), spec.UnitCount(), len(spec.Pipelines))
	sw.Data = info
	requireMethods(sw, spec)
	err := c.st.ScanSweep(rec.ID, rec.Stored, store.ScanFuncs{Done: sw.MarkDone, Partial: sw.MarkPartial, Failed: sw.MarkFailed})
	if err != nil {
		return nil, fmt.Errorf("load sweep %s: %w", rec.ID, err)
	}
	sw, _ = c.sched.Add(sw)
	if rec.Cancelled {
		if err := c.sched.Cancel(rec.ID); err != nil {
			return nil, err
		}
	}
	st, _ := c.sched.Status(rec.ID)
	c.log.Info("loaded sweep", "sweep", short(rec.ID), "name", spec.Name, "jobs", st.Jobs, "done", st.Done,
		"failed", st.Failed, "cancelled", rec.Cancelled)
	return sw, nil
}

// Submit registers a sweep, or resumes it if it was submitted before
// (retrying its failed jobs, see Retry, and undoing a cancel). Results
// already stored for any job of the sweep, from whatever sweep, are
// reused.
//
// The sweep is validated first (grid.Sweep.Check), whoever built it;
// errors wrap grid.ErrInvalid.
//
// External methods are bound first (see Options.Methods): a name that no
// methods file of the coordinator lists and no connected worker offers
// is refused (ErrPrecondition), naming it.
func (c *Coordinator) Submit(ctx context.Context, spec *grid.Sweep) (sched.Status, error) {
	if err := spec.Check(); err != nil {
		return sched.Status{}, err
	}
	spec, err := c.bindMethods(spec)
	if err != nil {
		return sched.Status{}, err
	}
	id := spec.Hash()
	if _, err := c.sched.Status(id); err != nil && spec.IsTable() {
		if err := c.checkTable(ctx, spec); err != nil {
			return sched.Status{}, err
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if st, err := c.sched.Status(id); err == nil {
		if st.Cancelled {
			if err := c.st.SetCancelled(id, false); err != nil {
				return sched.Status{}, err
			}
		}
		retry := st.Failed > 0 // closed or not, cancelled or not
		if err := c.sched.Resume(id, retry); err != nil {
			return sched.Status{}, err
		}
		if retry {
			if err := c.clearFailures(context.Background(), id); err != nil {
				return sched.Status{}, err
			}
		}
		return c.sched.Status(id)
	}
	rec := storeconv.Record{ID: id, Spec: spec, Stored: storeconv.ToStore(spec), Submitted: time.Now().UTC()}
	if err := c.st.PutSweep(store.SweepRecord{ID: id, Spec: rec.Stored, Submitted: rec.Submitted}); err != nil {
		return sched.Status{}, err
	}
	if _, err := c.load(rec); err != nil {
		return sched.Status{}, err
	}
	return c.sched.Status(id)
}

// resolve turns a sweep id, unique id prefix or sweep name (the latest
// submitted of that name) into a loaded sweep id.
func (c *Coordinator) resolve(arg string) (string, error) {
	rec, _, err := c.st.Resolve(arg)
	if err != nil {
		return "", err
	}
	return rec.ID, nil
}

// Status returns the progress of one sweep (id, unique prefix or name).
func (c *Coordinator) Status(id string) (sched.Status, error) {
	full, err := c.resolve(id)
	if err != nil {
		return sched.Status{}, err
	}
	return c.sched.Status(full)
}

// Cancel stops a sweep (id, unique prefix or name) and revokes its leases.
func (c *Coordinator) Cancel(id string) (sched.Status, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	full, err := c.resolve(id)
	if err != nil {
		return sched.Status{}, err
	}
	if err := c.st.SetCancelled(full, true); err != nil {
		return sched.Status{}, err
	}
	if err := c.sched.Cancel(full); err != nil {
		return sched.Status{}, err
	}
	return c.sched.Status(full)
}

func (c *Coordinator) info(id string) (*sweepInfo, error) {
	sw, err := c.sched.Sweep(id)
	if err != nil {
		return nil, err
	}
	return sw.Data.(*sweepInfo), nil
}

// onFailed stores a job that reached its delivery limit (called under the
// scheduler's lock; Enqueue does not block).
func (c *Coordinator) onFailed(sweepID string, job int, msg string) {
	c.log.Warn("job failed", "sweep", short(sweepID), "job", job, "error", msg)
	if err := c.writer.Enqueue(store.Record{SweepID: sweepID, Job: job, Failure: msg}); err == nil {
		c.backlog.add(1)
	} else {
		c.log.Error("cannot queue failure", "error", err)
	}
}

// committed is the writer's callback after each batch. The writer calls
// it from its goroutine with no lock of its own held (see store.Writer),
// and it holds none while it calls the scheduler: backlog.done takes
// backlog.mu only after the scheduler calls, so the lock order
// sched.mu → Writer.mu / backlog.mu (see sched.Scheduler) is kept.
func (c *Coordinator) committed(recs []store.Record, err error) {
	c.obs.Committed(len(recs), c.commit.since(), err)
	defer c.backlog.done(len(recs))
	if err != nil {
		c.log.Error("store write failed; jobs queued again", "records", len(recs), "error", err)
	}
	for _, r := range recs {
		switch {
		case r.Failure != "":
		case err == nil:
			c.sched.Committed(r.SweepID, r.Job)
		default:
			c.sched.CommitFailed(r.SweepID, r.Job, err)
		}
	}
}

// serviceNames are the names the health service reports SERVING for.
var serviceNames = []string{"", pb.SweepService_ServiceDesc.ServiceName, pb.WorkService_ServiceDesc.ServiceName}

// GRPCServer returns a gRPC server with both misslab.v1 services, server
// reflection and the standard health service registered.
func (c *Coordinator) GRPCServer() *grpc.Server {
	srv := grpc.NewServer(append([]grpc.ServerOption{
		grpc.MaxRecvMsgSize(wire.MaxMessageBytes), grpc.MaxSendMsgSize(wire.MaxMessageBytes), // a sweep of many scenarios is one Submit
		grpc.ChainUnaryInterceptor(append([]grpc.UnaryServerInterceptor{unaryErrors}, c.opts.Unary...)...),
		grpc.ChainStreamInterceptor(append([]grpc.StreamServerInterceptor{streamErrors}, c.opts.Stream...)...),
		grpc.KeepaliveParams(keepalive.ServerParameters{Time: 15 * time.Second, Timeout: 10 * time.Second}),
		grpc.KeepaliveEnforcementPolicy(keepalive.EnforcementPolicy{MinTime: 5 * time.Second, PermitWithoutStream: true}),
	}, c.opts.GRPCOptions...)...)
	pb.RegisterSweepServiceServer(srv, &sweepService{c: c})
	pb.RegisterWorkServiceServer(srv, &workService{c: c})
	hs := health.NewServer()
	for _, name := range serviceNames {
		hs.SetServingStatus(name, healthpb.HealthCheckResponse_SERVING)
	}
	healthpb.RegisterHealthServer(srv, hs)
	reflection.Register(srv)
	return srv
}

// Serve serves gRPC on lis until ctx ends, then stops at once: worker
// streams are cut (workers keep their jobs and reconnect) and accepted
// results are committed by Close.
func (c *Coordinator) Serve(ctx context.Context, lis net.Listener) error {
	srv := c.GRPCServer()
	served := make(chan error, 1)
	go func() { served <- srv.Serve(lis) }()
	select {
	case err := <-served:
		return err
	case <-ctx.Done():
	}
	srv.Stop()
	if err := <-served; err != nil && !errors.Is(err, grpc.ErrServerStopped) {
		return err
	}
	return nil
}

func short(id string) string {
	if len(id) > 12 {
		return id[:12]
	}
	return id
}
