package sched

import (
	"errors"
	"slices"
	"sync"
	"testing"
	"time"
)

// manualClock is a Clock tests move by hand.
type manualClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *manualClock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }
func (c *manualClock) Advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

const ttl = 10 * time.Second

type failure struct {
	job int
	msg string
}

type fixture struct {
	t      *testing.T
	clock  *manualClock
	s      *Scheduler
	sw     *Sweep
	failed []failure  // EndDeliveryLimit events
	ends   []LeaseEnd // every OnLeaseEnd event, in order
}

// newFixture loads one sweep of scenarios × reps jobs with 2 pipelines
// into a scheduler of the given MaxDeliveries (other options default).
func newFixture(t *testing.T, scenarios, reps, maxDeliveries int) *fixture {
	return newFixtureWith(t, scenarios, reps, Options{MaxDeliveries: maxDeliveries})
}

// newFixtureWith is newFixture with opts (the clock, lease time and
// OnLeaseEnd are the fixture's).
func newFixtureWith(t *testing.T, scenarios, reps int, opts Options) *fixture {
	fx := &fixture{t: t, clock: &manualClock{now: time.Unix(1e9, 0)}}
	opts.Clock, opts.LeaseTTL = fx.clock, ttl
	opts.OnLeaseEnd = func(e LeaseEnd) {
		fx.ends = append(fx.ends, e)
		if e.Reason == EndDeliveryLimit {
			fx.failed = append(fx.failed, failure{e.Job, e.Msg})
		}
	}
	fx.s = New(opts)
	fx.sw, _ = fx.s.Add(NewSweep("sweep-a", "a", scenarios, reps, 2))
	return fx
}

func (fx *fixture) lease(w *Worker) []Grant { return fx.s.Lease(w) }

// complete reports a result and, if accepted, commits it.
func (fx *fixture) complete(w *Worker, g Grant) Outcome {
	fx.t.Helper()
	o, err := fx.s.Complete(w, g.Token, "sweep-a", g.Job, nil)
	if err != nil {
		fx.t.Fatal(err)
	}
	if o == Accepted {
		fx.s.Committed("sweep-a", g.Job)
	}
	return o
}

func (fx *fixture) status() Status {
	st, err := fx.s.Status("sweep-a")
	if err != nil {
		fx.t.Fatal(err)
	}
	return st
}

func jobs(gs []Grant) []int {
	out := make([]int, len(gs))
	for i, g := range gs {
		out[i] = g.Job
	}
	return out
}

func TestLeasesFollowJobOrderAndCapacity(t *testing.T) {
	fx := newFixture(t, 3, 2, 3)
	a := fx.s.Connect("a", 4)
	g := fx.lease(a)
	if !slices.Equal(jobs(g), []int{0, 1, 2, 3}) {
		t.Fatalf("first batch %v, want jobs 0..3", jobs(g))
	}
	if g[3].Scenario != 0 || g[3].Rep != 1 || g[2].Scenario != 2 || g[2].Rep != 0 {
		t.Fatalf("job 3 → (%d,%d), job 2 → (%d,%d); want (0,1), (2,0)", g[3].Scenario, g[3].Rep, g[2].Scenario, g[2].Rep)
	}
	if more := fx.lease(a); len(more) != 0 {
		t.Fatalf("leased %v beyond capacity 4", jobs(more))
	}
	if !g[0].Deadline.Equal(fx.clock.Now().Add(ttl)) {
		t.Fatalf("deadline %v, want now + TTL", g[0].Deadline)
	}
	fx.complete(a, g[0])
	if more := fx.lease(a); !slices.Equal(jobs(more), []int{4}) {
		t.Fatalf("after one result got %v, want [4]", jobs(more))
	}
}

