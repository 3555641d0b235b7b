package sides

import "unsafe"

// Pad is the number of bytes a side array needs past its length (within
// its capacity) for Split's vector kernel, which reads each row's side
// byte as part of a 4-byte word. Allocate with Make.
const Pad = 3

// Make returns a side array for rows 0..n−1: n zero bytes with Pad bytes
// of spare capacity.
func Make(n int) []uint8 {
	return make([]uint8, n, n+Pad)
}

// Split writes every entry e of src whose row, uint32(e >> shift), has
// side[row] == 0 to out0 and every other to out1, each stream in src's
// order, and returns how many went to out0 (the rest, len(src) − n0,
// went to out1). shift is 0 (row in the low 32 bits) or 32 (row in the
// high 32 bits); side bytes are 0 or 1.
//
// out1 may be src itself (or start at src's first element): entries are
// read in blocks before any of the block's entries is written, and out1's
// cursor never passes the read position. out0 must not overlap src
// unless it, too, starts at src's first element and out1 does not.
//
// Split panics, as indexing would, when a row is not below len(side) or
// a stream outgrows its slice. Without room (Pad) past side's length, or
// without AVX-512, it runs the Go loop: the result is the same.
func Split[E ~uint64](src []E, side []uint8, shift uint, out0, out1 []E) (n0 int) {
	done, n0 := 0, 0
	if useVector && shift <= 32 && cap(side)-len(side) >= Pad && len(src) >= block {
		done, n0 = splitVec(words(src), side, shift, words(out0), words(out1))
	}
	n1 := done - n0
	for _, e := range src[done:] {
		if side[uint32(e>>shift)] == 0 {
			out0[n0] = e
			n0++
		} else {
			out1[n1] = e
			n1++
		}
	}
	return n0
}

// block is the vector kernel's block of entries.
const block = 8

// words returns s's elements as the uint64 words they are.
func words[E ~uint64](s []E) []uint64 {
	if len(s) == 0 {
		return nil
	}
	return unsafe.Slice((*uint64)(unsafe.Pointer(&s[0])), len(s))
}

// Vector reports whether Split's vector kernel runs on this machine:
// without it, a caller's own loop does as well.
var Vector = useVector
