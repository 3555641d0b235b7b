package server

import (
	"context"
	"fmt"
	"io"
	"slices"

	"github.com/misslab/misslab/internal/grid"
	"github.com/misslab/misslab/internal/sim"
	"github.com/misslab/misslab/internal/split"
	"github.com/misslab/misslab/internal/table"
	"github.com/misslab/misslab/internal/wire"
)

// exportFolds writes the fold assignment of table sweep id (see
// split.WriteCSV), reading the sweep's table from the store to know
// which rows have a target. A simulated sweep has no folds (an error
// wrapping ErrPrecondition).
func (c *Coordinator) exportFolds(ctx context.Context, w io.Writer, id string) error {
	info, err := c.info(id)
	if err != nil {
		return err
	}
	sw := info.spec
	if !sw.IsTable() {
		return fmt.Errorf("%w: sweep %.12s draws simulated data; only a table sweep has folds", ErrPrecondition, id)
	}
	ref := sw.Scenarios[0].Table
	d, err := c.shape(ctx, ref)
	if err != nil {
		return err
	}
	return split.WriteCSV(w, sw.Seed, ref, sw.Repetitions, d.Rows)
}

// checkParquet checks a Parquet table sweep against its stored file's
// schema: the target is a kept numeric column and the other kept columns
// are the sweep's features, in order.
func (c *Coordinator) checkParquet(ctx context.Context, ref *sim.TableRef) error {
	path, err := c.tablePath(ref)
	if err != nil {
		return err
	}
	t, err := table.Schema(ctx, path, table.Options{Format: table.Parquet, Drop: ref.Drop, Categorical: ref.Categorical})
	if err != nil {
		return fmt.Errorf("%w: table %s: %w", wire.ErrInvalidSpec, ref.Name, err)
	}
	var features []string
	target := false
	for _, col := range t.Columns {
		if col.Name == ref.Target {
			target = col.Kind == table.Numeric
			continue
		}
		features = append(features, col.Name)
	}
	switch {
	case !target:
		return fmt.Errorf("%w: scenarios[0].table.target: %q is not a numeric column of %s", wire.ErrInvalidSpec, ref.Target, ref.Name)
	case !slices.Equal(features, ref.Features):
		return fmt.Errorf("%w: scenarios[0].table.features: %v, but table %s has %v", wire.ErrInvalidSpec, ref.Features, ref.Name, features)
	}
	return nil
}

// tablePath returns the stored file of ref's table; an error wrapping
// ErrPrecondition when it was not uploaded.
func (c *Coordinator) tablePath(ref *sim.TableRef) (string, error) {
	path, err := c.st.TablePath(ref.SHA256)
	if err != nil {
		return "", fmt.Errorf("%w: table %s (%.12s) has not been uploaded (%v)", ErrPrecondition, ref.Name, ref.SHA256, err)
	}
	return path, nil
}

// shape reads a stored table as ref says and returns its design without
// the matrix (table.Table.Shape): its features and rows with a target.
func (c *Coordinator) shape(ctx context.Context, ref *sim.TableRef) (*table.Design, error) {
	path, err := c.tablePath(ref)
	if err != nil {
		return nil, err
	}
	t, err := table.ReadFile(ctx, path, table.Options{Format: table.Format(ref.Format), NA: ref.NA,
		Drop: ref.Drop, Categorical: ref.Categorical})
	if err != nil {
		return nil, fmt.Errorf("%w: table %s: %w", wire.ErrInvalidSpec, ref.Name, err)
	}
	d, err := t.Shape(table.Spec{Target: ref.Target, Drop: ref.Drop, Categorical: ref.Categorical})
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
		return c.checkParquet(ctx, ref)
	}
	d, err := c.shape(ctx, ref)
	if err != nil {
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
