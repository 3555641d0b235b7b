package ampute

import (
	"errors"
	"math"
	"strings"
	"sync"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestValidate checks each rule of Spec.Validate and the key it names.
func TestValidate(t *testing.T) {
	cases := []struct {
		name string
		s    Spec
		want string // "" for valid, else a substring of the error
	}{
		{"none", Spec{Mechanism: None}, ""},
		{"none with columns", Spec{Mechanism: None, Amputed: []int{0, 3}}, ""},
		{"mcar", Spec{Mechanism: MCAR, Rate: 0.2, Amputed: []int{0, 1, 2, 3}}, ""},
		{"mar", Spec{Mechanism: MAR, Rate: 0.4, Amputed: []int{0, 1, 2}}, ""},
		{"mnar all", Spec{Mechanism: MNAR, Rate: 0.4, Amputed: []int{0, 1, 2, 3}}, ""},
		{"unknown", Spec{Mechanism: "MAR", Rate: 0.2, Amputed: []int{0}}, "mechanism"},
		{"none with rate", Spec{Mechanism: None, Rate: 0.2}, "rate"},
		{"rate 0", Spec{Mechanism: MCAR, Amputed: []int{0}}, "rate"},
		{"rate 1", Spec{Mechanism: SelfMasking, Rate: 1, Amputed: []int{0}}, "rate"},
		{"rate NaN", Spec{Mechanism: Censoring, Rate: math.NaN(), Amputed: []int{0}}, "rate"},
		{"no columns", Spec{Mechanism: MCAR, Rate: 0.2}, "columns"},
		{"out of range", Spec{Mechanism: MCAR, Rate: 0.2, Amputed: []int{0, 4}}, "feature 4 out of range"},
		{"negative", Spec{Mechanism: MCAR, Rate: 0.2, Amputed: []int{-1}}, "feature -1"},
		{"unsorted", Spec{Mechanism: MCAR, Rate: 0.2, Amputed: []int{2, 1}}, "strictly increasing"},
		{"duplicate", Spec{Mechanism: MCAR, Rate: 0.2, Amputed: []int{1, 1}}, "strictly increasing"},
		{"mar all", Spec{Mechanism: MAR, Rate: 0.2, Amputed: []int{0, 1, 2, 3}}, "columns: mar needs at least one feature"},
	}
	for _, c := range cases {
		err := c.s.Validate(4)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: %v", c.name, err)
		case c.want != "" && (!errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%s: error %v, want ErrInvalid naming %q", c.name, err, c.want)
		}
	}
}

// TestParseMechanism round-trips every name and rejects others.
func TestParseMechanism(t *testing.T) {
	for _, m := range Mechanisms {
		if got, err := ParseMechanism(string(m)); got != m || err != nil {
			t.Errorf("ParseMechanism(%q) = %q, %v", m, got, err)
		}
	}
	if _, err := ParseMechanism("selfmasking"); !errors.Is(err, ErrInvalid) {
		t.Errorf("ParseMechanism(selfmasking) error %v, want ErrInvalid", err)
	}
}

// TestErrors checks the errors of Fit and Apply on unusable input.
func TestErrors(t *testing.T) {
	Z := gaussian(50, 3, 0, 21)
	nanCol := mat.DenseCopyOf(Z)
	infZ := mat.DenseCopyOf(Z)
	infZ.Set(7, 1, math.Inf(1))
	for i := 0; i < 50; i++ {
		nanCol.Set(i, 2, math.NaN())
	}
	cat, catGroups, _ := categorical(Z, 0, 22)
	mcar := Spec{Mechanism: MCAR, Rate: 0.2, Amputed: []int{2}}
	cases := []struct {
		name   string
		Z      *mat.Dense
		groups [][]int
		s      Spec
		noRNG  bool
		is     error
		want   string
	}{
		{"nil Z", nil, singletons(3), mcar, false, ErrData, "nil"},
		{"no groups", Z, nil, mcar, false, ErrData, "no feature groups"},
		{"empty group", Z, [][]int{{0}, {}, {2}}, mcar, false, ErrData, "feature 1 has no column"},
		{"column out of range", Z, [][]int{{0}, {1}, {3}}, mcar, false, ErrData, "feature 2: column 3"},
		{"shared column", Z, [][]int{{0}, {1}, {1}}, mcar, false, ErrData, "already belongs"},
		{"spec", Z, singletons(3), Spec{Mechanism: MCAR, Rate: 0.2, Amputed: []int{3}}, false, ErrInvalid, "columns"},
		{"infinite", infZ, singletons(3), mcar, false, ErrData, "row 7, column 1"},
		{"no observed value", nanCol, singletons(3), Spec{Mechanism: SelfMasking, Rate: 0.2, Amputed: []int{2}}, false, ErrData, "feature 2 has no observed"},
		{"categorical censored", cat, catGroups, Spec{Mechanism: Censoring, Rate: 0.2, Amputed: []int{3}}, false, ErrInvalid, "feature 3 is categorical"},
		{"nil rng", Z, singletons(3), Spec{Mechanism: MAR, Rate: 0.2, Amputed: []int{2}}, true, ErrInvalid, "rng"},
	}
	for _, c := range cases {
		r := rng(1)
		if c.noRNG {
			r = nil
		}
		_, err := Fit(c.Z, c.groups, c.s, r)
		if !errors.Is(err, c.is) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %v naming %q", c.name, err, c.is, c.want)
		}
	}
	if _, err := Fit(nanCol, singletons(3), mcar, nil); err != nil {
		t.Errorf("mcar needs no observed value nor rng: %v", err)
	}
	m, err := Fit(Z, singletons(3), Spec{Mechanism: MNAR, Rate: 0.3, Amputed: []int{1}}, rng(2))
	if err != nil {
		t.Fatal(err)
	}
	for _, bad := range []*mat.Dense{nil, gaussian(5, 4, 0, 23), gaussian(5, 2, 0, 24), infZ} {
		if _, err := m.Apply(bad, rng(3)); !errors.Is(err, ErrData) {
			t.Errorf("Apply on a bad Z: error %v, want ErrData", err)
		}
	}
	if _, err := m.Apply(Z, nil); !errors.Is(err, ErrInvalid) {
		t.Errorf("Apply with a nil rng: error %v, want ErrInvalid", err)
	}
}

