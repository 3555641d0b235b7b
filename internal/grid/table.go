package grid

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"

	"github.com/misslab/misslab/internal/sim"
	"github.com/misslab/misslab/internal/table"
)

// DefaultFolds is the split of a table sweep without a split block:
// 5-fold cross-validation, repeated once per repetition.
const DefaultFolds = 5

var (
	tableSchema = schema{attrs: []string{"file", "target", "drop", "categorical", "na", "task"}}
	splitSchema = schema{attrs: []string{"folds", "test_fraction"}}
)

// TableFile is the file behind a table sweep as the grid parser read it
// on this machine: what `plan` prints and what `submit` uploads. It is
// not part of the sweep's identity (the scenarios' sim.TableRef is) and
// does not cross the wire.
type TableFile struct {
	Path    string                // the file, resolved against the grid file's directory
	Size    int64                 // bytes
	Rows    int                   // data rows in the file
	Used    int                   // rows with a target; the others are dropped
	Columns []table.ColumnSummary // every kept column, target included
	// Classes and ClassCounts are a classification target's levels and
	// their rows (of the Used rows); nil for regression.
	Classes     []string
	ClassCounts []int
}

// tableBlock is the decoded table block of a sweep.
type tableBlock struct {
	file, target      string
	drop, categorical list[string]
	na                list[string]
	fileAt, targetAt  hcl.Range
	// classify: the target is a class label (task = "classification",
	// or the target listed in categorical).
	classify bool
}

// tableSweep decodes the table, split and missingness blocks of sweep b
// and expands its scenarios, reading the table to check every name.
func (p *parser) tableSweep(b, tb *hclsyntax.Block) ([]sim.Scenario, *TableFile, bool) {
	p.check(tb.Body, "table", tableSchema)
	blk, ok := p.decodeTable(tb)
	if !ok {
		return nil, nil, false
	}
	ref, tf, ok := p.readTable(blk)
	if !ok {
		return nil, nil, false
	}
	if !p.decodeSplit(b, ref, tf.Used) || !p.classesFit(b, ref, tf) {
		return nil, nil, false
	}
	scen, ok := p.tableScenarios(b, ref, taskOf(tf))
	return scen, tf, ok
}

// decodeTable reads the attributes of a table block.
func (p *parser) decodeTable(tb *hclsyntax.Block) (tableBlock, bool) {
	at := tb.Body.Attributes
	blk := tableBlock{fileAt: tb.DefRange(), targetAt: tb.DefRange()}
	ok := true
	for _, req := range []struct {
		name string
		dst  *string
		rng  *hcl.Range
	}{{"file", &blk.file, &blk.fileAt}, {"target", &blk.target, &blk.targetAt}} {
		a := at[req.name]
		if a == nil {
			p.ds.add(tb.DefRange(), "table."+req.name, "required attribute is missing (a string)")
			ok = false
			continue
		}
		v, o := decodeScalar(&p.ds, a, "table."+req.name, toString)
		*req.dst, *req.rng, ok = v, a.Expr.Range(), ok && o && v != ""
		if o && v == "" {
			p.ds.add(a.Expr.Range(), "table."+req.name, "must not be empty")
		}
	}
	var o bool
	blk.drop, o = decodeList(&p.ds, at["drop"], "table.drop", toString)
	ok = ok && o
	blk.categorical, o = decodeList(&p.ds, at["categorical"], "table.categorical", toString)
	ok = ok && o
	blk.na, o = decodeList(&p.ds, at["na"], "table.na", toString)
	ok = ok && o
	for i, c := range blk.categorical.vals {
		if slices.Contains(blk.drop.vals, c) {
			p.ds.add(blk.categorical.rngs[i], "table.categorical", "column %q is also in drop", c)
			ok = false
		}
	}
	return blk, ok && p.decodeTableTask(at, &blk)
}

