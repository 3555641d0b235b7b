package methods

import (
	"errors"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"syscall"

	"github.com/hashicorp/go-hclog"

	"github.com/misslab/misslab/internal/learn"
	"github.com/misslab/misslab/internal/methodid"
)

var (
	// ErrClosed is returned by calls made after (or cut short by) Close.
	ErrClosed = errors.New("methods: runner closed")
	// ErrUnknownMethod is returned by a call of a method that the catalog
	// does not offer, whose ID differs from the catalog's (another
	// version of its files), or of the wrong kind.
	ErrUnknownMethod = errors.New("methods: method not offered by this worker")
)

// Options tune a Runner.
type Options struct {
	// TempDir is the parent of the runner's private root directory (per
	// call data files, processes' HOME); "" means DefaultTempDir().
	TempDir string
	// MaxProcs bounds the live processes of each method; ≤ 0 means 1.
	MaxProcs int
	// Logger receives process starts, crashes, timeouts and restarts;
	// nil discards them.
	Logger hclog.Logger
}

// Stats are a Runner's counters since NewRunner.
type Stats struct {
	Starts   int64 // processes started (whether or not they printed their ready line)
	Crashes  int64 // failed starts, and processes that exited or were killed during a call
	Timeouts int64 // calls that outlived their method's timeout
	Calls    int64 // requests sent to a process (a retried call counts twice)
}

// Runner runs a catalog's methods as long-lived child processes. It is
// safe for concurrent use; Close stops every process.
type Runner struct {
	cat   *Catalog
	root  string // private 0700 directory: per-call directories and process homes
	log   hclog.Logger
	pools map[string]*pool

	mu       sync.Mutex
	closed   bool
	inflight sync.WaitGroup

	starts, crashes, timeouts, calls atomic.Int64
}

// NewRunner makes a runner for cat with a fresh private 0700 root
// directory under opts.TempDir. No process starts before its method's
// first call.
func NewRunner(cat *Catalog, opts Options) (*Runner, error) {
	if opts.Logger == nil {
		opts.Logger = hclog.NewNullLogger()
	}
	if opts.MaxProcs <= 0 {
		opts.MaxProcs = 1
	}
	dir := opts.TempDir
	if dir == "" {
		dir = DefaultTempDir()
	}
	root, err := os.MkdirTemp(dir, "misslab-methods-")
	if err != nil {
		return nil, fmt.Errorf("methods: private directory: %w", err)
	}
	if err := os.Chmod(root, 0o700); err != nil {
		os.RemoveAll(root)
		return nil, fmt.Errorf("methods: private directory: %w", err)
	}
	r := &Runner{cat: cat, root: root, log: opts.Logger, pools: map[string]*pool{}}
	for name, e := range cat.entries {
		r.pools[name] = newPool(r, e, opts.MaxProcs)
	}
	return r, nil
}

// Offers reports whether the runner's catalog has m: the same name,
// kind, accepts_missing and identity.
func (r *Runner) Offers(m methodid.Method) bool {
	got, ok := r.cat.Lookup(m.Name)
	return ok && got == m
}

// Root returns the runner's private directory (removed by Close).
func (r *Runner) Root() string { return r.root }

// ForSweep returns a MethodRunner whose calls run on processes that serve
// sweepID only. It is cheap, and the value is safe for concurrent use.
func (r *Runner) ForSweep(sweepID string) learn.MethodRunner {
	return sweepRunner{r: r, sweep: sweepID}
}

// Stats returns the runner's counters.
func (r *Runner) Stats() Stats {
	return Stats{Starts: r.starts.Load(), Crashes: r.crashes.Load(), Timeouts: r.timeouts.Load(), Calls: r.calls.Load()}
}

// Close stops every process (idle ones get ShutdownGrace to exit after
// their stdin is closed; busy ones are killed and their calls fail with
// ErrClosed), waits for the calls in flight, and removes the private
// root. Later calls fail with ErrClosed; Close may be called again.
func (r *Runner) Close() error {
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		return nil
	}
	r.closed = true
	r.mu.Unlock()
	var wg sync.WaitGroup
	for _, p := range r.pools {
		wg.Go(p.close)
	}
	wg.Wait()
	r.inflight.Wait()
	if err := os.RemoveAll(r.root); err != nil {
		return fmt.Errorf("methods: removing the private directory: %w", err)
	}
	return nil
}

// enter registers a call in flight; the caller must call r.inflight.Done.
func (r *Runner) enter() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return ErrClosed
	}
	r.inflight.Add(1)
	return nil
}

// poolFor returns the pool of m, which must be the catalog's method of
// that name and identity, of the given kind.
func (r *Runner) poolFor(m methodid.Method, kind methodid.Kind) (*pool, error) {
	p, ok := r.pools[m.Name]
	switch {
	case !ok:
		return nil, fmt.Errorf("%q: %w", m.Name, ErrUnknownMethod)
	case m.ID != p.e.method.ID:
		return nil, fmt.Errorf("%s: identity %.12s… requested, this worker has %.12s…: %w",
			m.Name, m.ID, p.e.method.ID, ErrUnknownMethod)
	case p.e.method.Kind != kind:
		return nil, fmt.Errorf("%s: is a %s, not a %s: %w", m.Name, p.e.method.Kind, kind, ErrUnknownMethod)
	}
	return p, nil
}

// shmMinFree is the free space /dev/shm must have to be DefaultTempDir:
// room for several calls' files at n = 10⁵ (about 8 MB per matrix at
// d = 10).
const shmMinFree = 256 << 20

// DefaultTempDir is where a Runner keeps its files unless told: $TMPDIR
// when set (the operator's choice), else /dev/shm when it is a writable
// directory with at least 256 MiB free, else os.TempDir(). Every call
// writes and deletes a few files; on a RAM-backed /dev/shm that costs
// about 1 ms, against 3–6 ms on an ext4 /tmp mounted with discard
// (BenchmarkCallOverhead), which is most of the protocol's overhead.
func DefaultTempDir() string {
	if os.Getenv("TMPDIR") != "" {
		return os.TempDir()
	}
	var st syscall.Statfs_t
	if syscall.Statfs("/dev/shm", &st) == nil && st.Bavail*uint64(st.Bsize) >= shmMinFree &&
		syscall.Access("/dev/shm", 2 /* W_OK */) == nil {
		return "/dev/shm"
	}
	return os.TempDir()
}
