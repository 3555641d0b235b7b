//go:build compose

package compose_test

import (
	"path/filepath"
	"testing"
	"time"

	pb "github.com/misslab/misslab/proto/misslab/v1"
)

// TestLoad32Workers runs 32 worker containers against one coordinator
// with no-op jobs for a fixed time and reports the coordinator's CPU,
// memory and dispatch rate (results stored per second), read from its
// own metrics. It fails if workers drop out, if any result is invalid,
// or if the rate falls below a floor far under what 2 cores sustain.
func TestLoad32Workers(t *testing.T) {
	const (
		workers = 32
		warmup  = 5 * time.Second
		window  = 40 * time.Second
		floor   = 1000.0 // jobs/s
	)
	p := up(t, workers, "MISSLAB_EXECUTOR=noop", "MISSLAB_PARALLEL=2", "MISSLAB_PREFETCH=30", "MISSLAB_LOG_LEVEL=warn")
	c := p.client()
	id := p.submit(filepath.Join(root, "deploy", "compose", "testdata", "noop.hcl"))
	p.waitStatus(c, id, time.Minute, "first results", func(st *pb.SweepStatus) bool { return st.GetDone() > 0 })
	time.Sleep(warmup)
	const accepted, cpu, rss = `misslab_results_total{outcome="accepted"}`, "process_cpu_seconds_total", "process_resident_memory_bytes"
	m0, t0 := p.metrics(), time.Now()
	peak, peakBacklog, stats := m0[rss], 0.0, ""
	for time.Since(t0) < window {
		time.Sleep(5 * time.Second)
		m := p.metrics()
		peak, peakBacklog = max(peak, m[rss]), max(peakBacklog, m["misslab_store_backlog_records"])
		if stats == "" && time.Since(t0) > window/2 {
			stats = p.docker("stats", "--no-stream", "--format", "{{.CPUPerc}} CPU, {{.MemUsage}}", p.containers("coordinator")[0]) +
				"; one worker " + p.docker("stats", "--no-stream", "--format", "{{.CPUPerc}} CPU, {{.MemUsage}}", p.containers("worker")[0])
		}
		if m["misslab_workers"] != workers {
			t.Errorf("%v workers connected during the load, want %d", m["misslab_workers"], workers)
		}
	}
	m1, t1 := p.metrics(), time.Now()
	secs := t1.Sub(t0).Seconds()
	rate := (m1[accepted] - m0[accepted]) / secs
	cores := (m1[cpu] - m0[cpu]) / secs
	t.Logf("LOAD %d workers × 2 slots, no-op jobs, %.0fs window: dispatch %.0f jobs/s; coordinator CPU %.2f cores, "+
		"RSS %.1f MiB now, %.1f MiB peak; store commits %v (mean %.1f ms), peak backlog %v records; docker stats mid-window: coordinator %s",
		workers, secs, rate, cores, m1[rss]/(1<<20), peak/(1<<20), m1["misslab_store_commit_seconds_count"]-m0["misslab_store_commit_seconds_count"],
		1000*(m1["misslab_store_commit_seconds_sum"]-m0["misslab_store_commit_seconds_sum"])/
			max(1, m1["misslab_store_commit_seconds_count"]-m0["misslab_store_commit_seconds_count"]),
		peakBacklog, stats)
	if rate < floor {
		t.Errorf("dispatch rate %.0f jobs/s, want at least %.0f", rate, floor)
	}
	if v := m1[`misslab_results_total{outcome="invalid"}`]; v != 0 {
		t.Errorf("%v invalid results", v)
	}
	if out, err := p.cli(append([]string{"cancel", id, "--addr", p.port(7420)}, clientArgs()...)...); err != nil {
		t.Errorf("cancel: %v\n%s", err, out)
	}
}
