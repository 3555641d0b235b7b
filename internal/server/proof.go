package server

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/binary"
)

// proofLen is the length of a lease proof in bytes (a truncated
// HMAC-SHA256: 128 bits, beyond guessing).
const proofLen = 16

// signer signs leases with the store's lease key (store.LeaseKey), so
// that a coordinator, in this life or a later one on the same data
// directory, can tell a job it really leased to a worker from a claim
// made up by any client that can open a WorkService stream.
type signer struct{ key []byte }

// proof returns the proof of the lease token on (sweepID, job).
func (s signer) proof(sweepID string, job int64, token uint64) []byte {
	m := hmac.New(sha256.New, s.key)
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], uint64(len(sweepID)))
	m.Write(b[:])
	m.Write([]byte(sweepID))
	binary.BigEndian.PutUint64(b[:], uint64(job))
	m.Write(b[:])
	binary.BigEndian.PutUint64(b[:], token)
	m.Write(b[:])
	return m.Sum(nil)[:proofLen]
}

// verify reports, in constant time, whether proof is the proof of the
// lease token on (sweepID, job).
func (s signer) verify(sweepID string, job int64, token uint64, proof []byte) bool {
	return len(proof) == proofLen && hmac.Equal(proof, s.proof(sweepID, job, token))
}
