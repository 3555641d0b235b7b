package worker

import "time"

// closeSession ends a drained worker's stream by closing its side, which
// tells the coordinator that the worker left on purpose: leases granted
// while it drained go back without counting lost deliveries. It waits
// up to 5 s for the coordinator to end the stream, and stops reconnection.
func (w *Worker) closeSession() {
	w.mu.Lock()
	w.closed = true
	w.mu.Unlock()
	// A session that is opening (its Hello sent, Welcome not yet read) may
	// already have leases on their way: wait for it to start, so that it
	// is closed, its leases handed back, rather than cancelled, its leases
	// lost.
	w.waitFor(5*time.Second, func() bool {
		w.mu.Lock()
		defer w.mu.Unlock()
		return w.cur != nil || !w.opening
	})
	w.mu.Lock()
	s := w.cur
	w.mu.Unlock()
	if s == nil {
		return
	}
	s.closeSend()
	w.waitFor(5*time.Second, func() bool {
		w.mu.Lock()
		defer w.mu.Unlock()
		return w.cur != s
	})
}

func (w *Worker) isClosed() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.closed
}

// setOpening records whether runSession is opening a session (from the
// stream's creation until it starts or fails). Call without w.mu held.
func (w *Worker) setOpening(v bool) {
	w.mu.Lock()
	w.opening = v
	w.cond.Broadcast()
	w.mu.Unlock()
}
