package sched

import (
	"slices"
	"time"
)

// EndReason says why a lease ended, or (EndDeliveryLimit) why a job
// failed for good.
type EndReason int

// Reasons reported through Options.OnLeaseEnd.
const (
	// EndCompleted: the lease's result was accepted (it is being stored).
	EndCompleted EndReason = iota + 1
	// EndFailed: the worker reported the job failed, or sent a result
	// that failed its check; a failed delivery (MaxDeliveries).
	EndFailed
	// EndExpired: no heartbeat within LeaseTTL; a lost delivery
	// (MaxLostDeliveries). The worker is told to drop the job; if it was
	// cut off and reconnects, its token may still be adopted (see Adopt).
	EndExpired
	// EndDisconnected: the worker's stream ended while it held the lease;
	// a lost delivery (MaxLostDeliveries). Its token may still be adopted
	// (see Adopt).
	EndDisconnected
	// EndReleased: the worker handed the lease back (draining); neither
	// a failed nor a lost delivery.
	EndReleased
	// EndRevoked: the sweep was cancelled, another lease of the job
	// delivered its result first, or a reconnected stream adopted the
	// lease. The worker is told to drop the job.
	EndRevoked
	// EndDeliveryLimit: the job reached MaxDeliveries failed deliveries
	// or MaxLostDeliveries lost ones and is marked failed with its last
	// error (LeaseEnd.Msg). Reported once per failure, right after the
	// lease end that caused it.
	EndDeliveryLimit
)

// String returns the reason's lower-case name ("expired",
// "disconnected", "delivery-limit", ...).
func (r EndReason) String() string {
	names := [...]string{"?", "completed", "failed", "expired", "disconnected", "released", "revoked", "delivery-limit"}
	if r < 0 || int(r) >= len(names) {
		return "?"
	}
	return names[r]
}

// LeaseEnd reports the end of a lease, or a job's failure for good.
type LeaseEnd struct {
	Reason  EndReason
	SweepID string
	Job     int
	Worker  string // the ID of the worker that held the lease
	Token   uint64 // the lease's token
	// Msg says why a failed or lost delivery ended, why a lease was
	// revoked, or, for EndDeliveryLimit, the job's failure (what is
	// stored).
	Msg string
}

// emitLocked reports an event to Options.OnLeaseEnd. Call with s.mu held.
func (s *Scheduler) emitLocked(r EndReason, l *lease, msg string) {
	if s.opts.OnLeaseEnd != nil {
		s.opts.OnLeaseEnd(LeaseEnd{Reason: r, SweepID: l.sw.ID, Job: int(l.job), Worker: l.w.ID, Token: l.token, Msg: msg})
	}
}

// Held returns the tokens of the leases w currently holds, in increasing
// order.
func (s *Scheduler) Held(w *Worker) []uint64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]uint64, 0, len(w.leases))
	for t := range w.leases {
		out = append(out, t)
	}
	slices.Sort(out)
	return out
}

// Adopt gives w a fresh lease on a job it says it still holds from an
// earlier stream under token, provided the job is neither done, failed
// nor being stored, its sweep is not cancelled, w offers every
// capability the job's missing pipelines need, and token proves the
// claim: it is either a current lease of that job (the worker reconnected
// before its old stream was noticed dead; that lease is revoked and
// replaced), or the token of a lease of that job that was lost with its
// worker (its stream broke, or it expired without a heartbeat while the
// worker was cut off), with no result committed and no failure for good
// since; each such token is adopted at most once. Any other token (made
// up, of a lease that was released, revoked or ended by the job's error,
// one adopted already, of another job, or issued by an earlier
// coordinator process: tokens are random per process) is refused with
// ok false, and the worker should drop the job. The scheduler alone
// cannot recognise a lease of an earlier coordinator process; the
// coordinator does so with a signed proof and then calls AdoptVouched.
func (s *Scheduler) Adopt(w *Worker, sweepID string, job int, token uint64) (g Grant, ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	sw, f := s.pendingLocked(w, sweepID, job)
	if f == nil || token == 0 {
		return Grant{}, false
	}
	j := int32(job)
	if l := s.leases[token]; l != nil {
		if l.sw != sw || l.job != j {
			return Grant{}, false
		}
		s.dropLeaseLocked(l, EndRevoked, "adopted by a new stream of worker "+w.ID)
	} else if i := slices.Index(f.orphans, token); i >= 0 {
		f.orphans = slices.Delete(f.orphans, i, i+1)
	} else {
		return Grant{}, false
	}
	return s.adoptedLocked(w, sw, j, f), true
}

