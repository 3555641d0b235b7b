package store

import (
	"bytes"
	"encoding/binary"
	"fmt"

	bolt "go.etcd.io/bbolt"

	storev1 "github.com/misslab/misslab/proto/misslab/store/v1"
)

// records decodes every record of a file of SchemaVersion (or of its
// migrated copy) and counts them; a record that does not decode, a draw
// or pipeline stored under a key its content does not derive, and a
// sweep whose draws or pipelines are missing are problems. Records whose
// frames failed were named by describeDamaged and are skipped.
func (r *Report) records(tx *bolt.Tx) {
	skip := map[string]bool{}
	for _, d := range r.Damaged {
		skip[d.Bucket+"\x00"+string(d.Key)] = true
	}
	each := func(name []byte, keyLen int, fn func(k, v []byte) error) int {
		return r.each(tx, name, keyLen, skip, fn)
	}
	draws, pipes := tx.Bucket(bucketDraws), tx.Bucket(bucketPipelines)
	r.Sweeps = each(bucketSweeps, sweepIDLen, func(k, v []byte) error {
		var m storev1.Sweep
		if err := unmarshal(bucketSweeps, k, v, &m); err != nil {
			return err
		}
		rec, err := sweepRecord(string(k), &m)
		if err != nil {
			return err
		}
		return sweepRefs(rec.Spec, draws, pipes)
	})
	r.Draws = each(bucketDraws, len(DrawKey{}), func(k, v []byte) error {
		var m storev1.Draw
		if err := unmarshal(bucketDraws, k, v, &m); err != nil {
			return err
		}
		if dk := NewDrawKey(drawRecord(&m)); !bytes.Equal(dk[:], k) {
			return fmt.Errorf("its content derives key %x", dk)
		}
		return nil
	})
	r.Pipelines = each(bucketPipelines, len(PipeKey{}), func(k, v []byte) error {
		var m storev1.Pipeline
		if err := unmarshal(bucketPipelines, k, v, &m); err != nil {
			return err
		}
		if p := pipelineRecord(&m); !bytes.Equal(keyOf(NewPipeKey(p)), k) {
			return fmt.Errorf("pipeline %s is stored under another key", p.Canonical())
		}
		return nil
	})
	r.Results = each(bucketResults, resultKeyLen, func(k, v []byte) error {
		res, err := decodeResult(k, v)
		if err == nil && res.ErrKind != "" {
			r.ResultErrors++
		}
		return err
	})
	r.Failures = each(bucketFailures, sweepIDLen+8, func(k, v []byte) error {
		_, err := decodeFailure(k, v)
		return err
	})
	r.Tables = each(bucketTables, 64, func(k, v []byte) error {
		var m storev1.TableEntry
		if err := unmarshal(bucketTables, k, v, &m); err != nil {
			return err
		}
		if !isTableHash(string(k)) || m.GetSize() < 0 {
			return fmt.Errorf("table %.12q of %d bytes", k, m.GetSize())
		}
		return nil
	})
}

func keyOf(k PipeKey) []byte { return k[:] }

