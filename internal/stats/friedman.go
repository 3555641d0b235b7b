package stats

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/mathext"
	"gonum.org/v1/gonum/stat/distuv"
)

// ErrTooFew is wrapped by Friedman when fewer than two methods or fewer
// than two complete blocks remain.
var ErrTooFew = errors.New("stats: too few methods or blocks")

// ErrShape is wrapped by Friedman when a row of scores does not have one
// score per method, or Blocks does not name every row.
var ErrShape = errors.New("stats: rank table rows do not match its methods")

// RankTable holds one score per method (column) and block (row): a block
// is a data set, table or scenario on which every method was run.
type RankTable struct {
	Methods []string    // method names, one per column
	Blocks  []string    // block names, one per row of Scores; may be nil
	Scores  [][]float64 // Scores[b][m]: higher is better (e.g. R²); NaN = missing
}

// FriedmanResult is the Friedman test of a RankTable with the
// Iman–Davenport correction and the Nemenyi critical difference
// (Demšar 2006, JMLR 7:1–30).
type FriedmanResult struct {
	Methods []string  // as in the table
	AvgRank []float64 // average rank of each method over the blocks used; 1 = best
	N, K    int       // blocks used and methods
	Chi2    float64   // Friedman statistic with R's tie correction
	DF      int       // K − 1
	P       float64   // P(χ²_DF ≥ Chi2)
	FF      float64   // Iman–Davenport statistic (N−1)χ²/(N(K−1) − χ²)
	PFF     float64   // P(F_{K−1, (K−1)(N−1)} ≥ FF)
	CD      float64   // Nemenyi critical difference of average ranks at Alpha
	Alpha   float64   // significance level of CD
}

// Friedman ranks the methods within each block — rank 1 to the highest
// score, tied scores sharing their average rank (R's rank with
// ties.method = "average", applied to −score) — and tests whether all
// methods have the same mean rank. Only complete blocks are used: a block
// with any NaN score is dropped, as R's friedman.test drops incomplete
// rows; ±Inf scores are ranked like any other. alpha (e.g. 0.05) sets the
// level of the Nemenyi critical difference
//
//	CD = q_α·sqrt(K(K+1)/(6N)),  q_α = QTukey(1−α, 1, K, +Inf)/√2,
//
// so two methods whose average ranks differ by at least CD differ
// significantly (Demšar 2006, Section 3.2.2).
//
// Chi2 is R's friedman.test statistic: 12·Σ_j(R_j − N(K+1)/2)² divided
// by NK(K+1) − Σ(t³−t)/(K−1), R_j the rank sums and t the sizes of the
// tie groups. FF uses this Chi2 (Demšar's eq. 2 with the tie-corrected
// statistic); when Chi2 = N(K−1), every block ranking the methods alike,
// FF is +Inf and PFF 0. When every block ties all its methods the
// statistic is 0/0: Chi2, P, FF and PFF are NaN, as in R.
//
// Errors wrap ErrShape (a row's length differs from len(Methods), or
// Blocks is non-nil and its length differs from len(Scores)), ErrTooFew
// (K < 2 or N < 2 after dropping incomplete blocks) or ErrConfLevel
// (alpha outside (0, 1)).
func Friedman(t RankTable, alpha float64) (FriedmanResult, error) {
	k := len(t.Methods)
	if err := checkRankTable(t, alpha); err != nil {
		return FriedmanResult{}, err
	}
	sums := make([]float64, k)
	var n int
	var ties float64
	for _, row := range t.Scores {
		if slices.ContainsFunc(row, math.IsNaN) {
			continue
		}
		r, tie := blockRanks(row)
		for j, v := range r {
			sums[j] += v
		}
		ties += tie
		n++
	}
	if n < 2 {
		return FriedmanResult{}, fmt.Errorf("%w: %d complete blocks of %d, need 2", ErrTooFew, n, len(t.Scores))
	}
	res := FriedmanResult{Methods: slices.Clone(t.Methods), AvgRank: make([]float64, k),
		N: n, K: k, DF: k - 1, Alpha: alpha}
	nf, kf := float64(n), float64(k)
	var ss float64
	for j, s := range sums {
		res.AvgRank[j] = s / nf
		ss += (s - nf*(kf+1)/2) * (s - nf*(kf+1)/2)
	}
	res.Chi2 = 12 * ss / (nf*kf*(kf+1) - ties/(kf-1))
	res.P = distuv.ChiSquared{K: kf - 1}.Survival(res.Chi2)
	res.FF, res.PFF = imanDavenport(res.Chi2, nf, kf)
	res.CD = QTukey(1-alpha, 1, k, math.Inf(1)) / math.Sqrt2 * math.Sqrt(kf*(kf+1)/(6*nf))
	return res, nil
}

