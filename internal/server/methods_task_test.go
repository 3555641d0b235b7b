package server_test

import (
	"context"
	"strings"
	"testing"

	"google.golang.org/grpc/codes"

	"github.com/misslab/misslab/internal/grid"
	"github.com/misslab/misslab/internal/methodid"
	"github.com/misslab/misslab/internal/server"
	"github.com/misslab/misslab/internal/wire"
	"github.com/misslab/misslab/internal/worker"
	pb "github.com/misslab/misslab/proto/misslab/v1"
)

// hgbC regresses and classifies (tasks = ["regression", "classification"]).
var hgbC = methodid.Method{Name: "hgbc", Kind: methodid.Learner, AcceptsMissing: true, Tasks: methodid.TasksBoth,
	ID: strings.Repeat("d", 64)}

// binarySweep is a binary task over the external learner natively and
// a tree behind the external imputer knn_impute, unbound as a grid file
// gives them.
func binarySweep(t testing.TB, learner string) *grid.Sweep {
	t.Helper()
	f, err := grid.Parse([]byte(`sweep "cls" {
  seed        = 3
  repetitions = 2
  methods     = ["`+learner+`", "knn_impute"]
  data {
    model = "quadratic"
    task  = "binary"
  }
  pipelines { names = ["`+learner+`/native", "tree/knn_impute"] }
}
`), "cls.hcl", grid.ParseOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return f.Sweeps[0]
}

// TestSubmitChecksMethodTasks: a classification sweep naming a learner
// whose methods file does not declare classification is refused at
// submit (InvalidArgument, naming it and how to declare it); one that
// declares it runs on a worker offering it, and its stored sweep keeps
// the declaration across a restart.
func TestSubmitChecksMethodTasks(t *testing.T) {
	dir := t.TempDir()
	c := startCluster(t, dir, server.Options{})
	startOffering(t, c.addr, "py", worker.Deterministic{}, hgbA, hgbC, knnI)
	waitOffered(t, c, hgbC)
	_, err := c.client.Submit(context.Background(), &pb.SubmitRequest{Spec: wire.SpecToProto(binarySweep(t, "hgb"))})
	if code(err) != codes.InvalidArgument || !strings.Contains(err.Error(), `external learner "hgb" does not declare classification`) ||
		!strings.Contains(err.Error(), `tasks = ["regression", "classification"]`) {
		t.Fatalf("a binary sweep with a regression-only learner: %v", err)
	}
	id := c.submit(binarySweep(t, "hgbc")).GetSweepId()
	if st := c.wait(id); st.GetDone() != 2 {
		t.Fatalf("the classifying learner's sweep: %v", st)
	}
	c.close()
	coord, err := server.Open(context.Background(), dir, server.Options{})
	if err != nil {
		t.Fatalf("reopening with a stored classification sweep: %v", err)
	}
	defer coord.Close()
	if st, err := coord.Status(id); err != nil || st.Jobs != 2 || st.Done != 2 {
		t.Fatalf("after restart: %+v, %v", st, err)
	}
}
