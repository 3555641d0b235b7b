package sched

import (
	"cmp"
	crand "crypto/rand"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"time"
)

// Errors returned by the scheduler.
var (
	// ErrUnknownSweep: no sweep with that id is loaded.
	ErrUnknownSweep = errors.New("sched: unknown sweep")
)

// Options configure a Scheduler. Zero fields take the defaults.
type Options struct {
	Clock Clock // default RealClock()
	// LeaseTTL is how long a lease lives without a heartbeat; default 30 s.
	LeaseTTL time.Duration
	// MaxDeliveries is how many deliveries of a job may end in an error
	// of the job itself (the worker reported the job failed, or sent a
	// result that failed its check) before the job is marked failed with
	// its last error; default 3.
	MaxDeliveries int
	// MaxLostDeliveries is how many deliveries of a job may be lost with
	// their worker (its stream broke, or its lease expired without a
	// heartbeat) before the job is marked failed; default
	// DefaultMaxLostDeliveries. A lost delivery says little about the job:
	// every lease of a killed, preempted or cut-off worker is lost with
	// it, and any client that can open a stream can take leases and drop
	// them. So the bound is larger than MaxDeliveries, large enough that a
	// kill now and then never fails a job, yet finite, so that a job that
	// brings down every worker it reaches still ends.
	MaxLostDeliveries int
	// MaxCapacity caps the leases one worker stream may hold at once,
	// whatever capacity it asks for at Connect; default DefaultMaxCapacity.
	MaxCapacity int
	// GrantBurst is how many leases a worker stream may be granted
	// without earning them: its first batch, and the most credit it can
	// build up; default DefaultGrantBurst. Beyond it a stream earns one
	// lease for each result accepted from it and GrantRate leases per
	// second, so that one stream cannot take thousands of leases and drop
	// them, nor churn through jobs by reporting errors, while a worker
	// that delivers is never held back.
	GrantBurst int
	// GrantRate is how many leases per second a worker stream earns on
	// top of one per accepted result (see GrantBurst); default
	// DefaultGrantRate. A stream that has run out of credit is woken by
	// Tick once it has earned a lease.
	GrantRate float64
	// SpeculateAfter is the least time a lease must have run before the
	// job may be copied to an idle worker, on top of the rule that it has
	// run twice the sweep's mean job time; default 0.
	SpeculateAfter time.Duration
	// OnLeaseEnd, if set, is called (under the scheduler's lock: it must
	// not block or call back into the scheduler, and no lock it takes may
	// be held by any caller of the scheduler; see Scheduler.mu) whenever a
	// lease ends, with why, and when a job reaches one of its delivery
	// limits (EndDeliveryLimit), so that the caller can store the failure
	// and count outcomes.
	OnLeaseEnd func(LeaseEnd)
}

// Defaults of Options.
const (
	DefaultMaxLostDeliveries = 10
	// DefaultMaxCapacity is far above what a worker asks for (--parallel
	// plus as many prefetched: 128 for 64 cores) on any machine sold.
	DefaultMaxCapacity = 1024
	// DefaultGrantBurst gives a worker asking for up to 256 leases (128
	// cores with prefetch) all of them at once.
	DefaultGrantBurst = 256
	DefaultGrantRate  = 64 // leases per second
)

// Outcome says what became of a result.
type Outcome int

// Outcomes of Complete and Fail.
const (
	Accepted  Outcome = iota + 1 // the lease was current; the result is being stored
	Duplicate                    // the job already has a result (or one being stored)
	Stale                        // the token is not a current lease of this worker for this job
	Invalid                      // unknown sweep, job out of range, or a malformed result
)

// String returns the outcome's lower-case name.
func (o Outcome) String() string {
	return [...]string{"?", "accepted", "duplicate", "stale", "invalid"}[o]
}

