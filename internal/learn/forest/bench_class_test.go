package forest

import (
	"context"
	"math/rand/v2"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"

	"github.com/misslab/misslab/internal/learn/internal/learntest"
)

// classBenchData returns n training and n test rows of Figure 3's
// design made binary, as the tree package's class benchmark draws it:
// the quadratic scenario (d = 9, 20 % MCAR on X1..X3) mean-imputed with
// the training means, class 1{Y > 4}.
func classBenchData(n int) (train, test classSet) {
	r := rand.New(rand.NewPCG(41, uint64(n)))
	tr, te := drawQuad(n, r), drawQuad(n, r)
	mu := colMeans(tr.withNA())
	train = classSet{x: imputed(tr.withNA(), mu), y: make([]float64, n)}
	test = classSet{x: imputed(te.withNA(), mu), y: make([]float64, n)}
	for i := range n {
		if tr.y[i] > 4 {
			train.y[i] = 1
		}
		if te.y[i] > 4 {
			test.y[i] = 1
		}
	}
	return train, test
}

// benchClass times FitClass + PredictProba with ranger's probability
// defaults (500 trees, one thread) on n training and n test rows of
// classBenchData, reporting CPU milliseconds per operation and nodes per
// tree, then times ranger on the same rows with
// testdata/bench_class_ranger.R (reps runs), reported as ranger-ms and
// ratio-ranger (ranger / misslab: above 1, misslab is faster). Without R
// and ranger the reference is skipped.
func benchClass(b *testing.B, n, reps int) {
	tr, te := classBenchData(n)
	ctx := context.Background()
	p := RangerClassDefaults()
	nodes := 0.0
	b.ReportAllocs()
	c0 := learntest.CPUTime()
	for i := 0; b.Loop(); i++ {
		m, err := FitClass(ctx, tr.x, tr.y, 2, p, rand.New(rand.NewPCG(uint64(i), 1)))
		if err != nil {
			b.Fatal(err)
		}
		if _, err := m.PredictProba(ctx, te.x); err != nil {
			b.Fatal(err)
		}
		nodes = float64(m.NumNodes()) / float64(m.NumTrees())
	}
	ms := float64(learntest.CPUTime()-c0) / 1e6 / float64(b.N)
	b.ReportMetric(ms, "cpu-ms/op")
	b.ReportMetric(nodes, "nodes/tree")
	dir := b.TempDir()
	if err := writeClassSetCSV(filepath.Join(dir, "train.csv"), tr); err != nil {
		b.Fatal(err)
	}
	if err := writeClassSetCSV(filepath.Join(dir, "test.csv"), te); err != nil {
		b.Fatal(err)
	}
	re := regexp.MustCompile(`probability fit \+ predict: cpu ([0-9.]+) ms/run`)
	if reps > 0 {
		learntest.Reference(b, "ranger", ms, re, 1, "Rscript", "testdata/bench_class_ranger.R", dir, strconv.Itoa(reps))
	}
}

// BenchmarkClassForest: FitClass + PredictProba, n_train = n_test = 1000,
// d = 9, binary, mean-imputed, ranger's probability defaults, one
// thread; ranger 0.14.1 timed side by side on the same rows.
func BenchmarkClassForest(b *testing.B) { benchClass(b, 1000, 10) }

// BenchmarkClassForest10k is BenchmarkClassForest with n_train = n_test
// = 10⁴.
func BenchmarkClassForest10k(b *testing.B) { benchClass(b, 10000, 3) }
