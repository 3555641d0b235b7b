package sched

import (
	"slices"
	"time"
)

// Worker is one connected worker stream. ID, capacity, caps and notify
// are fixed at Connect; every other field is guarded by Scheduler.mu.
type Worker struct {
	ID       string
	capacity int
	caps     map[string]struct{} // capabilities offered; nil: none
	leases   map[uint64]*lease
	notify   chan struct{}
	cancels  []uint64 // revoked tokens not yet told to the worker
	gone     bool
	// silent is set when a lease of the worker expires (it stopped
	// heartbeating: cut off, hung, or stopped) and cleared by its next
	// message. A silent worker gets no new leases, so jobs are not handed
	// one after another into a stream nobody reads.
	silent bool
	// grantCredit says how many more leases it may be granted now
	// (credit.go).
	grantCredit
}

// Capacity returns how many leases the worker may hold at once: what it
// asked for at Connect, at least 1 and at most Options.MaxCapacity.
func (w *Worker) Capacity() int { return w.capacity }

// heardLocked clears silent: the worker spoke. Call with s.mu held.
func (w *Worker) heardLocked() {
	if w.silent {
		w.silent = false
		w.wake()
	}
}

// Notify returns a channel that receives when the worker may get new
// leases or has revoked tokens to hear about (see TakeCancels).
func (w *Worker) Notify() <-chan struct{} { return w.notify }

// wake tells the worker's stream that it may have leases or revocations
// to take; it never blocks and needs no lock (a one-slot channel).
func (w *Worker) wake() {
	select {
	case w.notify <- struct{}{}:
	default:
	}
}

// cancelLocked queues token to be told to the worker as revoked
// (nothing once its stream is gone).
func (w *Worker) cancelLocked(token uint64) {
	if !w.gone {
		w.cancels = append(w.cancels, token)
		w.wake()
	}
}

// Connect registers a worker stream that wants to hold up to capacity
// leases at once (at least 1, at most Options.MaxCapacity) and offers
// caps (capability strings, opaque to the scheduler; duplicates and
// empty strings are ignored): it is leased only jobs whose missing
// pipelines need nothing else (see Sweep.Require). It starts with the
// credit of Options.GrantBurst leases. Only the new worker is woken: its
// arrival makes no job runnable for another worker.
func (s *Scheduler) Connect(id string, capacity int, caps ...string) *Worker {
	w := &Worker{ID: id, capacity: min(max(capacity, 1), s.opts.MaxCapacity), caps: capSet(caps),
		leases: map[uint64]*lease{}, notify: make(chan struct{}, 1)}
	s.mu.Lock()
	defer s.mu.Unlock()
	w.credit, w.creditAt = float64(s.opts.GrantBurst), s.opts.Clock.Now()
	s.workers[w] = struct{}{}
	for c := range w.caps {
		s.offers[c]++
	}
	w.wake()
	return w
}

// Disconnect ends a worker stream: its leases end at once as lost
// deliveries (EndDisconnected) and their jobs are queued again (or fail
// at MaxLostDeliveries); the worker may adopt them from a new stream
// (Adopt).
// Its capabilities are no longer offered (Offers, Status.Waiting).
func (s *Scheduler) Disconnect(w *Worker) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.workers[w]; ok {
		delete(s.workers, w)
		for c := range w.caps {
			if s.offers[c]--; s.offers[c] <= 0 {
				delete(s.offers, c)
			}
		}
	}
	w.gone = true
	for _, l := range w.leases {
		s.endLeaseLocked(l, EndDisconnected, "worker "+w.ID+" disconnected")
	}
}

// TakeCancels returns and forgets the tokens revoked since the last call.
func (s *Scheduler) TakeCancels(w *Worker) []uint64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := w.cancels
	w.cancels = nil
	return c
}

// Lease grants w new leases up to its capacity and its grant credit
// (see Options.GrantBurst): jobs queued again first, then undispatched
// jobs, sweep by sweep in load order; when no sweep has either, a
// second, speculative lease on a job another worker holds (first valid
// result wins; see speculateLocked). A worker whose lease expired gets
// nothing until it is heard from again (Heartbeat, Complete, Fail or
// Release). Only jobs whose missing pipelines need no capability w lacks
// are granted; a worker lacking some of a sweep's needs takes only its
// partly stored jobs that it can run, leaving the rest to capable
// workers.
func (s *Scheduler) Lease(w *Worker) []Grant {
	s.mu.Lock()
	defer s.mu.Unlock()
	if w.gone || w.silent {
		return nil
	}
	now := s.opts.Clock.Now()
	s.refillLocked(w, now)
	var out []Grant
	for _, sw := range s.sweeps {
		capable := w.covers(sw.need.all)
		for w.roomLocked() && !sw.cancelled {
			var j int32
			if capable {
				j = sw.nextJob()
			} else {
				j = sw.nextLimited(w)
			}
			if j < 0 {
				break
			}
			out = append(out, s.spendLocked(w, sw, j))
		}
	}
	for _, sw := range s.sweeps {
		if w.roomLocked() {
			out = s.speculateLocked(w, sw, now, out)
		}
	}
	w.starved = len(w.leases) < w.capacity && !w.roomLocked()
	return out
}