// TestNaturalNA: natural NA are never amputed nor counted, the rate among
// observed entries is still Rate, and NaN predictors are usable.
func TestNaturalNA(t *testing.T) {
	n := sampleSize(40_000)
	Z := gaussian(n, 4, 0.5, 25)
	r := rng(26)
	for i := 0; i < n; i++ {
		for j := 0; j < 4; j++ {
			if r.Float64() < 0.15 {
				Z.Set(i, j, math.NaN())
			}
		}
	}
	for _, mech := range Mechanisms[1:] {
		s := Spec{Mechanism: mech, Rate: 0.3, Amputed: []int{0, 1, 3}}
		_, mask := fitApply(t, Z, singletons(4), s, 27)
		for _, f := range s.Amputed {
			hits, obs := 0, 0
			for i := 0; i < n; i++ {
				na := math.IsNaN(Z.At(i, f))
				if na && mask.Amputed(i, f) {
					t.Fatalf("%s: natural NA at row %d feature %d amputed", mech, i, f)
				}
				if !na {
					obs++
				}
				if mask.Amputed(i, f) {
					hits++
				}
			}
			if hits != mask.Count(f) {
				t.Errorf("%s feature %d: Count %d, %d bits set", mech, f, mask.Count(f), hits)
			}
			near(t, string(mech)+" rate among observed", float64(hits)/float64(obs), 0.3, math.Sqrt(0.21/float64(obs)), 4)
		}
	}
}

