package store

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"
)

// filledStore writes a store whose sweeps, results and draws span many
// pages (results and sweeps have branch roots of their own), closes it
// and returns its directory.
func filledStore(t *testing.T) (dir string, id string) {
	t.Helper()
	dir = t.TempDir()
	s, err := Open(dir, Options{NoSync: true})
	must(t, err)
	rates := make([]float64, 200)
	for i := range rates {
		rates[i] = float64(i) / 1000
	}
	sw := testSweep(t, rates, 5, "tree/mia", "tree/mean", "svm/mean")
	id = put(t, s, sw)
	var recs []Record
	for j := range sw.Jobs() {
		recs = append(recs, record(id, sw, j, 0, 1, 2))
	}
	must(t, s.Commit(recs))
	must(t, s.Commit([]Record{{SweepID: id, Job: 7, Failure: "boom"}}))
	must(t, s.Close())
	return dir, id
}

// layout reads where things are in a closed store: the page size, the
// root pages of two buckets, a leaf page of the results bucket and the
// meta page in use.
type layout struct {
	pageSize                 int
	results, sweeps, leaf    uint64
	metaInUse, otherMetaPage int64
}

func readLayout(t *testing.T, dir string) layout {
	t.Helper()
	path := filepath.Join(dir, FileName)
	db, err := bolt.Open(path, 0o444, &bolt.Options{ReadOnly: true})
	must(t, err)
	defer db.Close()
	l := layout{pageSize: db.Info().PageSize}
	must(t, db.View(func(tx *bolt.Tx) error {
		l.results, l.sweeps = uint64(tx.Bucket(bucketResults).Root()), uint64(tx.Bucket(bucketSweeps).Root())
		l.metaInUse = int64(tx.ID() % 2)
		return nil
	}))
	l.otherMetaPage = 1 - l.metaInUse
	raw, err := os.ReadFile(path)
	must(t, err)
	root := raw[int(l.results)*l.pageSize:]
	if native.Uint16(root[8:]) != flagBranch {
		t.Fatalf("results root page %d is not a branch page: the store is too small for this test", l.results)
	}
	l.leaf = native.Uint64(root[pageHeaderSize+8:]) // first child
	if l.sweeps == 0 || l.results == 0 {
		t.Fatal("sweeps or results is an inline bucket: the store is too small for this test")
	}
	return l
}

// overwrite writes b at off in the store file of dir (a live store sees
// it too: bbolt maps the file shared).
func overwrite(t *testing.T, dir string, off int64, b []byte) {
	t.Helper()
	f, err := os.OpenFile(filepath.Join(dir, FileName), os.O_RDWR, 0)
	must(t, err)
	defer f.Close()
	if _, err := f.WriteAt(b, off); err != nil {
		t.Fatal(err)
	}
}

func garbage(n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(0xA5 ^ i*31)
	}
	return b
}

// wantCorrupt fails unless err wraps ErrCorrupt and names the store file
// and the way to recover.
func wantCorrupt(t *testing.T, what string, err error, dir string) {
	t.Helper()
	path := filepath.Join(dir, FileName)
	switch {
	case !errors.Is(err, ErrCorrupt):
		t.Errorf("%s: err %v, want ErrCorrupt", what, err)
	case !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "coordinator check --data"):
		t.Errorf("%s: %q does not name %s and the check command", what, err, path)
	}
}

