package stats

import (
	"fmt"
	"io"
	"math/rand/v2"
	"testing"
)

// paperSizedRecords mimics the paper's Experiment 1 output: 3 scenarios
// (mechanisms) × 5 learners × 10 strategies × 1000 repetitions = 150 000
// records, with 0.1% failed runs.
func paperSizedRecords() []Record {
	rng := rand.New(rand.NewPCG(1, 1))
	var recs []Record
	for s := range 3 {
		for l := range 5 {
			for st := range 10 {
				for rep := range 1000 {
					r2 := 0.7 + 0.01*float64(st) + 0.05*rng.NormFloat64()
					recs = append(recs, Record{Scenario: fmt.Sprintf("scen-%d", s), Rep: rep,
						Pipeline: fmt.Sprintf("learner%d/strategy%d", l, st), R2: r2, MSE: 10 * (1 - r2),
						FitSeconds: rng.ExpFloat64(), PredictSeconds: rng.ExpFloat64() / 100,
						Failed: rng.IntN(1000) == 0})
				}
			}
		}
	}
	return recs
}

func BenchmarkSummarize(b *testing.B) {
	recs := paperSizedRecords()
	b.ResetTimer()
	for b.Loop() {
		if _, err := Summarize(recs, PrefixGroup("/")); err != nil {
			b.Fatal(err)
		}
	}
}

// 3 scenarios × 5 learners × 45 pairs = 675 paired t-tests with df ≈ 998.
func BenchmarkPairwiseTests(b *testing.B) {
	recs := paperSizedRecords()
	b.ResetTimer()
	for b.Loop() {
		if _, err := PairwiseTests(recs, PrefixGroup("/"), 0.95); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkPairedTTest1000(b *testing.B) {
	rng := rand.New(rand.NewPCG(2, 2))
	x, y := make([]float64, 1000), make([]float64, 1000)
	for i := range x {
		x[i], y[i] = rng.NormFloat64(), rng.NormFloat64()
	}
	for b.Loop() {
		if _, err := PairedTTest(x, y, 0.95); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkWriteResultsCSV(b *testing.B) {
	recs := paperSizedRecords()
	b.ResetTimer()
	for b.Loop() {
		if err := WriteResultsCSV(io.Discard, recs); err != nil {
			b.Fatal(err)
		}
	}
}
