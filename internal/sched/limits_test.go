package sched

import (
	"errors"
	"fmt"
	"testing"
	"time"
)

// ender ends the lease g of w without a result and returns the worker
// that takes the job's next lease.
type ender func(fx *fixture, w *Worker, g Grant) *Worker

func disconnect(fx *fixture, w *Worker, _ Grant) *Worker {
	fx.s.Disconnect(w)
	return fx.s.Connect(w.ID, 1)
}

func expire(fx *fixture, w *Worker, _ Grant) *Worker {
	fx.clock.Advance(ttl + time.Millisecond)
	fx.s.Tick()
	fx.s.Heartbeat(w, nil) // heard from again: it may be leased to
	return w
}

func failJob(fx *fixture, w *Worker, g Grant) *Worker {
	fx.s.Fail(w, g.Token, "sweep-a", g.Job, "fit: singular")
	return w
}

func invalidResult(fx *fixture, w *Worker, g Grant) *Worker {
	fx.s.Complete(w, g.Token, "sweep-a", g.Job, func([]int) error { return errors.New("pipeline 1 missing") })
	return w
}

// TestLostAndFailedDeliveriesHaveTheirOwnLimits: a job survives up to
// MaxLostDeliveries − 1 deliveries lost with their worker (stream broken,
// lease expired), so that kills landing on it now and then never fail it,
// and fails at the bound, so that a job bringing down every worker still
// ends; a job whose worker reports an error, or sends an invalid result,
// still fails at MaxDeliveries. Each failure names its cause.
func TestLostAndFailedDeliveriesHaveTheirOwnLimits(t *testing.T) {
	cases := []struct {
		name  string
		end   ender
		limit int
		msg   string
	}{
		{"stream broken", disconnect, DefaultMaxLostDeliveries, "deliveries lost with their worker (crashed, stopped or cut off): 10; last: worker w disconnected"},
		{"lease expired", expire, DefaultMaxLostDeliveries, "deliveries lost with their worker (crashed, stopped or cut off): 10; last: lease expired"},
		{"job error", failJob, 3, "fit: singular"},
		{"invalid result", invalidResult, 3, "invalid result: pipeline 1 missing"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			fx := newFixture(t, 1, 1, 3) // MaxLostDeliveries: the default, 10
			w := fx.s.Connect("w", 1)
			for i := 1; i <= c.limit; i++ {
				g := fx.lease(w)
				if len(g) != 1 {
					t.Fatalf("delivery %d: leased %v, want job 0", i, jobs(g))
				}
				w = c.end(fx, w, g[0])
				if st := fx.status(); i < c.limit && st.Failed != 0 {
					t.Fatalf("job failed after %d deliveries, want %d", i, c.limit)
				}
			}
			if st := fx.status(); st.Failed != 1 || !st.Closed {
				t.Fatalf("after %d deliveries: %+v, want the job failed", c.limit, st)
			}
			if len(fx.failed) != 1 || fx.failed[0].msg != c.msg {
				t.Fatalf("stored failures %+v, want %q", fx.failed, c.msg)
			}
		})
	}
}

// TestErrorsAndLossesDoNotAddUp: two job errors and nine losses (each one
// short of its limit) leave the job to run; its result is accepted.
func TestErrorsAndLossesDoNotAddUp(t *testing.T) {
	fx := newFixture(t, 1, 1, 3)
	w := fx.s.Connect("w", 1)
	for i := range 2 + DefaultMaxLostDeliveries - 1 {
		end := failJob
		if i%2 == 1 || i >= 4 {
			end = disconnect
		}
		w = end(fx, w, fx.lease(w)[0])
	}
	if g := fx.lease(w); len(g) != 1 || fx.complete(w, g[0]) != Accepted {
		t.Fatalf("after 2 errors and %d losses: leased %v, status %+v", DefaultMaxLostDeliveries-1, jobs(g), fx.status())
	}
	if st := fx.status(); st.Done != 1 || st.Failed != 0 {
		t.Fatalf("status %+v", st)
	}
}

