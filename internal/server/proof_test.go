package server_test

import (
	"bytes"
	"testing"
	"time"

	"github.com/misslab/misslab/internal/server"
	pb "github.com/misslab/misslab/proto/misslab/v1"
)

// TestRestartAdoptsOnlyProvenLeases: a coordinator restarted on the same
// data directory adopts a job a worker really held in its earlier life
// (the lease's proof verifies under the store's key), but refuses a claim
// whose proof is missing, belongs to another job or is altered, so a
// client cannot take over pending jobs after a restart either.
func TestRestartAdoptsOnlyProvenLeases(t *testing.T) {
	dir := t.TempDir()
	c := startCluster(t, dir, server.Options{LeaseTTL: time.Minute, SpeculateAfter: time.Hour})
	sw := testSweep(t, 5, 1, []float64{0.1, 0.2, 0.3, 0.4}, "tree/mia") // jobs 0..3
	id := c.submit(sw).SweepId
	g, _ := hello(t.Context(), t, dialRawWorker(t, c.addr), "genuine", 4)
	recvType[*pb.WorkResponse_Sweep](t, g)
	jobs := map[int64]*pb.Job{}
	for len(jobs) < 4 {
		for _, j := range recvType[*pb.WorkResponse_Jobs](t, g).Jobs.GetJobs() {
			if len(j.GetProof()) != 32 {
				t.Fatalf("job %d came with a %d-byte proof", j.GetJob(), len(j.GetProof()))
			}
			jobs[j.GetJob()] = j
		}
	}
	c.close()

	c2 := startCluster(t, dir, server.Options{LeaseTTL: time.Minute, SpeculateAfter: time.Hour})
	altered := append([]byte(nil), jobs[3].GetProof()...)
	altered[0] ^= 1
	held := []*pb.Held{
		{SweepId: id, Job: 0, Token: jobs[0].GetToken(), Proof: jobs[0].GetProof()}, // genuine
		{SweepId: id, Job: 1, Token: jobs[1].GetToken()},                            // no proof
		{SweepId: id, Job: 2, Token: jobs[2].GetToken(), Proof: jobs[1].GetProof()}, // another job's
		{SweepId: id, Job: 3, Token: jobs[3].GetToken(), Proof: altered},            // altered
	}
	s, rb := hello(t.Context(), t, dialRawWorker(t, c2.addr), "genuine", 4, held...)
	if rb[0].GetNewToken() == 0 || len(rb[0].GetProof()) != 32 {
		t.Fatalf("the genuine claim was refused after the restart: %v", rb[0])
	}
	for i, r := range rb[1:] {
		if r.GetNewToken() != 0 {
			t.Errorf("claim %d (%v) was adopted: %v", i+1, held[i+1], r)
		}
	}
	it := sendResult(t, s, &pb.JobResult{Token: rb[0].GetNewToken(), SweepId: id, Job: 0,
		Pipelines: []*pb.PipelineResult{{Pipeline: 0, R2: 0.5, Mse: 0.5}}})
	if it.GetOutcome() != pb.Ack_OUTCOME_ACCEPTED {
		t.Fatalf("the adopted job's result: %v", it)
	}
}

// TestRenewedProofVouchesOnceAfterRestart: after a restart a lease's
// proof vouches for it only until the restart grace past the deadline it
// was issued with; each heartbeat answers with a fresh proof for the
// extended deadline, which outlives the first; and a proof vouches once.
// (Before: proofs never expired and vouched as often as presented.)
func TestRenewedProofVouchesOnceAfterRestart(t *testing.T) {
	dir, clock := t.TempDir(), newManualClock()
	opts := server.Options{Clock: clock, LeaseTTL: time.Minute, RestartGrace: 5 * time.Minute, SpeculateAfter: time.Hour}
	c := startCluster(t, dir, opts)
	id := c.submit(testSweep(t, 6, 1, []float64{0.1}, "tree/mia")).SweepId // job 0 alone
	s, _ := hello(t.Context(), t, dialRawWorker(t, c.addr), "w", 1)
	j := takeLeases(t, s, 1)[0] // deadline now + 1 min: its proof expires 6 min from now
	clock.Advance(50 * time.Second)
	must(t, s.Send(&pb.WorkRequest{Msg: &pb.WorkRequest_Heartbeat{Heartbeat: &pb.Heartbeat{Tokens: []uint64{j.GetToken()}}}}))
	rn := recvType[*pb.WorkResponse_Renew](t, s).Renew.GetLeases()
	if len(rn) != 1 || rn[0].GetToken() != j.GetToken() || rn[0].GetDeadlineUnixNano() != clock.Now().Add(time.Minute).UnixNano() ||
		len(rn[0].GetProof()) != 32 || bytes.Equal(rn[0].GetProof(), j.GetProof()) {
		t.Fatalf("renewal %v of lease %v, want a fresh proof for the new deadline", rn, j)
	}
	c.close()
	clock.Advance(5*time.Minute + 20*time.Second) // past the first proof's expiry, within the renewed one's

	c2 := startCluster(t, dir, opts)
	raw := dialRawWorker(t, c2.addr)
	first := &pb.Held{SweepId: id, Job: 0, Token: j.GetToken(), Proof: j.GetProof()}
	renewed := &pb.Held{SweepId: id, Job: 0, Token: j.GetToken(), Proof: rn[0].GetProof()}
	for _, tc := range []struct {
		name string
		held *pb.Held
		ok   bool
	}{
		{"the first proof, expired", first, false},
		{"the renewed proof", renewed, true},
		{"the renewed proof again", renewed, false},
	} {
		_, rb := hello(t.Context(), t, raw, "w", 1, tc.held)
		if got := rb[0].GetNewToken() != 0; got != tc.ok {
			t.Errorf("%s: adopted %v, want %v", tc.name, got, tc.ok)
		}
	}
}
