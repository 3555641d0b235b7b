package reportgen

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/misslab/misslab/internal/experiment"
	"github.com/misslab/misslab/internal/fpclass"
	"github.com/misslab/misslab/internal/grid"
	"github.com/misslab/misslab/internal/report"
	"github.com/misslab/misslab/internal/stats"
	"github.com/misslab/misslab/internal/store"
	"github.com/misslab/misslab/internal/storeconv"
)

func TestUnavailableKindMatchesExperiment(t *testing.T) {
	if KindUnavailable != experiment.KindUnavailable {
		t.Fatalf("KindUnavailable %q, experiment says %q", KindUnavailable, experiment.KindUnavailable)
	}
}

const curveGrid = `
sweep "curves" {
  seed        = 5
  repetitions = 3
  data {
    model   = "linear"
    rho     = -0.05
    n_train = [300, 1000]
  }
  missingness {
    mechanism = ["none", "mnar"]
    rate      = 0.2
    columns   = "all"
  }
  pipelines { names = ["tree/mia", "tree/mean"] }
  bayes = true
}`

// TestBuildCurveSweep stores a learning-curve sweep with every kind of
// outcome and checks the job counts, failures, records, the oracle's
// "unavailable" results under MNAR, the scenario titles and the curve
// mapping with the exact Bayes rate.
func TestBuildCurveSweep(t *testing.T) {
	sw := parseSweep(t, curveGrid)
	// Scenarios in grid order: (300, none), (300, mnar), (1000, none), (1000, mnar).
	const failedJob, missingJob = 5, 7 // (300, mnar) rep 1: job failed; (1000, mnar) rep 1: never ran
	st, rec := fill(t, sw, func(si, rep, pi int) (store.Result, bool, string) {
		job := rep*len(sw.Scenarios) + si
		switch {
		case job == failedJob:
			return store.Result{}, false, "worker lost\nstack trace"
		case job == missingJob:
			return store.Result{}, false, ""
		case pi == 2 && sw.Scenarios[si].Mechanism == "mnar":
			return store.Result{ErrKind: KindUnavailable, ErrMsg: `no Bayes predictor for mechanism "mnar"`}, true, ""
		case job == 2 && pi == 1:
			return store.Result{ErrKind: "fit", ErrMsg: "singular matrix\nat line 3"}, true, ""
		}
		return score(0.5 + 0.01*float64(job) + 0.001*float64(pi)), true, ""
	})
	in, err := Build(context.Background(), st, rec)
	if err != nil {
		t.Fatal(err)
	}
	if want := (report.Jobs{Planned: 12, Done: 10, Failed: 1}); in.Jobs != want {
		t.Errorf("jobs %+v, want %+v", in.Jobs, want)
	}
	if k := in.Scenarios[0].Key; k != "model=linear; d=10; rho=-0.05; noise=0.1; n_train=300; n_test=1000; mechanism=none; rate=0; columns=; eta=0" {
		t.Errorf("key %q: want the canonical encoding with breakable separators", k)
	}
	titles := []string{"n=300 · no NA", "n=300 · MNAR", "n=1000 · no NA", "n=1000 · MNAR"}
	for i, sc := range in.Scenarios {
		if sc.Key != scenarioKey(sw.Scenarios[i]) || sc.Title != titles[i] || sc.RepsPlanned != 3 {
			t.Errorf("scenario %d: %q %q reps %d", i, sc.Key, sc.Title, sc.RepsPlanned)
		}
		na := slices.IndexFunc(sc.Labels, func(l report.Label) bool { return l.Name == "not available" })
		if mnar := i%2 == 1; mnar != (na >= 0) {
			t.Errorf("scenario %s: labels %v; want a not-available label exactly under MNAR", sc.Title, sc.Labels)
		} else if mnar && sc.Labels[na].Value != `bayes/oracle: no Bayes predictor for mechanism "mnar"` {
			t.Errorf("not-available label %q", sc.Labels[na].Value)
		}
	}
	// 10 jobs with results: 3 records each under none, 2 (no oracle) under MNAR.
	// Stored jobs: none-scenarios 6 jobs × 3, MNAR-scenarios 4 jobs × 2.
	if len(in.Records) != 6*3+4*2 {
		t.Errorf("%d records, want 26", len(in.Records))
	}
	for _, r := range in.Records {
		if r.Pipeline == "bayes/oracle" && strings.Contains(r.Scenario, "mnar") {
			t.Errorf("unavailable oracle kept as a record: %+v", r)
		}
		if r.Failed != (r.Scenario == scenarioKey(sw.Scenarios[2]) && r.Rep == 0 && r.Pipeline == "tree/mean") {
			t.Errorf("record %+v: Failed = %v", r, r.Failed)
		}
	}
	wantFail := []report.Failure{
		{Scenario: "n=1000 · no NA", Rep: 0, Pipeline: "tree/mean", Message: "fit: singular matrix"},
		{Scenario: "n=300 · MNAR", Rep: 1, Message: "job: worker lost"},
	}
	if !slices.Equal(in.Failures, wantFail) {
		t.Errorf("failures\n got %+v\nwant %+v", in.Failures, wantFail)
	}
	checkCurves(t, sw, in.Curves)
	if in.Choices != nil || in.Theory != nil {
		t.Errorf("choices %v theory %v for a linear sweep", in.Choices, in.Theory)
	}
}

