package store

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/misslab/misslab/internal/grid"
)

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
