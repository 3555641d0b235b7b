package store

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"time"

	bolt "go.etcd.io/bbolt"
)

// Sentinel errors. The RPC layer maps them to gRPC status codes.
var (
	// ErrNotFound: no sweep has that id (or id prefix).
	ErrNotFound = errors.New("store: sweep not found")
	// ErrAmbiguous: an id prefix matches more than one sweep.
	ErrAmbiguous = errors.New("store: ambiguous sweep id prefix")
	// ErrSchema: the file was written by an incompatible schema version.
	ErrSchema = errors.New("store: incompatible schema version")
	// ErrWrite: a write transaction failed (disk full, I/O error); nothing
	// of it was stored.
	ErrWrite = errors.New("store: write failed")
	// ErrClosed: the store was closed.
	ErrClosed = errors.New("store: closed")
)

// FileName is the name of the bbolt file inside a data directory.
const FileName = "misslab.db"

// Options tunes a Store. The zero value is valid.
type Options struct {
	// WriteHook, if set, is called inside every write transaction before
	// it commits; a non-nil error aborts the transaction, which then
	// leaves nothing behind. Tests use it to simulate a full disk.
	WriteHook func() error
	// NoSync skips fsync after each commit (benchmarks only: a crash may
	// then lose committed batches, never corrupt the file).
	NoSync bool
	// noBackup skips the backup before a migration (the migration of a
	// temporary copy, see OpenReadOnly and Check).
	noBackup bool
}

// Store is an open data directory. Its methods are safe for concurrent use.
type Store struct {
	db       *bolt.DB
	opts     Options
	path     string                // the bbolt file
	dataDir  string                // the data directory of its tables (next to the original file)
	broken   atomic.Pointer[error] // set once a transaction met a damaged page
	migrated []Migration           // what Open migrated, oldest step first
	cleanup  func()                // removes a temporary copy at Close, or nil

	// chunkDone, if set, is called after each transaction of draws that
	// PutSweep commits (tests use it to interleave other writes).
	chunkDone func(done, total int)
}

// Open opens (creating if needed) the store in dir. A file of an older
// schema is migrated forward to SchemaVersion in one transaction, after
// a backup copy of it is written beside it (see Migrations). It fails
// with an error wrapping ErrSchema if the file has a newer or unknown
// schema, with one wrapping ErrCorrupt if the file is damaged (its pages
// and records are checked before bbolt reads them) or is empty although
// it existed before this call, and times out after 5 s if another
// process holds the file.
func Open(dir string, opts Options) (*Store, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("store: create data directory: %w", err)
	}
	path := filepath.Join(dir, FileName)
	created, err := createIfMissing(path)
	if err != nil {
		return nil, err
	}
	if !created {
		db, err := openChecked(&Report{Path: path})
		if err != nil {
			return nil, openError(dir, err)
		}
		db.Close()
	}
	db, err := boltOpen(path, 0o644, bolt.Options{
		Timeout: 5 * time.Second, NoFreelistSync: true, FreelistType: bolt.FreelistMapType, NoSync: opts.NoSync,
	})
	if err != nil {
		if created {
			os.Remove(path) // ours and no store: the next Open would refuse it as empty
		}
		return nil, openError(dir, err)
	}
	s := &Store{db: db, opts: opts, path: path, dataDir: dir}
	if err := s.initSchema(); err != nil {
		db.Close()
		return nil, err
	}
	s.removeStaleUploads()
	return s, nil
}

// openError says which directory failed to open, unless err already
// names the file.
func openError(dir string, err error) error {
	if errors.Is(err, ErrCorrupt) {
		return err
	}
	return fmt.Errorf("store: open %s: %w", dir, err)
}

// createIfMissing creates an empty file at path if there is none and
// reports whether it did (bbolt then initialises it). An existing file of
// 0 bytes is refused: bbolt would silently start an empty store in it.
func createIfMissing(path string) (bool, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o644)
	if err == nil {
		return true, f.Close()
	}
	if !errors.Is(err, fs.ErrExist) {
		return false, fmt.Errorf("store: create %s: %w", path, err)
	}
	return false, refuseEmpty(path)
}

// refuseEmpty fails with an error wrapping ErrCorrupt if the store file
// at path exists and is empty.
func refuseEmpty(path string) error {
	if fi, err := os.Stat(path); err == nil && fi.Mode().IsRegular() && fi.Size() == 0 {
		return emptyFileError(path)
	}
	return nil
}

// initSchema makes a new file's buckets and records, or migrates an
// older file forward, or refuses a newer one.
func (s *Store) initSchema() error {
	var v []byte
	if err := s.view(func(tx *bolt.Tx) error {
		if m := tx.Bucket(bucketMeta); m != nil {
			v = bytes.Clone(m.Get(keySchema))
		}
		return nil
	}); err != nil {
		return err
	}
	switch {
	case v == nil:
		return s.boltWrite(initTx)
	case string(v) == SchemaVersion:
		return s.view(func(tx *bolt.Tx) error { return checkSchema(tx, s.path) })
	}
	n, ok := schemaNumber(string(v))
	if !ok || n > currentSchema {
		return schemaError(s.path, string(v))
	}
	return s.migrate(n)
}

// initTx writes an empty store of schema SchemaVersion. A file whose
// meta bucket has no schema but holds anything else is refused: it is
// not a new store.
func initTx(tx *bolt.Tx) error {
	if k, _ := tx.Cursor().First(); k != nil {
		return fmt.Errorf("%w: the file holds bucket %q but no schema version: not a misslab store", ErrSchema, k)
	}
	for _, b := range allBuckets {
		if _, err := tx.CreateBucket(b); err != nil {
			return fmt.Errorf("%w: create bucket %s: %w", ErrWrite, b, err)
		}
	}
	if err := writeCounts(tx, map[string]uint64{}); err != nil {
		return fmt.Errorf("%w: %w", ErrWrite, err)
	}
	return tx.Bucket(bucketMeta).Put(keySchema, []byte(SchemaVersion))
}

