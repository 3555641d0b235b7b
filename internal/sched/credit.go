package sched

import "time"

// Grant credit. A worker stream may be granted only the leases it has
// credit for: Options.GrantBurst when it connects (its first batch),
// then one more for each result accepted from it and Options.GrantRate
// more per second, never more than GrantBurst in hand. A worker that
// delivers results gets a lease back for each and is never held back,
// whatever its speed; a stream that takes leases and drops them, or
// churns through jobs by reporting errors, is slowed to GrantRate once
// its first batch is spent. Adopted leases (a reconnecting worker's own)
// cost nothing.

// grantCredit is a worker's grant credit, guarded by Scheduler.mu.
type grantCredit struct {
	credit   float64   // leases the worker may be granted now
	creditAt time.Time // when credit was last refilled
	// starved: the worker has room under its capacity but ran out of
	// credit; Tick wakes it once it has earned a lease.
	starved bool
}

// roomLocked reports whether w may be granted one more lease now: it
// holds fewer than its capacity and has a lease's credit. Call with s.mu
// held.
func (w *Worker) roomLocked() bool { return len(w.leases) < w.capacity && w.credit >= 1 }

// refillLocked adds the credit w has earned with time since its last
// refill, up to GrantBurst. Call with s.mu held.
func (s *Scheduler) refillLocked(w *Worker, now time.Time) {
	if d := now.Sub(w.creditAt); d > 0 {
		w.credit = min(float64(s.opts.GrantBurst), w.credit+d.Seconds()*s.opts.GrantRate)
		w.creditAt = now
	}
}

// earnLocked credits w with a lease for a result accepted from it. Call
// with s.mu held.
func (s *Scheduler) earnLocked(w *Worker) {
	w.credit = min(float64(s.opts.GrantBurst), w.credit+1)
}

// spendLocked grants w a lease of job, paid with a lease's credit. Call
// with s.mu held.
func (s *Scheduler) spendLocked(w *Worker, sw *Sweep, job int32) Grant {
	w.credit--
	return s.grantLocked(w, sw, job)
}

// wakeStarvedLocked wakes the workers that ran out of credit with room
// to spare and have earned a lease since (see Tick). Call with s.mu held.
func (s *Scheduler) wakeStarvedLocked(now time.Time) {
	for w := range s.workers {
		if !w.starved {
			continue
		}
		if s.refillLocked(w, now); w.credit >= 1 {
			w.starved = false
			w.wake()
		}
	}
}