// TestDamagedFileIsRefused: a damaged page makes every open fail with
// ErrCorrupt naming the file. Before pages were checked, bbolt panicked
// on such files while rebuilding its free list on a goroutine of its own
// (the page header and element cases killed the process: "page expected
// to be" and a slice-bounds panic), and silently fell back to the older
// meta page when the newer one was damaged.
func TestDamagedFileIsRefused(t *testing.T) {
	for _, tc := range []struct {
		name   string
		damage func(l layout) (off int64, b []byte)
	}{
		{"results root page header", func(l layout) (int64, []byte) {
			return int64(l.results) * int64(l.pageSize), garbage(16)
		}},
		{"leaf element runs past its page", func(l layout) (int64, []byte) {
			// ksize of the first element of a results leaf page
			return int64(l.leaf)*int64(l.pageSize) + pageHeaderSize + 8, []byte{0xf0, 0xff, 0xff, 0x7f}
		}},
		{"sweeps root page body", func(l layout) (int64, []byte) {
			return int64(l.sweeps)*int64(l.pageSize) + pageHeaderSize, garbage(64)
		}},
		{"meta page in use", func(l layout) (int64, []byte) {
			return l.metaInUse*int64(l.pageSize) + pageHeaderSize, garbage(32)
		}},
		{"older meta page", func(l layout) (int64, []byte) {
			return l.otherMetaPage*int64(l.pageSize) + pageHeaderSize, garbage(32)
		}},
		{"both meta pages", func(l layout) (int64, []byte) {
			return 0, garbage(2 * l.pageSize)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir, _ := filledStore(t)
			off, b := tc.damage(readLayout(t, dir))
			overwrite(t, dir, off, b)
			before, err := os.ReadFile(filepath.Join(dir, FileName))
			must(t, err)

			s, err := Open(dir, Options{})
			if err == nil {
				s.Close()
			}
			wantCorrupt(t, "Open", err, dir)
			r, err := OpenReadOnly(dir)
			if err == nil {
				r.Close()
			}
			wantCorrupt(t, "OpenReadOnly", err, dir)
			rep, err := Check(dir)
			wantCorrupt(t, "Check", err, dir)
			if rep.OK() {
				t.Errorf("Check reports no problem: %+v", rep)
			}
			after, _ := os.ReadFile(filepath.Join(dir, FileName))
			if !bytes.Equal(before, after) {
				t.Error("refusing a damaged file changed it")
			}
		})
	}
}

// TestDamageMetAfterOpen: pages damaged while the store is open (bbolt
// maps the file, so it sees the new bytes) make reads and writes fail
// with ErrCorrupt instead of panicking, and from then on every call
// fails the same way. Before, Sweeps and ScanSweep panicked in bbolt, and
// a write panicked and then, in bbolt's rollback, rebuilt the free list
// on its own goroutine, where the next panic killed the process.
func TestDamageMetAfterOpen(t *testing.T) {
	sw := testSweep(t, []float64{0}, 5, "tree/mia") // the first scenario of filledStore
	for _, tc := range []struct {
		name  string
		first func(s *Store, id string) error // the call that meets the damage
		page  func(l layout) uint64
	}{
		{"Sweeps", func(s *Store, _ string) error { _, err := s.Sweeps(); return err },
			func(l layout) uint64 { return l.sweeps }},
		{"ScanSweep", func(s *Store, id string) error { return s.ScanSweep(id, sw, ScanFuncs{}) },
			func(l layout) uint64 { return l.results }},
		{"Commit", func(s *Store, id string) error { return s.Commit([]Record{record(id, sw, 3, 0)}) },
			func(l layout) uint64 { return l.results }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir, id := filledStore(t)
			l := readLayout(t, dir)
			s, err := Open(dir, Options{})
			must(t, err)
			defer s.Close()
			overwrite(t, dir, int64(tc.page(l))*int64(l.pageSize), garbage(16))
			wantCorrupt(t, tc.name, tc.first(s, id), dir)
			_, err = s.Sweep(id)
			wantCorrupt(t, "Sweep after the damage", err, dir)
			wantCorrupt(t, "Commit after the damage", s.Commit([]Record{{SweepID: id, Job: 1, Failure: "x"}}), dir)
		})
	}
}

// TestEmptyFileIsRefused: a store file truncated to 0 bytes is not
// silently reinitialised as an empty store; a file Open creates itself is
// fine.
func TestEmptyFileIsRefused(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, FileName)
	must(t, os.WriteFile(path, nil, 0o644))
	s, err := Open(dir, Options{})
	if err == nil {
		s.Close()
	}
	wantEmpty := func(what string, err error) {
		t.Helper()
		if !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "empty") {
			t.Errorf("%s of an empty file: %v, want ErrCorrupt naming %s and saying it is empty", what, err, path)
		}
	}
	wantEmpty("Open", err)
	_, err = OpenReadOnly(dir)
	wantEmpty("OpenReadOnly", err)
	_, err = Check(dir)
	wantEmpty("Check", err)
	if fi, err := os.Stat(path); err != nil || fi.Size() != 0 {
		t.Errorf("the empty file was touched: %v, %v", fi, err)
	}

	// Deleting it deliberately starts a fresh store, which reopens.
	must(t, os.Remove(path))
	s, err = Open(dir, Options{})
	must(t, err)
	must(t, s.Close())
	s, err = Open(dir, Options{})
	must(t, err)
	must(t, s.Close())
}

