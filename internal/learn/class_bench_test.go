package learn

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// BenchmarkClassCost fits and predicts each family's mean-imputed
// pipeline at n_train = n_test = 1000, d = 10 with 10% of the cells
// MCAR, one thread, as a regression (k=0) and as a classification of k
// balanced classes (bands of the first covariate plus noise): the
// points from which plan.DefaultCostModel's classification factors are
// measured (a family's cost at k over its regression cost).
func BenchmarkClassCost(b *testing.B) {
	ctx := context.Background()
	for _, fam := range []string{Tree, CTree, Forest, Boost, SVM, KNN, LinReg} {
		for _, k := range []int{0, 2, 3, 5, 10} {
			sp, err := ParseSpec(fam + "/mean")
			if err != nil {
				b.Fatal(err)
			}
			if k > 0 && Classifies(sp, nil) != nil {
				continue
			}
			b.Run(fmt.Sprintf("%s/k=%d", fam, k), func(b *testing.B) {
				Xtr, ytr := costProblem(1000, k, 1)
				Xte, _ := costProblem(1000, k, 2)
				p, err := NewFromSpec(sp, nil, Env{Classes: k})
				if err != nil {
					b.Fatal(err)
				}
				b.ResetTimer()
				for i := range b.N {
					f, err := p.Fit(ctx, Xtr, ytr, rand.New(rand.NewPCG(uint64(i), 1)))
					if err != nil {
						b.Fatal(err)
					}
					if k > 0 {
						_, err = f.PredictProba(ctx, Xte)
					} else {
						_, err = f.Predict(ctx, Xte)
					}
					if err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// costProblem draws n rows of 10 N(0,1) covariates, 10% of the cells
// NA; y is x1 + x2² + noise, or for k > 0 its band among k equal-mass
// bands (class codes 0..k−1).
func costProblem(n, k int, seed uint64) (*mat.Dense, []float64) {
	rng := rand.New(rand.NewPCG(seed, 11))
	X := mat.NewDense(n, 10, nil)
	y := make([]float64, n)
	for i := range n {
		row := X.RawRowView(i)
		for j := range row {
			row[j] = rng.NormFloat64()
		}
		y[i] = row[0] + row[1]*row[1] + 0.5*rng.NormFloat64()
		for j := range row {
			if rng.Float64() < 0.1 {
				row[j] = math.NaN()
			}
		}
	}
	if k > 0 { // equal-mass bands of y's empirical distribution
		order := make([]int, n)
		for i := range order {
			order[i] = i
		}
		slices.SortFunc(order, func(a, b int) int { return cmp.Compare(y[a], y[b]) })
		codes := make([]float64, n)
		for r, i := range order {
			codes[i] = float64(r * k / n)
		}
		y = codes
	}
	return X, y
}
