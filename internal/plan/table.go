package plan

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/misslab/misslab/internal/grid"
	"github.com/misslab/misslab/internal/table"
)

// Table is what plan shows of a table sweep's table.
type Table struct {
	File     *grid.TableFile
	SHA256   string
	Target   string
	Split    string // "5-fold cross-validation" or "hold-out, 30% test"
	Features int
	// TrainRows is the training set of one fold (the cost model's n).
	TrainRows int
	// Columns is the design matrix's width: one per numeric feature, one
	// per level plus one for NA per categorical feature.
	Columns int
	// Folds is K of K-fold cross-validation, 0 for a hold-out split of
	// TestFraction of the rows.
	Folds        int
	TestFraction float64
}

// tablePlan describes a table sweep's table; nil for simulated data.
func tablePlan(s *grid.Sweep) *Table {
	if !s.IsTable() {
		return nil
	}
	ref := s.Scenarios[0].Table
	tp := &Table{File: s.TableFile, SHA256: ref.SHA256, Target: ref.Target, Features: len(ref.Features),
		Columns: len(ref.Features), Folds: ref.Folds, TestFraction: ref.TestFraction}
	used := 0
	if s.TableFile != nil {
		used = s.TableFile.Used
		for _, c := range s.TableFile.Columns {
			if c.Kind == table.Categorical && c.Name != ref.Target {
				tp.Columns += c.Levels // L levels + NA in place of one column
			}
		}
	}
	if ref.Folds >= 2 {
		tp.Split = strconv.Itoa(ref.Folds) + "-fold cross-validation"
		tp.TrainRows = used - (used+ref.Folds-1)/ref.Folds
	} else {
		tp.Split = fmt.Sprintf("hold-out, %s test", strconv.FormatFloat(ref.TestFraction*100, 'g', 4, 64)+"%")
		tp.TrainRows = used - grid.TestRows(used, ref.TestFraction)
	}
	return tp
}

// writeTablePlan prints a table sweep's table: file, hash, rows, the rows
// dropped for an NA target, the split and every column with its NA rate.
func writeTablePlan(b *strings.Builder, tp *Table) {
	fmt.Fprintf(b, "  table:     sha256 %s, target %q, %d features (%d design columns), %s\n",
		tp.SHA256, tp.Target, tp.Features, tp.Columns, tp.Split)
	f := tp.File
	if f == nil {
		return
	}
	fmt.Fprintf(b, "  file:      %s (%d bytes): %d rows; %d with a target", f.Path, f.Size, f.Rows, f.Used)
	if d := f.Rows - f.Used; d > 0 {
		fmt.Fprintf(b, "; %d dropped because the target is NA", d)
	}
	fmt.Fprintf(b, "; about %d training rows per fit\n", tp.TrainRows)
	if len(f.Classes) > 0 {
		parts := make([]string, len(f.Classes))
		for i, c := range f.Classes {
			parts[i] = fmt.Sprintf("%s %d", c, f.ClassCounts[i])
		}
		fmt.Fprintf(b, "  classes:   %d (rows per class: %s); folds stratified by class\n", len(f.Classes), strings.Join(parts, ", "))
	}
	rows := [][]string{{"    column", "kind", "NA", "NA rate", "mean", "sd", "levels"}}
	for _, c := range f.Columns {
		kind, mean, sd, levels := "numeric", fmtNum(c.Mean), fmtNum(c.SD), ""
		if c.Kind == table.Categorical {
			kind, mean, sd, levels = "categorical", "", "", itoa(c.Levels)
		}
		rows = append(rows, []string{"    " + c.Name, kind, itoa(c.NA), fmt.Sprintf("%.1f%%", 100*c.NARate), mean, sd, levels})
	}
	writeTable(b, rows)
}

func fmtNum(v float64) string {
	if v != v {
		return "-"
	}
	return strconv.FormatFloat(v, 'g', 4, 64)
}
