package store

import (
	"fmt"

	bolt "go.etcd.io/bbolt"

	storev1 "github.com/misslab/misslab/proto/misslab/store/v1"
)

// FPClass returns the floating-point class recorded for the store's
// results (an opaque name, see internal/fpclass; the coordinator records
// "any" once it accepted workers of every class), "" when none is: a new
// store, or one migrated from before classes were recorded. It also
// reports whether the store holds any result. Errors wrap ErrCorrupt for
// a damaged file.
func (s *Store) FPClass() (class string, hasResults bool, err error) {
	err = s.view(func(tx *bolt.Tx) error {
		var m storev1.FPClass
		if _, err := get(tx, bucketMeta, keyFPClass, &m); err != nil {
			return s.recordError("the floating-point class of the results", err)
		}
		class = m.GetClass()
		k, _ := tx.Bucket(bucketResults).Cursor().First()
		hasResults = k != nil
		return nil
	})
	return class, hasResults, err
}

// SetFPClass records class as the floating-point class of the store's
// results, replacing any class recorded before. Errors wrap ErrWrite.
func (s *Store) SetFPClass(class string) error {
	err := s.write(func(w *wtx) error {
		return w.put(bucketMeta, keyFPClass, &storev1.FPClass{Class: class})
	})
	if err != nil {
		return fmt.Errorf("%w: floating-point class: %w", ErrWrite, err)
	}
	return nil
}
