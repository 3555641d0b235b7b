package sim

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestMCARRate checks the per-column missing rate of MCAR and of the
// predictive mechanism against Bernoulli(p) within 4.5 binomial standard
// errors, and that the columns are masked independently (the rate of
// joint masking is p²).
func TestMCARRate(t *testing.T) {
	const n = 100_000
	for _, mech := range []string{MCAR, Predictive} {
		for _, p := range []float64{0.05, 0.6} {
			s := scenario(t, Quadratic, func(s *Scenario) {
				s.Mechanism, s.Rate, s.NTrain, s.NTest = mech, p, n, 1
			})
			rep, err := Generate(s, 3, 0)
			if err != nil {
				t.Fatal(err)
			}
			se := math.Sqrt(p * (1 - p) / n)
			for _, j := range s.Columns {
				near(t, mech+" rate", float64(rep.Train.MissingCount(j))/n, p, se, 4.5)
			}
			both := 0
			for i := 0; i < n; i++ {
				if rep.Train.Mask(i, 0) && rep.Train.Mask(i, 1) {
					both++
				}
			}
			near(t, mech+" joint rate", float64(both)/n, p*p, math.Sqrt(p*p*(1-p*p)/n), 4.5)
		}
	}
}

// TestCensoringCount checks censoring MNAR: exactly ⌊p·n⌋ entries are
// masked per column (written here with exact integer arithmetic,
// p = num/den), and every masked value exceeds every observed value of
// its column, i.e. the masked entries are those above the empirical
// (1−p) quantile.
func TestCensoringCount(t *testing.T) {
	cases := []struct{ num, den, n int }{
		{1, 5, 1000}, {1, 5, 999}, {29, 100, 100}, {1, 2, 7}, {3, 10, 1},
		{999, 1000, 1000}, {1, 3, 10}, {7, 10, 10},
	}
	for _, c := range cases {
		p := float64(c.num) / float64(c.den)
		want := c.num * c.n / c.den // ⌊p·n⌋
		s := scenario(t, Friedman, func(s *Scenario) {
			s.Mechanism, s.Rate, s.NTrain, s.NTest = MNAR, p, c.n, c.n
			s.Columns = []int{0, 3, 7}
		})
		rep, err := Generate(s, 8, 2)
		if err != nil {
			t.Fatal(err)
		}
		for _, sm := range []Sample{rep.Train, rep.Test} {
			for _, j := range s.Columns {
				if got := sm.MissingCount(j); got != want {
					t.Errorf("p = %d/%d, n = %d: column %d has %d masked, want ⌊p·n⌋ = %d", c.num, c.den, c.n, j, got, want)
				}
				minMasked, maxObserved := math.Inf(1), math.Inf(-1)
				for i := 0; i < c.n; i++ {
					if sm.Mask(i, j) {
						minMasked = min(minMasked, sm.Full.At(i, j))
					} else {
						maxObserved = max(maxObserved, sm.Full.At(i, j))
					}
				}
				if want > 0 && want < c.n && !(minMasked > maxObserved) {
					t.Errorf("p = %v, n = %d: masked min %v ≤ observed max %v", p, c.n, minMasked, maxObserved)
				}
			}
		}
	}
}

// TestMARIntercept checks the calibration E[sigmoid(a + bZ)] = p against
// an independent integration (composite Simpson on [−12, 12], 24 000
// panels) to 1e-12, for the design slope and steeper ones.
func TestMARIntercept(t *testing.T) {
	simpson := func(a, b float64) float64 {
		const lo, hi, m = -12.0, 12.0, 24_000
		h := (hi - lo) / m
		f := func(z float64) float64 { return sigmoid(a+b*z) * math.Exp(-z*z/2) / math.Sqrt(2*math.Pi) }
		s := f(lo) + f(hi)
		for i := 1; i < m; i++ {
			w := 2.0
			if i%2 == 1 {
				w = 4
			}
			s += w * f(lo+float64(i)*h)
		}
		return s * h / 3
	}
	for _, b := range []float64{MARSlope, 0.5, 4, 8} {
		for _, p := range []float64{1e-4, 0.05, 0.2, 0.5, 0.9, 0.999} {
			a := marIntercept(p, b)
			if got := simpson(a, b); math.Abs(got-p) > 1e-12 {
				t.Errorf("b = %v, p = %v: E[sigmoid(a+bZ)] = %.14g", b, p, got)
			}
		}
	}
	if !math.IsInf(marIntercept(0, MARSlope), -1) {
		t.Error("p = 0 must give a = −Inf")
	}
}

// TestMARRateAndDependence checks the MAR mechanism: the marginal missing
// rate is p within binomial error; and the missingness depends on the
// always-observed columns as designed: the mean score Z among masked
// entries matches E[Z·sigmoid(a+bZ)]/p (computed by independent Simpson
// integration), far above the overall mean 0.
func TestMARRateAndDependence(t *testing.T) {
	const n = 200_000
	const p = 0.2
	s := scenario(t, Quadratic, func(s *Scenario) {
		s.Mechanism, s.Rate, s.NTrain, s.NTest = MAR, p, n, 1
	})
	rep, err := Generate(s, 4, 0)
	if err != nil {
		t.Fatal(err)
	}
	obs := []int{3, 4, 5, 6, 7, 8}
	k := float64(len(obs))
	sd := math.Sqrt(k*(1-s.Rho) + k*k*s.Rho) // sd of the sum of the observed columns
	for _, j := range s.Columns {
		near(t, "MAR rate", float64(rep.Train.MissingCount(j))/n, p, math.Sqrt(p*(1-p)/n), 4.5)
	}
	var zMiss, zObs moments
	for i := 0; i < n; i++ {
		sum := 0.0
		for _, j := range obs {
			sum += rep.Train.Full.At(i, j)
		}
		z := (sum - k) / sd
		if rep.Train.Mask(i, 0) {
			zMiss.add(z)
		} else {
			zObs.add(z)
		}
	}
	a := marIntercept(p, MARSlope)
	// E[Z | M = 1] = E[Z·sigmoid(a + bZ)] / p, Simpson on [−12, 12].
	const lo, hi, m = -12.0, 12.0, 24_000
	h := (hi - lo) / m
	ez := 0.0
	for i := 0; i <= m; i++ {
		z := lo + float64(i)*h
		w := 2.0
		switch {
		case i == 0 || i == m:
			w = 1
		case i%2 == 1:
			w = 4
		}
		ez += w * z * sigmoid(a+MARSlope*z) * math.Exp(-z*z/2) / math.Sqrt(2*math.Pi)
	}
	ez = ez * h / 3 / p
	near(t, "E[Z | M=1]", zMiss.mean(), ez, math.Sqrt(zMiss.variance()/zMiss.n), 4.5)
	if !(zMiss.mean() > zObs.mean()+0.5) {
		t.Errorf("MAR dependence invisible: mean Z missing %v, observed %v", zMiss.mean(), zObs.mean())
	}
}

// TestNthSmallest checks the selection against a full sort, with ties.
func TestNthSmallest(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 9))
	for trial := 0; trial < 300; trial++ {
		n := 1 + r.IntN(60)
		v := make([]float64, n)
		for i := range v {
			v[i] = float64(r.IntN(1 + n/3)) // many ties
			if trial%2 == 0 {
				v[i] = r.NormFloat64()
			}
		}
		sorted := slices.Clone(v)
		slices.Sort(sorted)
		k := r.IntN(n)
		if got := nthSmallest(slices.Clone(v), k); got != sorted[k] {
			t.Fatalf("nthSmallest(%v, %d) = %v, want %v", v, k, got, sorted[k])
		}
	}
}
