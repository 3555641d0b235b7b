package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/misslab/misslab/internal/reportgen"
	"github.com/misslab/misslab/internal/store"
	"github.com/misslab/misslab/internal/storeconv"
)

// ReportDir is the directory under `run --out` that holds one report
// directory per sweep, named after the sweep.
const ReportDir = "report"

// reportCmd writes the report of one stored sweep from a data directory
// (a live one or a copy; it is opened read-only, no coordinator needed).
func reportCmd(args []string) error {
	fs := newCommand("report")
	data := fs.String("data", "", "data directory holding the store (required; read only)")
	out := fs.String("out", "", "report directory to write (required; created if missing)")
	pos, err := fs.Parse(args)
	if err != nil {
		return err
	}
	if *data == "" || *out == "" || len(pos) > 1 {
		return fs.Usagef("need --data and --out, and at most one sweep")
	}
	if filepath.Clean(*out) == filepath.Clean(*data) {
		return errors.New("--out must differ from --data: the report's results.csv would replace the tidy table 'run' wrote there")
	}
	arg := ""
	if len(pos) == 1 {
		arg = pos[0]
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	st, err := store.OpenReadOnly(*data)
	if err != nil {
		return err
	}
	defer st.Close()
	rec, others, err := reportgen.Resolve(st, arg)
	if err != nil {
		return err
	}
	if len(others) > 0 {
		fmt.Fprintf(os.Stderr, "coordinator report: %d older sweeps are also named %q (%s); reporting the latest, %.12s\n",
			len(others), arg, strings.Join(short(others), ", "), rec.ID)
	}
	files, err := reportgen.Write(ctx, st, rec, *out)
	if err != nil {
		return err
	}
	fmt.Printf("report of sweep %q (%.12s): %s (%d files)\n", rec.Spec.Name, rec.ID, filepath.Join(*out, "index.html"), len(files))
	return nil
}

// writeRunReports writes, after `coordinator run`, the report of every
// sweep in ids into out/report/<sweep name>/.
func writeRunReports(ctx context.Context, data, out string, ids []string) error {
	st, err := store.OpenReadOnly(data)
	if err != nil {
		return err
	}
	defer st.Close()
	used := map[string]bool{}
	var recs []storeconv.Record
	for _, id := range ids {
		rec, err := storeconv.Sweep(st, id)
		if err != nil {
			return err
		}
		recs = append(recs, rec)
		dir := filepath.Join(out, ReportDir, sweepDir(rec, used))
		if _, err := reportgen.Write(ctx, st, rec, dir); err != nil {
			return fmt.Errorf("report of sweep %q: %w", rec.Spec.Name, err)
		}
		fmt.Printf("report: %s\n", filepath.Join(dir, "index.html"))
	}
	// Every sweep of a task together: pipelines ranked across all the
	// scenarios (R² and AUC are not ranked together).
	reg, class := reportgen.ByTask(recs)
	regDir, classDir := CombinedDir, CombinedDir
	if len(reg) > 0 && len(class) > 0 {
		regDir, classDir = CombinedRegressionDir, CombinedClassificationDir
	}
	for _, group := range []struct {
		recs []storeconv.Record
		dir  string
	}{{reg, regDir}, {class, classDir}} {
		if len(group.recs) < 2 {
			continue
		}
		dir := filepath.Join(out, ReportDir, group.dir)
		if _, err := reportgen.WriteCombined(ctx, st, group.recs, dir); err != nil {
			return fmt.Errorf("combined report: %w", err)
		}
		fmt.Printf("report: %s (every sweep together)\n", filepath.Join(dir, "index.html"))
	}
	return nil
}

// CombinedDir is the report directory, under ReportDir, of every sweep
// of a grid together (written when the grid has several sweeps of one
// task). A grid with sweeps of both tasks gets CombinedRegressionDir and
// CombinedClassificationDir instead, for those with several sweeps.
const (
	CombinedDir               = "all-sweeps"
	CombinedRegressionDir     = "all-regression-sweeps"
	CombinedClassificationDir = "all-classification-sweeps"
)

// sweepDir names a sweep's report directory after the sweep, keeping
// ASCII letters, digits, '.', '_' and '-' (others become '-'); a name
// without a letter or digit is replaced by the id prefix, which is also
// appended to a name already taken.
func sweepDir(rec storeconv.Record, used map[string]bool) string {
	name := strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '_' || r == '-' {
			return r
		}
		return '-'
	}, rec.Spec.Name)
	id := rec.ID[:min(12, len(rec.ID))]
	if strings.Trim(name, ".-_") == "" {
		name = id
	}
	if used[name] {
		name += "-" + id
	}
	used[name] = true
	return name
}

func short(ids []string) []string {
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = id[:min(12, len(id))]
	}
	return out
}
