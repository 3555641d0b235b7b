package server_test

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	"github.com/misslab/misslab/internal/client"
	"github.com/misslab/misslab/internal/grid"
	"github.com/misslab/misslab/internal/server"
	"github.com/misslab/misslab/internal/wire"
	pb "github.com/misslab/misslab/proto/misslab/v1"
)

// TestSubmitValidatesLikeTheCLI: a sweep sent by any gRPC client gets the
// checks of a grid file. A bad one is refused with InvalidArgument naming
// the field, and nothing is stored (before, `tree/mia {cp: 7}` was stored
// and every job became an error row while status said 0 failed).
func TestSubmitValidatesLikeTheCLI(t *testing.T) {
	c := startCluster(t, t.TempDir(), server.Options{})
	good := wire.SpecToProto(testSweep(t, 1, 2, []float64{0.2}, "tree/mia"))
	withPipe := func(name string, s map[string]float64) *pb.SweepSpec {
		spec := wire.SpecToProto(testSweep(t, 1, 2, []float64{0.2}, "tree/mia"))
		spec.Pipelines[0] = &pb.Pipeline{Name: name, Settings: s}
		return spec
	}
	many := wire.SpecToProto(testSweep(t, 1, 1, []float64{0.2}, "tree/mia"))
	for i := range grid.MaxScenarios {
		sc := proto.Clone(many.Scenarios[0]).(*pb.Scenario)
		sc.NTrain = int32(100 + i)
		many.Scenarios = append(many.Scenarios, sc)
	}
	for _, tc := range []struct {
		name string
		spec *pb.SweepSpec
		want []string
	}{
		{"setting out of range", withPipe("tree/mia", map[string]float64{"cp": 7}), []string{"pipelines[0]", "cp = 7"}},
		{"every bad setting", withPipe("tree/mia", map[string]float64{"wibble": 1, "minbucket": -5}),
			[]string{"pipelines[0]", `"wibble"`, "minbucket = -5"}},
		{"unknown strategy", withPipe("svm/mia", nil), []string{"pipelines[0]", `"mia"`}},
		{"too many scenarios", many, []string{"scenarios: 100001 scenarios exceed the limit of 100000"}},
	} {
		_, err := c.client.Submit(context.Background(), &pb.SubmitRequest{Spec: tc.spec})
		if status.Code(err) != codes.InvalidArgument {
			t.Errorf("%s: %v, want InvalidArgument", tc.name, err)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(status.Convert(err).Message(), w) {
				t.Errorf("%s: %q does not say %q", tc.name, status.Convert(err).Message(), w)
			}
		}
	}
	if recs, err := c.coord.Store().Sweeps(); err != nil || len(recs) != 0 {
		t.Fatalf("refused sweeps were stored: %d, %v", len(recs), err)
	}
	if _, err := c.client.Submit(context.Background(), &pb.SubmitRequest{Spec: good}); err != nil {
		t.Fatalf("a good sweep was refused: %v", err)
	}
}

// TestOversizedSubmitNamesTheLimit: a message beyond wire.MaxMessageBytes
// is refused by gRPC before any handler runs, with the limit in the text.
func TestOversizedSubmitNamesTheLimit(t *testing.T) {
	if testing.Short() {
		t.Skip("allocates a 65 MB message")
	}
	c := startCluster(t, t.TempDir(), server.Options{})
	cl, err := client.Dial(c.addr)
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	spec := wire.SpecToProto(testSweep(t, 1, 1, []float64{0.2}, "tree/mia"))
	spec.Name = strings.Repeat("x", wire.MaxMessageBytes+1)
	_, err = cl.Submit(context.Background(), &pb.SubmitRequest{Spec: spec})
	if code := status.Code(err); code != codes.ResourceExhausted || !strings.Contains(err.Error(), "67108864") {
		t.Fatalf("oversized submit: %v (%v), want ResourceExhausted naming the limit 67108864", err, code)
	}
}

// TestSweepNamedEverywhere: status, export and cancel accept a sweep's
// name as report does (the latest submitted sweep of that name).
func TestSweepNamedEverywhere(t *testing.T) {
	c := startCluster(t, t.TempDir(), server.Options{})
	sw := testSweep(t, 1, 2, []float64{0.2}, "linear/mean")
	sw.Name = "alpha"
	id := c.submit(sw).GetSweepId()
	ctx := context.Background()
	st, err := c.client.Status(ctx, &pb.StatusRequest{SweepId: "alpha"})
	if err != nil || len(st.GetSweeps()) != 1 || st.GetSweeps()[0].GetSweepId() != id {
		t.Fatalf("status by name: %v, %v", st, err)
	}
	cl, err := client.Dial(c.addr)
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	var csv bytes.Buffer
	if err := cl.Export(ctx, "alpha", &csv); err != nil || !strings.HasPrefix(csv.String(), "sweep") {
		t.Fatalf("export by name: %v, %.80q", err, csv.String())
	}
	resp, err := c.client.Cancel(ctx, &pb.CancelRequest{SweepId: "alpha"})
	if err != nil || resp.GetStatus().GetState() != pb.SweepStatus_STATE_CANCELLED {
		t.Fatalf("cancel by name: %v, %v", resp, err)
	}
	_, err = c.client.Status(ctx, &pb.StatusRequest{SweepId: "beta"})
	if status.Code(err) != codes.NotFound || !strings.Contains(err.Error(), `"alpha"`) {
		t.Fatalf("unknown name: %v, want NotFound listing the stored sweeps", err)
	}
}
