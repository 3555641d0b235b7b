package store

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	bolt "go.etcd.io/bbolt"
)

// ErrNoStore is returned by OpenReadOnly when the directory holds no
// store file.
var ErrNoStore = errors.New("store: no store in directory")

// OpenReadOnly opens the store in dir for reading only: it never creates
// the directory or the file (an error wrapping ErrNoStore says there is
// none), never writes, and takes a shared lock, so several readers may
// open the same copy of a data directory. A file of an older schema is
// left as it is: a copy of it in a temporary directory is migrated and
// read instead (removed by Close; Migrations says what was done). Like
// Open it times out after 5 s when a process holds the file for writing
// (a running coordinator), fails with ErrSchema for a newer or unknown
// schema and with ErrCorrupt for a damaged or empty file. Write methods
// of the returned Store fail.
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
	s := &Store{db: db, path: path, dataDir: dir}
	v, err := s.schema()
	if err == nil && v == SchemaVersion {
		err = s.view(func(tx *bolt.Tx) error { return checkSchema(tx, path) })
	}
	if err != nil || v == SchemaVersion {
		if err != nil {
			db.Close()
			return nil, err
		}
		return s, nil
	}
	db.Close()
	if n, ok := schemaNumber(v); !ok || n > currentSchema {
		return nil, schemaError(path, v)
	}
	return openMigratedCopy(dir, path)
}

// schema returns the schema version the file holds, "" if none.
func (s *Store) schema() (string, error) {
	var v string
	err := s.view(func(tx *bolt.Tx) error {
		if m := tx.Bucket(bucketMeta); m != nil {
			v = string(m.Get(keySchema))
		}
		return nil
	})
	return v, err
}

// checkSchema fails with an error wrapping ErrSchema unless tx sees a
// store of this build's schema version with all its buckets. It is the
// one check of a file's schema: Open, OpenReadOnly and Check call it.
func checkSchema(tx *bolt.Tx, path string) error {
	m := tx.Bucket(bucketMeta)
	if m == nil {
		return fmt.Errorf("%w: %s has no schema version", ErrSchema, path)
	}
	if v := m.Get(keySchema); string(v) != SchemaVersion {
		return schemaError(path, string(v))
	}
	for _, b := range allBuckets {
		if tx.Bucket(b) == nil {
			return fmt.Errorf("%w: %s lacks bucket %s", ErrCorrupt, path, b)
		}
	}
	return nil
}

// ResultFunc receives one stored result of a sweep: job is its index in
// the sweep (Sweep.Job inverts it), scenario and pipeline index
// sw.Scenarios and sw.Pipelines, rep is the unit (the repetition, or
// repetition·K + fold of a table sweep: see Sweep.Fold).
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
func (s *Store) SweepResults(sw *Sweep, fn ResultFunc) error {
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
					k := resultKey(dk, rep, pipes[pi])
					v := b.Get(k)
					if v == nil {
						continue
					}
					r, err := decodeResult(k, v)
					if err != nil {
						return s.recordError(resultName(sw, si, rep, pi), err)
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
func (s *Store) SweepFailures(id string, sw *Sweep) ([]JobFailure, error) {
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
			msg, err := decodeFailure(k, v)
			if err != nil {
				return s.recordError(fmt.Sprintf("the failure of job %d (scenario %d, unit %d) of sweep %q (%s)", job, si, rep, sw.Name, shortID(id)), err)
			}
			out = append(out, JobFailure{Job: job, Scenario: si, Rep: rep, Message: msg})
		}
		return nil
	})
	return out, err
}

// resultName names the result of pipeline pi on unit u of scenario si of
// sw in an error, with the values of the columns that find it in the
// exported CSV: sweep, scenario, rep (and fold) and pipeline.
func resultName(sw *Sweep, si, u, pi int) string {
	rep, fold := sw.Fold(u)
	where := fmt.Sprintf("rep %d", rep)
	if sw.Scenarios[si].Table != nil {
		where += fmt.Sprintf(", fold %d", fold+1)
	}
	return fmt.Sprintf("the result of sweep %q, scenario %d, %s, pipeline %s", sw.Name, si, where, sw.Pipelines[pi].Canonical())
}
