package store

import (
	"bytes"
	"fmt"
	"slices"

	storev1 "github.com/misslab/misslab/proto/misslab/store/v1"
)

// The walk of verify.go meets every record of a file before bbolt reads
// any: here it checks each value's frame (codec.go) and, once it is over,
// the records of each bucket against meta "counts". It cannot know the
// schema until it has seen meta, so it checks every frame and keeps the
// verdict until then: a file of an older schema has no frames to check
// (its migration decodes every record instead).

// maxDamaged is how many damaged records a walk names; more are counted.
const maxDamaged = 1000

// DamagedRecord is a record whose value fails its frame: its bucket and
// key. What it is (the sweep, scenario, repetition and pipeline of a
// result) is in Report.Problems when Check could tell.
type DamagedRecord struct {
	Bucket string
	Key    []byte
}

// recordWalk is what a walk gathers about records.
type recordWalk struct {
	counts  map[string]uint64 // records per top-level bucket
	damaged []DamagedRecord   // frames that failed, at most maxDamaged
	more    int               // frames that failed beyond them
	schema  []byte            // meta "schema"
	counted []byte            // meta "counts"
}

// record checks one record of bucket (key k, value v).
func (w *fileWalk) record(bucket, k, v []byte) {
	r := &w.recs
	if r.counts == nil {
		r.counts = map[string]uint64{}
	}
	r.counts[string(bucket)]++
	if bytes.Equal(bucket, bucketMeta) {
		switch {
		case bytes.Equal(k, keySchema):
			r.schema = bytes.Clone(v)
			return // the one unframed value
		case bytes.Equal(k, keyCounts):
			r.counted = bytes.Clone(v)
		}
	}
	if _, err := unframe(bucket, k, v); err != nil {
		if len(r.damaged) < maxDamaged {
			r.damaged = append(r.damaged, DamagedRecord{Bucket: string(bucket), Key: bytes.Clone(k)})
		} else {
			r.more++
		}
	}
}

// checkRecords judges what record met, once the walk is over: for a file
// of SchemaVersion, every damaged frame goes to Report.Damaged and every
// bucket whose records differ from meta "counts" is a problem. Other
// schemas are left to the schema check (and a migration's decoding).
func (w *fileWalk) checkRecords() {
	r := &w.recs
	if string(r.schema) != SchemaVersion {
		return
	}
	w.Damaged, w.DamagedMore = r.damaged, r.more
	if r.counted == nil {
		w.problem("meta: no record counts")
		return
	}
	var m storev1.Counts
	if err := unmarshal(bucketMeta, keyCounts, r.counted, &m); err != nil {
		return // a damaged record, named in Damaged (or a message that does not decode)
	}
	want := map[string]uint64{}
	for _, c := range m.GetBuckets() {
		want[c.GetBucket()] = c.GetRecords()
	}
	for _, b := range dataBuckets {
		if got := r.counts[string(b)]; got != want[string(b)] {
			w.countProblems = append(w.countProblems, fmt.Sprintf("bucket %s holds %d records, but %d were written: %s",
				b, got, want[string(b)], lostOrFound(got, want[string(b)])))
		}
	}
	for name := range r.counts {
		if !slices.ContainsFunc(allBuckets, func(b []byte) bool { return string(b) == name }) {
			w.problem("the file holds bucket %q, which the schema has not", name)
		}
	}
}

// lostOrFound says what a count mismatch means.
func lostOrFound(got, want uint64) string {
	if got < want {
		return fmt.Sprintf("%d records were lost from a damaged page", want-got)
	}
	return fmt.Sprintf("%d records appeared that were never written (a damaged page)", got-want)
}
