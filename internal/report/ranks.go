package report

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"

	"github.com/misslab/misslab/internal/stats"
)

// rankAlpha is the level of the Nemenyi critical difference drawn in
// the ranks section.
const rankAlpha = 0.05

// rankTable returns the ranks table of the report: one block per
// scenario, one method per pipeline run on every scenario, scored by
// its mean test R² (classification: AUC) over repetitions. ok is false when fewer than two
// scenarios or pipelines qualify.
func rankTable(p *prepared, sums []stats.PipelineSummary) (stats.RankTable, bool) {
	mean := map[[2]string]float64{}
	count := map[string]int{}
	for _, s := range sums {
		if s.R2.N == 0 || s.Pipeline == "bayes/oracle" {
			continue
		}
		mean[[2]string{s.Scenario, s.Pipeline}] = s.R2.Mean
		count[s.Pipeline]++
	}
	var t stats.RankTable
	for pl, n := range count {
		if n == len(p.scen) {
			t.Methods = append(t.Methods, pl)
		}
	}
	slices.Sort(t.Methods)
	for _, sc := range p.scen {
		row := make([]float64, len(t.Methods))
		for j, m := range t.Methods {
			row[j] = mean[[2]string{sc.Key, m}]
		}
		t.Blocks, t.Scores = append(t.Blocks, sc.Title), append(t.Scores, row)
	}
	return t, len(t.Methods) >= 2 && len(t.Blocks) >= 2
}

// rankSection adds the average ranks of the pipelines across the
// report's scenarios (a sweep's scenarios, or every table of a combined
// report), the Friedman test and the critical-difference diagram.
func rankSection(p *prepared, sums []stats.PipelineSummary, add func(section, ...figure)) {
	t, ok := rankTable(p, sums)
	if !ok {
		return
	}
	r, err := stats.Friedman(t, rankAlpha)
	if err != nil {
		return // fewer than two complete blocks: nothing to rank
	}
	order := make([]int, r.K)
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(r.AvgRank[a], r.AvgRank[b]) })
	tb := &table{Head: []string{"pipeline", "average rank", "within CD of the best"}, Num: numCols(3, 1)}
	for _, i := range order {
		within := "yes"
		if r.AvgRank[i]-r.AvgRank[order[0]] >= r.CD {
			within = "no"
		}
		tb.Rows = append(tb.Rows, []string{r.Methods[i], strconv.FormatFloat(r.AvgRank[i], 'f', 2, 64), within})
	}
	text := []string{fmt.Sprintf("Each pipeline's rank by mean "+p.score.name+" within each of %d scenarios (1 = best; ties share their average rank), averaged over the scenarios, for the %d pipelines run on all of them. Friedman χ² = %s (df %d, p = %s); Iman–Davenport F = %s (p = %s). Pipelines whose average ranks differ by less than the Nemenyi critical difference CD = %.3f (α = %g) are not significantly different (Demšar 2006).",
		r.N, r.K, fmtStat(r.Chi2), r.DF, fmtPValue(r.P), fmtStat(r.FF), fmtPValue(r.PFF), r.CD, rankAlpha)}
	f, err := cdFigure("ranks-cd", r, "Average ranks across scenarios")
	if err != nil {
		add(section{ID: "ranks", Heading: "Ranks across scenarios", Level: 2, Text: text, Table: tb})
		return
	}
	f.Section = "ranks"
	add(section{ID: "ranks", Heading: "Ranks across scenarios", Level: 2, Text: text, Table: tb}, f)
}
