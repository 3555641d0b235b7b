package server

import (
	"context"
	"fmt"
	"io"
	"slices"

	"github.com/misslab/misslab/internal/grid"
	"github.com/misslab/misslab/internal/sim"
	"github.com/misslab/misslab/internal/split"
	"github.com/misslab/misslab/internal/store"
	"github.com/misslab/misslab/internal/storeconv"
	"github.com/misslab/misslab/internal/table"
	"github.com/misslab/misslab/internal/wire"
)

// exportFolds writes the fold assignment of table sweep id (see
// writeFolds).
func (c *Coordinator) exportFolds(ctx context.Context, w io.Writer, id string) error {
	info, err := c.info(id)
	if err != nil {
		return err
	}
	return writeFolds(ctx, c.st, id, info.spec, w)
}

// writeFolds writes the fold assignment of table sweep sw (id; see
// split.WriteCSV), reading the sweep's table from st to know which rows
// have a target. A simulated sweep has no folds (an error wrapping
// ErrPrecondition).
func writeFolds(ctx context.Context, st *store.Store, id string, sw *grid.Sweep, w io.Writer) error {
	if !sw.IsTable() {
		return fmt.Errorf("%w: sweep %.12s draws simulated data; only a table sweep has folds", ErrPrecondition, id)
	}
	ref := sw.Scenarios[0].Table
	d, err := shapeIn(ctx, st, ref, sim.IsClassification(sw.Scenarios[0].Task))
	if err != nil {
		return err
	}
	return split.WriteCSV(w, sw.Seed, ref, sw.Repetitions, d.Rows, classCodes(d))
}

// ExportStored writes what the Export RPC streams, sweep arg's tidy CSV
// (id, unique id prefix or name, as Export resolves it) or with folds
// its fold assignment, from a store opened without a coordinator
// (store.OpenReadOnly): `coordinator export --data`. The bytes are the
// RPC's for the same store.
func ExportStored(ctx context.Context, st *store.Store, arg string, folds bool, w io.Writer) error {
	rec, _, err := storeconv.Resolve(st, arg)
	if err != nil {
		return err
	}
	if folds {
		return writeFolds(ctx, st, rec.ID, rec.Spec, w)
	}
	return st.ExportCSV(w, rec.ID)
}

// checkParquet checks a Parquet table sweep against its stored file's
// schema: the target is a kept column, numeric for regression and
// categorical for a classification (classify), and the other kept
// columns are the sweep's features, in order.
func (c *Coordinator) checkParquet(ctx context.Context, ref *sim.TableRef, classify bool) error {
	path, err := c.tablePath(ref)
	if err != nil {
		return err
	}
	categorical, _ := table.ReadSpec(ref.Target, ref.Drop, ref.Categorical, classify)
	t, err := table.Schema(ctx, path, table.Options{Format: table.Parquet, Drop: ref.Drop, Categorical: categorical})
	if err != nil {
		return fmt.Errorf("%w: table %s: %w", wire.ErrInvalidSpec, ref.Name, err)
	}
	want, kind := table.Numeric, "numeric"
	if classify {
		want, kind = table.Categorical, "categorical"
	}
	var features []string
	target := false
	for _, col := range t.Columns {
		if col.Name == ref.Target {
			target = col.Kind == want
			continue
		}
		features = append(features, col.Name)
	}
	switch {
	case !target:
		return fmt.Errorf("%w: scenarios[0].table.target: %q is not a %s column of %s", wire.ErrInvalidSpec, ref.Target, kind, ref.Name)
	case !slices.Equal(features, ref.Features):
		return fmt.Errorf("%w: scenarios[0].table.features: %v, but table %s has %v", wire.ErrInvalidSpec, ref.Features, ref.Name, features)
	}
	return nil
}

// tablePath returns the stored file of ref's table; an error wrapping
// ErrPrecondition when it was not uploaded.
func (c *Coordinator) tablePath(ref *sim.TableRef) (string, error) {
	return tablePathIn(c.st, ref)
}

// tablePathIn is tablePath in store st.
func tablePathIn(st *store.Store, ref *sim.TableRef) (string, error) {
	path, err := st.TablePath(ref.SHA256)
	if err != nil {
		return "", fmt.Errorf("%w: table %s (%.12s) has not been uploaded (%v)", ErrPrecondition, ref.Name, ref.SHA256, err)
	}
	return path, nil
}

