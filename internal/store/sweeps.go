package store

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/misslab/misslab/internal/grid"
	"github.com/misslab/misslab/internal/sim"
)

// SweepRecord is what the store keeps about a submitted sweep.
type SweepRecord struct {
	ID        string      `json:"id"` // grid.Sweep.Hash()
	Spec      *grid.Sweep `json:"spec"`
	Cancelled bool        `json:"cancelled"`
	Submitted time.Time   `json:"submitted"`
}

// rawSweepRecord is a SweepRecord whose spec (and time) stay undecoded
// JSON, for SetCancelled.
type rawSweepRecord struct {
	ID        string          `json:"id"`
	Spec      json.RawMessage `json:"spec"`
	Cancelled bool            `json:"cancelled"`
	Submitted json.RawMessage `json:"submitted"`
}

type drawRecord struct {
	Seed     uint64 `json:"seed"`
	Scenario any    `json:"scenario"`
}

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
	val, err := json.Marshal(rec)
	if err != nil {
		return fmt.Errorf("store: encode sweep: %w", err)
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
	pipeKeys, pipeVals := make([]PipeKey, len(sw.Pipelines)), make([][]byte, len(sw.Pipelines))
	for i, p := range sw.Pipelines {
		if pipeVals[i], err = json.Marshal(p); err != nil {
			return fmt.Errorf("store: encode pipeline %s: %w", p.Canonical(), err)
		}
		pipeKeys[i] = NewPipeKey(p)
	}
	err = s.update(func(tx *bolt.Tx) error {
		pipes := tx.Bucket(bucketPipelines)
		for i, k := range pipeKeys {
			if err := pipes.Put(k[:], pipeVals[i]); err != nil {
				return err
			}
		}
		return tx.Bucket(bucketSweeps).Put([]byte(rec.ID), val)
	})
	if err != nil {
		return fmt.Errorf("%w: put sweep %s: %w", ErrWrite, rec.ID, err)
	}
	return nil
}

// putDraws stores, in one transaction, the draw records of the scenarios
// that have none yet. Keys and values are encoded before the transaction
// starts, and put in key order, so that it holds the write lock briefly.
func (s *Store) putDraws(seed uint64, scs []sim.Scenario) error {
	type draw struct {
		k DrawKey
		v []byte
	}
	draws := make([]draw, len(scs))
	for i, sc := range scs {
		v, err := json.Marshal(drawRecord{Seed: seed, Scenario: sc})
		if err != nil {
			return fmt.Errorf("encode draw: %w", err)
		}
		draws[i] = draw{NewDrawKey(seed, sc), v}
	}
	slices.SortFunc(draws, func(a, b draw) int { return bytes.Compare(a.k[:], b.k[:]) })
	return s.update(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketDraws)
		for _, d := range draws {
			if b.Get(d.k[:]) != nil {
				continue
			}
			if err := b.Put(d.k[:], d.v); err != nil {
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
// cancelled. It rewrites the record alone, carrying its spec over as raw
// JSON without decoding it, and writes nothing when the flag already has
// that value. Errors wrap ErrNotFound, ErrAmbiguous, ErrCorrupt or
// ErrWrite.
func (s *Store) SetCancelled(id string, cancelled bool) error {
	err := s.update(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketSweeps)
		k, v, err := findSweep(b.Cursor(), id)
		if err != nil {
			return err
		}
		var raw rawSweepRecord
		if err := json.Unmarshal(v, &raw); err != nil {
			return s.decodeError(k, err)
		}
		if raw.Cancelled == cancelled {
			return errUnchanged
		}
		raw.Cancelled = cancelled
		val, err := json.Marshal(raw)
		if err != nil {
			return fmt.Errorf("store: encode sweep %s: %w", k, err)
		}
		return b.Put(bytes.Clone(k), val)
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
	var rec SweepRecord
	if err := json.Unmarshal(v, &rec); err != nil {
		return rec, s.decodeError(k, err)
	}
	if rec.Spec == nil {
		return rec, corruptError(s.path, fmt.Sprintf("sweep record %q has no spec", k))
	}
	return rec, nil
}

// decodeError is the error for a sweep record that does not decode:
// damage (ErrCorrupt) if it is not even well-formed JSON of the right
// shape, otherwise a record this build cannot read (a validation error).
func (s *Store) decodeError(k []byte, err error) error {
	var syntax *json.SyntaxError
	var typ *json.UnmarshalTypeError
	if errors.As(err, &syntax) || errors.As(err, &typ) {
		return corruptError(s.path, fmt.Sprintf("sweep record %q does not decode: %v", k, err))
	}
	return fmt.Errorf("store: decode sweep %s: %w", k, err)
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
