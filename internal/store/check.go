package store

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	bolt "go.etcd.io/bbolt"

	storev1 "github.com/misslab/misslab/proto/misslab/store/v1"
)

// Report is what Check found in a store file.
type Report struct {
	Path     string // the bbolt file checked
	Size     int64  // file size in bytes
	PageSize int    // bytes
	Pages    uint64 // high-water mark: pages in use or free
	Reached  int    // pages reachable from the meta page in use, both meta pages included
	TxID     uint64 // last committed transaction
	Schema   string // schema version stored in the file, "" if none
	FPClass  string // floating-point class of the results (see Store.FPClass), "" if none recorded

	Sweeps, Draws, Pipelines int // records in those buckets
	Results                  int // per-pipeline results
	ResultErrors             int // of which failed pipelines (ErrKind set)
	Failures                 int // failed jobs
	Tables                   int // users' tables

	// History lists the schema migrations the file went through.
	History []Migration
	// Pending is, for a file of an older schema, what opening it
	// read-write would do: the migration Check ran on a temporary copy.
	Pending []Migration

	// Damaged lists the records whose frame (checksum) fails, at most
	// 1000; DamagedMore counts the others. Problems names each.
	Damaged     []DamagedRecord
	DamagedMore int
	// countProblems are the buckets whose records differ from meta
	// "counts" (records lost or added by damage): problems, but not of
	// the pages, so that the records can still be read and named.
	countProblems []string

	// Problems says what is wrong, at most 1000 lines; More counts the
	// problems beyond them. Both are empty for a healthy store.
	Problems []string
	More     int
}

// OK reports whether Check found no problem.
func (r *Report) OK() bool { return len(r.Problems) == 0 }

func (r *Report) problem(format string, args ...any) {
	if len(r.Problems) < maxProblems {
		r.Problems = append(r.Problems, fmt.Sprintf(format, args...))
		return
	}
	r.More++
}

// Check verifies the store at path (a data directory, or the store file
// itself) without changing it: it opens the file read-only (waiting up
// to 5 s for a running coordinator to let go of it), walks every page
// reachable from the meta page in use, checks every record's frame and
// each bucket's count, runs bbolt's consistency check, checks the schema
// version, and decodes every record, checking that each draw and
// pipeline is stored under the key its content derives and that each
// sweep's draws and pipelines are stored. Every damaged record is named
// (for a result: its sweep, scenario, repetition and pipeline). A file
// of an older schema is migrated in a temporary copy, whose outcome is
// Report.Pending. The error wraps ErrCorrupt if anything is damaged (the
// report lists what), ErrSchema for a file of a newer or unknown schema,
// and ErrNoStore when there is no file.
func Check(path string) (Report, error) {
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		path = filepath.Join(path, FileName)
	}
	r := Report{Path: path}
	fi, err := os.Stat(path)
	if err != nil {
		return r, fmt.Errorf("%w: %w", ErrNoStore, err)
	}
	if r.Size = fi.Size(); r.Size == 0 {
		r.problem("the file is empty (0 bytes)")
		return r, emptyFileError(path)
	}
	db, err := openWalked(&r)
	switch {
	case errors.Is(err, bolt.ErrTimeout):
		return r, fmt.Errorf("store: check %s: %w (a coordinator holds it: stop it, or check a copy of the directory)", path, err)
	case err != nil && !r.OK():
		return r, err // the walk's problems, listed already
	case err != nil:
		return r, r.failure(err)
	}
	s := &Store{db: db, path: path}
	err = s.view(func(tx *bolt.Tx) error { return r.inspect(tx) })
	db.Close()
	if err == nil && r.OK() && r.Schema != SchemaVersion {
		err = r.pending(filepath.Dir(path))
	}
	return r, r.failure(err)
}

// inspect is Check's pass over a file whose pages are sound.
func (r *Report) inspect(tx *bolt.Tx) error {
	for err := range tx.Check() {
		r.problem("bbolt check: %v", err)
	}
	m := tx.Bucket(bucketMeta)
	if m == nil {
		return fmt.Errorf("%w: %s has no schema version", ErrSchema, r.Path)
	}
	r.Schema = string(m.Get(keySchema))
	if n, ok := schemaNumber(r.Schema); !ok || n > currentSchema {
		return schemaError(r.Path, r.Schema)
	}
	if r.Schema != SchemaVersion {
		return nil // see pending
	}
	if err := checkSchema(tx, r.Path); err != nil {
		return err
	}
	r.contentProblems(tx)
	r.meta(tx)
	r.records(tx)
	return nil
}

// contentProblems reports whether the walk found damaged records or
// counts that differ, and adds them to Problems: the damaged records
// named through tx (describeDamaged), then the counts.
func (r *Report) contentProblems(tx *bolt.Tx) bool {
	r.describeDamaged(tx)
	for _, p := range r.countProblems {
		r.problem("%s", p)
	}
	return len(r.Damaged) > 0 || len(r.countProblems) > 0
}

// pending migrates a temporary copy of the file (of an older schema) and
// reports what the migration did and the migrated copy's records.
func (r *Report) pending(dir string) error {
	s, err := openMigratedCopy(dir, r.Path)
	if err != nil {
		return err
	}
	defer s.Close()
	r.Pending = s.Migrations()
	return s.view(func(tx *bolt.Tx) error {
		r.meta(tx)
		r.History = nil // the copy's own migration is Pending, not the file's history
		r.records(tx)
		return nil
	})
}

// meta reads the floating-point class and the migration history.
func (r *Report) meta(tx *bolt.Tx) {
	var class storev1.FPClass
	var hist storev1.History
	if _, err := get(tx, bucketMeta, keyFPClass, &class); err != nil {
		r.problem("meta fp-class: %v", err)
	}
	if _, err := get(tx, bucketMeta, keyHistory, &hist); err != nil {
		r.problem("meta history: %v", err)
	}
	r.FPClass, r.History = class.GetClass(), historyOf(&hist)
}

// failure is Check's error: err if it wraps ErrCorrupt (a read met a
// damaged page), else one wrapping ErrCorrupt if there are problems, else
// err (a schema mismatch, an I/O error) or nil.
func (r *Report) failure(err error) error {
	switch {
	case errors.Is(err, ErrCorrupt):
		if d := damage(err); len(r.Problems) == 0 || r.Problems[len(r.Problems)-1] != d {
			r.problem("%s", d)
		}
		return err
	case !r.OK():
		return r.corrupt()
	}
	return err
}

// corrupt is the error, wrapping ErrCorrupt, of a report with problems:
// it names the first and counts the others.
func (r *Report) corrupt() error {
	what := r.Problems[0]
	if n := len(r.Problems) + r.More; n > 1 {
		what = fmt.Sprintf("%s (and %d more problems)", what, n-1)
	}
	return corruptError(r.Path, what)
}
