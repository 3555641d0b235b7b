package reportgen

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/misslab/misslab/internal/grid"
	"github.com/misslab/misslab/internal/report"
	"github.com/misslab/misslab/internal/stats"
	"github.com/misslab/misslab/internal/store"
	"github.com/misslab/misslab/internal/storeconv"
)

// combinedGrid is figure5-large.hcl in miniature: "big" runs two trees
// to n = 3000, "small" (same seed) a KNN and a tree with other settings
// to n = 1000 on the same draws, with one more repetition; both add the
// oracle. "reseeded" draws other data at n = 300.
const combinedGrid = `
sweep "big" {
  seed        = 5
  repetitions = 2
  data {
    model   = "linear"
    rho     = -0.05
    n_train = [300, 1000, 3000]
  }
  missingness {
    mechanism = "mcar"
    rate      = 0.2
    columns   = "all"
  }
  pipelines { names = ["tree/mia", "tree/mean"] }
  bayes = true
}

sweep "small" {
  seed        = 5
  repetitions = 3
  data {
    model   = "linear"
    rho     = -0.05
    n_train = [300, 1000]
  }
  missingness {
    mechanism = "mcar"
    rate      = 0.2
    columns   = "all"
  }
  pipelines { names = ["knn/mean", "tree/mia"] }
  learner "tree" {
    maxdepth = 2
  }
  bayes = true
}

sweep "reseeded" {
  seed        = 6
  repetitions = 2
  data {
    model   = "linear"
    rho     = -0.05
    n_train = 300
  }
  missingness {
    mechanism = "mcar"
    rate      = 0.2
    columns   = "all"
  }
  pipelines { names = ["tree/mia"] }
}`

// combinedScore is the stored R² of a pipeline on a draw: one value per
// store key, whichever sweep commits it.
func combinedScore(sw *grid.Sweep, si, rep, pi int) float64 {
	off := map[string]float64{"tree/mia": 0.01, "tree/mean": 0.02, "bayes/oracle": 0.03, "knn/mean": 0.04}[sw.Pipelines[pi].Name()]
	if len(sw.Pipelines[pi].Overrides()) > 0 {
		off += 0.005
	}
	return 0.5 + float64(sw.Scenarios[si].NTrain)/1e4 + 0.001*float64(rep) + off + float64(sw.Seed-5)/100
}

// fillCombined stores the first n sweeps of combinedGrid in one store,
// each with the results its resultFunc gives.
func fillCombined(t *testing.T, n int, fn func(*grid.Sweep) resultFunc) (*grid.File, *store.Store, []storeconv.Record) {
	t.Helper()
	f, err := grid.Parse([]byte(combinedGrid), "combined.hcl", grid.ParseOptions{})
	if err != nil {
		t.Fatal(err)
	}
	st := newStore(t)
	var recs []storeconv.Record
	for _, sw := range f.Sweeps[:n] {
		recs = append(recs, fillInto(t, st, sw, fn(sw)))
	}
	return f, st, recs
}

// TestCombinedSharesScenarios stores three sweeps in one store and checks
// the combined report input: shared scenarios shown once with every
// sweep's pipelines, the shared oracle counted once per repetition,
// distinct job counts, pipelines renamed apart by their settings, and one
// set of learning curves over all sweeps with the seed in the panels.
func TestCombinedSharesScenarios(t *testing.T) {
	f, st, recs := fillCombined(t, 3, func(sw *grid.Sweep) resultFunc {
		return func(si, rep, pi int) (store.Result, bool, string) {
			switch {
			case sw.Name == "small" && si == 1 && rep == 0 && pi == 0: // knn never ran on a shared job
				return store.Result{}, false, ""
			case sw.Name == "reseeded" && rep == 1:
				return store.Result{}, false, "worker lost"
			}
			return score(combinedScore(sw, si, rep, pi)), true, ""
		}
	})
	in, err := Combined(context.Background(), st, recs)
	if err != nil {
		t.Fatal(err)
	}
	checkCombinedScenarios(t, in)
	// big: 3 scenarios × 2 reps × 3 pipelines; small: its tree and knn
	// (one knn run missing) and only its third repetition's oracle;
	// reseeded: 1 rep (the other failed).
	if got, want := len(in.Records), 18+(6+5+2)+1; got != want {
		t.Errorf("%d records, want %d", got, want)
	}
	count := map[string]int{}
	for _, r := range in.Records {
		count[r.Scenario+" | "+r.Pipeline]++
	}
	for k, want := range map[string]int{
		"big: " + scenarioKey(f.Sweeps[0].Scenarios[0]) + " | bayes/oracle":              3,
		"big: " + scenarioKey(f.Sweeps[0].Scenarios[2]) + " | bayes/oracle":              2,
		"big: " + scenarioKey(f.Sweeps[0].Scenarios[1]) + " | knn/mean":                  2,
		"big: " + scenarioKey(f.Sweeps[0].Scenarios[0]) + " | tree/mia{maxdepth=2}":      3,
		"big: " + scenarioKey(f.Sweeps[0].Scenarios[0]) + " | tree/mia":                  2,
		"reseeded: " + scenarioKey(f.Sweeps[2].Scenarios[0]) + " | tree/mia":             1,
		"reseeded: " + scenarioKey(f.Sweeps[2].Scenarios[0]) + " | tree/mia{maxdepth=2}": 0,
	} {
		if count[k] != want {
			t.Errorf("%d records of %s, want %d", count[k], k, want)
		}
	}
	// 6 jobs of big, 2 more of small (rep 2), 2 of reseeded; not done: the
	// shared job whose knn run is missing, and reseeded's failed one.
	if want := (report.Jobs{Planned: 10, Done: 8, Failed: 1}); in.Jobs != want {
		t.Errorf("jobs %+v, want %+v", in.Jobs, want)
	}
	if want := []report.Failure{{Scenario: "reseeded · linear · MCAR 20%", Rep: 1, Message: "job: worker lost"}}; !slices.Equal(in.Failures, want) {
		t.Errorf("failures %+v, want %+v", in.Failures, want)
	}
	checkCombinedCurves(t, in)
}