// speculateLocked adds speculative leases on the stragglers of sw if it is
// exhausted: jobs held by exactly one other worker for at least twice
// the sweep's mean job time (so there must be a finished job to compare
// with) that w can run, longest-running first.
func (s *Scheduler) speculateLocked(w *Worker, sw *Sweep, now time.Time, out []Grant) []Grant {
	slow, ok := s.slowAfterLocked(sw)
	if !ok {
		return out
	}
	for len(sw.byAge) > 0 && sw.byAge[0].ended {
		sw.byAge[0] = nil
		sw.byAge = sw.byAge[1:]
	}
	capable := w.covers(sw.need.all)
	// grantLocked appends to sw.byAge: the walk sees the leases of before.
	for _, l := range sw.byAge {
		if !w.roomLocked() || now.Sub(l.granted) < slow {
			break // full, or the rest are younger
		}
		if f := sw.flights[l.job]; !l.ended && l.w != w && f != nil && len(f.leases) == 1 && !f.committing &&
			(capable || w.covers(sw.jobNeeds(l.job))) {
			out = append(out, s.spendLocked(w, sw, l.job))
		}
	}
	return out
}

// Renewal is a lease that a heartbeat extended.
type Renewal struct {
	Token    uint64
	SweepID  string
	Job      int
	Deadline time.Time // now + LeaseTTL
}

// Heartbeat extends the leases of w named by tokens to now + LeaseTTL
// and returns them (renewed, in the order named) and the tokens that are
// not current leases of w (stale: the worker should drop them).
func (s *Scheduler) Heartbeat(w *Worker, tokens []uint64) (renewed []Renewal, stale []uint64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	w.heardLocked()
	deadline := s.opts.Clock.Now().Add(s.opts.LeaseTTL)
	for _, t := range tokens {
		if l := s.leases[t]; l != nil && l.w == w {
			l.deadline = deadline
			renewed = append(renewed, Renewal{Token: t, SweepID: l.sw.ID, Job: int(l.job), Deadline: deadline})
		} else {
			stale = append(stale, t)
		}
	}
	return renewed, stale
}

// Complete reports a result for the lease token of w on (sweepID, job).
// check validates the result against the pipelines the lease asked for
// (nil: all); a check error ends the lease as a failed delivery and
// returns Invalid. On Accepted the job's other leases are revoked and the
// caller must store the result, then call Committed or CommitFailed.
func (s *Scheduler) Complete(w *Worker, token uint64, sweepID string, job int, check func(pipes []int) error) (Outcome, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	w.heardLocked()
	l, o := s.currentLocked(w, token, sweepID, job)
	if l == nil {
		return o, nil
	}
	if check != nil {
		if err := check(l.pipes); err != nil {
			s.endLeaseLocked(l, EndFailed, "invalid result: "+err.Error())
			return Invalid, err
		}
	}
	s.earnLocked(w)
	f := l.sw.flights[l.job]
	f.committing = true
	l.sw.durSum += s.opts.Clock.Now().Sub(l.granted)
	l.sw.durN++
	for _, other := range slices.Clone(f.leases) {
		if other == l {
			s.dropLeaseLocked(l, EndCompleted, "")
		} else {
			s.dropLeaseLocked(other, EndRevoked, "another lease of the job delivered its result")
		}
	}
	return Accepted, nil
}

// Fail reports that the job of a current lease failed as a whole (msg
// says why): a failed delivery.
func (s *Scheduler) Fail(w *Worker, token uint64, sweepID string, job int, msg string) Outcome {
	s.mu.Lock()
	defer s.mu.Unlock()
	w.heardLocked()
	l, o := s.currentLocked(w, token, sweepID, job)
	if l == nil {
		return o
	}
	s.endLeaseLocked(l, EndFailed, msg)
	return Accepted
}

// currentLocked returns the lease if token is a current lease of w on
// the job, else nil and why not.
func (s *Scheduler) currentLocked(w *Worker, token uint64, sweepID string, job int) (*lease, Outcome) {
	if l := s.leases[token]; l != nil && l.w == w && l.sw.ID == sweepID && int(l.job) == job {
		return l, Accepted
	}
	sw := s.byID[sweepID]
	switch {
	case sw == nil || job < 0 || job >= sw.n:
		return nil, Invalid
	case sw.done.has(job) || sw.flights[int32(job)] != nil && sw.flights[int32(job)].committing:
		return nil, Duplicate
	}
	return nil, Stale
}

// Release hands leases back without counting failed or lost deliveries
// (a draining worker); their jobs are queued again.
func (s *Scheduler) Release(w *Worker, tokens []uint64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	w.heardLocked()
	for _, t := range tokens {
		if l := s.leases[t]; l != nil && l.w == w {
			s.endLeaseLocked(l, EndReleased, "released")
		}
	}
}

// Committed records that the accepted result of a job is stored.
func (s *Scheduler) Committed(sweepID string, job int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	sw := s.byID[sweepID]
	if sw == nil || job < 0 || job >= sw.n {
		return
	}
	j := int32(job)
	delete(sw.flights, j)
	delete(sw.partial, j)
	if sw.lastErrJob == j {
		sw.lastErr, sw.lastErrJob = "", -1 // the error's job succeeded after all
	}
	if !sw.done.has(job) {
		sw.done.set(job)
		sw.nDone++
		if sw.failed.has(job) {
			sw.unmarkFailed(j)
		}
	}
}

// CommitFailed records that storing an accepted result failed: the job
// is queued again (not counted against its delivery limit).
func (s *Scheduler) CommitFailed(sweepID string, job int, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	sw := s.byID[sweepID]
	if sw == nil || job < 0 || job >= sw.n {
		return
	}
	sw.lastErr, sw.lastErrJob = err.Error(), int32(job)
	if f := sw.flights[int32(job)]; f != nil && f.committing {
		f.committing = false
		if len(f.leases) == 0 {
			s.requeueLocked(sw, int32(job), f)
		}
	}
}
