package server

import (
	"context"
	"testing"
	"time"
)

func TestBacklogBlocksPastItsLimit(t *testing.T) {
	b := newBacklog(10)
	b.add(10)
	if err := b.wait(context.Background()); err != nil {
		t.Fatalf("at the limit: %v", err)
	}
	b.add(5)
	released := make(chan error, 1)
	go func() { released <- b.wait(context.Background()) }()
	select {
	case err := <-released:
		t.Fatalf("wait returned over the limit: %v", err)
	case <-time.After(50 * time.Millisecond):
	}
	b.done(4) // 11: still over
	select {
	case err := <-released:
		t.Fatalf("wait returned at 11 > 10: %v", err)
	case <-time.After(50 * time.Millisecond):
	}
	b.done(1)
	if err := <-released; err != nil {
		t.Fatal(err)
	}
	b.add(1)
	ctx, cancel := context.WithCancel(context.Background())
	go func() { released <- b.wait(ctx) }()
	cancel()
	if err := <-released; err == nil {
		t.Fatal("wait ignored its context")
	}
}
