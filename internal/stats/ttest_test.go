package stats

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mathext"
)

// Student t with 1 and 2 degrees of freedom has closed forms, written
// here without cancellation for large t:
// ν = 1 (Cauchy): P(|T| ≥ t) = (2/π)·atan(1/t), q(p) = tan(π(p − ½));
// ν = 2: P(|T| ≥ t) = 1 − t/√(2 + t²) = 2/(s(s + t)) with s = √(2 + t²),
// q(p) = (2p − 1)/√(2p(1 − p)).
func TestStudentClosedForms(t *testing.T) {
	for _, tt := range []float64{0, 0.05, 0.5, 1, 2, 4.5, 10, 100} {
		p1 := 2 / math.Pi * math.Atan(1/tt)
		sq := math.Sqrt(2 + tt*tt)
		p2 := 2 / (sq * (sq + tt))
		for _, c := range []struct {
			df, want float64
		}{{1, p1}, {2, p2}} {
			if got := StudentTwoSidedP(tt, c.df); !near(got, c.want, 1e-13, 0) {
				t.Errorf("StudentTwoSidedP(%v, %v) = %.17g, closed form %.17g", tt, c.df, got, c.want)
			}
			if got := StudentTwoSidedP(-tt, c.df); !near(got, c.want, 1e-13, 0) {
				t.Errorf("StudentTwoSidedP(%v, %v) = %.17g, closed form %.17g", -tt, c.df, got, c.want)
			}
		}
	}
	for _, p := range []float64{0.51, 0.6, 0.9, 0.975, 0.995, 0.05, 0.3} {
		q1 := math.Tan(math.Pi * (p - 0.5))
		q2 := (2*p - 1) / math.Sqrt(2*p*(1-p))
		if got := StudentQuantile(p, 1); !near(got, q1, 1e-13, 0) {
			t.Errorf("StudentQuantile(%v, 1) = %.17g, closed form %.17g", p, got, q1)
		}
		if got := StudentQuantile(p, 2); !near(got, q2, 1e-13, 0) {
			t.Errorf("StudentQuantile(%v, 2) = %.17g, closed form %.17g", p, got, q2)
		}
	}
	// Non-integer df takes the incomplete-beta path; it must still invert.
	for _, df := range []float64{2.5, 37.3} {
		q := StudentQuantile(0.975, df)
		if got := StudentTwoSidedP(q, df); !near(got, 0.05, 1e-12, 0) {
			t.Errorf("df %v: P(|T| ≥ q(0.975)) = %.17g, want 0.05", df, got)
		}
	}
	for _, bad := range [][2]float64{{math.NaN(), 3}, {1, 0}, {1, -2}, {1, math.Inf(1)}} {
		if got := StudentTwoSidedP(bad[0], bad[1]); !math.IsNaN(got) {
			t.Errorf("StudentTwoSidedP(%v, %v) = %v, want NaN", bad[0], bad[1], got)
		}
	}
	if StudentTwoSidedP(math.Inf(-1), 4) != 0 || StudentQuantile(1, 4) != math.Inf(1) ||
		StudentQuantile(0, 4) != math.Inf(-1) || !math.IsNaN(StudentQuantile(1.2, 4)) {
		t.Error("infinite or out-of-range arguments mishandled")
	}
}

// The exact series must agree with the incomplete-beta form of the
// central probability, I_{t²/(ν+t²)}(½, ν/2), whose own error grows to
// ~1e-12 at ν = 1000 (lgamma of large arguments).
func TestStudentCentralSeriesMatchesIncompleteBeta(t *testing.T) {
	for _, df := range []float64{1, 2, 3, 4, 7, 30, 101, 1000} {
		for _, tt := range []float64{0.01, 0.7, 2, 6} {
			c, ok := studentCentral(tt, df)
			want := mathext.RegIncBeta(0.5, df/2, tt*tt/(df+tt*tt))
			if !ok || !near(c, want, 1e-11, 0) {
				t.Errorf("central(%v, %v) = %.17g, ok %v; incomplete beta %.17g", tt, df, c, ok, want)
			}
		}
	}
	if _, ok := studentCentral(1, 2.5); ok {
		t.Error("series used for fractional df")
	}
}