// shape reads a stored table as ref says and returns its design without
// the matrix (table.Table.Shape): its features and rows with a target.
func (c *Coordinator) shape(ctx context.Context, ref *sim.TableRef, classify bool) (*table.Design, error) {
	return shapeIn(ctx, c.st, ref, classify)
}

// shapeIn is shape in store st.
func shapeIn(ctx context.Context, st *store.Store, ref *sim.TableRef, classify bool) (*table.Design, error) {
	path, err := tablePathIn(st, ref)
	if err != nil {
		return nil, err
	}
	categorical, spec := table.ReadSpec(ref.Target, ref.Drop, ref.Categorical, classify)
	t, err := table.ReadFile(ctx, path, table.Options{Format: table.Format(ref.Format), NA: ref.NA,
		Drop: ref.Drop, Categorical: categorical})
	if err != nil {
		return nil, fmt.Errorf("%w: table %s: %w", wire.ErrInvalidSpec, ref.Name, err)
	}
	d, err := t.Shape(spec)
	if err != nil {
		return nil, fmt.Errorf("%w: table %s: %w", wire.ErrInvalidSpec, ref.Name, err)
	}
	return d, nil
}

// checkTable validates a new table sweep against its stored table, as a
// grid file is checked against the file: the table was uploaded, reads
// with the sweep's options, has the features the sweep names, and has
// rows enough for its split. Errors wrap ErrPrecondition (no table) or
// wire.ErrInvalidSpec.
//
// A Parquet table is checked from its footer alone (table.Schema: column
// names and kinds, row count): decoding its pages is left to the
// workers, because the parquet library's allocations on a damaged or
// hostile file are unbounded, and the coordinator holds the store.
func (c *Coordinator) checkTable(ctx context.Context, sw *grid.Sweep) error {
	ref := sw.Scenarios[0].Table
	if ref.Format == string(table.Parquet) {
		return c.checkParquet(ctx, ref, sim.IsClassification(sw.Scenarios[0].Task))
	}
	d, err := c.shape(ctx, ref, sim.IsClassification(sw.Scenarios[0].Task))
	if err != nil {
		return err
	}
	if err := sameTask(sw.Scenarios[0].Task, d); err != nil {
		return err
	}
	if err := classesFit(ref, d); err != nil {
		return err
	}
	if !slices.Equal(d.Features, ref.Features) {
		return fmt.Errorf("%w: scenarios[0].table.features: %v, but table %s has %v", wire.ErrInvalidSpec, ref.Features, ref.Name, d.Features)
	}
	n := len(d.Y)
	if ref.Folds > n/2 || (ref.Folds == 0 && (grid.TestRows(n, ref.TestFraction) < 1 || n-grid.TestRows(n, ref.TestFraction) < 2)) {
		return fmt.Errorf("%w: scenarios[0].table: the split leaves too few rows of the %d with a target", wire.ErrInvalidSpec, n)
	}
	return nil
}

// classCodes returns the class codes of a classification design's rows,
// nil for regression.
func classCodes(d *table.Design) []int {
	if d.Classes == nil {
		return nil
	}
	out := make([]int, len(d.Y))
	for i, y := range d.Y {
		out[i] = int(y)
	}
	return out
}

// sameTask checks a classification sweep's task against its table's
// classes: binary for two, multiclass for more.
func sameTask(task string, d *table.Design) error {
	switch {
	case d.Classes == nil:
		return nil
	case len(d.Classes) == 2 && task != sim.Binary, len(d.Classes) > 2 && task != sim.Multiclass:
		return fmt.Errorf("%w: scenarios[0].task: %q, but target %v has %d classes", wire.ErrInvalidSpec, task, d.Classes, len(d.Classes))
	}
	return nil
}

// classesFit checks that every class of a classification design has rows
// enough for the split: K under stratified K-fold, 2 under a hold-out (as
// the grid parser checks a file).
func classesFit(ref *sim.TableRef, d *table.Design) error {
	need := max(2, ref.Folds)
	for i, n := range d.ClassCounts() {
		if n < need {
			return fmt.Errorf("%w: scenarios[0].table: class %q of target %q has %d rows; the split needs %d",
				wire.ErrInvalidSpec, d.Classes[i], ref.Target, n, need)
		}
	}
	return nil
}
