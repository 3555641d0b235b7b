package store

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	bolt "go.etcd.io/bbolt"
)

// Record is one unit of a write batch: either the results of some
// pipelines of one job, or (Failure non-empty) the failure of a job.
type Record struct {
	SweepID string // owner sweep (for failures and to clear an old failure)
	Job     int    // job index in the sweep
	Draw    DrawKey
	Rep     int
	Pipes   []PipeKey // parallel to Results
	Results []Result
	Failure string // non-empty: the job failed with this last error
	Tag     any    // opaque, handed back to the commit callback
}

// Commit writes records in one transaction: all or nothing. It fails with
// an error wrapping ErrWrite.
func (s *Store) Commit(recs []Record) error {
	err := s.update(func(w *wtx) error {
		for _, r := range recs {
			fk := failureKey(r.SweepID, r.Job)
			if r.Failure != "" {
				if err := w.put(bucketFailures, fk, failureMessage(r.Failure)); err != nil {
					return err
				}
				continue
			}
			if err := w.del(bucketFailures, fk); err != nil {
				return err
			}
			for i, p := range r.Pipes {
				k := resultKey(r.Draw, r.Rep, p)
				if err := w.putRaw(bucketResults, k, encodeResult(k, r.Results[i])); err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("%w: commit %d records: %w", ErrWrite, len(recs), err)
	}
	return nil
}

// WriterOptions tunes a Writer. Zero fields take the defaults.
type WriterOptions struct {
	MaxBatch int           // records per transaction; default 2048
	MaxDelay time.Duration // longest a record waits for its batch; default 50 ms
	Retries  int           // attempts per batch before reporting failure; default 4
	Backoff  time.Duration // first retry delay, doubling; default 100 ms
}

// Writer commits records in batches (by count and by time) so that many
// small jobs are not bound by fsync. Enqueue never blocks.
type Writer struct {
	st   *Store
	opts WriterOptions
	done func(recs []Record, err error)

	// mu guards the queue and the flags below. Lock order: a caller may
	// hold its own locks when it calls Enqueue (the coordinator enqueues
	// a job's failure under the scheduler's lock: sched's Scheduler.mu →
	// mu), so mu is never held while calling out: done, the commit
	// callback, runs after mu is released, and may itself call into the
	// coordinator's scheduler.
	mu      sync.Mutex
	queue   []Record
	busy    bool // a batch is being committed
	closed  bool
	wake    chan struct{}
	drained *sync.Cond
	stopped chan struct{}
}

// NewWriter starts a writer. done is called from the writer's goroutine
// after each batch: err == nil when it was committed, else an error
// wrapping ErrWrite after every retry failed (nothing of the batch is
// stored; earlier batches are untouched).
func (s *Store) NewWriter(opts WriterOptions, done func(recs []Record, err error)) *Writer {
	if opts.MaxBatch <= 0 {
		opts.MaxBatch = 2048
	}
	if opts.MaxDelay <= 0 {
		opts.MaxDelay = 50 * time.Millisecond
	}
	if opts.Retries <= 0 {
		opts.Retries = 4
	}
	if opts.Backoff <= 0 {
		opts.Backoff = 100 * time.Millisecond
	}
	w := &Writer{st: s, opts: opts, done: done, wake: make(chan struct{}, 1), stopped: make(chan struct{})}
	w.drained = sync.NewCond(&w.mu)
	go w.loop()
	return w
}

// Enqueue adds records to the next batch. It returns ErrClosed after Close.
func (w *Writer) Enqueue(recs ...Record) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return ErrClosed
	}
	w.queue = append(w.queue, recs...)
	select {
	case w.wake <- struct{}{}:
	default:
	}
	return nil
}

// Flush waits until every record enqueued so far has been committed or
// reported, or ctx ends.
func (w *Writer) Flush(ctx context.Context) error {
	stop := context.AfterFunc(ctx, func() {
		w.mu.Lock()
		w.drained.Broadcast()
		w.mu.Unlock()
	})
	defer stop()
	w.mu.Lock()
	defer w.mu.Unlock()
	for (len(w.queue) > 0 || w.busy) && ctx.Err() == nil && !w.closed {
		select {
		case w.wake <- struct{}{}:
		default:
		}
		w.drained.Wait()
	}
	return ctx.Err()
}

// Close commits what is queued and stops the writer.
func (w *Writer) Close() {
	w.mu.Lock()
	if !w.closed {
		w.closed = true
		close(w.wake)
	}
	w.mu.Unlock()
	<-w.stopped
}

func (w *Writer) loop() {
	defer close(w.stopped)
	for {
		_, open := <-w.wake
		if !open {
			w.commitAll(0)
			return
		}
		w.commitAll(w.opts.MaxDelay)
	}
}

// commitAll waits up to delay for a full batch, then commits batches
// until the queue is empty.
func (w *Writer) commitAll(delay time.Duration) {
	if delay > 0 {
		deadline := time.Now().Add(delay)
		for time.Now().Before(deadline) {
			w.mu.Lock()
			n, closed := len(w.queue), w.closed
			w.mu.Unlock()
			if n >= w.opts.MaxBatch || n == 0 || closed {
				break
			}
			time.Sleep(min(time.Until(deadline), 5*time.Millisecond))
		}
	}
	for {
		w.mu.Lock()
		n := min(len(w.queue), w.opts.MaxBatch)
		if n == 0 {
			w.busy = false
			w.drained.Broadcast()
			w.mu.Unlock()
			return
		}
		batch := w.queue[:n:n]
		w.queue = w.queue[n:]
		w.busy = true
		w.mu.Unlock()
		err := w.commitRetry(batch)
		if w.done != nil {
			w.done(batch, err)
		}
	}
}

func (w *Writer) commitRetry(batch []Record) error {
	var err error
	backoff := w.opts.Backoff
	for attempt := range w.opts.Retries {
		if attempt > 0 {
			time.Sleep(backoff)
			backoff *= 2
		}
		if err = w.st.Commit(batch); err == nil || errors.Is(err, bolt.ErrDatabaseNotOpen) || errors.Is(err, ErrCorrupt) {
			return err
		}
	}
	return err
}
