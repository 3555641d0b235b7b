package sched

import (
	"runtime"
	"testing"
)

// BenchmarkSchedulerPerJob measures coordinator CPU per no-op job: lease
// in batches of 64, accept, commit. Target: under 50 µs per job.
func BenchmarkSchedulerPerJob(b *testing.B) {
	s := New(Options{})
	sw, _ := s.Add(NewSweep("bench", "", 1000, (b.N+999)/1000, 4))
	ws := []*Worker{s.Connect("a", 64), s.Connect("b", 64)}
	b.ReportAllocs()
	b.ResetTimer()
	done := 0
	for done < b.N {
		for _, w := range ws {
			for _, g := range s.Lease(w) {
				if o, _ := s.Complete(w, g.Token, sw.ID, g.Job, nil); o != Accepted {
					b.Fatal(o)
				}
				s.Committed(sw.ID, g.Job)
				done++
			}
		}
	}
}

// BenchmarkSweepMemory1M reports the heap held by the scheduler state of a
// 1-million-job sweep (1000 scenarios × 1000 repetitions) with 64 jobs
// in flight.
func BenchmarkSweepMemory1M(b *testing.B) {
	for range b.N {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		s := New(Options{})
		sw, _ := s.Add(NewSweep("m", "", 1000, 1000, 4))
		w := s.Connect("w", 64)
		if len(s.Lease(w)) != 64 {
			b.Fatal("lease")
		}
		runtime.GC()
		runtime.ReadMemStats(&after)
		b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc), "heap-bytes")
		runtime.KeepAlive(sw)
		runtime.KeepAlive(s)
	}
}