// each calls fn on every key of bucket name but those in skip, checks
// the key length and counts the records; a record that fails is a
// problem.
func (r *Report) each(tx *bolt.Tx, name []byte, keyLen int, skip map[string]bool, fn func(k, v []byte) error) int {
	n := 0
	c := tx.Bucket(name).Cursor()
	for k, v := c.First(); k != nil; k, v = c.Next() {
		n++
		switch {
		case skip[string(name)+"\x00"+string(k)]:
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
func sweepRefs(sw *Sweep, draws, pipes *bolt.Bucket) error {
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

// keyText shows a key in a problem: sweep ids and table hashes as text,
// others in hex.
func keyText(bucket, k []byte) string {
	switch string(bucket) {
	case string(bucketSweeps), string(bucketTables), string(bucketMeta):
		return fmt.Sprintf("%.16q", k)
	}
	return fmt.Sprintf("%x", k)
}

// describeDamaged adds a problem naming each record of r.Damaged: for a
// result, the sweeps, scenarios, repetitions and pipelines it belongs to
// (found through the sweeps that still decode), or that no stored sweep
// names its key (the key itself is damaged).
func (r *Report) describeDamaged(tx *bolt.Tx) {
	if len(r.Damaged) == 0 {
		return
	}
	ix := indexSweeps(tx)
	for _, d := range r.Damaged {
		r.problem("%s is damaged (%v)", ix.name(d), errFrame)
	}
	if r.DamagedMore > 0 {
		r.problem("%d more records are damaged", r.DamagedMore)
	}
}

// sweepIndex maps keys to what names them, from the sweeps that decode.
type sweepIndex struct {
	draws map[DrawKey][]scenarioRef
	pipes map[PipeKey]string
	names map[string]string // sweep id → name
}

// scenarioRef is a scenario of a stored sweep.
type scenarioRef struct {
	sweep    *Sweep
	scenario int
}

// indexSweeps indexes the draws and pipelines of every sweep that decodes.
func indexSweeps(tx *bolt.Tx) sweepIndex {
	ix := sweepIndex{draws: map[DrawKey][]scenarioRef{}, pipes: map[PipeKey]string{}, names: map[string]string{}}
	_ = tx.Bucket(bucketSweeps).ForEach(func(k, v []byte) error {
		var m storev1.Sweep
		if unmarshal(bucketSweeps, k, v, &m) != nil {
			return nil
		}
		rec, err := sweepRecord(string(k), &m)
		if err != nil {
			return nil
		}
		sw := rec.Spec
		ix.names[rec.ID] = sw.Name
		for si, sc := range sw.Scenarios {
			dk := NewDrawKey(sw.Seed, sc)
			ix.draws[dk] = append(ix.draws[dk], scenarioRef{sw, si})
		}
		for _, p := range sw.Pipelines {
			ix.pipes[NewPipeKey(p)] = p.Canonical()
		}
		return nil
	})
	return ix
}

// name says what damaged record d is.
func (ix sweepIndex) name(d DamagedRecord) string {
	k := d.Key
	switch {
	case d.Bucket == string(bucketResults) && len(k) == resultKeyLen:
		return ix.result(k)
	case d.Bucket == string(bucketFailures) && len(k) == sweepIDLen+8:
		id := string(k[:sweepIDLen])
		return fmt.Sprintf("the failure of job %d of sweep %q (%s)", binary.BigEndian.Uint64(k[sweepIDLen:]), ix.names[id], shortID(id))
	case d.Bucket == string(bucketSweeps):
		return fmt.Sprintf("the record of sweep %.12s (resubmit its grid once the store is repaired)", k)
	case d.Bucket == string(bucketDraws) && len(k) == len(DrawKey{}):
		if refs := ix.draws[DrawKey(k)]; len(refs) > 0 {
			return fmt.Sprintf("the draw record of sweep %q, scenario %d", refs[0].sweep.Name, refs[0].scenario)
		}
	case d.Bucket == string(bucketPipelines) && len(k) == len(PipeKey{}):
		if name, ok := ix.pipes[PipeKey(k)]; ok {
			return "the record of pipeline " + name
		}
	}
	return fmt.Sprintf("%s record %s", d.Bucket, keyText([]byte(d.Bucket), k))
}

// result names a damaged result by its key.
func (ix sweepIndex) result(k []byte) string {
	dk, unit, pk := DrawKey(k[:16]), int(binary.BigEndian.Uint32(k[16:])), PipeKey(k[jobKeyLen:])
	refs, pipe := ix.draws[dk], ix.pipes[pk]
	if len(refs) == 0 || pipe == "" {
		return fmt.Sprintf("a result whose key %x names no stored sweep's scenario and pipeline (the key itself is damaged)", k)
	}
	ref := refs[0]
	pi := 0
	for i, p := range ref.sweep.Pipelines {
		if p.Canonical() == pipe {
			pi = i
		}
	}
	s := resultName(ref.sweep, ref.scenario, unit, pi)
	if len(refs) > 1 {
		s += fmt.Sprintf(" (and %d other sweeps' scenarios with the same data)", len(refs)-1)
	}
	return s
}
