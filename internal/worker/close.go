package worker

import "time"

// closeSession ends a drained worker's stream by closing its side, which
// tells the coordinator that the worker left on purpose: leases granted
// while it drained go back without counting lost deliveries. It waits
// up to 5 s for the coordinator to end the stream, and stops reconnection.
func (w *Worker) closeSession() {
	w.mu.Lock()
	w.closed = true
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
