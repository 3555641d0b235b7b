package sim

import (
	"math"
	"math/cmplx"
	"sync"

	"gonum.org/v1/gonum/integrate/quad"
)

// stdNormalNodes returns nodes and weights for E[g(Z)], Z ~ N(0, 1):
// E[g(Z)] ≈ Σ w_i g(z_i). The rule is composite Gauss–Legendre, 96 panels
// of 8 nodes on [−12, 12], with the normal density folded into the
// weights (the mass beyond ±12 is 3.6e-33). Unlike Gauss–Hermite, whose
// accuracy for sigmoid(a + bz) collapses as the slope b grows (poles at
// Im z = ±π/b; 64 nodes give only 1e-6 at b = 4), it integrates the MAR
// link to < 1e-12 for b up to 8 (checked in the tests). The slices are
// shared and must not be modified.
var stdNormalNodes = sync.OnceValues(func() ([]float64, []float64) {
	const panels, per, lim = 96, 8, 12.0
	z := make([]float64, 0, panels*per)
	w := make([]float64, 0, panels*per)
	xs, ws := make([]float64, per), make([]float64, per)
	width := 2 * lim / panels
	for p := 0; p < panels; p++ {
		lo := -lim + float64(p)*width
		quad.Legendre{}.FixedLocations(xs, ws, lo, lo+width)
		for i, x := range xs {
			z = append(z, x)
			w = append(w, ws[i]*math.Exp(-x*x/2)/math.Sqrt(2*math.Pi))
		}
	}
	return z, w
})

// equiCond holds the law of the missing coordinates of X ~ N(1, Σ),
// Σ = ρ·11ᵀ + (1−ρ)·I, given k observed coordinates x_o. It is the Schur
// complement in closed form: with q = 1 − ρ + kρ (the eigenvalue of Σ_oo
// along 1) and S = Σ_{j∈o}(x_j − 1),
//
//	E[X_j | x_o]       = 1 + ρ·S/q                for every missing j,
//	Var(X_j | x_o)     = 1 − kρ²/q,
//	Cov(X_j, X_l | x_o) = ρ(1−ρ)/q                for missing j ≠ l,
//
// because Σ_mo Σ_oo⁻¹ = (ρ/q)·1_m 1_oᵀ and 1ᵀ Σ_oo⁻¹ 1 = k/q. Σ is always
// equicorrelated in this project, so the conditional law of a pattern costs
// O(d) per row and no factorisation at all.
type equiCond struct {
	mean, vr, cv float64
}

// equiConditional returns the conditional law given k observed coordinates
// whose deviations from the mean 1 sum to sumDev.
func equiConditional(rho float64, k int, sumDev float64) equiCond {
	q := 1 - rho + float64(k)*rho
	return equiCond{
		mean: 1 + rho*sumDev/q,
		vr:   1 - float64(k)*rho*rho/q,
		cv:   rho * (1 - rho) / q,
	}
}

// productCF returns E[exp(i·t·X1·X2)] for (X1, X2) ~ N(m, C) with
// m = (m1, m2) and C = [[c11, c12], [c12, c22]] positive semi-definite
// (zero rows for observed coordinates are allowed). For X ~ N(m, C) and a
// symmetric B, E[exp(XᵀBX)] = det(I − 2CB)^{−1/2} · exp(mᵀ(I − 2BC)⁻¹Bm);
// with B = (it/2)·[[0,1],[1,0]] and s = it this is
//
//	D = (1 − s·c12)² − s²·c11·c22,
//	E[e^{s X1 X2}] = D^{−1/2} · exp((s/D)·((1 − s·c12)·m1·m2 + s·(c22·m1² + c11·m2²)/2)).
//
// Re D = 1 + t²(c11c22 − c12²) ≥ 1 along the whole path s ∈ [0, it], so the
// principal square root is the analytic continuation from s = 0 and the
// formula is exact (no quadrature).
func productCF(t, m1, m2, c11, c12, c22 float64) complex128 {
	s := complex(0, t)
	u := 1 - s*complex(c12, 0)
	det := u*u - s*s*complex(c11*c22, 0)
	e := s / det * (u*complex(m1*m2, 0) + s*complex((c22*m1*m1+c11*m2*m2)/2, 0))
	return cmplx.Exp(e) / cmplx.Sqrt(det)
}

// expSinProduct returns E[sin(π·X1·X2)] for (X1, X2) ~ N(m, C) (see productCF).
func expSinProduct(m1, m2, c11, c12, c22 float64) float64 {
	return imag(productCF(math.Pi, m1, m2, c11, c12, c22))
}
