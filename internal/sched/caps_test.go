package sched

import (
	"fmt"
	"maps"
	"slices"
	"testing"
	"time"
)

// newCapsFixture is newFixture with a hook to shape the sweep (Require,
// Mark*) before it is loaded.
func newCapsFixture(t *testing.T, scenarios, reps, pipelines, maxDeliveries int, shape func(*Sweep)) *fixture {
	fx := &fixture{t: t, clock: &manualClock{now: time.Unix(1e9, 0)}}
	fx.s = New(Options{Clock: fx.clock, LeaseTTL: ttl, MaxDeliveries: maxDeliveries,
		OnLeaseEnd: func(e LeaseEnd) { fx.ends = append(fx.ends, e) }})
	sw := NewSweep("sweep-a", "a", scenarios, reps, pipelines)
	if shape != nil {
		shape(sw)
	}
	fx.sw, _ = fx.s.Add(sw)
	return fx
}

// woken reports whether w was notified since the last call, and clears it.
func woken(w *Worker) bool {
	select {
	case <-w.Notify():
		return true
	default:
		return false
	}
}

// TestOnlyCapableWorkersLeaseAndWaitingIsReported: jobs whose pipeline 1
// needs "py@x" go only to a worker offering it; the other gets nothing
// and moves no cursor; with no capable worker left the sweep says what it
// waits for, and a capable worker arriving takes the jobs.
func TestOnlyCapableWorkersLeaseAndWaitingIsReported(t *testing.T) {
	fx := newCapsFixture(t, 2, 2, 2, 3, func(sw *Sweep) { sw.Require(1, "py@x") })
	a, b := fx.s.Connect("a", 2), fx.s.Connect("b", 2, "py@x")
	if g := fx.lease(a); len(g) != 0 {
		t.Fatalf("a, without py@x, got %v", jobs(g))
	}
	gb := fx.lease(b)
	if !slices.Equal(jobs(gb), []int{0, 1}) {
		t.Fatalf("b got %v, want jobs 0, 1 (a must not move the cursor)", jobs(gb))
	}
	if st := fx.status(); st.Waiting != nil {
		t.Fatalf("waiting %v while b offers py@x", st.Waiting)
	}
	if o := fx.s.Offers(); !maps.Equal(o, map[string]int{"py@x": 1}) {
		t.Fatalf("offers %v", o)
	}
	fx.complete(b, gb[0])
	woken(a)
	fx.s.Disconnect(b) // job 1 is queued again
	if woken(a) {
		t.Error("a was woken for a job it cannot run")
	}
	if st := fx.status(); !slices.Equal(st.Waiting, []string{"py@x"}) || st.Done != 1 {
		t.Fatalf("status %+v, want waiting for py@x", st)
	}
	if o := fx.s.Offers(); len(o) != 0 {
		t.Fatalf("offers after disconnect %v", o)
	}
	if g := fx.lease(a); len(g) != 0 {
		t.Fatalf("a got %v after b left", jobs(g))
	}
	c := fx.s.Connect("c", 4, "r@y", "py@x", "py@x")
	if !woken(c) {
		t.Fatal("the capable newcomer was not woken")
	}
	if st := fx.status(); st.Waiting != nil {
		t.Fatalf("waiting %v with c connected", st.Waiting)
	}
	gc := fx.lease(c)
	if !slices.Equal(jobs(gc), []int{1, 2, 3}) {
		t.Fatalf("c got %v, want the queued job 1, then 2, 3", jobs(gc))
	}
	for _, g := range gc {
		fx.complete(c, g)
	}
	if st := fx.status(); !st.Closed || st.Done != 4 || st.Waiting != nil {
		t.Fatalf("status %+v", st)
	}
	if o := fx.s.Offers(); !maps.Equal(o, map[string]int{"py@x": 1, "r@y": 1}) {
		t.Fatalf("offers %v (duplicates count once)", o)
	}
}

