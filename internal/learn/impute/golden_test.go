package impute

import (
	"encoding/csv"
	"math"
	"os"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// goldenSet is one data set of a make_*_golden.py fixture: the training
// and test inputs (NaN = NA) and scikit-learn's imputations of them
// (NaN where the input was observed).
type goldenSet struct {
	train, test      *mat.Dense
	wantTr, wantTe   *mat.Dense
	nTrain, nTest, d int
}

// readGoldenSet reads a CSV of header part,x1..xd,imp1..impd (see
// testdata/make_iterative_golden.py).
func readGoldenSet(t *testing.T, path string) goldenSet {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil || len(recs) < 2 {
		t.Fatalf("%s: %v (%d records)", path, err, len(recs))
	}
	d := (len(recs[0]) - 1) / 2
	var rows [2][][]float64 // inputs: train, test
	var imps [2][][]float64
	for _, r := range recs[1:] {
		part := 0
		if r[0] == "test" {
			part = 1
		}
		x, imp := make([]float64, d), make([]float64, d)
		for j := range d {
			x[j] = parseGolden(t, r[1+j])
			imp[j] = parseGolden(t, r[1+d+j])
		}
		rows[part] = append(rows[part], x)
		imps[part] = append(imps[part], imp)
	}
	g := goldenSet{nTrain: len(rows[0]), nTest: len(rows[1]), d: d}
	g.train, g.test = denseRows(rows[0]), denseRows(rows[1])
	g.wantTr, g.wantTe = denseRows(imps[0]), denseRows(imps[1])
	return g
}

// parseGolden reads a fixture number; "NA" and "" are NaN.
func parseGolden(t *testing.T, s string) float64 {
	if s == "NA" || s == "" {
		return math.NaN()
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func denseRows(rows [][]float64) *mat.Dense {
	X := mat.NewDense(len(rows), len(rows[0]), nil)
	for i, r := range rows {
		X.SetRow(i, r)
	}
	return X
}

// checkImputed compares got with the input X (observed entries unchanged)
// and want (imputed entries within tol, relative to max(1, |want|)); it
// reports at most five differences and returns the largest relative
// error.
func checkImputed(t *testing.T, label string, X, got, want *mat.Dense, tol float64) float64 {
	t.Helper()
	n, d := X.Dims()
	if r, c := got.Dims(); r != n || c != d {
		t.Fatalf("%s: got %d×%d, want %d×%d", label, r, c, n, d)
	}
	worst, bad := 0.0, 0
	for i := range n {
		for j := range d {
			x, g, w := X.At(i, j), got.At(i, j), want.At(i, j)
			if !math.IsNaN(x) {
				if g != x {
					t.Errorf("%s: observed [%d,%d] = %v changed to %v", label, i, j, x, g)
				}
				continue
			}
			e := math.Abs(g-w) / math.Max(1, math.Abs(w))
			if math.IsNaN(g) {
				e = math.Inf(1)
			}
			worst = math.Max(worst, e)
			if e > tol {
				if bad++; bad <= 5 {
					t.Errorf("%s: imputed [%d,%d] = %.17g, scikit-learn %.17g (rel. error %.2g)", label, i, j, g, w, e)
				}
			}
		}
	}
	return worst
}

// csvName is the path of set of a fixture family, e.g. testdata/iterative_d5.csv.
func csvName(prefix, set string) string {
	return "testdata/" + strings.Join([]string{prefix, set}, "_") + ".csv"
}
