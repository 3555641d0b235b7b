package table

import (
	"context"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/stat"
)

// designTable has a target y with NA, a numeric a with NA, a categorical c
// with NA, a column d dropped when read, and a numeric z.
func designTable() *Table {
	return &Table{Name: "t.csv", Rows: 6, AllNames: []string{"y", "a", "c", "d", "z"},
		Columns: []Column{
			num("y", 1, nan, 3, 4, nan, 6),
			num("a", 0.5, 1, nan, 2, 3, 4),
			cat("c", []string{"5", "6"}, 0, 1, -1, 1, 0, 0),
			num("z", 10, 20, 30, 40, 50, 60),
		}}
}

func TestDesignLayout(t *testing.T) {
	tests := []struct {
		name     string
		spec     Spec
		features string
		labels   string
		groups   [][]int
		x        [][]float64
	}{
		{"all", Spec{Target: "y", Categorical: []string{"c"}}, "a c z", "a c=5 c=6 c=NA z",
			[][]int{{0}, {1, 2, 3}, {4}},
			[][]float64{{0.5, 1, 0, 0, 10}, {nan, 0, 0, 1, 30}, {2, 0, 1, 0, 40}, {4, 1, 0, 0, 60}}},
		{"drop", Spec{Target: "y", Drop: []string{"z", "d"}}, "a c", "a c=5 c=6 c=NA",
			[][]int{{0}, {1, 2, 3}},
			[][]float64{{0.5, 1, 0, 0}, {nan, 0, 0, 1}, {2, 0, 1, 0}, {4, 1, 0, 0}}},
		{"target z", Spec{Target: "z", Drop: []string{"a"}}, "y c", "y c=5 c=6 c=NA",
			[][]int{{0}, {1, 2, 3}},
			[][]float64{{1, 1, 0, 0}, {nan, 0, 1, 0}, {3, 0, 0, 1}, {4, 0, 1, 0}, {nan, 1, 0, 0}, {6, 1, 0, 0}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tab := designTable()
			d, err := tab.Design(tt.spec)
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.Join(d.Features, " "); got != tt.features {
				t.Errorf("features %q, want %q", got, tt.features)
			}
			if got := strings.Join(d.Labels, " "); got != tt.labels {
				t.Errorf("labels %q, want %q", got, tt.labels)
			}
			if len(d.Groups) != len(tt.groups) || len(d.Categorical) != len(tt.groups) {
				t.Fatalf("groups %v, categorical %v", d.Groups, d.Categorical)
			}
			for f, g := range tt.groups {
				if !equalInts(d.Groups[f], g) || d.Categorical[f] != (len(g) > 1) {
					t.Errorf("feature %d: group %v categorical %v, want %v", f, d.Groups[f], d.Categorical[f], g)
				}
			}
			r, c := d.X.Dims()
			if r != len(tt.x) || c != len(strings.Fields(tt.labels)) {
				t.Fatalf("X is %d×%d", r, c)
			}
			for i, row := range tt.x {
				if !sameFloats(d.X.RawRowView(i), row) {
					t.Errorf("row %d: %v, want %v", i, d.X.RawRowView(i), row)
				}
			}
		})
	}
}

func TestDesignRows(t *testing.T) {
	d, err := designTable().Design(Spec{Target: "y"})
	if err != nil {
		t.Fatal(err)
	}
	if !equalInts(d.Rows, []int{0, 2, 3, 5}) || !sameFloats(d.Y, []float64{1, 3, 4, 6}) || d.DroppedNA != 2 {
		t.Errorf("rows %v, y %v, dropped %d", d.Rows, d.Y, d.DroppedNA)
	}
}

// TestDesignAirquality: R's airquality with Month categorical and Ozone as
// the target: R's complete.cases count of Ozone is 116.
func TestDesignAirquality(t *testing.T) {
	tab, err := ReadFile(context.Background(), filepath.Join("testdata", "airquality.csv"), Options{Categorical: []string{"Month"}})
	if err != nil {
		t.Fatal(err)
	}
	d, err := tab.Design(Spec{Target: "Ozone", Categorical: []string{"Month"}})
	if err != nil {
		t.Fatal(err)
	}
	n, p := d.X.Dims()
	want := "Solar.R Wind Temp Month=5 Month=6 Month=7 Month=8 Month=9 Month=NA Day"
	if n != 116 || p != 10 || d.DroppedNA != 37 || strings.Join(d.Labels, " ") != want {
		t.Fatalf("%d×%d, dropped %d, labels %v", n, p, d.DroppedNA, d.Labels)
	}
	for i, r := range d.Rows {
		month := tab.Columns[4].Levels[tab.Columns[4].Codes[r]]
		if d.Y[i] != tab.Columns[0].Num[r] || d.X.At(i, 3+int(month[0]-'5')) != 1 || d.X.At(i, 8) != 0 {
			t.Fatalf("design row %d (file row %d) does not match the table", i, r)
		}
	}
}