// readTable reads the table a block names, checks its names against the
// file's header and builds the scenarios' table reference.
func (p *parser) readTable(blk tableBlock) (*sim.TableRef, *TableFile, bool) {
	path := blk.file
	if !filepath.IsAbs(path) {
		path = filepath.Join(filepath.Dir(blk.fileAt.Filename), path)
	}
	format, err := table.FormatOf(path)
	if err != nil {
		p.ds.add(blk.fileAt, "table.file", "%v", err)
		return nil, nil, false
	}
	na := table.DefaultNA
	if blk.na.set {
		na = blk.na.vals
	}
	opt := table.Options{Format: format, NA: na, Drop: blk.drop.vals, Categorical: blk.categorical.vals}
	t, err := table.ReadFile(context.Background(), path, opt)
	if err != nil {
		at, field := blk.locate(err)
		p.ds.add(at, field, "%v", err)
		return nil, nil, false
	}
	d, err := t.Shape(table.Spec{Target: blk.target, Drop: blk.drop.vals, Categorical: blk.categorical.vals, Classify: blk.classify})
	if err != nil {
		at, field := blk.locate(err)
		p.ds.add(at, field, "%v", err)
		return nil, nil, false
	}
	ref := &sim.TableRef{SHA256: t.SHA256, Format: string(format), Name: filepath.Base(path),
		Target: blk.target, Drop: blk.drop.vals, Categorical: featuresOnly(blk.categorical.vals, blk.target), NA: na,
		Features: d.Features}
	tf := &TableFile{Path: path, Size: t.Size, Rows: t.Rows, Used: len(d.Y), Columns: t.Summary(),
		Classes: d.Classes, ClassCounts: d.ClassCounts()}
	return ref, tf, true
}

// locate returns where in the grid file a table error belongs: at the
// name in drop or categorical that the error quotes, at the target for
// a target error, else at the file.
func (blk tableBlock) locate(err error) (hcl.Range, string) {
	msg := err.Error()
	for _, l := range []struct {
		field string
		l     list[string]
	}{{"table.drop", blk.drop}, {"table.categorical", blk.categorical}} {
		for i, n := range l.l.vals {
			if errors.Is(err, table.ErrColumn) && strings.Contains(msg, strconv.Quote(n)) {
				return l.l.rngs[i], l.field
			}
		}
	}
	if errors.Is(err, table.ErrTarget) || strings.Contains(msg, strconv.Quote(blk.target)) {
		return blk.targetAt, "table.target"
	}
	return blk.fileAt, "table.file"
}

// decodeSplit reads the split block of sweep b into ref: K-fold (folds,
// default DefaultFolds) or hold-out (test_fraction). rows is the number
// of rows with a target, which bounds K.
func (p *parser) decodeSplit(b *hclsyntax.Block, ref *sim.TableRef, rows int) bool {
	sb := p.single(b.Body, "split")
	if sb == nil {
		ref.Folds = DefaultFolds
		return p.foldsFit(b.DefRange(), ref, rows)
	}
	p.check(sb.Body, "split", splitSchema)
	fa, ta := sb.Body.Attributes["folds"], sb.Body.Attributes["test_fraction"]
	switch {
	case fa != nil && ta != nil:
		p.ds.add(ta.NameRange, "split.test_fraction", "give folds (K-fold) or test_fraction (hold-out), not both")
		return false
	case ta != nil:
		f, ok := decodeScalar(&p.ds, ta, "split.test_fraction", toFloat)
		if ok && !(f > 0 && f < 1) {
			p.ds.add(ta.Expr.Range(), "split.test_fraction", "test_fraction = %v outside (0, 1)", f)
			return false
		}
		ref.TestFraction = f
		return ok && p.foldsFit(ta.Expr.Range(), ref, rows)
	case fa != nil:
		k, ok := decodeScalar(&p.ds, fa, "split.folds", toInt)
		if ok && (k < 2 || k > sim.MaxFolds) {
			p.ds.add(fa.Expr.Range(), "split.folds", "folds = %d outside [2, %d]", k, sim.MaxFolds)
			return false
		}
		ref.Folds = k
		return ok && p.foldsFit(fa.Expr.Range(), ref, rows)
	}
	p.ds.add(sb.DefRange(), "split", "give folds = K (K-fold) or test_fraction = f (hold-out)")
	return false
}

// foldsFit reports a split that leaves a training or test set too small
// for the table's rows.
func (p *parser) foldsFit(at hcl.Range, ref *sim.TableRef, rows int) bool {
	if ref.Folds >= 2 {
		if ref.Folds > rows/2 {
			p.ds.add(at, "split.folds", "folds = %d but the table has %d rows with a target: each fold needs at least 2 test rows",
				ref.Folds, rows)
			return false
		}
		return true
	}
	test := TestRows(rows, ref.TestFraction)
	if test < 1 || rows-test < 2 {
		p.ds.add(at, "split.test_fraction", "test_fraction = %v of %d rows leaves %d test and %d training rows (need ≥ 1 and ≥ 2)",
			ref.TestFraction, rows, test, rows-test)
		return false
	}
	return true
}

// TestRows is the size of a hold-out test set: round(fraction × rows).
func TestRows(rows int, fraction float64) int {
	return int(fraction*float64(rows) + 0.5)
}
