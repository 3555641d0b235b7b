package run

import (
	"context"
	"fmt"
)

// Group is a set of actors: each a function that runs until it is done
// or fails (execute) and a function that makes it return (interrupt).
// Run starts every actor on a goroutine of its own, waits for the first
// one to return, interrupts them all with its error, waits for every one
// to return, and returns the first one's error. No goroutine outlives
// Run. A Group is used once; its zero value is ready. (The design of
// github.com/oklog/run, which Prometheus uses.)
type Group struct {
	actors []actor
}

type actor struct {
	name      string
	execute   func() error
	interrupt func(error)
}

// Add adds an actor named name (which Run's error names). interrupt must
// make execute return promptly; it may be called before execute starts,
// and once only.
func (g *Group) Add(name string, execute func() error, interrupt func(error)) {
	g.actors = append(g.actors, actor{name, execute, interrupt})
}

// AddContext adds an actor that runs fn with a context derived from ctx
// and is interrupted by cancelling that context. fn must return once its
// context ends.
func (g *Group) AddContext(ctx context.Context, name string, fn func(ctx context.Context) error) {
	ctx, cancel := context.WithCancel(ctx)
	g.Add(name, func() error { return fn(ctx) }, func(error) { cancel() })
}

// Run runs the actors (see Group) and returns the error of the first to
// return, wrapped with its name, or nil if it returned nil. A Group
// without actors returns nil at once.
func (g *Group) Run() error {
	if len(g.actors) == 0 {
		return nil
	}
	type done struct {
		name string
		err  error
	}
	errs := make(chan done, len(g.actors))
	for _, a := range g.actors {
		go func() { errs <- done{a.name, a.execute()} }()
	}
	first := <-errs
	for _, a := range g.actors {
		a.interrupt(first.err)
	}
	for range len(g.actors) - 1 {
		<-errs
	}
	if first.err != nil {
		return fmt.Errorf("%s: %w", first.name, first.err)
	}
	return nil
}
