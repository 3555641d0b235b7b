package sched

import (
	"slices"
	"time"
)

// Sweep is the scheduler's view of one sweep: bitmaps and a cursor over
// job indices, with per-job objects only for jobs in flight or queued
// again. Build it with NewSweep and the Mark methods, then hand it to
// Scheduler.Add; after that only the scheduler touches it.
type Sweep struct {
	ID, Name  string
	Data      any // opaque to the scheduler; the server keeps the spec here
	scenarios int
	reps      int
	pipelines int
	n         int

	done, failed   bitset
	nDone, nFailed int
	reused         int
	partial        map[int32][]int // pipelines still missing, for partly stored jobs
	failMsg        map[int32]string

	cursor    int     // jobs below it were dispatched at least once
	queue     []int32 // jobs to dispatch again, FIFO
	flights   map[int32]*flight
	cancelled bool
	need      sweepNeeds // capabilities the pipelines require (see caps.go)

	// lastErr is the last error of any job (a failed or lost delivery, a
	// store write), forgotten when that job's result is committed; lastFail is
	// the error of the job last failed for good. See lastError.
	lastErr     string
	lastErrJob  int32 // −1: none
	lastFail    string
	lastFailJob int32 // −1: none

	// Time from lease to accepted result, to spot stragglers.
	durSum time.Duration
	durN   int

	// byAge lists the sweep's leases in grant order, oldest first, so
	// that speculation finds the longest-running leases without scanning
	// every flight. Ended leases are dropped lazily: from the front when
	// speculation looks, the rest when they outnumber the live ones.
	byAge []*lease
	live  int // leases not ended
}

// flight is a job that has been dispatched and has neither a stored
// result nor failed for good.
type flight struct {
	leases     []*lease
	fails      int    // deliveries that ended in a job error (MaxDeliveries)
	lost       int    // deliveries lost with their worker (MaxLostDeliveries)
	lastErr    string // why the last delivery without a result ended
	queued     bool   // waiting in Sweep.queue
	committing bool   // a result was accepted and is being stored
	// orphans are the tokens of leases that ended with their worker's
	// stream (at most MaxLostDeliveries): the reconnecting worker may adopt
	// the job under one of them (see Scheduler.Adopt).
	orphans []uint64
}

// NewSweep returns the state of a sweep with no stored result: scenarios
// × reps jobs of the given number of pipelines each. Job i is scenario
// i % scenarios, repetition i / scenarios.
func NewSweep(id, name string, scenarios, reps, pipelines int) *Sweep {
	n := scenarios * reps
	return &Sweep{ID: id, Name: name, scenarios: scenarios, reps: reps, pipelines: pipelines, n: n,
		done: newBitset(n), failed: newBitset(n), partial: map[int32][]int{},
		failMsg: map[int32]string{}, flights: map[int32]*flight{}, lastErrJob: -1, lastFailJob: -1}
}

// Jobs returns the number of jobs of the sweep.
func (sw *Sweep) Jobs() int { return sw.n }

// MarkDone records that every pipeline of job is stored (found at load).
func (sw *Sweep) MarkDone(job int) {
	if job >= 0 && job < sw.n && !sw.done.has(job) {
		sw.done.set(job)
		sw.nDone++
		sw.reused++
		delete(sw.partial, int32(job))
	}
}

// MarkPartial records that job only needs the listed pipelines.
func (sw *Sweep) MarkPartial(job int, missing []int) {
	if job >= 0 && job < sw.n && !sw.done.has(job) && len(missing) > 0 {
		sw.partial[int32(job)] = missing
	}
}

// MarkFailed records that job failed for good with msg (found at load).
func (sw *Sweep) MarkFailed(job int, msg string) {
	if job >= 0 && job < sw.n && !sw.done.has(job) && !sw.failed.has(job) {
		sw.markFailed(int32(job), msg)
	}
}

// markFailed records that job failed for good with msg.
// Call with s.mu held.
func (sw *Sweep) markFailed(job int32, msg string) {
	sw.failed.set(int(job))
	sw.nFailed++
	sw.failMsg[job] = msg
	sw.lastFail, sw.lastFailJob = msg, job
}

// unmarkFailed forgets the failure of job (it has a result after all);
// if it was the last failure, the one of the highest failed job stands in.
// Call with s.mu held.
func (sw *Sweep) unmarkFailed(job int32) {
	sw.failed.clear(int(job))
	sw.nFailed--
	delete(sw.failMsg, job)
	if sw.lastFailJob != job {
		return
	}
	sw.lastFail, sw.lastFailJob = "", -1
	for j, msg := range sw.failMsg {
		if j > sw.lastFailJob {
			sw.lastFail, sw.lastFailJob = msg, j
		}
	}
}

