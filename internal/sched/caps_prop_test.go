package sched

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

var capPool = []string{"py@01", "r@02", "jl@03"}

// capModel is a sweep with random needs and stored state, and workers
// with random capabilities, as the test sees them (independently of the
// scheduler's own bookkeeping).
type capModel struct {
	needs     [][]string // per pipeline
	missing   map[int][]int
	preDone   map[int]bool
	preFailed map[int]bool
	workers   [][]string // caps per worker; worker 0 offers everything
}

func randomSubset(rng *rand.Rand, pool []string, p float64) []string {
	var out []string
	for _, c := range pool {
		if rng.Float64() < p {
			out = append(out, c)
		}
	}
	return out
}

// newCapModel draws the model and builds its sweep (pipelines × jobs).
func newCapModel(rng *rand.Rand, jobs, pipelines, workers int) (*capModel, *Sweep) {
	m := &capModel{missing: map[int][]int{}, preDone: map[int]bool{}, preFailed: map[int]bool{}}
	sw := NewSweep("sweep-a", "a", jobs, 1, pipelines)
	for p := range pipelines {
		m.needs = append(m.needs, randomSubset(rng, capPool, 0.3))
		sw.Require(p, m.needs[p]...)
	}
	for j := range jobs {
		switch r := rng.Float64(); {
		case r < 0.1:
			m.preDone[j] = true
			sw.MarkDone(j)
		case r < 0.15:
			m.preFailed[j] = true
			sw.MarkFailed(j, "old")
		case r < 0.6:
			var miss []int
			for len(miss) == 0 {
				for p := range pipelines {
					if rng.IntN(2) == 0 {
						miss = append(miss, p)
					}
				}
			}
			m.missing[j] = miss
			sw.MarkPartial(j, miss)
		}
	}
	m.workers = append(m.workers, capPool)
	for range workers - 1 {
		m.workers = append(m.workers, randomSubset(rng, capPool, 0.5))
	}
	return m, sw
}

