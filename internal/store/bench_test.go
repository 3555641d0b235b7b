package store

import (
	"path/filepath"
	"testing"
	"time"
)

// benchPipelines are ten pipelines of the paper's grids.
var benchPipelines = []string{"tree/mia", "tree/mean", "tree/surrogate", "forest/mia", "forest/mean", "boost/mia",
	"boost/mean", "svm/mean", "knn/mean", "linear/mean"}

// benchStore stores a sweep of 100 scenarios × 100 repetitions × 10
// pipelines (100,000 results) and returns the store and the sweep.
func benchStore(b *testing.B) (*Store, *Sweep, string) {
	b.Helper()
	rates := make([]float64, 100)
	for i := range rates {
		rates[i] = float64(i) / 200
	}
	pipes := benchPipelines
	dir := b.TempDir()
	s, err := Open(dir, Options{NoSync: true})
	must(b, err)
	sw := testSweep(b, rates, 100, pipes...)
	id := put(b, s, sw)
	var recs []Record
	for j := range sw.Jobs() {
		recs = append(recs, record(id, sw, j, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9))
		if len(recs) == 2048 || j == sw.Jobs()-1 { // the writer's batch
			must(b, s.Commit(recs))
			recs = recs[:0]
		}
	}
	return s, sw, dir
}

// BenchmarkCommit commits batches of 2048 job records of 10 results
// each (the writer's batch), fsync off: the encoding, framing and
// counting cost per result.
func BenchmarkCommit(b *testing.B) {
	s, _ := openTest(b, Options{NoSync: true})
	rates := make([]float64, 1000)
	for i := range rates {
		rates[i] = float64(i) / 2000
	}
	sw := testSweep(b, rates, 1000, benchPipelines...)
	id := testHash(sw)
	b.ResetTimer()
	start, n := time.Now(), 0
	for i := range b.N {
		recs := make([]Record, 2048)
		for k := range recs {
			recs[k] = record(id, sw, (i*2048+k)%sw.Jobs(), 0, 1, 2, 3, 4, 5, 6, 7, 8, 9)
		}
		must(b, s.Commit(recs))
		n += 2048 * 10
	}
	b.ReportMetric(float64(n)/time.Since(start).Seconds(), "results/s")
}

// BenchmarkSweepResults reads the 100,000 results of a sweep (what a
// report reads), checking every frame.
func BenchmarkSweepResults(b *testing.B) {
	s, sw, _ := benchStore(b)
	b.ResetTimer()
	for range b.N {
		n := 0
		must(b, s.SweepResults(sw, func(int, int, int, int, Result) error { n++; return nil }))
		if n != 100_000 {
			b.Fatalf("%d results", n)
		}
	}
	b.ReportMetric(float64(100_000*b.N)/b.Elapsed().Seconds(), "results/s")
}

// BenchmarkOpenCheck opens a store of 100,000 results read-only: the
// walk of every page, frame and count that every open does.
func BenchmarkOpenCheck(b *testing.B) {
	s, _, dir := benchStore(b)
	must(b, s.Close())
	b.ResetTimer()
	for range b.N {
		r, err := OpenReadOnly(dir)
		must(b, err)
		r.Close()
	}
	size := fileSize(filepath.Join(dir, FileName))
	b.ReportMetric(float64(size)/1e6, "file-MB")
}
