package sim

import (
	"errors"
	"math"
	"strings"
	"sync"
	"testing"
)

// TestGaussianMoments checks that the complete covariates of the Gaussian
// models have mean 1 and covariance ρ11ᵀ + (1−ρ)I, within 4.5 standard
// errors per entry (SE of a covariance entry: √((Σ_ii Σ_jj + Σ_ij²)/n)).
// ρ < 0 exercises the exact symmetric square root beyond the usual
// "shared factor" construction.
func TestGaussianMoments(t *testing.T) {
	cases := []struct {
		model string
		d     int
		rho   float64
	}{
		{Quadratic, 9, 0.5},
		{Linear, 10, -0.1},
		{Friedman, 6, 0.9},
		{Quadratic, 3, 0},
	}
	const n = 60_000
	for _, c := range cases {
		s := scenario(t, c.model, func(s *Scenario) {
			s.D, s.Rho, s.NTrain, s.NTest = c.d, c.rho, n, 1
			s.Columns = []int{0}
		})
		rep, err := Generate(s, 11, 0)
		if err != nil {
			t.Fatal(err)
		}
		x := rep.Train.Full.RawMatrix().Data
		mean := make([]float64, c.d)
		for i := 0; i < n; i++ {
			for j := range mean {
				mean[j] += x[i*c.d+j] / n
			}
		}
		for j := range mean {
			near(t, c.model+" mean", mean[j], 1, math.Sqrt(1.0/n), 4.5)
		}
		for j := 0; j < c.d; j++ {
			for k := j; k < c.d; k++ {
				cov := 0.0
				for i := 0; i < n; i++ {
					cov += (x[i*c.d+j] - 1) * (x[i*c.d+k] - 1)
				}
				cov /= n
				want := c.rho
				if j == k {
					want = 1
				}
				near(t, c.model+" cov", cov, want, math.Sqrt((1+want*want)/n), 4.5)
			}
		}
	}
}

// TestToyAndHiddenCovariates checks the laws of the non-Gaussian
// covariates against their analytic moments.
func TestToyAndHiddenCovariates(t *testing.T) {
	const n = 100_000
	draw := func(model string, fn func(*Scenario)) Sample {
		s := scenario(t, model, func(s *Scenario) {
			s.NTrain, s.NTest = n, 1
			if fn != nil {
				fn(s)
			}
		})
		rep, err := Generate(s, 5, 0)
		if err != nil {
			t.Fatal(err)
		}
		return rep.Train
	}
	col := func(sm Sample, j int) *moments {
		var m moments
		for i := 0; i < n; i++ {
			m.add(sm.Full.At(i, j))
		}
		return &m
	}
	check := func(name string, m *moments, mean, variance float64) {
		t.Helper()
		near(t, name+" mean", m.mean(), mean, math.Sqrt(variance/n), 4.5)
		near(t, name+" var", m.variance(), variance, m.varianceSE(), 4.5)
	}
	u := draw(Example1, nil)
	check("example1 X1 ~ U(0,1)", col(u, 0), 0.5, 1.0/12)

	e2 := draw(Example2, nil)
	for i := 0; i < n; i++ {
		if e2.Full.At(i, 0) != e2.Full.At(i, 1) {
			t.Fatalf("example2 row %d: X1 = %v ≠ X2 = %v", i, e2.Full.At(i, 0), e2.Full.At(i, 1))
		}
	}

	const eta = 0.3
	p2 := draw(Prop2, func(s *Scenario) { s.Eta = eta })
	zeros := 0
	for i := 0; i < n; i++ {
		x1, x2 := p2.Full.At(i, 0), p2.Full.At(i, 1)
		if x2 == 0 {
			zeros++
		} else if x2 != x1 {
			t.Fatalf("prop2 row %d: X2 = %v is neither 0 nor X1 = %v", i, x2, x1)
		}
	}
	near(t, "prop2 P(W=0)", float64(zeros)/n, eta, math.Sqrt(eta*(1-eta)/n), 4.5)

	st := draw(Stump, nil)
	check("stump X1", col(st, 0), 0, 1)
	check("stump X2", col(st, 1), 0, 1)

	// Model 4 with H ~ U(−3, 0) and feature noise sd 0.05:
	// X7 = H − 3 + e: mean −4.5, var 3²/12 + 0.05²;
	// X1 = H² + e: mean E[H²] = 3, var E[H⁴] − 9 + 0.05² = 81/5 − 9 + 0.0025.
	nl := draw(Nonlinear, nil)
	check("model4 X7", col(nl, 6), -4.5, 0.75+0.0025)
	check("model4 X1", col(nl, 0), 3, 81.0/5-9+0.0025)
}

