package server_test

import (
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
			if len(j.GetProof()) != 16 {
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
	if rb[0].GetNewToken() == 0 || len(rb[0].GetProof()) != 16 {
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
