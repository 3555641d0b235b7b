package table

import (
	"math"
	"slices"

	"gonum.org/v1/gonum/mat"

	"github.com/misslab/misslab/internal/suggest"
)

// Spec says how a Table becomes a design: the target column and, as in
// Options, columns to leave out and columns that must be categorical.
type Spec struct {
	// Target names the column to predict; it must be kept and not in
	// Drop. Without Classify it must be numeric; with Classify it must
	// be categorical (read with Options.Categorical) and its levels are
	// the classes.
	Target string
	// Classify makes the target a class label: Design.Y holds class
	// codes and Design.Classes their levels.
	Classify bool
	// Drop names columns left out of the features; a name the table
	// dropped when it was read is accepted.
	Drop []string
	// Categorical names columns that must have been read as categorical
	// (Options.Categorical); every categorical column of the table is a
	// categorical feature whether listed here or not.
	Categorical []string
}

// Design is a numeric design matrix with its target.
type Design struct {
	// X is n × p: one row per row of the table whose target is not NA,
	// one column per entry of Labels. Numeric features keep NaN for NA;
	// indicator columns are 0 or 1, never NaN.
	X *mat.Dense
	// Y holds the n targets, all finite.
	Y []float64
	// Rows holds the 0-based data-row index in the file of each design row.
	Rows []int
	// Features are the raw feature names in file order: the kept
	// columns minus the target and Spec.Drop.
	Features []string
	// Groups[f] lists the design columns of feature f: one for a numeric
	// feature; for a categorical one with L levels, L+1: one indicator
	// per level (in Levels order), then one for NA.
	Groups [][]int
	// Labels names the p design columns: "Wind" for a numeric feature,
	// "Month=5" for a level and "Month=NA" for the NA indicator (which is
	// always present, so the shape does not depend on the rows; it is
	// "Month=<NA>" if "NA" is one of the levels).
	Labels []string
	// Categorical says, per feature, whether it is categorical.
	Categorical []bool
	// DroppedNA counts the rows left out because their target is NA.
	DroppedNA int
	// Classes are the levels of a classification target (Spec.Classify),
	// sorted by byte order; Y holds each row's index into them (0, 1, …).
	// Nil for regression.
	Classes []string
}

// Design builds the design for spec. Errors wrap ErrTarget (target
// unknown, dropped, categorical, NA on all but one row, or constant) or
// ErrColumn (an unknown name in Drop or Categorical, a name in both, a
// Categorical name the table read as numeric, a categorical feature with
// fewer than two levels, or no feature left). Unknown names come with the
// closest existing name when one is close.
func (t *Table) Design(spec Spec) (*Design, error) {
	d, feats, err := t.shape(spec)
	if err != nil {
		return nil, err
	}
	d.fill(feats)
	return d, nil
}

// Shape is Design without X: the checks, Y, Rows, Features, Groups,
// Labels, Categorical and DroppedNA, for a caller that validates a spec
// or needs only which rows have a target (the grid parser, the
// coordinator), without allocating the n × p matrix.
func (t *Table) Shape(spec Spec) (*Design, error) {
	d, _, err := t.shape(spec)
	return d, err
}

// shape builds everything of the design but X, and returns the feature
// columns fill needs.
func (t *Table) shape(spec Spec) (*Design, []*Column, error) {
	target, err := t.checkSpec(spec)
	if err != nil {
		return nil, nil, err
	}
	feats, err := t.features(spec)
	if err != nil {
		return nil, nil, err
	}
	d := &Design{}
	if spec.Classify {
		if err := d.classes(t.Name, target); err != nil {
			return nil, nil, err
		}
		d.layout(feats)
		return d, feats, nil
	}
	for i, v := range target.Num {
		if math.IsNaN(v) {
			d.DroppedNA++
			continue
		}
		d.Rows = append(d.Rows, i)
		d.Y = append(d.Y, v)
	}
	if len(d.Y) < 2 {
		return nil, nil, errorf(ErrTarget, "%s: target %q has %d rows that are not NA; at least 2 are needed",
			t.Name, spec.Target, len(d.Y))
	}
	if slices.Min(d.Y) == slices.Max(d.Y) {
		return nil, nil, errorf(ErrTarget, "%s: target %q is constant: it is %v on every row where it is not NA",
			t.Name, spec.Target, d.Y[0])
	}
	d.layout(feats)
	return d, feats, nil
}