// TestGrantCredit: a stream asking for more than the grant burst gets
// its first batch at once and then earns leases, one per accepted result
// and GrantRate per second (woken by Tick when it had run out), while
// errors and drops earn nothing; capacity is capped at MaxCapacity.
func TestGrantCredit(t *testing.T) {
	fx := newFixtureWith(t, 1, 10_000, Options{GrantBurst: 8, GrantRate: 4, MaxCapacity: 100})
	w := fx.s.Connect("greedy", 4096)
	if w.Capacity() != 100 {
		t.Fatalf("capacity %d, want it capped at 100", w.Capacity())
	}
	steps := []struct {
		name string
		act  func(held []Grant) []Grant // returns the leases it ended
		want int                        // leases granted by the next Lease
	}{
		{"first batch", nil, 8},
		{"nothing earned yet", nil, 0},
		{"three results earn three", func(h []Grant) []Grant { return completeN(fx, w, h, 3) }, 3},
		{"errors earn nothing", func(h []Grant) []Grant { return failN(fx, w, h, 3) }, 0},
		{"half a second earns two", func([]Grant) []Grant { fx.clock.Advance(500 * time.Millisecond); return nil }, 2},
		{"credit is capped at the burst", func([]Grant) []Grant { fx.clock.Advance(3 * time.Second); return nil }, 8},
	}
	var held []Grant
	for _, st := range steps {
		if st.act != nil {
			ended := st.act(held)
			held = held[len(ended):]
		}
		g := fx.lease(w)
		if len(g) != st.want {
			t.Fatalf("%s: granted %d leases, want %d", st.name, len(g), st.want)
		}
		held = append(held, g...)
	}
	// Out of credit with room to spare: Tick wakes it once it has earned
	// a lease, and not before.
	woken(w) // clear
	fx.lease(w)
	fx.clock.Advance(100 * time.Millisecond)
	fx.s.Tick()
	if woken(w) {
		t.Fatal("woken with 0.4 leases of credit")
	}
	fx.clock.Advance(200 * time.Millisecond)
	fx.s.Tick()
	if !woken(w) || len(fx.lease(w)) != 1 {
		t.Fatal("not woken, or not granted, with a lease of credit earned")
	}
}

// TestDeliveringWorkerIsNeverThrottled: a worker of --parallel 64 with
// as many prefetched (capacity 128) gets its whole capacity at once, and
// each result it delivers gets a lease back at once, however fast: no
// time has to pass.
func TestDeliveringWorkerIsNeverThrottled(t *testing.T) {
	fx := newFixture(t, 10, 2000, 3)
	w := fx.s.Connect("w", 128)
	held := fx.lease(w)
	if len(held) != 128 {
		t.Fatalf("first batch of %d leases, want 128", len(held))
	}
	for i := range 10_000 {
		fx.complete(w, held[0])
		held = append(held[1:], fx.lease(w)...)
		if len(held) != 128 {
			t.Fatalf("after %d results the worker holds %d leases, want 128", i+1, len(held))
		}
	}
}

func completeN(fx *fixture, w *Worker, held []Grant, n int) []Grant {
	for _, g := range held[:n] {
		if o := fx.complete(w, g); o != Accepted {
			fx.t.Fatalf("result of job %d: %v", g.Job, o)
		}
	}
	return held[:n]
}

func failN(fx *fixture, w *Worker, held []Grant, n int) []Grant {
	for _, g := range held[:n] {
		if o := fx.s.Fail(w, g.Token, "sweep-a", g.Job, fmt.Sprint("error ", g.Job)); o != Accepted {
			fx.t.Fatalf("error report of job %d: %v", g.Job, o)
		}
	}
	return held[:n]
}

// TestRetryPutsFailedJobsBack: Retry puts a failed job back with its
// delivery counts at zero (it may fail MaxDeliveries more times); on a
// cancelled sweep the job waits for Resume.
func TestRetryPutsFailedJobsBack(t *testing.T) {
	fx := newFixture(t, 2, 1, 1)
	w := fx.s.Connect("w", 1)
	failJob(fx, w, fx.lease(w)[0]) // job 0 fails for good at its first error
	if n, err := fx.s.Retry("nope"); !errors.Is(err, ErrUnknownSweep) || n != 0 {
		t.Fatalf("retry of an unknown sweep: %d, %v", n, err)
	}
	if err := fx.s.Cancel("sweep-a"); err != nil {
		t.Fatal(err)
	}
	if n, err := fx.s.Retry("sweep-a"); err != nil || n != 1 {
		t.Fatalf("retried %d (%v), want 1", n, err)
	}
	if st := fx.status(); st.Failed != 0 || len(fx.lease(w)) != 0 {
		t.Fatalf("cancelled sweep after retry: %+v; it must lease nothing", st)
	}
	if err := fx.s.Resume("sweep-a", false); err != nil {
		t.Fatal(err)
	}
	g := fx.lease(w)
	if len(g) != 1 || g[0].Job != 0 {
		t.Fatalf("after resume leased %v, want job 0 first", jobs(g))
	}
	failJob(fx, w, g[0])
	if st := fx.status(); st.Failed != 1 || len(fx.failed) != 2 {
		t.Fatalf("status %+v, failures %v: the retried job must fail again at its limit", st, fx.failed)
	}
}
