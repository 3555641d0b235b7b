package sched_test

// A deterministic discrete-event simulation of a fleet of workers driving
// the real *sched.Scheduler through its public API, as the coordinator's
// work streams (internal/server/work.go) and the workers' sessions
// (internal/worker/session.go) do: a worker holds up to parallel +
// prefetch leases, runs one job per core, heartbeats every Welcome
// period (LeaseTTL/3) and reports each result as it finishes; the
// coordinator answers every notification of a worker with TakeCancels and
// Lease, and calls Tick every LeaseTTL/10. Simulated time is a fake clock;
// the wall time of each scheduler call is measured (real CPU of the real
// code). The fleet and its workload are in simulate_fleet_test.go.

import (
	"math"
	"math/rand/v2"
	"time"

	"github.com/misslab/misslab/internal/sched"
)

// simClock is the scheduler's clock: the simulation's current time.
type simClock struct{ now time.Time }

func (c *simClock) Now() time.Time { return c.now }

// evKind says what an event does.
type evKind uint8

const (
	evArrive evKind = iota // grants reach a worker
	evCancel               // revoked or stale tokens reach a worker
	evFinish               // a worker's run ends
	evResult               // a result reaches the coordinator
	evBeat                 // a worker's heartbeat timer fires
	evBeatIn               // a heartbeat reaches the coordinator
	evTick                 // the coordinator's Tick timer fires
	evDeath                // a worker dies silently
)

// event is one entry of the event queue; ties in time go by seq.
type event struct {
	at     time.Duration
	seq    uint64
	kind   evKind
	w      int32
	token  uint64
	run    uint64 // evFinish: which run of the lease
	grants []sched.Grant
	tokens []uint64
}

// evQueue is a binary min-heap of events (no interface boxing).
type evQueue []event

func (q evQueue) less(i, j int) bool {
	return q[i].at < q[j].at || q[i].at == q[j].at && q[i].seq < q[j].seq
}

func (q *evQueue) push(e event) {
	*q = append(*q, e)
	h := *q
	for i := len(h) - 1; i > 0; {
		p := (i - 1) / 2
		if !h.less(i, p) {
			break
		}
		h[i], h[p] = h[p], h[i]
		i = p
	}
}

func (q *evQueue) pop() event {
	h := *q
	top := h[0]
	n := len(h) - 1
	h[0] = h[n]
	h[n] = event{}
	h = h[:n]
	for i := 0; ; {
		l, m := 2*i+1, i
		if l < n && h.less(l, m) {
			m = l
		}
		if l+1 < n && h.less(l+1, m) {
			m = l + 1
		}
		if m == i {
			break
		}
		h[i], h[m] = h[m], h[i]
		i = m
	}
	*q = h
	return top
}

// simLease is a lease as a worker holds it.
type simLease struct {
	g       sched.Grant
	running bool
	start   time.Duration
	run     uint64
}

// simWorker is one simulated worker.
type simWorker struct {
	id     string
	w      *sched.Worker
	cores  int
	free   int                  // idle cores
	queue  []uint64             // prefetched tokens, FIFO
	held   map[uint64]*simLease // queued or running
	dead   bool
	end    time.Duration // death, or the end of the sweep
	period time.Duration // heartbeat period from Welcome
}

// cpuStat accumulates the measured wall time of one kind of call.
type cpuStat struct {
	calls int
	total time.Duration
	worst time.Duration
}

func (c *cpuStat) add(d time.Duration) {
	c.calls++
	c.total += d
	c.worst = max(c.worst, d)
}

// timed runs f and adds its wall time to c.
func timed(c *cpuStat, f func()) {
	t0 := time.Now()
	f()
	c.add(time.Since(t0))
}

// simulation is one run: its scheduler, fleet, event queue and counters.
type simulation struct {
	cfg    simConfig
	clock  *simClock
	epoch  time.Time
	s      *sched.Scheduler
	sweeps map[*sched.Sweep]int // → index into cfg.Load
	byID   map[string]int
	ids    []string
	ws     []*simWorker
	q      evQueue
	seq    uint64
	rng    *rand.Rand
	runs   uint64

	total, done int
	dispatched  []bitsetSim // per sweep: jobs leased at least once
	nDispatched int
	live        map[int64]int32 // job key → leases not ended (OnLeaseEnd)
	idx         map[string]int32
	woken       []int32 // workers whose lease ended in the last call
	m           simMetrics
}

// bitsetSim marks job indices.
type bitsetSim []uint64

func (b bitsetSim) testAndSet(i int) bool {
	old := b[i>>6]&(1<<(uint(i)&63)) != 0
	b[i>>6] |= 1 << (uint(i) & 63)
	return old
}

func (sim *simulation) now() time.Duration { return sim.clock.now.Sub(sim.epoch) }

