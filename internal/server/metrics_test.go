package server_test

import (
	"context"
	"net"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	"github.com/misslab/misslab/internal/grid"
	"github.com/misslab/misslab/internal/metrics"
	"github.com/misslab/misslab/internal/server"
	"github.com/misslab/misslab/internal/sim"
	"github.com/misslab/misslab/internal/worker"
)

// value returns the value of the metric name whose labels include want
// (a counter's or gauge's value, a histogram's sample count); ok is false
// when there is no such metric.
func metricValue(t *testing.T, g prometheus.Gatherer, name string, want map[string]string) (float64, bool) {
	t.Helper()
	fams, err := g.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range fams {
		if f.GetName() != name {
			continue
		}
	metric:
		for _, m := range f.GetMetric() {
			for _, lp := range m.GetLabel() {
				if v, ok := want[lp.GetName()]; ok && v != lp.GetValue() {
					continue metric
				}
			}
			return metricNumber(m), true
		}
	}
	return 0, false
}

func metricNumber(m *dto.Metric) float64 {
	switch {
	case m.Counter != nil:
		return m.GetCounter().GetValue()
	case m.Gauge != nil:
		return m.GetGauge().GetValue()
	case m.Histogram != nil:
		return float64(m.GetHistogram().GetSampleCount())
	}
	return -1
}

func metricsSweep(t *testing.T, reps int, rates []float64, pipes ...string) *grid.Sweep {
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

func TestCoordinatorMetricsFollowASweep(t *testing.T) {
	reg := metrics.NewRegistry()
	m := server.NewMetrics(reg)
	coord, err := server.Open(t.TempDir(), server.Options{Observer: m})
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

	sw := metricsSweep(t, 4, []float64{0.1, 0.2, 0.3}, "tree/mia", "linear/mean") // 12 jobs
	if _, err := coord.Submit(sw); err != nil {
		t.Fatal(err)
	}
	id := sw.Hash()[:12]
	if v, _ := metricValue(t, reg, "misslab_sweep_jobs", map[string]string{"sweep": id, "state": "pending"}); v != 12 {
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
	waitMetric(t, func() bool {
		v, _ := metricValue(t, reg, "misslab_sweep_jobs", map[string]string{"sweep": id, "state": "done"})
		return v == 12
	})
	if v, _ := metricValue(t, reg, "misslab_workers", nil); v != 2 {
		t.Errorf("workers = %v, want 2", v)
	}
	stopWorkers()
	for range 2 {
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
	waitMetric(t, func() bool { v, _ := metricValue(t, reg, "misslab_workers", nil); return v == 0 })
	checks := []struct {
		name   string
		labels map[string]string
		want   func(float64) bool
		says   string
	}{
		{"misslab_results_total", map[string]string{"outcome": "accepted"}, eqMetric(12), "= 12"},
		{"misslab_results_total", map[string]string{"outcome": "stale"}, eqMetric(0), "= 0"},
		{"misslab_store_committed_records_total", nil, eqMetric(12), "= 12"},
		{"misslab_store_commit_seconds", nil, betweenMetric(1, 12), "1..12 transactions"},
		{"misslab_leases_granted_total", nil, betweenMetric(12, 40), "≥ 12"},
		{"misslab_worker_connections_total", nil, eqMetric(2), "= 2"},
		{"misslab_lease_expiries_total", nil, eqMetric(0), "= 0"},
		{"misslab_sweep_jobs", map[string]string{"sweep": id, "name": "metrics", "state": "pending"}, eqMetric(0), "= 0"},
		{"misslab_sweep_jobs", map[string]string{"sweep": id, "state": "failed"}, eqMetric(0), "= 0"},
		{"misslab_sweep_cancelled", map[string]string{"sweep": id}, eqMetric(0), "= 0"},
		{"misslab_store_backlog_records", nil, eqMetric(0), "= 0 once committed"},
		{"process_resident_memory_bytes", nil, betweenMetric(1<<20, 1<<40), "> 1 MiB"},
	}
	for _, c := range checks {
		v, ok := metricValue(t, reg, c.name, c.labels)
		if !ok || !c.want(v) {
			t.Errorf("%s%v = %v (present %v), want %s", c.name, c.labels, v, ok, c.says)
		}
	}
}

func eqMetric(w float64) func(float64) bool { return func(v float64) bool { return v == w } }
func betweenMetric(a, b float64) func(float64) bool {
	return func(v float64) bool { return v >= a && v <= b }
}

func waitMetric(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not met in 20 s")
		}
		time.Sleep(10 * time.Millisecond)
	}
}