// checkCurves: panel = the scenario without its size; the Bayes rate
// with no missing values is 1 − σ²/Var(Y), Var(Y) = βᵀΣβ + σ² with
// Σ = ρ11ᵀ + (1−ρ)I: ρ(Σβ)² + (1−ρ)Σβ² = −0.05·5.6² + 1.05·19.48 = 18.886.
// Censoring MNAR at ρ < 0 has no Bayes predictor in misslab: no rate.
func checkCurves(t *testing.T, sw *grid.Sweep, c stats.CurveOptions) {
	t.Helper()
	if c.Point == nil || c.Bayes == nil {
		t.Fatal("no learning curves for a sweep over n_train")
	}
	want := []struct {
		panel string
		n     int
	}{{"linear · no NA", 300}, {"linear · MNAR 20%", 300}, {"linear · no NA", 1000}, {"linear · MNAR 20%", 1000}}
	for i, sc := range sw.Scenarios {
		pn, n, ok := c.Point(scenarioKey(sc))
		if !ok || pn != want[i].panel || n != want[i].n {
			t.Errorf("Point(%d) = %q %d %v, want %q %d", i, pn, n, ok, want[i].panel, want[i].n)
		}
	}
	if _, _, ok := c.Point("model=unknown"); ok {
		t.Error("Point accepts an unknown scenario")
	}
	r2, ok := c.Bayes("linear · no NA", 300)
	if exact := 1 - 0.01/(18.886+0.01); !ok || math.Abs(r2-exact) > 1e-12 {
		t.Errorf("Bayes R² %v %v, want %v", r2, ok, exact)
	}
	if _, ok := c.Bayes("linear · MNAR 20%", 300); ok {
		t.Error("a Bayes rate under censoring MNAR at ρ < 0")
	}
}

