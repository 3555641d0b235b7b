package svm_test

import (
	"context"
	"math"
	"strconv"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/misslab/misslab/internal/learn/svm"
)

// goldenCases are the fixtures of testdata/make_golden.R.
var goldenCases = []string{"gauss_p3", "meanimp_p12", "constcol_p5", "allconst_p3", "oor_p4", "raw_p4", "gauss_p9_n1000"}

// golden is one e1071 fit of a fixture.
type golden struct {
	rec          map[string]string
	X, Q         *mat.Dense
	y, pred      []float64
	svIdx        []int
	svCoef       []float64
	prm          svm.Params
	nsv          int
	rho          float64
	scaled       bool
	name, config string
}

func loadGolden(t testing.TB) []golden {
	var out []golden
	for _, name := range goldenCases {
		train := readTable(t, name+"_train.csv")
		test := readTable(t, name+"_test.csv")
		for _, rec := range readTable(t, name+"_fit.csv").records() {
			g := golden{rec: rec, name: name, config: rec["set"],
				X: train.cols(t, "x"), y: train.col(t, "y"), Q: test.cols(t, "x"),
				pred: test.col(t, "pred_"+rec["set"]), prm: svm.DefaultParams()}
			g.prm.Cost, g.prm.Gamma = num(t, rec["cost"]), num(t, rec["gamma"])
			g.prm.Epsilon, g.prm.Tolerance = num(t, rec["epsilon"]), num(t, rec["tolerance"])
			g.prm.NoShrinking = rec["shrinking"] == "0"
			g.prm.NoScale = rec["scale"] == "0"
			g.scaled = rec["scaled"] == "1"
			g.nsv = int(num(t, rec["nsv"]))
			g.rho = num(t, rec["rho"])
			sv := readTable(t, name+"_sv_"+rec["set"]+".csv")
			for _, v := range sv.col(t, "index") {
				g.svIdx = append(g.svIdx, int(v)-1)
			}
			g.svCoef = sv.col(t, "coef")
			out = append(out, g)
		}
	}
	return out
}

// TestGoldenE1071 fits every parameter set of every fixture and compares
// with e1071 1.7-13 (libsvm 3.23): the same support vectors (count and
// training rows), dual coefficients and ρ to a relative 1e-12 (they are
// in fact bit-identical on amd64: the SMO path is libsvm's), predictions
// to 1e-9 of the target's standard deviation (the brief asks for 1e-4).
// Two fixtures are fitted again with small caches (1 MiB holds a quarter
// of the n = 1000 kernel rows; 10 KiB holds two rows), which must change
// the speed only.
func TestGoldenE1071(t *testing.T) {
	smallCaches := map[string][]float64{"gauss_p9_n1000": {1}, "meanimp_p12": {0.01}}
	for _, g := range loadGolden(t) {
		caches := append([]float64{svm.DefaultCacheMB}, smallCaches[g.name]...)
		for _, cache := range caches {
			t.Run(g.name+"/"+g.config+"/cacheMB="+strconv.FormatFloat(cache, 'g', -1, 64), func(t *testing.T) {
				prm := g.prm
				prm.CacheMB = cache
				checkGolden(t, g, prm)
			})
		}
	}
}

func checkGolden(t *testing.T, g golden, prm svm.Params) {
	ctx := context.Background()
	r, err := svm.New(prm)
	if err != nil {
		t.Fatal(err)
	}
	m, err := r.Fit(ctx, g.X, g.y, nil)
	if err != nil {
		t.Fatal(err)
	}
	if m.Scaled() != g.scaled {
		t.Errorf("scaled = %v, e1071 %v", m.Scaled(), g.scaled)
	}
	if !m.Converged() {
		t.Errorf("did not converge in %d iterations", m.Iterations())
	}
	if m.NumSV() != g.nsv {
		t.Errorf("%d support vectors, e1071 %d", m.NumSV(), g.nsv)
	}
	idx, coef := m.SupportIndices(), m.DualCoef()
	if len(idx) == len(g.svIdx) {
		for s := range idx {
			if idx[s] != g.svIdx[s] || !near(coef[s], g.svCoef[s], 1e-12) {
				t.Errorf("support vector %d: row %d coef %.12g, e1071 row %d coef %.12g", s, idx[s], coef[s], g.svIdx[s], g.svCoef[s])
				break
			}
		}
	}
	if !near(m.Rho(), g.rho, 1e-12) {
		t.Errorf("rho = %.15g, e1071 %.15g", m.Rho(), g.rho)
	}
	got, err := m.Predict(ctx, g.Q)
	if err != nil {
		t.Fatal(err)
	}
	tol := 1e-9 * sd(g.y)
	worst := 0.0
	for i := range got {
		worst = math.Max(worst, math.Abs(got[i]-g.pred[i]))
	}
	if worst > tol {
		t.Errorf("max |prediction − e1071| = %.3g > %.3g", worst, tol)
	}
}

func sd(v []float64) float64 {
	m := 0.0
	for _, x := range v {
		m += x
	}
	m /= float64(len(v))
	s := 0.0
	for _, x := range v {
		s += (x - m) * (x - m)
	}
	return math.Sqrt(s / float64(len(v)-1))
}

// near reports |a − b| ≤ rel·max(|a|, |b|, 1e-300).
func near(a, b, rel float64) bool {
	return math.Abs(a-b) <= rel*math.Max(math.Max(math.Abs(a), math.Abs(b)), 1e-300)
}

// TestGoldenSvmTrain compares with libsvm-tools' own svm-train and
// svm-predict (testdata/make_libsvm.sh) on unscaled data, with the
// float32-rounded epsilon and tolerance that Debian's svm-train passes:
// the same number of support vectors and ρ to 1e-12; predictions to 1e-6
// of sd(y), since svm-predict reads 8-digit support vectors back.
func TestGoldenSvmTrain(t *testing.T) {
	train := readTable(t, "raw_p4_train.csv")
	ref := readTable(t, "raw_p4_libsvm.csv").records()[0]
	want := readTable(t, "raw_p4_libsvm_pred.csv").col(t, "pred")
	prm := svm.Params{
		Cost: num(t, ref["cost"]), Gamma: num(t, ref["gamma"]),
		Epsilon: num(t, ref["epsilon"]), Tolerance: num(t, ref["tolerance"]),
		CacheMB: 40, NoScale: true,
	}
	r, err := svm.New(prm)
	if err != nil {
		t.Fatal(err)
	}
	y := train.col(t, "y")
	m, err := r.Fit(context.Background(), train.cols(t, "x"), y, nil)
	if err != nil {
		t.Fatal(err)
	}
	if m.NumSV() != int(num(t, ref["nsv"])) {
		t.Errorf("%d support vectors, svm-train %s", m.NumSV(), ref["nsv"])
	}
	if rho := num(t, ref["rho"]); !near(m.Rho(), rho, 1e-12) {
		t.Errorf("rho = %.17g, svm-train %.17g", m.Rho(), rho)
	}
	got, err := m.Predict(context.Background(), readTable(t, "raw_p4_test.csv").cols(t, "x"))
	if err != nil {
		t.Fatal(err)
	}
	for i := range got {
		if math.Abs(got[i]-want[i]) > 1e-6*sd(y) {
			t.Errorf("row %d: %.10g, svm-predict %.10g", i, got[i], want[i])
		}
	}
}
