package store

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	bolt "go.etcd.io/bbolt"
)

// fixtureSweeps are the sweeps of testdata/v1 (made by its make.sh with
// the release of schema 1), each with the CSV that release exported.
var fixtureSweeps = []string{"simulated", "table", "broken"}

// copyFixture copies the v1 data directory into a temporary directory.
func copyFixture(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	src := filepath.Join("testdata", "v1", "data")
	err := filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dir, rel), 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dir, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// exportByName exports the sweep named name.
func exportByName(t *testing.T, s *Store, name string) []byte {
	t.Helper()
	rec, _, err := s.Resolve(name)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := s.ExportCSV(&b, rec.ID); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestV1FixtureMigrates: a data directory of schema 1, made by that
// release, opens, migrates to the current schema in one step after a
// backup identical to the file as it was, and exports every sweep to the
// bytes that release exported; it then passes Check, and a second open
// migrates nothing.
func TestV1FixtureMigrates(t *testing.T) {
	dir := copyFixture(t)
	before, err := os.ReadFile(filepath.Join(dir, FileName))
	if err != nil {
		t.Fatal(err)
	}
	s, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	ms := s.Migrations()
	if len(ms) != 1 || ms[0].From != "misslab-store/1" || ms[0].To != SchemaVersion {
		t.Fatalf("migrations %+v, want one from misslab-store/1 to %s", ms, SchemaVersion)
	}
	wantRecords := map[string]int{"sweeps": 3, "draws": 5, "pipelines": 8, "results": 36, "failures": 2, "tables": 2, "meta": 2}
	for b, n := range wantRecords {
		if ms[0].Records[b] != n {
			t.Errorf("migration rewrote %d %s records, want %d", ms[0].Records[b], b, n)
		}
	}
	checkBackup(t, ms[0].Backup, dir, before)
	for _, name := range fixtureSweeps {
		want, err := os.ReadFile(filepath.Join("testdata", "v1", "export-"+name+".csv"))
		if err != nil {
			t.Fatal(err)
		}
		if got := exportByName(t, s, name); !bytes.Equal(got, want) {
			t.Errorf("sweep %s exports differently after the migration:\n%s\nwant (schema 1's export):\n%s", name, got, want)
		}
	}
	if class, has, err := s.FPClass(); err != nil || !has || !strings.Contains(class, "scores/") {
		t.Errorf("FPClass = %q, %v, %v; want the class schema 1 recorded", class, has, err)
	}
	if key, err := s.LeaseKey(); err != nil || len(key) != leaseKeyLen {
		t.Errorf("LeaseKey = %x, %v", key, err)
	}
	hist, err := s.History()
	if err != nil || len(hist) != 1 || hist[0].Backup != filepath.Base(ms[0].Backup) {
		t.Errorf("History = %+v, %v; want the migration with its backup", hist, err)
	}
	s.Close()
	rep, err := Check(dir)
	if err != nil || rep.Schema != SchemaVersion || rep.Results != 36 || rep.ResultErrors != 4 || rep.Failures != 2 || rep.Tables != 2 {
		t.Errorf("Check after the migration: %+v, %v", rep, err)
	}
	s, err = Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if ms := s.Migrations(); ms != nil {
		t.Errorf("a second open migrated again: %+v", ms)
	}
}

// checkBackup checks that the backup is beside the file and holds what
// the file held.
func checkBackup(t *testing.T, backup, dir string, before []byte) {
	t.Helper()
	if filepath.Dir(backup) != dir || !strings.HasPrefix(filepath.Base(backup), FileName+".schema-1.") {
		t.Fatalf("backup %q, want %s.schema-1.<time>.bak in %s", backup, FileName, dir)
	}
	db, err := bolt.Open(backup, 0o444, &bolt.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	orig := filepath.Join(t.TempDir(), "orig.db")
	if err := os.WriteFile(orig, before, 0o644); err != nil {
		t.Fatal(err)
	}
	odb, err := bolt.Open(orig, 0o444, &bolt.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer odb.Close()
	if a, b := dump(t, db), dump(t, odb); a != b {
		t.Errorf("the backup holds other records than the file before the migration")
	}
}

// dump returns every bucket, key and value of db as text.
func dump(t *testing.T, db *bolt.DB) string {
	t.Helper()
	var b strings.Builder
	err := db.View(func(tx *bolt.Tx) error {
		return tx.ForEach(func(name []byte, bk *bolt.Bucket) error {
			return bk.ForEach(func(k, v []byte) error {
				b.WriteString(string(name) + " " + string(k) + " " + string(v) + "\n")
				return nil
			})
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// TestV1FixtureReadOnly: report and export read a copy of an old data
// directory without changing it: OpenReadOnly migrates a temporary copy,
// and Check says what a migration would do.
func TestV1FixtureReadOnly(t *testing.T) {
	dir := copyFixture(t)
	before, _ := os.ReadFile(filepath.Join(dir, FileName))
	s, err := OpenReadOnly(dir)
	if err != nil {
		t.Fatal(err)
	}
	if ms := s.Migrations(); len(ms) != 1 || ms[0].Backup != "" {
		t.Errorf("read-only migrations %+v, want one, of a copy (no backup)", ms)
	}
	for _, name := range fixtureSweeps {
		want, _ := os.ReadFile(filepath.Join("testdata", "v1", "export-"+name+".csv"))
		if got := exportByName(t, s, name); !bytes.Equal(got, want) {
			t.Errorf("sweep %s: read-only export differs from schema 1's", name)
		}
	}
	if _, err := s.PutTable(t.Context(), strings.NewReader(""), strings.Repeat("0", 64), 0, "x"); err == nil {
		t.Error("a read-only store accepted a write")
	}
	s.Close()
	rep, err := Check(dir)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Schema != "misslab-store/1" || len(rep.Pending) != 1 || rep.Pending[0].To != SchemaVersion || rep.Results != 36 {
		t.Errorf("Check of a schema-1 file: %+v", rep)
	}
	after, _ := os.ReadFile(filepath.Join(dir, FileName))
	if !bytes.Equal(before, after) {
		t.Error("reading and checking the schema-1 file changed it")
	}
	if left, _ := filepath.Glob(filepath.Join(dir, "*.bak")); len(left) > 0 {
		t.Errorf("read-only opens left backups: %v", left)
	}
}

// TestNewerSchemaIsRefused: a file of a newer schema, or of none misslab
// writes, is refused by every open with both versions named, and left
// as it is.
func TestNewerSchemaIsRefused(t *testing.T) {
	for _, v := range []string{"misslab-store/3", "misslab-store/02", "other/1"} {
		dir := t.TempDir()
		s, err := Open(dir, Options{})
		if err != nil {
			t.Fatal(err)
		}
		must(t, s.boltWrite(func(tx *bolt.Tx) error { return tx.Bucket(bucketMeta).Put(keySchema, []byte(v)) }))
		s.Close()
		for name, open := range map[string]func() error{
			"Open":         func() error { s, err := Open(dir, Options{}); closeIf(s); return err },
			"OpenReadOnly": func() error { s, err := OpenReadOnly(dir); closeIf(s); return err },
			"Check":        func() error { _, err := Check(dir); return err },
		} {
			err := open()
			if !errors.Is(err, ErrSchema) || !strings.Contains(err.Error(), v) {
				t.Errorf("%s of schema %q: %v, want ErrSchema naming it", name, v, err)
			}
			if n, _ := schemaNumber(v); n > currentSchema && !strings.Contains(err.Error(), SchemaVersion) {
				t.Errorf("%s of schema %q: %v does not name this build's %s", name, v, err, SchemaVersion)
			}
		}
	}
}

func closeIf(s *Store) {
	if s != nil {
		s.Close()
	}
}

// TestFailedMigrationLeavesTheFileAsItWas: a schema-1 record that does
// not decode stops the migration; the file is unchanged, no backup is
// left, and the error names the record.
func TestFailedMigrationLeavesTheFileAsItWas(t *testing.T) {
	dir := copyFixture(t)
	path := filepath.Join(dir, FileName)
	db, err := bolt.Open(path, 0o644, nil)
	if err != nil {
		t.Fatal(err)
	}
	var key []byte
	must(t, db.Update(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketPipelines)
		k, v := b.Cursor().First()
		key = bytes.Clone(k)
		return b.Put(key, bytes.Replace(v, []byte(`"Name"`), []byte(`"Nane"`), 1))
	}))
	db.Close()
	before, _ := os.ReadFile(path)
	_, err = Open(dir, Options{})
	if !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), "pipelines") || !strings.Contains(err.Error(), "unchanged") {
		t.Errorf("Open: %v; want ErrCorrupt naming the pipelines record and saying the file is unchanged", err)
	}
	after, _ := os.ReadFile(path)
	if !bytes.Equal(before, after) {
		t.Error("a failed migration changed the file")
	}
	if left, _ := filepath.Glob(filepath.Join(dir, "*.bak")); len(left) > 0 {
		t.Errorf("a failed migration left its backup: %v", left)
	}
}
