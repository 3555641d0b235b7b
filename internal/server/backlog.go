package server

import (
	"context"
	"sync"
)

// DefaultMaxBacklog is the default of Options.MaxBacklog: about 10 MB of
// queued records, five full store transactions.
const DefaultMaxBacklog = 10240

// backlog counts the records accepted for the store and not yet
// committed. Past its limit no lease is granted until the store catches
// up, so that a coordinator fed faster than it can write (no-op jobs, a
// slow volume) keeps bounded memory instead of queueing without end.
type backlog struct {
	// mu guards n. Lock order: sched's Scheduler.mu → mu, since the
	// scheduler's OnLeaseEnd (leaseEnded → onFailed) calls add under the
	// scheduler's lock. So mu is never held while calling into the
	// scheduler: add, done and wait call nothing else with it held (wait
	// releases it in cond.Wait), and callers take it only through them.
	mu    sync.Mutex
	cond  *sync.Cond
	n     int
	limit int
}

func newBacklog(limit int) *backlog {
	b := &backlog{limit: limit}
	b.cond = sync.NewCond(&b.mu)
	return b
}

// add counts n records queued for the store; it never blocks.
func (b *backlog) add(n int) {
	b.mu.Lock()
	b.n += n
	b.mu.Unlock()
}

// done counts n records that left the queue, committed or not.
func (b *backlog) done(n int) {
	b.mu.Lock()
	b.n -= n
	if b.n <= b.limit {
		b.cond.Broadcast()
	}
	b.mu.Unlock()
}

// wait blocks while the backlog is over its limit, until ctx ends.
func (b *backlog) wait(ctx context.Context) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.n <= b.limit {
		return nil
	}
	stop := context.AfterFunc(ctx, func() {
		b.mu.Lock()
		b.cond.Broadcast()
		b.mu.Unlock()
	})
	defer stop()
	for b.n > b.limit && ctx.Err() == nil {
		b.cond.Wait()
	}
	return ctx.Err()
}

// Backlog returns how many accepted results wait to be committed.
func (c *Coordinator) Backlog() int {
	c.backlog.mu.Lock()
	defer c.backlog.mu.Unlock()
	return c.backlog.n
}
