package sched

import (
	"slices"
	"testing"
	"time"
)

// endsOf returns the events of one reason, in order.
func (fx *fixture) endsOf(r EndReason) []LeaseEnd {
	var out []LeaseEnd
	for _, e := range fx.ends {
		if e.Reason == r {
			out = append(out, e)
		}
	}
	return out
}

func tokensOf(es []LeaseEnd) []uint64 {
	out := make([]uint64, len(es))
	for i, e := range es {
		out[i] = e.Token
	}
	slices.Sort(out)
	return out
}

func grantTokens(gs []Grant) []uint64 {
	out := make([]uint64, len(gs))
	for i, g := range gs {
		out[i] = g.Token
	}
	slices.Sort(out)
	return out
}

// TestExpiryIsReportedOnce: a lease that runs out is reported as expired
// once, however many ticks follow, and a renewed one is not reported.
func TestExpiryIsReportedOnce(t *testing.T) {
	fx := newFixture(t, 2, 1, 3)
	a := fx.s.Connect("a", 2)
	g := fx.lease(a)
	fx.clock.Advance(ttl / 2)
	fx.s.Heartbeat(a, []uint64{g[0].Token}) // job 0 renewed, job 1 not
	fx.clock.Advance(ttl/2 + time.Millisecond)
	for range 3 {
		fx.s.Tick()
	}
	exp := fx.endsOf(EndExpired)
	if len(exp) != 1 || exp[0].Token != g[1].Token || exp[0].Job != 1 || exp[0].Worker != "a" || exp[0].SweepID != "sweep-a" {
		t.Fatalf("expired events %+v, want one for job 1's lease", exp)
	}
	if len(fx.ends) != 1 {
		t.Fatalf("events %+v, want only the expiry", fx.ends)
	}
}

// TestDisconnectAndReleaseAreReported: a broken stream's leases end as
// disconnected, a drained worker's as released (not a failed delivery),
// an accepted result's as completed and the loser of a race as revoked.
func TestDisconnectAndReleaseAreReported(t *testing.T) {
	fx := newFixtureWith(t, 4, 1, Options{MaxDeliveries: 1, MaxLostDeliveries: 1}) // one failed or lost delivery fails a job
	a, b := fx.s.Connect("a", 2), fx.s.Connect("b", 2)
	ga, gb := fx.lease(a), fx.lease(b)
	if got := fx.s.Held(b); !slices.Equal(got, grantTokens(gb)) {
		t.Fatalf("Held(b) = %v, want %v", got, grantTokens(gb))
	}
	fx.s.Release(b, []uint64{gb[0].Token})
	if rel := fx.endsOf(EndReleased); len(rel) != 1 || rel[0].Token != gb[0].Token {
		t.Fatalf("released events %+v", rel)
	}
	if len(fx.failed) != 0 {
		t.Fatalf("a release counted as a failed delivery: %v", fx.failed)
	}
	fx.s.Disconnect(a)
	if got := tokensOf(fx.endsOf(EndDisconnected)); !slices.Equal(got, grantTokens(ga)) {
		t.Fatalf("disconnected tokens %v, want a's %v", got, grantTokens(ga))
	}
	if lim := fx.endsOf(EndDeliveryLimit); len(lim) != 2 {
		t.Fatalf("delivery-limit events %+v, want a's 2 jobs (limit 1)", lim)
	}
	if got := fx.s.Held(a); len(got) != 0 {
		t.Fatalf("Held(a) after disconnect = %v", got)
	}
	fx.complete(b, gb[1])
	if c := fx.endsOf(EndCompleted); len(c) != 1 || c[0].Token != gb[1].Token {
		t.Fatalf("completed events %+v", c)
	}
}

// TestDeliveryLimitIsReportedOnce: the job's last failed delivery is
// reported first, then the job's failure, once, with its last error.
func TestDeliveryLimitIsReportedOnce(t *testing.T) {
	fx := newFixture(t, 1, 1, 2)
	a := fx.s.Connect("a", 1)
	g := fx.lease(a)[0]
	fx.s.Fail(a, g.Token, "sweep-a", 0, "fit: singular")
	g = fx.lease(a)[0]
	fx.clock.Advance(ttl + time.Millisecond)
	fx.s.Tick()
	fx.s.Tick()
	fx.s.Heartbeat(a, nil)
	g = fx.lease(a)[0]
	fx.s.Fail(a, g.Token, "sweep-a", 0, "fit: singular again")
	fx.s.Disconnect(a)
	want := []EndReason{EndFailed, EndExpired, EndFailed, EndDeliveryLimit}
	var got []EndReason
	for _, e := range fx.ends {
		got = append(got, e.Reason)
	}
	if !slices.Equal(got, want) {
		t.Fatalf("events %v, want %v", got, want)
	}
	if lim := fx.ends[3]; lim.Job != 0 || lim.Msg != "fit: singular again" || lim.Token != g.Token {
		t.Fatalf("delivery limit %+v, want job 0, the last error, the last lease", lim)
	}
	if st := fx.status(); st.Failed != 1 || st.LastError != "fit: singular again" {
		t.Fatalf("status %+v", st)
	}
}

// TestCancelAndSpeculationRevoke: leases ended by a cancel or by another
// lease's result are reported as revoked.
func TestCancelAndSpeculationRevoke(t *testing.T) {
	fx := newFixture(t, 1, 2, 3)
	a := fx.s.Connect("a", 2)
	g := fx.lease(a)
	fx.complete(a, g[0])
	if err := fx.s.Cancel("sweep-a"); err != nil {
		t.Fatal(err)
	}
	rev := fx.endsOf(EndRevoked)
	if len(rev) != 1 || rev[0].Token != g[1].Token || rev[0].Msg != "sweep cancelled" {
		t.Fatalf("revoked events %+v", rev)
	}
}

func TestEndReasonNames(t *testing.T) {
	for r, want := range map[EndReason]string{EndExpired: "expired", EndDisconnected: "disconnected",
		EndDeliveryLimit: "delivery-limit", EndReason(0): "?", EndReason(99): "?"} {
		if got := r.String(); got != want {
			t.Errorf("%d: %q, want %q", int(r), got, want)
		}
	}
}
