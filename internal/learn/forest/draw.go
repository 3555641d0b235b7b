package forest

import (
	"math/bits"
	"math/rand/v2"
)

// is32bit is math/rand/v2's test for a 32-bit platform, where Rand.IntN
// takes another path.
const is32bit = ^uint(0)>>32 == 0

// draw is a tree's source of randomness: rand.New(src).IntN's values
// from src's draws, without a Rand's interface call per draw (a 500-tree
// fit draws about a million: the bootstraps and the candidate columns).
type draw struct{ src *rand.PCG }

// intN returns rand.New(d.src).IntN(n) for 0 < n: on 64-bit platforms
// math/rand/v2's uint64n (Lemire's multiply-and-reject) on d.src.Uint64,
// drawing exactly as often; on 32-bit ones through a Rand.
func (d draw) intN(n int) int {
	if is32bit {
		return rand.New(d.src).IntN(n)
	}
	m := uint64(n)
	if m&(m-1) == 0 {
		return int(d.src.Uint64() & (m - 1))
	}
	hi, lo := bits.Mul64(d.src.Uint64(), m)
	if lo < m {
		thresh := -m % m
		for lo < thresh {
			hi, lo = bits.Mul64(d.src.Uint64(), m)
		}
	}
	return int(hi)
}
