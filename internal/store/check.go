package store

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	bolt "go.etcd.io/bbolt"

	"github.com/misslab/misslab/internal/grid"
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

	// Problems says what is wrong, at most 20 lines; More counts the
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
// reachable from the meta page in use, runs bbolt's consistency check,
// checks the schema version, and decodes every sweep, draw, pipeline and
// result record, checking that each sweep's draws and pipelines are
// stored. The error wraps ErrCorrupt if anything is damaged (the report
// lists what), ErrSchema for a file of another schema version, and
// ErrNoStore when there is no file.
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
	db, err := openChecked(&r)
	switch {
	case errors.Is(err, bolt.ErrTimeout):
		return r, fmt.Errorf("store: check %s: %w (a coordinator holds it: stop it, or check a copy of the directory)", path, err)
	case err != nil && !r.OK():
		return r, err // the walk's problems, listed already
	case err != nil:
		return r, r.failure(err)
	}
	defer db.Close()
	s := &Store{db: db, path: path}
	err = s.view(func(tx *bolt.Tx) error {
		for err := range tx.Check() {
			r.problem("bbolt check: %v", err)
		}
		if m := tx.Bucket(bucketMeta); m != nil {
			r.Schema, r.FPClass = string(m.Get(keySchema)), string(m.Get(keyFPClass))
		}
		if err := checkSchema(tx, path); err != nil {
			return err
		}
		r.records(tx)
		return nil
	})
	return r, r.failure(err)
}

// failure is Check's error: err if it wraps ErrCorrupt (a read met a
// damaged page), else one wrapping ErrCorrupt if there are problems, else
// err (a schema mismatch, an I/O error) or nil.
func (r *Report) failure(err error) error {
	switch {
	case errors.Is(err, ErrCorrupt):
		r.problem("%s", damage(err))
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

// records decodes every record of the store's buckets and counts them.
func (r *Report) records(tx *bolt.Tx) {
	draws, pipes := tx.Bucket(bucketDraws), tx.Bucket(bucketPipelines)
	r.Sweeps = r.each(tx, bucketSweeps, sweepIDLen, func(k, v []byte) error {
		var rec SweepRecord
		if err := json.Unmarshal(v, &rec); err != nil {
			return err
		}
		if rec.ID != string(k) || rec.Spec == nil {
			return fmt.Errorf("record of sweep %q has no spec or another id", rec.ID)
		}
		return sweepRefs(rec.Spec, draws, pipes)
	})
	r.Draws = r.each(tx, bucketDraws, len(DrawKey{}), func(_, v []byte) error {
		var d struct{ Scenario json.RawMessage }
		return json.Unmarshal(v, &d)
	})
	r.Pipelines = r.each(tx, bucketPipelines, len(PipeKey{}), func(k, v []byte) error {
		var p grid.Pipeline
		if err := json.Unmarshal(v, &p); err != nil {
			return err
		}
		if pk := NewPipeKey(p); string(pk[:]) != string(k) {
			return fmt.Errorf("pipeline %s is stored under another key", p.Canonical())
		}
		return nil
	})
	r.Results = r.each(tx, bucketResults, resultKeyLen, func(_, v []byte) error {
		res, err := decodeResult(v)
		if err == nil && res.ErrKind != "" {
			r.ResultErrors++
		}
		return err
	})
	r.Failures = r.each(tx, bucketFailures, sweepIDLen+8, func([]byte, []byte) error { return nil })
}

// each calls fn on every key of bucket name, checks the key length and
// counts the records; a record that fails is a problem.
func (r *Report) each(tx *bolt.Tx, name []byte, keyLen int, fn func(k, v []byte) error) int {
	n := 0
	c := tx.Bucket(name).Cursor()
	for k, v := c.First(); k != nil; k, v = c.Next() {
		n++
		switch {
		case len(k) != keyLen:
			r.problem("%s: key %x of %d bytes, want %d", name, k, len(k), keyLen)
		case v == nil:
			r.problem("%s: key %x holds a bucket, not a record", name, k)
		default:
			if err := fn(k, v); err != nil {
				r.problem("%s: record %s: %v", name, keyText(name, k), err)
			}
		}
	}
	return n
}

// sweepRefs checks that the draws and pipelines a sweep refers to are
// stored (PutSweep writes them before the record).
func sweepRefs(sw *grid.Sweep, draws, pipes *bolt.Bucket) error {
	missing := 0
	for _, sc := range sw.Scenarios {
		if k := NewDrawKey(sw.Seed, sc); draws.Get(k[:]) == nil {
			missing++
		}
	}
	if missing > 0 {
		return fmt.Errorf("%d of its %d draws are not stored", missing, len(sw.Scenarios))
	}
	for _, p := range sw.Pipelines {
		if k := NewPipeKey(p); pipes.Get(k[:]) == nil {
			return fmt.Errorf("its pipeline %s is not stored", p.Canonical())
		}
	}
	return nil
}

// keyText shows a key in a problem: sweep ids as text, others in hex.
func keyText(bucket, k []byte) string {
	if string(bucket) == string(bucketSweeps) {
		return fmt.Sprintf("%.12q", k)
	}
	return fmt.Sprintf("%x", k)
}
