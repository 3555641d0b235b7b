package svm_test

import (
	"context"
	"encoding/csv"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/misslab/misslab/internal/learn/internal/learntest"
	"github.com/misslab/misslab/internal/learn/svm"
)

// classBenchData draws n training and n test rows of the paper's Model 1
// design (learntest.PaperData: d = 9, 20% MCAR on three columns,
// mean-imputed) made binary: class 1 when y exceeds the training median.
func classBenchData(n int) (X, Xt *mat.Dense, y []float64) {
	r := rand.New(rand.NewPCG(7, uint64(n)))
	X, yr, means := learntest.PaperData(r, n, nil, false)
	Xt, _, _ = learntest.PaperData(r, n, means, false)
	s := slices.Sorted(slices.Values(yr))
	med := (s[(n-1)/2] + s[n/2]) / 2
	y = make([]float64, n)
	for i, v := range yr {
		if v > med {
			y[i] = 1
		}
	}
	return X, Xt, y
}

// writeCSV writes y (if not nil) and the columns x1..xd of X to path,
// every number round-tripping.
func writeCSV(path string, X *mat.Dense, y []float64) error {
	n, d := X.Dims()
	var rows [][]string
	head := []string{}
	if y != nil {
		head = append(head, "y")
	}
	for j := range d {
		head = append(head, "x"+strconv.Itoa(j+1))
	}
	rows = append(rows, head)
	for i := range n {
		var rec []string
		if y != nil {
			rec = append(rec, strconv.FormatFloat(y[i], 'g', -1, 64))
		}
		for _, v := range X.RawRowView(i) {
			rec = append(rec, strconv.FormatFloat(v, 'g', -1, 64))
		}
		rows = append(rows, rec)
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := csv.NewWriter(f).WriteAll(rows); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// benchClass times FitClass + PredictProba with e1071's defaults on n
// training and n test rows of classBenchData, reporting CPU milliseconds
// per operation and the number of support vectors, then times e1071 on
// the same rows with testdata/bench_class_e1071.R (reps runs), reported
// as e1071-ms and ratio-e1071 (e1071 / misslab: above 1, misslab is
// faster). Without R and e1071 the reference is skipped.
func benchClass(b *testing.B, n, reps int) {
	X, Xt, y := classBenchData(n)
	rng := rand.New(rand.NewPCG(1, 2))
	ctx := context.Background()
	nsv := 0
	b.ReportAllocs()
	c0 := learntest.CPUTime()
	for b.Loop() {
		m, err := svm.Classifier{}.FitClass(ctx, X, y, 2, rng)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := m.PredictProba(ctx, Xt); err != nil {
			b.Fatal(err)
		}
		nsv = m.NumSV()
	}
	ms := float64(learntest.CPUTime()-c0) / 1e6 / float64(b.N)
	b.ReportMetric(ms, "cpu-ms/op")
	b.ReportMetric(float64(nsv), "SV")
	dir := b.TempDir()
	if err := writeCSV(filepath.Join(dir, "train.csv"), X, y); err != nil {
		b.Fatal(err)
	}
	if err := writeCSV(filepath.Join(dir, "test.csv"), Xt, nil); err != nil {
		b.Fatal(err)
	}
	re := regexp.MustCompile(`e1071 svm probability \+ predict: ([0-9.]+) ms cpu`)
	learntest.Reference(b, "e1071", ms, re, 1, "Rscript", "testdata/bench_class_e1071.R", dir, strconv.Itoa(reps))
}

// BenchmarkClassSVM: FitClass + PredictProba (binary, probability =
// TRUE: five cross-validation fits and the final fit), n_train = n_test
// = 1000 and 5000, d = 9 (Model 1, mean-imputed), e1071's defaults;
// e1071::svm(probability = TRUE, fitted = FALSE) + predict(probability =
// TRUE) timed side by side on the same rows.
func BenchmarkClassSVM(b *testing.B) {
	b.Run("n=1000", func(b *testing.B) { benchClass(b, 1000, 10) })
	b.Run("n=5000", func(b *testing.B) { benchClass(b, 5000, 2) })
}
