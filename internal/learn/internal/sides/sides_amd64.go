//go:build amd64

package sides

import "golang.org/x/sys/cpu"

// useVector reports whether splitBlocks runs: it needs AVX-512 F and VL
// (gathers, compresses and masked stores on 256 and 512 bits) and BMI2.
var useVector = cpu.X86.HasAVX512F && cpu.X86.HasAVX512VL && cpu.X86.HasBMI2

// splitBlocks splits src's whole blocks of eight as Split does, stopping
// before a block holding a row not below nside or whose entries would
// overflow out0 (room n0max) or out1 (room n1max). It returns the
// entries processed and how many of them went to out0.
//
//go:noescape
func splitBlocks(src []uint64, side *uint8, nside int, shift uint, out0 *uint64, n0max int, out1 *uint64, n1max int) (done, n0 int)

// splitVec runs splitBlocks on src.
func splitVec(src []uint64, side []uint8, shift uint, out0, out1 []uint64) (done, n0 int) {
	if len(side) == 0 {
		return 0, 0
	}
	return splitBlocks(src, &side[0], len(side), shift, first(out0), len(out0), first(out1), len(out1))
}

// first returns the address of s's first element, nil when s is empty
// (the kernel then writes nothing there: its room is 0).
func first(s []uint64) *uint64 {
	if len(s) == 0 {
		return nil
	}
	return &s[0]
}
