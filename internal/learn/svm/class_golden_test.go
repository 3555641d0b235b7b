package svm_test

import (
	"context"
	"math"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/misslab/misslab/internal/learn/svm"
)

// classCases are the fixtures of testdata/make_class_golden.R.
var classCases = []string{"bin_p3", "bin_p3_c10", "bin_p9_n1000", "multi3_p4", "multi4_p5_n1000",
	"absent_p3", "constcol_p4", "tiny_p2"}

// classGolden is one case of make_class_golden.R: e1071's fits after
// set.seed(seed) for every seed (the same support vectors and decision
// values, seed-dependent sigmoids and probabilities).
type classGolden struct {
	name         string
	X, Q         *mat.Dense
	y            []float64
	k            int
	clf          svm.Classifier
	labels, nsv  []int
	scaled       bool
	pairA, pairB []int
	rho          []float64
	seeds        []string // the first is the one of draws and cvdec
	probA, probB map[string][]float64
	prob         map[string]*mat.Dense // test rows × k, by seed
	svIdx        []int
	coef         *mat.Dense
	dec          *mat.Dense // test rows × pairs
	draws        []float64
	cvPair       []int
	cvPos        []bool
	cvDec        []float64
}

func loadClassGolden(t testing.TB, name string) classGolden {
	t.Helper()
	train, test := readTable(t, name+"_train.csv"), readTable(t, name+"_test.csv")
	g := classGolden{name: name, X: train.cols(t, "x"), y: train.col(t, "y"), Q: test.cols(t, "x"),
		dec: test.cols(t, "dec_"), probA: map[string][]float64{}, probB: map[string][]float64{},
		prob: map[string]*mat.Dense{}}
	model := readTable(t, name+"_model.csv")
	g.labels, g.nsv = ints(t, model.col(t, "label")), ints(t, model.col(t, "nsv"))
	g.clf = svm.Classifier{Cost: model.col(t, "cost")[0], Gamma: model.col(t, "gamma")[0]}
	g.scaled = model.col(t, "scaled")[0] == 1
	pairs := readTable(t, name+"_pairs.csv")
	g.pairA, g.pairB, g.rho = ints(t, pairs.col(t, "a")), ints(t, pairs.col(t, "b")), pairs.col(t, "rho")
	for _, h := range pairs.header {
		if s, ok := strings.CutPrefix(h, "probA_s"); ok {
			g.seeds = append(g.seeds, s)
			g.probA[s], g.probB[s] = pairs.col(t, h), pairs.col(t, "probB_s"+s)
		}
	}
	for _, h := range test.header {
		if strings.HasPrefix(h, "prob_s"+g.seeds[0]+"_") {
			g.k++
		}
	}
	for _, s := range g.seeds {
		g.prob[s] = test.cols(t, "prob_s"+s+"_")
	}
	sv := readTable(t, name+"_sv.csv")
	for _, v := range sv.col(t, "index") {
		g.svIdx = append(g.svIdx, int(v)-1)
	}
	g.coef = sv.cols(t, "coef")
	g.draws = readTable(t, name+"_draws.csv").col(t, "u")
	cv := readTable(t, name+"_cvdec.csv")
	g.cvPair, g.cvDec = ints(t, cv.col(t, "pair")), cv.col(t, "dec")
	for _, v := range cv.col(t, "pos") {
		g.cvPos = append(g.cvPos, v == 1)
	}
	return g
}

func ints(t testing.TB, v []float64) []int {
	out := make([]int, len(v))
	for i, x := range v {
		if out[i] = int(x); float64(out[i]) != x {
			t.Fatalf("%v is not an integer", x)
		}
	}
	return out
}

// fitDraws fits g with the unif_rand() values of e1071's first-seed fit
// as the shuffles' draws, checking that exactly those were used.
func (g classGolden) fitDraws(t *testing.T) *svm.ClassModel {
	t.Helper()
	m, used, ok, err := svm.FitClassDraws(g.clf, context.Background(), g.X, g.y, g.k, g.draws)
	if err != nil {
		t.Fatal(err)
	}
	if !ok || used != len(g.draws) {
		t.Fatalf("the fit drew %d values (ran out: %v), e1071 %d", used, !ok, len(g.draws))
	}
	return m
}

// worstDiff returns max |a − b| over two matrices of one shape.
func worstDiff(t *testing.T, a, b *mat.Dense) float64 {
	t.Helper()
	ra, ca := a.Dims()
	if rb, cb := b.Dims(); ra != rb || ca != cb {
		t.Fatalf("%d × %d, want %d × %d", ra, ca, rb, cb)
	}
	worst := 0.0
	for i := range ra {
		for j := range ca {
			worst = math.Max(worst, math.Abs(a.At(i, j)-b.At(i, j)))
		}
	}
	return worst
}

