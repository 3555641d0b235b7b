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

// TestAssignStratified: under K-fold each fold holds ⌊n_c/K⌋ or ⌈n_c/K⌉
// rows of every class c and fold sizes differ by at most one; a
// hold-out tests round(f·n) rows with each class's share within one row;
// the assignment is a pure function of (seed, table, repetition, classes).
func TestAssignStratified(t *testing.T) {
	for _, c := range []struct {
		counts []int
		folds  int
		frac   float64
	}{{[]int{500, 268}, 5, 0}, {[]int{7, 3, 11}, 3, 0}, {[]int{40, 40, 1000}, 10, 0}, {[]int{500, 268}, 0, 0.3}, {[]int{5, 2, 13}, 0, 0.25}} {
		var classes []int
		for k, n := range c.counts {
			for range n {
				classes = append(classes, k)
			}
		}
		// interleave so that table order does not follow the classes
		for i := range classes {
			j := (i * 7919) % len(classes)
			classes[i], classes[j] = classes[j], classes[i]
		}
		ref := ref(c.folds, c.frac)
		a := AssignStratified(3, ref, 1, classes)
		if b := AssignStratified(3, ref, 1, classes); !slices.Equal(a, b) {
			t.Fatal("not deterministic")
		}
		if slices.Equal(a, AssignStratified(3, ref, 2, classes)) {
			t.Error("another repetition gives the same folds")
		}
		units := max(c.folds, 1)
		n := len(classes)
		size := make([]int, units)
		perClass := make([][]int, len(c.counts))
		for k := range perClass {
			perClass[k] = make([]int, units)
		}
		for i, f := range a {
			if f == Train {
				continue
			}
			size[f]++
			perClass[classes[i]][f]++
		}
		for k, cnt := range c.counts {
			for f := range units {
				var want float64
				if c.folds >= 2 {
					want = float64(cnt) / float64(c.folds)
				} else {
					want = c.frac * float64(cnt)
				}
				if math.Abs(float64(perClass[k][f])-want) >= 1 {
					t.Errorf("counts %v, folds %d, fraction %v: class %d has %d rows in fold %d, want %.2f within one row",
						c.counts, c.folds, c.frac, k, perClass[k][f], f, want)
				}
			}
		}
		if c.folds >= 2 && slices.Max(size)-slices.Min(size) > 1 {
			t.Errorf("counts %v: fold sizes %v", c.counts, size)
		}
		if c.folds < 2 && size[0] != int(c.frac*float64(n)+0.5) {
			t.Errorf("counts %v: %d test rows, want round(%v·%d)", c.counts, size[0], c.frac, n)
		}
	}
}
