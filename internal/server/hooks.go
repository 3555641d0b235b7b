package server

import (
	"context"
	"errors"
	"net"
	"sync/atomic"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"

	"github.com/misslab/misslab/internal/sched"
	pb "github.com/misslab/misslab/proto/misslab/v1"
)

// Observer hears what a coordinator does, for metrics. Its methods are
// called from many goroutines, some under the scheduler's or the store
// writer's hot path: they must be fast and must not block or call back
// into the coordinator (except Opened, which may keep c to read progress
// later, e.g. c.Scheduler().Statuses() at scrape time).
type Observer interface {
	// Opened is called once the coordinator has loaded its stored sweeps.
	Opened(c *Coordinator)
	// WorkerConnected and WorkerDisconnected bracket one worker stream.
	WorkerConnected(id string)
	WorkerDisconnected(id string)
	// Granted counts leases handed out (new jobs, retries, speculative
	// copies and leases rebound after a reconnection).
	Granted(sweepID string, n int)
	// Judged is called for every result a worker sends, with its
	// outcome: accepted, duplicate (the job already has a result), stale
	// (the lease had ended) or invalid.
	Judged(sweepID string, o sched.Outcome)
	// LeasesEnded counts leases that ended without a result, as the
	// scheduler reports them (under its lock; see sched.LeaseEnd):
	// "expired" (no heartbeat within the lease time), "disconnected"
	// (the worker's stream broke while it held them) or "released" (a
	// draining worker handed them back).
	LeasesEnded(reason string, n int)
	// Committed is called after each batch of records is written to the
	// store, with the time its last transaction took (commit and fsync)
	// and the error, if every retry failed.
	Committed(records int, took time.Duration, err error)
}

type nopObserver struct{}

func (nopObserver) Opened(*Coordinator)                 {}
func (nopObserver) WorkerConnected(string)              {}
func (nopObserver) WorkerDisconnected(string)           {}
func (nopObserver) Granted(string, int)                 {}
func (nopObserver) Judged(string, sched.Outcome)        {}
func (nopObserver) LeasesEnded(string, int)             {}
func (nopObserver) Committed(int, time.Duration, error) {}

// commitClock times store transactions for Observer.Committed: the
// store's write hook marks the start of each transaction, and the
// writer's callback, which runs right after the commit on the same
// goroutine, reads the time since.
type commitClock struct {
	start atomic.Int64 // unix nanoseconds of the last transaction start
	next  func() error // the caller's own write hook
}

func (cc *commitClock) hook() error {
	cc.start.Store(time.Now().UnixNano())
	if cc.next != nil {
		return cc.next()
	}
	return nil
}

func (cc *commitClock) since() time.Duration {
	return time.Duration(time.Now().UnixNano() - cc.start.Load())
}

// ServeHealth serves only the standard gRPC health service, in plaintext
// and without credentials, on lis until ctx ends: a port for Kubernetes
// grpc probes, which cannot speak TLS, when the main port requires it.
// Every service of the coordinator reports SERVING while it runs.
func ServeHealth(ctx context.Context, lis net.Listener) error {
	srv := grpc.NewServer()
	hs := health.NewServer()
	for _, name := range serviceNames {
		hs.SetServingStatus(name, healthpb.HealthCheckResponse_SERVING)
	}
	healthpb.RegisterHealthServer(srv, hs)
	served := make(chan error, 1)
	go func() { served <- srv.Serve(lis) }()
	select {
	case err := <-served:
		return err
	case <-ctx.Done():
	}
	hs.Shutdown()
	srv.Stop()
	if err := <-served; err != nil && !errors.Is(err, grpc.ErrServerStopped) {
		return err
	}
	return nil
}

// leaseEnded is the scheduler's OnLeaseEnd, called under its lock (so it
// must not block or call back into it): it stores the jobs that reached
// their delivery limit and counts the leases that expired or were lost
// with their worker's stream.
func (c *Coordinator) leaseEnded(e sched.LeaseEnd) {
	switch e.Reason {
	case sched.EndDeliveryLimit:
		c.onFailed(e.SweepID, e.Job, e.Msg)
	case sched.EndExpired:
		c.obs.LeasesEnded("expired", 1)
		c.log.Warn("lease expired without a heartbeat; its job goes to another worker", "worker", e.Worker,
			"sweep", short(e.SweepID), "job", e.Job)
	case sched.EndDisconnected:
		c.obs.LeasesEnded("disconnected", 1)
	case sched.EndReleased:
		c.obs.LeasesEnded("released", 1)
		c.log.Debug("lease handed back by a draining worker; its job is queued again", "worker", e.Worker,
			"sweep", short(e.SweepID), "job", e.Job)
	}
}

// observe reports a judged result; one that is not counted is logged.
func (ws *workStream) observe(r *pb.JobResult, o sched.Outcome, reason string) {
	ws.c.obs.Judged(r.GetSweepId(), o)
	if o != sched.Accepted {
		ws.log.Info("result not counted", "outcome", o.String(), "sweep", short(r.GetSweepId()), "job", r.GetJob(),
			"reason", reason)
	}
}

// handBack releases, without counting lost deliveries, the leases a
// worker still holds when it closes its side of the stream: a draining
// worker does so once it has delivered its results, and any lease left
// was granted while it drained, never run. It first waits (up to 5 s, in
// case a client that stopped reading blocks it) for sendLoop, whose end
// sendDone reports, so that no lease is granted after.
func (ws *workStream) handBack(sendDone <-chan error) {
	select {
	case <-sendDone:
	case <-time.After(5 * time.Second):
		return // the leases end as lost when the stream does
	}
	tokens := ws.c.sched.Held(ws.w)
	if len(tokens) == 0 {
		return
	}
	ws.c.sched.Release(ws.w, tokens)
	ws.log.Debug("worker closed its stream; leases handed back", "leases", len(tokens))
}
