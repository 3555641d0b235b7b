package report

import (
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// The ranks table holds, for the pipelines run on every scenario, the
// average over scenarios of each pipeline's rank by mean test R² (1 =
// best, ties averaged), recomputed here from the records by definition.
func TestRanksTable(t *testing.T) {
	in := goldenInput()
	dir, _ := goldenReport(t)
	page := readFile(t, filepath.Join(dir, "index.html"))
	type key struct{ sc, pl string }
	sum, n := map[key]float64{}, map[key]int{}
	var scens, pipes []string
	for _, r := range in.Records {
		if r.Failed || r.Pipeline == "bayes/oracle" {
			continue
		}
		k := key{r.Scenario, r.Pipeline}
		sum[k] += r.R2
		n[k]++
		if !slices.Contains(scens, r.Scenario) {
			scens = append(scens, r.Scenario)
		}
		if !slices.Contains(pipes, r.Pipeline) {
			pipes = append(pipes, r.Pipeline)
		}
	}
	var common []string
	for _, p := range pipes {
		all := true
		for _, s := range scens {
			all = all && n[key{s, p}] > 0
		}
		if all {
			common = append(common, p)
		}
	}
	if len(common) < 2 {
		t.Fatalf("the golden input has %d pipelines on every scenario", len(common))
	}
	avg := map[string]float64{}
	for _, s := range scens {
		for _, p := range common {
			m := sum[key{s, p}] / float64(n[key{s, p}])
			better, ties := 0.0, 0.0
			for _, q := range common {
				o := sum[key{s, q}] / float64(n[key{s, q}])
				switch {
				case o > m:
					better++
				case o == m:
					ties++
				}
			}
			avg[p] += (better + (ties+1)/2) / float64(len(scens)) // rank with ties averaged
		}
	}
	for _, p := range common {
		row := "<tr><td>" + p + `</td><td class="num">` + strconv.FormatFloat(avg[p], 'f', 2, 64) + "</td>"
		if !strings.Contains(page, row) {
			t.Errorf("index.html lacks the ranks row %s (average rank %.4f)", row, avg[p])
		}
	}
	if math.IsNaN(avg[common[0]]) {
		t.Fatal("NaN rank")
	}
}
