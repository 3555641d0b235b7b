package experiment

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/misslab/misslab/internal/grid"
	"github.com/misslab/misslab/internal/learn"
	"github.com/misslab/misslab/internal/sim"
	"github.com/misslab/misslab/internal/split"
	"github.com/misslab/misslab/internal/table"
)

// synthDesign is a table's design with n rows: numeric a, b (a with
// natural NA on every 7th row), a categorical c with two levels + NA,
// and y = 2a + b + noise.
func synthDesign(n int, seed uint64) *table.Design {
	r := rand.New(rand.NewPCG(seed, 1))
	X := mat.NewDense(n, 5, nil)
	y := make([]float64, n)
	for i := range n {
		a, b := r.NormFloat64(), r.NormFloat64()
		y[i] = 2*a + b + 0.1*r.NormFloat64()
		if i%7 == 3 {
			a = math.NaN()
		}
		X.SetRow(i, []float64{a, b, float64(i % 2), float64((i + 1) % 2), 0})
	}
	return &table.Design{X: X, Y: y, Rows: seq(n), Features: []string{"a", "b", "c"},
		Groups: [][]int{{0}, {1}, {2, 3, 4}}, Labels: []string{"a", "b", "c=0", "c=1", "c=NA"},
		Categorical: []bool{false, false, true}}
}

func seq(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}

func tableJob(d *table.Design, mech string, rate float64, rep, fold int, pipes ...string) Job {
	ref := &sim.TableRef{SHA256: strings.Repeat("ab", 32), Format: "csv", Name: "synth.csv", Target: "y",
		Categorical: []string{"c"}, NA: table.DefaultNA, Folds: 5, Features: d.Features}
	sc := sim.Scenario{Model: sim.Table, D: 3, Mechanism: mech, Rate: rate, Table: ref}
	if mech != sim.None {
		sc.Columns = []int{0, 1, 2}
	}
	job := Job{Seed: 11, Scenario: sc, Rep: rep, Fold: fold, Design: d}
	for _, p := range pipes {
		job.Pipelines = append(job.Pipelines, grid.MustPipeline(p, nil))
	}
	return job
}

// The test fold's R² uses the fold's own target variance: recomputed
// here from the MSE and the test targets that split.Assign selects.
func TestTableR2AgainstTestFoldVariance(t *testing.T) {
	d := synthDesign(300, 1)
	job := tableJob(d, sim.None, 0, 2, 3, "linear/mean", "tree/mia")
	res := Run(context.Background(), job, learn.Env{})
	_, test := split.Rows(split.Assign(job.Seed, job.Scenario.Table, 2, 300), 3)
	var m, v float64
	for _, i := range test {
		m += d.Y[i]
	}
	m /= float64(len(test))
	for _, i := range test {
		v += (d.Y[i] - m) * (d.Y[i] - m)
	}
	v /= float64(len(test))
	for _, r := range res {
		if r.Failed() {
			t.Fatalf("%s: %s %s", r.Pipeline, r.ErrKind, r.ErrMsg)
		}
		if want := 1 - r.MSE/v; math.Abs(r.R2-want) > 1e-12 {
			t.Errorf("%s: R² %v, want 1 − MSE/Var(test y) = %v", r.Pipeline, r.R2, want)
		}
		if !(r.MAE > 0 && r.MAE*r.MAE <= r.MSE+1e-12) { // MAE ≤ RMSE
			t.Errorf("%s: MAE %v with MSE %v", r.Pipeline, r.MAE, r.MSE)
		}
	}
	// y = 2a + b + ε, Var 5.01; a is NA on 1/7 of the rows, where mean
	// imputation loses its variance 4: R² ≈ 1 − (4/7 + 0.01)/5.01 ≈ 0.88.
	if res[0].R2 < 0.8 {
		t.Errorf("linear/mean R² = %v on a linear table", res[0].R2)
	}
	if !math.IsNaN(res[0].ImputeRMSETest) {
		t.Errorf("no amputation, yet an imputation RMSE %v", res[0].ImputeRMSETest)
	}
}