func (sim *simulation) at(d time.Duration, e event) {
	sim.seq++
	e.at, e.seq = sim.now()+d, sim.seq
	sim.q.push(e)
}

func jobKey(g sched.Grant, sweep int) int64 { return int64(sweep)<<32 | int64(g.Job) }

// serve is the coordinator's send loop for worker i after a notification:
// revoked tokens, then new leases, each sent after the network delay.
func (sim *simulation) serve(i int32) {
	w := sim.ws[i].w
	select {
	case <-w.Notify():
	default:
		return
	}
	var cancels []uint64
	var grants []sched.Grant
	timed(&sim.m.cancelCPU, func() { cancels = sim.s.TakeCancels(w) })
	timed(&sim.m.leaseCPU, func() { grants = sim.s.Lease(w) })
	if len(cancels) > 0 {
		sim.at(sim.cfg.Latency, event{kind: evCancel, w: i, tokens: cancels})
	}
	if len(grants) == 0 {
		return
	}
	if sim.m.firstLease < 0 {
		sim.m.firstLease = sim.now() + sim.cfg.Latency
	}
	for _, g := range grants {
		sw := sim.sweeps[g.Sweep]
		k := jobKey(g, sw)
		if sim.live[k]++; sim.live[k] > 1 {
			sim.m.speculative++
		}
		if !sim.dispatched[sw].testAndSet(g.Job) {
			if sim.nDispatched++; sim.nDispatched == sim.total {
				sim.m.exhausted = sim.now()
			}
		}
	}
	sim.at(sim.cfg.Latency, event{kind: evArrive, w: i, grants: grants})
}

// serveAll serves every notified worker (after Add and Tick, which may
// wake any of them).
func (sim *simulation) serveAll() {
	for i := range sim.ws {
		sim.serve(int32(i))
	}
}

// arrive queues grants at worker i and starts what its cores can run.
func (sim *simulation) arrive(i int32, grants []sched.Grant) {
	sw := sim.ws[i]
	if sw.dead {
		return
	}
	for _, g := range grants {
		sw.held[g.Token] = &simLease{g: g}
		sw.queue = append(sw.queue, g.Token)
	}
	sim.startRuns(i)
}

// startRuns starts queued leases on idle cores, drawing each run's time.
func (sim *simulation) startRuns(i int32) {
	sw := sim.ws[i]
	for sw.free > 0 && len(sw.queue) > 0 {
		t := sw.queue[0]
		sw.queue = sw.queue[1:]
		l := sw.held[t]
		if l == nil {
			continue // revoked while queued
		}
		sw.free--
		sim.runs++
		l.running, l.start, l.run = true, sim.now(), sim.runs
		sim.at(sim.duration(l.g), event{kind: evFinish, w: i, token: t, run: l.run})
	}
}

// duration draws a run's time: the job's cost-model seconds times a
// mean-one lognormal noise, and rarely a straggler.
func (sim *simulation) duration(g sched.Grant) time.Duration {
	c := sim.cfg
	secs := c.Load[sim.sweeps[g.Sweep]].Seconds[g.Scenario]
	secs *= math.Exp(c.NoiseSD*sim.rng.NormFloat64() - c.NoiseSD*c.NoiseSD/2)
	if sim.rng.Float64() < c.StragglerRate {
		secs *= c.StragglerFactor
		sim.m.stragglers++
	}
	return time.Duration(secs * float64(time.Second))
}

// stopRun ends a running lease at now (finished, revoked or its worker
// died) and accounts its core time; it returns the run's length.
func (sim *simulation) stopRun(sw *simWorker, l *simLease) time.Duration {
	d := sim.now() - l.start
	sim.m.busy += d
	if x := sim.m.exhausted; x > 0 {
		sim.m.tailBusy += sim.now() - max(l.start, x)
	}
	l.running = false
	sw.free++
	return d
}

// finish ends a run: the worker sends its result and starts the next job.
func (sim *simulation) finish(i int32, token, run uint64) {
	sw := sim.ws[i]
	l := sw.held[token]
	if sw.dead || l == nil || !l.running || l.run != run {
		return
	}
	d := sim.stopRun(sw, l)
	delete(sw.held, token)
	sim.at(sim.cfg.Latency, event{kind: evResult, w: i, token: token, grants: []sched.Grant{l.g},
		run: uint64(d)})
	sim.startRuns(i)
}

