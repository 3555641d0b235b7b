package server_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/grpc/codes"

	"github.com/misslab/misslab/internal/fpclass"
	"github.com/misslab/misslab/internal/grid"
	"github.com/misslab/misslab/internal/methodid"
	"github.com/misslab/misslab/internal/server"
	"github.com/misslab/misslab/internal/wire"
	"github.com/misslab/misslab/internal/worker"
	pb "github.com/misslab/misslab/proto/misslab/v1"
)

var (
	hgbA = methodid.Method{Name: "hgb", Kind: methodid.Learner, AcceptsMissing: true, ID: strings.Repeat("a", 64)}
	hgbB = methodid.Method{Name: "hgb", Kind: methodid.Learner, AcceptsMissing: true, ID: strings.Repeat("b", 64)}
	knnI = methodid.Method{Name: "knn_impute", Kind: methodid.Imputer, ID: strings.Repeat("c", 64)}
)

// methodSweep is a quadratic sweep with a built-in pipeline and pipelines
// naming the external methods hgb and knn_impute, unbound as a grid file
// gives them.
func methodSweep(t testing.TB, reps int) *grid.Sweep {
	t.Helper()
	sw := testSweep(t, 11, reps, []float64{0.2}, "tree/mean")
	decl := []methodid.Method{{Name: "hgb"}, {Name: "knn_impute"}}
	for _, name := range []string{"hgb/native", "tree/knn_impute+mask"} {
		p, err := grid.NewPipelineWith(name, nil, decl)
		if err != nil {
			t.Fatal(err)
		}
		sw.Pipelines = append(sw.Pipelines, p)
	}
	return sw
}

// byWorker is the deterministic executor recording which worker ran
// which pipelines.
type byWorker struct {
	id  string
	mu  *sync.Mutex
	ran map[string]map[string]int // worker → pipeline label → count
}

func (b byWorker) Execute(ctx context.Context, sw *grid.Sweep, scenario, rep int, pipelines []int) ([]worker.Result, error) {
	b.mu.Lock()
	for _, p := range pipelines {
		if b.ran[b.id] == nil {
			b.ran[b.id] = map[string]int{}
		}
		b.ran[b.id][sw.Pipelines[p].Label()]++
	}
	b.mu.Unlock()
	return worker.Deterministic{}.Execute(ctx, sw, scenario, rep, pipelines)
}

// startOffering runs an in-process worker offering ms until the test
// ends; the returned function stops it.
func startOffering(t testing.TB, addr, id string, exec worker.Executor, ms ...methodid.Method) context.CancelFunc {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		err := worker.Run(ctx, worker.Options{Addr: addr, ID: id, Parallel: 2, Executor: exec, Methods: ms,
			MinBackoff: 10 * time.Millisecond, MaxBackoff: 100 * time.Millisecond, DrainTimeout: 5 * time.Second})
		if err != nil {
			t.Error(err)
		}
	}()
	stop := func() { cancel(); <-done }
	t.Cleanup(stop)
	return stop
}

// waitOffered polls until the coordinator has heard n offers of capability c.
func waitOffered(t testing.TB, c *cluster, m methodid.Method) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for c.coord.Offers()[m.Name+"@"+m.ID] == 0 {
		if time.Now().After(deadline) {
			t.Fatalf("no worker offers %s", m.Name)
		}
		time.Sleep(5 * time.Millisecond) // polling a condition with a deadline
	}
}

func TestSubmitRefusesUnknownMethodByName(t *testing.T) {
	c := startCluster(t, t.TempDir(), server.Options{})
	_, err := c.client.Submit(context.Background(), &pb.SubmitRequest{Spec: wire.SpecToProto(methodSweep(t, 1))})
	if code(err) != codes.FailedPrecondition || !strings.Contains(err.Error(), `method "hgb" is unknown`) {
		t.Fatalf("submit with nobody offering hgb: %v", err)
	}
	st, err := c.client.Status(context.Background(), &pb.StatusRequest{})
	if err != nil || len(st.GetSweeps()) != 0 {
		t.Fatalf("a refused sweep was stored: %v %v", st, err)
	}
}

func TestJobsGoOnlyToCapableWorkers(t *testing.T) {
	c := startCluster(t, t.TempDir(), server.Options{})
	var mu sync.Mutex
	ran := map[string]map[string]int{}
	startOffering(t, c.addr, "plain", byWorker{"plain", &mu, ran})
	stopPy := startOffering(t, c.addr, "py", byWorker{"py", &mu, ran}, hgbA, knnI)
	waitOffered(t, c, hgbA)
	sw := methodSweep(t, 6)
	resp := c.submit(sw)
	st := c.wait(resp.GetSweepId())
	if st.GetDone() != 6 || len(st.GetWaitingFor()) != 0 {
		t.Fatalf("status %v", st)
	}
	mu.Lock()
	if n := len(ran["plain"]); n != 0 {
		t.Errorf("the worker without methods ran %v", ran["plain"])
	}
	if ran["py"]["hgb/native"] != 6 || ran["py"]["tree/knn_impute+mask"] != 6 {
		t.Errorf("the capable worker ran %v", ran["py"])
	}
	mu.Unlock()

	// The coordinator stored the pipelines bound to the identities offered.
	stored, err := c.client.Status(context.Background(), &pb.StatusRequest{SweepId: resp.GetSweepId()})
	if err != nil || len(stored.GetSweeps()) != 1 {
		t.Fatal(err)
	}
	// With the capable worker gone, a new sweep binds nothing and says so.
	stopPy()
	_, err = c.client.Submit(context.Background(), &pb.SubmitRequest{Spec: wire.SpecToProto(methodSweep(t, 7))})
	if code(err) != codes.FailedPrecondition {
		t.Fatalf("submit after the capable worker left: %v", err)
	}
}

