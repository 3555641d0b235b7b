package server_test

import (
	"context"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/misslab/misslab/internal/reportgen"
	"github.com/misslab/misslab/internal/server"
	"github.com/misslab/misslab/internal/store"
	"github.com/misslab/misslab/internal/storeconv"
	pb "github.com/misslab/misslab/proto/misslab/v1"
)

// TestNonFiniteResultsAreStoredAsFailures: a worker reporting NaN and
// ±Inf scores completes its job, each bad pipeline run is stored as an
// invalid-result failure naming the field, and the report builds.
func TestNonFiniteResultsAreStoredAsFailures(t *testing.T) {
	c := startCluster(t, t.TempDir(), server.Options{LeaseTTL: time.Minute})
	sw := testSweep(t, 23, 1, []float64{0.1}, "tree/mia", "tree/mean", "linear/mean") // one job
	id := c.submit(sw).SweepId
	s, _ := hello(t.Context(), t, dialRawWorker(t, c.addr), "nan", 1)
	recvType[*pb.WorkResponse_Sweep](t, s)
	job := recvType[*pb.WorkResponse_Jobs](t, s).Jobs.GetJobs()[0]
	it := sendResult(t, s, &pb.JobResult{Token: job.GetToken(), SweepId: id, Job: job.GetJob(),
		Pipelines: []*pb.PipelineResult{
			{Pipeline: 0, R2: math.NaN(), Mse: math.NaN(), FitSeconds: 0.1, PredictSeconds: 0.01},
			{Pipeline: 1, R2: 0.4, Mse: 0.6, FitSeconds: math.Inf(1), PredictSeconds: 0.01},
			{Pipeline: 2, R2: 0.5, Mse: 0.5, FitSeconds: 0.1, PredictSeconds: 0.01},
		}})
	if it.GetOutcome() != pb.Ack_OUTCOME_ACCEPTED || !strings.Contains(it.GetReason(), "r2 is NaN") {
		t.Fatalf("ack %v, want accepted, saying r2 is NaN", it)
	}
	if st := c.wait(id); st.Done != 1 || st.Failed != 0 {
		t.Fatalf("status %v, want the job done", st)
	}
	st := c.coord.Store()
	for p, want := range []string{"worker sent r2 is NaN", "worker sent fit_seconds is +Inf", ""} {
		r, ok, err := st.Lookup(storeconv.ToStore(sw), 0, p)
		if err != nil || !ok {
			t.Fatalf("pipeline %d: stored %v, %v", p, ok, err)
		}
		if want == "" && (r.ErrKind != "" || r.R2 != 0.5) || want != "" && (r.ErrKind != store.KindInvalid || r.ErrMsg != want) {
			t.Errorf("pipeline %d: stored %+v, want %q", p, r, want)
		}
	}
	rec, _, err := reportgen.Resolve(st, id)
	if err != nil {
		t.Fatal(err)
	}
	in, err := reportgen.Build(context.Background(), st, rec)
	if err != nil {
		t.Fatalf("report: %v", err)
	}
	if len(in.Failures) != 2 || in.Jobs.Done != 1 {
		t.Fatalf("report failures %+v, jobs %+v; want the 2 invalid runs, 1 job done", in.Failures, in.Jobs)
	}
	if _, err := reportgen.Write(context.Background(), st, rec, t.TempDir()); err != nil {
		t.Fatalf("report: %v", err)
	}
}