// capsSweep: 3 pipelines, pipeline 1 needs py@x, pipeline 2 needs r@y;
// job 0 lacks everything, job 6 is stored, the others lack the listed
// pipelines.
func capsSweep(sw *Sweep) {
	sw.Require(1, "py@x")
	sw.Require(2, "r@y", "")
	for j, missing := range map[int][]int{1: {0}, 2: {1}, 3: {2}, 4: {0, 1}, 5: {1, 2}, 7: {0, 2}} {
		sw.MarkPartial(j, missing)
	}
	sw.MarkDone(6)
}

// TestPartialJobsGoToWorkersThatCanRunTheirMissingPipelines: a worker
// alone gets exactly the jobs whose missing pipelines need only what it
// offers, with those pipelines, and the sweep waits for the rest.
func TestPartialJobsGoToWorkersThatCanRunTheirMissingPipelines(t *testing.T) {
	cases := []struct {
		name    string
		caps    []string
		want    []int
		waiting []string
	}{
		{"built-in only", nil, []int{1}, []string{"py@x", "r@y"}},
		{"py", []string{"py@x"}, []int{1, 2, 4}, []string{"r@y"}},
		{"r", []string{"r@y"}, []int{1, 3, 7}, []string{"py@x"}},
		{"both", []string{"py@x", "r@y"}, []int{0, 1, 2, 3, 4, 5, 7}, nil},
		{"both and more", []string{"jl@z", "r@y", "py@x"}, []int{0, 1, 2, 3, 4, 5, 7}, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			fx := newCapsFixture(t, 8, 1, 3, 3, capsSweep)
			w := fx.s.Connect("w", 10, tc.caps...)
			g := fx.lease(w)
			got := jobs(g)
			slices.Sort(got)
			if !slices.Equal(got, tc.want) {
				t.Fatalf("got jobs %v, want %v", got, tc.want)
			}
			for _, gr := range g {
				if want := fx.sw.partial[int32(gr.Job)]; !slices.Equal(gr.Pipelines, want) {
					t.Errorf("job %d: pipelines %v, want %v", gr.Job, gr.Pipelines, want)
				}
			}
			if st := fx.status(); !slices.Equal(st.Waiting, tc.waiting) {
				t.Fatalf("waiting %v, want %v", st.Waiting, tc.waiting)
			}
		})
	}
}

// TestPartialJobRequeuedStaysInItsClass: a built-in-only partial job
// taken by an incapable worker and failed goes back to workers that can
// run it (the incapable one included), and a capable worker that comes
// later takes the rest in cursor order, skipping what the incapable
// worker holds.
func TestPartialJobRequeuedStaysInItsClass(t *testing.T) {
	fx := newCapsFixture(t, 8, 1, 3, 3, capsSweep)
	a := fx.s.Connect("a", 1)
	g := fx.lease(a)
	if !slices.Equal(jobs(g), []int{1}) {
		t.Fatalf("a got %v", jobs(g))
	}
	fx.s.Fail(a, g[0].Token, "sweep-a", 1, "boom")
	if !woken(a) {
		t.Fatal("a was not woken for the requeued job it can run")
	}
	g = fx.lease(a)
	if !slices.Equal(jobs(g), []int{1}) {
		t.Fatalf("a got %v after the failure, want job 1 again", jobs(g))
	}
	b := fx.s.Connect("b", 10, "py@x", "r@y")
	if gb := jobs(fx.lease(b)); !slices.Equal(gb, []int{0, 2, 3, 4, 5, 7}) {
		t.Fatalf("b got %v, want all but a's job 1 and the stored 6", gb)
	}
	fx.clock.Advance(ttl + time.Millisecond)
	fx.s.Tick() // every lease expires; job 1 is queued in its class
	fx.s.Heartbeat(b, nil)
	if gb := jobs(fx.lease(b)); len(gb) != 7 || !slices.Contains(gb, 1) {
		t.Fatalf("b got %v after expiry, want the 7 jobs back", gb)
	}
	if st := fx.status(); st.Running != 7 || st.Waiting != nil {
		t.Fatalf("status %+v", st)
	}
}