// checkCombinedScenarios: big's three scenarios (two of them small's
// too), then reseeded's.
func checkCombinedScenarios(t *testing.T, in report.Input) {
	t.Helper()
	want := []struct {
		title, sweeps string
		reps          int
	}{
		{"big · n=300", "big, small", 3},
		{"big · n=1000", "big, small", 3},
		{"big · n=3000", "big", 2},
		{"reseeded · linear · MCAR 20%", "reseeded", 2},
	}
	if len(in.Scenarios) != len(want) {
		t.Fatalf("%d scenarios, want %d: %+v", len(in.Scenarios), len(want), in.Scenarios)
	}
	for i, w := range want {
		sc := in.Scenarios[i]
		if sc.Title != w.title || sc.Labels[0] != (report.Label{Name: "sweep", Value: w.sweeps}) || sc.RepsPlanned != w.reps {
			t.Errorf("scenario %d: %q %v reps %d, want %q sweep=%s reps %d", i, sc.Title, sc.Labels[0], sc.RepsPlanned, w.title, w.sweeps, w.reps)
		}
	}
}

// checkCombinedCurves: one panel per seed; the KNN, run by small only,
// has its two sizes in seed 5's panel beside big's trees, and its
// points summarize the stored scores.
func checkCombinedCurves(t *testing.T, in report.Input) {
	t.Helper()
	if in.Curves.Point == nil {
		t.Fatal("no learning curves over the sweeps' training sizes")
	}
	panels, err := stats.LearningCurves(in.Records, in.Curves)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, p := range panels {
		names = append(names, p.Name)
	}
	if want := []string{"seed 5 · linear · MCAR 20%", "seed 6 · linear · MCAR 20%"}; !slices.Equal(names, want) {
		t.Fatalf("panels %q, want %q", names, want)
	}
	i := slices.IndexFunc(panels[0].Curves, func(c stats.Curve) bool { return c.Pipeline == "knn/mean" })
	if i < 0 {
		t.Fatalf("no knn/mean curve in %+v", panels[0].Curves)
	}
	knn := panels[0].Curves[i]
	if len(knn.Points) != 2 || knn.Points[0].N != 300 || knn.Points[1].N != 1000 {
		t.Fatalf("knn/mean points %+v, want n = 300 and 1000", knn.Points)
	}
	// n = 300: reps 0, 1, 2 score 0.5 + 0.03 + 0.04 + 0.001·rep; the median is rep 1's.
	if p := knn.Points[0]; p.Reps != 3 || math.Abs(p.Median-(0.5+0.03+0.04+0.001)) > 1e-12 {
		t.Errorf("knn/mean at n=300: %d reps, median %v; want 3 reps, median 0.571", p.Reps, p.Median)
	}
	if _, ok := in.Curves.Bayes(panels[0].Name, 300); !ok {
		t.Error("no Bayes rate for the linear model's panel")
	}
}

// TestWriteCombinedCurves renders the combined report and finds every
// learner's curve in curves.csv.
func TestWriteCombinedCurves(t *testing.T) {
	_, st, recs := fillCombined(t, 2, func(sw *grid.Sweep) resultFunc {
		return func(si, rep, pi int) (store.Result, bool, string) {
			return score(combinedScore(sw, si, rep, pi)), true, ""
		}
	})
	dir := t.TempDir()
	if _, err := WriteCombined(context.Background(), st, recs, dir); err != nil {
		t.Fatal(err)
	}
	csv, err := os.ReadFile(filepath.Join(dir, "curves.csv"))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"knn/mean", "tree/mia{maxdepth=2}", "tree/mean", "bayes/oracle"} {
		if !strings.Contains(string(csv), p) {
			t.Errorf("curves.csv has no %s:\n%s", p, csv)
		}
	}
}
