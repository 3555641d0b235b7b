package store

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	bolt "go.etcd.io/bbolt"

	"github.com/misslab/misslab/internal/grid"
)

// ErrNoStore is returned by OpenReadOnly when the directory holds no
// store file.
var ErrNoStore = errors.New("store: no store in directory")

// OpenReadOnly opens the store in dir for reading only: it never creates
// the directory or the file (an error wrapping ErrNoStore says there is
// none), never writes, and takes a shared lock, so several readers may
// open the same copy of a data directory. Like Open it times out after
// 5 s when a process holds the file for writing (a running coordinator),
// fails with ErrSchema for another schema version and with ErrCorrupt for
// a damaged or empty file. Write methods of the returned Store fail.
func OpenReadOnly(dir string) (*Store, error) {
	path := filepath.Join(dir, FileName)
	if _, err := os.Stat(path); err != nil {
		return nil, fmt.Errorf("%w %s: %w", ErrNoStore, dir, err)
	}
	if err := refuseEmpty(path); err != nil {
		return nil, err
	}
	db, err := openChecked(&Report{Path: path})
	if errors.Is(err, bolt.ErrTimeout) {
		return nil, fmt.Errorf("store: open %s read-only: %w (a coordinator holds it; read a copy of the directory)", dir, err)
	}
	if err != nil {
		return nil, openError(dir, err)
	}
	s := &Store{db: db, path: path}
	if err := s.view(func(tx *bolt.Tx) error { return checkSchema(tx, path) }); err != nil {
		db.Close()
		return nil, err
	}
	return s, nil
}

// checkSchema fails with an error wrapping ErrSchema unless tx sees a
// store of this build's schema version with all its buckets.
func checkSchema(tx *bolt.Tx, path string) error {
	m := tx.Bucket(bucketMeta)
	if m == nil {
		return fmt.Errorf("%w: %s has no schema version", ErrSchema, path)
	}
	if v := m.Get(keySchema); string(v) != SchemaVersion {
		return fmt.Errorf("%w: file has %q, this build reads %q", ErrSchema, v, SchemaVersion)
	}
	for _, b := range allBuckets {
		if tx.Bucket(b) == nil {
			return fmt.Errorf("%w: %s lacks bucket %s", ErrSchema, path, b)
		}
	}
	return nil
}

// ResultFunc receives one stored result of a sweep: job is its index in
// the sweep (grid.Sweep.Job inverts it), scenario and pipeline index
// sw.Scenarios and sw.Pipelines, rep is the unit (the repetition, or
// repetition·K + fold of a table sweep: see grid.Sweep.Fold).
type ResultFunc func(job, scenario, rep, pipeline int, r Result) error

// SweepResults calls fn for every stored result of sw's jobs, in grid
// order: scenario by scenario, repetition by repetition (0 to
// sw.UnitCount()−1), pipeline by pipeline in sw.Pipelines order, the
// order of ExportCSV. Results are found by content (seed, scenario,
// repetition, pipeline), so results stored by another sweep with the same
// jobs count too. Pipelines without a stored result are skipped; failed
// pipelines come with ErrKind set. fn runs inside one read transaction
// (a consistent snapshot) and must not write to the store; an error from
// fn stops the scan and is returned as is.
func (s *Store) SweepResults(sw *grid.Sweep, fn ResultFunc) error {
	fn = fn.guarded()
	pipes := make([]PipeKey, len(sw.Pipelines))
	for i, p := range sw.Pipelines {
		pipes[i] = NewPipeKey(p)
	}
	nScen := len(sw.Scenarios)
	return s.view(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketResults)
		c := b.Cursor()
		for si, sc := range sw.Scenarios {
			dk := NewDrawKey(sw.Seed, sc)
			if k, _ := c.Seek(dk[:]); k == nil || !bytes.HasPrefix(k, dk[:]) {
				continue // nothing stored for this scenario: one seek, not reps × pipelines lookups
			}
			for rep := range sw.UnitCount() {
				for pi := range pipes {
					v := b.Get(resultKey(dk, rep, pipes[pi]))
					if v == nil {
						continue
					}
					r, err := decodeResult(v)
					if err != nil {
						return fmt.Errorf("store: scenario %d rep %d pipeline %s: %w", si, rep, sw.Pipelines[pi].Canonical(), err)
					}
					if err := fn(rep*nScen+si, si, rep, pi, r); err != nil {
						return err
					}
				}
			}
		}
		return nil
	})
}

// JobFailure is a job of a sweep that gave up without results: the last
// error of its final delivery.
type JobFailure struct {
	Job, Scenario, Rep int // job index, scenario index, repetition
	Message            string
}

// SweepFailures returns the failed jobs of sweep id (whose spec is sw),
// in job order. A job that later produced results is no longer failed.
func (s *Store) SweepFailures(id string, sw *grid.Sweep) ([]JobFailure, error) {
	if len(id) != sweepIDLen {
		return nil, fmt.Errorf("%w: %q is not a full sweep id", ErrNotFound, id)
	}
	var out []JobFailure
	err := s.view(func(tx *bolt.Tx) error {
		c := tx.Bucket(bucketFailures).Cursor()
		for k, v := c.Seek([]byte(id)); k != nil && bytes.HasPrefix(k, []byte(id)); k, v = c.Next() {
			job := int(binary.BigEndian.Uint64(k[sweepIDLen:]))
			if job >= sw.Jobs() {
				continue
			}
			si, rep := sw.Job(job)
			out = append(out, JobFailure{Job: job, Scenario: si, Rep: rep, Message: string(v)})
		}
		return nil
	})
	return out, err
}
