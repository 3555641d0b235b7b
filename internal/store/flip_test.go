package store

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// smallStore writes a store holding one record of every kind: a
// simulated and a table sweep (one cancelled), results (failed ones too,
// with root splits and NaN imputation RMSEs), a job failure, a table,
// the lease key and the floating-point class; it closes it and returns
// its directory.
func smallStore(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	s, err := Open(dir, Options{NoSync: true})
	must(t, err)
	sim := testSweep(t, []float64{0.1, 0.2, 0.3}, 3, "tree/mia", "svm/mean")
	sim.Pipelines[1].Settings = []Setting{{Key: "cost", Value: 2}}
	simID := put(t, s, sim)
	tab := tableSweep(t)
	tabID := put(t, s, tab)
	recs := []Record{{SweepID: simID, Job: 4, Failure: "worker w1: lease expired"}}
	for j := range sim.Jobs() {
		if j == 4 {
			continue
		}
		r := record(simID, sim, j, 0, 1)
		r.Results[0].Root, r.Results[0].RootThreshold, r.Results[0].MAE = "X2", 1.5, 0.25
		r.Results[1].ImputeRMSETrain, r.Results[1].ImputeRMSETest = 0.5, nan()
		if j == 2 {
			r.Results[1] = Result{ErrKind: "fit", ErrMsg: "singular matrix"}
		}
		recs = append(recs, r)
	}
	for j := range tab.Jobs() {
		recs = append(recs, record(tabID, tab, j, 0))
	}
	must(t, s.Commit(recs))
	must(t, s.SetCancelled(tabID, true))
	must(t, s.SetFPClass("amd64 go1.26.8 scores/1"))
	_, err = s.LeaseKey()
	must(t, err)
	body, sha := tableBytes(300, 5)
	_, err = s.PutTable(t.Context(), bytes.NewReader(body), sha, int64(len(body)), "air.csv")
	must(t, err)
	must(t, s.Close())
	return dir
}

// tableSweep is a sweep of two scenarios on one table, 3-fold, 2
// repetitions.
func tableSweep(t *testing.T) *Sweep {
	t.Helper()
	tab := &Table{SHA256: strings.Repeat("ab", 32), Format: "csv", Name: "air.csv", Target: "Ozone",
		Drop: []string{"Day"}, Categorical: []string{"Month"}, NA: []string{"", "NA"}, Folds: 3,
		Features: []string{"Solar.R", "Wind", "Temp", "Month"}}
	sw := &Sweep{Name: "air", Seed: 9, Repetitions: 2}
	for _, m := range []string{"none", "mcar"} {
		sc := Scenario{Model: "table", D: 4, Mechanism: m, Table: tab}
		if m == "mcar" {
			sc.Rate, sc.Columns = 0.2, []int{0, 1}
		}
		sw.Scenarios = append(sw.Scenarios, sc)
	}
	sw.Pipelines = []Pipeline{{Name: "tree/mia"}}
	return sw
}

// readAll reads everything a coordinator, a report and an export read
// from the store in dir, opened read-only, as text; an error ends it.
func readAll(dir string) (string, error) {
	s, err := OpenReadOnly(dir)
	if err != nil {
		return "", err
	}
	defer s.Close()
	var b strings.Builder
	recs, err := s.Sweeps()
	if err != nil {
		return "", err
	}
	for _, rec := range recs {
		fmt.Fprintf(&b, "sweep %s %q cancelled=%v submitted=%v\n", rec.ID, rec.Spec.Name, rec.Cancelled, rec.Submitted.UnixNano())
		err := s.ScanSweep(rec.ID, rec.Spec, ScanFuncs{
			Done:    func(j int) { fmt.Fprintf(&b, "done %d\n", j) },
			Partial: func(j int, m []int) { fmt.Fprintf(&b, "partial %d %v\n", j, m) },
			Failed:  func(j int, m string) { fmt.Fprintf(&b, "failed %d %q\n", j, m) },
		})
		if err != nil {
			return "", err
		}
		if err := s.ExportCSV(&b, rec.ID); err != nil {
			return "", err
		}
		fails, err := s.SweepFailures(rec.ID, rec.Spec)
		if err != nil {
			return "", err
		}
		fmt.Fprintf(&b, "failures %v\n", fails)
	}
	class, has, err := s.FPClass()
	if err != nil {
		return "", err
	}
	key, err := s.LeaseKey()
	if err != nil {
		return "", err
	}
	_, sha := tableBytes(300, 5)
	size, ok := s.HasTable(sha)
	fmt.Fprintf(&b, "class %q %v key %x table %d %v\n", class, has, key, size, ok)
	return b.String(), nil
}

// TestEveryFlippedByteIsHarmlessOrReported flips each byte of a small
// store in turn (bit 0, then all eight bits) and reads everything a
// coordinator, a report and an export read: every flip must either be
// reported (an error, wrapping ErrCorrupt for damage) or leave what is
// read unchanged. Before record frames and counts, a flipped byte inside
// a key or a value, or in a page's element count, silently lost or
// changed results. -short tries every 13th byte, a -race build every
// 5th.
func TestEveryFlippedByteIsHarmlessOrReported(t *testing.T) {
	dir := smallStore(t)
	want, err := readAll(dir)
	must(t, err)
	orig, err := os.ReadFile(filepath.Join(dir, FileName))
	must(t, err)
	work := t.TempDir()
	must(t, os.MkdirAll(filepath.Join(work, TablesDir), 0o755))
	tables, _ := filepath.Glob(filepath.Join(dir, TablesDir, "*"))
	for _, p := range tables {
		b, err := os.ReadFile(p)
		must(t, err)
		must(t, os.WriteFile(filepath.Join(work, TablesDir, filepath.Base(p)), b, 0o644))
	}
	step := 1
	switch {
	case testing.Short():
		step = 13
	case raceBuild:
		step = 5
	}
	start := time.Now()
	var silent []string
	reported, harmless := 0, 0
	for off := 0; off < len(orig); off += step {
		for _, mask := range []byte{0x01, 0xff} {
			b := bytes.Clone(orig)
			b[off] ^= mask
			must(t, os.WriteFile(filepath.Join(work, FileName), b, 0o644))
			got, err := readAll(work)
			switch {
			case err != nil:
				reported++
			case got == want:
				harmless++
			default:
				silent = append(silent, fmt.Sprintf("byte %d ^ %#02x (page %d, offset %d)", off, mask, off/4096, off%4096))
			}
		}
	}
	t.Logf("%d bytes × 2 flips in %v: %d reported, %d harmless", (len(orig)+step-1)/step, time.Since(start), reported, harmless)
	if len(silent) > 0 {
		t.Errorf("%d flips changed what is read without an error: %s", len(silent), strings.Join(silent[:min(len(silent), 20)], "; "))
	}
	if reported == 0 {
		t.Error("no flip was reported: the test damaged nothing")
	}
}