// TestLeaseExpiryRequeuesAndStaleTokenIsRejected: a lease not renewed by
// its deadline is queued again, and the first holder's late result, under
// a token that is no longer current, is rejected.
func TestLeaseExpiryRequeuesAndStaleTokenIsRejected(t *testing.T) {
	fx := newFixture(t, 1, 1, 3)
	a, b := fx.s.Connect("a", 1), fx.s.Connect("b", 1)
	ga := fx.lease(a)
	if len(ga) != 1 || len(fx.lease(b)) != 0 {
		t.Fatalf("a got %v; b must get nothing while a holds the only job", jobs(ga))
	}
	fx.clock.Advance(ttl) // exactly at the deadline: still valid
	fx.s.Tick()
	if len(fx.lease(b)) != 0 {
		t.Fatal("lease expired at its deadline, not after it")
	}
	fx.clock.Advance(time.Millisecond)
	fx.s.Tick()
	if c := fx.s.TakeCancels(a); !slices.Equal(c, []uint64{ga[0].Token}) {
		t.Fatalf("a was told to cancel %v, want its expired token", c)
	}
	gb := fx.lease(b)
	if len(gb) != 1 || gb[0].Job != 0 || gb[0].Token == ga[0].Token {
		t.Fatalf("b got %+v, want job 0 under a new token", gb)
	}
	if o := fx.complete(a, ga[0]); o != Stale {
		t.Fatalf("late result under expired token: %v, want stale", o)
	}
	if st := fx.status(); st.Done != 0 || st.Running != 1 {
		t.Fatalf("status %+v: the stale result must not count", st)
	}
	if o := fx.complete(b, gb[0]); o != Accepted {
		t.Fatalf("current token: %v", o)
	}
	if o := fx.complete(b, gb[0]); o != Duplicate {
		t.Fatalf("second copy of the result: %v, want duplicate", o)
	}
	if st := fx.status(); !st.Closed || st.Done != 1 {
		t.Fatalf("status %+v, want closed with 1 done", st)
	}
}

func TestHeartbeatExtendsOnlyCurrentLeases(t *testing.T) {
	fx := newFixture(t, 2, 1, 3)
	a, b := fx.s.Connect("a", 2), fx.s.Connect("b", 2)
	g := fx.lease(a)
	for range 5 { // 5 × 0.8 TTL: far past one TTL, kept alive by heartbeats
		fx.clock.Advance(ttl * 8 / 10)
		renewed, stale := fx.s.Heartbeat(a, []uint64{g[0].Token})
		want := Renewal{Token: g[0].Token, SweepID: "sweep-a", Job: g[0].Job, Deadline: fx.clock.Now().Add(ttl)}
		if len(stale) != 0 || len(renewed) != 1 || renewed[0] != want {
			t.Fatalf("heartbeat of a current lease: renewed %+v, stale %v; want %+v renewed", renewed, stale, want)
		}
		fx.s.Tick()
	}
	// Job 0 was renewed; job 1 was not and expired at the second tick.
	gb := fx.lease(b)
	if !slices.Equal(jobs(gb), []int{1}) {
		t.Fatalf("b got %v, want only the unrenewed job 1", jobs(gb))
	}
	// a's heartbeat for the expired token, and for b's token, is stale and
	// must not extend b's lease.
	if renewed, stale := fx.s.Heartbeat(a, []uint64{g[1].Token, gb[0].Token}); len(stale) != 2 || len(renewed) != 0 {
		t.Fatalf("stale %v, renewed %v; want both tokens stale", stale, renewed)
	}
	fx.clock.Advance(ttl + time.Millisecond)
	fx.s.Tick()
	// b's lease expired (a cannot renew it), and so did a's job 0.
	c := fx.s.Connect("c", 2)
	if got := jobs(fx.lease(c)); len(got) != 2 || got[0]+got[1] != 1 {
		t.Fatalf("c got %v, want both jobs back", got)
	}
}

