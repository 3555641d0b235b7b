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

	"github.com/misslab/misslab/internal/grid"
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
}

// Store is an open data directory. Its methods are safe for concurrent use.
type Store struct {
	db     *bolt.DB
	opts   Options
	path   string                // the bbolt file
	broken atomic.Pointer[error] // set once a transaction met a damaged page

	// chunkDone, if set, is called after each transaction of draws that
	// PutSweep commits (tests use it to interleave other writes).
	chunkDone func(done, total int)
}

// Open opens (creating if needed) the store in dir. It fails with an error
// wrapping ErrSchema if the file has a different schema version, with one
// wrapping ErrCorrupt if the file is damaged (its pages are checked before
// bbolt reads them) or is empty although it existed before this call, and
// times out after 5 s if another process holds the file.
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
	s := &Store{db: db, opts: opts, path: path}
	if err := s.write(s.initSchema); err != nil {
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

func (s *Store) initSchema(tx *bolt.Tx) error {
	if m := tx.Bucket(bucketMeta); m != nil {
		if v := m.Get(keySchema); string(v) != SchemaVersion {
			return fmt.Errorf("%w: file has %q, this build reads %q", ErrSchema, v, SchemaVersion)
		}
	}
	for _, b := range allBuckets {
		if _, err := tx.CreateBucketIfNotExists(b); err != nil {
			return fmt.Errorf("%w: create bucket %s: %w", ErrWrite, b, err)
		}
	}
	return tx.Bucket(bucketMeta).Put(keySchema, []byte(SchemaVersion))
}

// Close closes the file.
func (s *Store) Close() error { return s.db.Close() }

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
func (s *Store) ScanSweep(id string, sw *grid.Sweep, f ScanFuncs) error {
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
			if job := int(binary.BigEndian.Uint64(k[sweepIDLen:])); job < sw.Jobs() {
				f.Failed(job, string(v))
			}
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
	err := s.update(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketFailures)
		c := b.Cursor()
		for k, _ := c.Seek([]byte(id)); k != nil && bytes.HasPrefix(k, []byte(id)); k, _ = c.Seek([]byte(id)) {
			if err := b.Delete(k); err != nil {
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
func (s *Store) Lookup(seed uint64, sw *grid.Sweep, job, pipeline int) (Result, bool, error) {
	si, rep := sw.Job(job)
	k := resultKey(NewDrawKey(seed, sw.Scenarios[si]), rep, NewPipeKey(sw.Pipelines[pipeline]))
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
		r, err = decodeResult(v)
		return err
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
