package svm

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"
)

// bigExp returns e^x to about 200 bits: e^x = (e^(x/2^m))^(2^m) with a
// Taylor series for the small argument.
func bigExp(x float64) *big.Float {
	const prec, m = 300, 12
	y := new(big.Float).SetPrec(prec).SetFloat64(x)
	y.Quo(y, new(big.Float).SetPrec(prec).SetInt64(1<<m))
	sum := new(big.Float).SetPrec(prec).SetInt64(1)
	term := new(big.Float).SetPrec(prec).SetInt64(1)
	for k := int64(1); k < 40; k++ {
		term.Mul(term, y)
		term.Quo(term, new(big.Float).SetPrec(prec).SetInt64(k))
		sum.Add(sum, term)
	}
	for range m {
		sum.Mul(sum, sum)
	}
	return sum
}

// ulpErr is |got − e^x| in units of the last place of e^x.
func ulpErr(got, x float64) float64 {
	ref := bigExp(x)
	r, _ := ref.Float64()
	ulp := math.Nextafter(r, math.Inf(1)) - r
	d := new(big.Float).SetPrec(300).Sub(new(big.Float).SetFloat64(got), ref)
	df, _ := d.Float64()
	return math.Abs(df) / ulp
}

// TestExpAccuracy checks the kernel exponential against a 300-bit
// reference: at most 0.51 ulp on [−700, 1] (and the arguments the
// kernels use, −γ‖u−v‖² ≤ 0, are in there), exact at 0.
func TestExpAccuracy(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	xs := []float64{0, -0.0, -1e-300, 1e-17, -1e-10, math.Ln2 / 256, -math.Ln2 / 256, -1, -0.5, -20, -100.25, -699.9, -700, 1}
	for range 3000 {
		xs = append(xs, -r.ExpFloat64()*5, -r.Float64()*700, -r.Float64()*1e-3)
	}
	all := append([]float64(nil), xs...)
	expAll(all)
	worst := 0.0
	for i, x := range xs {
		if all[i] != exp(x) && !math.IsNaN(x) {
			t.Errorf("expAll(%v) = %v, exp = %v", x, all[i], exp(x))
		}
		e := ulpErr(exp(x), x)
		if e > 0.51 {
			t.Errorf("exp(%v) = %v: error %.3f ulp", x, exp(x), e)
		}
		worst = math.Max(worst, e)
	}
	if exp(0) != 1 {
		t.Errorf("exp(0) = %v", exp(0))
	}
	for _, x := range []float64{math.Inf(-1), -800, 800, math.NaN()} {
		v := []float64{x}
		expAll(v)
		for _, got := range []float64{exp(x), v[0]} {
			if want := math.Exp(x); got != want && !(math.IsNaN(got) && math.IsNaN(want)) {
				t.Errorf("exp(%v) = %v, want %v", x, got, want)
			}
		}
	}
	// Out-of-range values inside a block of four and in the tail.
	mixed := []float64{-1, -800, -0.5, -2, -3, math.NaN(), 800, math.Inf(-1), -0.25}
	got := append([]float64(nil), mixed...)
	expAll(got)
	for i, x := range mixed {
		if want := exp(x); got[i] != want && !(math.IsNaN(got[i]) && math.IsNaN(want)) {
			t.Errorf("expAll in a block: exp(%v) = %v, want %v", x, got[i], want)
		}
	}
	t.Logf("worst error %.4f ulp over %d points", worst, len(xs))
}