// jobNeeds returns what job needs by the model; job −1: every pipeline.
func (m *capModel) jobNeeds(job int) []string {
	pipes := m.missing[job]
	if pipes == nil {
		for p := range m.needs {
			pipes = append(pipes, p)
		}
	}
	var out []string
	for _, p := range pipes {
		out = append(out, m.needs[p]...)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

func offersAll(caps, needs []string) bool {
	for _, c := range needs {
		if !slices.Contains(caps, c) {
			return false
		}
	}
	return true
}

// waiting is Status.Waiting by the model: what pending jobs need and no
// connected worker offers.
func (m *capModel) waiting(done map[int]int, offers map[string]int) []string {
	var out []string
	for j := range propJobs {
		if m.preDone[j] || m.preFailed[j] || done[j] > 0 {
			continue
		}
		for _, c := range m.jobNeeds(j) {
			if offers[c] == 0 && !slices.Contains(out, c) {
				out = append(out, c)
			}
		}
	}
	slices.Sort(out)
	return out
}

const propJobs = 150

type heldLease struct {
	w int
	g Grant
}

// capSim drives a scheduler at random against a capModel.
type capSim struct {
	t       *testing.T
	rng     *rand.Rand
	m       *capModel
	clock   *manualClock
	s       *Scheduler
	ws      []*Worker // nil: disconnected
	held    []heldLease
	done    map[int]int // accepted results per job
	limited int         // grants to workers lacking some of the sweep's needs
	dups    int         // results of a job already done (speculation)
	offered map[string]int
}

func (c *capSim) connect(i int) {
	c.ws[i] = c.s.Connect(fmt.Sprint("w", i), 1+c.rng.IntN(4), c.m.workers[i]...)
	for _, cp := range c.m.workers[i] {
		c.offered[cp]++
	}
}

func (c *capSim) disconnect(i int) {
	c.s.Disconnect(c.ws[i])
	c.ws[i] = nil
	for _, cp := range c.m.workers[i] {
		if c.offered[cp]--; c.offered[cp] == 0 {
			delete(c.offered, cp)
		}
	}
	c.held = slices.DeleteFunc(c.held, func(h heldLease) bool { return h.w == i })
}

func (c *capSim) lease(i int) {
	for _, g := range c.s.Lease(c.ws[i]) {
		if !offersAll(c.m.workers[i], c.m.jobNeeds(g.Job)) {
			c.t.Fatalf("job %d (needs %v) leased to w%d offering %v", g.Job, c.m.jobNeeds(g.Job), i, c.m.workers[i])
		}
		if c.m.preDone[g.Job] || c.m.preFailed[g.Job] || !slices.Equal(g.Pipelines, c.m.missing[g.Job]) {
			c.t.Fatalf("grant %+v: stored/failed job or wrong pipelines (missing %v)", g, c.m.missing[g.Job])
		}
		if !offersAll(c.m.workers[i], c.m.jobNeeds(-1)) {
			c.limited++
		}
		c.held = append(c.held, heldLease{i, g})
	}
}

// takeHeld removes and returns a random held lease.
func (c *capSim) takeHeld() (heldLease, bool) {
	if len(c.held) == 0 {
		return heldLease{}, false
	}
	k := c.rng.IntN(len(c.held))
	h := c.held[k]
	c.held = slices.Delete(c.held, k, k+1)
	return h, true
}

func (c *capSim) complete() {
	h, ok := c.takeHeld()
	if !ok {
		return
	}
	o, err := c.s.Complete(c.ws[h.w], h.g.Token, "sweep-a", h.g.Job, nil)
	if err != nil || o == Invalid {
		c.t.Fatalf("complete %+v: %v %v", h.g, o, err)
	}
	if o == Duplicate {
		c.dups++
	}
	if o == Accepted {
		c.done[h.g.Job]++
		c.s.Committed("sweep-a", h.g.Job)
	}
}

// heartbeat renews the leases of every connected worker but one.
func (c *capSim) heartbeat() {
	skip := c.rng.IntN(len(c.ws))
	for i, w := range c.ws {
		if w == nil || i == skip {
			continue
		}
		var tokens []uint64
		for _, h := range c.held {
			if h.w == i {
				tokens = append(tokens, h.g.Token)
			}
		}
		c.s.Heartbeat(w, tokens)
	}
}

// step takes one random action.
func (c *capSim) step() {
	i := c.rng.IntN(len(c.ws))
	switch r := c.rng.IntN(100); {
	case r < 35:
		if c.ws[i] != nil {
			c.lease(i)
		}
	case r < 65:
		c.complete()
	case r < 70:
		if h, ok := c.takeHeld(); ok {
			c.s.Fail(c.ws[h.w], h.g.Token, "sweep-a", h.g.Job, "boom")
		}
	case r < 73:
		if h, ok := c.takeHeld(); ok {
			c.s.Release(c.ws[h.w], []uint64{h.g.Token})
		}
	case r < 82:
		c.clock.Advance(ttl / 3)
		c.heartbeat()
		c.s.Tick()
	case r < 86:
		if c.ws[i] != nil {
			c.disconnect(i)
		}
	case r < 93:
		if c.ws[i] == nil {
			c.connect(i)
		}
	case r < 94:
		_ = c.s.Cancel("sweep-a")
		_ = c.s.Resume("sweep-a", false)
	default:
		c.clock.Advance(100 * time.Millisecond)
	}
}

func (c *capSim) check() {
	if o := c.s.Offers(); !maps.Equal(o, c.offered) {
		c.t.Fatalf("offers %v, want %v", o, c.offered)
	}
	st, _ := c.s.Status("sweep-a")
	if want := c.m.waiting(c.done, c.offered); !slices.Equal(st.Waiting, want) {
		c.t.Fatalf("waiting %v, want %v (offered %v)", st.Waiting, want, c.offered)
	}
}

// TestCapabilitiesRandomized: with random needs, stored state, worker
// capabilities and a random mix of leases, results, failures, releases,
// expiries, disconnections and cancellations, every job is completed
// exactly once, each by a worker offering what it needs; nothing is
// leased to a worker lacking a need; Offers and Waiting match the model;
// the run terminates.
func TestCapabilitiesRandomized(t *testing.T) {
	limited, dups := 0, 0
	defer func() {
		if !t.Failed() && (limited == 0 || dups == 0) {
			t.Errorf("the runs never leased to a worker lacking needs (%d) or speculated (%d)", limited, dups)
		}
	}()
	for seed := uint64(1); seed <= 6; seed++ {
		t.Run(fmt.Sprint("seed", seed), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(seed, 0x5eed))
			m, sw := newCapModel(rng, propJobs, 4, 6)
			clock := &manualClock{now: time.Unix(1e9, 0)}
			c := &capSim{t: t, rng: rng, m: m, clock: clock, done: map[int]int{}, offered: map[string]int{},
				s: New(Options{Clock: clock, LeaseTTL: ttl, MaxDeliveries: 1 << 30})}
			c.s.Add(sw)
			c.ws = make([]*Worker, len(m.workers))
			for i := range c.ws {
				c.connect(i)
			}
			steps := 0
			for st, _ := c.s.Status("sweep-a"); !st.Closed; st, _ = c.s.Status("sweep-a") {
				if steps++; steps > 200_000 {
					t.Fatalf("no end after %d steps: %+v", steps, st)
				}
				c.step()
				c.check()
			}
			for j := range propJobs {
				want := 1
				if m.preDone[j] || m.preFailed[j] {
					want = 0
				}
				if c.done[j] != want {
					t.Errorf("job %d completed %d times, want %d", j, c.done[j], want)
				}
			}
			limited, dups = limited+c.limited, dups+c.dups
			t.Logf("%d steps, %d grants to workers lacking needs, %d duplicates; needs %v; workers %v",
				steps, c.limited, c.dups, m.needs, m.workers)
		})
	}
}