// TestDeliveryLimitFailsJobWithLastError: a job whose deliveries keep
// ending in errors fails with its last error at the delivery limit (a
// lost delivery in between counts against the other limit); the sweep
// completes.
func TestDeliveryLimitFailsJobWithLastError(t *testing.T) {
	fx := newFixture(t, 2, 1, 2)
	a := fx.s.Connect("a", 1)
	for _, g := range fx.lease(a) { // job 0 succeeds
		fx.complete(a, g)
	}
	g := fx.lease(a)[0] // job 1: error, expiry, then error again
	if o := fx.s.Fail(a, g.Token, "sweep-a", g.Job, "fit: out of memory"); o != Accepted {
		t.Fatalf("fail: %v", o)
	}
	g = fx.lease(a)[0]
	fx.clock.Advance(ttl + 1)
	fx.s.Tick()
	if st := fx.status(); st.Failed != 0 || st.Closed {
		t.Fatalf("after a failed and a lost delivery: %+v", st)
	}
	fx.s.Heartbeat(a, nil) // a speaks again after its lease expired
	g = fx.lease(a)[0]
	fx.s.Fail(a, g.Token, "sweep-a", g.Job, "panic: index out of range")
	st := fx.status()
	if st.Failed != 1 || st.Done != 1 || !st.Closed {
		t.Fatalf("status %+v, want 1 done, 1 failed, closed", st)
	}
	if len(fx.failed) != 1 || fx.failed[0] != (failure{1, "panic: index out of range"}) {
		t.Fatalf("OnFailed calls %v, want job 1 with the last error", fx.failed)
	}
	if len(fx.lease(a)) != 0 {
		t.Fatal("a failed job was leased again")
	}
	// Resubmission retries it.
	if err := fx.s.Resume("sweep-a", true); err != nil {
		t.Fatal(err)
	}
	if g := fx.lease(a); !slices.Equal(jobs(g), []int{1}) || fx.complete(a, g[0]) != Accepted {
		t.Fatalf("retry after resume: %v", jobs(g))
	}
	if st := fx.status(); st.Done != 2 || st.Failed != 0 {
		t.Fatalf("after retry: %+v", st)
	}
}

func TestDisconnectRequeuesAtOnce(t *testing.T) {
	fx := newFixture(t, 3, 1, 5)
	a, b := fx.s.Connect("a", 2), fx.s.Connect("b", 1)
	ga := fx.lease(a)
	gb := fx.lease(b)
	fx.complete(b, gb[0])
	fx.s.Disconnect(a) // no clock movement at all
	got := fx.lease(b)
	if len(got) != 1 || got[0].Job > 1 {
		t.Fatalf("b got %v right after a disconnected, want job 0 or 1", jobs(got))
	}
	if o := fx.complete(a, ga[1]); o != Stale {
		t.Fatalf("result from the gone stream: %v, want stale", o)
	}
	// The returning worker adopts the other job (queued, not yet
	// re-leased) and cannot adopt job 2 (done).
	a2 := fx.s.Connect("a", 2)
	g1, ok := fx.s.Adopt(a2, "sweep-a", 1-got[0].Job, ga[1-got[0].Job].Token)
	if _, ok2 := fx.s.Adopt(a2, "sweep-a", 2, gb[0].Token); !ok || ok2 {
		t.Fatalf("adopt job 1: %v (want true), job 2 (done): %v (want false)", ok, ok2)
	}
	if o := fx.complete(a2, g1); o != Accepted {
		t.Fatalf("adopted result: %v", o)
	}
	if more := fx.lease(b); len(more) != 0 {
		t.Fatalf("job 1 was still queued after its adoption finished: %v", jobs(more))
	}
	fx.complete(b, got[0])
	if st := fx.status(); !st.Closed || st.Done != 3 {
		t.Fatalf("status %+v", st)
	}
}

