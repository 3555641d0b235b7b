package experiment

import (
	"context"
	"encoding/csv"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"testing"

	"github.com/misslab/misslab/internal/learn"
	"github.com/misslab/misslab/internal/table"
)

// TestRpartOnRealTable: misslab's tree/mean and tree/surrogate, fitted on
// the training rows of each fold of testdata/rpart_table/folds.csv (the
// format `coordinator export --folds` writes) of examples/data/
// airquality.csv, predict exactly what rpart 4.1.19 predicts on the same
// rows (testdata/rpart_table/make.R; R is not needed to run this test).
// The table goes through misslab's own reader and design matrix.
func TestRpartOnRealTable(t *testing.T) {
	tb, err := table.ReadFile(context.Background(), "../../examples/data/airquality.csv",
		table.Options{Drop: []string{"Day"}})
	if err != nil {
		t.Fatal(err)
	}
	d, err := tb.Design(table.Spec{Target: "Ozone", Drop: []string{"Day"}})
	if err != nil {
		t.Fatal(err)
	}
	byRow := map[int]int{} // 1-based file data row → design row
	for i, r := range d.Rows {
		byRow[r+1] = i
	}
	folds := readCSV(t, "testdata/rpart_table/folds.csv")
	for _, c := range []struct {
		file     string
		settings learn.Settings
	}{
		{"predictions.csv", nil},
		{"predictions_deep.csv", learn.Settings{"minbucket": 3, "minsplit": 10, "cp": 0.005}},
	} {
		checked := 0
		preds := map[[3]int]map[string]float64{} // (rep, fold, row) → pipeline → prediction
		for _, rec := range readCSV(t, "testdata/rpart_table/"+c.file)[1:] {
			k := [3]int{atoi(t, rec[1]), atoi(t, rec[2]), atoi(t, rec[3])}
			if preds[k] == nil {
				preds[k] = map[string]float64{}
			}
			preds[k][rec[0]], _ = strconv.ParseFloat(rec[4], 64)
		}
		for _, unit := range units(t, folds) {
			train, test := unit.rows(byRow)
			for _, name := range []string{"tree/mean", "tree/surrogate"} {
				p, err := learn.New(name, c.settings, learn.Env{})
				if err != nil {
					t.Fatal(err)
				}
				f, err := p.Fit(context.Background(), pick(d.X, train), pickY(d.Y, train), rand.New(rand.NewPCG(1, 2)))
				if err != nil {
					t.Fatal(err)
				}
				got, err := f.Predict(context.Background(), pick(d.X, test))
				if err != nil {
					t.Fatal(err)
				}
				for i, r := range unit.test {
					want, ok := preds[[3]int{unit.rep, unit.fold, r}][name]
					if !ok {
						t.Fatalf("%s: no rpart prediction for %s rep %d fold %d row %d", c.file, name, unit.rep, unit.fold, r)
					}
					if math.Abs(got[i]-want) > 1e-9*math.Max(1, math.Abs(want)) {
						t.Errorf("%s: %s rep %d fold %d row %d: misslab %v, rpart %v", c.file, name, unit.rep, unit.fold, r, got[i], want)
					}
					checked++
				}
			}
		}
		if checked != 2*len(folds[1:]) {
			t.Errorf("%s: checked %d predictions, want %d", c.file, checked, 2*len(folds[1:]))
		}
	}
}

// foldUnit is one (repetition, fold) of a folds file: its test rows and
// every row listed under its repetition.
type foldUnit struct {
	rep, fold int
	test, all []int // 1-based file data rows, in file order
}

// rows maps the unit's training rows (every listed row of the repetition
// not in the fold) and test rows to design rows, both in file order.
func (u foldUnit) rows(byRow map[int]int) (train, test []int) {
	in := map[int]bool{}
	for _, r := range u.test {
		in[r] = true
		test = append(test, byRow[r])
	}
	for _, r := range u.all {
		if !in[r] {
			train = append(train, byRow[r])
		}
	}
	return train, test
}

func units(t *testing.T, recs [][]string) []foldUnit {
	var out []foldUnit
	all := map[int][]int{}
	idx := map[[2]int]int{}
	for _, rec := range recs[1:] {
		rep, fold, row := atoi(t, rec[0]), atoi(t, rec[1]), atoi(t, rec[2])
		all[rep] = append(all[rep], row)
		k := [2]int{rep, fold}
		if _, ok := idx[k]; !ok {
			idx[k] = len(out)
			out = append(out, foldUnit{rep: rep, fold: fold})
		}
		out[idx[k]].test = append(out[idx[k]].test, row)
	}
	for i := range out {
		out[i].all = sortedInts(all[out[i].rep])
		out[i].test = sortedInts(out[i].test)
	}
	return out
}

func sortedInts(v []int) []int {
	out := slices.Clone(v)
	slices.Sort(out)
	return out
}

func readCSV(t *testing.T, path string) [][]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	return recs
}

func atoi(t *testing.T, s string) int {
	t.Helper()
	v, err := strconv.Atoi(s)
	if err != nil {
		t.Fatal(err)
	}
	return v
}
