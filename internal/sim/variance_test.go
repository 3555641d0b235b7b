package sim

import (
	"math"
	"sync"
	"testing"
)

// TestVarianceClosedForms checks every closed-form Var(Y) against 10⁶
// draws of Y from the generator (within 4.5 standard errors of the sample
// variance), plus the paper's value 33 (+ σ²) for Experiment 1.
func TestVarianceClosedForms(t *testing.T) {
	cases := []struct {
		name string
		s    Scenario
	}{
		{"quadratic mcar", scenario(t, Quadratic, nil)},
		{"quadratic predictive", scenario(t, Quadratic, func(s *Scenario) { s.Mechanism = Predictive })},
		{"quadratic rho<0 d=4", scenario(t, Quadratic, func(s *Scenario) { s.D, s.Rho, s.Noise = 4, -0.3, 0.5 })},
		{"linear", scenario(t, Linear, nil)},
		{"linear d=12 rho=0 predictive", scenario(t, Linear, func(s *Scenario) {
			s.D, s.Rho, s.Mechanism, s.Rate, s.Columns = 12, 0, Predictive, 0.4, []int{0, 5, 11}
		})},
		{"example1", scenario(t, Example1, nil)},
		{"example1 predictive", scenario(t, Example1, func(s *Scenario) { s.Mechanism, s.Rate = Predictive, 0.3 })},
		{"example2", scenario(t, Example2, nil)},
		{"example3 p=0.5", scenario(t, Example3, nil)},
		{"example3 p=0.3", scenario(t, Example3, func(s *Scenario) { s.Rate = 0.3 })},
		{"prop2", scenario(t, Prop2, func(s *Scenario) { s.Noise = 0.2 })},
		{"stump", scenario(t, Stump, func(s *Scenario) { s.Columns = []int{0, 1} })},
	}
	const n = 1_000_000
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			v, exact, err := Variance(c.s)
			if err != nil || !exact {
				t.Fatalf("Variance = %v, %v, %v; want an exact value", v, exact, err)
			}
			m := drawY(c.s, n, Stream(uint64(i), c.s.Canonical(), 0, "variance-check"))
			near(t, "Var(Y)", v, m.variance(), m.varianceSE(), 4.5)
		})
	}
	v, _, _ := Variance(scenario(t, Quadratic, nil))
	if math.Abs(v-(33+0.01)) > 1e-12 {
		t.Errorf("quadratic d=9 rho=0.5: Var(Y) = %v, want 33 + 0.1²", v)
	}
	// The mask enters Y only under the predictive mechanism (and in
	// Example 3), so none, MNAR and MAR share the MCAR variance.
	for _, mech := range []string{None, MNAR, MAR} {
		s := scenario(t, Quadratic, func(s *Scenario) {
			s.Mechanism = mech
			if mech == None {
				s.Rate = 0
			}
		})
		if w, _, _ := Variance(s); w != v {
			t.Errorf("%s: Var(Y) = %v, want the MCAR value %v", mech, w, v)
		}
	}
}

// TestVarianceMonteCarlo checks the Monte Carlo variances (Friedman and
// Model 4; the low-SNR Model 4 differs only in its coefficients) against
// an independent sample of 5·10⁵ draws from another stream, within 4.5
// combined standard errors, and that the reported standard error agrees
// with the fourth-moment formula to within 20%.
func TestVarianceMonteCarlo(t *testing.T) {
	for _, model := range []string{Friedman, NonlinearHigh} {
		t.Run(model, func(t *testing.T) {
			t.Parallel()
			s := scenario(t, model, nil)
			e, err := VarianceInfo(s)
			if err != nil || e.Exact || e.Draws != VarianceDraws {
				t.Fatalf("VarianceInfo = %+v, %v", e, err)
			}
			m := drawY(s, 500_000, Stream(77, s.Canonical(), 0, "variance-check"))
			near(t, "Var(Y)", e.Value, m.variance(), math.Hypot(e.StdErr, m.varianceSE()), 4.5)
			ratio := e.StdErr / (m.varianceSE() * math.Sqrt(5e5/VarianceDraws))
			if ratio < 0.8 || ratio > 1.25 {
				t.Errorf("reported StdErr %v vs fourth-moment %v (ratio %.2f)", e.StdErr, m.varianceSE(), ratio)
			}
		})
	}
}

// TestVarianceSharedAcrossPopulation checks that the Monte Carlo variance
// is the same bit pattern for scenarios that share the law of X (sample
// sizes, mechanism, rate, columns differ), differs only by the exact σ²
// and predictive terms, and is computed once under concurrent callers.
func TestVarianceSharedAcrossPopulation(t *testing.T) {
	base := scenario(t, Friedman, func(s *Scenario) { s.Noise = 0 })
	v0, _, _ := Variance(base)
	variants := []Scenario{
		scenario(t, Friedman, func(s *Scenario) { s.Noise, s.NTrain, s.NTest = 0, 17, 3 }),
		scenario(t, Friedman, func(s *Scenario) { s.Noise, s.Mechanism, s.Rate = 0, MNAR, 0.4 }),
		scenario(t, Friedman, func(s *Scenario) { s.Noise, s.Columns = 0, []int{2} }),
	}
	var wg sync.WaitGroup
	got := make([]float64, len(variants)*4)
	for i := range got {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got[i], _, _ = Variance(variants[i%len(variants)])
		}()
	}
	wg.Wait()
	for _, v := range got {
		if math.Float64bits(v) != math.Float64bits(v0) {
			t.Errorf("Var(Y) = %v, want the shared %v", v, v0)
		}
	}
	noisy := scenario(t, Friedman, func(s *Scenario) { s.Noise, s.Mechanism = 2, Predictive })
	v1, _, _ := Variance(noisy)
	if want := v0 + 4 + 4*10*0.2*0.8; math.Abs(v1-want) > 1e-9*want {
		t.Errorf("predictive, σ = 2: Var(Y) = %v, want %v", v1, want)
	}
	other := scenario(t, Friedman, func(s *Scenario) { s.Noise, s.Rho = 0, 0.3 })
	if v2, _, _ := Variance(other); v2 == v0 {
		t.Error("a different ρ gave the same Monte Carlo variance")
	}
}