// Scheduler leases jobs to workers. All methods are safe for concurrent use.
type Scheduler struct {
	opts Options

	// mu guards all of the scheduler's state (see the package doc). Lock
	// order: mu is taken before the locks that Options.OnLeaseEnd takes
	// while it is held; in the coordinator (internal/server), that
	// callback enqueues into the store's writer (store.Writer.mu) and
	// counts into the results backlog (backlog.mu), so the order is
	// mu → Writer.mu and mu → backlog.mu. Neither of those is ever held
	// while calling into the scheduler: the writer calls its commit
	// callback, which calls Committed and CommitFailed, after releasing
	// Writer.mu, and the backlog's holders (add, done, wait) call nothing.
	mu      sync.Mutex
	sweeps  []*Sweep
	byID    map[string]*Sweep
	leases  map[uint64]*lease
	workers map[*Worker]struct{}
	offers  map[string]int // capability → connected workers offering it
	tokens  *rand.ChaCha8  // lease tokens: unguessable, fresh per process
	// vouched holds the earlier-life tokens adopted (AdoptVouched), each
	// until its proof expires.
	vouched map[uint64]time.Time
}

// lease is one delivery of a job to a worker.
type lease struct {
	token    uint64
	sw       *Sweep
	job      int32
	w        *Worker
	granted  time.Time
	deadline time.Time
	pipes    []int // nil: all pipelines
	ended    bool  // dropped (see Sweep.byAge)
}

// Grant is a lease handed to a worker.
type Grant struct {
	Sweep     *Sweep
	Job       int
	Scenario  int
	Rep       int
	Pipelines []int // pipeline indices to run; nil means all
	Token     uint64
	Deadline  time.Time
}

// New returns an empty scheduler.
func New(opts Options) *Scheduler {
	if opts.Clock == nil {
		opts.Clock = RealClock()
	}
	if opts.LeaseTTL <= 0 {
		opts.LeaseTTL = 30 * time.Second
	}
	if opts.MaxDeliveries <= 0 {
		opts.MaxDeliveries = 3
	}
	if opts.MaxLostDeliveries <= 0 {
		opts.MaxLostDeliveries = DefaultMaxLostDeliveries
	}
	if opts.MaxCapacity <= 0 {
		opts.MaxCapacity = DefaultMaxCapacity
	}
	if opts.GrantBurst <= 0 {
		opts.GrantBurst = DefaultGrantBurst
	}
	if opts.GrantRate <= 0 {
		opts.GrantRate = DefaultGrantRate
	}
	// Tokens are drawn from a generator seeded by the operating system, so
	// that a client cannot guess another worker's token (Adopt trusts a
	// token as proof) and a restarted coordinator never honours a token of
	// its previous life.
	var seed [32]byte
	_, _ = crand.Read(seed[:]) // never fails (crypto/rand.Read panics instead)
	return &Scheduler{opts: opts, byID: map[string]*Sweep{}, leases: map[uint64]*lease{},
		workers: map[*Worker]struct{}{}, offers: map[string]int{}, tokens: rand.NewChaCha8(seed),
		vouched: map[uint64]time.Time{}}
}

// LeaseTTL returns the lease lifetime in use.
func (s *Scheduler) LeaseTTL() time.Duration { return s.opts.LeaseTTL }

// Now returns the time on the scheduler's clock (Options.Clock), which
// lease deadlines are on.
func (s *Scheduler) Now() time.Time { return s.opts.Clock.Now() }

// Add loads a sweep. If one with the same id is loaded it is returned
// instead, with false. The capabilities the sweep's pipelines require
// (Sweep.Require) are fixed from now on.
func (s *Scheduler) Add(sw *Sweep) (*Sweep, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if old := s.byID[sw.ID]; old != nil {
		return old, false
	}
	sw.prepareNeeds()
	s.sweeps = append(s.sweeps, sw)
	s.byID[sw.ID] = sw
	s.wakeAllLocked()
	return sw, true
}

// Sweep returns the loaded sweep with that id.
func (s *Scheduler) Sweep(id string) (*Sweep, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	sw := s.byID[id]
	if sw == nil {
		return nil, fmt.Errorf("%w: %s", ErrUnknownSweep, id)
	}
	return sw, nil
}

// Status returns the progress of a loaded sweep.
func (s *Scheduler) Status(id string) (Status, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	sw := s.byID[id]
	if sw == nil {
		return Status{}, fmt.Errorf("%w: %s", ErrUnknownSweep, id)
	}
	return sw.status(s.offers), nil
}

