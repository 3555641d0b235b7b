package metrics_test

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/misslab/misslab/internal/grid"
	"github.com/misslab/misslab/internal/metrics"
	"github.com/misslab/misslab/internal/metrics/metricstest"
	"github.com/misslab/misslab/internal/sim"
	"github.com/misslab/misslab/internal/worker"
)

func sweep(t *testing.T, reps int, rates []float64, pipes ...string) *grid.Sweep {
	t.Helper()
	sw := &grid.Sweep{Name: "metrics", Seed: 4, Repetitions: reps}
	for _, r := range rates {
		sc, err := sim.Defaults(sim.Quadratic)
		if err != nil {
			t.Fatal(err)
		}
		sc.Rate = r
		sw.Scenarios = append(sw.Scenarios, sc)
	}
	for _, p := range pipes {
		sw.Pipelines = append(sw.Pipelines, grid.MustPipeline(p, nil))
	}
	return sw
}

// gate blocks each job until released, and fails when told to.
type gate struct {
	started chan struct{}
	release chan struct{}
	fail    bool
}

func (g *gate) Execute(ctx context.Context, sw *grid.Sweep, sc, rep int, pipes []int) ([]worker.Result, error) {
	g.started <- struct{}{}
	<-g.release
	if g.fail {
		return nil, errors.New("boom")
	}
	out := make([]worker.Result, len(pipes))
	for i, p := range pipes {
		out[i] = worker.Result{Pipeline: p, R2: 0.5, FitSeconds: 0.25}
		if sw.Pipelines[p].Name() == "svm/mean" {
			out[i] = worker.Result{Pipeline: p, ErrKind: "fit", ErrMsg: "no convergence"}
		}
	}
	return out, nil
}

func TestWorkerMetrics(t *testing.T) {
	reg := prometheus.NewRegistry()
	m := metrics.NewWorker(reg, 4)
	g := &gate{started: make(chan struct{}), release: make(chan struct{})}
	exec := worker.Observe(g, m)
	sw := sweep(t, 1, []float64{0.1}, "tree/mia", "tree/mean", "forest/mia", "svm/mean")
	results := make(chan error, 2)
	for range 2 {
		go func() {
			_, err := exec.Execute(context.Background(), sw, 0, 0, []int{0, 1, 2, 3})
			results <- err
		}()
	}
	<-g.started
	<-g.started
	if v, _ := metricstest.Value(t, reg, "misslab_worker_busy_ratio", nil); v != 0.5 {
		t.Errorf("busy ratio with 2 of 4 slots running = %v, want 0.5", v)
	}
	time.Sleep(20 * time.Millisecond)
	close(g.release)
	for range 2 {
		if err := <-results; err != nil {
			t.Fatal(err)
		}
	}
	g2 := &gate{started: make(chan struct{}, 1), release: make(chan struct{}), fail: true}
	close(g2.release)
	if _, err := worker.Observe(g2, m).Execute(context.Background(), sw, 0, 0, []int{0}); err == nil {
		t.Fatal("the failing executor's error was lost")
	}
	checks := []struct {
		name   string
		labels map[string]string
		want   func(float64) bool
	}{
		{"misslab_worker_fits_total", map[string]string{"learner": "tree"}, metricstest.Eq(4)},
		{"misslab_worker_fits_total", map[string]string{"learner": "forest"}, metricstest.Eq(2)},
		{"misslab_worker_fits_total", map[string]string{"learner": "svm"}, metricstest.Eq(2)},
		{"misslab_worker_fit_errors_total", map[string]string{"learner": "svm"}, metricstest.Eq(2)},
		{"misslab_worker_fit_seconds_total", map[string]string{"learner": "tree"}, metricstest.Eq(1)},
		{"misslab_worker_jobs_total", map[string]string{"result": "ok"}, metricstest.Eq(2)},
		{"misslab_worker_jobs_total", map[string]string{"result": "error"}, metricstest.Eq(1)},
		{"misslab_worker_busy_ratio", nil, metricstest.Eq(0)},
		{"misslab_worker_slots", nil, metricstest.Eq(4)},
		{"misslab_worker_busy_seconds_total", nil, metricstest.Between(0.04, 10)},
	}
	for _, c := range checks {
		if v, ok := metricstest.Value(t, reg, c.name, c.labels); !ok || !c.want(v) {
			t.Errorf("%s%v = %v (present %v)", c.name, c.labels, v, ok)
		}
	}
	if _, ok := metricstest.Value(t, reg, "misslab_worker_fit_errors_total", map[string]string{"learner": "tree"}); ok {
		t.Error("fit errors reported for tree, which had none")
	}
}

func TestLearner(t *testing.T) {
	for in, want := range map[string]string{"forest/mia": "forest", "svm/gaussian+mask": "svm", "bayes": "bayes", "": ""} {
		if got := metrics.Learner(in); got != want {
			t.Errorf("Learner(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestServe(t *testing.T) {
	reg := metrics.NewRegistry()
	metrics.NewWorker(reg, 0)
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- metrics.Serve(ctx, lis, reg) }()
	get := func(path string) string {
		resp, err := http.Get("http://" + lis.Addr().String() + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != 200 {
			t.Fatalf("%s: %s", path, resp.Status)
		}
		return string(b)
	}
	if body := get("/metrics"); !strings.Contains(body, "misslab_worker_slots 0") ||
		!strings.Contains(body, "process_cpu_seconds_total") {
		t.Fatalf("/metrics lacks the worker's metrics:\n%.500s", body)
	}
	if body := get("/healthz"); body != "ok\n" {
		t.Fatalf("/healthz = %q", body)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}
