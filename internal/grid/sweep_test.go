package grid

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/misslab/misslab/internal/sim"
)

func mustParse(t testing.TB, src string) *File {
	t.Helper()
	f, err := Parse([]byte(src), "test.hcl", ParseOptions{})
	if err != nil {
		t.Fatalf("parse: %v\n%s", err, src)
	}
	return f
}

// TestNestingOrder checks the documented loop order against an
// independent mixed-radix decoding: with two values on each of the eight
// axes, bit 7-k of the scenario index selects the value of axis k.
func TestNestingOrder(t *testing.T) {
	f := mustParse(t, `
sweep "order" {
  seed = 1
  repetitions = 1
  data {
    model   = ["quadratic", "linear"]
    d       = [10, 12]
    rho     = [0.1, 0.2]
    noise   = [0.1, 0.2]
    n_train = [100, 200]
    n_test  = [50, 60]
  }
  missingness {
    mechanism = ["mcar", "mnar"]
    rate      = [0.1, 0.2]
  }
  pipelines { names = ["tree/mia"] }
}`)
	sc := f.Sweeps[0].Scenarios
	if len(sc) != 256 {
		t.Fatalf("%d scenarios, want 2^8", len(sc))
	}
	for i, s := range sc {
		bit := func(k int) int { return i >> (7 - k) & 1 }
		want := sim.Scenario{
			Model: []string{"quadratic", "linear"}[bit(0)], D: []int{10, 12}[bit(1)],
			Rho: []float64{0.1, 0.2}[bit(2)], Noise: []float64{0.1, 0.2}[bit(3)],
			NTrain: []int{100, 200}[bit(4)], NTest: []int{50, 60}[bit(5)],
			Mechanism: []string{"mcar", "mnar"}[bit(6)], Rate: []float64{0.1, 0.2}[bit(7)],
		}
		got := s
		got.Columns = nil
		if got.Canonical() != want.Canonical() {
			t.Fatalf("scenario %d = %s\nwant %s", i, got.Canonical(), want.Canonical())
		}
	}
}

// TestCrossProductCounts checks the number of scenarios against the
// closed form Σ_model |d|·|rho|·|noise|·|n_train|·|n_test|·Σ_mech |rate|,
// where models without Gaussian covariates have one rho and mechanism
// "none" one rate.
func TestCrossProductCounts(t *testing.T) {
	tests := []struct {
		data, miss string
		want       int
	}{
		{`model = "quadratic"`, ``, 1},
		{`model = "quadratic"` + "\n" + `n_train = [300, 1000, 3000, 1e4]`, ``, 4},
		{`model = ["linear", "friedman", "nonlinear-high"]` + "\n" + `n_train = [300, 1000, 3000, 10000]`, `rate = 0.4`, 12},
		{`model = ["quadratic", "nonlinear"]` + "\n" + `rho = [0.2, 0.5, 0.8]`, `mechanism = ["none", "mcar"]` + "\n" + `rate = [0.1, 0.2]`, 3*(1+2) + 1*(1+2)},
		{`model = "quadratic"` + "\n" + `rho = [0.2, 0.5]` + "\n" + `noise = [0, 1]` + "\n" + `n_test = [10, 20, 30]`,
			`mechanism = ["mcar", "mnar", "predictive"]` + "\n" + `rate = [0, 0.5]`, 2 * 2 * 3 * 3 * 2},
		{`model = "stump"` + "\n" + `n_train = [50, 100, 200, 500, 1000]`, `rate = [0, 0.25, 0.5, 0.75]` + "\n" + `columns = [1, 2]`, 20},
		{`model = "quadratic"`, `mechanism = "none"` + "\n" + `rate = [0.1, 0.2, 0.3]`, 1},
	}
	for i, tc := range tests {
		t.Run(strconv.Itoa(i), func(t *testing.T) {
			src := fmt.Sprintf("sweep \"c\" {\nseed = 1\nrepetitions = 3\ndata {\n%s\n}\nmissingness {\n%s\n}\npipelines {\nnames = [\"tree/mia\"]\n}\n}\n", tc.data, tc.miss)
			s := mustParse(t, src).Sweeps[0]
			if len(s.Scenarios) != tc.want || s.Jobs() != 3*tc.want {
				t.Errorf("%d scenarios, %d jobs; want %d, %d", len(s.Scenarios), s.Jobs(), tc.want, 3*tc.want)
			}
			seen := map[string]bool{}
			for _, sc := range s.Scenarios {
				if seen[sc.Canonical()] {
					t.Errorf("duplicate scenario %s", sc.Canonical())
				}
				seen[sc.Canonical()] = true
				if err := sc.Validate(); err != nil {
					t.Errorf("invalid scenario kept: %v", err)
				}
			}
		})
	}
}

