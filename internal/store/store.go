package store

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
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
	db   *bolt.DB
	opts Options
}

// Open opens (creating if needed) the store in dir. It fails with an error
// wrapping ErrSchema if the file has a different schema version, and
// times out after 5 s if another process holds the file.
func Open(dir string, opts Options) (*Store, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("store: create data directory: %w", err)
	}
	db, err := bolt.Open(filepath.Join(dir, FileName), 0o644, &bolt.Options{
		Timeout: 5 * time.Second, NoFreelistSync: true, FreelistType: bolt.FreelistMapType, NoSync: opts.NoSync,
	})
	if err != nil {
		return nil, fmt.Errorf("store: open %s: %w", dir, err)
	}
	s := &Store{db: db, opts: opts}
	if err := db.Update(s.initSchema); err != nil {
		db.Close()
		return nil, err
	}
	return s, nil
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

// update runs fn in a write transaction, after the write hook.
func (s *Store) update(fn func(*bolt.Tx) error) error {
	return s.db.Update(func(tx *bolt.Tx) error {
		if s.opts.WriteHook != nil {
			if err := s.opts.WriteHook(); err != nil {
				return err
			}
		}
		return fn(tx)
	})
}

// Close closes the file.
func (s *Store) Close() error { return s.db.Close() }

// SweepRecord is what the store keeps about a submitted sweep.
type SweepRecord struct {
	ID        string      `json:"id"` // grid.Sweep.Hash()
	Spec      *grid.Sweep `json:"spec"`
	Cancelled bool        `json:"cancelled"`
	Submitted time.Time   `json:"submitted"`
}

type drawRecord struct {
	Seed     uint64 `json:"seed"`
	Scenario any    `json:"scenario"`
}

// PutSweep stores a sweep record and the draws and pipelines its results
// refer to, in one transaction.
func (s *Store) PutSweep(rec SweepRecord) error {
	val, err := json.Marshal(rec)
	if err != nil {
		return fmt.Errorf("store: encode sweep: %w", err)
	}
	err = s.update(func(tx *bolt.Tx) error {
		if err := tx.Bucket(bucketSweeps).Put([]byte(rec.ID), val); err != nil {
			return err
		}
		draws, pipes := tx.Bucket(bucketDraws), tx.Bucket(bucketPipelines)
		for _, sc := range rec.Spec.Scenarios {
			k := NewDrawKey(rec.Spec.Seed, sc)
			if draws.Get(k[:]) != nil {
				continue
			}
			v, _ := json.Marshal(drawRecord{Seed: rec.Spec.Seed, Scenario: sc})
			if err := draws.Put(k[:], v); err != nil {
				return err
			}
		}
		for _, p := range rec.Spec.Pipelines {
			k := NewPipeKey(p)
			v, _ := json.Marshal(p)
			if err := pipes.Put(k[:], v); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("%w: put sweep %s: %w", ErrWrite, rec.ID, err)
	}
	return nil
}

// SetCancelled records whether a sweep is cancelled.
func (s *Store) SetCancelled(id string, cancelled bool) error {
	rec, err := s.Sweep(id)
	if err != nil {
		return err
	}
	rec.Cancelled = cancelled
	return s.PutSweep(rec)
}

// Sweep returns the record of the sweep whose id is id or starts with id.
func (s *Store) Sweep(id string) (SweepRecord, error) {
	var rec SweepRecord
	err := s.db.View(func(tx *bolt.Tx) error {
		c := tx.Bucket(bucketSweeps).Cursor()
		k, v := c.Seek([]byte(id))
		if k == nil || !bytes.HasPrefix(k, []byte(id)) || id == "" {
			return fmt.Errorf("%w: %q", ErrNotFound, id)
		}
		if len(id) < sweepIDLen {
			if k2, _ := c.Next(); k2 != nil && bytes.HasPrefix(k2, []byte(id)) {
				return fmt.Errorf("%w: %q", ErrAmbiguous, id)
			}
		}
		return json.Unmarshal(v, &rec)
	})
	return rec, err
}

// Sweeps returns every sweep record, oldest submission first.
func (s *Store) Sweeps() ([]SweepRecord, error) {
	var out []SweepRecord
	err := s.db.View(func(tx *bolt.Tx) error {
		return tx.Bucket(bucketSweeps).ForEach(func(k, v []byte) error {
			var rec SweepRecord
			if err := json.Unmarshal(v, &rec); err != nil {
				return fmt.Errorf("store: decode sweep %s: %w", k, err)
			}
			out = append(out, rec)
			return nil
		})
	})
	sort.SliceStable(out, func(i, j int) bool { return out[i].Submitted.Before(out[j].Submitted) })
	return out, err
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
func (s *Store) ScanSweep(id string, sw *grid.Sweep, f ScanFuncs) error {
	pipeIdx := make(map[PipeKey]int, len(sw.Pipelines))
	for i, p := range sw.Pipelines {
		pipeIdx[NewPipeKey(p)] = i
	}
	nScen := len(sw.Scenarios)
	return s.db.View(func(tx *bolt.Tx) error {
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
				if rep < sw.Repetitions {
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
	err := s.db.View(func(tx *bolt.Tx) error {
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

// CountResults returns the number of stored per-pipeline results.
func (s *Store) CountResults() (int, error) {
	n := 0
	err := s.db.View(func(tx *bolt.Tx) error {
		n = tx.Bucket(bucketResults).Stats().KeyN
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