// Shape is Design without X: the same rows, targets and layout.
func TestShapeIsDesignWithoutX(t *testing.T) {
	tab, err := ReadFile(context.Background(), filepath.Join("testdata", "airquality.csv"), Options{Categorical: []string{"Month"}})
	if err != nil {
		t.Fatal(err)
	}
	spec := Spec{Target: "Ozone", Categorical: []string{"Month"}, Drop: []string{"Day"}}
	d, err := tab.Design(spec)
	if err != nil {
		t.Fatal(err)
	}
	s, err := tab.Shape(spec)
	if err != nil {
		t.Fatal(err)
	}
	if s.X != nil || !slices.Equal(s.Rows, d.Rows) || !slices.Equal(s.Y, d.Y) || !slices.Equal(s.Labels, d.Labels) ||
		!slices.Equal(s.Features, d.Features) || s.DroppedNA != d.DroppedNA || len(s.Groups) != len(d.Groups) {
		t.Fatalf("shape %+v differs from the design's layout", s)
	}
}

func TestDesignErrors(t *testing.T) {
	single := &Table{Name: "s.csv", Rows: 3, AllNames: []string{"y", "c", "e"}, Columns: []Column{
		num("y", 1, 2, 3), cat("c", []string{"x"}, 0, -1, 0), cat("e", nil, -1, -1, -1)}}
	tests := []struct {
		name string
		tab  *Table
		spec Spec
		kind error
		msg  string
	}{
		{"no target", designTable(), Spec{}, ErrTarget, `t.csv: no target column is named`},
		{"unknown target", designTable(), Spec{Target: "Y"}, ErrTarget, `t.csv: target "Y" is not a column of the table (did you mean "y"?)`},
		{"far target", designTable(), Spec{Target: "Ozone"}, ErrTarget, `t.csv: target "Ozone" is not a column of the table`},
		{"dropped at read", designTable(), Spec{Target: "d"}, ErrTarget, `t.csv: target "d" is dropped`},
		{"dropped", designTable(), Spec{Target: "y", Drop: []string{"y"}}, ErrTarget, `t.csv: target "y" is dropped`},
		{"categorical", designTable(), Spec{Target: "c"}, ErrTarget, `t.csv: target "c" is categorical: a categorical target is a class label (a classification task); a regression's target must be numeric`},
		{"listed categorical", designTable(), Spec{Target: "a", Categorical: []string{"a"}}, ErrTarget,
			`t.csv: target "a" is categorical: a categorical target is a class label (a classification task); a regression's target must be numeric`},
		{"numeric class label", designTable(), Spec{Target: "a", Classify: true}, ErrTarget,
			`t.csv: target "a" was read as numeric; a class label must be read as categorical (list it in categorical)`},
		{"one class", oneClassTable(), Spec{Target: "c", Classify: true}, ErrTarget,
			`t.csv: target "c" has 1 class (levels ["5"]); a classification needs at least 2`},
		{"unknown drop", designTable(), Spec{Target: "y", Drop: []string{"zz"}}, ErrColumn,
			`t.csv: drop names column "zz", which the table does not have (did you mean "z"?)`},
		{"both", designTable(), Spec{Target: "y", Drop: []string{"c"}, Categorical: []string{"c"}}, ErrColumn,
			`t.csv: column "c" is listed in both drop and categorical`},
		{"numeric listed categorical", designTable(), Spec{Target: "y", Categorical: []string{"a"}}, ErrColumn,
			`t.csv: column "a" was read as numeric; read the table with it listed in categorical`},
		{"categorical dropped at read", designTable(), Spec{Target: "y", Categorical: []string{"d"}}, ErrColumn,
			`t.csv: categorical column "d" was dropped when the table was read`},
		{"no feature", designTable(), Spec{Target: "y", Drop: []string{"a", "c", "z"}}, ErrColumn,
			`t.csv: no feature is left once the target "y" and the dropped columns are taken out`},
		{"single level", single, Spec{Target: "y", Drop: []string{"e"}}, ErrColumn,
			`s.csv: categorical column "c" has a single level, "x"; drop it`},
		{"no level", single, Spec{Target: "y", Drop: []string{"c"}}, ErrColumn,
			`s.csv: categorical column "e" has no level (every cell is NA); drop it`},
		{"constant", &Table{Name: "k.csv", Rows: 3, AllNames: []string{"y", "a"}, Columns: []Column{num("y", 2.5, nan, 2.5), num("a", 1, 2, 3)}},
			Spec{Target: "y"}, ErrTarget, `k.csv: target "y" is constant: it is 2.5 on every row where it is not NA`},
		{"one row", &Table{Name: "o.csv", Rows: 3, AllNames: []string{"y", "a"}, Columns: []Column{num("y", nan, 1, nan), num("a", 1, 2, 3)}},
			Spec{Target: "y"}, ErrTarget, `o.csv: target "y" has 1 rows that are not NA; at least 2 are needed`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := tt.tab.Design(tt.spec)
			checkErr(t, err, tt.kind, tt.msg)
			_, err = tt.tab.Shape(tt.spec) // the same checks without the matrix
			checkErr(t, err, tt.kind, tt.msg)
		})
	}
}