// TestGenerateDeterministic checks that Generate is a pure function of
// (scenario, seed, rep): repeated calls, reversed and concurrent orders
// all give bit-identical data, while reps, seeds and train/test differ.
func TestGenerateDeterministic(t *testing.T) {
	scns := []Scenario{
		scenario(t, Quadratic, func(s *Scenario) { s.NTrain, s.NTest = 300, 200 }),
		scenario(t, Friedman, func(s *Scenario) { s.Mechanism, s.Columns = MAR, []int{0, 1, 2, 3} }),
		scenario(t, NonlinearHigh, func(s *Scenario) { s.Rate = 0.4 }),
		scenario(t, Quadratic, func(s *Scenario) { s.Mechanism = MNAR }),
		scenario(t, Example3, nil),
		scenario(t, Prop2, nil),
	}
	const reps = 6
	for _, s := range scns {
		seq := make([]Rep, reps)
		for r := range seq {
			var err error
			if seq[r], err = Generate(s, 99, r); err != nil {
				t.Fatal(err)
			}
		}
		conc := make([]Rep, reps)
		var wg sync.WaitGroup
		for r := reps - 1; r >= 0; r-- {
			wg.Add(1)
			go func() {
				defer wg.Done()
				conc[r], _ = Generate(s, 99, r)
			}()
		}
		wg.Wait()
		for r := range seq {
			again, _ := Generate(s, 99, r)
			if !sameSample(seq[r].Train, conc[r].Train) || !sameSample(seq[r].Test, conc[r].Test) ||
				!sameSample(seq[r].Train, again.Train) || !sameSample(seq[r].Test, again.Test) {
				t.Errorf("%s rep %d: data depend on call order or concurrency", s.Model, r)
			}
		}
		if sameBits(seq[0].Train.Full, seq[1].Train.Full) {
			t.Errorf("%s: reps 0 and 1 are identical", s.Model)
		}
		other, _ := Generate(s, 100, 0)
		if sameBits(seq[0].Train.Full, other.Train.Full) {
			t.Errorf("%s: seeds 99 and 100 give the same data", s.Model)
		}
		if s.NTrain == s.NTest && sameBits(seq[0].Train.Full, seq[0].Test.Full) {
			t.Errorf("%s: train and test are the same draw", s.Model)
		}
	}
}