// checkSpec validates the names of spec and returns the target column.
func (t *Table) checkSpec(spec Spec) (*Column, error) {
	switch {
	case spec.Target == "":
		return nil, errorf(ErrTarget, "%s: no target column is named", t.Name)
	case !slices.Contains(t.AllNames, spec.Target):
		return nil, errorf(ErrTarget, "%s: target %q is not a column of the table%s",
			t.Name, spec.Target, suggest.Hint(spec.Target, t.AllNames))
	case slices.Contains(spec.Drop, spec.Target) || t.column(spec.Target) == nil:
		return nil, errorf(ErrTarget, "%s: target %q is dropped", t.Name, spec.Target)
	case !spec.Classify && (slices.Contains(spec.Categorical, spec.Target) || t.column(spec.Target).Kind != Numeric):
		return nil, errorf(ErrTarget, "%s: target %q is categorical: a categorical target is a class label "+
			"(a classification task); a regression's target must be numeric", t.Name, spec.Target)
	case spec.Classify && t.column(spec.Target).Kind != Categorical:
		return nil, errorf(ErrTarget, "%s: target %q was read as numeric; a class label must be read as categorical "+
			"(list it in categorical)", t.Name, spec.Target)
	}
	if err := checkLists(t.Name, t.AllNames, spec.Drop, spec.Categorical); err != nil {
		return nil, err
	}
	for _, n := range spec.Categorical {
		switch c := t.column(n); {
		case c == nil:
			return nil, errorf(ErrColumn, "%s: categorical column %q was dropped when the table was read", t.Name, n)
		case c.Kind != Categorical:
			return nil, errorf(ErrColumn, "%s: column %q was read as numeric; read the table with it listed in categorical", t.Name, n)
		}
	}
	return t.column(spec.Target), nil
}

// features returns the feature columns in file order.
func (t *Table) features(spec Spec) ([]*Column, error) {
	var feats []*Column
	for i := range t.Columns {
		c := &t.Columns[i]
		if c.Name == spec.Target || slices.Contains(spec.Drop, c.Name) {
			continue
		}
		if c.Kind == Categorical && len(c.Levels) < 2 {
			if len(c.Levels) == 0 {
				return nil, errorf(ErrColumn, "%s: categorical column %q has no level (every cell is NA); drop it", t.Name, c.Name)
			}
			return nil, errorf(ErrColumn, "%s: categorical column %q has a single level, %q; drop it", t.Name, c.Name, c.Levels[0])
		}
		feats = append(feats, c)
	}
	if len(feats) == 0 {
		return nil, errorf(ErrColumn, "%s: no feature is left once the target %q and the dropped columns are taken out", t.Name, spec.Target)
	}
	return feats, nil
}

// layout sets Features, Categorical, Groups and Labels.
func (d *Design) layout(feats []*Column) {
	for _, c := range feats {
		d.Features = append(d.Features, c.Name)
		d.Categorical = append(d.Categorical, c.Kind == Categorical)
		p := len(d.Labels)
		if c.Kind == Numeric {
			d.Groups = append(d.Groups, []int{p})
			d.Labels = append(d.Labels, c.Name)
			continue
		}
		g := make([]int, len(c.Levels)+1)
		for k, l := range c.Levels {
			g[k] = p + k
			d.Labels = append(d.Labels, c.Name+"="+l)
		}
		g[len(c.Levels)] = p + len(c.Levels)
		na := "NA"
		if slices.Contains(c.Levels, na) {
			na = "<NA>"
		}
		d.Labels = append(d.Labels, c.Name+"="+na)
		d.Groups = append(d.Groups, g)
	}
}

// fill builds X from the feature columns at d.Rows.
func (d *Design) fill(feats []*Column) {
	n, p := len(d.Rows), len(d.Labels)
	data := make([]float64, n*p)
	for f, c := range feats {
		g := d.Groups[f]
		for i, r := range d.Rows {
			row := data[i*p : (i+1)*p]
			switch {
			case c.Kind == Numeric:
				row[g[0]] = c.Num[r]
			case c.Codes[r] < 0:
				row[g[len(g)-1]] = 1
			default:
				row[g[c.Codes[r]]] = 1
			}
		}
	}
	d.X = mat.NewDense(n, p, data)
}

// classes sets the rows, codes and classes of a classification target:
// the rows whose label is not NA, Y their codes into the target's levels.
// Errors wrap ErrTarget: fewer than two levels, or fewer than two rows
// with a label.
func (d *Design) classes(name string, target *Column) error {
	for i, c := range target.Codes {
		if c < 0 {
			d.DroppedNA++
			continue
		}
		d.Rows = append(d.Rows, i)
		d.Y = append(d.Y, float64(c))
	}
	d.Classes = slices.Clone(target.Levels)
	switch {
	case len(d.Classes) < 2:
		return errorf(ErrTarget, "%s: target %q has %d class (levels %q); a classification needs at least 2",
			name, target.Name, len(d.Classes), d.Classes)
	case len(d.Y) < 2:
		return errorf(ErrTarget, "%s: target %q has %d rows that are not NA; at least 2 are needed", name, target.Name, len(d.Y))
	}
	return nil
}

// ClassCounts returns the number of rows of each class of a
// classification design (indexed like Classes), nil for regression.
func (d *Design) ClassCounts() []int {
	if d.Classes == nil {
		return nil
	}
	n := make([]int, len(d.Classes))
	for _, y := range d.Y {
		n[int(y)]++
	}
	return n
}

// ReadSpec returns the reading options' categorical columns and the
// design spec of a table whose target is a class label when classify:
// the target is then read as categorical too (the features' categorical
// list does not name it) and Spec.Classify is set.
func ReadSpec(target string, drop, categorical []string, classify bool) ([]string, Spec) {
	spec := Spec{Target: target, Drop: drop, Categorical: categorical, Classify: classify}
	if !classify || slices.Contains(categorical, target) {
		return categorical, spec
	}
	read := append(slices.Clone(categorical), target)
	spec.Categorical = read
	return read, spec
}