// complete reports whether every job is done or failed for good. Call
// with s.mu held.
func (sw *Sweep) complete() bool { return sw.nDone+sw.nFailed == sw.n }

// retryFailed forgets every failure for good, so that dispatch (rewound
// to the first job) finds those jobs again, and returns how many there
// were. Call with s.mu held.
func (sw *Sweep) retryFailed() int {
	n := sw.nFailed
	if n == 0 {
		return 0
	}
	clear(sw.failed)
	sw.nFailed, sw.failMsg = 0, map[int32]string{}
	sw.lastFail, sw.lastFailJob = "", -1
	sw.rewind()
	return n
}

// pipesFor returns the pipelines job still needs; nil means all of them.
// Call with s.mu held.
func (sw *Sweep) pipesFor(job int32) []int { return sw.partial[job] }

// nextJob returns a job to dispatch (queued again first, then the
// cursor), or −1. Call with s.mu held.
func (sw *Sweep) nextJob() int32 {
	if j := sw.popQueue(&sw.queue); j >= 0 {
		return j
	}
	for sw.cursor < sw.n {
		j := nextClear(sw.done, sw.failed, sw.cursor, sw.n)
		sw.cursor = j + 1
		if j >= sw.n {
			break
		}
		if _, busy := sw.flights[int32(j)]; !busy {
			sw.flights[int32(j)] = &flight{}
			return int32(j)
		}
	}
	sw.cursor = sw.n
	return -1
}

// popQueue takes the first job of q that is still queued (entries of
// jobs adopted meanwhile are dropped), or returns −1. Call with s.mu held.
func (sw *Sweep) popQueue(q *[]int32) int32 {
	for len(*q) > 0 {
		j := (*q)[0]
		*q = (*q)[1:]
		if f := sw.flights[j]; f != nil && f.queued {
			f.queued = false
			return j
		}
	}
	*q = nil // let a long drained queue's array go
	return -1
}

// rewind restarts dispatch from the first job (Cancel, Resume).
// Call with s.mu held.
func (sw *Sweep) rewind() {
	sw.cursor = 0
	for _, c := range sw.need.classes {
		c.pos = 0
	}
}

// dropQueues forgets every job queued again (Cancel). Call with s.mu held.
func (sw *Sweep) dropQueues() {
	sw.queue = nil
	for _, c := range sw.need.classes {
		c.queue = nil
	}
}

// pruneAge drops ended leases from byAge once they are more than the
// live ones and minPrune (amortised constant time per lease), so that
// speculation never walks many ended leases. Call with s.mu held.
func (sw *Sweep) pruneAge() {
	if len(sw.byAge) < 2*sw.live+minPrune {
		return
	}
	sw.byAge = slices.DeleteFunc(sw.byAge, func(l *lease) bool { return l.ended })
}

// exhausted reports whether every job has been dispatched at least once
// and nothing waits to be dispatched again. Call with s.mu held.
func (sw *Sweep) exhausted() bool { return sw.cursor >= sw.n && len(sw.queue) == 0 }

// Status is a snapshot of a sweep's progress.
type Status struct {
	ID, Name          string
	Jobs              int
	Done, Failed      int // jobs stored / failed for good
	Running           int // jobs under a lease or being stored
	Reused            int // jobs found stored when the sweep was loaded
	Cancelled, Closed bool
	// Waiting lists, sorted, the capabilities that jobs of the sweep
	// neither done nor failed for good need and that no connected worker
	// offers: those jobs wait until a worker offering them connects. Nil
	// when none (a cancelled sweep still says what a Resume would wait for).
	Waiting []string
	// LastError is the last error seen while the sweep runs (cleared when
	// its job later succeeds, then the last failure for good stands); once
	// the sweep is complete, the last job failure, or empty if none.
	LastError string
}

// status returns the sweep's progress (see Status). Call with s.mu held.
func (sw *Sweep) status(offers map[string]int) Status {
	running := 0
	for _, f := range sw.flights {
		if len(f.leases) > 0 || f.committing {
			running++
		}
	}
	return Status{ID: sw.ID, Name: sw.Name, Jobs: sw.n, Done: sw.nDone, Failed: sw.nFailed,
		Running: running, Reused: sw.reused, Cancelled: sw.cancelled, Closed: sw.complete(), LastError: sw.lastError(),
		Waiting: sw.waiting(offers)}
}

// lastError is Status.LastError. Call with s.mu held.
func (sw *Sweep) lastError() string {
	switch {
	case sw.complete() && sw.nFailed == 0:
		return ""
	case sw.complete() || sw.lastErr == "":
		return sw.lastFail
	}
	return sw.lastErr
}