// TestGenerateShapes checks sizes, that X equals Full except at NaN, and
// that only the scenario's columns are ever masked.
func TestGenerateShapes(t *testing.T) {
	for _, mech := range Mechanisms {
		s := scenario(t, Quadratic, func(s *Scenario) {
			s.NTrain, s.NTest, s.Mechanism, s.Columns = 500, 300, mech, []int{1, 4}
			if mech == None {
				s.Rate = 0
			}
		})
		rep, err := Generate(s, 1, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, sm := range []Sample{rep.Train, rep.Test} {
			n, d := sm.X.Dims()
			if d != s.D || len(sm.Y) != n || (n != s.NTrain && n != s.NTest) {
				t.Fatalf("%s: dims %d×%d, len(Y) = %d", mech, n, d, len(sm.Y))
			}
			for i := 0; i < n; i++ {
				for j := 0; j < d; j++ {
					x, f := sm.X.At(i, j), sm.Full.At(i, j)
					if math.IsNaN(f) || (!math.IsNaN(x) && x != f) {
						t.Fatalf("%s: X(%d,%d) = %v, Full = %v", mech, i, j, x, f)
					}
					if sm.Mask(i, j) && j != 1 && j != 4 {
						t.Fatalf("%s: column %d masked but not in Columns", mech, j)
					}
				}
			}
		}
		if mech != None && rep.Train.MissingCount(1) == 0 {
			t.Errorf("%s: nothing masked at rate %v", mech, s.Rate)
		}
	}
}

// TestInvalidScenarios checks that bad parameters are rejected by every
// entry point with an error naming the parameter and its allowed range.
func TestInvalidScenarios(t *testing.T) {
	q := func(fn func(*Scenario)) Scenario {
		s, _ := Defaults(Quadratic)
		fn(&s)
		return s
	}
	cases := []struct {
		name string
		s    Scenario
		want []string
	}{
		{"rho at 1", q(func(s *Scenario) { s.Rho = 1 }), []string{"rho = 1", "< rho < 1"}},
		{"rho below -1/(d-1)", q(func(s *Scenario) { s.Rho = -0.2 }), []string{"rho = -0.2", "-0.125 < rho < 1"}},
		{"rho NaN", q(func(s *Scenario) { s.Rho = math.NaN() }), []string{"rho = NaN"}},
		{"rate 1", q(func(s *Scenario) { s.Rate = 1 }), []string{"rate = 1", "[0, 1)"}},
		{"rate negative", q(func(s *Scenario) { s.Rate = -0.1 }), []string{"rate = -0.1", "[0, 1)"}},
		{"unknown model", q(func(s *Scenario) { s.Model = "cubic" }), []string{`model "cubic"`, "known:"}},
		{"unknown mechanism", q(func(s *Scenario) { s.Mechanism = "mcra" }), []string{`mechanism "mcra"`, "known:"}},
		{"column out of range", q(func(s *Scenario) { s.Columns = []int{0, 9} }), []string{"columns[1] = 9", "[0, 9)"}},
		{"column negative", q(func(s *Scenario) { s.Columns = []int{-1} }), []string{"columns[0] = -1", "[0, 9)"}},
		{"d too small", q(func(s *Scenario) { s.D = 2; s.Columns = []int{0} }), []string{"d = 2", "d ≥ 3"}},
		{"linear d too small", func() Scenario {
			s, _ := Defaults(Linear)
			s.D, s.Columns = 9, []int{0}
			return s
		}(), []string{"d = 9", "d ≥ 10"}},
		{"noise negative", q(func(s *Scenario) { s.Noise = -1 }), []string{"noise = -1", "≥ 0"}},
		{"n_train zero", q(func(s *Scenario) { s.NTrain = 0 }), []string{"n_train = 0", "[1, "}},
		{"MAR without observed column", q(func(s *Scenario) {
			s.Mechanism, s.Columns = MAR, []int{0, 1, 2, 3, 4, 5, 6, 7, 8}
		}), []string{"always-observed"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err1 := Generate(c.s, 1, 0)
			_, _, err2 := Variance(c.s)
			_, _, err3 := BayesRisk(c.s)
			for _, err := range []error{err1, err2, err3} {
				if !errors.Is(err, ErrInvalid) {
					t.Fatalf("error %v does not wrap ErrInvalid", err)
				}
				for _, w := range c.want {
					if !strings.Contains(err.Error(), w) {
						t.Errorf("error %q lacks %q", err, w)
					}
				}
			}
		})
	}
	s, _ := Defaults(Quadratic)
	if _, err := Generate(s, 1, -1); !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "rep = -1") {
		t.Errorf("negative rep: %v", err)
	}
}
