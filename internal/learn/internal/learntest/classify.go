package learntest

import (
	"context"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// ProbaPredictor is a fitted classifier as the learner packages return
// it.
type ProbaPredictor interface {
	PredictProba(ctx context.Context, X *mat.Dense) (*mat.Dense, error)
}

// ClassFit is a classifier's FitClass.
type ClassFit[M ProbaPredictor] func(ctx context.Context, X *mat.Dense, y []float64, k int, rng *rand.Rand) (M, error)

// BinaryPaperData draws n rows of the paper's Model 1 design (PaperData,
// d = 9, mean-imputed, no mask) with the binary class 1{X1² + ε > 2}
// (about 40% ones) in place of the regression target.
func BinaryPaperData(r *rand.Rand, n int, means []float64) (*mat.Dense, []float64, []float64) {
	X, y, means := PaperData(r, n, means, false)
	for i, v := range y {
		if v > 2 {
			y[i] = 1
		} else {
			y[i] = 0
		}
	}
	return X, y, means
}

// BenchFitPredictProba times fit + PredictProba of a binary classifier
// on BinaryPaperData with n_train = n_test = n, reporting CPU
// milliseconds per operation beside wall time, and returns them. When
// dir is not empty it first writes the rows to dir/train.csv and
// dir/test.csv (header y, x1..x9; test y is the true class) so that a
// reference script can time its package on the same rows.
func BenchFitPredictProba[M ProbaPredictor](b *testing.B, n int, dir string, fit ClassFit[M]) float64 {
	r := rand.New(rand.NewPCG(7, 13))
	Xtr, ytr, means := BinaryPaperData(r, n, nil)
	Xte, yte, _ := BinaryPaperData(r, n, means)
	if dir != "" {
		WriteXY(b, filepath.Join(dir, "train.csv"), Xtr, ytr)
		WriteXY(b, filepath.Join(dir, "test.csv"), Xte, yte)
	}
	ctx := context.Background()
	b.ReportAllocs()
	start := CPUTime()
	for b.Loop() {
		m, err := fit(ctx, Xtr, ytr, 2, r)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := m.PredictProba(ctx, Xte); err != nil {
			b.Fatal(err)
		}
	}
	ms := float64(CPUTime()-start) / float64(b.N) / 1e6
	b.ReportMetric(ms, "cpu-ms/op")
	return ms
}

// WriteXY writes y and the columns of X as a CSV with header y, x1..xp,
// numbers in the shortest form that reads back exactly.
func WriteXY(tb testing.TB, path string, X *mat.Dense, y []float64) {
	tb.Helper()
	n, p := X.Dims()
	var sb strings.Builder
	sb.WriteString("y")
	for j := range p {
		sb.WriteString(",x" + strconv.Itoa(j+1))
	}
	sb.WriteByte('\n')
	for i := range n {
		sb.WriteString(strconv.FormatFloat(y[i], 'g', -1, 64))
		for _, v := range X.RawRowView(i) {
			sb.WriteString("," + strconv.FormatFloat(v, 'g', -1, 64))
		}
		sb.WriteByte('\n')
	}
	if err := os.WriteFile(path, []byte(sb.String()), 0o644); err != nil {
		tb.Fatal(err)
	}
}
