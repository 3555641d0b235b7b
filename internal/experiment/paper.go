package experiment

import (
	"github.com/misslab/misslab/internal/grid"
	"github.com/misslab/misslab/internal/learn"
)

// Figure3Pipelines returns the learner × strategy pairs of the paper's
// Figure 3 (Section 5.2), 37 pipelines at their paper defaults, learner
// family by family: the unit of work of examples/figure3.hcl, which the
// benchmarks time and plan.DefaultCostModel's levels were set on.
func Figure3Pipelines() []grid.Pipeline {
	var out []grid.Pipeline
	add := func(learner string, strategies ...string) {
		for _, s := range strategies {
			out = append(out, grid.MustPipeline(learner+"/"+s, nil))
		}
	}
	imputers := []string{"mean", "mean+mask", "oor", "oor+mask", "gaussian", "gaussian+mask"}
	add(learn.Tree, append([]string{"mia", "surrogate", "surrogate+mask"}, imputers...)...)
	add(learn.CTree, "majority", "majority+mask")
	add(learn.Forest, append([]string{"mia"}, imputers...)...)
	add(learn.Boost, append([]string{"mia"}, imputers...)...)
	add(learn.SVM, imputers...)
	add(learn.KNN, imputers...)
	return out
}