// Nothing of the test fold reaches training: changing every test row's
// features and targets leaves the training set, its amputation and its
// known truth bit for bit unchanged.
func TestTableNoLeakage(t *testing.T) {
	for _, mech := range []string{sim.MCAR, sim.MNAR, sim.SelfMasking} {
		d := synthDesign(200, 2)
		job := tableJob(d, mech, 0.3, 1, 2, "tree/mean")
		a, err := tableData(job)
		if err != nil {
			t.Fatal(err)
		}
		_, test := split.Rows(split.Assign(job.Seed, job.Scenario.Table, 1, 200), 2)
		e := synthDesign(200, 2)
		for _, i := range test {
			e.Y[i] *= 10
			for j := range 2 {
				e.X.Set(i, j, e.X.At(i, j)*10+5)
			}
		}
		job.Design = e
		b, err := tableData(job)
		if err != nil {
			t.Fatal(err)
		}
		if !sameBits(a.train, b.train) || !slices.Equal(a.trainY, b.trainY) ||
			!slices.Equal(a.truth.knownTrain, b.truth.knownTrain) || !slices.Equal(a.truth.sd, b.truth.sd) {
			t.Errorf("%s: the training set depends on the test rows", mech)
		}
		if sameBits(a.test, b.test) {
			t.Errorf("%s: the test rows did not change", mech)
		}
	}
}

// Amputation makes NA only where the table had a value, at about the
// requested rate; a categorical entry goes to its NA level, not NaN.
func TestTableAmputation(t *testing.T) {
	d := synthDesign(2000, 3)
	data, err := tableData(tableJob(d, sim.MCAR, 0.25, 0, 0, "tree/mean"))
	if err != nil {
		t.Fatal(err)
	}
	n, _ := data.train.Dims()
	amputed, naCat := 0, 0
	for i := range n {
		row := data.train.RawRowView(i)
		if data.truth.knownTrain[i*5+1] {
			amputed++
			if !math.IsNaN(row[1]) {
				t.Fatal("a known entry is not NA")
			}
		}
		if slices.ContainsFunc(row[2:], math.IsNaN) {
			t.Fatal("a categorical indicator is NaN")
		}
		if row[4] == 1 {
			naCat++
			if row[2] != 0 || row[3] != 0 {
				t.Fatal("NA level set with a level")
			}
		}
	}
	for _, c := range []struct {
		name string
		k    int
	}{{"b", amputed}, {"c", naCat}} {
		p := float64(c.k) / float64(n)
		if se := math.Sqrt(0.25 * 0.75 / float64(n)); math.Abs(p-0.25) > 4*se {
			t.Errorf("column %s amputed at rate %.3f, want 0.25 ± %.3f", c.name, p, 4*se)
		}
	}
}

// The imputation RMSE measures what it says. Mean imputation of
// standard-normal columns errs by X − mean, so its standardised RMSE is
// about 1; Gaussian conditional imputation under ρ = 0.5, d = 9 with
// the other columns mostly observed errs by the conditional sd,
// about √(1 − 8ρ²/(1 + 7ρ)) = 0.745 plus a little for the other
// missing columns.
func TestImputeRMSEOnSimulatedData(t *testing.T) {
	if testing.Short() {
		t.Skip("Monte Carlo")
	}
	sc, _ := sim.Defaults(sim.Quadratic)
	sc.NTrain, sc.NTest = 5000, 5000
	job := Job{Seed: 3, Scenario: sc, Pipelines: []grid.Pipeline{grid.MustPipeline("linear/mean", nil),
		grid.MustPipeline("linear/gaussian", nil), grid.MustPipeline("tree/mia", nil)}}
	res := Run(context.Background(), job, learn.Env{})
	if m := res[0].ImputeRMSETest; math.Abs(m-1) > 0.03 {
		t.Errorf("mean imputation RMSE %v, want ≈ 1", m)
	}
	if g := res[1].ImputeRMSETest; g < 0.74 || g > 0.80 {
		t.Errorf("Gaussian imputation RMSE %v, want ≈ 0.75-0.78", g)
	}
	if !math.IsNaN(res[2].ImputeRMSETest) {
		t.Error("MIA reports an imputation RMSE")
	}
}

func sameBits(a, b *mat.Dense) bool {
	ra, ca := a.Dims()
	rb, cb := b.Dims()
	if ra != rb || ca != cb {
		return false
	}
	for i, v := range a.RawMatrix().Data {
		if math.Float64bits(v) != math.Float64bits(b.RawMatrix().Data[i]) {
			return false
		}
	}
	return true
}
