package sim

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// scenario returns the paper's defaults for model with fn applied.
func scenario(t testing.TB, model string, fn func(*Scenario)) Scenario {
	t.Helper()
	s, err := Defaults(model)
	if err != nil {
		t.Fatal(err)
	}
	if fn != nil {
		fn(&s)
	}
	if err := s.Validate(); err != nil {
		t.Fatalf("test scenario invalid: %v", err)
	}
	return s
}

// near fails unless |got − want| ≤ k·se, reporting the z-score.
func near(t testing.TB, name string, got, want, se, k float64) {
	t.Helper()
	if !(math.Abs(got-want) <= k*se) {
		t.Errorf("%s = %.8g, want %.8g ± %d·%.3g (z = %.2f)", name, got, want, int(k), se, (got-want)/se)
	}
}

// sameBits reports whether two matrices hold bit-identical values (NaN
// payloads included).
func sameBits(a, b *mat.Dense) bool {
	ra, rb := a.RawMatrix(), b.RawMatrix()
	if ra.Rows != rb.Rows || ra.Cols != rb.Cols {
		return false
	}
	for i := 0; i < ra.Rows; i++ {
		for j := 0; j < ra.Cols; j++ {
			if math.Float64bits(ra.Data[i*ra.Stride+j]) != math.Float64bits(rb.Data[i*rb.Stride+j]) {
				return false
			}
		}
	}
	return true
}

func sameSample(a, b Sample) bool {
	if len(a.Y) != len(b.Y) || !sameBits(a.X, b.X) || !sameBits(a.Full, b.Full) {
		return false
	}
	for i := range a.Y {
		if math.Float64bits(a.Y[i]) != math.Float64bits(b.Y[i]) {
			return false
		}
	}
	return true
}

// moments accumulates the mean and variance of a stream of values and the
// standard errors of both (the latter from the fourth central moment).
type moments struct{ n, s1, s2, s3, s4 float64 }

func (m *moments) add(x float64) {
	m.n++
	m.s1 += x
	m.s2 += x * x
	m.s3 += x * x * x
	m.s4 += x * x * x * x
}

func (m *moments) mean() float64 { return m.s1 / m.n }

func (m *moments) variance() float64 {
	mu := m.mean()
	return (m.s2/m.n - mu*mu) * m.n / (m.n - 1)
}

// varianceSE is √((μ4 − σ⁴)/n), the large-sample standard error of the
// sample variance.
func (m *moments) varianceSE() float64 {
	mu := m.mean()
	e2, e3, e4 := m.s2/m.n, m.s3/m.n, m.s4/m.n
	mu4 := e4 - 4*mu*e3 + 6*mu*mu*e2 - 3*mu*mu*mu*mu
	v := e2 - mu*mu
	return math.Sqrt((mu4 - v*v) / m.n)
}

// drawY draws n rows of s (row-wise mechanisms only) in chunks, without
// keeping them, and returns the moments of Y. It goes through the same
// generator as Generate, so it checks formulas against the sampler.
func drawY(s Scenario, n int, r *rand.Rand) moments {
	l := newLaw(s)
	const chunk = 8192
	full := make([]float64, chunk*s.D)
	obs := make([]float64, chunk*s.D)
	y := make([]float64, chunk)
	var m moments
	for done := 0; done < n; done += chunk {
		k := min(chunk, n-done)
		l.fill(r, full[:k*s.D], obs[:k*s.D], y[:k])
		for _, v := range y[:k] {
			m.add(v)
		}
	}
	return m
}