// Cancel stops dispatching a sweep and revokes its leases; a later Resume
// starts again where it stopped.
func (s *Scheduler) Cancel(id string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	sw := s.byID[id]
	if sw == nil {
		return fmt.Errorf("%w: %s", ErrUnknownSweep, id)
	}
	sw.cancelled = true
	for j, f := range sw.flights {
		for _, l := range slices.Clone(f.leases) {
			s.dropLeaseLocked(l, EndRevoked, "sweep cancelled")
		}
		if !f.committing {
			delete(sw.flights, j)
		}
	}
	sw.dropQueues()
	sw.rewind()
	return nil
}

// Resume undoes Cancel; with retryFailed, jobs that failed for good are
// dispatched again too (see Retry).
func (s *Scheduler) Resume(id string, retryFailed bool) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	sw := s.byID[id]
	if sw == nil {
		return fmt.Errorf("%w: %s", ErrUnknownSweep, id)
	}
	sw.cancelled = false
	if retryFailed {
		sw.retryFailed()
	}
	s.wakeAllLocked()
	return nil
}

// Retry puts the jobs of sweep id that failed for good back to be
// dispatched, with their delivery counts at zero, and returns how many;
// a cancelled sweep keeps them pending until Resume. It fails with
// ErrUnknownSweep when no such sweep is loaded.
func (s *Scheduler) Retry(id string) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	sw := s.byID[id]
	if sw == nil {
		return 0, fmt.Errorf("%w: %s", ErrUnknownSweep, id)
	}
	n := sw.retryFailed()
	if n > 0 && !sw.cancelled {
		s.wakeAllLocked()
	}
	return n, nil
}

// Tick expires every lease whose deadline has passed, in job order, and
// wakes the workers that ran out of grant credit once they have earned a
// lease (see Options.GrantRate). Call it periodically (a tenth of
// LeaseTTL is plenty). When leases of
// exhausted sweeps have run long enough to be copied (see Lease), it also
// wakes as many workers with room as there are such leases: an idle
// worker is otherwise woken only by its own leases ending, so a tail of
// stragglers would never be copied once every other worker is idle.
func (s *Scheduler) Tick() {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.opts.Clock.Now()
	var expired []*lease
	copyable := 0
	for _, l := range s.leases {
		switch {
		case now.After(l.deadline):
			expired = append(expired, l)
		case s.copyableLocked(l, now):
			copyable++
		}
	}
	slices.SortFunc(expired, func(a, b *lease) int {
		return cmp.Or(cmp.Compare(a.sw.ID, b.sw.ID), cmp.Compare(a.job, b.job), cmp.Compare(a.token, b.token))
	})
	for _, l := range expired {
		l.w.silent = true
		s.endLeaseLocked(l, EndExpired, "lease expired")
	}
	s.wakeStarvedLocked(now)
	s.forgetVouchedLocked(now)
	for w := range s.workers {
		if copyable == 0 {
			break
		}
		if !w.silent && len(w.leases) < w.capacity {
			w.wake()
			copyable--
		}
	}
}

// slowAfterLocked returns how long a lease of sw must have run before its job
// may be copied; ok is false while no lease of sw may be copied at all
// (cancelled, jobs left to dispatch, or no finished job to compare with).
func (s *Scheduler) slowAfterLocked(sw *Sweep) (d time.Duration, ok bool) {
	if sw.cancelled || !sw.exhausted() || sw.durN == 0 {
		return 0, false
	}
	return max(2*sw.durSum/time.Duration(sw.durN), s.opts.SpeculateAfter), true
}

// copyableLocked reports whether l's job may get a speculative lease now
// (by a worker other than l's that can run it).
func (s *Scheduler) copyableLocked(l *lease, now time.Time) bool {
	slow, ok := s.slowAfterLocked(l.sw)
	if !ok || now.Sub(l.granted) < slow {
		return false
	}
	f := l.sw.flights[l.job]
	return f != nil && len(f.leases) == 1 && !f.committing
}

// newTokenLocked returns a fresh random token: non-zero, not a current lease.
func (s *Scheduler) newTokenLocked() uint64 {
	for {
		if t := s.tokens.Uint64(); t != 0 && s.leases[t] == nil {
			return t
		}
	}
}