// TestClassGoldenE1071 fits every case with e1071's own shuffle draws
// and compares with e1071 1.7-13: the class order, support vectors
// (rows, counts per class), the coefficient matrix and ρ to 1e-12, the
// decision values of held-out rows to 1e-10, the draws consumed, the
// sigmoids (probA, probB) and the probabilities to 1e-10.
func TestClassGoldenE1071(t *testing.T) {
	ctx := context.Background()
	for _, name := range classCases {
		t.Run(name, func(t *testing.T) {
			g := loadClassGolden(t, name)
			m := g.fitDraws(t)
			if !slices.Equal(m.Labels(), g.labels) || !slices.Equal(m.ClassSV(), g.nsv) {
				t.Fatalf("labels %v with %v support vectors, e1071 %v with %v", m.Labels(), m.ClassSV(), g.labels, g.nsv)
			}
			if !slices.Equal(m.SupportIndices(), g.svIdx) || m.Scaled() != g.scaled || !m.Converged() {
				t.Fatalf("support rows differ from e1071's (scaled %v, converged %v)", m.Scaled(), m.Converged())
			}
			if d := worstDiff(t, m.DualCoef(), g.coef); d > 1e-12*g.clf.Cost {
				t.Errorf("max |coef − e1071| = %.3g", d)
			}
			checkPairs(t, "rho", m.Rho(), g.rho, 1e-12)
			checkPairs(t, "probA", m.ProbA(), g.probA[g.seeds[0]], 1e-10)
			checkPairs(t, "probB", m.ProbB(), g.probB[g.seeds[0]], 1e-10)
			dec, err := m.Decision(ctx, g.Q)
			if err != nil {
				t.Fatal(err)
			}
			dd := worstDiff(t, dec, g.dec)
			if dd > 1e-10 {
				t.Errorf("max |decision − e1071| = %.3g", dd)
			}
			prob, err := m.PredictProba(ctx, g.Q)
			if err != nil {
				t.Fatal(err)
			}
			dp := worstDiff(t, prob, g.prob[g.seeds[0]])
			if dp > 1e-10 {
				t.Errorf("max |probability − e1071| = %.3g", dp)
			}
			t.Logf("%d support vectors; max |Δ| to e1071: decision values %.2g, probabilities %.2g", m.NumSV(), dd, dp)
		})
	}
}

// checkPairs compares per-pair values to a relative tol.
func checkPairs(t *testing.T, what string, got, want []float64, tol float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d pairs, e1071 %d", what, len(got), len(want))
	}
	for q := range got {
		if !near(got[q], want[q], tol) {
			t.Errorf("%s of pair %d: %.17g, e1071 %.17g", what, q, got[q], want[q])
		}
	}
}

// TestSigmoidTrainE1071 fits Platt's sigmoid alone to the
// cross-validated decision values that make_class_golden.R rebuilt with
// e1071 from the first seed's draws, and compares A and B with the probA
// and probB of e1071's fit: libsvm's sigmoid_train to 1e-10, without
// this package's solver or shuffle.
func TestSigmoidTrainE1071(t *testing.T) {
	for _, name := range classCases {
		g := loadClassGolden(t, name)
		for q := range g.rho {
			var dec []float64
			var pos []bool
			for i, p := range g.cvPair {
				if p == q {
					dec, pos = append(dec, g.cvDec[i]), append(pos, g.cvPos[i])
				}
			}
			a, b := svm.SigmoidTrain(dec, pos)
			s := g.seeds[0]
			if !near(a, g.probA[s][q], 1e-10) || !near(b, g.probB[s][q], 1e-10) {
				t.Errorf("%s pair %d: A, B = %.17g, %.17g; e1071 %.17g, %.17g", name, q, a, b, g.probA[s][q], g.probB[s][q])
			}
		}
	}
}

// TestCouplingE1071 computes the probabilities alone from e1071's
// decision values and sigmoids, for every seed: the clipped sigmoids
// and, with three classes or more, libsvm's multiclass_probability
// (pairwise coupling), to 1e-10.
func TestCouplingE1071(t *testing.T) {
	for _, name := range classCases {
		g := loadClassGolden(t, name)
		n, _ := g.Q.Dims()
		for _, s := range g.seeds {
			worst := 0.0
			for i := range n {
				p := svm.PairProba(g.dec.RawRowView(i), g.probA[s], g.probB[s], len(g.labels))
				for c, v := range p {
					worst = math.Max(worst, math.Abs(v-g.prob[s].At(i, g.labels[c])))
				}
			}
			if worst > 1e-10 {
				t.Errorf("%s seed %s: max |probability − e1071| = %.3g", name, s, worst)
			}
		}
	}
}
