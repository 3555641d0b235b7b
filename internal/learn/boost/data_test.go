package boost

import (
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"
)

// quadratic draws the paper's Model 1: X ~ N(1, ρ11ᵀ + (1−ρ)I) in d
// dimensions, Y = X1² + X2² + X3² + ε with ε ~ N(0, 0.1²), then masks
// each entry of the first three columns with probability rate (MCAR).
// It returns the masked X and Y.
func quadratic(rng *rand.Rand, n, d int, rho, rate float64) (*mat.Dense, []float64) {
	X := mat.NewDense(n, d, nil)
	y := make([]float64, n)
	for i := range n {
		z0 := rng.NormFloat64()
		for j := range d {
			X.Set(i, j, 1+math.Sqrt(rho)*z0+math.Sqrt(1-rho)*rng.NormFloat64())
		}
		for j := range 3 {
			y[i] += X.At(i, j) * X.At(i, j)
		}
		y[i] += 0.1 * rng.NormFloat64()
		for j := range 3 {
			if rng.Float64() < rate {
				X.Set(i, j, math.NaN())
			}
		}
	}
	return X, y
}

// quadraticVariance is Var(Y) for the quadratic model with μ = 1:
// Var(Σ X_j²) over three equicorrelated N(1, ·) variables plus the noise.
// For X ~ N(μ, Σ), Cov(X_i², X_j²) = 2Σ_ij² + 4μ²Σ_ij.
func quadraticVariance(rho float64) float64 {
	v := 0.0
	for i := range 3 {
		for j := range 3 {
			s := rho
			if i == j {
				s = 1
			}
			v += 2*s*s + 4*s
		}
	}
	return v + 0.01
}
