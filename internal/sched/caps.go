package sched

import (
	"bytes"
	"maps"
	"slices"
)

// Capabilities. A worker offers capability strings when it connects (the
// server uses "name@<hex identity>" for external methods; the scheduler
// treats them as opaque), and a pipeline of a sweep may require some
// (Sweep.Require). A job is leased only to a worker that offers every
// capability needed by the pipelines the job still lacks: all pipelines,
// or a partly stored job's missing ones (Sweep.MarkPartial).
//
// A worker that offers all of a sweep's needs takes the sweep's jobs by
// the usual path (queue, then cursor), in the usual order. A worker
// lacking some takes only partly stored jobs whose missing pipelines need
// less than all of the sweep's needs; such jobs are indexed at
// Scheduler.Add in classes, one per set of needs, each with a position
// over its jobs that never moves the sweep's shared cursor and a queue of
// its jobs queued again. A job of a class queued again is in both the
// sweep's queue and its class's; whichever hands it out first clears
// flight.queued, which makes the other entry stale (skipped, and pruned
// when a queue has doubled since its last pruning).

// sweepNeeds is what a sweep's pipelines require.
type sweepNeeds struct {
	byPipe  [][]string // per pipeline, as given to Require; nil: none at all
	all     []string   // sorted union of byPipe, set at Add; nil: none
	masks   [][]byte   // per pipeline, bit i set if it needs all[i]
	full    []byte     // every bit of all set
	scratch []byte     // a job's needs, worked out under the scheduler's lock
	classes []*capClass
	byKey   map[string]*capClass // string(mask) → class
	prune   int                  // prune the sweep's queue at this length
}

// minPrune is the shortest queue worth pruning of stale entries.
const minPrune = 64

// capClass holds the partly stored jobs of a sweep whose missing
// pipelines need exactly caps, a strict subset of the sweep's needs (so
// workers lacking some of the sweep's needs may run them).
type capClass struct {
	caps  []string // sorted; empty: built-in pipelines only
	jobs  []int32  // ascending
	pos   int      // jobs[:pos] were dispatched or skipped since the last rewind
	queue []int32  // jobs of the class queued again, FIFO
	prune int      // prune queue when it reaches this length
}

// Require records that pipeline p of the sweep needs caps (none: the
// pipeline is built in). Calls add up. Call it before Scheduler.Add, like
// the Mark methods; a p outside [0, pipelines) and empty strings are
// ignored.
func (sw *Sweep) Require(p int, caps ...string) {
	if p < 0 || p >= sw.pipelines {
		return
	}
	if sw.need.byPipe == nil {
		sw.need.byPipe = make([][]string, sw.pipelines)
	}
	for _, c := range caps {
		if c != "" && !slices.Contains(sw.need.byPipe[p], c) {
			sw.need.byPipe[p] = append(sw.need.byPipe[p], c)
		}
	}
}

// prepareNeeds works out the sweep's needs and the classes of its partly
// stored jobs; Scheduler.Add calls it once, with s.mu held, before the
// sweep is shared.
func (sw *Sweep) prepareNeeds() {
	n := &sw.need
	for _, cs := range n.byPipe {
		n.all = append(n.all, cs...)
	}
	if len(n.all) == 0 {
		n.all = nil
		return
	}
	slices.Sort(n.all)
	n.all = slices.Compact(n.all)
	width := (len(n.all) + 7) / 8
	n.full, n.scratch = make([]byte, width), make([]byte, width)
	for i := range n.all {
		setBit(n.full, i)
	}
	n.masks = make([][]byte, sw.pipelines)
	for p, cs := range n.byPipe {
		n.masks[p] = make([]byte, width)
		for _, c := range cs {
			i, _ := slices.BinarySearch(n.all, c)
			setBit(n.masks[p], i)
		}
	}
	sw.classify()
}

// classify sorts the partly stored jobs that need less than all of the
// sweep's needs into classes.
func (sw *Sweep) classify() {
	n := &sw.need
	n.byKey = map[string]*capClass{}
	for j, missing := range sw.partial {
		if !n.requirement(missing, n.scratch) {
			continue
		}
		c := n.byKey[string(n.scratch)]
		if c == nil {
			c = &capClass{caps: n.names(n.scratch)}
			n.byKey[string(n.scratch)] = c
			n.classes = append(n.classes, c)
		}
		c.jobs = append(c.jobs, j)
	}
	for _, c := range n.classes {
		slices.Sort(c.jobs)
	}
	// Fewest needs first: a worker offering little tries its classes first.
	slices.SortFunc(n.classes, func(a, b *capClass) int {
		if d := len(a.caps) - len(b.caps); d != 0 {
			return d
		}
		return slices.Compare(a.caps, b.caps)
	})
}

// requirement writes into dst the needs of the pipelines in missing and
// reports whether they are fewer than all of the sweep's needs. A
// pipeline index out of range counts as needing everything.
// Call with s.mu held.
func (n *sweepNeeds) requirement(missing []int, dst []byte) bool {
	clear(dst)
	for _, p := range missing {
		if p < 0 || p >= len(n.masks) {
			copy(dst, n.full)
			return false
		}
		for i, b := range n.masks[p] {
			dst[i] |= b
		}
	}
	return !bytes.Equal(dst, n.full)
}

// names returns the capabilities whose bits are set in mask, sorted.
func (n *sweepNeeds) names(mask []byte) []string {
	out := []string{}
	for i, c := range n.all {
		if hasBit(mask, i) {
			out = append(out, c)
		}
	}
	return out
}

func setBit(m []byte, i int)      { m[i>>3] |= 1 << (uint(i) & 7) }
func hasBit(m []byte, i int) bool { return m[i>>3]&(1<<(uint(i)&7)) != 0 }

