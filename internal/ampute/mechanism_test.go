package ampute

import (
	"fmt"
	"math"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestRates checks, for every mechanism, the amputation rate of each
// amputed feature: on the training rows within 4 binomial standard errors
// of Rate (the intercepts are calibrated on exactly these rows, so only
// the Bernoulli draws vary: a Poisson-binomial count, whose variance is at
// most the binomial one); on a fresh test sample from the same law within
// 4·√2 standard errors, since there the calibration's own sampling error
// (the training mean of P is Rate, the population mean is off by at most
// sd(P)/√n ≤ √(Rate(1−Rate)/n)) adds to the Bernoulli noise. Censoring is
// deterministic on the training rows and carries the empirical-quantile
// error to the test rows, the same bound.
func TestRates(t *testing.T) {
	n := sampleSize(50_000)
	train := gaussian(n, 5, 0.5, 1)
	test := gaussian(n, 5, 0.5, 2)
	for _, mech := range Mechanisms[1:] {
		for _, rate := range []float64{0.2, 0.4} {
			s := Spec{Mechanism: mech, Rate: rate, Amputed: []int{0, 2, 3}}
			m, mask := fitApply(t, train, singletons(5), s, 3)
			testMask, err := m.Apply(test, rng(4))
			if err != nil {
				t.Fatal(err)
			}
			se := math.Sqrt(rate * (1 - rate) / float64(n))
			for _, f := range s.Amputed {
				what := fmt.Sprintf("%s rate %v feature %d", mech, rate, f)
				near(t, what+" train", float64(mask.Count(f))/float64(n), rate, se, 4)
				near(t, what+" test", float64(testMask.Count(f))/float64(n), rate, se, 4*math.Sqrt2)
			}
			for _, f := range []int{1, 4} {
				if mask.Count(f) != 0 || testMask.Count(f) != 0 {
					t.Errorf("%s: feature %d is not amputed but counts %d, %d", mech, f, mask.Count(f), testMask.Count(f))
				}
			}
		}
	}
}

// TestMAR regresses M_f on the true values of every amputed feature (its
// own included) and on the never-amputed predictors: the amputed
// features' coefficients are not significant, the predictors jointly are.
func TestMAR(t *testing.T) {
	n := sampleSize(50_000)
	Z := gaussian(n, 5, 0.6, 5)
	s := Spec{Mechanism: MAR, Rate: 0.3, Amputed: []int{0, 1, 3}}
	_, mask := fitApply(t, Z, singletons(5), s, 6)
	xs := [][]float64{col(Z, 0), col(Z, 1), col(Z, 3), col(Z, 2), col(Z, 4)}
	for _, f := range s.Amputed {
		l := fitLogit(t, maskCol(mask, f), xs...)
		for j := 1; j <= 3; j++ {
			if tj := l.t(j); math.Abs(tj) >= 4 {
				t.Errorf("feature %d: amputed feature %d has t = %.2f, want |t| < 4", f, s.Amputed[j-1], tj)
			}
		}
		if w := l.wald(t, 4, 5); w < 100 {
			t.Errorf("feature %d: predictors' Wald χ²(2) = %.1f, want ≥ 100", f, w)
		}
	}
}

// TestMARSinglePredictor: with one never-amputed feature, its coefficient
// alone is significant and the own value's is not.
func TestMARSinglePredictor(t *testing.T) {
	n := sampleSize(50_000)
	Z := gaussian(n, 3, 0.7, 7)
	s := Spec{Mechanism: MAR, Rate: 0.2, Amputed: []int{1, 2}}
	_, mask := fitApply(t, Z, singletons(3), s, 8)
	for _, f := range s.Amputed {
		l := fitLogit(t, maskCol(mask, f), col(Z, f), col(Z, 0))
		if math.Abs(l.t(1)) >= 4 || math.Abs(l.t(2)) < 4 {
			t.Errorf("feature %d: t(own) = %.2f, want |t| < 4; t(predictor) = %.2f, want |t| ≥ 4", f, l.t(1), l.t(2))
		}
	}
}

// TestMNAR: the own value's coefficient is significant and positive.
func TestMNAR(t *testing.T) {
	n := sampleSize(50_000)
	Z := gaussian(n, 4, 0.5, 9)
	s := Spec{Mechanism: MNAR, Rate: 0.25, Amputed: []int{0, 1, 2, 3}}
	_, mask := fitApply(t, Z, singletons(4), s, 10)
	xs := [][]float64{col(Z, 0), col(Z, 1), col(Z, 2), col(Z, 3)}
	for _, f := range s.Amputed {
		l := fitLogit(t, maskCol(mask, f), xs...)
		if tf := l.t(f + 1); tf < 4 {
			t.Errorf("feature %d: own value t = %.2f, want ≥ 4", f, tf)
		}
	}
}

// TestMCAR: M is independent of every value (|t| < 4 on all of them).
func TestMCAR(t *testing.T) {
	n := sampleSize(50_000)
	Z := gaussian(n, 4, 0.5, 11)
	s := Spec{Mechanism: MCAR, Rate: 0.4, Amputed: []int{0, 2}}
	_, mask := fitApply(t, Z, singletons(4), s, 12)
	xs := [][]float64{col(Z, 0), col(Z, 1), col(Z, 2), col(Z, 3)}
	for _, f := range s.Amputed {
		l := fitLogit(t, maskCol(mask, f), xs...)
		for j := 1; j <= 4; j++ {
			if math.Abs(l.t(j)) >= 4 {
				t.Errorf("feature %d: value %d has t = %.2f, want |t| < 4", f, j-1, l.t(j))
			}
		}
	}
}

// TestSelfMasking: M_f depends on the own value (positively, the rate
// rising from quartile to quartile) and, given it, not on the others.
func TestSelfMasking(t *testing.T) {
	n := sampleSize(50_000)
	Z := gaussian(n, 4, 0.7, 13)
	s := Spec{Mechanism: SelfMasking, Rate: 0.3, Amputed: []int{1, 2}}
	_, mask := fitApply(t, Z, singletons(4), s, 14)
	for _, f := range s.Amputed {
		y := maskCol(mask, f)
		xs := [][]float64{col(Z, f)}
		for j := 0; j < 4; j++ {
			if j != f {
				xs = append(xs, col(Z, j))
			}
		}
		l := fitLogit(t, y, xs...)
		if l.t(1) < 4 {
			t.Errorf("feature %d: own value t = %.2f, want ≥ 4", f, l.t(1))
		}
		for j := 2; j <= 4; j++ {
			if math.Abs(l.t(j)) >= 4 {
				t.Errorf("feature %d: other value %d has t = %.2f, want |t| < 4", f, j, l.t(j))
			}
		}
		rates := quartileRates(xs[0], y)
		for k := 1; k < 4; k++ {
			se := math.Sqrt((rates[k]*(1-rates[k]) + rates[k-1]*(1-rates[k-1])) / (float64(n) / 4))
			if rates[k]-rates[k-1] < 4*se {
				t.Errorf("feature %d: quartile rates %.3f do not rise by 4 se (%.4f) from quartile %d", f, rates, se, k)
			}
		}
	}
}

// quartileRates returns the rate of y in each quartile of x.
func quartileRates(x []float64, y []bool) [4]float64 {
	sorted := slices.Clone(x)
	slices.Sort(sorted)
	n := len(x)
	cut := [3]float64{sorted[n/4], sorted[n/2], sorted[3*n/4]}
	var hit, all [4]float64
	for i, v := range x {
		k := 0
		for k < 3 && v >= cut[k] {
			k++
		}
		all[k]++
		if y[i] {
			hit[k]++
		}
	}
	var r [4]float64
	for k := range r {
		r[k] = hit[k] / all[k]
	}
	return r
}

// categorical appends to Z (n × q numeric) a 3-level feature cut from
// column src plus noise, as 3 indicator columns, and returns the new
// matrix, the groups and the levels.
func categorical(Z *mat.Dense, src int, seed uint64) (*mat.Dense, [][]int, []int) {
	n, q := Z.Dims()
	r := rng(seed)
	out := mat.NewDense(n, q+3, nil)
	levels := make([]int, n)
	for i := 0; i < n; i++ {
		copy(out.RawRowView(i), Z.RawRowView(i))
		v := Z.At(i, src) + r.NormFloat64()
		switch {
		case v < -0.5:
			levels[i] = 0
		case v < 0.7:
			levels[i] = 1
		default:
			levels[i] = 2
		}
		out.Set(i, q+levels[i], 1)
	}
	groups := append(singletons(q), []int{q, q + 1, q + 2})
	return out, groups, levels
}

// TestSelfMaskingCategorical: a categorical feature's mask depends on its
// level (the level dummies are jointly significant) and, given the level,
// not on the numeric features.
func TestSelfMaskingCategorical(t *testing.T) {
	n := sampleSize(50_000)
	Z, groups, levels := categorical(gaussian(n, 3, 0.5, 15), 0, 16)
	s := Spec{Mechanism: SelfMasking, Rate: 0.3, Amputed: []int{3}}
	_, mask := fitApply(t, Z, groups, s, 17)
	d1, d2 := make([]float64, n), make([]float64, n)
	for i, l := range levels {
		d1[i], d2[i] = b2f(l == 1), b2f(l == 2)
	}
	l := fitLogit(t, maskCol(mask, 3), d1, d2, col(Z, 0), col(Z, 1), col(Z, 2))
	if w := l.wald(t, 1, 2); w < 100 {
		t.Errorf("level dummies' Wald χ²(2) = %.1f, want ≥ 100", w)
	}
	for j := 3; j <= 5; j++ {
		if math.Abs(l.t(j)) >= 4 {
			t.Errorf("numeric feature %d has t = %.2f given the level, want |t| < 4", j-3, l.t(j))
		}
	}
	near(t, "categorical rate", float64(mask.Count(3))/float64(n), 0.3, math.Sqrt(0.21/float64(n)), 4)
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// TestCensoring: the threshold is the type-7 (1−Rate) quantile of the
// training values (sorted and interpolated here), every amputed entry is
// above it and every kept one at or below it, on training and test rows.
func TestCensoring(t *testing.T) {
	n := sampleSize(20_000)
	for _, c := range []struct {
		n    int
		rate float64
	}{{n, 0.2}, {n + 1, 0.37}, {7, 0.5}, {2, 0.9}} {
		train := gaussian(c.n, 3, 0.5, uint64(c.n))
		test := gaussian(c.n, 3, 0.5, uint64(c.n)+1)
		s := Spec{Mechanism: Censoring, Rate: c.rate, Amputed: []int{0, 2}}
		m, mask := fitApply(t, train, singletons(3), s, 18)
		testMask, err := m.Apply(test, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range s.Amputed {
			x := col(train, f)
			slices.Sort(x)
			h := float64(c.n-1) * (1 - c.rate) // 0-based type-7 position
			lo := int(h)
			want := x[lo] + (h-float64(lo))*(x[min(lo+1, c.n-1)]-x[lo])
			got, ok := m.Threshold(f)
			if !ok || math.Abs(got-want) > 1e-12*math.Max(1, math.Abs(want)) {
				t.Errorf("n %d rate %v feature %d: threshold %v, %v; want %v", c.n, c.rate, f, got, ok, want)
			}
			for _, z := range []struct {
				Z    *mat.Dense
				mask *Mask
			}{{train, mask}, {test, testMask}} {
				for i := 0; i < c.n; i++ {
					if v := z.Z.At(i, f); z.mask.Amputed(i, f) != (v > want) {
						t.Fatalf("n %d feature %d row %d: value %v, threshold %v, amputed %v", c.n, f, i, v, want, z.mask.Amputed(i, f))
					}
				}
			}
		}
	}
}

// TestCensoringUsesTrainingThreshold: test rows shifted up by one sd are
// censored at the training threshold, so far more than Rate of them go.
func TestCensoringUsesTrainingThreshold(t *testing.T) {
	n := sampleSize(20_000)
	train := gaussian(n, 2, 0, 19)
	test := gaussian(n, 2, 0, 20)
	for i := 0; i < n; i++ {
		test.Set(i, 0, test.At(i, 0)+1)
	}
	m, err := Fit(train, singletons(2), Spec{Mechanism: Censoring, Rate: 0.2, Amputed: []int{0}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	mask, err := m.Apply(test, nil)
	if err != nil {
		t.Fatal(err)
	}
	// P(N(1,1) > Φ⁻¹(0.8)) = Φ(1 − 0.8416) = 0.5629.
	near(t, "shifted test rate", float64(mask.Count(0))/float64(n), 0.5629, math.Sqrt(0.25/float64(n)), 5)
}
