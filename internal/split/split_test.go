package split

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/misslab/misslab/internal/sim"
)

func ref(folds int, frac float64) *sim.TableRef {
	return &sim.TableRef{SHA256: strings.Repeat("0f", 32), Target: "y", Folds: folds, TestFraction: frac}
}

func TestAssignKFold(t *testing.T) {
	for _, c := range []struct{ n, k int }{{10, 2}, {11, 5}, {153, 5}, {1000, 10}, {7, 3}} {
		a := Assign(1, ref(c.k, 0), 0, c.n)
		sizes := make([]int, c.k)
		for _, f := range a {
			if f < 0 || f >= c.k {
				t.Fatalf("n=%d k=%d: fold %d out of range", c.n, c.k, f)
			}
			sizes[f]++
		}
		lo, hi := c.n/c.k, (c.n+c.k-1)/c.k
		for f, s := range sizes {
			if s < lo || s > hi {
				t.Errorf("n=%d k=%d: fold %d has %d rows, want %d..%d", c.n, c.k, f, s, lo, hi)
			}
		}
		train, test := Rows(a, 1)
		if len(train)+len(test) != c.n || len(test) != sizes[1] || !slices.IsSorted(train) || !slices.IsSorted(test) {
			t.Errorf("Rows: %d train + %d test", len(train), len(test))
		}
	}
}

func TestAssignHoldOut(t *testing.T) {
	a := Assign(3, ref(0, 0.3), 2, 101)
	test := 0
	for _, f := range a {
		switch f {
		case 0:
			test++
		case Train:
		default:
			t.Fatalf("hold-out assignment %d", f)
		}
	}
	if test != 30 { // round(0.3 × 101) = 30
		t.Errorf("test rows = %d, want 30", test)
	}
}

// The split depends on (seed, table, split, repetition) only, and each
// row is equally likely to land in each fold: over many repetitions the
// share of repetitions in which row 0 is in fold 0 is 1/K within
// binomial error.
func TestAssignDeterministicAndUniform(t *testing.T) {
	r := ref(5, 0)
	if !slices.Equal(Assign(7, r, 3, 50), Assign(7, r, 3, 50)) {
		t.Fatal("same inputs, different folds")
	}
	other := *r
	other.Name, other.Categorical = "renamed.csv", []string{"x"}
	if !slices.Equal(Assign(7, r, 3, 50), Assign(7, &other, 3, 50)) {
		t.Error("the file name or column types changed the folds")
	}
	for _, diff := range []func() []int{
		func() []int { return Assign(8, r, 3, 50) },
		func() []int { return Assign(7, r, 4, 50) },
		func() []int { x := *r; x.SHA256 = strings.Repeat("1f", 32); return Assign(7, &x, 3, 50) },
	} {
		if slices.Equal(Assign(7, r, 3, 50), diff()) {
			t.Error("a different seed, repetition or table gave the same folds")
		}
	}
	const reps = 4000
	hits := 0
	for rep := range reps {
		if Assign(1, r, rep, 23)[0] == 0 {
			hits++
		}
	}
	p := 0.2
	if se := math.Sqrt(p * (1 - p) / reps); math.Abs(float64(hits)/reps-p) > 4*se {
		t.Errorf("row 0 in fold 0 in %d of %d repetitions, want %.0f ± %.0f", hits, reps, p*reps, 4*se*reps)
	}
}
