package table

import (
	"context"
	"os/exec"
	"strconv"
	"strings"
	"testing"
)

// BenchmarkReadCSVReferences reads the benchmark CSV (10^6 × 50, or 10^5
// × 50 under -short) with ReadFile and, in the same run on the same file,
// with the readers this field's users have: base R's read.csv and
// pandas.read_csv (Debian's r-base-core and python3-pandas; a reference
// that is not installed is skipped with a note). Each reference times its
// read inside its own process, so interpreter start-up is not counted.
// Reported: ratio-R and ratio-pandas = reference seconds / misslab
// seconds (above 1: misslab is faster).
func BenchmarkReadCSVReferences(b *testing.B) {
	path, rows, cols := benchFile(b, "csv")
	var tab *Table
	var err error
	for b.Loop() {
		if tab, err = ReadFile(context.Background(), path, Options{}); err != nil {
			b.Fatal(err)
		}
	}
	if tab.Rows != rows || len(tab.Columns) != cols {
		b.Fatalf("read %d×%d", tab.Rows, len(tab.Columns))
	}
	goSec := b.Elapsed().Seconds() / float64(b.N)
	b.ReportMetric(goSec, "misslab-s")
	refs := []struct{ name, bin string }{
		{"R", "Rscript"},
		{"pandas", "/usr/bin/python3"},
	}
	for _, ref := range refs {
		sec, err := referenceRead(ref.name, ref.bin, path)
		if err != nil {
			b.Logf("%s reference skipped: %v", ref.name, err)
			continue
		}
		b.ReportMetric(sec, ref.name+"-s")
		b.ReportMetric(sec/goSec, "ratio-"+ref.name)
	}
}

// referenceRead times one read of path by reference name (seconds).
func referenceRead(name, bin, path string) (float64, error) {
	var cmd *exec.Cmd
	switch name {
	case "R":
		cmd = exec.Command(bin, "-e", `t <- system.time(x <- read.csv(commandArgs(TRUE)[1], na.strings = "NA"))[["elapsed"]]; stopifnot(ncol(x) == 50); cat(t, "\n")`, path)
	case "pandas":
		cmd = exec.Command(bin, "-c", "import sys, time, pandas\nt = time.perf_counter()\nx = pandas.read_csv(sys.argv[1])\nt = time.perf_counter() - t\nassert x.shape[1] == 50\nprint(t)", path)
	}
	out, err := cmd.Output()
	if err != nil {
		return 0, err
	}
	f := strings.Fields(string(out))
	if len(f) == 0 {
		return 0, exec.ErrNotFound
	}
	return strconv.ParseFloat(f[len(f)-1], 64)
}
