package report

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/misslab/misslab/internal/stats"
)

// paperInput mimics the paper's Experiment 1: 3 mechanisms × 40
// pipelines (tree 14, forest 7, boost 7, svm 6, knn 6) × 1000
// repetitions = 120 000 records, with 0.1% failed runs.
func paperInput() Input {
	rng := rand.New(rand.NewPCG(3, 3))
	imp := []string{"mean", "mean+mask", "oor", "oor+mask", "gaussian", "gaussian+mask"}
	fams := map[string][]string{
		"tree":   append([]string{"mia", "surrogate", "surrogate+mask", "block", "prob", "majority", "mia-inf", "block+mask"}, imp...),
		"forest": append([]string{"mia"}, imp...),
		"boost":  append([]string{"mia"}, imp...),
		"svm":    imp, "knn": imp,
	}
	in := Input{Sweep: "paper-exp1", Jobs: Jobs{Planned: 3000, Done: 3000}}
	for s, mech := range []string{"mcar", "mnar", "predictive"} {
		key := "quadratic/" + mech
		in.Scenarios = append(in.Scenarios, Scenario{Key: key, Title: mech, RepsPlanned: 1000,
			Labels: []Label{{"model", "quadratic"}, {"mechanism", mech}, {"rate", "0.2"}}})
		for f, strats := range fams {
			for i, st := range strats {
				for rep := range 1000 {
					r2 := 0.6 + 0.01*float64(i+s) + 0.05*rng.NormFloat64()
					in.Records = append(in.Records, stats.Record{Scenario: key, Rep: rep, Pipeline: f + "/" + st,
						R2: r2, MSE: 1 - r2, FitSeconds: rng.ExpFloat64(), PredictSeconds: rng.ExpFloat64() / 100,
						Failed: rng.IntN(1000) == 0})
				}
			}
		}
	}
	return in
}

// BenchmarkWritePaperSized renders the full report of paperInput:
// 2 box grids, 15 p-value heat maps, 3 timing figures, PNG and SVG.
func BenchmarkWritePaperSized(b *testing.B) {
	in := paperInput()
	if n := len(stats.Pipelines(in.Records)); n != 40 {
		b.Fatal(fmt.Sprint(n, " pipelines"))
	}
	dir := b.TempDir()
	for b.Loop() {
		if _, err := Write(context.Background(), dir, in); err != nil {
			b.Fatal(err)
		}
	}
}