// Close closes the file (and removes the temporary migrated copy of a
// read-only open of an older file).
func (s *Store) Close() error {
	err := s.db.Close()
	if s.cleanup != nil {
		s.cleanup()
		s.cleanup = nil
	}
	return err
}

// ScanFuncs receive what ScanSweep finds. Jobs with no stored result at
// all are not reported. Any func may be nil.
type ScanFuncs struct {
	Done    func(job int)                // every pipeline of the job is stored
	Partial func(job int, missing []int) // some are; missing lists pipeline indices
	Failed  func(job int, msg string)    // the job reached the delivery limit
}

// ScanSweep reconstructs a sweep's progress from the stored results and
// failures alone: one cursor seek per scenario, so a sweep with no stored
// result costs one seek per scenario, not one per job.
func (s *Store) ScanSweep(id string, sw *Sweep, f ScanFuncs) error {
	f = f.guarded()
	pipeIdx := make(map[PipeKey]int, len(sw.Pipelines))
	for i, p := range sw.Pipelines {
		pipeIdx[NewPipeKey(p)] = i
	}
	nScen := len(sw.Scenarios)
	return s.view(func(tx *bolt.Tx) error {
		c := tx.Bucket(bucketResults).Cursor()
		found := make([]bool, len(sw.Pipelines))
		for si, sc := range sw.Scenarios {
			dk := NewDrawKey(sw.Seed, sc)
			k, _ := c.Seek(dk[:])
			for k != nil && bytes.HasPrefix(k, dk[:]) {
				rep := int(binary.BigEndian.Uint32(k[16:]))
				clear(found)
				for ; k != nil && bytes.HasPrefix(k, dk[:]) && int(binary.BigEndian.Uint32(k[16:])) == rep; k, _ = c.Next() {
					var pk PipeKey
					copy(pk[:], k[jobKeyLen:])
					if i, ok := pipeIdx[pk]; ok {
						found[i] = true
					}
				}
				if rep < sw.UnitCount() {
					report(rep*nScen+si, found, f)
				}
			}
		}
		if f.Failed == nil {
			return nil
		}
		fc := tx.Bucket(bucketFailures).Cursor()
		for k, v := fc.Seek([]byte(id)); k != nil && bytes.HasPrefix(k, []byte(id)); k, v = fc.Next() {
			job := int(binary.BigEndian.Uint64(k[sweepIDLen:]))
			if job >= sw.Jobs() {
				continue
			}
			msg, err := decodeFailure(k, v)
			if err != nil {
				return s.recordError(fmt.Sprintf("the failure of job %d of sweep %q (%s)", job, sw.Name, shortID(id)), err)
			}
			f.Failed(job, msg)
		}
		return nil
	})
}

func report(job int, found []bool, f ScanFuncs) {
	var missing []int
	for i, ok := range found {
		if !ok {
			missing = append(missing, i)
		}
	}
	switch {
	case len(missing) == 0:
		if f.Done != nil {
			f.Done(job)
		}
	case len(missing) < len(found) && f.Partial != nil:
		f.Partial(job, missing)
	}
}

// ClearFailures forgets the failed jobs of a sweep so that they run again.
func (s *Store) ClearFailures(id string) error {
	err := s.update(func(w *wtx) error {
		c := w.tx.Bucket(bucketFailures).Cursor()
		for k, _ := c.Seek([]byte(id)); k != nil && bytes.HasPrefix(k, []byte(id)); k, _ = c.Seek([]byte(id)) {
			if err := w.del(bucketFailures, bytes.Clone(k)); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("%w: clear failures of %s: %w", ErrWrite, id, err)
	}
	return nil
}

// Lookup returns the stored result of one pipeline on one job, and
// whether there is one.
func (s *Store) Lookup(sw *Sweep, job, pipeline int) (Result, bool, error) {
	si, rep := sw.Job(job)
	k := resultKey(NewDrawKey(sw.Seed, sw.Scenarios[si]), rep, NewPipeKey(sw.Pipelines[pipeline]))
	var (
		r  Result
		ok bool
	)
	err := s.view(func(tx *bolt.Tx) error {
		v := tx.Bucket(bucketResults).Get(k)
		if v == nil {
			return nil
		}
		ok = true
		var err error
		if r, err = decodeResult(k, v); err != nil {
			return s.recordError(fmt.Sprintf("the result of pipeline %s on job %d of sweep %q", sw.Pipelines[pipeline].Canonical(), job, sw.Name), err)
		}
		return nil
	})
	return r, ok, err
}

// CountResults returns the number of stored per-pipeline results. It
// visits every key (bbolt's bucket statistics would be cheaper, but they
// follow any leaf flagged as a bucket, and on a damaged page that can
// recurse until the stack overflows, which nothing can recover).
func (s *Store) CountResults() (int, error) {
	n := 0
	err := s.view(func(tx *bolt.Tx) error {
		c := tx.Bucket(bucketResults).Cursor()
		for k, _ := c.First(); k != nil; k, _ = c.Next() {
			n++
		}
		return nil
	})
	return n, err
}

// shortID is used in messages.
func shortID(id string) string {
	if len(id) > 12 {
		return id[:12]
	}
	return strings.Clone(id)
}