// TestCheck: a healthy store is counted and left unchanged; damaged
// records, a sweep whose draws are missing and another schema are found.
func TestCheck(t *testing.T) {
	dir, id := filledStore(t)
	path := filepath.Join(dir, FileName)
	before, err := os.ReadFile(path)
	must(t, err)
	rep, err := Check(dir)
	must(t, err)
	want := Report{Path: path, Schema: SchemaVersion, Sweeps: 1, Draws: 200, Pipelines: 3, Results: 3000, Failures: 1}

	if rep.Path != want.Path || rep.Schema != want.Schema || rep.Sweeps != 1 || rep.Draws != 200 ||
		rep.Pipelines != 3 || rep.Results != 3000 || rep.ResultErrors != 0 || rep.Failures != 1 || !rep.OK() {
		t.Errorf("report %+v, want counts of %+v", rep, want)
	}
	if rep.PageSize == 0 || rep.Pages == 0 || rep.Reached < 3 || rep.TxID == 0 || rep.Size != int64(len(before)) {
		t.Errorf("report %+v lacks the file's geometry", rep)
	}
	if after, _ := os.ReadFile(path); !bytes.Equal(before, after) {
		t.Error("Check changed the file")
	}
	if r2, err := Check(path); err != nil || r2.Results != rep.Results {
		t.Errorf("Check of the file path: %+v, %v", r2, err)
	}

	// Damage that bbolt's pages do not show: a result whose value is not
	// the one framed, a lost draw. Written with bbolt directly.
	db, err := bolt.Open(path, 0o644, nil)
	must(t, err)
	must(t, db.Update(func(tx *bolt.Tx) error {
		c := tx.Bucket(bucketResults).Cursor()
		k, _ := c.First()
		if err := tx.Bucket(bucketResults).Put(bytes.Clone(k), []byte{9, 9, 9, 9, 9}); err != nil {
			return err
		}
		dk, _ := tx.Bucket(bucketDraws).Cursor().First()
		return tx.Bucket(bucketDraws).Delete(bytes.Clone(dk))
	}))
	must(t, db.Close())
	rep, err = Check(dir)
	if !errors.Is(err, ErrCorrupt) || len(rep.Problems) != 3 || rep.Results != 3000 || rep.Draws != 199 || len(rep.Damaged) != 1 {
		t.Fatalf("after damaging two records: %v, %+v", err, rep)
	}
	for i, want := range [][]string{
		{`the result of sweep "t", scenario `, ", rep 0, pipeline ", "is damaged (checksum mismatch)"},
		{"bucket draws holds 199 records, but 200 were written", "1 records were lost"},
		{id[:12], "1 of its 200 draws"},
	} {
		for _, w := range want {
			if !strings.Contains(rep.Problems[i], w) {
				t.Errorf("problem %d %q does not say %q", i, rep.Problems[i], w)
			}
		}
	}
	s, err := Open(dir, Options{})
	if err == nil {
		s.Close()
	}
	if !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), rep.Problems[0]) {
		t.Errorf("Open of the damaged store: %v, want ErrCorrupt naming the result", err)
	}

	other := t.TempDir()
	s, err = Open(other, Options{})
	must(t, err)
	must(t, s.boltWrite(func(tx *bolt.Tx) error { return tx.Bucket(bucketMeta).Put(keySchema, []byte("misslab-store/99")) }))
	must(t, s.Close())
	if rep, err := Check(other); !errors.Is(err, ErrSchema) || errors.Is(err, ErrCorrupt) || rep.Schema != "misslab-store/99" {
		t.Errorf("other schema: %v, %+v; want ErrSchema", err, rep)
	}
	if _, err := Check(filepath.Join(other, "nothing")); !errors.Is(err, ErrNoStore) {
		t.Errorf("no store: %v, want ErrNoStore", err)
	}
}