// Hand computation: d = x − y = (1, 2, 3): mean 2, sd 1, SE 1/√3,
// t = 2√3, df 2, P = 1 − t/√(2 + t²) = 1 − √(12/14), and the 95% CI is
// 2 ∓ q·SE with q = 0.95/√(2·0.975·0.025), the ν = 2 quantile.
func TestPairedTTestHandComputed(t *testing.T) {
	got, err := PairedTTest([]float64{1.5, 2.5, 3.5}, []float64{0.5, 0.5, 0.5}, 0.95)
	if err != nil {
		t.Fatal(err)
	}
	se := 1 / math.Sqrt(3)
	q := 0.95 / math.Sqrt(2*0.975*0.025)
	want := TTest{N: 3, DF: 2, MeanDiff: 2, SE: se, T: 2 * math.Sqrt(3),
		P: 1 - math.Sqrt(12.0/14), Conf: 0.95, CILo: 2 - q*se, CIHi: 2 + q*se}
	if got.N != want.N || got.DF != want.DF || got.Status != TestOK {
		t.Fatalf("got %+v", got)
	}
	for _, c := range []struct {
		name      string
		got, want float64
	}{{"mean", got.MeanDiff, want.MeanDiff}, {"se", got.SE, want.SE}, {"t", got.T, want.T},
		{"p", got.P, want.P}, {"ci lo", got.CILo, want.CILo}, {"ci hi", got.CIHi, want.CIHi}} {
		if !near(c.got, c.want, 1e-13, 0) {
			t.Errorf("%s = %.17g, want %.17g", c.name, c.got, c.want)
		}
	}
}

func TestPairedTTestEdgeCases(t *testing.T) {
	nan := math.NaN()
	inf := math.Inf(1)
	tests := []struct {
		name   string
		x, y   []float64
		conf   float64
		err    error
		status TestStatus
		tStat  float64
		p      float64
		ci     [2]float64
		mean   float64
	}{
		{"no pairs", nil, nil, 0.95, nil, TestTooFew, nan, nan, [2]float64{nan, nan}, nan},
		{"one pair", []float64{0.8}, []float64{0.5}, 0.95, nil, TestTooFew, nan, nan, [2]float64{nan, nan}, 0.8 - 0.5},
		{"identical", []float64{0.1, 0.5, 0.9}, []float64{0.1, 0.5, 0.9}, 0.95, nil, TestIdentical, 0, 1, [2]float64{0, 0}, 0},
		{"constant positive", []float64{1.5, 2.5, 3.5}, []float64{1, 2, 3}, 0.95, nil, TestConstant, inf, 0, [2]float64{0.5, 0.5}, 0.5},
		{"constant negative", []float64{1, 2, 3}, []float64{1.25, 2.25, 3.25}, 0.95, nil, TestConstant, -inf, 0, [2]float64{-0.25, -0.25}, -0.25},
		{"length mismatch", []float64{1, 2}, []float64{1}, 0.95, ErrLength, 0, 0, 0, [2]float64{}, 0},
		{"NaN", []float64{1, nan, 3}, []float64{1, 2, 3}, 0.95, ErrNonFinite, 0, 0, 0, [2]float64{}, 0},
		{"Inf", []float64{1, 2, 3}, []float64{1, inf, 3}, 0.95, ErrNonFinite, 0, 0, 0, [2]float64{}, 0},
		{"conf 1", []float64{1, 2}, []float64{0, 0}, 1, ErrConfLevel, 0, 0, 0, [2]float64{}, 0},
		{"conf NaN", []float64{1, 2}, []float64{0, 0}, nan, ErrConfLevel, 0, 0, 0, [2]float64{}, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := PairedTTest(tc.x, tc.y, tc.conf)
			if !errors.Is(err, tc.err) {
				t.Fatalf("err = %v, want %v", err, tc.err)
			}
			if err != nil {
				return
			}
			if got.Status != tc.status || !near(got.T, tc.tStat, 0, 0) || !near(got.P, tc.p, 0, 0) ||
				!near(got.CILo, tc.ci[0], 1e-15, 0) || !near(got.CIHi, tc.ci[1], 1e-15, 0) ||
				!near(got.MeanDiff, tc.mean, 1e-15, 0) {
				t.Errorf("got %+v (status %v)", got, got.Status)
			}
		})
	}
}

