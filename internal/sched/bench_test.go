package sched

import (
	"fmt"
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

// BenchmarkSchedulerPerJobCaps measures coordinator CPU per no-op job with
// 1000 workers of capacity 4, every one asking for leases in turn (the
// incapable ones get nothing, or only built-in-only partial jobs, and
// their empty requests are counted in):
//   - none: no sweep needs anything (baseline at the same scale);
//   - half: pipeline 1 of 4 needs "py@x", offered by half of the workers;
//   - none-partial: as none, with every other job lacking only pipeline 0;
//   - half-partial: as half, with every other job lacking only pipeline 0
//     (built in), which the incapable workers take.
func BenchmarkSchedulerPerJobCaps(b *testing.B) {
	for _, bc := range []struct {
		name           string
		needs, partial bool
	}{{"none", false, false}, {"half", true, false}, {"none-partial", false, true}, {"half-partial", true, true}} {
		b.Run(bc.name, func(b *testing.B) {
			s := New(Options{})
			sw := NewSweep("bench", "", 1000, (b.N+999)/1000, 4)
			if bc.needs {
				sw.Require(1, "py@x")
			}
			for j := 0; bc.partial && j < sw.Jobs(); j += 2 {
				sw.MarkPartial(j, []int{0})
			}
			s.Add(sw)
			ws := make([]*Worker, 1000)
			for i := range ws {
				var caps []string
				if i%2 == 0 {
					caps = []string{"py@x"}
				}
				ws[i] = s.Connect(fmt.Sprint("w", i), 4, caps...)
			}
			b.ReportAllocs()
			b.ResetTimer()
			done, calls := 0, 0
			for done < b.N {
				for _, w := range ws {
					calls++
					for _, g := range s.Lease(w) {
						if o, _ := s.Complete(w, g.Token, sw.ID, g.Job, nil); o != Accepted {
							b.Fatal(o)
						}
						s.Committed(sw.ID, g.Job)
						done++
					}
				}
			}
			b.ReportMetric(float64(calls)/float64(done), "leases/job")
		})
	}
}