// TestSpeculativeRedispatch: once nothing is left to dispatch, an idle
// worker gets a copy of a straggler; the first result wins, the other
// holder is told to cancel and its result is a duplicate.
func TestSpeculativeRedispatch(t *testing.T) {
	fx := newFixture(t, 3, 1, 3)
	a, b := fx.s.Connect("a", 2), fx.s.Connect("b", 1)
	ga := fx.lease(a)
	gb := fx.lease(b)
	if !slices.Equal(jobs(ga), []int{0, 1}) || !slices.Equal(jobs(gb), []int{2}) {
		t.Fatalf("a %v b %v", jobs(ga), jobs(gb))
	}
	fx.clock.Advance(time.Second) // b took 1 s for job 2
	fx.complete(b, gb[0])
	if spec := fx.lease(b); len(spec) != 0 {
		t.Fatalf("b got %v: a's jobs are not stragglers before 2 s", jobs(spec))
	}
	fx.clock.Advance(time.Second)
	spec := fx.lease(b)
	if len(spec) != 1 || (spec[0].Job != 0 && spec[0].Job != 1) {
		t.Fatalf("b got %v, want a speculative copy of one of a's jobs", jobs(spec))
	}
	if again := fx.lease(b); len(again) != 0 {
		t.Fatalf("b over capacity: %v", jobs(again))
	}
	if o := fx.complete(b, spec[0]); o != Accepted {
		t.Fatalf("speculative result: %v", o)
	}
	orig := ga[0]
	if orig.Job != spec[0].Job {
		orig = ga[1]
	}
	if c := fx.s.TakeCancels(a); !slices.Equal(c, []uint64{orig.Token}) {
		t.Fatalf("a told to cancel %v, want %d", c, orig.Token)
	}
	if o := fx.complete(a, orig); o != Duplicate {
		t.Fatalf("straggler's result: %v, want duplicate", o)
	}
	// b may now copy a's other job (a straggler again: mean job time is
	// 1 s); a finishes first and b's copy is revoked.
	spec2 := fx.lease(b)
	other := ga[0]
	if other.Job == orig.Job {
		other = ga[1]
	}
	if len(spec2) != 1 || spec2[0].Job != other.Job || fx.complete(a, other) != Accepted {
		t.Fatalf("second copy %v", jobs(spec2))
	}
	if c := fx.s.TakeCancels(b); !slices.Equal(c, []uint64{spec2[0].Token}) {
		t.Fatalf("b told to cancel %v", c)
	}
	if st := fx.status(); !st.Closed || st.Done != 3 || st.Failed != 0 {
		t.Fatalf("status %+v", st)
	}
}

func TestBadResultsNeverCountAsDone(t *testing.T) {
	fx := newFixture(t, 2, 1, 2)
	a, b := fx.s.Connect("a", 2), fx.s.Connect("b", 1)
	g := fx.lease(a)
	cases := []struct {
		name  string
		w     *Worker
		token uint64
		sweep string
		job   int
		want  Outcome
	}{
		{"unknown sweep", a, g[0].Token, "nope", 0, Invalid},
		{"job out of range", a, g[0].Token, "sweep-a", 2, Invalid},
		{"negative job", a, g[0].Token, "sweep-a", -1, Invalid},
		{"token of another job", a, g[1].Token, "sweep-a", 0, Stale},
		{"another worker's token", b, g[0].Token, "sweep-a", 0, Stale},
		{"forged token", a, 12345, "sweep-a", 0, Stale},
	}
	for _, tc := range cases {
		if o, _ := fx.s.Complete(tc.w, tc.token, tc.sweep, tc.job, nil); o != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, o, tc.want)
		}
	}
	bad := errors.New("pipeline 7 out of range")
	if o, err := fx.s.Complete(a, g[0].Token, "sweep-a", 0, func([]int) error { return bad }); o != Invalid || err != bad {
		t.Fatalf("malformed result: %v %v", o, err)
	}
	g2 := fx.lease(a)
	if len(g2) != 1 || g2[0].Job != 0 {
		t.Fatalf("the job of a malformed result must be queued again: %v", jobs(g2))
	}
	fx.s.Complete(a, g2[0].Token, "sweep-a", 0, func([]int) error { return bad })
	if st := fx.status(); st.Failed != 1 || st.Done != 0 || fx.failed[0].msg != "invalid result: "+bad.Error() {
		t.Fatalf("after 2 malformed results with limit 2: %+v %v", st, fx.failed)
	}
}