// TestNoNeedsKeepsGrantOrder: on a sweep that needs nothing, or whose
// needs every worker offers, leases follow exactly the same order
// whatever the workers offer.
func TestNoNeedsKeepsGrantOrder(t *testing.T) {
	run := func(caps []string, require bool) []string {
		fx := newCapsFixture(t, 5, 3, 3, 2, func(sw *Sweep) {
			if require {
				sw.Require(2, "py@x")
			}
			sw.MarkDone(2)
			sw.MarkPartial(4, []int{1})
			sw.MarkPartial(9, []int{2})
			sw.MarkFailed(11, "old")
		})
		a, b := fx.s.Connect("a", 3, caps...), fx.s.Connect("b", 2, caps...)
		var log []string
		record := func(w *Worker, gs []Grant) []Grant {
			for _, g := range gs {
				log = append(log, fmt.Sprintf("%s:%d/%v", w.ID, g.Job, g.Pipelines))
			}
			return gs
		}
		ga := record(a, fx.lease(a))
		gb := record(b, fx.lease(b))
		fx.complete(a, ga[0])
		fx.complete(a, ga[1]) // a holds one job when it leaves: one requeue order
		fx.s.Fail(b, gb[0].Token, "sweep-a", gb[0].Job, "boom")
		for _, g := range gb[1:] {
			fx.complete(b, g)
		}
		fx.s.Disconnect(a)
		for range 20 {
			for _, g := range record(b, fx.lease(b)) {
				fx.complete(b, g)
			}
		}
		if st := fx.status(); !st.Closed {
			t.Fatalf("caps %v: not closed: %+v", caps, st)
		}
		return log
	}
	want := run(nil, false)
	for _, tc := range []struct {
		caps    []string
		require bool
	}{{[]string{"py@x"}, false}, {[]string{"py@x"}, true}, {[]string{"r@y", "py@x"}, true}} {
		if got := run(tc.caps, tc.require); !slices.Equal(got, want) {
			t.Errorf("caps %v require %v: grants\n%v\nwant\n%v", tc.caps, tc.require, got, want)
		}
	}
}

// TestExpiredLeaseRequeuesOnlyToCapableWorkers: the job of a capable
// worker's expired lease is not handed to (nor wakes) an incapable one,
// and wakes a capable one.
func TestExpiredLeaseRequeuesOnlyToCapableWorkers(t *testing.T) {
	fx := newCapsFixture(t, 2, 1, 2, 3, func(sw *Sweep) { sw.Require(1, "py@x") })
	a, b, c := fx.s.Connect("a", 2), fx.s.Connect("b", 1, "py@x"), fx.s.Connect("c", 1, "py@x")
	gb := fx.lease(b)
	woken(a)
	woken(c)
	fx.clock.Advance(ttl + time.Millisecond)
	fx.s.Tick()
	if woken(a) || !woken(c) {
		t.Error("the expired job must wake c (py@x), not a")
	}
	if g := fx.lease(a); len(g) != 0 {
		t.Fatalf("a got %v after b's lease expired", jobs(g))
	}
	if g := fx.lease(c); !slices.Equal(jobs(g), []int{gb[0].Job}) {
		t.Fatalf("c got %v, want the expired job %d", jobs(g), gb[0].Job)
	}
	fx.s.Heartbeat(b, nil)
	if g := fx.lease(b); !slices.Equal(jobs(g), []int{1}) {
		t.Fatalf("b, heard again, got %v", jobs(g))
	}
}

