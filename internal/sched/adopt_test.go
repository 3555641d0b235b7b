package sched

import (
	"errors"
	"slices"
	"testing"
	"time"
)

// TestAdoptNeedsTheLeaseToken: a held job is adopted only under the token
// of a lease lost with its worker (stream broken, or expired while it was
// cut off; once) or of a current lease of that job; made-up and other
// jobs' tokens are refused, and a refused claim leaves the job's state
// alone.
func TestAdoptNeedsTheLeaseToken(t *testing.T) {
	fx := newFixture(t, 3, 1, 3)
	a := fx.s.Connect("a", 3)
	g := fx.lease(a)
	fx.clock.Advance(ttl / 2)
	fx.s.Heartbeat(a, []uint64{g[0].Token, g[1].Token}) // job 2's lease will expire
	fx.clock.Advance(ttl/2 + time.Millisecond)
	fx.s.Tick()
	fx.s.Disconnect(a) // jobs 0 and 1 end with the stream
	a2 := fx.s.Connect("a", 3)
	cases := []struct {
		name  string
		job   int
		token uint64
		ok    bool
	}{
		{"made-up token", 0, g[0].Token ^ 1, false},
		{"zero token", 0, 0, false},
		{"another job's token", 0, g[1].Token, false},
		{"expired lease's token", 2, g[2].Token, true},
		{"expired lease's token again", 2, g[2].Token, false},
		{"unknown job", 7, g[0].Token, false},
		{"own token after disconnect", 0, g[0].Token, true},
		{"the same token again", 0, g[0].Token, false},
	}
	for _, c := range cases {
		if _, ok := fx.s.Adopt(a2, "sweep-a", c.job, c.token); ok != c.ok {
			t.Errorf("%s: adopted %v, want %v", c.name, ok, c.ok)
		}
	}
	if _, ok := fx.s.Adopt(a2, "nope", 1, g[1].Token); ok {
		t.Error("adopted a job of an unknown sweep")
	}
	// Job 1 is still queued for anyone; jobs 0 and 2 are a2's.
	b := fx.s.Connect("b", 3)
	if got := jobs(fx.lease(b)); !slices.Equal(got, []int{1}) {
		t.Fatalf("b got %v, want the unadopted job 1", got)
	}
	if st := fx.status(); st.Running != 3 || st.Failed != 0 {
		t.Fatalf("status %+v", st)
	}
}

// TestAdoptMovesACurrentLease: a worker that reconnects before its old
// stream is noticed dead takes its lease over; the old stream is told to
// drop it and its token no longer counts.
func TestAdoptMovesACurrentLease(t *testing.T) {
	fx := newFixture(t, 2, 1, 3)
	a := fx.s.Connect("a", 2)
	g := fx.lease(a)
	a2 := fx.s.Connect("a", 2)
	ng, ok := fx.s.Adopt(a2, "sweep-a", 1, g[1].Token)
	if !ok || ng.Job != 1 || ng.Token == g[1].Token {
		t.Fatalf("adopt of a current lease: %+v %v, want job 1 under a new token", ng, ok)
	}
	if c := fx.s.TakeCancels(a); !slices.Equal(c, []uint64{g[1].Token}) {
		t.Fatalf("old stream told to cancel %v, want %d", c, g[1].Token)
	}
	if rev := fx.endsOf(EndRevoked); len(rev) != 1 || rev[0].Token != g[1].Token {
		t.Fatalf("revoked events %+v", rev)
	}
	if o := fx.complete(a, g[1]); o != Stale {
		t.Fatalf("old token after the move: %v, want stale", o)
	}
	if o := fx.complete(a2, ng); o != Accepted {
		t.Fatalf("new token: %v", o)
	}
	if _, ok := fx.s.Adopt(a2, "sweep-a", 0, g[1].Token); ok {
		t.Fatal("a moved token adopted another job")
	}
	fx.s.Disconnect(a) // the old stream ends: job 0 only
	if d := fx.endsOf(EndDisconnected); len(d) != 1 || d[0].Job != 0 {
		t.Fatalf("disconnected events %+v, want job 0 only", d)
	}
}

// TestAdoptRefusesATokenOfAnEarlierProcess: a restarted coordinator (a
// new Scheduler over the same sweep) adopts nothing under the old
// process's tokens, whatever they are.
func TestAdoptRefusesATokenOfAnEarlierProcess(t *testing.T) {
	fx := newFixture(t, 4, 1, 3)
	a := fx.s.Connect("a", 4)
	g := fx.lease(a)
	fx.s.Disconnect(a)
	s2 := New(Options{Clock: fx.clock, LeaseTTL: ttl})
	s2.Add(NewSweep("sweep-a", "a", 4, 1, 2))
	w := s2.Connect("a", 4)
	for _, gr := range g {
		if _, ok := s2.Adopt(w, "sweep-a", gr.Job, gr.Token); ok {
			t.Fatalf("new process adopted job %d under token %d", gr.Job, gr.Token)
		}
	}
	if got := jobs(s2.Lease(w)); !slices.Equal(got, []int{0, 1, 2, 3}) {
		t.Fatalf("new process leased %v, want every job afresh", got)
	}
}

