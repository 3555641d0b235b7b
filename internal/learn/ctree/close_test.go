package ctree

import "math"

// relClose reports |a − b| ≤ rel·max(|a|, |b|), treating equal
// infinities and two NaNs as equal.
func relClose(a, b, rel float64) bool {
	if a == b || (math.IsNaN(a) && math.IsNaN(b)) {
		return true
	}
	return math.Abs(a-b) <= rel*math.Max(math.Abs(a), math.Abs(b))
}

// nextUp is the float64 after v towards +Inf.
func nextUp(v float64) float64 { return math.Nextafter(v, math.Inf(1)) }