// TestCheckWaitsForAWriter: a store held by a running coordinator is not
// checked; the error says so. (bbolt's lock timeout is 5 s.)
func TestCheckWaitsForAWriter(t *testing.T) {
	if testing.Short() {
		t.Skip("waits for bbolt's 5 s lock timeout")
	}
	_, dir := openTest(t, Options{})
	start := time.Now()
	_, err := Check(dir)
	if !errors.Is(err, bolt.ErrTimeout) || errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), "copy") {
		t.Errorf("check of a held store after %v: %v, want a timeout that suggests a copy", time.Since(start), err)
	}
}

// callbackBug is what the callbacks of TestCallerPanicIsNotDamage panic with.
type callbackBug struct{}

type panicWriter struct{}

func (panicWriter) Write([]byte) (int, error) { panic(callbackBug{}) }

// TestCallerPanicIsNotDamage: a panic in a caller's callback (a bug of
// the caller) reaches the caller as it was, and the store keeps working:
// only bbolt's and the store's own panics mean a damaged file.
func TestCallerPanicIsNotDamage(t *testing.T) {
	s, _ := openTest(t, Options{NoSync: true})
	rates := make([]float64, 100)
	for i := range rates {
		rates[i] = float64(i) / 100
	}
	sw := testSweep(t, rates, 2, "tree/mia")
	id := put(t, s, sw)
	recs := []Record{{SweepID: id, Job: 1, Failure: "x"}}
	for j := 2; j < sw.Jobs(); j++ {
		recs = append(recs, record(id, sw, j, 0))
	}
	must(t, s.Commit(recs))
	for _, tc := range []struct {
		name string
		call func()
	}{
		{"ScanSweep Done", func() { _ = s.ScanSweep(id, sw, ScanFuncs{Done: func(int) { panic(callbackBug{}) }}) }},
		{"ScanSweep Failed", func() { _ = s.ScanSweep(id, sw, ScanFuncs{Failed: func(int, string) { panic(callbackBug{}) }}) }},
		{"SweepResults", func() {
			_ = s.SweepResults(sw, func(int, int, int, int, Result) error { panic(callbackBug{}) })
		}},
		{"ExportCSV writer, within a transaction", func() { _ = s.ExportCSV(panicWriter{}, id) }},
		{"ExportCSV writer, at the final flush", func() { _ = s.ExportCSV(panicWriter{}) }},
	} {
		func() {
			defer func() {
				if r := recover(); r != (callbackBug{}) {
					t.Errorf("%s: recovered %v, want the callback's own panic", tc.name, r)
				}
			}()
			tc.call()
			t.Errorf("%s: no panic", tc.name)
		}()
	}
	if _, err := s.Sweeps(); err != nil {
		t.Errorf("store after the callbacks' panics: %v", err)
	}
	if err := s.Commit([]Record{record(id, sw, 0, 0)}); err != nil {
		t.Errorf("commit after the callbacks' panics: %v", err)
	}
}

// TestShortFileIsRefused: a store file truncated short of its two meta
// pages (a failed copy) is refused as damaged, naming the file and, once
// its first page is whole, its size, not with bbolt's bare "file size
// too small".
func TestShortFileIsRefused(t *testing.T) {
	src, _ := openTest(t, Options{})
	whole, err := os.ReadFile(src.path)
	must(t, err)
	for _, size := range []int{1, 100, 4095, 8191} {
		dir := t.TempDir()
		must(t, os.WriteFile(filepath.Join(dir, FileName), whole[:size], 0o644))
		s, err := Open(dir, Options{})
		if err == nil {
			s.Close()
		}
		wantCorrupt(t, fmt.Sprintf("Open of %d bytes", size), err, dir)
		if size >= 4095 && !strings.Contains(fmt.Sprint(err), fmt.Sprintf("has %d bytes", size)) {
			t.Errorf("Open of %d bytes: %v does not say how short the file is", size, err)
		}
		_, err = Check(dir)
		wantCorrupt(t, fmt.Sprintf("Check of %d bytes", size), err, dir)
	}
}
