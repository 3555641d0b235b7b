package learn

import (
	"context"
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/misslab/misslab/internal/learn/impute"
	"github.com/misslab/misslab/internal/sim"
)

// Theorem 2 of the paper in miniature, on its Example 1 (X1 ~ U(0,1),
// Y = X1² + ε, M1 ~ B(1/2) independent): imputing a constant learned on
// the training set, at train and at test time, and learning with a tree
// whose leaves grow with n (minbucket ≈ √n, so the tree is consistent),
// reaches the Bayes risk σ² + P(M1 = 1)·Var(X1²) = σ² + 2/45 as n grows; imputing the test set with its
// own mean does not, because the test-time constant misses the leaf the
// tree built around the training constant. The Bayes predictor is X1²
// when observed and E[X1²] = 1/3 when missing, so the improper procedure,
// which predicts ≈ (1/2)² for a missing X1, keeps an excess risk of about
// P(M1 = 1)·(1/3 − 1/4)² = 0.0035.

// excessRisk returns the test MSE of pred minus that of the Bayes
// predictor on the same test rows (a paired difference, far less noisy
// than subtracting the population Bayes risk). It also checks the Bayes
// predictor's own test MSE against its closed form σ² + p·Var(X1²),
// Var(X1²) = 1/5 − 1/9 = 4/45.
func excessRisk(t *testing.T, s sim.Scenario, test sim.Sample, pred []float64) float64 {
	t.Helper()
	bayes, err := sim.BayesPredict(s, test.X)
	if err != nil {
		t.Fatal(err)
	}
	var d, mb float64
	for i, y := range test.Y {
		d += (pred[i]-y)*(pred[i]-y) - (bayes[i]-y)*(bayes[i]-y)
		mb += (bayes[i] - y) * (bayes[i] - y)
	}
	n := float64(len(test.Y))
	if want := s.Noise*s.Noise + s.Rate*4/45; math.Abs(mb/n-want) > 0.03*want {
		t.Errorf("Bayes test MSE %.5f, closed form %.5f", mb/n, want)
	}
	return d / n
}

func example1(t *testing.T, n int) (sim.Scenario, sim.Rep) {
	t.Helper()
	s, err := sim.Defaults(sim.Example1)
	if err != nil {
		t.Fatal(err)
	}
	s.NTrain, s.NTest = n, 40000
	data, err := sim.Generate(s, 11, 0)
	if err != nil {
		t.Fatal(err)
	}
	return s, data
}

func TestTheorem2ConstantImputationIsConsistent(t *testing.T) {
	ctx := context.Background()
	excess := map[string][]float64{}
	sizes := []int{1000, 40000}
	for _, n := range sizes {
		s, data := example1(t, n)
		set := Settings{"minbucket": math.Round(math.Sqrt(float64(n)) / 2), "cp": 0}
		for _, name := range []string{"tree/mean", "tree/oor"} {
			p, err := New(name, set, Env{})
			if err != nil {
				t.Fatal(err)
			}
			f, err := p.Fit(ctx, data.Train.X, data.Train.Y, sim.Stream(1, s.Canonical(), 0, name))
			if err != nil {
				t.Fatal(err)
			}
			pred, err := f.Predict(ctx, data.Test.X)
			if err != nil {
				t.Fatal(err)
			}
			excess[name] = append(excess[name], excessRisk(t, s, data.Test, pred))
		}
		excess["test-set mean"] = append(excess["test-set mean"], improperExcess(t, s, data, set))
	}
	t.Logf("excess risk over the Bayes risk at n = %v: %v", sizes, excess)
	for _, name := range []string{"tree/mean", "tree/oor"} {
		e := excess[name]
		if !(e[1] < e[0]/2) || e[1] > 2e-4 {
			t.Errorf("%s: excess risk %v does not shrink to ≈ 0 (want < 2e-4 and half the n = 1000 value at n = %d)", name, e, sizes[1])
		}
	}
	if e := excess["test-set mean"][1]; e < 2e-3 {
		t.Errorf("imputing the test set with its own mean: excess risk %.5f at n = %d, want ≳ 0.0035", e, sizes[1])
	}
}

// improperExcess fits mean imputation + tree on the training set but
// imputes the test set with the test set's own mean.
func improperExcess(t *testing.T, s sim.Scenario, data sim.Rep, set Settings) float64 {
	t.Helper()
	ctx := context.Background()
	impute := func(X *mat.Dense) *mat.Dense {
		f, err := impute.Mean{}.Fit(ctx, X)
		if err != nil {
			t.Fatal(err)
		}
		Xt, err := f.Transform(X)
		if err != nil {
			t.Fatal(err)
		}
		return Xt
	}
	l, err := NewLearner(Spec{Learner: Tree, Strategy: Mean}, set, Env{})
	if err != nil {
		t.Fatal(err)
	}
	m, err := l.Fit(ctx, impute(data.Train.X), data.Train.Y, sim.Stream(1, s.Canonical(), 0, "improper"))
	if err != nil {
		t.Fatal(err)
	}
	pred, err := m.Predict(ctx, impute(data.Test.X))
	if err != nil {
		t.Fatal(err)
	}
	return excessRisk(t, s, data.Test, pred)
}