// TestCapabilitiesConcurrentWorkers: workers with random capabilities run
// concurrently, leaving and rejoining, each waiting on its Notify channel
// only; the sweep finishes (nobody hangs) with every job done once by a
// worker that offers its needs.
func TestCapabilitiesConcurrentWorkers(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 0x5eed))
	m, sw := newCapModel(rng, propJobs, 4, 6)
	// Workers here disconnect holding leases, and which job that hits is
	// up to the goroutines' timing: with the default delivery limit a job
	// could fail for good (three unlucky disconnects) and never complete,
	// which this test, about capabilities, must not mistake for a bug.
	s := New(Options{MaxDeliveries: 1 << 20})
	s.Add(sw)
	var counts [propJobs]atomic.Int32
	var bad atomic.Value
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for i, caps := range m.workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			runCapWorker(s, m, i, caps, &counts, &bad, stop)
		}()
	}
	deadline := time.Now().Add(10 * time.Second)
	tick := time.NewTicker(time.Millisecond)
	defer tick.Stop()
	for st, _ := s.Status("sweep-a"); !st.Closed; st, _ = s.Status("sweep-a") {
		if time.Now().After(deadline) {
			close(stop)
			wg.Wait()
			t.Fatalf("not finished: %+v", st)
		}
		<-tick.C
	}
	close(stop)
	wg.Wait()
	if msg := bad.Load(); msg != nil {
		t.Fatal(msg)
	}
	for j := range propJobs {
		want := int32(1)
		if m.preDone[j] || m.preFailed[j] {
			want = 0
		}
		if got := counts[j].Load(); got != want {
			t.Errorf("job %d completed %d times, want %d", j, got, want)
		}
	}
}

// runCapWorker leases and completes jobs until stop, reconnecting after
// every 7th batch (its leases are then queued again); an odd-numbered
// worker leaves for good, holding its first batch, so that others must be
// woken to take it.
func runCapWorker(s *Scheduler, m *capModel, i int, caps []string, counts *[propJobs]atomic.Int32, bad *atomic.Value, stop chan struct{}) {
	w := s.Connect(fmt.Sprint("w", i), 2, caps...)
	for batch := 1; ; batch++ {
		select {
		case <-stop:
			s.Disconnect(w)
			return
		case <-w.Notify():
		}
		gs := s.Lease(w)
		if i%2 == 1 && len(gs) > 0 {
			s.Disconnect(w)
			return
		}
		if batch%7 == 0 && len(gs) > 0 {
			s.Disconnect(w)
			w = s.Connect(fmt.Sprint("w", i), 2, caps...)
			continue
		}
		for _, g := range gs {
			if !offersAll(caps, m.jobNeeds(g.Job)) {
				bad.Store(fmt.Sprintf("job %d leased to w%d offering %v", g.Job, i, caps))
			}
			if o, _ := s.Complete(w, g.Token, "sweep-a", g.Job, nil); o == Accepted {
				counts[g.Job].Add(1)
				s.Committed("sweep-a", g.Job)
			}
		}
	}
}