// TestWriteOrdersCurvePanels renders the curve sweep and checks the
// report's curve table: panels in grid order (no NA before MNAR, whose
// name sorts first), the Bayes rows only where a rate exists.
func TestWriteOrdersCurvePanels(t *testing.T) {
	sw := parseSweep(t, curveGrid)
	st, rec := fill(t, sw, func(si, rep, pi int) (store.Result, bool, string) {
		if pi == 2 && sw.Scenarios[si].Mechanism == "mnar" {
			return store.Result{ErrKind: KindUnavailable, ErrMsg: "none"}, true, ""
		}
		return score(0.6 + 0.01*float64(rep)), true, ""
	})
	dir := t.TempDir()
	files, err := Write(context.Background(), st, rec, dir)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(files, "curves.png") || !slices.Contains(files, "index.html") {
		t.Fatalf("files %v lack the curves or the page", files)
	}
	raw, err := os.ReadFile(filepath.Join(dir, "curves.csv"))
	if err != nil {
		t.Fatal(err)
	}
	var panels []string
	bayes := map[string]int{}
	for _, line := range strings.Split(strings.TrimSpace(string(raw)), "\n")[1:] {
		f := strings.Split(line, ",")
		if len(panels) == 0 || panels[len(panels)-1] != f[0] {
			panels = append(panels, f[0])
		}
		if f[1] == "bayes" {
			bayes[f[0]]++
		}
	}
	if !slices.Equal(panels, []string{"linear · no NA", "linear · MNAR 20%"}) {
		t.Errorf("panels in curves.csv: %v, want grid order", panels)
	}
	if bayes["linear · MNAR 20%"] != 0 || bayes["linear · no NA"] != 2 {
		t.Errorf("Bayes rows per panel %v", bayes)
	}
}

// TestStumpChoices: every completed tree and ctree stump gives one
// choice, grouped by learner and masked columns, with its size, rate
// and split variable ("" for no split); failed runs give none.
func TestStumpChoices(t *testing.T) {
	sw := parseSweep(t, `
sweep "stump" {
  seed        = 1
  repetitions = 2
  data {
    model   = "stump"
    n_train = [50, 100]
  }
  missingness {
    rate    = [0, 0.5]
    columns = [1, 2]
  }
  pipelines { names = ["tree/surrogate", "ctree/majority"] }
  learner "tree" {
    maxdepth = 1
    cp       = 0
  }
}`)
	roots := []string{"X1", "X2", ""}
	st, rec := fill(t, sw, func(si, rep, pi int) (store.Result, bool, string) {
		if si == 3 && rep == 1 && pi == 1 {
			return store.Result{ErrKind: "fit", ErrMsg: "boom"}, true, ""
		}
		r := score(0.05)
		r.Root = roots[(si+rep+pi)%3]
		return r, true, ""
	})
	in, err := Build(context.Background(), st, rec)
	if err != nil {
		t.Fatal(err)
	}
	var want []stats.Choice
	for si, sc := range sw.Scenarios {
		for rep := range 2 {
			for pi, g := range []string{"tree · NA on X1, X2", "ctree · NA on X1, X2"} {
				if si == 3 && rep == 1 && pi == 1 {
					continue
				}
				want = append(want, stats.Choice{Group: g, N: sc.NTrain, Rate: sc.Rate, Chosen: roots[(si+rep+pi)%3]})
			}
		}
	}
	// fill and SweepResults both go scenario, repetition, pipeline.
	if !slices.Equal(in.Choices, want) {
		t.Errorf("choices\n got %v\nwant %v", in.Choices, want)
	}
	if in.SelectionTarget != "X1" {
		t.Errorf("selection target %q", in.SelectionTarget)
	}
	if p := stats.Pipelines(in.Records); !slices.Equal(p, []string{"ctree/majority", "tree/surrogate"}) {
		t.Errorf("pipeline keys %v: want names without settings", p)
	}
	if !strings.HasSuffix(in.SweepID, "settings: tree{cp=0,maxdepth=1}") || !strings.HasPrefix(in.SweepID, rec.ID) {
		t.Errorf("sweep id line %q", in.SweepID)
	}
	if in.Scenarios[0].Title != "n=50 · MCAR 0%" || in.Scenarios[3].Title != "n=100 · MCAR 50%" {
		t.Errorf("titles %q, %q", in.Scenarios[0].Title, in.Scenarios[3].Title)
	}
}