// AdoptVouched gives w a fresh lease on a job it holds under token, a
// lease of an earlier coordinator process that the scheduler cannot
// check itself, because the caller has verified the lease's proof
// instead (the coordinator signs every lease with a key its store keeps,
// so a restarted coordinator can recognise leases of its earlier life).
// Each token is adopted at most once in this process's life: it is
// remembered until until (when its proof expires; Tick forgets it then).
// The job must still be pending: not done, failed, being stored or of a
// cancelled sweep, and w must offer every capability its missing
// pipelines need; ok is false otherwise, or for a token adopted before,
// and the worker should drop the job. Other leases of the job stay
// (first valid result wins).
func (s *Scheduler) AdoptVouched(w *Worker, sweepID string, job int, token uint64, until time.Time) (g Grant, ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, seen := s.vouched[token]; seen || token == 0 {
		return Grant{}, false
	}
	sw, f := s.pendingLocked(w, sweepID, job)
	if sw == nil {
		return Grant{}, false
	}
	if f == nil { // not dispatched in this process's life yet
		f = &flight{}
		sw.flights[int32(job)] = f
	}
	s.vouched[token] = until
	return s.adoptedLocked(w, sw, int32(job), f), true
}

// forgetVouchedLocked forgets the earlier-life tokens adopted whose
// proofs have expired by now (Tick): no proof can vouch for them again.
// Call with s.mu held.
func (s *Scheduler) forgetVouchedLocked(now time.Time) {
	for t, until := range s.vouched {
		if now.After(until) {
			delete(s.vouched, t)
		}
	}
}

// pendingLocked returns the sweep of a job that w may adopt (w connected, the
// sweep loaded and not cancelled, the job in range, neither done, failed
// nor being stored, and w offers what its missing pipelines need) and its
// flight, nil when the job has not been dispatched; sw is nil when the
// job may not be adopted. Call with s.mu held.
func (s *Scheduler) pendingLocked(w *Worker, sweepID string, job int) (*Sweep, *flight) {
	sw := s.byID[sweepID]
	if w.gone || sw == nil || sw.cancelled || job < 0 || job >= sw.n || sw.done.has(job) || sw.failed.has(job) ||
		!w.covers(sw.jobNeeds(int32(job))) {
		return nil, nil
	}
	f := sw.flights[int32(job)]
	if f != nil && f.committing {
		return nil, nil
	}
	return sw, f
}

// adoptedLocked grants w the adopted job j. Call with s.mu held.
func (s *Scheduler) adoptedLocked(w *Worker, sw *Sweep, j int32, f *flight) Grant {
	f.queued = false // a stale queue entry is skipped by nextJob
	return s.grantLocked(w, sw, j)
}

// orphanLocked remembers the token of a lease of f that was lost with
// its worker (stream broken, lease expired), so that the reconnecting
// worker may adopt the job; only the last MaxLostDeliveries such tokens
// are kept.
func (s *Scheduler) orphanLocked(f *flight, token uint64) {
	if len(f.orphans) >= s.opts.MaxLostDeliveries {
		f.orphans = slices.Delete(f.orphans, 0, 1)
	}
	f.orphans = append(f.orphans, token)
}
