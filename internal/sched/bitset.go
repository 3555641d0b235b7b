package sched

import "math/bits"

// bitset is a fixed-size set of job indices: 1 bit per job, so the state
// of a 1-million-job sweep costs 125 kB per set.
type bitset []uint64

func newBitset(n int) bitset { return make(bitset, (n+63)/64) }

func (b bitset) has(i int) bool { return b[i>>6]&(1<<(uint(i)&63)) != 0 }
func (b bitset) set(i int)      { b[i>>6] |= 1 << (uint(i) & 63) }
func (b bitset) clear(i int)    { b[i>>6] &^= 1 << (uint(i) & 63) }

// nextClear returns the first index ≥ from, < n, in neither a nor b; n if none.
func nextClear(a, b bitset, from, n int) int {
	for w := from >> 6; w < len(a); w++ {
		free := ^(a[w] | b[w])
		if w == from>>6 {
			free &^= (1 << (uint(from) & 63)) - 1
		}
		if free != 0 {
			if i := w<<6 + bits.TrailingZeros64(free); i < n {
				return i
			}
			return n
		}
	}
	return n
}

// count returns the number of set bits.
func (b bitset) count() int {
	n := 0
	for _, w := range b {
		n += bits.OnesCount64(w)
	}
	return n
}