// TestTheoryPoints: Proposition 1 takes each tree stump's finite root
// threshold on X1 (MIA as "mia", the available-case strategies as
// "cart"; MIA's observed-vs-NA split at +Inf, no split, imputation and
// failed runs are left out); Proposition 2 averages the test MSE of each
// native tree strategy over its completed repetitions at (p, η).
func TestTheoryPoints(t *testing.T) {
	sw1 := parseSweep(t, `
sweep "p1" {
  seed        = 1
  repetitions = 2
  data {
    model   = "prop1"
    n_train = 1e4
  }
  missingness { rate = [0.2, 0.6] }
  pipelines { names = ["tree/mia", "tree/surrogate", "tree/mean"] }
}`)
	thr := func(si, rep, pi int) float64 { return 0.5 + 0.1*float64(si) + 0.01*float64(rep) + 0.001*float64(pi) }
	st, rec := fill(t, sw1, func(si, rep, pi int) (store.Result, bool, string) {
		r := score(0.7)
		r.Root, r.RootThreshold = "X1", thr(si, rep, pi)
		switch {
		case si == 1 && rep == 1 && pi == 0:
			r.RootThreshold = math.Inf(1) // observed vs NA
		case si == 1 && rep == 0 && pi == 1:
			r.Root = "" // no split
		}
		return r, true, ""
	})
	in, err := Build(context.Background(), st, rec)
	if err != nil {
		t.Fatal(err)
	}
	want := []report.TheoryPoint{
		{Prop: 1, P: 0.2, Strategy: "mia", Value: thr(0, 0, 0)}, {Prop: 1, P: 0.2, Strategy: "cart", Value: thr(0, 0, 1)},
		{Prop: 1, P: 0.2, Strategy: "mia", Value: thr(0, 1, 0)}, {Prop: 1, P: 0.2, Strategy: "cart", Value: thr(0, 1, 1)},
		{Prop: 1, P: 0.6, Strategy: "mia", Value: thr(1, 0, 0)},
		{Prop: 1, P: 0.6, Strategy: "cart", Value: thr(1, 1, 1)},
	}
	if in.Theory == nil || !slices.Equal(in.Theory.Points, want) || len(in.Theory.Etas) != 0 {
		t.Errorf("prop1 theory %+v\nwant points %+v", in.Theory, want)
	}

	sw2 := parseSweep(t, `
sweep "p2" {
  seed        = 1
  repetitions = 3
  data {
    model = "prop2"
    eta   = [0.75, 0]
  }
  missingness { rate = [0.1, 0.5] }
  pipelines { names = ["tree/mia", "tree/block", "tree/surrogate+mask", "forest/mia"] }
}`)
	mse := func(si, rep, pi int) float64 {
		return 0.02 + 0.01*float64(si) + 0.001*float64(rep) + 0.0001*float64(pi)
	}
	st, rec = fill(t, sw2, func(si, rep, pi int) (store.Result, bool, string) {
		if si == 0 && rep == 2 && pi == 1 {
			return store.Result{ErrKind: "fit", ErrMsg: "x"}, true, ""
		}
		return store.Result{R2: 0.5, MSE: mse(si, rep, pi)}, true, ""
	})
	in, err = Build(context.Background(), st, rec)
	if err != nil {
		t.Fatal(err)
	}
	// Scenarios: (η 0.75, p 0.1), (0.75, 0.5), (0, 0.1), (0, 0.5); mean over
	// reps 0..2 of mse is its value at rep 1; block at scenario 0 has reps 0, 1.
	pt := func(eta, p float64, s string, si, pi int, v float64) report.TheoryPoint {
		if v == 0 {
			v = mse(si, 1, pi)
		}
		return report.TheoryPoint{Prop: 2, P: p, Eta: eta, Strategy: s, Value: v}
	}
	want = []report.TheoryPoint{
		pt(0, 0.1, "block", 2, 1, 0), pt(0, 0.1, "mia", 2, 0, 0),
		pt(0, 0.5, "block", 3, 1, 0), pt(0, 0.5, "mia", 3, 0, 0),
		pt(0.75, 0.1, "block", 0, 1, (mse(0, 0, 1)+mse(0, 1, 1))/2), pt(0.75, 0.1, "mia", 0, 0, 0),
		pt(0.75, 0.5, "block", 1, 1, 0), pt(0.75, 0.5, "mia", 1, 0, 0),
	}
	if in.Theory == nil || !slices.Equal(in.Theory.Etas, []float64{0, 0.75}) || len(in.Theory.Points) != len(want) {
		t.Fatalf("prop2 theory %+v", in.Theory)
	}
	for i, p := range in.Theory.Points {
		w := want[i]
		if p.Prop != w.Prop || p.P != w.P || p.Eta != w.Eta || p.Strategy != w.Strategy || math.Abs(p.Value-w.Value) > 1e-15 {
			t.Errorf("point %d: %+v, want %+v", i, p, w)
		}
	}
	if in.Scenarios[1].Title != "η=0.75 · MCAR 50%" {
		t.Errorf("title %q", in.Scenarios[1].Title)
	}
}

