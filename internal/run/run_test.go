package run

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
)

// TestRunStopsEveryActorOnTheFirstReturn: the first actor to return
// (with an error or nil) interrupts all, Run waits for every one and
// returns the first one's error naming it; no goroutine is left.
func TestRunStopsEveryActorOnTheFirstReturn(t *testing.T) {
	boom := errors.New("listener closed")
	for _, c := range []struct {
		name string
		err  error
	}{{"a failure", boom}, {"a clean end", nil}} {
		t.Run(c.name, func(t *testing.T) {
			var g Group
			var running, interrupted atomic.Int32
			release := make(chan struct{})
			for range 3 {
				stop := make(chan struct{})
				g.Add("waiter", func() error {
					running.Add(1)
					defer running.Add(-1)
					<-stop
					return errors.New("interrupted")
				}, func(err error) {
					if !errors.Is(err, c.err) {
						t.Errorf("interrupt with %v, want %v", err, c.err)
					}
					interrupted.Add(1)
					close(stop)
				})
			}
			g.Add("first", func() error { <-release; return c.err }, func(error) {})
			close(release)
			err := g.Run()
			switch {
			case c.err == nil && err != nil:
				t.Errorf("Run: %v, want nil", err)
			case c.err != nil && (!errors.Is(err, boom) || err.Error() != "first: listener closed"):
				t.Errorf("Run: %v, want the first actor's error, named", err)
			}
			if n := interrupted.Load(); n != 3 {
				t.Errorf("%d actors interrupted, want 3", n)
			}
			if n := running.Load(); n != 0 {
				t.Errorf("%d actors still running after Run", n)
			}
		})
	}
}

// TestAddContext: an actor added with a context stops when the group
// stops, and when its parent context ends.
func TestAddContext(t *testing.T) {
	var g Group
	g.AddContext(context.Background(), "server", func(ctx context.Context) error { <-ctx.Done(); return nil })
	g.Add("work", func() error { return errors.New("done badly") }, func(error) {})
	if err := g.Run(); err == nil || err.Error() != "work: done badly" {
		t.Errorf("Run: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	var h Group
	h.AddContext(ctx, "server", func(ctx context.Context) error { <-ctx.Done(); return ctx.Err() })
	cancel()
	if err := h.Run(); !errors.Is(err, context.Canceled) {
		t.Errorf("Run after the parent ended: %v", err)
	}
	if err := (&Group{}).Run(); err != nil {
		t.Errorf("empty group: %v", err)
	}
}