// grantLocked creates a lease of job for w.
func (s *Scheduler) grantLocked(w *Worker, sw *Sweep, job int32) Grant {
	f := sw.flights[job]
	now := s.opts.Clock.Now()
	l := &lease{token: s.newTokenLocked(), sw: sw, job: job, w: w, granted: now,
		deadline: now.Add(s.opts.LeaseTTL), pipes: sw.pipesFor(job)}
	f.leases = append(f.leases, l)
	s.leases[l.token] = l
	w.leases[l.token] = l
	sw.byAge = append(sw.byAge, l)
	sw.live++
	return Grant{Sweep: sw, Job: int(job), Scenario: int(job) % sw.scenarios, Rep: int(job) / sw.scenarios,
		Pipelines: l.pipes, Token: l.token, Deadline: l.deadline}
}

// dropLeaseLocked forgets a lease without judging the job and reports why it
// ended; an expired or revoked lease's worker is told to abandon it.
func (s *Scheduler) dropLeaseLocked(l *lease, why EndReason, msg string) {
	delete(s.leases, l.token)
	delete(l.w.leases, l.token)
	l.ended = true
	l.sw.live--
	l.sw.pruneAge()
	if f := l.sw.flights[l.job]; f != nil {
		f.leases = slices.DeleteFunc(f.leases, func(x *lease) bool { return x == l })
	}
	if why == EndExpired || why == EndRevoked {
		l.w.cancelLocked(l.token)
	}
	l.w.wake() // it has room for another lease
	s.emitLocked(why, l, msg)
}

// endLeaseLocked ends a lease that produced no result; msg says why. An
// EndFailed delivery counts against MaxDeliveries, an EndExpired or
// EndDisconnected one against MaxLostDeliveries, an EndReleased one
// against nothing. When no other lease of the job is left the job is
// queued again, or marked failed at either limit.
func (s *Scheduler) endLeaseLocked(l *lease, why EndReason, msg string) {
	s.dropLeaseLocked(l, why, msg)
	sw := l.sw
	f := sw.flights[l.job]
	if f == nil {
		return
	}
	switch why {
	case EndFailed:
		f.fails++
	case EndExpired, EndDisconnected:
		f.lost++
		s.orphanLocked(f, l.token)
	}
	if why != EndReleased {
		f.lastErr = msg
		sw.lastErr, sw.lastErrJob = msg, l.job
	}
	if len(f.leases) > 0 || f.committing || f.queued {
		return
	}
	if msg, failed := s.exhaustedLocked(f); failed {
		delete(sw.flights, l.job)
		sw.markFailed(l.job, msg)
		s.emitLocked(EndDeliveryLimit, l, msg)
		return
	}
	s.requeueLocked(sw, l.job, f)
}

// exhaustedLocked reports whether f has reached either delivery limit,
// with the failure to store: the last error, or for lost deliveries how
// many were lost and the last loss.
func (s *Scheduler) exhaustedLocked(f *flight) (msg string, failed bool) {
	switch {
	case f.fails >= s.opts.MaxDeliveries:
		return f.lastErr, true
	case f.lost >= s.opts.MaxLostDeliveries:
		return fmt.Sprintf("deliveries lost with their worker (crashed, stopped or cut off): %d; last: %s", f.lost, f.lastErr), true
	}
	return "", false
}

// requeueLocked queues job again (in its capability class's queue too, if
// any) and wakes the workers that can run it.
func (s *Scheduler) requeueLocked(sw *Sweep, job int32, f *flight) {
	if sw.cancelled {
		delete(sw.flights, job)
		return
	}
	f.queued = true
	sw.queue = append(sw.queue, job)
	s.wakeCoveringLocked(sw.enqueueClass(job))
}

// wakeAllLocked tells every connected worker that there may be work.
func (s *Scheduler) wakeAllLocked() {
	for w := range s.workers {
		w.wake()
	}
}

// Statuses returns the progress of every loaded sweep in load order.
func (s *Scheduler) Statuses() []Status {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Status, len(s.sweeps))
	for i, sw := range s.sweeps {
		out[i] = sw.status(s.offers)
	}
	return out
}

// Idle reports whether no lease is outstanding and nothing is being stored.
func (s *Scheduler) Idle() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.leases) > 0 {
		return false
	}
	for _, sw := range s.sweeps {
		for _, f := range sw.flights {
			if f.committing {
				return false
			}
		}
	}
	return true
}
