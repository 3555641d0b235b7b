package stats

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

func TestQuantileHandComputed(t *testing.T) {
	nan := math.NaN()
	x4 := []float64{1, 2, 3, 4}
	tests := []struct {
		name string
		x    []float64
		p    float64
		want float64
	}{
		// h = 1 + 3p: p = .25 → h = 1.75 → 1 + .75·(2 − 1)
		{"n4 q1", x4, 0.25, 1.75},
		{"n4 median", x4, 0.5, 2.5},
		{"n4 q3", x4, 0.75, 3.25},
		{"n4 min", x4, 0, 1},
		{"n4 max", x4, 1, 4},
		{"n4 p=.9", x4, 0.9, 3.7},
		{"ties", []float64{2, 2, 2, 5}, 0.5, 2},
		{"single", []float64{0.7}, 0.3, 0.7},
		{"empty", nil, 0.5, nan},
		{"p<0", x4, -0.1, nan},
		{"p>1", x4, 1.1, nan},
		{"p NaN", x4, nan, nan},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := Quantile(tc.x, tc.p); !near(got, tc.want, 1e-15, 0) {
				t.Errorf("Quantile(%v, %v) = %v, want %v", tc.x, tc.p, got, tc.want)
			}
		})
	}
}

func TestFivenumAndBoxHandComputed(t *testing.T) {
	seq := func(n int) []float64 {
		s := make([]float64, n)
		for i := range s {
			s[i] = float64(i + 1)
		}
		return s
	}
	// 1..10: lower half 1..5 → hinge 3, median 5.5, upper half 6..10 → 8.
	if got := Fivenum(seq(10)); got != [5]float64{1, 3, 5.5, 8, 10} {
		t.Errorf("Fivenum(1..10) = %v", got)
	}
	// 1..9: halves 1..5 and 5..9 share the median.
	if got := Fivenum(seq(9)); got != [5]float64{1, 3, 5, 7, 9} {
		t.Errorf("Fivenum(1..9) = %v", got)
	}
	// Type 7 on 1..10: Q1 = 1 + 9/4 = 3.25, Q3 = 7.75 — differs from Tukey's 3 and 8.
	if b := BoxStats(seq(10), 1.5, HingesType7); b.Q1 != 3.25 || b.Q3 != 7.75 {
		t.Errorf("type-7 box of 1..10 = %+v", b)
	}
	// {1,2,3,4,100}: Q1 = 2, Q3 = 4, IQR 2, fences [−1, 7] → whiskers 1..4, outlier 100.
	x := []float64{1, 2, 3, 4, 100}
	for _, h := range []Hinges{HingesType7, HingesTukey} {
		b := BoxStats(x, 1.5, h)
		if b.Lower != 1 || b.Q1 != 2 || b.Median != 3 || b.Q3 != 4 || b.Upper != 4 ||
			!slices.Equal(b.Outliers, []float64{100}) {
			t.Errorf("%v box = %+v", h, b)
		}
	}
	if b := BoxStats(x, 0, HingesType7); b.Lower != 1 || b.Upper != 100 || len(b.Outliers) != 0 {
		t.Errorf("coef 0 box = %+v, want whiskers at min and max", b)
	}
	if b := BoxStats(nil, 1.5, HingesTukey); !math.IsNaN(b.Median) || !math.IsNaN(b.Lower) {
		t.Errorf("empty box = %+v, want NaN", b)
	}
}

func TestDescribeEdgeCases(t *testing.T) {
	t.Run("empty group", func(t *testing.T) {
		s, err := Describe(nil)
		if err != nil || s.N != 0 || !math.IsNaN(s.Mean) || !math.IsNaN(s.Median) || !math.IsNaN(s.SE) {
			t.Errorf("Describe(nil) = %+v, %v; want N = 0 and NaN fields", s, err)
		}
	})
	t.Run("single value", func(t *testing.T) {
		s, err := Describe([]float64{0.42})
		if err != nil || s.N != 1 || s.Mean != 0.42 || s.Median != 0.42 || !math.IsNaN(s.SD) || !math.IsNaN(s.SE) {
			t.Errorf("Describe([0.42]) = %+v, %v", s, err)
		}
	})
	for _, bad := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
		if _, err := Describe([]float64{1, bad, 2}); !errors.Is(err, ErrNonFinite) {
			t.Errorf("Describe with %v: err = %v, want ErrNonFinite", bad, err)
		}
	}
	t.Run("input untouched", func(t *testing.T) {
		x := []float64{3, 1, 2}
		if _, err := Describe(x); err != nil || !slices.Equal(x, []float64{3, 1, 2}) {
			t.Errorf("Describe reordered its input: %v (%v)", x, err)
		}
	})
}

// The standard error of the mean must estimate σ/√n: over many samples of
// size n from N(μ, σ²), the spread of the sample means is σ/√n and the
// mean of SE² is σ²/n (E s² = σ²).
func TestSEMatchesSigmaOverSqrtN(t *testing.T) {
	const (
		k, n        = 4000, 25
		mu, sigma   = 0.7, 0.05
		wantSE      = sigma / 5 // σ/√25
		relTolSD    = 0.05      // SD of K means has relative sd 1/√(2K) ≈ 1.1%: 4.5σ
		relTolMeanV = 0.025     // mean of K values s²/n has relative sd √(2/((n−1)K)) ≈ 0.46%: 5σ
	)
	rng := rand.New(rand.NewPCG(1, 2))
	means := make([]float64, k)
	var se2 float64
	x := make([]float64, n)
	for i := range k {
		for j := range x {
			x[j] = mu + sigma*rng.NormFloat64()
		}
		s, err := Describe(x)
		if err != nil {
			t.Fatal(err)
		}
		means[i] = s.Mean
		se2 += s.SE * s.SE / k
	}
	spread, _ := Describe(means)
	if math.Abs(spread.SD/wantSE-1) > relTolSD {
		t.Errorf("sd of sample means = %.5g, want σ/√n = %.5g", spread.SD, wantSE)
	}
	if math.Abs(se2/(wantSE*wantSE)-1) > relTolMeanV {
		t.Errorf("mean SE² = %.5g, want σ²/n = %.5g", se2, wantSE*wantSE)
	}
}