const hashBase = `
sweep "base" {
  seed        = 42
  repetitions = 10
  data {
    model   = "quadratic"
    d       = 9
    rho     = 0.5
    noise   = 0.1
    n_train = 1000
    n_test  = 1000
  }
  missingness {
    mechanism = "mcar"
    rate      = 0.2
    columns   = [1, 2, 3]
  }
  pipelines {
    learners   = ["tree"]
    strategies = ["mia", "mean"]
  }
  learner "tree" {
    minbucket = 30
  }
}
`

// TestHashInvariance: the hash ignores the file and sweep names, layout,
// comments, attribute order, list-versus-scalar spelling and spelling out
// a default, because none of them changes a job.
func TestHashInvariance(t *testing.T) {
	base := mustParse(t, hashBase).Sweeps[0].Hash()
	same := `# another layout of the same sweep
sweep "renamed" {
  missingness {
    columns = [3, 1, 2]   # any order
    rate = [0.2]
  }
  data {
    n_test = 1e3
    model = ["quadratic"]
  }
  learner "tree" { minbucket = 30.0 }
  repetitions = 10
  pipelines { names = ["tree/mia"] }
  pipelines { names = ["tree/mean"] }
  seed = 42
}`
	f, err := Parse([]byte(same), "elsewhere/other.hcl", ParseOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := f.Sweeps[0].Hash(); got != base {
		t.Errorf("hash changed with layout only: %s != %s", got, base)
	}
}

// TestHashSensitivity: changing any one parameter changes the hash, and
// all the changed sweeps differ from one another.
func TestHashSensitivity(t *testing.T) {
	edits := [][2]string{
		{"seed        = 42", "seed = 43"},
		{"repetitions = 10", "repetitions = 11"},
		{`model   = "quadratic"`, `model = "friedman"`},
		{"d       = 9", "d = 8"},
		{"rho     = 0.5", "rho = 0.6"},
		{"noise   = 0.1", "noise = 0.2"},
		{"n_train = 1000", "n_train = 999"},
		{"n_test  = 1000", "n_test = 999"},
		{`mechanism = "mcar"`, `mechanism = "mnar"`},
		{"rate      = 0.2", "rate = 0.3"},
		{"columns   = [1, 2, 3]", "columns = [1, 2, 4]"},
		{`strategies = ["mia", "mean"]`, `strategies = ["mia", "mean+mask"]`},
		{`strategies = ["mia", "mean"]`, `strategies = ["mean", "mia"]`},
		{"minbucket = 30", "minbucket = 31"},
		{"minbucket = 30", "minbucket = 30\n    cp = 0"},
		{"  learner \"tree\" {", "  bayes = true\n  learner \"tree\" {"},
		{`rho     = 0.5`, `rho = [0.5, 0.6]`},
	}
	seen := map[string]int{mustParse(t, hashBase).Sweeps[0].Hash(): -1}
	for i, e := range edits {
		if !strings.Contains(hashBase, e[0]) {
			t.Fatalf("edit %d: %q not in base", i, e[0])
		}
		h := mustParse(t, strings.Replace(hashBase, e[0], e[1], 1)).Sweeps[0].Hash()
		if j, dup := seen[h]; dup {
			t.Errorf("edit %d (%s) has the hash of edit %d", i, e[1], j)
		}
		seen[h] = i
	}
}

// TestMillionJobs: a sweep of 10⁶ jobs expands to 1000 scenarios and
// numbers its jobs arithmetically, repetition-major.
func TestMillionJobs(t *testing.T) {
	s := mustParse(t, millionJobs).Sweeps[0]
	if len(s.Scenarios) != 1000 || s.Jobs() != 1_000_000 {
		t.Fatalf("%d scenarios, %d jobs", len(s.Scenarios), s.Jobs())
	}
	for _, i := range []int{0, 1, 999, 1000, 123_456, 999_999} {
		sc, rep := s.Job(i)
		if sc != i%1000 || rep != i/1000 {
			t.Errorf("Job(%d) = (%d, %d)", i, sc, rep)
		}
	}
}

const millionJobs = `
sweep "big" {
  seed        = 9
  repetitions = 1000
  data {
    model   = "quadratic"
    rho     = [0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9]
    n_train = [100, 200, 300, 400, 500, 600, 700, 800, 900, 1000]
  }
  missingness {
    rate = [0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9]
  }
  pipelines { names = ["tree/mia", "linear/mean"] }
}`

func BenchmarkParseMillionJobs(b *testing.B) {
	src := []byte(millionJobs)
	for b.Loop() {
		if _, err := Parse(src, "big.hcl", ParseOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}

func TestTooManyScenarios(t *testing.T) {
	var vals []string
	for i := range 400 {
		vals = append(vals, strconv.Itoa(100+i))
	}
	list := "[" + strings.Join(vals, ", ") + "]"
	src := `sweep "huge" {
  seed = 1
  repetitions = 1
  data {
    model = "quadratic"
    n_train = ` + list + `
    n_test = ` + list + `
  }
  pipelines { names = ["tree/mia"] }
}`
	_, err := Parse([]byte(src), "huge.hcl", ParseOptions{})
	want := "huge.hcl:4:3: data: the cross product has more than 100000 scenarios; split the sweep"
	if err == nil || err.Error() != want {
		t.Errorf("err = %v, want %s", err, want)
	}
}

func TestWithRepetitions(t *testing.T) {
	f := mustParse(t, hashBase)
	g, err := f.WithRepetitions(3)
	if err != nil {
		t.Fatal(err)
	}
	if f.Sweeps[0].Repetitions != 10 || g.Sweeps[0].Repetitions != 3 || g.Sweeps[0].Jobs() != 3 {
		t.Errorf("reps %d → %d, jobs %d", f.Sweeps[0].Repetitions, g.Sweeps[0].Repetitions, g.Sweeps[0].Jobs())
	}
	if g.Sweeps[0].Hash() == f.Sweeps[0].Hash() {
		t.Error("hash ignores repetitions")
	}
	want := strings.Replace(hashBase, "repetitions = 10", "repetitions = 3", 1)
	if g.Sweeps[0].Hash() != mustParse(t, want).Sweeps[0].Hash() {
		t.Error("WithRepetitions(3) differs from a file with repetitions = 3")
	}
	for _, n := range []int{0, -1} {
		if _, err := f.WithRepetitions(n); !errors.Is(err, ErrInvalid) {
			t.Errorf("WithRepetitions(%d): err = %v", n, err)
		}
	}
	// 1000 scenarios × 100,001 repetitions pass MaxJobs, which a Submit
	// would refuse.
	_, err = mustParse(t, millionJobs).WithRepetitions(MaxJobs/1000 + 1)
	if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "jobs exceed the limit of 100000000") {
		t.Errorf("WithRepetitions past MaxJobs: err = %v", err)
	}
}

// TestSettingsNotShared: each pipeline owns its settings, and what a
// caller gets from Overrides is a copy.
func TestSettingsNotShared(t *testing.T) {
	f, err := Parse([]byte(hashBase), "x.hcl", ParseOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ps := f.Sweeps[0].Pipelines
	if len(ps) != 2 || ps[0].Canonical() != "tree/mia{minbucket=30}" || ps[1].Canonical() != "tree/mean{minbucket=30}" {
		t.Fatalf("pipelines %v", ps)
	}
	ps[0].Overrides()["minbucket"] = 1
	if ps[0].Overrides()["minbucket"] != 30 || ps[1].Resolved()["minbucket"] != 30 {
		t.Error("a pipeline's settings can be changed through a copy")
	}
}
