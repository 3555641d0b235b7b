package learn

import (
	"strconv"

	"github.com/misslab/misslab/internal/learn/impute"
)

// RootSplitter is implemented by fitted tree models that can name their
// first split. feature is a column of the matrix the learner was trained
// on (after imputation and mask); ok is false when the root is a leaf.
type RootSplitter interface {
	RootSplit() (feature int, threshold float64, ok bool)
}

// RootSplit names the variable and threshold of the fitted model's first
// split, for the appendix's variable-selection experiment and the
// Proposition 1 threshold. The variable is named in the input's terms:
// "X3" for the third input column (also for its MIA high copy), "M3" for
// its missingness indicator. ok is false when the learner is not a tree
// or its root is a leaf.
func (f *Fitted) RootSplit() (variable string, threshold float64, ok bool) {
	var m any = f.model
	if f.cmodel != nil {
		m = f.cmodel
	}
	rs, isTree := m.(RootSplitter)
	if !isTree {
		return "", 0, false
	}
	j, thr, ok := rs.RootSplit()
	if !ok {
		return "", 0, false
	}
	return f.featureName(j), thr, true
}

// featureName maps a learner column to the input variable it comes from.
// The learner's columns are the d inputs, then the MIA high copies of the
// incomplete columns, then the mask indicators.
func (f *Fitted) featureName(j int) string {
	if j < f.d {
		return "X" + strconv.Itoa(j+1)
	}
	j -= f.d
	if mia, ok := f.imp.(*impute.MIAFit); ok {
		if j < len(mia.Cols) {
			return "X" + strconv.Itoa(mia.Cols[j]+1)
		}
		j -= len(mia.Cols)
	}
	if f.mask != nil && j < len(f.mask.Cols) {
		return "M" + strconv.Itoa(f.mask.Cols[j]+1)
	}
	return "?" + strconv.Itoa(j)
}
