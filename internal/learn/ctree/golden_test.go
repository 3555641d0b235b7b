package ctree

import (
	"context"
	"math"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"github.com/misslab/misslab/internal/learn/internal/learntest"

	"gonum.org/v1/gonum/mat"
)

// goldenControls maps the control names of testdata/make_golden.R to
// Params. Every R control sets majority = TRUE (deterministic NA routing).
func goldenControls() map[string]Params {
	def := PartykitDefaults()
	def.Missing = Majority
	surr, surrdef := PaperDefaults(), def
	surr.MaxSurrogate, surrdef.MaxSurrogate = 3, 3
	return map[string]Params{"paper": PaperDefaults(), "default": def, "surr": surr, "surrdef": surrdef}
}

var goldenRuns = []struct {
	data     string
	controls []string
}{
	{"small", []string{"paper", "default", "surr", "surrdef"}},
	{"mixed", []string{"paper", "default", "surr", "surrdef"}},
	{"exp1", []string{"paper", "default", "surr", "surrdef"}},
	{"exp1mask", []string{"paper", "default", "surr"}},
	{"ties", []string{"paper", "default", "surr", "surrdef"}},
	{"null", []string{"paper", "default"}},
	{"strong", []string{"paper", "default", "surr"}},
	{"const", []string{"paper", "default", "surr"}},
	{"spike", []string{"default"}},
}

// TestGoldenPartykit fits the fixtures made by testdata/make_golden.R and
// checks the whole tree against partykit 1.2-16: every node (variable,
// split point, majority side, size, mean), every node's per-variable
// statistics, raw and adjusted p-values and criteria (1e-6 relative),
// the surrogate lists, and the predictions on a test set with NA and on
// the training rows.
func TestGoldenPartykit(t *testing.T) {
	ctl := goldenControls()
	dir := filepath.Join("testdata", "golden")
	for _, run := range goldenRuns {
		X, y, Xt := goldenData(t, run.data)
		for _, cn := range run.controls {
			t.Run(run.data+"/"+cn, func(t *testing.T) {
				tr, err := Fit(context.Background(), X, y, ctl[cn], rand.New(rand.NewPCG(1, 2)))
				if err != nil {
					t.Fatal(err)
				}
				stem := filepath.Join(dir, run.data+"_"+cn)
				got := byPath(tr)
				checkNodes(t, got, learntest.ReadCSV(t, stem+"_nodes.csv"))
				checkCriteria(t, got, learntest.ReadCSV(t, stem+"_crit.csv"))
				checkSurrogates(t, got, learntest.ReadCSV(t, stem+"_surrogates.csv"))
				checkPredictions(t, tr, Xt, X, learntest.ReadCSV(t, stem+"_pred.csv"))
			})
		}
	}
}

// goldenData reads a fixture's training set, targets and test set;
// "exp1mask" is exp1 with the indicators is.na(x1..x3) appended, as
// make_golden.R builds it.
func goldenData(t *testing.T, data string) (X *mat.Dense, y []float64, Xt *mat.Dense) {
	t.Helper()
	return fixture(t, "golden", data)
}

// fixture reads the training set, targets and test set of fixture data
// under testdata/sub; a name ending in "mask" is the fixture without the
// suffix with the indicators is.na(x1..x3) appended.
func fixture(t *testing.T, sub, data string) (X *mat.Dense, y []float64, Xt *mat.Dense) {
	t.Helper()
	dir := filepath.Join("testdata", sub)
	base, mask := strings.CutSuffix(data, "mask")
	train := learntest.ReadCSV(t, filepath.Join(dir, base+"_train.csv"))
	test := learntest.ReadCSV(t, filepath.Join(dir, base+"_test.csv"))
	xn := train.XNames()
	X, y, Xt = train.Matrix(t, xn), train.Column(t, "y"), test.Matrix(t, xn)
	if mask {
		X, Xt = withMask(X, 3), withMask(Xt, 3)
	}
	return X, y, Xt
}

// withMask appends the indicators of NA in the first k columns of X.
func withMask(X *mat.Dense, k int) *mat.Dense {
	n, d := X.Dims()
	out := mat.NewDense(n, d+k, nil)
	for i := range n {
		for j := range d {
			out.Set(i, j, X.At(i, j))
		}
		for j := range k {
			if math.IsNaN(X.At(i, j)) {
				out.Set(i, d+j, 1)
			}
		}
	}
	return out
}

// byPath indexes nodes by path: "r" for the root, then 0 for the x ≤ u
// child and 1 for the other.
func byPath(tr *Model) map[string]NodeInfo {
	nodes := tr.Nodes()
	out := map[string]NodeInfo{}
	var walk func(i int, p string)
	walk = func(i int, p string) {
		out[p] = nodes[i]
		if !nodes[i].Leaf {
			walk(nodes[i].Left, p+"0")
			walk(nodes[i].Right, p+"1")
		}
	}
	walk(0, "r")
	return out
}

