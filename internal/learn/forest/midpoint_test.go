package forest

import (
	"math"
	"testing"
)

// midpoint's threshold separates a from b under ranger's rule x ≤ thr,
// also for adjacent floats, huge values and an infinite b.
func TestMidpointSeparates(t *testing.T) {
	cases := []struct{ a, b float64 }{
		{0, 1}, {-1, 1}, {1, math.Nextafter(1, 2)}, {-math.MaxFloat64, math.MaxFloat64},
		{math.MaxFloat64 / 2, math.MaxFloat64}, {5, math.Inf(1)}, {math.Inf(-1), -3},
		{0.5, 1}, // a grid: the midpoint 0.75 is not 0.5 or 1
	}
	for _, c := range cases {
		m := midpoint(c.a, c.b)
		if !(c.a <= m && c.b > m) {
			t.Errorf("midpoint(%v, %v) = %v: x ≤ %v does not send %v left and %v right", c.a, c.b, m, m, c.a, c.b)
		}
	}
	if m := midpoint(0.5, 1.5); m != 1 {
		t.Errorf("midpoint(0.5, 1.5) = %v, want 1 (ranger's (a+b)/2)", m)
	}
}
