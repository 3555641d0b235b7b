package server

import (
	"bytes"
	"crypto/hmac"
	crand "crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"hash"
	"sync"
	"time"
)

// A lease proof is 32 bytes: the life of the coordinator process that
// issued it (8 random bytes drawn at Open), its expiry (8 bytes, Unix
// nanoseconds, big-endian) and a truncated HMAC-SHA256, 128 bits, beyond
// guessing, of (sweep, job, token, life, expiry) under the store's lease
// key (store.LeaseKey). Workers return it unchanged, so its layout is the
// coordinator's alone to change; a proof of another layout (one of an
// older build) is simply refused.
const (
	lifeLen  = 8
	proofLen = lifeLen + 8 + 16
)

// DefaultRestartGrace is the default of Options.RestartGrace: what the
// shipped Kubernetes startup probe allows a restarted coordinator to load
// its store, the longest restart planned for.
const DefaultRestartGrace = 5 * time.Minute

// signer signs leases with the store's lease key, so that a coordinator
// in a later life on the same data directory can tell a job its earlier
// life really leased to a worker from a claim made up by any client that
// can open a WorkService stream.
//
// A proof vouches for its lease only in a later life, once, and until
// its expiry: the lease's deadline plus the restart grace. In the life
// that issued it the scheduler alone judges a token (it knows whether
// the lease is current or was lost with its worker), so a proof of an
// ended lease cannot be replayed to win fresh leases; and every
// heartbeat renews the proof with the lease (RenewLeases), so a lease
// alive when the coordinator stopped stays adoptable for the grace.
//
// Every lease is signed as it is granted and renewed, so the keyed
// hashes are pooled (Reset keeps the key's precomputed state) rather
// than made per lease.
type signer struct {
	macs  *sync.Pool
	life  [lifeLen]byte
	grace time.Duration
}

// newSigner returns a signer with the store's lease key for a new life
// of the coordinator, whose proofs expire grace after their lease's
// deadline.
func newSigner(key []byte, grace time.Duration) signer {
	key = append([]byte(nil), key...)
	s := signer{macs: &sync.Pool{New: func() any { return hmac.New(sha256.New, key) }}, grace: grace}
	_, _ = crand.Read(s.life[:]) // never fails (crypto/rand.Read panics instead)
	return s
}

// proof returns the proof of the lease token on (sweepID, job) whose
// deadline is deadline.
func (s signer) proof(sweepID string, job int64, token uint64, deadline time.Time) []byte {
	out := make([]byte, 0, proofLen+sha256.Size)
	out = append(out, s.life[:]...)
	out = binary.BigEndian.AppendUint64(out, uint64(deadline.Add(s.grace).UnixNano()))
	return s.mac(out, sweepID, job, token)
}

// mac appends to head (life and expiry) the truncated HMAC of the lease
// and head.
func (s signer) mac(head []byte, sweepID string, job int64, token uint64) []byte {
	m := s.macs.Get().(hash.Hash)
	defer s.macs.Put(m)
	m.Reset()
	var b [8 + 64]byte
	msg := binary.BigEndian.AppendUint64(b[:0], uint64(len(sweepID)))
	m.Write(append(msg, sweepID...))
	msg = binary.BigEndian.AppendUint64(b[:0], uint64(job))
	m.Write(binary.BigEndian.AppendUint64(msg, token))
	m.Write(head[:lifeLen+8])
	return m.Sum(head[:lifeLen+8])[:proofLen]
}

// vouch reports whether proof vouches, at now, for the lease token on
// (sweepID, job): it is this key's proof of that lease, issued by an
// earlier life of the coordinator, and not expired. It returns the
// proof's expiry, until which the token must not be adopted again. The
// MAC is compared in constant time.
func (s signer) vouch(sweepID string, job int64, token uint64, proof []byte, now time.Time) (until time.Time, ok bool) {
	if len(proof) != proofLen || bytes.Equal(proof[:lifeLen], s.life[:]) {
		return time.Time{}, false
	}
	until = time.Unix(0, int64(binary.BigEndian.Uint64(proof[lifeLen:])))
	want := s.mac(append([]byte(nil), proof[:lifeLen+8]...), sweepID, job, token)
	if !hmac.Equal(proof, want) || now.After(until) {
		return time.Time{}, false
	}
	return until, true
}
