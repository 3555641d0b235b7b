package server_test

import (
	"context"
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/misslab/misslab/internal/grid"
	"github.com/misslab/misslab/internal/server"
	"github.com/misslab/misslab/internal/worker"
)

// noopSweep returns a sweep of at least n jobs over 100 scenarios.
func noopSweep(b *testing.B, n int, seed uint64) *grid.Sweep {
	rates := make([]float64, 100)
	for i := range rates {
		rates[i] = float64(i) / 200
	}
	return testSweep(b, seed, (n+99)/100, rates, "tree/mia")
}

// BenchmarkGRPCNoopJobs pushes no-op jobs through the whole path: gRPC
// streams to 8 in-process workers on loopback, batched leases and
// results, and batched, fsynced bbolt writes. Target: ≥ 20,000 jobs/s.
func BenchmarkGRPCNoopJobs(b *testing.B) {
	for _, workers := range []int{8} {
		b.Run(fmt.Sprintf("workers=%d", workers), func(b *testing.B) {
			c := startCluster(b, b.TempDir(), server.Options{})
			for i := range workers {
				ctx, cancel := context.WithCancel(context.Background())
				done := make(chan struct{})
				go func() {
					defer close(done)
					_ = worker.Run(ctx, worker.Options{Addr: c.addr, ID: fmt.Sprint("w", i), Parallel: 4, Prefetch: 60,
						Executor: worker.Noop{}})
				}()
				b.Cleanup(func() { cancel(); <-done })
			}
			sw := noopSweep(b, max(b.N, 100), uint64(b.N))
			b.ResetTimer()
			start := time.Now()
			st := c.wait(c.submit(sw).SweepId)
			elapsed := time.Since(start)
			b.StopTimer()
			if st.Done != int64(sw.Jobs()) {
				b.Fatalf("status %v", st)
			}
			b.ReportMetric(float64(sw.Jobs())/elapsed.Seconds(), "jobs/s")
		})
	}
}

// BenchmarkSubmit1M submits a 1-million-job sweep (1000 scenarios × 1000
// repetitions) to a coordinator on a fresh store: record, draws, progress
// scan and scheduler state. It reports the heap the loaded sweep holds.
func BenchmarkSubmit1M(b *testing.B) {
	rates := make([]float64, 1000)
	for i := range rates {
		rates[i] = float64(i) / 2000
	}
	sw := testSweep(b, 1, 1000, rates, "tree/mia", "tree/mean")
	for range b.N {
		coord, err := server.Open(context.Background(), b.TempDir(), server.Options{})
		if err != nil {
			b.Fatal(err)
		}
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		st, err := coord.Submit(context.Background(), sw)
		if err != nil || st.Jobs != 1_000_000 {
			b.Fatal(st, err)
		}
		runtime.GC()
		runtime.ReadMemStats(&after)
		b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc), "heap-bytes")
		coord.Close()
	}
}