func checkNodes(t *testing.T, got map[string]NodeInfo, want learntest.Table) {
	t.Helper()
	if len(got) != len(want.Rows) {
		t.Errorf("tree has %d nodes, partykit %d", len(got), len(want.Rows))
	}
	for i := range want.Rows {
		path := want.Str(t, i, "path")
		g, ok := got[path]
		if !ok {
			t.Errorf("node %s: missing in Go tree", path)
			continue
		}
		feat := int(want.Num(t, i, "feature"))
		if g.Feature != feat {
			t.Errorf("node %s: feature %d, partykit %d", path, g.Feature, feat)
			continue
		}
		if g.N != int(want.Num(t, i, "n")) || !relClose(g.Value, want.Num(t, i, "value"), 1e-12) {
			t.Errorf("node %s: n %d mean %v, partykit %v %v", path, g.N, g.Value,
				want.Str(t, i, "n"), want.Str(t, i, "value"))
		}
		if feat < 0 {
			continue
		}
		if thr := want.Num(t, i, "threshold"); g.Threshold != thr {
			t.Errorf("node %s: threshold %v, partykit %v", path, g.Threshold, thr)
		}
		if left := want.Num(t, i, "prob_left") == 1; g.MissingLeft != left {
			t.Errorf("node %s: missing left %v, partykit %v", path, g.MissingLeft, left)
		}
	}
}

func checkCriteria(t *testing.T, got map[string]NodeInfo, want learntest.Table) {
	t.Helper()
	checkCriteriaTol(t, got, want, 1e-6)
}

// checkCriteriaTol compares every tested variable's statistic, raw and
// adjusted p-value and criterion to relative tolerance tol, and the
// number of variables tested per node.
func checkCriteriaTol(t *testing.T, got map[string]NodeInfo, want learntest.Table, tol float64) {
	t.Helper()
	seen := map[string]int{}
	for i := range want.Rows {
		path := want.Str(t, i, "path")
		j := int(want.Num(t, i, "feature"))
		seen[path]++
		g, ok := got[path]
		if !ok || g.Tests == nil || !g.Tests[j].Tested {
			t.Errorf("node %s: x%d tested by partykit, not by Go", path, j+1)
			continue
		}
		vt := g.Tests[j]
		for _, c := range []struct {
			name      string
			got, want float64
		}{
			{"statistic", max(vt.Statistic, eps), want.Num(t, i, "statistic")},
			{"p_raw", vt.PValue, want.Num(t, i, "p_raw")},
			{"p_value", vt.AdjPValue, want.Num(t, i, "p_value")},
			{"criterion", vt.Criterion, want.Num(t, i, "criterion")},
		} {
			if !relClose(c.got, c.want, tol) {
				t.Errorf("node %s x%d: %s %v, partykit %v", path, j+1, c.name, c.got, c.want)
			}
		}
	}
	for path, g := range got {
		k := 0
		for _, vt := range g.Tests {
			if vt.Tested {
				k++
			}
		}
		if k != seen[path] {
			t.Errorf("node %s: %d variables tested, partykit %d", path, k, seen[path])
		}
	}
}

func checkSurrogates(t *testing.T, got map[string]NodeInfo, want learntest.Table) {
	t.Helper()
	n := map[string]int{}
	for i := range want.Rows {
		path := want.Str(t, i, "path")
		n[path]++
		rank := int(want.Num(t, i, "rank"))
		g := got[path]
		if rank > len(g.Surrogates) {
			t.Errorf("node %s: surrogate %d missing", path, rank)
			continue
		}
		s := g.Surrogates[rank-1]
		w := SurrogateInfo{Feature: int(want.Num(t, i, "feature")), Threshold: want.Num(t, i, "threshold"),
			LowLeft: want.Num(t, i, "low_left") == 1}
		if s != w {
			t.Errorf("node %s surrogate %d: %+v, partykit %+v", path, rank, s, w)
		}
	}
	for path, g := range got {
		if len(g.Surrogates) != n[path] {
			t.Errorf("node %s: %d surrogates, partykit %d", path, len(g.Surrogates), n[path])
		}
	}
}

func checkPredictions(t *testing.T, tr *Model, Xt, X *mat.Dense, want learntest.Table) {
	t.Helper()
	pt, err := tr.Predict(context.Background(), Xt)
	if err != nil {
		t.Fatal(err)
	}
	pr, err := tr.Predict(context.Background(), X)
	if err != nil {
		t.Fatal(err)
	}
	got := append(pt, pr...)
	if len(got) != len(want.Rows) {
		t.Fatalf("%d predictions, partykit %d", len(got), len(want.Rows))
	}
	bad := 0
	for i := range got {
		if w := want.Num(t, i, "pred"); !relClose(got[i], w, 1e-12) {
			if bad++; bad <= 5 {
				t.Errorf("%s row %d: prediction %v, partykit %v", want.Str(t, i, "set"), i, got[i], w)
			}
		}
	}
	if bad > 5 {
		t.Errorf("%d predictions differ in all", bad)
	}
}
