package ctree

// influence is the influence function h(y) of the response, the matrix
// partykit's .y2infl builds and libcoin's linear statistics use:
//
//   - a numeric response, and a factor of two levels, have one column:
//     h(y) = y, or the indicator of the second level, which is the class
//     code 0/1 itself (partykit drops the first indicator column);
//   - a factor of k ≥ 3 levels has the k indicator columns
//     h(y) = e_y (model.matrix(~ y − 1)), every level a column even when
//     it does not occur.
//
// The indicator matrix is kept as the codes in y, never expanded.
type influence struct {
	// y holds the response, or the class codes 0..k−1 as float64.
	y []float64
	// k is the number of indicator columns, ≥ 3; 0 means the single
	// column y.
	k int
}

// test tests the independence of column x (feature j) and the response
// over rows: quadTest for one column, classTest for k indicator columns.
// A statistic that libcoin computes as exactly 0 is 0 here too (see
// zeroIfNull).
func (h influence) test(j int, x []float64, rows []int32) VarTest {
	if h.k == 0 {
		t := quadTest(j, x, h.y, rows)
		zeroIfNull(&t, x, rows, 1, func(_ int, r int32) float64 { return h.y[r] })
		return t
	}
	t := classTest(j, x, h.y, h.k, rows)
	zeroIfNull(&t, x, rows, h.k, func(c int, r int32) float64 { return indicator(h.y[r] == float64(c)) })
	return t
}

// indicator is 1 if b, else 0.
func indicator(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// best returns the best cutpoint of column j over rows with at least mb
// observed rows a side, by the two-sample statistic of the response:
// cutter.best for one column, cutter.bestClass for k indicator columns.
func (h influence) best(c *cutter, j int, rows []int32, mb float64) (float64, bool) {
	if h.k == 0 {
		return c.best(j, h.y, rows, mb)
	}
	return c.bestClass(j, h.y, h.k, rows, mb)
}