func TestDesignNALabelClash(t *testing.T) {
	tab := &Table{Name: "n.csv", Rows: 3, AllNames: []string{"y", "c"}, Columns: []Column{
		num("y", 1, 2, 3), cat("c", []string{"NA", "b"}, 0, 1, -1)}}
	d, err := tab.Design(Spec{Target: "y"})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(d.Labels, " "); got != "c=NA c=b c=<NA>" {
		t.Errorf("labels %q", got)
	}
}

// TestSummary compares with R's summaries of airquality (mean, sd, range
// with na.rm = TRUE) and with gonum's stat on a categorical table.
func TestSummary(t *testing.T) {
	tab, err := ReadFile(context.Background(), filepath.Join("testdata", "airquality.csv"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	r := []struct{ mean, sd, min, max float64 }{
		{42.129310344827587, 32.987884514433951, 1, 168},
		{185.931506849315070, 90.058422228381673, 7, 334},
		{9.9575163398692812, 3.5230013522125962, 1.7, 20.7},
		{77.8823529411764639, 9.4652697409714559, 56, 97},
		{6.9934640522875817, 1.4165224840123147, 5, 9},
		{15.8039215686274517, 8.8645203684254188, 1, 31},
	}
	nas := []int{37, 7, 0, 0, 0, 0}
	for i, s := range tab.Summary() {
		w := r[i]
		if s.Name != tab.AllNames[i] || s.Kind != Numeric || s.NA != nas[i] || s.NARate != float64(nas[i])/153 ||
			!near(s.Mean, w.mean) || !near(s.SD, w.sd) || s.Min != w.min || s.Max != w.max || s.Levels != 0 {
			t.Errorf("%+v, R says %+v with %d NA", s, w, nas[i])
		}
	}
	c, err := ReadFile(context.Background(), filepath.Join("testdata", "good", "bom_crlf.csv"), Options{Categorical: []string{"label"}})
	if err != nil {
		t.Fatal(err)
	}
	sum := c.Summary()
	y := []float64{2, -300, 4, 0.001}
	mean, sd := stat.MeanStdDev(y, nil)
	if s := sum[1]; !near(s.Mean, mean) || !near(s.SD, sd) || s.Min != -300 || s.Max != 4 || s.NA != 1 || s.NARate != 0.2 {
		t.Errorf("y: %+v, gonum says mean %v sd %v", s, mean, sd)
	}
	if s := sum[0]; s.Mean != 1.5 || !math.IsNaN(s.SD) || s.Min != 1.5 || s.NA != 4 {
		t.Errorf("x (one value): %+v", s)
	}
	if s := sum[2]; s.Kind != Categorical || s.Levels != 3 || s.NA != 1 || !math.IsNaN(s.Mean) {
		t.Errorf("label: %+v", s)
	}
}

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-13*math.Abs(b) }

// oneClassTable has a categorical column of one level.
func oneClassTable() *Table {
	return &Table{Name: "t.csv", Rows: 3, AllNames: []string{"c", "a"},
		Columns: []Column{cat("c", []string{"5"}, 0, -1, 0), num("a", 1, 2, 3)}}
}

// TestClassificationDesign: a categorical target is a class label: its
// NA rows are dropped, Y holds the codes of its levels (byte order), and
// the counts per class follow.
func TestClassificationDesign(t *testing.T) {
	d, err := designTable().Design(Spec{Target: "c", Classify: true})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(d.Classes, []string{"5", "6"}) || !slices.Equal(d.Y, []float64{0, 1, 1, 0, 0}) ||
		!slices.Equal(d.Rows, []int{0, 1, 3, 4, 5}) || d.DroppedNA != 1 || !slices.Equal(d.ClassCounts(), []int{3, 2}) {
		t.Errorf("design: classes %v, Y %v, rows %v, dropped %d, counts %v", d.Classes, d.Y, d.Rows, d.DroppedNA, d.ClassCounts())
	}
	if !slices.Equal(d.Features, []string{"y", "a", "z"}) {
		t.Errorf("features %v: the label is not a feature", d.Features)
	}
	if r, _ := designTable().Design(Spec{Target: "y"}); r.Classes != nil || r.ClassCounts() != nil {
		t.Errorf("a regression design has classes %v", r.Classes)
	}
}
