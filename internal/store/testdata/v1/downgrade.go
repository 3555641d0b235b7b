// Command downgrade rewrites some result values of a misslab-store/1 file
// in the older value encodings that schema 1 still reads (versions 1 and
// 2), so that the v1 store fixture holds results of every value version.
// make.sh runs it on the stopped coordinator's file; it reads and writes
// bbolt directly and knows nothing of misslab's code.
//
//	go run downgrade.go misslab.db
//
// Results are visited in key order: the 1st, 4th, 7th … become version 1
// (R², MSE, times, error kind and message), the 2nd, 5th, 8th … version 2
// (also the root split and its threshold); the others stay version 3.
package main

import (
	"encoding/binary"
	"fmt"
	"log"
	"os"

	bolt "go.etcd.io/bbolt"
)

func main() {
	if len(os.Args) != 2 {
		log.Fatal("usage: go run downgrade.go misslab.db")
	}
	db, err := bolt.Open(os.Args[1], 0o644, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer db.Close()
	var n [4]int
	err = db.Update(func(tx *bolt.Tx) error {
		b := tx.Bucket([]byte("results"))
		var keys, vals [][]byte
		i := 0
		err := b.ForEach(func(k, v []byte) error {
			if v[0] != 3 {
				return fmt.Errorf("result %x has value version %d, want 3", k, v[0])
			}
			if to := byte(1 + i%3); to < 3 {
				keys, vals = append(keys, append([]byte(nil), k...)), append(vals, downgrade(v, to))
				n[to]++
			} else {
				n[3]++
			}
			i++
			return nil
		})
		if err != nil {
			return err
		}
		for j, k := range keys {
			if err := b.Put(k, vals[j]); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("results by value version: 1: %d, 2: %d, 3: %d\n", n[1], n[2], n[3])
}

// downgrade re-encodes a version-3 value (version byte; R², MSE, fit and
// predict seconds as big-endian float64 bits; error kind, message and root
// as uvarint-length strings; root threshold, MAE and the two imputation
// RMSEs as float64 bits) in version to: 1 ends after the message, 2 after
// the root threshold.
func downgrade(v []byte, to byte) []byte {
	out := append([]byte{to}, v[1:33]...)
	rest := v[33:]
	strs := 3
	if to == 1 {
		strs = 2
	}
	for range strs {
		l, w := binary.Uvarint(rest)
		out = append(out, rest[:w+int(l)]...)
		rest = rest[w+int(l):]
	}
	if to == 2 {
		out = append(out, rest[:8]...)
	}
	return out
}
