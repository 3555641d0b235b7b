package grid

import (
	"slices"

	"github.com/hashicorp/hcl/v2/hclsyntax"

	"github.com/misslab/misslab/internal/sim"
)

// Table tasks of a table block's task attribute.
const (
	taskRegression     = "regression"
	taskClassification = "classification"
)

// decodeTableTask reads a table block's task: "regression" (the default
// for a numeric target) or "classification" (the default for a target
// listed in categorical). A classification target is read as categorical
// whether or not categorical lists it.
func (p *parser) decodeTableTask(at hclsyntax.Attributes, blk *tableBlock) bool {
	listed := slices.Contains(blk.categorical.vals, blk.target)
	blk.classify = listed
	a := at["task"]
	if a == nil {
		return true
	}
	task, ok := decodeScalar(&p.ds, a, "table.task", toString)
	switch {
	case !ok:
		return false
	case task == taskClassification:
		blk.classify = true
		if !listed {
			blk.categorical.vals = append(blk.categorical.vals, blk.target)
			blk.categorical.rngs = append(blk.categorical.rngs, a.Expr.Range())
			blk.categorical.set = true
		}
	case task == taskRegression && listed:
		p.ds.add(a.Expr.Range(), "table.task", "task %q, but the target %q is listed in categorical: "+
			"a categorical target is a class label (task %q)", task, blk.target, taskClassification)
		return false
	case task != taskRegression:
		p.ds.add(a.Expr.Range(), "table.task", "task %q is unknown (known: %s, %s)%s", task, taskRegression,
			taskClassification, hint(task, []string{taskRegression, taskClassification}))
		return false
	}
	return true
}

// taskOf is the task of a table's scenarios: binary for a target of two
// classes, multiclass for more, regression without classes.
func taskOf(tf *TableFile) string {
	switch {
	case tf.Classes == nil:
		return ""
	case len(tf.Classes) == 2:
		return sim.Binary
	}
	return sim.Multiclass
}

// classesFit reports a class with too few rows for the split: under
// K-fold every fold must hold each class (stratified folds), so a class
// needs K rows; a hold-out needs 2 (one for training, one that may be
// tested).
func (p *parser) classesFit(b *hclsyntax.Block, ref *sim.TableRef, tf *TableFile) bool {
	need, how := 2, "a hold-out split"
	if ref.Folds >= 2 {
		need, how = ref.Folds, "stratified folds"
	}
	ok := true
	for i, n := range tf.ClassCounts {
		if n < need {
			p.ds.add(b.DefRange(), "table.target", "class %q of target %q has %d rows, fewer than the %d that %s need: "+
				"merge it with another class, drop its rows, or use fewer folds", tf.Classes[i], ref.Target, n, need, how)
			ok = false
		}
	}
	return ok
}

// featuresOnly returns the categorical columns that are features: the
// list without the target (a class label is the task's, not a feature's,
// and the scenario's task says it is categorical; see sim.TableRef).
func featuresOnly(categorical []string, target string) []string {
	if !slices.Contains(categorical, target) {
		return categorical
	}
	return slices.DeleteFunc(slices.Clone(categorical), func(c string) bool { return c == target })
}
