package methods

import (
	"context"
	"errors"
	"testing"
	"time"
)

// TestPoolSharing drives one method's pool directly: MaxProcs bounds the
// live processes, a sweep with fewer processes takes an idle one of a
// sweep with more at once, and an idle process of a sweep nobody waits
// for is taken after ReuseWindow.
func TestPoolSharing(t *testing.T) {
	if testing.Short() {
		t.Skip("waits ReuseWindow")
	}
	f := newFixture(t, 2, fake{name: "m", behaviour: "mean", kind: "learner"})
	p := f.r.pools["m"]
	ctx := t.Context()
	a1, err1 := p.acquire(ctx, "a")
	a2, err2 := p.acquire(ctx, "a")
	if err1 != nil || err2 != nil || a1 == a2 {
		t.Fatalf("two processes for sweep a: %v, %v", err1, err2)
	}
	short, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
	defer cancel()
	if _, err := p.acquire(short, "a"); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("a third process with MaxProcs 2: %v", err)
	}
	p.release(a1, true)
	p.release(a2, true)
	start := time.Now()
	b1, err := p.acquire(ctx, "b")
	if err != nil || b1.sweep != "b" || time.Since(start) > ReuseWindow/2 {
		t.Fatalf("b's first process: %v after %v, want one at once (a holds two)", err, time.Since(start))
	}
	if a1.alive() && a2.alive() {
		t.Fatal("no process of sweep a was stopped for b")
	}
	b2, err := p.acquire(ctx, "b")
	if err != nil || b2 == b1 {
		t.Fatalf("b's second process: %v", err)
	}
	if a1.alive() || a2.alive() {
		t.Error("a process of sweep a survived")
	}
	if p.bySweep["b"] != 2 || p.bySweep["a"] != 0 || p.live != 2 {
		t.Errorf("bySweep %v, live %d", p.bySweep, p.live)
	}
	p.release(b1, true)
	p.release(b2, false)
	if b2.alive() || p.live != 1 {
		t.Errorf("released without keep: alive %v, live %d", b2.alive(), p.live)
	}
}
