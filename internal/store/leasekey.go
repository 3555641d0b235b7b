package store

import (
	"crypto/rand"
	"errors"
	"fmt"

	bolt "go.etcd.io/bbolt"

	storev1 "github.com/misslab/misslab/proto/misslab/store/v1"
)

// leaseKeyLen is the length of the lease key in bytes.
const leaseKeyLen = 32

// LeaseKey returns the store's lease key: 32 random bytes made the first
// time it is asked for and kept in the meta bucket, so that every life of
// a coordinator on this data directory has the same key and no other
// process does. The coordinator signs each lease with it (an HMAC of
// sweep, job and token) so that after a restart it can adopt a job a
// worker really holds, and refuse a made-up claim. A store without one gets one on first use. Errors
// wrap ErrWrite (or ErrCorrupt for a damaged file, or a key of the wrong
// length).
func (s *Store) LeaseKey() ([]byte, error) {
	var key []byte
	err := s.view(func(tx *bolt.Tx) error {
		var m storev1.LeaseKey
		ok, err := get(tx, bucketMeta, keyLeaseKey, &m)
		if err != nil {
			return s.recordError("the lease key", err)
		}
		if ok {
			key = append([]byte{}, m.GetKey()...)
		}
		return nil
	})
	if err != nil || key != nil {
		return checkLeaseKey(s.path, key, err)
	}
	fresh := make([]byte, leaseKeyLen)
	if _, err := rand.Read(fresh); err != nil {
		return nil, fmt.Errorf("%w: lease key: %w", ErrWrite, err)
	}
	err = s.write(func(w *wtx) error {
		var m storev1.LeaseKey
		ok, err := get(w.tx, bucketMeta, keyLeaseKey, &m)
		if err != nil {
			return s.recordError("the lease key", err)
		}
		if ok { // another Open raced us
			key = append([]byte{}, m.GetKey()...)
			return nil
		}
		key = fresh
		return w.put(bucketMeta, keyLeaseKey, &storev1.LeaseKey{Key: fresh})
	})
	if err != nil {
		if errors.Is(err, ErrCorrupt) {
			return nil, err
		}
		return nil, fmt.Errorf("%w: lease key: %w", ErrWrite, err)
	}
	return checkLeaseKey(s.path, key, nil)
}

func checkLeaseKey(path string, key []byte, err error) ([]byte, error) {
	if err != nil {
		return nil, err
	}
	if len(key) != leaseKeyLen {
		return nil, corruptError(path, fmt.Sprintf("the lease key has %d bytes, want %d", len(key), leaseKeyLen))
	}
	return key, nil
}