// classOf returns the class of job, nil when the job needs all of the
// sweep's needs (or the sweep needs nothing). Call with s.mu held.
func (sw *Sweep) classOf(job int32) *capClass {
	n := &sw.need
	if len(n.classes) == 0 {
		return nil
	}
	missing, ok := sw.partial[job]
	if !ok || !n.requirement(missing, n.scratch) {
		return nil
	}
	return n.byKey[string(n.scratch)]
}

// enqueueClass adds job, just queued again in the sweep's queue, to its
// class's queue if it has one, and returns what a worker must offer to
// run it (nil: nothing). Stale entries are pruned from the queues it
// grows once they have doubled since their last pruning.
// Call with s.mu held.
func (sw *Sweep) enqueueClass(job int32) []string {
	c := sw.classOf(job)
	if c == nil {
		return sw.need.all
	}
	c.queue = append(sw.pruned(c.queue, &c.prune), job)
	sw.queue = sw.pruned(sw.queue, &sw.need.prune)
	return c.caps
}

// pruned drops the stale entries of q (jobs no longer queued) once q is
// *at long, and sets *at to twice what is left. Call with s.mu held.
func (sw *Sweep) pruned(q []int32, at *int) []int32 {
	if len(q) < max(*at, minPrune) {
		return q
	}
	q = slices.DeleteFunc(q, func(j int32) bool { f := sw.flights[j]; return f == nil || !f.queued })
	*at = 2 * len(q)
	return q
}

// jobNeeds returns the capabilities job needs. Call with s.mu held.
func (sw *Sweep) jobNeeds(job int32) []string {
	if c := sw.classOf(job); c != nil {
		return c.caps
	}
	return sw.need.all
}

// capSet returns caps as a set without empty strings; nil if none.
func capSet(caps []string) map[string]struct{} {
	var set map[string]struct{}
	for _, c := range caps {
		if c == "" {
			continue
		}
		if set == nil {
			set = map[string]struct{}{}
		}
		set[c] = struct{}{}
	}
	return set
}

// covers reports whether w offers every capability in caps.
func (w *Worker) covers(caps []string) bool {
	for _, c := range caps {
		if _, ok := w.caps[c]; !ok {
			return false
		}
	}
	return true
}

// Offers returns, per capability, how many connected worker streams
// offer it (a fresh map the caller may keep; empty when none does). A
// worker that reconnects counts twice until its old stream is dropped,
// so the counts are for "is it offered", not for sizing.
func (s *Scheduler) Offers() map[string]int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return maps.Clone(s.offers)
}

// wakeCoveringLocked tells every connected worker that offers caps that there
// may be work; with no caps, every worker.
func (s *Scheduler) wakeCoveringLocked(caps []string) {
	for w := range s.workers {
		if w.covers(caps) {
			w.wake()
		}
	}
}

// nextLimited returns a job for w, a worker lacking some of the sweep's
// needs, or −1: a job queued again, then an undispatched one, of the
// first class w can run that has either. The shared cursor stays put.
// Call with s.mu held.
func (sw *Sweep) nextLimited(w *Worker) int32 {
	for _, c := range sw.need.classes {
		if !w.covers(c.caps) {
			continue
		}
		if j := sw.popQueue(&c.queue); j >= 0 {
			return j
		}
		if j := sw.nextFresh(c); j >= 0 {
			return j
		}
	}
	return -1
}

// nextFresh returns an undispatched job of class c (one the shared
// cursor has not reached and nobody holds), or −1. Call with s.mu held.
func (sw *Sweep) nextFresh(c *capClass) int32 {
	for c.pos < len(c.jobs) {
		j := c.jobs[c.pos]
		c.pos++
		if int(j) < sw.cursor || sw.done.has(int(j)) || sw.failed.has(int(j)) {
			continue
		}
		if _, busy := sw.flights[j]; !busy {
			sw.flights[j] = &flight{}
			return j
		}
	}
	return -1
}

// waiting is Status.Waiting: the needs of the sweep's unfinished jobs
// that no connected worker offers (offers counts them), sorted; nil if
// none. Only partly stored jobs are scanned, and only when some need is
// not offered. Call with s.mu held.
func (sw *Sweep) waiting(offers map[string]int) []string {
	n := &sw.need
	pending := sw.n - sw.nDone - sw.nFailed
	if len(n.all) == 0 || pending == 0 {
		return nil
	}
	lack := make([]byte, len(n.full))
	some := false
	for i, c := range n.all {
		if offers[c] == 0 {
			setBit(lack, i)
			some = true
		}
	}
	if !some {
		return nil
	}
	if len(sw.partial) > 0 {
		lack = sw.pendingNeeds(lack, pending)
	}
	if out := n.names(lack); len(out) > 0 {
		return out
	}
	return nil
}

// pendingNeeds narrows lack to the needs of the pending (neither done nor
// failed) jobs, of which there are pending; only partly stored jobs are
// looked at, since any other pending job needs everything.
// Call with s.mu held.
func (sw *Sweep) pendingNeeds(lack []byte, pending int) []byte {
	n := &sw.need
	got := make([]byte, len(lack))
	partial := 0
	for j, missing := range sw.partial {
		if sw.failed.has(int(j)) {
			continue // done jobs are never in partial
		}
		partial++
		n.requirement(missing, n.scratch)
		covered := true
		for i := range got {
			got[i] |= n.scratch[i] & lack[i]
			covered = covered && got[i] == lack[i]
		}
		if covered {
			return lack
		}
	}
	if partial < pending {
		return lack // a job lacking every pipeline needs everything
	}
	return got
}
