package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/misslab/misslab/internal/store"
)

// runCheck verifies the store of a data directory without changing it
// and prints a short summary; it fails (a non-zero exit) when the store
// is damaged, of another schema, or held by a running coordinator.
func runCheck(args []string) error {
	return checkTo(os.Stdout, args)
}

// checkTo is runCheck writing its summary to w.
func checkTo(w io.Writer, args []string) error {
	fs := newCommand("check")
	data := fs.String("data", "", "data directory holding the store, or the store file (required; read only)")
	pos, err := fs.Parse(args)
	if err != nil {
		return err
	}
	if *data == "" || len(pos) > 0 {
		return fs.Usagef("need --data and no other argument")
	}
	rep, err := store.Check(*data)
	writeCheck(w, rep, err)
	return err
}

// writeCheck prints what Check found: the file, its schema and what a
// migration would do to it, its migrations so far, what it holds, and
// either "ok" or every problem.
func writeCheck(w io.Writer, r store.Report, err error) {
	if errors.Is(err, store.ErrNoStore) {
		return // the error says it all
	}
	fmt.Fprintf(w, "store %s: %d bytes", r.Path, r.Size)
	if r.PageSize > 0 {
		fmt.Fprintf(w, ", %d pages of %d bytes (%d reachable), transaction %d", r.Pages, r.PageSize, r.Reached, r.TxID)
	}
	if r.Schema != "" {
		fmt.Fprintf(w, ", schema %s", r.Schema)
	}
	if r.FPClass != "" {
		fmt.Fprintf(w, ", results of floating-point class %q", r.FPClass)
	}
	fmt.Fprintln(w)
	for _, m := range r.History {
		fmt.Fprintf(w, "  migrated from %s to %s (the file before: %s)\n", m.From, m.To, m.Backup)
	}
	for _, m := range r.Pending {
		fmt.Fprintf(w, "  opening it read-write (coordinator serve or run) migrates it from %s to %s, after writing a backup "+
			"beside it; on a copy, the migration rewrote %s\n", m.From, m.To, recordCounts(m.Records))
	}
	if r.Sweeps+r.Draws+r.Pipelines+r.Results+r.Failures+r.Tables > 0 {
		fmt.Fprintf(w, "  %d sweeps, %d draws, %d pipelines, %d results (%d failed pipelines), %d failed jobs, %d tables\n",
			r.Sweeps, r.Draws, r.Pipelines, r.Results, r.ResultErrors, r.Failures, r.Tables)
	}
	switch {
	case err == nil:
		fmt.Fprintln(w, "ok: no damage found")
	case !r.OK():
		fmt.Fprintf(w, "DAMAGED: %d problems\n", len(r.Problems)+r.More)
		for _, p := range r.Problems {
			fmt.Fprintf(w, "  - %s\n", p)
		}
		if r.More > 0 {
			fmt.Fprintf(w, "  - and %d more\n", r.More)
		}
	}
}

// recordCounts says how many records of each kind a migration rewrote.
func recordCounts(n map[string]int) string {
	var parts []string
	for _, b := range []string{"sweeps", "draws", "pipelines", "results", "failures", "tables", "meta"} {
		if n[b] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n[b], b))
		}
	}
	if len(parts) == 0 {
		return "no record"
	}
	return strings.Join(parts, ", ")
}