// TestSpeculationRespectsCapabilities: a straggler needing py@x is copied
// only to a worker offering it; a built-in-only partial straggler may go
// to anyone.
func TestSpeculationRespectsCapabilities(t *testing.T) {
	fx := newCapsFixture(t, 4, 1, 2, 3, func(sw *Sweep) {
		sw.Require(1, "py@x")
		sw.MarkPartial(2, []int{0})
	})
	c, b := fx.s.Connect("c", 3, "py@x"), fx.s.Connect("b", 1, "py@x")
	if gc := jobs(fx.lease(c)); !slices.Equal(gc, []int{0, 1, 2}) {
		t.Fatalf("c got %v", gc)
	}
	gb := fx.lease(b)
	fx.clock.Advance(time.Second)
	fx.complete(b, gb[0]) // mean job time 1 s
	fx.clock.Advance(time.Second)
	a := fx.s.Connect("a", 4)
	if ga := jobs(fx.lease(a)); !slices.Equal(ga, []int{2}) {
		t.Fatalf("a (no py@x) got %v, want only a copy of the built-in job 2", ga)
	}
	if g := jobs(fx.lease(b)); len(g) != 1 || (g[0] != 0 && g[0] != 1) {
		t.Fatalf("b got %v, want a copy of job 0 or 1", g)
	}
	if st := fx.status(); st.Running != 3 {
		t.Fatalf("status %+v", st)
	}
}

// TestAdoptNeedsTheCapabilities: a reconnecting worker that no longer
// offers what its held job needs cannot adopt it; one that does can.
func TestAdoptNeedsTheCapabilities(t *testing.T) {
	fx := newCapsFixture(t, 1, 1, 2, 3, func(sw *Sweep) { sw.Require(1, "py@x") })
	b := fx.s.Connect("b", 1, "py@x")
	g := fx.lease(b)
	fx.s.Disconnect(b)
	bare := fx.s.Connect("b", 1)
	if _, ok := fx.s.Adopt(bare, "sweep-a", 0, g[0].Token); ok {
		t.Fatal("adopted by a stream without py@x")
	}
	if _, ok := fx.s.AdoptVouched(bare, "sweep-a", 0, 77, fx.clock.Now().Add(time.Hour)); ok {
		t.Fatal("vouched adoption by a stream without py@x")
	}
	full := fx.s.Connect("b", 1, "py@x")
	if _, ok := fx.s.Adopt(full, "sweep-a", 0, g[0].Token); !ok {
		t.Fatal("capable stream could not adopt its job")
	}
}

// TestWaitingNarrowsToPartialJobs: once only partly stored jobs remain,
// the sweep waits only for what their missing pipelines need.
func TestWaitingNarrowsToPartialJobs(t *testing.T) {
	cases := []struct {
		name   string
		shape  func(*Sweep)
		offers []string
		want   []string
	}{
		{"nothing needed", func(*Sweep) {}, nil, nil},
		{"all offered", capsSweep, []string{"py@x", "r@y"}, nil},
		{"fresh jobs need all", capsSweep, nil, []string{"py@x", "r@y"}},
		{"only py partials left", func(sw *Sweep) {
			capsSweep(sw)
			for j := range 8 {
				if j != 2 && j != 4 {
					sw.MarkDone(j)
				}
			}
		}, nil, []string{"py@x"}},
		{"failed partials do not count", func(sw *Sweep) {
			capsSweep(sw)
			for j := range 8 {
				if j != 2 && j != 3 {
					sw.MarkDone(j)
				}
			}
			sw.MarkFailed(3, "old")
		}, nil, []string{"py@x"}},
		{"all stored", func(sw *Sweep) {
			capsSweep(sw)
			for j := range 8 {
				sw.MarkDone(j)
			}
		}, nil, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			fx := newCapsFixture(t, 8, 1, 3, 3, tc.shape)
			fx.s.Connect("w", 1, tc.offers...)
			if st := fx.status(); !slices.Equal(st.Waiting, tc.want) {
				t.Fatalf("waiting %v, want %v", st.Waiting, tc.want)
			}
			if sts := fx.s.Statuses(); !slices.Equal(sts[0].Waiting, tc.want) {
				t.Fatalf("Statuses: waiting %v, want %v", sts[0].Waiting, tc.want)
			}
		})
	}
}
