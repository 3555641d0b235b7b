package server_test

import (
	"context"
	"net"
	"testing"
	"time"

	"github.com/misslab/misslab/internal/metrics"
	"github.com/misslab/misslab/internal/metrics/metricstest"
	"github.com/misslab/misslab/internal/server"
	"github.com/misslab/misslab/internal/worker"
)

// TestCoordinatorMetricsFollowASweep: the coordinator's collector counts
// workers, leases, results and commits of a real sweep, and reports each
// sweep's jobs by state.
func TestCoordinatorMetricsFollowASweep(t *testing.T) {
	reg := metrics.NewRegistry()
	m := server.NewMetrics(reg)
	coord, err := server.Open(context.Background(), t.TempDir(), server.Options{Observer: m})
	if err != nil {
		t.Fatal(err)
	}
	defer coord.Close()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, stop := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- coord.Serve(ctx, lis) }()
	defer func() { stop(); <-served }()

	sw := testSweep(t, 4, 4, []float64{0.1, 0.2, 0.3}, "tree/mia", "linear/mean") // 12 jobs
	sw.Name = "metrics"
	if _, err := coord.Submit(context.Background(), sw); err != nil {
		t.Fatal(err)
	}
	id := sw.Hash()[:12]
	if v, _ := metricstest.Value(t, reg, "misslab_sweep_jobs", map[string]string{"sweep": id, "state": "pending"}); v != 12 {
		t.Fatalf("pending before any worker = %v, want 12", v)
	}
	wctx, stopWorkers := context.WithCancel(context.Background())
	done := make(chan error, 2)
	for _, name := range []string{"a", "b"} {
		go func() {
			done <- worker.Run(wctx, worker.Options{Addr: lis.Addr().String(), ID: name, Parallel: 2,
				Executor: worker.Slow{Executor: worker.Deterministic{}, Delay: 20 * time.Millisecond}})
		}()
	}
	metricstest.WaitFor(t, func() bool {
		v, _ := metricstest.Value(t, reg, "misslab_sweep_jobs", map[string]string{"sweep": id, "state": "done"})
		return v == 12
	})
	if v, _ := metricstest.Value(t, reg, "misslab_workers", nil); v != 2 {
		t.Errorf("workers = %v, want 2", v)
	}
	stopWorkers()
	for range 2 {
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
	metricstest.WaitFor(t, func() bool { v, _ := metricstest.Value(t, reg, "misslab_workers", nil); return v == 0 })
	checks := []struct {
		name   string
		labels map[string]string
		want   func(float64) bool
		says   string
	}{
		{"misslab_results_total", map[string]string{"outcome": "accepted"}, metricstest.Eq(12), "= 12"},
		{"misslab_results_total", map[string]string{"outcome": "stale"}, metricstest.Eq(0), "= 0"},
		{"misslab_store_committed_records_total", nil, metricstest.Eq(12), "= 12"},
		{"misslab_store_commit_seconds", nil, metricstest.Between(1, 12), "1..12 transactions"},
		{"misslab_leases_granted_total", nil, metricstest.Between(12, 40), "≥ 12"},
		{"misslab_worker_connections_total", nil, metricstest.Eq(2), "= 2"},
		{"misslab_lease_expiries_total", nil, metricstest.Eq(0), "= 0"},
		{"misslab_sweep_jobs", map[string]string{"sweep": id, "name": "metrics", "state": "pending"}, metricstest.Eq(0), "= 0"},
		{"misslab_sweep_jobs", map[string]string{"sweep": id, "state": "failed"}, metricstest.Eq(0), "= 0"},
		{"misslab_sweep_cancelled", map[string]string{"sweep": id}, metricstest.Eq(0), "= 0"},
		{"misslab_store_backlog_records", nil, metricstest.Eq(0), "= 0 once committed"},
		{"process_resident_memory_bytes", nil, metricstest.Between(1<<20, 1<<40), "> 1 MiB"},
	}
	for _, c := range checks {
		v, ok := metricstest.Value(t, reg, c.name, c.labels)
		if !ok || !c.want(v) {
			t.Errorf("%s%v = %v (present %v), want %s", c.name, c.labels, v, ok, c.says)
		}
	}
}

// TestReleasedLeasesAreCounted: a worker that drains hands back the
// leases it has not started; the coordinator counts them as released,
// not expired or lost.
func TestReleasedLeasesAreCounted(t *testing.T) {
	reg := metrics.NewRegistry()
	m := server.NewMetrics(reg)
	c := startCluster(t, t.TempDir(), server.Options{Observer: m})
	if _, err := c.coord.Submit(context.Background(), testSweep(t, 4, 4, []float64{0.1, 0.2, 0.3}, "tree/mia")); err != nil {
		t.Fatal(err)
	}
	ctx, stop := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- worker.Run(ctx, worker.Options{Addr: c.addr, ID: "drainer", Parallel: 1, Prefetch: 3,
			Executor: worker.Slow{Executor: worker.Deterministic{}, Delay: 300 * time.Millisecond}, DrainTimeout: 5 * time.Second})
	}()
	metricstest.WaitFor(t, func() bool { v, _ := metricstest.Value(t, reg, "misslab_leases_granted_total", nil); return v >= 4 })
	stop() // drain: the running job finishes, the prefetched ones go back
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	// Every lease ended with a result or handed back, whatever the timing
	// (leases still in transit when the drain began go back too).
	value := func(name string, labels map[string]string) float64 {
		v, _ := metricstest.Value(t, reg, name, labels)
		return v
	}
	metricstest.WaitFor(t, func() bool {
		return value("misslab_leases_released_total", nil)+value("misslab_results_total", map[string]string{"outcome": "accepted"}) ==
			value("misslab_leases_granted_total", nil)
	})
	if r := value("misslab_leases_released_total", nil); r < 1 {
		t.Errorf("released %v leases, want the prefetched ones", r)
	}
	for _, name := range []string{"misslab_lease_expiries_total", "misslab_leases_lost_on_disconnect_total"} {
		if v, _ := metricstest.Value(t, reg, name, nil); v != 0 {
			t.Errorf("%s = %v, want 0 after a drain", name, v)
		}
	}
}
