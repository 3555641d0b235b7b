package table

import "math"

// ColumnSummary describes one kept column of a Table.
type ColumnSummary struct {
	Name string
	Kind Kind
	// NA counts the NA cells; NARate is NA / Table.Rows (0 for a table
	// without rows).
	NA     int
	NARate float64
	// Mean, SD (with the n−1 denominator), Min and Max of a numeric
	// column's non-NA values; NaN for a categorical column, when there is
	// no value, and for SD when there is only one.
	Mean, SD, Min, Max float64
	// Levels counts a categorical column's levels; 0 for a numeric one.
	Levels int
}

// Summary describes every kept column, in order.
func (t *Table) Summary() []ColumnSummary {
	out := make([]ColumnSummary, len(t.Columns))
	for i, c := range t.Columns {
		s := ColumnSummary{Name: c.Name, Kind: c.Kind, NA: c.NA(), Levels: len(c.Levels)}
		if t.Rows > 0 {
			s.NARate = float64(s.NA) / float64(t.Rows)
		}
		s.Mean, s.SD, s.Min, s.Max = moments(c.Num)
		out[i] = s
	}
	return out
}

// moments returns the mean, the sample standard deviation, the minimum
// and the maximum of the non-NaN values of x (two passes, for accuracy).
func moments(x []float64) (mean, sd, lo, hi float64) {
	n, sum := 0, 0.0
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, v := range x {
		if !math.IsNaN(v) {
			n++
			sum += v
			lo, hi = min(lo, v), max(hi, v)
		}
	}
	nan := math.NaN()
	if n == 0 {
		return nan, nan, nan, nan
	}
	mean = sum / float64(n)
	if n == 1 {
		return mean, nan, lo, hi
	}
	ss := 0.0
	for _, v := range x {
		if !math.IsNaN(v) {
			ss += (v - mean) * (v - mean)
		}
	}
	return mean, math.Sqrt(ss / float64(n-1)), lo, hi
}
