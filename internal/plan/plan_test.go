package plan

import (
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/misslab/misslab/internal/grid"
)

// mustParse parses a grid file's source, named test.hcl.
func mustParse(t testing.TB, src string) *grid.File {
	t.Helper()
	f, err := grid.Parse([]byte(src), "test.hcl", grid.ParseOptions{})
	if err != nil {
		t.Fatalf("parse: %v\n%s", err, src)
	}
	return f
}

// parseExample parses examples/<name> with no settings hooks.
func parseExample(t *testing.T, name string) *grid.File {
	t.Helper()
	f, err := grid.ParseFile(filepath.Join("..", "..", "examples", name), grid.ParseOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return f
}

const planSrc = `
sweep "curve" {
  seed        = 1
  repetitions = 10
  data {
    model   = "quadratic"
    n_train = [1000, 2000]
  }
  pipelines {
    learners   = ["tree"]
    strategies = ["mia", "gaussian+mask"]
  }
  pipelines { names = ["linear/mean"] }
  bayes = true
}

sweep "one" {
  seed        = 2
  repetitions = 3
  data {
    model = "stump"
  }
  missingness {
    mechanism = ["none", "mcar"]
  }
  pipelines { names = ["tree/mia"] }
}
`

// testCost has round numbers so that the expected times can be worked
// out by hand. bayes is absent and falls back to 0.25 s.
var testCost = CostModel{
	Learners:   map[string]PowerLaw{"tree": {Seconds: 1, Exponent: 1}, "linear": {Seconds: 0.5, Exponent: 0}},
	Strategies: map[string]PowerLaw{"gaussian": {Seconds: 2, Exponent: 2}},
	Fallback:   PowerLaw{Seconds: 0.25, Exponent: 0},
	Job:        PowerLaw{Seconds: 0.1, Exponent: 1},
	Cores:      4,
}

func TestPlanArithmetic(t *testing.T) {
	p := Of(mustParse(t, planSrc), testCost)
	// curve, n = 1000: job 0.1 + tree/mia 1 + tree/gaussian+mask (1 + 2)
	//   + linear 0.5 + bayes 0.25 = 4.85 s;
	// n = 2000: 0.2 + 2 + (2 + 2·2²) + 0.5 + 0.25 = 12.95 s.
	// one: two scenarios (none, mcar) at n = 1000: 0.1 + 1 = 1.1 s each.
	c, o := p.Sweeps[0], p.Sweeps[1]
	checks := []struct {
		name      string
		got, want float64
	}{
		{"curve CPU", c.CPUSeconds, 10 * (4.85 + 12.95)},
		{"curve longest job", c.LongestJob, 12.95},
		{"one CPU", o.CPUSeconds, 3 * 2 * 1.1},
		{"wall", p.WallSeconds(), (178 + 6.6) / 4},
	}
	for _, ch := range checks {
		if math.Abs(ch.got-ch.want) > 1e-9 {
			t.Errorf("%s = %v, want %v", ch.name, ch.got, ch.want)
		}
	}
	if c.Jobs != 20 || c.Fits["tree"] != 40 || c.Fits["linear"] != 20 || c.Fits["bayes"] != 20 || o.Fits["tree"] != 6 {
		t.Errorf("counts: jobs %d fits %v / %v", c.Jobs, c.Fits, o.Fits)
	}
	if strings.Join(p.Learners, ",") != "tree,linear,bayes" {
		t.Errorf("learners %v", p.Learners)
	}
	jobs, fits, _ := p.Totals()
	if jobs != 26 || fits["tree"] != 46 {
		t.Errorf("totals: %d jobs, fits %v", jobs, fits)
	}
}

// TestWallNotBelowLongestJob: one huge job cannot be shared by cores.
func TestWallNotBelowLongestJob(t *testing.T) {
	f := mustParse(t, `sweep "s" {
  seed = 1
  repetitions = 1
  data { model = "quadratic" }
  pipelines { names = ["tree/mia"] }
}`)
	cost := CostModel{Learners: map[string]PowerLaw{"tree": {Seconds: 100, Exponent: 0}}, Cores: 8}
	if got := Of(f, cost).WallSeconds(); got != 100 {
		t.Errorf("wall = %v, want 100", got)
	}
}

// TestPlanText pins the rendering; the numbers are those worked out in
// TestPlanArithmetic (178 s + 6.6 s CPU on 4 cores).
func TestPlanText(t *testing.T) {
	f := mustParse(t, planSrc)
	var b strings.Builder
	if err := Of(f, testCost).WriteText(&b); err != nil {
		t.Fatal(err)
	}
	want := `grid test.hcl: 2 sweep(s), 26 jobs, 86 fits; estimated 3m05s CPU, 46.1s wall on 4 core(s)

sweep  scenarios  reps  jobs  pipelines  tree  linear  bayes    CPU   wall
curve          2    10    20          4    40      20     20  2m58s  44.5s
one            2     3     6          1     6       0      0   6.6s   1.7s
total                     26               46      20     20  3m05s  46.1s

sweep "curve" (hash HASH0)
  varies:    n_train ∈ {1000, 2000}
  fixed:     model=quadratic d=9 rho=0.5 noise=0.1 n_test=1000 mechanism=mcar rate=0.2 columns=X1,X2,X3 eta=0
  pipelines: tree/mia, tree/gaussian+mask, linear/mean, bayes/oracle

sweep "one" (hash HASH1)
  varies:    mechanism ∈ {none, mcar}; rate ∈ {0, 0.2}; columns ∈ {- | X1}
  fixed:     model=stump d=2 rho=0 noise=1 n_train=1000 n_test=1000 eta=0
  pipelines: tree/mia

Times are estimates from single-core benchmarks on a cloud VM (machines differ by up to ±30%), scaled by n, width and missing share (docs/BENCHMARKS.md); counts are exact.
`
	want = strings.NewReplacer("HASH0", f.Sweeps[0].Hash()[:12], "HASH1", f.Sweeps[1].Hash()[:12]).Replace(want)
	if got := b.String(); got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
}

func TestHuman(t *testing.T) {
	tests := []struct {
		sec  float64
		want string
	}{{0, "0.0s"}, {12.34, "12.3s"}, {65, "1m05s"}, {3599, "59m59s"}, {3600 + 3*60 + 20, "1h03m"}, {47 * 3600, "47h00m"}, {3 * 86400, "3.0d"}}
	for _, tc := range tests {
		if got := human(tc.sec); got != tc.want {
			t.Errorf("human(%v) = %q, want %q", tc.sec, got, tc.want)
		}
	}
}

// TestPlanClassificationTable: a class target's plan names its classes
// with their rows, and its fits cost the families' classification
// factors at the file's number of classes.
func TestPlanClassificationTable(t *testing.T) {
	src := `sweep "pima" {
  seed        = 1
  repetitions = 1
  table {
    file        = "` + filepath.Join("..", "..", "examples", "data", "pima.csv") + `"
    target      = "diabetes"
    categorical = ["diabetes"]
  }
  split { folds = 5 }
  pipelines { names = ["boost/mia"] }
}`
	f := mustParse(t, src)
	sum := Of(f, DefaultCostModel())
	var b strings.Builder
	if err := sum.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "classes:   2 (rows per class: neg 500, pos 268); folds stratified by class") {
		t.Errorf("plan lacks the classes line:\n%s", b.String())
	}
	regression := DefaultCostModel()
	regression.Classify = nil
	_, _, cpuClass := sum.Totals()
	_, _, cpuReg := Of(f, regression).Totals()
	job := DefaultCostModel().Job.At(614)
	want := DefaultClassCosts()["boost"].Binary
	if got := (cpuClass - 5*job) / (cpuReg - 5*job); math.Abs(got-want) > 1e-9 {
		t.Errorf("classification over regression CPU %g, want boost's binary factor %g", got, want)
	}
}