func TestPartialJobsRunOnlyMissingPipelines(t *testing.T) {
	clock := &manualClock{now: time.Unix(0, 0)}
	s := New(Options{Clock: clock})
	sw := NewSweep("p", "", 2, 2, 3)
	sw.MarkDone(0)
	sw.MarkPartial(2, []int{1, 2})
	sw.MarkFailed(3, "old failure")
	s.Add(sw)
	w := s.Connect("w", 10)
	g := s.Lease(w)
	if !slices.Equal(jobs(g), []int{1, 2}) || g[0].Pipelines != nil || !slices.Equal(g[1].Pipelines, []int{1, 2}) {
		t.Fatalf("grants %+v: want job 1 (all pipelines), job 2 (pipelines 1, 2)", g)
	}
	var seen []int
	s.Complete(w, g[1].Token, "p", 2, func(p []int) error { seen = p; return nil })
	s.Committed("p", 2)
	if !slices.Equal(seen, []int{1, 2}) {
		t.Fatalf("check saw %v", seen)
	}
	st, _ := s.Status("p")
	if st.Done != 2 || st.Reused != 1 || st.Failed != 1 || st.Running != 1 {
		t.Fatalf("status %+v", st)
	}
}

func TestCancelRevokesAndCommitFailureRequeues(t *testing.T) {
	fx := newFixture(t, 2, 1, 3)
	a := fx.s.Connect("a", 2)
	g := fx.lease(a)
	o, _ := fx.s.Complete(a, g[0].Token, "sweep-a", g[0].Job, nil)
	if o != Accepted {
		t.Fatal(o)
	}
	fx.s.CommitFailed("sweep-a", g[0].Job, errors.New("store: write failed: disk full"))
	if st := fx.status(); st.Done != 0 || st.LastError == "" {
		t.Fatalf("status after failed commit %+v", st)
	}
	if err := fx.s.Cancel("sweep-a"); err != nil {
		t.Fatal(err)
	}
	if c := fx.s.TakeCancels(a); !slices.Equal(c, []uint64{g[1].Token}) {
		t.Fatalf("cancel revoked %v, want %d", c, g[1].Token)
	}
	if len(fx.lease(a)) != 0 {
		t.Fatal("a cancelled sweep was leased")
	}
	if fx.s.Resume("sweep-a", false) != nil {
		t.Fatal("resume")
	}
	got := fx.lease(a)
	if !slices.Equal(jobs(got), []int{0, 1}) {
		t.Fatalf("after resume %v", jobs(got))
	}
	for _, g := range got {
		fx.complete(a, g)
	}
	if st := fx.status(); !st.Closed || st.Done != 2 {
		t.Fatalf("%+v", st)
	}
	if err := fx.s.Cancel("zz"); !errors.Is(err, ErrUnknownSweep) {
		t.Fatal(err)
	}
}

// TestSilentWorkerGetsNoNewLeases: a worker whose lease expired (it
// stopped heartbeating, e.g. cut off from the network) is not handed the
// freed capacity again, which would only expire in turn and count failed
// deliveries against other jobs; its next message makes it eligible again.
func TestSilentWorkerGetsNoNewLeases(t *testing.T) {
	fx := newFixture(t, 4, 1, 3)
	a, b := fx.s.Connect("a", 2), fx.s.Connect("b", 1)
	ga, gb := fx.lease(a), fx.lease(b)
	if len(ga) != 2 || len(gb) != 1 {
		t.Fatalf("a got %v, b got %v", jobs(ga), jobs(gb))
	}
	fx.clock.Advance(ttl / 2)
	fx.s.Heartbeat(b, []uint64{gb[0].Token}) // b is alive, a is silent
	fx.clock.Advance(ttl/2 + time.Millisecond)
	fx.s.Tick()
	if g := fx.lease(a); len(g) != 0 {
		t.Fatalf("silent worker a was leased %v", jobs(g))
	}
	if o := fx.complete(b, gb[0]); o != Accepted {
		t.Fatalf("b's result: %v", o)
	}
	if g := fx.lease(b); len(g) != 1 {
		t.Fatalf("b, alive, got %v after its result, want one of the expired jobs", jobs(g))
	}
	if st := fx.status(); st.Done != 1 {
		t.Fatalf("status %+v", st)
	}
	fx.s.Heartbeat(a, nil) // a is heard from again
	if g := fx.lease(a); len(g) != 2 {
		t.Fatalf("a, heard again, got %v, want 2 leases", jobs(g))
	}
}