// TestOrphanTokensEndWithTheJob: a disconnected lease's token is no good
// once its job is committed, or failed for good, even if the job runs
// again.
func TestOrphanTokensEndWithTheJob(t *testing.T) {
	fx := newFixture(t, 2, 1, 1)
	a := fx.s.Connect("a", 2)
	g := fx.lease(a)
	fx.s.Disconnect(a)
	b := fx.s.Connect("b", 2)
	gb := fx.lease(b) // queued again in no particular order
	slices.SortFunc(gb, func(x, y Grant) int { return x.Job - y.Job })
	fx.complete(b, gb[0])                           // job 0 committed
	fx.s.Fail(b, gb[1].Token, "sweep-a", 1, "boom") // job 1: a failed delivery, limit 1
	if st := fx.status(); st.Done != 1 || st.Failed != 1 {
		t.Fatalf("status %+v", st)
	}
	if err := fx.s.Resume("sweep-a", true); err != nil { // job 1 runs again
		t.Fatal(err)
	}
	a2 := fx.s.Connect("a", 2)
	for _, gr := range g {
		if _, ok := fx.s.Adopt(a2, "sweep-a", gr.Job, gr.Token); ok {
			t.Errorf("job %d adopted under a token from before its commit or failure", gr.Job)
		}
	}
	if f := fx.sw.flights[1]; f != nil && len(f.orphans) != 0 {
		t.Fatalf("job 1 still keeps orphan tokens %v", f.orphans)
	}
}

// TestLastErrorIsClearedWhenItsJobSucceeds: an error whose job later
// succeeds stops showing; a complete sweep shows its last failure, or
// nothing.
func TestLastErrorIsClearedWhenItsJobSucceeds(t *testing.T) {
	fx := newFixture(t, 3, 1, 2)
	a := fx.s.Connect("a", 1)
	g := fx.lease(a)[0] // job 0: an error, then success
	fx.s.Fail(a, g.Token, "sweep-a", 0, "fit: transient")
	if st := fx.status(); st.LastError != "fit: transient" {
		t.Fatalf("while running: %q", st.LastError)
	}
	fx.complete(a, fx.lease(a)[0])
	if st := fx.status(); st.LastError != "" {
		t.Fatalf("after the job succeeded: %q, want empty", st.LastError)
	}
	g = fx.lease(a)[0] // job 1: fails for good
	fx.s.Fail(a, g.Token, "sweep-a", 1, "fit: first")
	g = fx.lease(a)[0]
	fx.s.Fail(a, g.Token, "sweep-a", 1, "fit: for good")
	g = fx.lease(a)[0] // job 2: a store error, then success
	fx.s.Complete(a, g.Token, "sweep-a", 2, nil)
	fx.s.CommitFailed("sweep-a", 2, errors.New("disk full"))
	if st := fx.status(); st.LastError != "disk full" {
		t.Fatalf("after the store error: %q", st.LastError)
	}
	fx.complete(a, fx.lease(a)[0])
	if st := fx.status(); !st.Closed || st.Failed != 1 || st.LastError != "fit: for good" {
		t.Fatalf("complete with a failure: %+v, want the failure as last error", st)
	}
	if err := fx.s.Resume("sweep-a", true); err != nil {
		t.Fatal(err)
	}
	fx.complete(a, fx.lease(a)[0])
	if st := fx.status(); !st.Closed || st.Failed != 0 || st.LastError != "" {
		t.Fatalf("complete without failures: %+v, want no last error", st)
	}
}

// TestAdoptVouchedOncePerToken: a token of an earlier coordinator life
// that the caller vouches for is adopted once in this life, even after
// the adopted lease is lost and its job queued again; another token of
// that job still is. Once its proof has expired (the until given) Tick
// forgets it.
func TestAdoptVouchedOncePerToken(t *testing.T) {
	fx := newFixture(t, 2, 1, 3)
	until := fx.clock.Now().Add(time.Minute)
	a := fx.s.Connect("a", 2)
	if _, ok := fx.s.AdoptVouched(a, "sweep-a", 0, 41, until); !ok {
		t.Fatal("first vouched claim refused")
	}
	fx.s.Disconnect(a) // the adopted lease is lost: job 0 is queued again
	a = fx.s.Connect("a", 2)
	cases := []struct {
		name  string
		token uint64
		ok    bool
	}{
		{"the same token again", 41, false},
		{"zero token", 0, false},
		{"another token of the job", 42, true},
	}
	for _, c := range cases {
		if _, ok := fx.s.AdoptVouched(a, "sweep-a", 0, c.token, until); ok != c.ok {
			t.Errorf("%s: adopted %v, want %v", c.name, ok, c.ok)
		}
	}
	fx.clock.Advance(time.Minute)
	fx.s.Tick()
	if len(fx.s.vouched) != 2 {
		t.Fatalf("forgot %v before its proof expired", fx.s.vouched)
	}
	fx.clock.Advance(time.Millisecond)
	fx.s.Tick()
	if len(fx.s.vouched) != 0 {
		t.Fatalf("still remembers %v after its proof expired", fx.s.vouched)
	}
}
