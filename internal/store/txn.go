package store

import (
	"bytes"
	"fmt"

	bolt "go.etcd.io/bbolt"
	"google.golang.org/protobuf/proto"

	storev1 "github.com/misslab/misslab/proto/misslab/store/v1"
)

// wtx is a write transaction of the store: every value it puts is framed
// (codec.go), and the records it adds to or removes from a data bucket
// update meta "counts" before the transaction commits (finish). Every
// write of the store goes through one.
type wtx struct {
	tx    *bolt.Tx
	delta map[string]int64 // data bucket → records added minus removed
}

// put stores message m under key in bucket (a top-level bucket).
func (w *wtx) put(bucket, key []byte, m proto.Message) error {
	v, err := marshal(bucket, key, m)
	if err != nil {
		return fmt.Errorf("encode %s record: %w", bucket, err)
	}
	return w.putRaw(bucket, key, v)
}

// putRaw stores an encoded, framed value.
func (w *wtx) putRaw(bucket, key, v []byte) error {
	b := w.tx.Bucket(bucket)
	if b == nil {
		return fmt.Errorf("no bucket %s", bucket)
	}
	if w.counted(bucket) && b.Get(key) == nil {
		w.delta[string(bucket)]++
	}
	return b.Put(key, v)
}

// del removes key from bucket, if present.
func (w *wtx) del(bucket, key []byte) error {
	b := w.tx.Bucket(bucket)
	if b.Get(key) == nil {
		return nil
	}
	if w.counted(bucket) {
		w.delta[string(bucket)]--
	}
	return b.Delete(key)
}

// counted reports whether bucket is one meta "counts" counts.
func (w *wtx) counted(bucket []byte) bool { return !bytes.Equal(bucket, bucketMeta) }

// finish writes meta "counts" if a record was added or removed.
func (w *wtx) finish() error {
	changed := false
	for _, d := range w.delta {
		changed = changed || d != 0
	}
	if !changed {
		return nil
	}
	counts, err := readCounts(w.tx)
	if err != nil {
		return err
	}
	for name, d := range w.delta {
		if n := int64(counts[name]) + d; n >= 0 {
			counts[name] = uint64(n)
		} else {
			return fmt.Errorf("%w: bucket %s would hold %d records", ErrCorrupt, name, n)
		}
	}
	return writeCounts(w.tx, counts)
}

// readCounts returns meta "counts" as a map from bucket name to records
// (every data bucket present); ErrCorrupt if it does not decode.
func readCounts(tx *bolt.Tx) (map[string]uint64, error) {
	out := make(map[string]uint64, len(dataBuckets))
	for _, b := range dataBuckets {
		out[string(b)] = 0
	}
	v := tx.Bucket(bucketMeta).Get(keyCounts)
	if v == nil {
		return nil, fmt.Errorf("%w: meta has no record counts", ErrCorrupt)
	}
	var m storev1.Counts
	if err := unmarshal(bucketMeta, keyCounts, v, &m); err != nil {
		return nil, fmt.Errorf("%w: meta counts: %w", ErrCorrupt, err)
	}
	for _, c := range m.GetBuckets() {
		if _, ok := out[c.GetBucket()]; !ok {
			return nil, fmt.Errorf("%w: meta counts name bucket %q, which the schema has not", ErrCorrupt, c.GetBucket())
		}
		out[c.GetBucket()] = c.GetRecords()
	}
	return out, nil
}

// writeCounts stores counts (every data bucket, in name order) as meta
// "counts".
func writeCounts(tx *bolt.Tx, counts map[string]uint64) error {
	m := &storev1.Counts{}
	for _, b := range dataBuckets {
		m.Buckets = append(m.Buckets, &storev1.BucketCount{Bucket: string(b), Records: counts[string(b)]})
	}
	v, err := marshal(bucketMeta, keyCounts, m)
	if err != nil {
		return err
	}
	return tx.Bucket(bucketMeta).Put(keyCounts, v)
}

// get returns the payload-checked message stored under key in bucket,
// decoding it into m; ok is false when there is none. A value whose frame
// or message is bad is an error naming what (the caller wraps it as
// damage, with what the record is).
func get(tx *bolt.Tx, bucket, key []byte, m proto.Message) (ok bool, err error) {
	v := tx.Bucket(bucket).Get(key)
	if v == nil {
		return false, nil
	}
	return true, unmarshal(bucket, key, v, m)
}
