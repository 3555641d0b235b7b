package learntest

import (
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"
)

// PaperData draws n rows of the paper's Model 1 design: d = 9 Gaussian
// covariates with mean 1 and equicorrelation 0.5, y = X1² + N(0, 0.1²),
// 20% MCAR on the first three columns, mean-imputed with the given
// means (nil: compute them from this sample). With mask, the three
// missingness indicators are appended (p = 12).
func PaperData(r *rand.Rand, n int, means []float64, mask bool) (*mat.Dense, []float64, []float64) {
	const d, rho, miss = 9, 0.5, 0.2
	p := d
	if mask {
		p += 3
	}
	X := mat.NewDense(n, p, nil)
	y := make([]float64, n)
	a, c := math.Sqrt(1-rho), (math.Sqrt(1+(d-1)*rho)-math.Sqrt(1-rho))/d
	z := make([]float64, d)
	for i := range n {
		sum := 0.0
		for j := range z {
			z[j] = r.NormFloat64()
			sum += z[j]
		}
		for j := range d {
			X.Set(i, j, 1+a*z[j]+c*sum)
		}
		y[i] = X.At(i, 0)*X.At(i, 0) + 0.1*r.NormFloat64()
		for j := range 3 {
			if r.Float64() < miss {
				X.Set(i, j, math.NaN())
				if mask {
					X.Set(i, d+j, 1)
				}
			}
		}
	}
	if means == nil {
		means = make([]float64, 3)
		for j := range 3 {
			s, k := 0.0, 0
			for i := range n {
				if v := X.At(i, j); !math.IsNaN(v) {
					s += v
					k++
				}
			}
			means[j] = s / float64(k)
		}
	}
	for i := range n {
		for j := range 3 {
			if math.IsNaN(X.At(i, j)) {
				X.Set(i, j, means[j])
			}
		}
	}
	return X, y, means
}