func checkRankTable(t RankTable, alpha float64) error {
	k := len(t.Methods)
	if t.Blocks != nil && len(t.Blocks) != len(t.Scores) {
		return fmt.Errorf("%w: %d block names for %d rows", ErrShape, len(t.Blocks), len(t.Scores))
	}
	for b, row := range t.Scores {
		if len(row) != k {
			return fmt.Errorf("%w: row %d has %d scores for %d methods", ErrShape, b, len(row), k)
		}
	}
	if k < 2 {
		return fmt.Errorf("%w: %d methods, need 2", ErrTooFew, k)
	}
	if !(alpha > 0 && alpha < 1) {
		return fmt.Errorf("%w: alpha %v", ErrConfLevel, alpha)
	}
	return nil
}

// blockRanks ranks one block's scores, 1 for the highest, ties sharing
// the mean of their ranks, and returns Σ(t³ − t) over its tie groups.
func blockRanks(scores []float64) (ranks []float64, ties float64) {
	idx := make([]int, len(scores))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int { return cmp.Compare(scores[b], scores[a]) })
	ranks = make([]float64, len(scores))
	for i := 0; i < len(idx); {
		j := i + 1
		for j < len(idx) && scores[idx[j]] == scores[idx[i]] {
			j++
		}
		mean := float64(i+j+1) / 2 // positions i+1 … j
		for _, m := range idx[i:j] {
			ranks[m] = mean
		}
		t := float64(j - i)
		ties += t*t*t - t
		i = j
	}
	return ranks, ties
}

// imanDavenport returns F_F = (N−1)χ²/(N(K−1) − χ²) and its upper-tail
// probability on (K−1, (K−1)(N−1)) degrees of freedom. The tail is the
// regularised incomplete beta I_{d2/(d2+d1·F)}(d2/2, d1/2) taken directly:
// distuv.F's Survival is 1 − CDF, which loses every p-value below 1e-16.
func imanDavenport(chi2, n, k float64) (ff, p float64) {
	if math.IsNaN(chi2) {
		return math.NaN(), math.NaN()
	}
	den := n*(k-1) - chi2
	if den <= 0 {
		return math.Inf(1), 0
	}
	ff = (n - 1) * chi2 / den
	d1, d2 := k-1, (k-1)*(n-1)
	return ff, mathext.RegIncBeta(d2/2, d1/2, d2/(d2+d1*ff))
}

// NemenyiGroups returns the groups of methods whose average ranks all
// differ by less than cd — the maximal cliques of the "not significantly
// different" relation, drawn as bars in a critical-difference diagram.
// Each group lists indices into avgRank from best (lowest) to worst
// average rank, and groups are ordered by their best member. Only groups
// of two or more methods are returned: a method in no group differs
// significantly from every other. NaN ranks are ignored; equal ranks
// sort by index.
func NemenyiGroups(avgRank []float64, cd float64) [][]int {
	var idx []int
	for i, r := range avgRank {
		if !math.IsNaN(r) {
			idx = append(idx, i)
		}
	}
	slices.SortStableFunc(idx, func(a, b int) int { return cmp.Compare(avgRank[a], avgRank[b]) })
	var groups [][]int
	last := 0 // groups end before last are inside an earlier group
	for i := range idx {
		j := i
		for j+1 < len(idx) && avgRank[idx[j+1]]-avgRank[idx[i]] < cd {
			j++
		}
		if j > i && j+1 > last {
			groups = append(groups, slices.Clone(idx[i:j+1]))
			last = j + 1
		}
	}
	return groups
}
