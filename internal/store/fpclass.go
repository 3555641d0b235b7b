package store

import (
	"fmt"

	bolt "go.etcd.io/bbolt"
)

// FPClass returns the floating-point class recorded for the store's
// results (an opaque name, see internal/fpclass; the coordinator records
// "any" once it accepted workers of every class), "" when none is: a new
// store, or one from before classes were recorded, which needs no schema
// change. It also reports whether the store holds any result. Errors
// wrap ErrCorrupt for a damaged file.
func (s *Store) FPClass() (class string, hasResults bool, err error) {
	err = s.view(func(tx *bolt.Tx) error {
		class = string(tx.Bucket(bucketMeta).Get(keyFPClass))
		k, _ := tx.Bucket(bucketResults).Cursor().First()
		hasResults = k != nil
		return nil
	})
	return class, hasResults, err
}

// SetFPClass records class as the floating-point class of the store's
// results, replacing any class recorded before. Errors wrap ErrWrite.
func (s *Store) SetFPClass(class string) error {
	err := s.write(func(tx *bolt.Tx) error {
		return tx.Bucket(bucketMeta).Put(keyFPClass, []byte(class))
	})
	if err != nil {
		return fmt.Errorf("%w: floating-point class: %w", ErrWrite, err)
	}
	return nil
}
