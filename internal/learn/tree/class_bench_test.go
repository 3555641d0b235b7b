package tree

import (
	"context"
	"encoding/csv"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/misslab/misslab/internal/learn/internal/learntest"
)

// classBenchData draws n rows of Figure 3's design made binary: d = 9
// equicorrelated (0.5) Gaussians with mean 1, 20% MCAR on x1..x3, and
// class 1{X1² + X2² + X3² + N(0, 0.1²) > 4} (about half the rows).
func classBenchData(n int, rng *rand.Rand) (*mat.Dense, []float64) {
	X, y := gaussData(n, 9, 3, 0.5, 0.2, rng)
	for i, v := range y {
		y[i] = 0
		if v > 4 {
			y[i] = 1
		}
	}
	return X, y
}

// writeClassCSV writes y (if not nil) and the columns x1..xd of X to
// path, NaN as NA, every number round-tripping.
func writeClassCSV(path string, X *mat.Dense, y []float64) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := csv.NewWriter(f)
	n, d := X.Dims()
	var head []string
	if y != nil {
		head = append(head, "y")
	}
	for j := range d {
		head = append(head, "x"+strconv.Itoa(j+1))
	}
	_ = w.Write(head)
	for i := range n {
		rec := head[:0:0]
		if y != nil {
			rec = append(rec, strconv.FormatFloat(y[i], 'g', -1, 64))
		}
		for j := range d {
			rec = append(rec, "NA")
			if v := X.At(i, j); !math.IsNaN(v) {
				rec[len(rec)-1] = strconv.FormatFloat(v, 'g', -1, 64)
			}
		}
		_ = w.Write(rec)
	}
	w.Flush()
	if err := w.Error(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// benchClass times FitClass + PredictProba with the paper's controls
// (Strategy Surrogate) on n training and n test rows of classBenchData,
// reporting CPU milliseconds per operation and the number of leaves, then
// times rpart on the same rows with testdata/bench_class_rpart.R (reps
// runs), reported as rpart-ms and ratio-rpart (rpart / misslab: above 1,
// misslab is faster). Without R and rpart the reference is skipped.
func benchClass(b *testing.B, n, reps int) {
	rng := rand.New(rand.NewPCG(41, uint64(n)))
	X, y := classBenchData(n, rng)
	Xt, _ := classBenchData(n, rng)
	ctx := context.Background()
	p := PaperDefaults()
	leaves := 0
	b.ReportAllocs()
	c0 := learntest.CPUTime()
	for b.Loop() {
		m, err := FitClass(ctx, X, y, 2, p, rng)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := m.PredictProba(ctx, Xt); err != nil {
			b.Fatal(err)
		}
		leaves = m.NumLeaves()
	}
	ms := float64(learntest.CPUTime()-c0) / 1e6 / float64(b.N)
	b.ReportMetric(ms, "cpu-ms/op")
	b.ReportMetric(float64(leaves), "leaves")
	dir := b.TempDir()
	if err := writeClassCSV(filepath.Join(dir, "train.csv"), X, y); err != nil {
		b.Fatal(err)
	}
	if err := writeClassCSV(filepath.Join(dir, "test.csv"), Xt, nil); err != nil {
		b.Fatal(err)
	}
	re := regexp.MustCompile(`rpart class \+ predict prob: ([0-9.]+) ms cpu`)
	learntest.Reference(b, "rpart", ms, re, 1, "Rscript", "testdata/bench_class_rpart.R", dir, strconv.Itoa(reps))
}

// BenchmarkClassTree: FitClass + PredictProba, n_train = n_test = 1000,
// d = 9, binary, 20% MCAR on three columns (Figure 3's design), the
// paper's controls with surrogates; rpart timed side by side.
func BenchmarkClassTree(b *testing.B) { benchClass(b, 1000, 200) }

// BenchmarkClassTree10k is BenchmarkClassTree with n_train = n_test = 10⁴.
func BenchmarkClassTree10k(b *testing.B) { benchClass(b, 10000, 20) }