// TestResolve: a sweep is found by full id, unique prefix or name (the
// latest of that name); no argument needs a store with one sweep.
func TestResolve(t *testing.T) {
	st, err := store.Open(t.TempDir(), store.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if _, _, err := Resolve(st, ""); !errors.Is(err, ErrNoSweep) {
		t.Errorf("empty store: %v", err)
	}
	src := `sweep "a" {
  seed = 1
  repetitions = REPS
  data { model = "stump" }
  pipelines { names = ["tree/mia"] }
}`
	var ids []string
	for i, reps := range []string{"1", "2"} {
		sw := parseSweep(t, strings.Replace(src, "REPS", reps, 1))
		rec := storeconv.New(sw, time.Unix(int64(100+i), 0))
		if err := st.PutSweep(rec.StoreRecord()); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, rec.ID)
		if i == 0 {
			if got, _, err := Resolve(st, ""); err != nil || got.ID != rec.ID {
				t.Errorf("single sweep, no argument: %v %v", got.ID, err)
			}
		}
	}
	for _, c := range []struct {
		arg, id string
		others  int
	}{{ids[0], ids[0], 0}, {ids[1][:9], ids[1], 0}, {"a", ids[1], 1}} {
		got, others, err := Resolve(st, c.arg)
		if err != nil || got.ID != c.id || len(others) != c.others {
			t.Errorf("Resolve(%q) = %.12s, %v, %v; want %.12s with %d others", c.arg, got.ID, others, err, c.id, c.others)
		}
	}
	for _, arg := range []string{"", "b", "zz"} {
		if _, _, err := Resolve(st, arg); !errors.Is(err, ErrNoSweep) {
			t.Errorf("Resolve(%q): %v, want ErrNoSweep", arg, err)
		}
	}
}

// TestTheoryExampleGrids: examples/prop1.hcl and prop2.hcl give the
// theory figures their points: tree stumps whose every pipeline maps to
// a strategy of the figure, p on the grid 0, 0.1, ..., 0.9 at a large
// training size, and prop2's η the paper's three panels.
func TestTheoryExampleGrids(t *testing.T) {
	for _, c := range []struct {
		file string
		etas []float64
	}{{"prop1.hcl", []float64{0}}, {"prop2.hcl", []float64{0, 0.25, 0.75}}} {
		f, err := grid.ParseFile(filepath.Join("..", "..", "examples", c.file), grid.ParseOptions{})
		if err != nil {
			t.Fatal(err)
		}
		sw := f.Sweeps[0]
		g := newGather(sw)
		for i, p := range sw.Pipelines {
			sp := g.specs[i]
			_, p1 := prop1Strategy(sp)
			ok := sp.Learner == "tree" && !sp.Mask && p.Resolved()["maxdepth"] == 1 && (p1 || c.file == "prop2.hcl")
			if !ok {
				t.Errorf("%s: pipeline %s is not a tree stump of the figure", c.file, p.Canonical())
			}
		}
		rates, etas := map[float64]bool{}, map[float64]bool{}
		for _, sc := range sw.Scenarios {
			rates[sc.Rate], etas[sc.Eta] = true, true
			if sc.NTrain < 10_000 {
				t.Errorf("%s: n_train %d is far from the propositions' limit", c.file, sc.NTrain)
			}
		}
		r := sortedKeys(rates)
		for i, v := range r {
			if math.Abs(v-float64(i)/10) > 1e-12 {
				t.Errorf("%s: rates %v, want 0, 0.1, ..., 0.9", c.file, r)
				break
			}
		}
		if len(r) != 10 || !slices.Equal(sortedKeys(etas), c.etas) || len(sw.Scenarios) != 10*len(c.etas) {
			t.Errorf("%s: %d scenarios, rates %v, etas %v", c.file, len(sw.Scenarios), r, sortedKeys(etas))
		}
	}
}

