package forest

import (
	"encoding/csv"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"

	"gonum.org/v1/gonum/mat"
)

// The paper's Model 1 (Section 5.2): X ~ N(1, Σ) in dimension 9 with
// Σ = ρ11ᵀ + (1−ρ)I, ρ = 0.5, Y = X1² + X2² + X3² + N(0, 0.1²), and 20 %
// MCAR on X1..X3. Var(Y) = 3·Var(X²) + 6·Cov(Xi², Xj²) + 0.01 with
// Var(X²) = 4μ²σ² + 2σ⁴ = 6 and Cov = 4μ²ρ + 2ρ² = 2.5, so 33.01.
const (
	quadD    = 9
	quadRho  = 0.5
	quadMiss = 0.2
	quadVarY = 33.01
)

// quadData is one draw of the quadratic scenario: complete covariates,
// their MCAR mask (on the first three columns) and the targets.
type quadData struct {
	x    *mat.Dense // complete covariates
	mask [][3]bool  // mask[i][j]: X[i, j] is missing
	y    []float64
}

// drawQuad draws n rows of the quadratic scenario from r.
func drawQuad(n int, r *rand.Rand) quadData {
	q := quadData{x: mat.NewDense(n, quadD, nil), mask: make([][3]bool, n), y: make([]float64, n)}
	a, b := math.Sqrt(quadRho), math.Sqrt(1-quadRho)
	for i := range n {
		z0 := r.NormFloat64()
		row := q.x.RawRowView(i)
		for j := range row {
			row[j] = 1 + a*z0 + b*r.NormFloat64()
		}
		q.y[i] = row[0]*row[0] + row[1]*row[1] + row[2]*row[2] + 0.1*r.NormFloat64()
		for j := range 3 {
			q.mask[i][j] = r.Float64() < quadMiss
		}
	}
	return q
}

// withNA returns the covariates with NaN at the masked entries.
func (q quadData) withNA() *mat.Dense {
	out := mat.DenseCopyOf(q.x)
	for i, m := range q.mask {
		for j, miss := range m {
			if miss {
				out.Set(i, j, math.NaN())
			}
		}
	}
	return out
}

// colMeans returns the means of the observed entries of each column.
func colMeans(X *mat.Dense) []float64 {
	n, d := X.Dims()
	mu := make([]float64, d)
	for j := range d {
		var s float64
		k := 0
		for i := range n {
			if v := X.At(i, j); !math.IsNaN(v) {
				s, k = s+v, k+1
			}
		}
		mu[j] = s / float64(k)
	}
	return mu
}

// imputed returns X with every NaN replaced by mu of its column.
func imputed(X *mat.Dense, mu []float64) *mat.Dense {
	out := mat.DenseCopyOf(X)
	n, d := X.Dims()
	for i := range n {
		for j := range d {
			if math.IsNaN(out.At(i, j)) {
				out.Set(i, j, mu[j])
			}
		}
	}
	return out
}

// r2 is the test R² with the scenario's true Var(Y): 1 − MSE/Var(Y).
func r2(pred, y []float64) float64 {
	var s float64
	for i := range y {
		d := pred[i] - y[i]
		s += d * d
	}
	return 1 - s/float64(len(y))/quadVarY
}

// writeQuadCSV writes q as CSV with header X1..X9,Y,M1..M3 (M = 1 when
// the entry is missing), every number with full float64 precision.
func writeQuadCSV(path string, q quadData) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := csv.NewWriter(f)
	head := make([]string, 0, quadD+4)
	for j := range quadD {
		head = append(head, fmt.Sprintf("X%d", j+1))
	}
	head = append(head, "Y", "M1", "M2", "M3")
	_ = w.Write(head)
	for i, yi := range q.y {
		rec := make([]string, 0, len(head))
		for _, v := range q.x.RawRowView(i) {
			rec = append(rec, strconv.FormatFloat(v, 'g', 17, 64))
		}
		rec = append(rec, strconv.FormatFloat(yi, 'g', 17, 64))
		for _, m := range q.mask[i] {
			rec = append(rec, map[bool]string{false: "0", true: "1"}[m])
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

// dumpQuad writes the train and test sets of every golden seed to dir
// as train_<seed>.csv and test_<seed>.csv, for testdata/make_golden.R.
func dumpQuad(dir string, seeds []uint64, nTrain, nTest int) error {
	for _, s := range seeds {
		tr, te := goldenData(s, nTrain, nTest)
		if err := writeQuadCSV(filepath.Join(dir, fmt.Sprintf("train_%d.csv", s)), tr); err != nil {
			return err
		}
		if err := writeQuadCSV(filepath.Join(dir, fmt.Sprintf("test_%d.csv", s)), te); err != nil {
			return err
		}
	}
	return nil
}

// goldenData draws the train and test sets of a golden seed.
func goldenData(seed uint64, nTrain, nTest int) (train, test quadData) {
	r := rand.New(rand.NewPCG(seed, 0x666f72657374)) // "forest"
	return drawQuad(nTrain, r), drawQuad(nTest, r)
}
