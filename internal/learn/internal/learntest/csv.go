package learntest

import (
	"encoding/csv"
	"math"
	"os"
	"strconv"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// Table is a CSV fixture with a header row, kept as strings.
type Table struct {
	Cols map[string]int // header name → column index
	Rows [][]string     // data rows, header excluded
}

// ReadCSV reads a CSV fixture with a header; it fails tb on any error.
func ReadCSV(tb testing.TB, path string) Table {
	tb.Helper()
	f, err := os.Open(path)
	if err != nil {
		tb.Fatalf("open fixture: %v", err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil || len(recs) == 0 {
		tb.Fatalf("read %s: %v (%d records)", path, err, len(recs))
	}
	tab := Table{Cols: map[string]int{}, Rows: recs[1:]}
	for i, h := range recs[0] {
		tab.Cols[h] = i
	}
	return tab
}

// Str returns column name of row i.
func (c Table) Str(tb testing.TB, i int, name string) string {
	tb.Helper()
	k, ok := c.Cols[name]
	if !ok {
		tb.Fatalf("fixture has no column %q", name)
	}
	return c.Rows[i][k]
}

// Num returns column name of row i as a float; "NA" is NaN.
func (c Table) Num(tb testing.TB, i int, name string) float64 {
	tb.Helper()
	s := c.Str(tb, i, name)
	if s == "NA" {
		return math.NaN()
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		tb.Fatalf("column %q row %d: %v", name, i, err)
	}
	return v
}

// Matrix returns the named columns as a dense matrix.
func (c Table) Matrix(tb testing.TB, names []string) *mat.Dense {
	tb.Helper()
	X := mat.NewDense(len(c.Rows), len(names), nil)
	for i := range c.Rows {
		for j, n := range names {
			X.Set(i, j, c.Num(tb, i, n))
		}
	}
	return X
}

// Column returns one named column.
func (c Table) Column(tb testing.TB, name string) []float64 {
	tb.Helper()
	out := make([]float64, len(c.Rows))
	for i := range c.Rows {
		out[i] = c.Num(tb, i, name)
	}
	return out
}

// XNames returns x1, x2, ... as far as the table has them.
func (c Table) XNames() []string {
	var xn []string
	for j := 1; ; j++ {
		n := "x" + strconv.Itoa(j)
		if _, ok := c.Cols[n]; !ok {
			return xn
		}
		xn = append(xn, n)
	}
}
