package ctree

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"

	"github.com/misslab/misslab/internal/learn/internal/learntest"

	"gonum.org/v1/gonum/mat"
)

// BenchmarkFitPredict times one fit on 1000 rows plus prediction of 1000
// rows, on the data of testdata/bench_partykit.R (the paper's quadratic
// model, d = 9, 20% MCAR on three columns), with the paper's controls,
// without ("d=9") and with ("d=12") the three mask columns, and with
// surrogates. Besides ns/op (wall time) it reports cpu-ns/op, the
// process's CPU time per iteration, which other load on the machine does
// not inflate. Compare with partykit's times on this machine in
// testdata/bench_partykit_timing.txt; run with -cpu 1.
func BenchmarkFitPredict(b *testing.B) {
	train := learntest.ReadCSV(&testing.T{}, filepath.Join("testdata", "bench_train.csv"))
	test := learntest.ReadCSV(&testing.T{}, filepath.Join("testdata", "bench_test.csv"))
	xn := train.XNames()
	X, y, Xt := train.Matrix(&testing.T{}, xn), train.Column(&testing.T{}, "y"), test.Matrix(&testing.T{}, xn)
	surr := PaperDefaults()
	surr.MaxSurrogate = 3
	for _, bc := range []struct {
		name  string
		X, Xt *mat.Dense
		p     Params
	}{
		{"d=9", X, Xt, PaperDefaults()},
		{"d=12", withMask(X, 3), withMask(Xt, 3), PaperDefaults()},
		{"d=9/surrogate", X, Xt, surr},
		{"d=9/partykit-defaults", X, Xt, PartykitDefaults()},
	} {
		b.Run(bc.name, func(b *testing.B) {
			rng := rand.New(rand.NewPCG(1, 1))
			cpu0 := learntest.CPUTime()
			for b.Loop() {
				tr, err := Fit(context.Background(), bc.X, y, bc.p, rng)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := tr.Predict(context.Background(), bc.Xt); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(learntest.CPUTime()-cpu0)/float64(b.N), "cpu-ns/op")
		})
	}
}

// classBenchData draws rows × 10 features and binary classes exactly as
// testdata/bench_class_partykit.R does (see there), from the Park–Miller
// generator seeded with seed: bit-identical rows with no data file.
func classBenchData(rows int, seed uint64) (*mat.Dense, []float64) {
	const m = 2147483647
	s := seed
	u := func() float64 {
		s = s * 48271 % m
		return float64(s) / m
	}
	X := mat.NewDense(rows, 10, nil)
	y := make([]float64, rows)
	for i := range rows {
		row := X.RawRowView(i)
		for j := range row {
			row[j] = u() + u() + u() + u() - 2
		}
		if row[0]+row[1]*row[2]+(u()-0.5) > 0 {
			y[i] = 1
		}
		for j := range 3 {
			if u() < 0.2 {
				row[j] = math.NaN()
			}
		}
	}
	return X, y
}

// partykitClassTiming is one line of bench_class_partykit_timing.txt.
type partykitClassTiming struct {
	cpuMS  float64 // median CPU milliseconds of ctree + predict
	leaves int
	sumP1  float64 // sum of the test rows' class-1 probabilities
}

// readClassTiming reads the partykit reference for n training rows from
// testdata/bench_class_partykit_timing.txt; ok is false if it has none.
func readClassTiming(tb testing.TB, n int) (partykitClassTiming, bool) {
	raw, err := os.ReadFile(filepath.Join("testdata", "bench_class_partykit_timing.txt"))
	if err != nil {
		tb.Fatal(err)
	}
	re := regexp.MustCompile(fmt.Sprintf(`n=%d ctree\+predict\(prob\) median elapsed \S+ s, cpu (\S+) s; (\d+) leaves, sum p1 (\S+)`, n))
	m := re.FindSubmatch(raw)
	if m == nil {
		return partykitClassTiming{}, false
	}
	cpu, err1 := strconv.ParseFloat(string(m[1]), 64)
	leaves, err2 := strconv.Atoi(string(m[2]))
	sum, err3 := strconv.ParseFloat(string(m[3]), 64)
	if err := errors.Join(err1, err2, err3); err != nil {
		tb.Fatal(err)
	}
	return partykitClassTiming{cpuMS: 1000 * cpu, leaves: leaves, sumP1: sum}, true
}

// fitClassBench fits the benchmark's classifier on the first n of 2n
// rows of classBenchData and predicts the other n; it returns the number
// of leaves and the sum of the class-1 probabilities.
func fitClassBench(tb testing.TB, X *mat.Dense, y []float64, n int) (int, float64) {
	ctx := context.Background()
	m, err := FitClass(ctx, X.Slice(0, n, 0, 10).(*mat.Dense), y[:n], 2, PaperDefaults(), rand.New(rand.NewPCG(1, 1)))
	if err != nil {
		tb.Fatal(err)
	}
	P, err := m.PredictProba(ctx, X.Slice(n, 2*n, 0, 10).(*mat.Dense))
	if err != nil {
		tb.Fatal(err)
	}
	return m.NumLeaves(), mat.Sum(P.ColView(1))
}

// TestClassBenchIsPartykits: the benchmark's rows, drawn here and in
// bench_class_partykit.R, give partykit's tree (leaves, and the sum of
// the test rows' class-1 probabilities to summation rounding) at n = 1000.
func TestClassBenchIsPartykits(t *testing.T) {
	ref, ok := readClassTiming(t, 1000)
	if !ok {
		t.Fatal("no n=1000 line in bench_class_partykit_timing.txt")
	}
	X, y := classBenchData(2000, 1000)
	if leaves, sum := fitClassBench(t, X, y, 1000); leaves != ref.leaves || !relClose(sum, ref.sumP1, 1e-12) {
		t.Errorf("%d leaves, sum p1 %v; partykit %d, %v", leaves, sum, ref.leaves, ref.sumP1)
	}
}

// BenchmarkFitClass times FitClass + PredictProba (binary, the paper's
// controls, NA to the majority child) with n_train = n_test = 1000 and
// 10⁴ rows, d = 10 (20% NA in three columns), on the rows of
// testdata/bench_class_partykit.R. Besides ns/op it reports cpu-ns/op
// (the process's CPU time per iteration), the leaves, partykit's median
// CPU time on this machine from bench_class_partykit_timing.txt as
// partykit-cpu-ms and partykit / misslab as ratio-partykit (above 1:
// misslab is faster); it fails if the tree is not partykit's. Run with
// -cpu 1.
func BenchmarkFitClass(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			X, y := classBenchData(2*n, uint64(n))
			var leaves int
			var sum float64
			cpu0 := learntest.CPUTime()
			for b.Loop() {
				leaves, sum = fitClassBench(b, X, y, n)
			}
			ns := float64(learntest.CPUTime()-cpu0) / float64(b.N)
			b.ReportMetric(ns, "cpu-ns/op")
			b.ReportMetric(float64(leaves), "leaves")
			ref, ok := readClassTiming(b, n)
			if !ok {
				return
			}
			if leaves != ref.leaves || !relClose(sum, ref.sumP1, 1e-12) {
				b.Errorf("%d leaves, sum p1 %v; partykit %d, %v", leaves, sum, ref.leaves, ref.sumP1)
			}
			b.ReportMetric(ref.cpuMS, "partykit-cpu-ms")
			if ns > 0 {
				b.ReportMetric(ref.cpuMS*1e6/ns, "ratio-partykit")
			}
		})
	}
}
