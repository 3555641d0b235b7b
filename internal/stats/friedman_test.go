package stats

// Tests of Friedman and NemenyiGroups. Expected statistics come from R 4.2
// (testdata/friedman/make.R: friedman.test, pf, qtukey); average ranks
// from R's rank(-score), since R ranks the smallest value first and our
// scores are higher-is-better.

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"testing"
)

// goldenRankTables rebuilds the score matrices of scores.csv.
func goldenRankTables(t *testing.T) map[string]RankTable {
	t.Helper()
	tabs := map[string]RankTable{}
	for _, r := range readGolden(t, "friedman/scores.csv") {
		tab := tabs[r["case"]]
		b, m := r.i(t, "block")-1, r.i(t, "method")-1
		for len(tab.Scores) <= b {
			tab.Scores = append(tab.Scores, nil)
		}
		for len(tab.Scores[b]) <= m {
			tab.Scores[b] = append(tab.Scores[b], math.NaN())
		}
		tab.Scores[b][m] = r.f(t, "score")
		for len(tab.Methods) <= m {
			tab.Methods = append(tab.Methods, "m"+strconv.Itoa(len(tab.Methods)+1))
		}
		tabs[r["case"]] = tab
	}
	return tabs
}

func TestGoldenFriedman(t *testing.T) {
	tabs := goldenRankTables(t)
	ranks := map[string][]float64{}
	for _, r := range readGolden(t, "friedman/ranks.csv") {
		ranks[r["case"]] = append(ranks[r["case"]], r.f(t, "avgrank"))
	}
	rows := readGolden(t, "friedman/friedman.csv")
	if len(rows) != len(tabs) {
		t.Fatalf("%d results for %d score tables", len(rows), len(tabs))
	}
	for _, r := range rows {
		name := r["case"]
		for _, alpha := range []float64{0.05, 0.10} {
			res, err := Friedman(tabs[name], alpha)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if res.N != r.i(t, "n") || res.K != r.i(t, "k") || res.DF != r.i(t, "df") {
				t.Errorf("%s: N, K, DF = %d, %d, %d; R says %s, %s, %s", name, res.N, res.K, res.DF, r["n"], r["k"], r["df"])
			}
			check(t, name+" chi2", res.Chi2, r.f(t, "chi2"), 1e-13)
			check(t, name+" p", res.P, r.f(t, "p"), 1e-11)
			check(t, name+" ff", res.FF, r.f(t, "ff"), 1e-12)
			check(t, name+" pff", res.PFF, r.f(t, "pff"), 1e-10)
			cd := map[float64]string{0.05: "cd05", 0.10: "cd10"}[alpha]
			check(t, fmt.Sprintf("%s CD(%g)", name, alpha), res.CD, r.f(t, cd), tolR)
			for j, want := range ranks[name] {
				check(t, fmt.Sprintf("%s AvgRank[%d]", name, j), res.AvgRank[j], want, 1e-14)
			}
		}
	}
}

// Hand-computed cases: the ranking direction, ties, dropped blocks.
func TestFriedmanRanks(t *testing.T) {
	nan := math.NaN()
	cases := []struct {
		name   string
		scores [][]float64
		n      int
		avg    []float64
		chi2   float64
	}{
		// Higher is better: the largest score gets rank 1 in every block.
		{"direction", [][]float64{{0.9, 0.5, 0.7}, {0.8, 0.1, 0.6}}, 2, []float64{1, 3, 2}, 4},
		// Ties share their mean rank; block 2 has ties 1.5, 1.5, 3 so
		// Σ(t³−t) = 6 and the denominator is 2·3·4 − 6/2 = 21.
		{"ties", [][]float64{{3, 2, 1}, {5, 5, 1}}, 2, []float64{1.25, 1.75, 3}, 12 * (1.5*1.5 + 0.5*0.5 + 2*2) / 21},
		// A block with a NaN is dropped whole.
		{"nan", [][]float64{{1, 2, 3}, {nan, 9, 0}, {1, 2, 3}}, 2, []float64{3, 2, 1}, 4},
		// ±Inf are ordinary scores.
		{"inf", [][]float64{{math.Inf(-1), 0, math.Inf(1)}, {-1, 0, 1}}, 2, []float64{3, 2, 1}, 4},
	}
	for _, c := range cases {
		res, err := Friedman(RankTable{Methods: []string{"a", "b", "c"}, Scores: c.scores}, 0.05)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if res.N != c.n || !slices.Equal(res.AvgRank, c.avg) || math.Abs(res.Chi2-c.chi2) > 1e-14 {
			t.Errorf("%s: N %d, AvgRank %v, Chi2 %v; want %d, %v, %v", c.name, res.N, res.AvgRank, res.Chi2, c.n, c.avg, c.chi2)
		}
	}
}

// Demšar (2006), Section 3.2.2, compares four methods on N = 14 data
// sets: average ranks 3.143, 2.000, 2.893, 1.964 give χ²_F = 9.28,
// F_F = 3.69 and, at α = 0.05, CD = 2.569·sqrt(4·5/(6·14)) = 1.25.
func TestFriedmanDemsarExample(t *testing.T) {
	ff, _ := imanDavenport(9.28, 14, 4)
	if math.Abs(ff-3.69) > 0.005 {
		t.Errorf("F_F(9.28, N=14, k=4) = %.4f, Demšar prints 3.69", ff)
	}
	scores := make([][]float64, 14)
	for i := range scores {
		scores[i] = []float64{float64(i % 4), 1, 2, 3}
	}
	res, err := Friedman(RankTable{Methods: []string{"a", "b", "c", "d"}, Scores: scores}, 0.05)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(res.CD-1.25) > 0.005 {
		t.Errorf("CD(k=4, N=14, α=0.05) = %.4f, Demšar prints 1.25", res.CD)
	}
}

