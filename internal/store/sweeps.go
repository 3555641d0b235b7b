package store

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"sort"

	bolt "go.etcd.io/bbolt"

	storev1 "github.com/misslab/misslab/proto/misslab/store/v1"
)

// drawChunk is the most draw records PutSweep writes in one transaction:
// a sweep of 100,000 scenarios takes 20 short transactions, and result
// batches commit between them instead of waiting for the whole sweep.
const drawChunk = 5000

// PutSweep stores a sweep record and the draws and pipelines its results
// refer to. The draws go first, in transactions of at most 5,000 (other
// writes, such as the Writer's result batches, commit in between), then
// the pipelines and the record in one last transaction. A failure or
// crash part-way leaves only draw records, which are harmless (a later
// PutSweep reuses them), and a sweep record exists only once everything
// it refers to does. Storing a sweep again replaces its record. Errors
// wrap ErrWrite.
func (s *Store) PutSweep(rec SweepRecord) error {
	if len(rec.ID) != sweepIDLen || rec.Spec == nil {
		return fmt.Errorf("store: put sweep %.80q: an id of %d bytes and a spec are needed", rec.ID, sweepIDLen)
	}
	msg, err := sweepMessage(rec)
	if err != nil {
		return err
	}
	sw := rec.Spec
	for lo := 0; lo < len(sw.Scenarios); lo += drawChunk {
		hi := min(lo+drawChunk, len(sw.Scenarios))
		if err := s.putDraws(sw.Seed, sw.Scenarios[lo:hi]); err != nil {
			return fmt.Errorf("%w: put sweep %s: draws %d to %d of %d: %w", ErrWrite, rec.ID, lo, hi, len(sw.Scenarios), err)
		}
		if s.chunkDone != nil {
			s.chunkDone(hi, len(sw.Scenarios))
		}
	}
	err = s.update(func(w *wtx) error {
		for _, p := range sw.Pipelines {
			k := NewPipeKey(p)
			if err := w.put(bucketPipelines, k[:], pipelineMessage(p)); err != nil {
				return err
			}
		}
		return w.put(bucketSweeps, []byte(rec.ID), msg)
	})
	if err != nil {
		return fmt.Errorf("%w: put sweep %s: %w", ErrWrite, rec.ID, err)
	}
	return nil
}

// putDraws stores, in one transaction, the draw records of the scenarios
// that have none yet. Keys and values are encoded before the transaction
// starts, and put in key order, so that it holds the write lock briefly.
func (s *Store) putDraws(seed uint64, scs []Scenario) error {
	type draw struct {
		k DrawKey
		v []byte
	}
	draws := make([]draw, len(scs))
	for i, sc := range scs {
		k := NewDrawKey(seed, sc)
		v, err := marshal(bucketDraws, k[:], drawMessage(seed, sc))
		if err != nil {
			return fmt.Errorf("encode draw: %w", err)
		}
		draws[i] = draw{k, v}
	}
	slices.SortFunc(draws, func(a, b draw) int { return bytes.Compare(a.k[:], b.k[:]) })
	return s.update(func(w *wtx) error {
		b := w.tx.Bucket(bucketDraws)
		for _, d := range draws {
			if b.Get(d.k[:]) != nil {
				continue
			}
			if err := w.putRaw(bucketDraws, d.k[:], d.v); err != nil {
				return err
			}
		}
		return nil
	})
}

// errUnchanged rolls back a write transaction that has nothing to write
// (a commit would still cost an fsync).
var errUnchanged = errors.New("unchanged")

// SetCancelled records whether a sweep (id or unique id prefix) is
// cancelled. It rewrites the sweep's record with the flag changed and
// writes nothing when the flag already has that value. Errors wrap
// ErrNotFound, ErrAmbiguous, ErrCorrupt or ErrWrite.
func (s *Store) SetCancelled(id string, cancelled bool) error {
	err := s.update(func(w *wtx) error {
		k, v, err := findSweep(w.tx.Bucket(bucketSweeps).Cursor(), id)
		if err != nil {
			return err
		}
		k = bytes.Clone(k)
		var m storev1.Sweep
		if err := unmarshal(bucketSweeps, k, v, &m); err != nil {
			return s.recordError(fmt.Sprintf("the record of sweep %s", shortID(string(k))), err)
		}
		if m.GetCancelled() == cancelled {
			return errUnchanged
		}
		m.Cancelled = cancelled
		return w.put(bucketSweeps, k, &m)
	})
	switch {
	case err == nil, errors.Is(err, errUnchanged):
		return nil
	case errors.Is(err, ErrNotFound), errors.Is(err, ErrAmbiguous), errors.Is(err, ErrCorrupt):
		return err
	}
	return fmt.Errorf("%w: set cancelled of %s: %w", ErrWrite, id, err)
}

// findSweep positions c on the sweep whose id is id or starts with id.
func findSweep(c *bolt.Cursor, id string) (k, v []byte, err error) {
	k, v = c.Seek([]byte(id))
	if k == nil || !bytes.HasPrefix(k, []byte(id)) || id == "" {
		return nil, nil, fmt.Errorf("%w: %q", ErrNotFound, id)
	}
	if len(id) < sweepIDLen {
		if k2, _ := c.Next(); k2 != nil && bytes.HasPrefix(k2, []byte(id)) {
			return nil, nil, fmt.Errorf("%w: %q", ErrAmbiguous, id)
		}
	}
	return k, v, nil
}

// decodeSweep decodes the sweep record v stored under k.
func (s *Store) decodeSweep(k, v []byte) (SweepRecord, error) {
	var m storev1.Sweep
	err := unmarshal(bucketSweeps, k, v, &m)
	var rec SweepRecord
	if err == nil {
		rec, err = sweepRecord(string(k), &m)
	}
	if err != nil {
		return rec, s.recordError(fmt.Sprintf("the record of sweep %.12q", k), err)
	}
	return rec, nil
}

// Sweep returns the record of the sweep whose id is id or starts with id.
func (s *Store) Sweep(id string) (SweepRecord, error) {
	var rec SweepRecord
	err := s.view(func(tx *bolt.Tx) error {
		k, v, err := findSweep(tx.Bucket(bucketSweeps).Cursor(), id)
		if err != nil {
			return err
		}
		rec, err = s.decodeSweep(k, v)
		return err
	})
	return rec, err
}

// Sweeps returns every sweep record, oldest submission first.
func (s *Store) Sweeps() ([]SweepRecord, error) {
	var out []SweepRecord
	err := s.view(func(tx *bolt.Tx) error {
		return tx.Bucket(bucketSweeps).ForEach(func(k, v []byte) error {
			rec, err := s.decodeSweep(k, v)
			if err != nil {
				return err
			}
			out = append(out, rec)
			return nil
		})
	})
	sort.SliceStable(out, func(i, j int) bool { return out[i].Submitted.Before(out[j].Submitted) })
	return out, err
}
