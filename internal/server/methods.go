package server

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/misslab/misslab/internal/grid"
	"github.com/misslab/misslab/internal/methodid"
	"github.com/misslab/misslab/internal/sched"
)

// capability is the scheduler's name for an external method: workers
// offer it, pipelines require it.
func capability(m methodid.Method) string { return m.Name + "@" + m.ID }

// methodBook is what the coordinator knows of external methods: the
// methods of its own methods file (Options.Methods), which bind a grid's
// names when they list them, and every method a worker has offered in
// its Hello (the scheduler says which are offered now).
type methodBook struct {
	own map[string]methodid.Method // by name

	mu      sync.Mutex
	offered map[string]methodid.Method // by capability
}

// newMethodBook indexes the coordinator's own methods by name.
func newMethodBook(own []methodid.Method) *methodBook {
	b := &methodBook{own: map[string]methodid.Method{}, offered: map[string]methodid.Method{}}
	for _, m := range own {
		b.own[m.Name] = m
	}
	return b
}

// heard records the methods a worker offers and returns their
// capabilities.
func (b *methodBook) heard(ms []methodid.Method) []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	caps := make([]string, len(ms))
	for i, m := range ms {
		caps[i] = capability(m)
		b.offered[caps[i]] = m
	}
	return caps
}

// bind returns the method a grid's name stands for: the coordinator's
// own, else the one identity that connected workers offer under that
// name (live: the scheduler's offer counts). Errors wrap
// ErrPrecondition: a name nobody offers, two identities offered for one
// name, or a method of another kind than the grid's place for it.
func (b *methodBook) bind(name string, kind methodid.Kind, live map[string]int) (methodid.Method, error) {
	if m, ok := b.own[name]; ok {
		return m, sameKind(m, kind, "the coordinator's methods file")
	}
	b.mu.Lock()
	var found []methodid.Method
	names := map[string]bool{}
	for c, m := range b.offered {
		if live[c] == 0 {
			continue
		}
		names[m.Name] = true
		if m.Name == name {
			found = append(found, m)
		}
	}
	b.mu.Unlock()
	switch len(found) {
	case 0:
		return methodid.Method{}, fmt.Errorf("%w: method %q is unknown: the coordinator's methods file does not list it and no connected worker offers it (offered now: %s)",
			ErrPrecondition, name, listOrNone(slices.Sorted(maps.Keys(names))))
	case 1:
		return found[0], sameKind(found[0], kind, "the connected workers")
	}
	ids := make([]string, len(found))
	for i, m := range found {
		ids[i] = m.ID[:16]
	}
	slices.Sort(ids)
	return methodid.Method{}, fmt.Errorf("%w: method %q is ambiguous: connected workers offer %d versions of it (%s); give every worker the same methods file and files, or the coordinator --methods",
		ErrPrecondition, name, len(found), strings.Join(ids, ", "))
}

// sameKind checks that a bound method takes the place the grid gives it.
func sameKind(m methodid.Method, kind methodid.Kind, where string) error {
	if m.Kind != kind {
		return fmt.Errorf("%w: method %q is a %s in %s, but the grid uses it as a %s", ErrPrecondition, m.Name, m.Kind, where, kind)
	}
	return nil
}

// listOrNone joins names, or says "none".
func listOrNone(names []string) string {
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}

// bindMethods returns spec with its external methods bound (spec itself
// when it has none); spec is not modified.
func (c *Coordinator) bindMethods(spec *grid.Sweep) (*grid.Sweep, error) {
	if len(spec.Methods()) == 0 {
		return spec, nil
	}
	live := c.sched.Offers()
	bound := *spec
	err := bound.Bind(func(name string, kind methodid.Kind) (methodid.Method, error) {
		return c.methods.bind(name, kind, live)
	})
	if err != nil {
		return nil, err
	}
	return &bound, nil
}

// requireMethods tells the scheduler which capabilities each pipeline
// of spec needs.
func requireMethods(sw *sched.Sweep, spec *grid.Sweep) {
	for i, p := range spec.Pipelines {
		var caps []string
		for _, m := range p.Methods() {
			caps = append(caps, capability(m))
		}
		if len(caps) > 0 {
			sw.Require(i, caps...)
		}
	}
}

// Offers returns, per capability ("name@id"), how many connected worker
// streams offer it (sched.Scheduler.Offers: a reconnecting worker may
// count twice for a moment).
func (c *Coordinator) Offers() map[string]int { return c.sched.Offers() }