// TestOORConventionLine: the line under the title names the OOR fill
// rule of the sweep's oor pipelines: the paper's constant when oor_k is
// absent, the scaled rule with its k when given, each pipeline's own when
// they differ, nothing without an oor pipeline.
func TestOORConventionLine(t *testing.T) {
	src := func(pipelines, strategy string) string {
		return `sweep "oor" {
  seed        = 1
  repetitions = 1
  data { model = "quadratic" }
  pipelines { names = [` + pipelines + `] }
  ` + strategy + `
}`
	}
	mixed := &grid.Sweep{Pipelines: []grid.Pipeline{grid.MustPipeline("svm/oor", nil),
		grid.MustPipeline("knn/oor", map[string]float64{"oor_k": 0.1})}}
	cases := []struct {
		name string
		sw   *grid.Sweep
		want string
	}{
		{"no oor", parseSweep(t, src(`"tree/mean"`, "")), ""},
		{"paper", parseSweep(t, src(`"tree/mean", "svm/oor", "knn/oor+mask"`, "")),
			"  ·  oor: paper constant 999999 (default)"},
		{"scaled", parseSweep(t, src(`"svm/oor", "knn/oor"`, `strategy "oor" { oor_k = 0.1 }`)),
			"  ·  oor: max + k·(max − min), k = 0.1"},
		{"mixed", mixed,
			"  ·  oor: svm/oor: paper constant 999999 (default); knn/oor{oor_k=0.1}: max + k·(max − min), k = 0.1"},
	}
	for _, c := range cases {
		if got := oorText(c.sw); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
	sw := cases[2].sw
	st, rec := fill(t, sw, func(si, rep, pi int) (store.Result, bool, string) { return score(0.5), true, "" })
	in, err := Build(context.Background(), st, rec)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(in.SweepID, "oor: max + k·(max − min), k = 0.1") {
		t.Errorf("sweep id line %q: want the OOR convention", in.SweepID)
	}
}

// TestClassLine checks that the line under a report's title names the
// floating-point class the store's scores were computed under, for one
// sweep and for the combined report, says when classes were mixed, and
// stays as it was when no class is recorded.
func TestClassLine(t *testing.T) {
	sw := parseSweep(t, `sweep "class" {
  seed        = 1
  repetitions = 1
  data { model = "quadratic" }
  pipelines { names = ["tree/mean"] }
}`)
	cases := []struct{ class, want string }{
		{"", ""},
		{"arm64+fma go1.26.8", "  ·  floating-point class: arm64+fma go1.26.8"},
		{fpclass.Any, "  ·  floating-point class: mixed (workers of any class were accepted)"},
	}
	for _, c := range cases {
		st, rec := fill(t, sw, func(si, rep, pi int) (store.Result, bool, string) { return score(0.5), true, "" })
		if c.class != "" {
			if err := st.SetFPClass(c.class); err != nil {
				t.Fatal(err)
			}
		}
		one, err := Build(context.Background(), st, rec)
		if err != nil {
			t.Fatal(err)
		}
		if one.SweepID != rec.ID+c.want {
			t.Errorf("class %q: sweep line %q, want %q", c.class, one.SweepID, rec.ID+c.want)
		}
		all, err := Combined(context.Background(), st, []storeconv.Record{rec})
		if err != nil {
			t.Fatal(err)
		}
		if want := fmt.Sprintf("class %.12s", rec.ID) + c.want; all.SweepID != want {
			t.Errorf("class %q: combined line %q, want %q", c.class, all.SweepID, want)
		}
	}
}