// TestDraws: Apply consumes exactly one uniform per (row, amputed
// feature), NA or not, so the same seed gives the same mask and the
// stream ends where n·k Float64 calls leave it.
func TestDraws(t *testing.T) {
	Z := gaussian(500, 4, 0.5, 28)
	for i := 0; i < 500; i += 3 {
		Z.Set(i, 1, math.NaN())
	}
	for _, mech := range []Mechanism{MCAR, MAR, MNAR, SelfMasking} {
		m, err := Fit(Z, singletons(4), Spec{Mechanism: mech, Rate: 0.3, Amputed: []int{1, 2}}, rng(29))
		if err != nil {
			t.Fatal(err)
		}
		r1, r2, ref := rng(30), rng(30), rng(30)
		a, _ := m.Apply(Z, r1)
		b, _ := m.Apply(Z, r2)
		for i := 0; i < 500*2; i++ {
			ref.Float64()
		}
		if got, want := r1.Uint64(), ref.Uint64(); got != want {
			t.Errorf("%s: the stream after Apply is not the one after 1000 draws", mech)
		}
		if !sameMask(a, b) {
			t.Errorf("%s: the same seed gave different masks", mech)
		}
		if c, _ := m.Apply(Z, rng(31)); sameMask(a, c) {
			t.Errorf("%s: different seeds gave the same mask", mech)
		}
	}
}

func sameMask(a, b *Mask) bool {
	if a.Rows != b.Rows || a.Features != b.Features {
		return false
	}
	for i := 0; i < a.Rows; i++ {
		for f := 0; f < a.Features; f++ {
			if a.Amputed(i, f) != b.Amputed(i, f) {
				return false
			}
		}
	}
	return true
}

// TestFitOnTrainOnly: two tables with the same training rows and
// different test rows give models whose masks agree on the training rows
// and on any common rows, for every mechanism.
func TestFitOnTrainOnly(t *testing.T) {
	full1 := gaussian(1000, 4, 0.5, 32)
	full2 := mat.DenseCopyOf(full1)
	shift := gaussian(200, 4, 0.9, 33)
	for i := 0; i < 200; i++ {
		for j := 0; j < 4; j++ {
			full2.Set(800+i, j, 3*shift.At(i, j)+2)
		}
	}
	train1 := full1.Slice(0, 800, 0, 4).(*mat.Dense)
	train2 := full2.Slice(0, 800, 0, 4).(*mat.Dense)
	for _, mech := range Mechanisms[1:] {
		s := Spec{Mechanism: mech, Rate: 0.3, Amputed: []int{0, 2}}
		m1, _ := Fit(train1, singletons(4), s, rng(34))
		m2, _ := Fit(train2, singletons(4), s, rng(34))
		for _, Z := range []*mat.Dense{train1, full1.Slice(800, 1000, 0, 4).(*mat.Dense)} {
			a, _ := m1.Apply(Z, rng(35))
			b, _ := m2.Apply(Z, rng(35))
			if !sameMask(a, b) {
				t.Errorf("%s: models fitted on the same training rows disagree", mech)
			}
		}
	}
}

// TestNone: mechanism none amputes nothing and needs no rng.
func TestNone(t *testing.T) {
	Z := gaussian(100, 3, 0, 36)
	m, err := Fit(Z, singletons(3), Spec{Mechanism: None, Amputed: []int{0, 1}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	mask, err := m.Apply(Z, nil)
	if err != nil {
		t.Fatal(err)
	}
	for f := 0; f < 3; f++ {
		if mask.Count(f) != 0 {
			t.Errorf("feature %d: %d amputed under none", f, mask.Count(f))
		}
	}
}

// TestConcurrentApply: Apply from several goroutines gives the masks of
// sequential calls (run with -race).
func TestConcurrentApply(t *testing.T) {
	Z := gaussian(2000, 5, 0.5, 37)
	m, err := Fit(Z, singletons(5), Spec{Mechanism: MNAR, Rate: 0.3, Amputed: []int{0, 1, 4}}, rng(38))
	if err != nil {
		t.Fatal(err)
	}
	const k = 8
	var got [k]*Mask
	var wg sync.WaitGroup
	for g := range k {
		wg.Go(func() { got[g], _ = m.Apply(Z, rng(uint64(g))) })
	}
	wg.Wait()
	for g := range k {
		want, _ := m.Apply(Z, rng(uint64(g)))
		if got[g] == nil || !sameMask(got[g], want) {
			t.Errorf("goroutine %d: mask differs from a sequential Apply", g)
		}
	}
}
