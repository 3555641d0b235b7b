package methods

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/misslab/misslab/internal/learn"
)

// pool holds the live processes of one method: at most max of them, each
// bound to the sweep it serves, idle ones kept for their sweep's next
// call.
type pool struct {
	r       *Runner
	e       *entry
	max     int
	log     hclog.Logger
	mu      sync.Mutex
	changed chan struct{} // closed and replaced whenever live or idle change
	live    int           // processes started or starting, not yet stopped
	idle    []*proc       // least recently used first
	busy    map[*proc]bool
	bySweep map[string]int // live processes per sweep
	waiters map[string]int // acquire calls waiting, per sweep
	closed  bool
}

func newPool(r *Runner, e *entry, max int) *pool {
	return &pool{r: r, e: e, max: max, log: r.log.With("method", e.cfg.Name),
		changed: make(chan struct{}), busy: map[*proc]bool{}, bySweep: map[string]int{}, waiters: map[string]int{}}
}

// ReuseWindow is how long an idle process is kept for its own sweep
// before a caller of another sweep may stop it to start its own (when
// the method's pool is full).
const ReuseWindow = time.Second

// errFilesChanged is the start failure that is not retried.
var errFilesChanged = errors.New("files changed since the worker started; restart the worker to run the new code")

// broadcast wakes the waiters of acquire; p.mu is held.
func (p *pool) broadcast() {
	close(p.changed)
	p.changed = make(chan struct{})
}

// drop forgets a live process of sweep; p.mu is held.
func (p *pool) drop(sweep string) {
	p.live--
	if p.bySweep[sweep]--; p.bySweep[sweep] <= 0 {
		delete(p.bySweep, sweep)
	}
	p.broadcast()
}

// acquire returns a process of sweep for the caller's exclusive use:
// an idle one of that sweep, or a fresh one (when the pool is full, after
// stopping an idle process of another sweep that victim allows, else
// after waiting for a change). A start failure returns the failed process
// (nil when it never ran) for its stderr tail.
func (p *pool) acquire(ctx context.Context, sweep string) (*proc, error) {
	p.mu.Lock()
	for {
		if p.closed {
			p.mu.Unlock()
			return nil, ErrClosed
		}
		if i := slices.IndexFunc(p.idle, func(x *proc) bool { return x.sweep == sweep }); i >= 0 {
			pr := p.idle[i]
			p.idle = slices.Delete(p.idle, i, i+1)
			p.busy[pr] = true
			p.mu.Unlock()
			return pr, nil
		}
		var victim *proc
		i, retry := p.victim(sweep, time.Now())
		if p.live >= p.max && i >= 0 {
			victim = p.idle[i]
			p.idle = slices.Delete(p.idle, i, i+1)
			p.drop(victim.sweep)
		}
		if p.live < p.max {
			p.live++
			p.bySweep[sweep]++
			p.mu.Unlock()
			if victim != nil {
				p.log.Info("stopping an idle process of another sweep", "pid", victim.pid, "sweep", victim.sweep, "for_sweep", sweep)
				victim.shutdown(ShutdownGrace)
			}
			return p.start(ctx, sweep)
		}
		if err := p.wait(ctx, sweep, retry); err != nil {
			return nil, err
		}
	}
}

// victim returns the index of the idle process that a caller of sweep may
// stop, or -1 and when to look again (zero: at the next change). It may
// stop the least recently used process of a sweep that holds more
// processes than sweep (so that busy sweeps share the pool), or one that
// has been idle for ReuseWindow with no caller of its sweep waiting (its
// sweep is likely done; a shorter pause is likely a caller between two
// calls). p.mu is held.
func (p *pool) victim(sweep string, now time.Time) (int, time.Time) {
	var retry time.Time
	for i, v := range p.idle {
		if p.bySweep[v.sweep] > p.bySweep[sweep] {
			return i, time.Time{}
		}
		if p.waiters[v.sweep] == 0 {
			at := v.idleSince.Add(ReuseWindow)
			if !now.Before(at) {
				return i, time.Time{}
			}
			if retry.IsZero() || at.Before(retry) {
				retry = at
			}
		}
	}
	return -1, retry
}

// wait releases p.mu until the pool changes, retry passes (unless zero)
// or ctx ends; p.mu is held again when it returns nil, released when it
// returns ctx's error.
func (p *pool) wait(ctx context.Context, sweep string, retry time.Time) error {
	p.waiters[sweep]++
	ch := p.changed
	p.mu.Unlock()
	var tick <-chan time.Time
	if !retry.IsZero() {
		timer := time.NewTimer(time.Until(retry))
		defer timer.Stop()
		tick = timer.C
	}
	var err error
	select {
	case <-ch:
	case <-tick:
	case <-ctx.Done():
		err = ctx.Err()
	}
	p.mu.Lock()
	if p.waiters[sweep]--; p.waiters[sweep] <= 0 {
		delete(p.waiters, sweep)
	}
	if err != nil {
		p.mu.Unlock()
	}
	return err
}

// start starts a process in a slot that acquire reserved.
func (p *pool) start(ctx context.Context, sweep string) (*proc, error) {
	pr, err := p.startChecked(ctx, sweep)
	p.mu.Lock()
	if err == nil && !p.closed {
		p.busy[pr] = true
		p.mu.Unlock()
		return pr, nil
	}
	p.drop(sweep)
	p.mu.Unlock()
	if err == nil {
		pr.kill()
		return nil, ErrClosed
	}
	return pr, err
}