// Under the null (x and y paired draws of the same distribution) the
// p-values must be uniform on [0, 1]. The Kolmogorov–Smirnov distance of
// K = 2000 p-values is below 1.95/√K (its 0.1% critical value) for a
// correct test; the seed is fixed, so the check is deterministic. The
// same check rejects p-values from a normal approximation, which are too
// small at n = 6, so it has the power to catch a wrong distribution.
func TestNullPValuesUniform(t *testing.T) {
	const k, n = 2000, 6
	crit := 1.95 / math.Sqrt(k)
	rng := rand.New(rand.NewPCG(7, 11))
	var exact, normal []float64
	x, y := make([]float64, n), make([]float64, n)
	for range k {
		shared := rng.NormFloat64()
		for j := range x {
			x[j] = 0.7 + 0.05*(shared+rng.NormFloat64())
			y[j] = 0.7 + 0.05*(shared+rng.NormFloat64())
		}
		tt, err := PairedTTest(x, y, 0.95)
		if err != nil || tt.Status != TestOK {
			t.Fatalf("test failed: %v %v", err, tt.Status)
		}
		exact = append(exact, tt.P)
		normal = append(normal, math.Erfc(math.Abs(tt.T)/math.Sqrt2))
	}
	if d := ksUniform(exact); d > crit {
		t.Errorf("KS distance of null p-values to U(0,1) = %.4f > %.4f", d, crit)
	}
	if d := ksUniform(normal); d <= crit {
		t.Errorf("the uniformity check cannot tell normal-approximation p-values apart (D = %.4f)", d)
	}
}

// ksUniform is the Kolmogorov–Smirnov distance of a sample to U(0, 1).
func ksUniform(p []float64) float64 {
	s := slices.Sorted(slices.Values(p))
	var d float64
	for i, v := range s {
		n := float64(len(s))
		d = max(d, float64(i+1)/n-v, v-float64(i)/n)
	}
	return d
}

// The 95% interval must cover the true mean difference 95% of the time:
// over K = 2000 datasets the coverage has sd √(.95·.05/K) ≈ 0.0049, so
// ±0.02 is a 4σ band.
func TestPairedCICoverage(t *testing.T) {
	const k, n, delta = 2000, 10, 0.01
	rng := rand.New(rand.NewPCG(3, 5))
	covered := 0
	x, y := make([]float64, n), make([]float64, n)
	for range k {
		for j := range x {
			b := rng.NormFloat64()
			x[j], y[j] = b+delta+0.02*rng.NormFloat64(), b
		}
		tt, _ := PairedTTest(x, y, 0.95)
		if tt.CILo <= delta && delta <= tt.CIHi {
			covered++
		}
	}
	if c := float64(covered) / k; math.Abs(c-0.95) > 0.02 {
		t.Errorf("coverage = %.3f, want 0.95 ± 0.02", c)
	}
}

func TestHolmHandComputed(t *testing.T) {
	nan := math.NaN()
	tests := []struct {
		name    string
		p, want []float64
	}{
		// sorted 0.005·4 = 0.02, 0.01·3 = 0.03, 0.03·2 = 0.06, 0.04·1 → cummax 0.06
		{"step-down", []float64{0.01, 0.04, 0.03, 0.005}, []float64{0.03, 0.06, 0.06, 0.02}},
		// 0.4·2 = 0.8, then 0.6·1 = 0.6 → cummax keeps 0.8
		{"monotone", []float64{0.4, 0.6}, []float64{0.8, 0.8}},
		{"capped at 1", []float64{0.7, 0.6}, []float64{1, 1}},
		{"NaN excluded from m", []float64{0.01, nan, 0.04}, []float64{0.02, nan, 0.04}},
		{"single", []float64{0.3}, []float64{0.3}},
		{"empty", nil, []float64{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := Holm(tc.p)
			if len(got) != len(tc.want) {
				t.Fatalf("Holm(%v) = %v", tc.p, got)
			}
			for i := range got {
				if !near(got[i], tc.want[i], 1e-15, 0) {
					t.Errorf("Holm(%v) = %v, want %v", tc.p, got, tc.want)
				}
			}
		})
	}
}

// Differences equal up to rounding (0.3 − 0.25 ≠ 0.1 − 0.05 in binary)
// fall under R's "essentially constant" rule SE < 10·ε·|mean|.
func TestPairedTTestEssentiallyConstant(t *testing.T) {
	x, y := []float64{0.1, 0.2, 0.3}, []float64{0.05, 0.15, 0.25}
	if d0, d2 := x[0]-y[0], x[2]-y[2]; d0 == d2 {
		t.Fatalf("differences %v and %v are exactly equal: the case is not exercised", d0, d2)
	}
	got, err := PairedTTest(x, y, 0.95)
	if err != nil || got.Status != TestConstant || got.P != 0 || !math.IsInf(got.T, 1) ||
		got.CILo != got.MeanDiff || got.CIHi != got.MeanDiff {
		t.Errorf("got %+v, %v; want status constant, P 0, T +Inf, zero-width CI", got, err)
	}
}