func TestFriedmanDegenerate(t *testing.T) {
	// All methods tied in every block: R's statistic is 0/0.
	tied, err := Friedman(RankTable{Methods: []string{"a", "b"}, Scores: [][]float64{{1, 1}, {2, 2}}}, 0.05)
	if err != nil {
		t.Fatal(err)
	}
	if !math.IsNaN(tied.Chi2) || !math.IsNaN(tied.P) || !math.IsNaN(tied.FF) || !math.IsNaN(tied.PFF) {
		t.Errorf("all tied: Chi2 %v P %v FF %v PFF %v, want NaN", tied.Chi2, tied.P, tied.FF, tied.PFF)
	}
	if !slices.Equal(tied.AvgRank, []float64{1.5, 1.5}) {
		t.Errorf("all tied: AvgRank %v", tied.AvgRank)
	}
	// Every block ranks alike: χ² = N(K−1) and F_F is infinite.
	same, err := Friedman(RankTable{Methods: []string{"a", "b", "c"}, Scores: [][]float64{{3, 2, 1}, {6, 5, 4}, {9, 8, 7}}}, 0.05)
	if err != nil {
		t.Fatal(err)
	}
	if same.Chi2 != 6 || !math.IsInf(same.FF, 1) || same.PFF != 0 {
		t.Errorf("unanimous: Chi2 %v FF %v PFF %v, want 6, +Inf, 0", same.Chi2, same.FF, same.PFF)
	}
}

func TestFriedmanErrors(t *testing.T) {
	nan := math.NaN()
	two := []string{"a", "b"}
	cases := []struct {
		name  string
		tab   RankTable
		alpha float64
		want  error
	}{
		{"one method", RankTable{Methods: []string{"a"}, Scores: [][]float64{{1}, {2}}}, 0.05, ErrTooFew},
		{"one block", RankTable{Methods: two, Scores: [][]float64{{1, 2}}}, 0.05, ErrTooFew},
		{"one complete block", RankTable{Methods: two, Scores: [][]float64{{1, 2}, {nan, 1}}}, 0.05, ErrTooFew},
		{"no blocks", RankTable{Methods: two}, 0.05, ErrTooFew},
		{"short row", RankTable{Methods: two, Scores: [][]float64{{1, 2}, {1}}}, 0.05, ErrShape},
		{"block names", RankTable{Methods: two, Blocks: []string{"x"}, Scores: [][]float64{{1, 2}, {2, 1}}}, 0.05, ErrShape},
		{"alpha 0", RankTable{Methods: two, Scores: [][]float64{{1, 2}, {2, 1}}}, 0, ErrConfLevel},
		{"alpha NaN", RankTable{Methods: two, Scores: [][]float64{{1, 2}, {2, 1}}}, nan, ErrConfLevel},
	}
	for _, c := range cases {
		if _, err := Friedman(c.tab, c.alpha); !errors.Is(err, c.want) {
			t.Errorf("%s: error %v, want %v", c.name, err, c.want)
		}
	}
}

func TestNemenyiGroups(t *testing.T) {
	cases := []struct {
		name string
		rank []float64
		cd   float64
		want [][]int
	}{
		{"chain", []float64{1, 2, 3, 4}, 1.5, [][]int{{0, 1}, {1, 2}, {2, 3}}},
		{"two blocks", []float64{1, 1.2, 1.4, 3, 3.1}, 0.5, [][]int{{0, 1, 2}, {3, 4}}},
		{"all", []float64{2, 1, 3}, 10, [][]int{{1, 0, 2}}},
		{"none", []float64{1, 2, 3}, 0.1, nil},
		// A difference equal to CD is significant.
		{"boundary", []float64{1, 2}, 1, nil},
		{"unsorted with NaN", []float64{3, math.NaN(), 1, 2}, 1.01, [][]int{{2, 3}, {3, 0}}},
		{"equal ranks by index", []float64{2, 1, 1}, 0.5, [][]int{{1, 2}}},
		{"nested window dropped", []float64{1, 1.1, 1.2, 5}, 0.3, [][]int{{0, 1, 2}}},
		// Demšar (2006) Figure 1: ranks 3.143, 2.000, 2.893, 1.964; at
		// α = 0.10 (CD = 1.12) C4.5 (index 0) is worse than C4.5+m+cf
		// (index 3) and both connect to the two middle methods.
		{"demsar 0.10", []float64{3.143, 2.000, 2.893, 1.964}, 1.12, [][]int{{3, 1, 2}, {2, 0}}},
		// At α = 0.05 (CD = 1.25) no difference is significant.
		{"demsar 0.05", []float64{3.143, 2.000, 2.893, 1.964}, 1.25, [][]int{{3, 1, 2, 0}}},
	}
	for _, c := range cases {
		got := NemenyiGroups(c.rank, c.cd)
		if !slices.EqualFunc(got, c.want, slices.Equal[[]int]) {
			t.Errorf("%s: NemenyiGroups(%v, %g) = %v, want %v", c.name, c.rank, c.cd, got, c.want)
		}
	}
}
