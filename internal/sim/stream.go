package sim

import (
	"crypto/sha256"
	"encoding/binary"
	"math/rand/v2"
)

// streamDomain versions the seed derivation: changing how seeds are
// derived must change this tag, so that old and new results never share
// a cache key while silently using different data.
const streamDomain = "misslab/sim/stream/v1"

// Purposes of the streams Generate draws from. Other packages choose their
// own purpose strings (for example a learner's canonical name) so that
// their randomness never overlaps with the data's.
const (
	PurposeTrain = "train"
	PurposeTest  = "test"
)

// Stream returns the random source for one purpose of one repetition of one
// scenario under one grid seed: a math/rand/v2 PCG whose two 64-bit seeds
// are the first 16 bytes (little-endian) of SHA-256 over the canonical,
// length-prefixed encoding
//
//	len(domain) domain | seed | len(scenario) scenario | rep | len(purpose) purpose
//
// where every length and integer is 8 bytes little-endian, domain is
// "misslab/sim/stream/v1", and rep is two's-complement. scenario should be
// Scenario.Canonical() (or Population() for population quantities). The
// stream depends on nothing else: not on the worker, the goroutine, the
// clock or the order in which streams are requested. Distinct arguments
// give distinct encodings (the lengths remove any ambiguity between
// fields), hence independent-looking streams.
func Stream(seed uint64, scenario string, rep int, purpose string) *rand.Rand {
	return rand.New(rand.NewPCG(streamSeeds(seed, scenario, rep, purpose)))
}

// streamSeeds returns the two PCG seeds of Stream.
func streamSeeds(seed uint64, scenario string, rep int, purpose string) (uint64, uint64) {
	var buf [8]byte
	h := sha256.New()
	writeString := func(s string) {
		binary.LittleEndian.PutUint64(buf[:], uint64(len(s)))
		h.Write(buf[:])
		h.Write([]byte(s))
	}
	writeUint := func(v uint64) {
		binary.LittleEndian.PutUint64(buf[:], v)
		h.Write(buf[:])
	}
	writeString(streamDomain)
	writeUint(seed)
	writeString(scenario)
	writeUint(uint64(int64(rep)))
	writeString(purpose)
	var sum [sha256.Size]byte
	h.Sum(sum[:0])
	return binary.LittleEndian.Uint64(sum[0:8]), binary.LittleEndian.Uint64(sum[8:16])
}