// result is the coordinator judging and storing a result.
func (sim *simulation) result(i int32, g sched.Grant, ran time.Duration) {
	w := sim.ws[i].w
	var o sched.Outcome
	timed(&sim.m.completeCPU, func() {
		o, _ = sim.s.Complete(w, g.Token, g.Sweep.ID, g.Job, nil)
		if o == sched.Accepted {
			sim.s.Committed(g.Sweep.ID, g.Job)
		}
	})
	if o != sched.Accepted {
		sim.m.rejected++
		sim.serveWoken()
		sim.serve(i)
		return
	}
	sim.done++
	sim.m.useful += ran
	sim.serveWoken()
	sim.serve(i)
}

// leaseEnded is Options.OnLeaseEnd: it keeps count of each job's live
// leases and notes whose lease ended, to serve them (the scheduler woke
// them).
func (sim *simulation) leaseEnded(e sched.LeaseEnd) {
	if e.Reason == sched.EndDeliveryLimit {
		sim.m.failed++
		return
	}
	k := int64(sim.byID[e.SweepID])<<32 | int64(e.Job)
	if sim.live[k]--; sim.live[k] <= 0 {
		delete(sim.live, k)
	}
	if e.Reason == sched.EndExpired {
		sim.m.expired++
	}
	sim.woken = append(sim.woken, sim.idx[e.Worker])
}

// serveWoken serves the workers whose leases ended.
func (sim *simulation) serveWoken() {
	for len(sim.woken) > 0 {
		i := sim.woken[0]
		sim.woken = sim.woken[1:]
		sim.serve(i)
	}
	sim.woken = sim.woken[:0]
}

// cancel drops revoked or stale tokens at a worker, stopping their runs.
func (sim *simulation) cancel(i int32, tokens []uint64) {
	sw := sim.ws[i]
	if sw.dead {
		return
	}
	for _, t := range tokens {
		if l := sw.held[t]; l != nil {
			if l.running {
				sim.stopRun(sw, l)
			}
			delete(sw.held, t)
		}
	}
	sim.startRuns(i)
}

// beat sends a heartbeat naming every held token and sets the next one.
func (sim *simulation) beat(i int32) {
	sw := sim.ws[i]
	if sw.dead {
		return
	}
	tokens := make([]uint64, 0, len(sw.held))
	for t := range sw.held {
		tokens = append(tokens, t)
	}
	sim.at(sim.cfg.Latency, event{kind: evBeatIn, w: i, tokens: tokens})
	sim.at(sim.nextBeat(sw.period), event{kind: evBeat, w: i})
}

// nextBeat is the worker's next heartbeat delay: the period, or with
// jitter a uniform draw in [0.9, 1] of it (never later than the period,
// so leases stay as safe as without jitter).
func (sim *simulation) nextBeat(p time.Duration) time.Duration {
	if !sim.cfg.Jitter {
		return p
	}
	return p - time.Duration(sim.rng.Float64()*0.1*float64(p))
}

// beatIn is the coordinator handling a heartbeat.
func (sim *simulation) beatIn(i int32, tokens []uint64) {
	var stale []uint64
	timed(&sim.m.beatCPU, func() { _, stale = sim.s.Heartbeat(sim.ws[i].w, tokens) })
	sec := int(sim.now() / time.Second)
	if sec == sim.m.beatSec {
		sim.m.beatsInSec++
	} else {
		sim.m.beatSec, sim.m.beatsInSec = sec, 1
	}
	sim.m.peakBeats = max(sim.m.peakBeats, sim.m.beatsInSec)
	if len(stale) > 0 {
		sim.at(sim.cfg.Latency, event{kind: evCancel, w: i, tokens: stale})
	}
	sim.serve(i)
}

// die stops a worker without a word: its leases expire after LeaseTTL.
func (sim *simulation) die(i int32) {
	sw := sim.ws[i]
	if sw.dead {
		return
	}
	for _, l := range sw.held {
		if l.running {
			sim.stopRun(sw, l)
		}
	}
	sw.dead, sw.end, sw.held, sw.queue = true, sim.now(), nil, nil
	sim.m.deaths++
}

// tick is the coordinator's lease expiry timer.
func (sim *simulation) tick() {
	timed(&sim.m.tickCPU, sim.s.Tick)
	sim.woken = sim.woken[:0]
	sim.serveAll()
	sim.at(sim.s.LeaseTTL()/10, event{kind: evTick})
}

// step handles one event.
func (sim *simulation) step(e event) {
	sim.clock.now = sim.epoch.Add(e.at)
	switch e.kind {
	case evArrive:
		sim.arrive(e.w, e.grants)
	case evCancel:
		sim.cancel(e.w, e.tokens)
	case evFinish:
		sim.finish(e.w, e.token, e.run)
	case evResult:
		sim.result(e.w, e.grants[0], time.Duration(e.run))
	case evBeat:
		sim.beat(e.w)
	case evBeatIn:
		sim.beatIn(e.w, e.tokens)
	case evTick:
		sim.tick()
	case evDeath:
		sim.die(e.w)
	}
}
