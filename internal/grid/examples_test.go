package grid

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/misslab/misslab/internal/sim"
)

// parseExample parses examples/<name> with no settings hooks, as the
// examples must parse before every learner exists.
func parseExample(t *testing.T, name string) *File {
	t.Helper()
	f, err := ParseFile(filepath.Join("..", "..", "examples", name), ParseOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func TestExamplesParse(t *testing.T) {
	paths, _ := filepath.Glob("../../examples/*.hcl")
	if len(paths) < 6 {
		t.Fatalf("found %d example grids, want at least 6", len(paths))
	}
	for _, p := range paths {
		if _, err := ParseFile(p, ParseOptions{}); err != nil {
			t.Errorf("%v", err)
		}
	}
}

// paperMethods builds the method list of Section 5.2 from its prose:
// trees with MIA, rpart surrogates, ctree and the three imputations, all
// but MIA ± mask; forests and boosting with MIA and the imputations
// (± mask); SVM and KNN with the imputations (± mask).
func paperMethods(withMask bool) []string {
	pm := func(s string) []string {
		if withMask {
			return []string{s, s + "+mask"}
		}
		return []string{s}
	}
	imputers := slices.Concat(pm("mean"), pm("oor"), pm("gaussian"))
	var out []string
	add := func(learner string, strategies []string) {
		for _, s := range strategies {
			out = append(out, learner+"/"+s)
		}
	}
	add("tree", slices.Concat([]string{"mia"}, pm("surrogate"), imputers))
	add("ctree", pm("majority"))
	add("forest", append([]string{"mia"}, imputers...))
	add("boost", append([]string{"mia"}, imputers...))
	add("svm", imputers)
	add("knn", imputers)
	return out
}

func names(s *Sweep) []string {
	var out []string
	for _, p := range s.Pipelines {
		out = append(out, p.Canonical())
	}
	return out
}

func sameSet(t *testing.T, what string, got, want []string) {
	t.Helper()
	g, w := slices.Sorted(slices.Values(got)), slices.Sorted(slices.Values(want))
	if !slices.Equal(g, w) {
		t.Errorf("%s:\n got %v\nwant %v", what, g, w)
	}
}

// model1 is Figure 3's scenario (Model 1, d = 9, ρ = 0.5, σ = 0.1,
// n = 1000, X1..X3 incomplete) for a mechanism and rate.
func model1(mech string, rho, rate float64) string {
	return sim.Scenario{Model: "quadratic", D: 9, Rho: rho, Noise: 0.1, NTrain: 1000, NTest: 1000,
		Mechanism: mech, Rate: rate, Columns: []int{0, 1, 2}}.Canonical()
}

func canonicals(s *Sweep) []string {
	var out []string
	for _, sc := range s.Scenarios {
		out = append(out, sc.Canonical())
	}
	return out
}

func TestFigure3(t *testing.T) {
	f := parseExample(t, "figure3.hcl")
	s := f.Sweeps[0]
	if len(f.Sweeps) != 1 || s.Repetitions != 1000 {
		t.Fatalf("%d sweeps, %d reps", len(f.Sweeps), s.Repetitions)
	}
	sameSet(t, "scenarios", canonicals(s), []string{model1("mcar", 0.5, 0.2), model1("mnar", 0.5, 0.2), model1("predictive", 0.5, 0.2)})
	sameSet(t, "pipelines", names(s), paperMethods(true))
	if len(s.Pipelines) != 37 {
		t.Errorf("%d pipelines, want 37", len(s.Pipelines))
	}
}

func TestFigure4(t *testing.T) {
	s := parseExample(t, "figure4.hcl").Sweeps[0]
	var want []string
	for _, m := range []string{"linear", "friedman", "nonlinear"} {
		rho := 0.5
		if m == "nonlinear" {
			rho = 0
		}
		want = append(want, sim.Scenario{Model: m, D: 10, Rho: rho, Noise: 0.1, NTrain: 1000, NTest: 1000,
			Mechanism: "mcar", Rate: 0.2, Columns: []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}}.Canonical())
	}
	sameSet(t, "scenarios", canonicals(s), want)
	sameSet(t, "pipelines", names(s), paperMethods(false))
	if s.Repetitions != 1000 {
		t.Errorf("%d reps", s.Repetitions)
	}
}

func TestFigure5(t *testing.T) {
	s := parseExample(t, "figure5.hcl").Sweeps[0]
	if len(s.Scenarios) != 12 || s.Repetitions != 200 {
		t.Fatalf("%d scenarios, %d reps; want 3 models × 4 sizes, 200 reps", len(s.Scenarios), s.Repetitions)
	}
	models, sizes := map[string]bool{}, map[int]bool{}
	for _, sc := range s.Scenarios {
		models[sc.Model], sizes[sc.NTrain] = true, true
		if sc.Mechanism != "mcar" || sc.Rate != 0.4 || len(sc.Columns) != sc.D || sc.D != 10 {
			t.Errorf("scenario %s: want 40%% MCAR on all 10 variables", sc.Canonical())
		}
	}
	if len(models) != 3 || !models["linear"] || !models["friedman"] || !models["nonlinear-high"] ||
		len(sizes) != 4 || !sizes[300] || !sizes[10000] {
		t.Errorf("models %v sizes %v", models, sizes)
	}
	if !slices.Contains(names(s), BayesPipeline) {
		t.Error("no Bayes oracle")
	}
	for _, n := range names(s) {
		if strings.HasSuffix(n, "+mask") {
			t.Errorf("%s: the learning curves leave the mask out", n)
		}
	}
}

func TestAppendix(t *testing.T) {
	f := parseExample(t, "appendix.hcl")
	fig3 := parseExample(t, "figure3.hcl").Sweeps[0]
	if len(f.Sweeps) != 2 {
		t.Fatalf("%d sweeps", len(f.Sweeps))
	}
	var rhoWant, rateWant []string
	for _, mech := range []string{"mcar", "mnar", "predictive"} {
		for _, v := range []float64{0.2, 0.4, 0.6} {
			rateWant = append(rateWant, model1(mech, 0.5, v))
		}
		for _, v := range []float64{0.2, 0.5, 0.8} {
			rhoWant = append(rhoWant, model1(mech, v, 0.2))
		}
	}
	sameSet(t, "rho sweep", canonicals(f.Sweeps[0]), rhoWant)
	sameSet(t, "rate sweep", canonicals(f.Sweeps[1]), rateWant)
	for _, s := range f.Sweeps {
		// Same seed and pipelines as figure 3: shared scenarios are shared jobs.
		if s.Seed != fig3.Seed || s.Repetitions != 1000 || !slices.Equal(names(s), names(fig3)) {
			t.Errorf("%s differs from figure3 in seed, repetitions or pipelines", s.Name)
		}
	}
}

func TestStump(t *testing.T) {
	f := parseExample(t, "stump.hcl")
	if len(f.Sweeps) != 2 {
		t.Fatalf("%d sweeps", len(f.Sweeps))
	}
	for i, cols := range [][]int{{0}, {0, 1}} {
		s := f.Sweeps[i]
		if len(s.Scenarios) != 5*4 || s.Repetitions != 500 {
			t.Errorf("%s: %d scenarios, %d reps", s.Name, len(s.Scenarios), s.Repetitions)
		}
		for _, sc := range s.Scenarios {
			if sc.Model != "stump" || sc.Mechanism != "mcar" || !slices.Equal(sc.Columns, cols) {
				t.Errorf("%s: scenario %s", s.Name, sc.Canonical())
			}
		}
		var learners []string
		for _, p := range s.Pipelines {
			learners = append(learners, p.Learner())
			if p.Resolved()["maxdepth"] != 1 {
				t.Errorf("%s: %s is not a stump", s.Name, p.Canonical())
			}
		}
		sameSet(t, "stump learners", learners, []string{"tree", "ctree"})
	}
}

func TestQuickstart(t *testing.T) {
	s := parseExample(t, "quickstart.hcl").Sweeps[0]
	fig3 := parseExample(t, "figure3.hcl").Sweeps[0]
	if s.Jobs() != 90 || s.Seed != fig3.Seed || !slices.Equal(canonicals(s), canonicals(fig3)) {
		t.Errorf("quickstart: %d jobs; want 90 jobs that are figure 3's first repetitions", s.Jobs())
	}
	families := map[string]bool{}
	for _, p := range s.Pipelines {
		families[p.Learner()] = true
	}
	for _, l := range []string{"tree", "ctree", "forest", "boost", "svm", "knn", "linear", "bayes"} {
		if !families[l] {
			t.Errorf("quickstart lacks learner family %s", l)
		}
	}
}