// startChecked re-hashes the method's files and starts a process if they
// still give the catalog's identity.
func (p *pool) startChecked(ctx context.Context, sweep string) (*proc, error) {
	id, err := p.e.currentIdentity()
	if err != nil {
		return nil, fmt.Errorf("%w: %w", errFilesChanged, err)
	}
	if id != p.e.method.ID {
		return nil, errFilesChanged
	}
	pr, err := startProc(ctx, startSpec{cfg: p.e.cfg, sweep: sweep, root: p.r.root})
	if pr != nil {
		p.r.starts.Add(1)
	}
	if err != nil {
		p.log.Warn("process did not start", "sweep", sweep, "error", err)
		return pr, err
	}
	p.log.Info("started", "pid", pr.pid, "sweep", sweep)
	return pr, nil
}

// release returns pr to the pool: idle when keep (and the pool is open),
// else killed.
func (p *pool) release(pr *proc, keep bool) {
	p.mu.Lock()
	delete(p.busy, pr)
	keep = keep && !p.closed
	if keep {
		pr.idleSince = time.Now()
		p.idle = append(p.idle, pr)
		p.broadcast()
	}
	p.mu.Unlock()
	if keep {
		return
	}
	pr.kill()
	p.mu.Lock()
	p.drop(pr.sweep)
	p.mu.Unlock()
}

// close stops every process: idle ones gracefully (stdin closed, killed
// after ShutdownGrace), busy ones at once.
func (p *pool) close() {
	p.mu.Lock()
	p.closed = true
	idle := p.idle
	p.idle = nil
	var busy []*proc
	for pr := range p.busy {
		busy = append(busy, pr)
	}
	for _, pr := range idle {
		p.drop(pr.sweep)
	}
	p.broadcast()
	p.mu.Unlock()
	var wg sync.WaitGroup
	for _, pr := range idle {
		wg.Go(func() { pr.shutdown(ShutdownGrace) })
	}
	for _, pr := range busy {
		wg.Go(pr.kill)
	}
	wg.Wait()
}

// call runs one request on a process of sweep, restarting and retrying
// once after a crash or a failed start (protocol v1). prepare is called
// before each attempt (it clears the output files).
func (p *pool) call(ctx context.Context, sweep string, req *request, prepare func()) (reply, error) {
	name := p.e.cfg.Name
	for attempt := 1; ; attempt++ {
		if err := ctx.Err(); err != nil {
			return reply{}, fmt.Errorf("%s: %w", name, err)
		}
		pr, err := p.acquire(ctx, sweep)
		if err != nil {
			if errors.Is(err, ErrClosed) || ctx.Err() != nil {
				return reply{}, fmt.Errorf("%s: %w", name, err)
			}
			p.r.crashes.Add(1)
			if attempt == 1 && !errors.Is(err, errFilesChanged) {
				p.log.Warn("restarting after a failed start", "sweep", sweep, "error", err)
				continue
			}
			return reply{}, fmt.Errorf("%s: %w%s: %w", name, err, tailOf(pr), learn.ErrMethodCrash)
		}
		prepare()
		p.r.calls.Add(1)
		rep, out, detail := pr.roundTrip(ctx, req, p.e.cfg.Timeout)
		p.release(pr, out == outOK)
		if out == outOK && *rep.OK {
			return rep, nil
		}
		if retry, err := p.failure(ctx, pr, rep, out, detail, attempt); !retry {
			return reply{}, err
		}
	}
}

// failure turns an unsuccessful round trip on pr into the call's error,
// or asks for a retry (a first crash).
func (p *pool) failure(ctx context.Context, pr *proc, rep reply, out outcome, detail string, attempt int) (retry bool, err error) {
	name, log := p.e.cfg.Name, p.log.With("pid", pr.pid, "sweep", pr.sweep)
	switch out {
	case outOK:
		return false, fmt.Errorf("%s: %s%s: %w", name, oneLine(rep.Error), tailOf(pr), learn.ErrMethodFailed)
	case outCrash:
		p.r.crashes.Add(1)
		log.Warn("process crashed", "status", pr.status(), "attempt", attempt)
		if attempt == 1 {
			log.Info("restarting and retrying the call")
			return true, nil
		}
		return false, fmt.Errorf("%s: %s, twice%s: %w", name, detail, tailOf(pr), learn.ErrMethodCrash)
	case outTimeout:
		p.r.timeouts.Add(1)
		log.Warn("call timed out; process killed", "timeout", p.e.cfg.Timeout)
		msg := "timed out after " + p.e.cfg.Timeout.String()
		if detail != "" {
			msg += " (" + detail + ")"
		}
		return false, fmt.Errorf("%s: %s%s: %w", name, msg, tailOf(pr), learn.ErrMethodTimeout)
	case outGarbage:
		log.Warn("malformed reply; process killed", "detail", detail)
		return false, fmt.Errorf("%s: %s%s: %w", name, detail, tailOf(pr), learn.ErrMethodOutput)
	}
	log.Info("call cancelled; process killed")
	return false, fmt.Errorf("%s: %w", name, ctx.Err())
}

// tailOf formats the stderr tail of pr for an error message.
func tailOf(pr *proc) string {
	if pr == nil {
		return ""
	}
	return fmt.Sprintf(" (stderr tail: %q)", pr.stderr.String())
}

// oneLine keeps the first line of a method's error text, at most 500 bytes.
func oneLine(s string) string {
	if i := strings.IndexAny(s, "\r\n"); i >= 0 {
		s = s[:i]
	}
	if len(s) > 500 {
		s = s[:500] + "…"
	}
	return s
}
