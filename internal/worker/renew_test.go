package worker

import (
	"bytes"
	"testing"

	pb "github.com/misslab/misslab/proto/misslab/v1"
)

// TestRenewedProofsAreHeld: a worker keeps the proof of each renewal in
// place of its lease's earlier one, for jobs it holds and for jobs
// parked while their sweep's table is fetched, so that after a
// reconnection it presents the latest (the earlier expires sooner); a
// renewal of a lease it does not hold changes nothing.
func TestRenewedProofsAreHeld(t *testing.T) {
	w, err := newWorker(Options{Addr: "unused", Executor: Noop{}})
	if err != nil {
		t.Fatal(err)
	}
	held := batch("A", 1, 2)
	held.Jobs[0].Proof, held.Jobs[1].Proof = []byte("first-1"), []byte("first-2")
	w.addJobs(held)
	gate := newTableGate()
	parked := batch("B", 3)
	parked.Jobs[0].Proof = []byte("first-3")
	gate.park(parked)
	renewals := []*pb.Renewal{{Token: 1, Proof: []byte("renewed-1")}, {Token: 3, Proof: []byte("renewed-3")},
		{Token: 9, Proof: []byte("not held")}}
	w.renew(renewals)
	gate.renew(renewals)
	got := map[uint64][]byte{}
	for _, h := range w.hello().GetHeld() {
		got[h.GetToken()] = h.GetProof()
	}
	for _, j := range gate.unpark(parked).GetJobs() {
		got[j.GetToken()] = j.GetProof()
	}
	want := map[uint64]string{1: "renewed-1", 2: "first-2", 3: "renewed-3"}
	if len(got) != len(want) {
		t.Fatalf("proofs of tokens %v, want those of %v", got, want)
	}
	for tok, p := range want {
		if !bytes.Equal(got[tok], []byte(p)) {
			t.Errorf("token %d: proof %q, want %q", tok, got[tok], p)
		}
	}
}