func TestCatalogBindsAndStatusWaits(t *testing.T) {
	c := startCluster(t, t.TempDir(), server.Options{Methods: []methodid.Method{hgbA, knnI}})
	startOffering(t, c.addr, "plain", worker.Deterministic{})
	resp := c.submit(methodSweep(t, 2))
	want := []string{"hgb@" + hgbA.ID, "knn_impute@" + knnI.ID}
	deadline := time.Now().Add(10 * time.Second)
	for {
		st, err := c.client.Status(context.Background(), &pb.StatusRequest{SweepId: resp.GetSweepId()})
		if err != nil {
			t.Fatal(err)
		}
		s := st.GetSweeps()[0]
		if strings.Join(s.GetWaitingFor(), " ") == strings.Join(want, " ") {
			if s.GetDone() != 0 {
				t.Fatalf("jobs done without a capable worker: %v", s)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("status never said what it waits for: %v", s)
		}
		time.Sleep(5 * time.Millisecond) // polling a condition with a deadline
	}
	// A worker offering another identity of hgb does not unblock it.
	startOffering(t, c.addr, "other", worker.Deterministic{}, hgbB, knnI)
	waitOffered(t, c, hgbB)
	startOffering(t, c.addr, "py", worker.Deterministic{}, hgbA, knnI)
	if st := c.wait(resp.GetSweepId()); st.GetDone() != 2 || len(st.GetWaitingFor()) != 0 {
		t.Fatalf("after a capable worker joined: %v", st)
	}
}

func TestAmbiguousAndMisplacedMethods(t *testing.T) {
	c := startCluster(t, t.TempDir(), server.Options{})
	startOffering(t, c.addr, "a", worker.Deterministic{}, hgbA, knnI)
	startOffering(t, c.addr, "b", worker.Deterministic{}, hgbB, knnI)
	waitOffered(t, c, hgbA)
	waitOffered(t, c, hgbB)
	_, err := c.client.Submit(context.Background(), &pb.SubmitRequest{Spec: wire.SpecToProto(methodSweep(t, 1))})
	if code(err) != codes.FailedPrecondition || !strings.Contains(err.Error(), `method "hgb" is ambiguous`) {
		t.Fatalf("two identities of hgb: %v", err)
	}
	// knn_impute is an imputer: a grid using it as a learner is refused.
	sw := testSweep(t, 1, 1, []float64{0.2})
	p, err := grid.NewPipelineWith("knn_impute/native", nil, []methodid.Method{{Name: "knn_impute"}})
	if err != nil {
		t.Fatal(err)
	}
	sw.Pipelines = append(sw.Pipelines, p)
	_, err = c.client.Submit(context.Background(), &pb.SubmitRequest{Spec: wire.SpecToProto(sw)})
	if code(err) != codes.FailedPrecondition || !strings.Contains(err.Error(), "grid uses it as a learner") {
		t.Fatalf("an imputer as a learner: %v", err)
	}
}

// TestHelloWithBadMethodsIsRefused: a worker's offer must carry a kind
// and a well-formed identity.
func TestHelloWithBadMethodsIsRefused(t *testing.T) {
	c := startCluster(t, t.TempDir(), server.Options{})
	for _, ref := range []*pb.MethodRef{
		{Name: "hgb", Kind: "learner"},                   // no identity
		{Name: "hgb", Kind: "learner", Id: "xyz"},        // not hex
		{Name: "Bad Name", Kind: "learner", Id: hgbA.ID}, // not a method name
		{Name: "hgb", Kind: "trainer", Id: hgbA.ID},      // no such kind
		{Name: "forest", Kind: "learner", Id: hgbA.ID},   // a built-in
	} {
		s := dialRawWorker(t, c.addr).open(t)
		if err := s.Send(&pb.WorkRequest{Msg: &pb.WorkRequest_Hello{Hello: &pb.Hello{FpClass: fpclass.Current(), WorkerId: "x", Capacity: 1,
			Methods: []*pb.MethodRef{ref}}}}); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Recv(); code(err) != codes.InvalidArgument {
			t.Errorf("hello offering %v: %v, want InvalidArgument", ref, err)
		}
	}
}

// TestMethodSweepSurvivesRestart: a sweep's bound methods are stored with
// it; a restarted coordinator (without a methods file or workers) loads
// it, keeps its identity and still knows what its jobs need.
func TestMethodSweepSurvivesRestart(t *testing.T) {
	dir := t.TempDir()
	c := startCluster(t, dir, server.Options{Methods: []methodid.Method{hgbA, knnI}})
	id := c.submit(methodSweep(t, 2)).GetSweepId()
	c.close()
	coord, err := server.Open(context.Background(), dir, server.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer coord.Close()
	st, err := coord.Status(id)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"hgb@" + hgbA.ID, "knn_impute@" + knnI.ID}
	if strings.Join(st.Waiting, " ") != strings.Join(want, " ") || st.Jobs != 2 {
		t.Fatalf("after restart: %+v", st)
	}
}
