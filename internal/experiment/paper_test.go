package experiment

import (
	"context"
	"strings"
	"testing"

	"github.com/misslab/misslab/internal/learn"
	"github.com/misslab/misslab/internal/sim"
)

// TestFigure3MCARRanges runs every learner × strategy of the paper's
// Figure 3 on its MCAR scenario (quadratic model, d = 9, ρ = 0.5, 20% MCAR
// on X1..X3, n = 1000) and checks each mean test R² over two repetitions
// lies in the range the paper's figure shows for its family, and that
// the orderings the paper's text reports hold: forests and boosting beat
// a single tree, and out-of-range imputation under-performs the other
// imputations with trees and with SVMs.
func TestFigure3MCARRanges(t *testing.T) {
	if testing.Short() {
		t.Skip("every Figure 3 pipeline at n = 1000, twice (~17 s); runs without -short, as in CI")
	}
	s := scenario(t, sim.Quadratic, nil)
	ps := Figure3Pipelines()
	const reps = 2
	mean := map[string]float64{}
	for rep := range reps {
		for name, r := range byName(t, Run(context.Background(), Job{Seed: 1, Scenario: s, Rep: rep, Pipelines: ps}, learn.Env{Threads: 2})) {
			mean[name] += r.R2 / reps
		}
	}
	for _, p := range ps {
		lo, hi := figure3Range(p.Name())
		if r2 := mean[p.Name()]; r2 < lo || r2 > hi {
			t.Errorf("%s: mean R² %.3f outside the paper's range [%.2f, %.2f]", p.Name(), r2, lo, hi)
		} else {
			t.Logf("%-22s %.3f", p.Name(), r2)
		}
	}
	for _, learner := range []string{learn.Tree, learn.SVM} {
		oor, mean := mean[learner+"/oor"], mean[learner+"/mean"]
		if oor > mean-0.05 {
			t.Errorf("%s/oor R² %.3f does not under-perform %s/mean %.3f by 0.05", learner, oor, learner, mean)
		}
	}
	for _, strategy := range []string{"mia", "mean", "gaussian+mask"} {
		tree := mean["tree/"+strategy]
		for _, ens := range []string{learn.Forest, learn.Boost} {
			if r2 := mean[ens+"/"+strategy]; r2 < tree+0.05 {
				t.Errorf("%s/%s R² %.3f does not beat tree/%s %.3f by 0.05", ens, strategy, r2, strategy, tree)
			}
		}
	}
}

// figure3Range returns the R² range of a pipeline's family in the MCAR
// panel of the paper's Figure 3, widened by the spread of two
// repetitions. Out-of-range imputation is singled out by the paper as
// under-performing with SVMs.
func figure3Range(name string) (lo, hi float64) {
	learner, strategy, _ := strings.Cut(name, "/")
	switch {
	case learner == learn.Forest || learner == learn.Boost:
		return 0.78, 0.93
	case learner == learn.SVM && strings.HasPrefix(strategy, "oor"):
		return 0.3, 0.85
	case learner == learn.SVM:
		return 0.75, 0.93
	case learner == learn.KNN:
		return 0.55, 0.9
	default: // single trees
		return 0.5, 0.82
	}
}
