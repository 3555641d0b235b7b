package server

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/binary"
	"hash"
	"sync"
)

// proofLen is the length of a lease proof in bytes (a truncated
// HMAC-SHA256: 128 bits, beyond guessing).
const proofLen = 16

// signer signs leases with the store's lease key (store.LeaseKey), so
// that a coordinator, in this life or a later one on the same data
// directory, can tell a job it really leased to a worker from a claim
// made up by any client that can open a WorkService stream.
// Every lease is signed as it is granted, so the keyed hashes are pooled
// (Reset keeps the key's precomputed state) rather than made per lease.
type signer struct{ macs *sync.Pool }

// newSigner returns a signer with the store's lease key.
func newSigner(key []byte) signer {
	key = append([]byte(nil), key...)
	return signer{macs: &sync.Pool{New: func() any { return hmac.New(sha256.New, key) }}}
}

// proof returns the proof of the lease token on (sweepID, job).
func (s signer) proof(sweepID string, job int64, token uint64) []byte {
	m := s.macs.Get().(hash.Hash)
	defer s.macs.Put(m)
	m.Reset()
	var b [8 + 64]byte
	msg := binary.BigEndian.AppendUint64(b[:0], uint64(len(sweepID)))
	m.Write(append(msg, sweepID...))
	msg = binary.BigEndian.AppendUint64(b[:0], uint64(job))
	m.Write(binary.BigEndian.AppendUint64(msg, token))
	return m.Sum(make([]byte, 0, sha256.Size))[:proofLen]
}

// verify reports, in constant time, whether proof is the proof of the
// lease token on (sweepID, job).
func (s signer) verify(sweepID string, job int64, token uint64, proof []byte) bool {
	return len(proof) == proofLen && hmac.Equal(proof, s.proof(sweepID, job, token))
}
