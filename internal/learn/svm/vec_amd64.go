//go:build amd64

package svm

import (
	"math"

	"golang.org/x/sys/cpu"
)

// vector reports whether the AVX2 loops of vec_amd64.s run.
var vector = cpu.X86.HasAVX2

// expConsts are expBlocks's constants, each in four lanes: exp's Go
// constants rounded to float64 as exp rounds them, then two int64 bit
// patterns (the table index mask and the exponent bias times the table
// size).
var expConsts = func() (c [13][4]float64) {
	const n = 1 << expTableBits
	vals := []float64{n / math.Ln2, 0x1.8p52, ln2N1, ln2N2, -700, 700,
		1.0 / 720, 1.0 / 120, 1.0 / 24, 1.0 / 6, 1.0 / 2,
		math.Float64frombits(n - 1), math.Float64frombits(1023 * n)}
	for i, v := range vals {
		c[i] = [4]float64{v, v, v, v}
	}
	return c
}()

//go:noescape
func expBlocks(v []float64, c *[13][4]float64) int

//go:noescape
func dotsBlocks(d, xt []float64, n int, x []float64) int

//go:noescape
func kernelArgBlocks(d, xsq []float64, ng, si float64) int

//go:noescape
func toFloat32Blocks(out []float32, d []float64) int

//go:noescape
func sqDistsBlocks(d2, sv []float64, ns int, x []float64) int

//go:noescape
func scaleBlocks(v []float64, a float64) int

// expVec applies exp to v's blocks of four up to the first block holding
// an argument outside [−700, 700] (or NaN), which exp hands to math.Exp.
func expVec(v []float64) int {
	if !vector {
		return 0
	}
	return expBlocks(v, &expConsts)
}

// dotsVec is dots on d's whole blocks of sixteen; xt must hold len(x)
// columns of n ≥ len(d) rows.
func dotsVec(d, xt []float64, n int, x []float64) int {
	if !vector || len(x) == 0 || len(xt) < (len(x)-1)*n+len(d) {
		return 0
	}
	return dotsBlocks(d, xt, n, x)
}

// kernelArgVec is kernelArg on d's whole blocks of four (len(xsq) ≥
// len(d)).
func kernelArgVec(d, xsq []float64, ng, si float64) int {
	if !vector || len(xsq) < len(d) {
		return 0
	}
	return kernelArgBlocks(d, xsq, ng, si)
}

// toFloat32Vec is toFloat32 on d's whole blocks of four (len(out) ≥
// len(d)).
func toFloat32Vec(out []float32, d []float64) int {
	if !vector || len(out) < len(d) {
		return 0
	}
	return toFloat32Blocks(out, d)
}

// sqDistsVec is sqDists on d2's whole blocks of sixteen; sv must hold
// len(x) columns of ns ≥ len(d2) rows.
func sqDistsVec(d2, sv []float64, ns int, x []float64) int {
	if !vector || len(x) == 0 || len(sv) < (len(x)-1)*ns+len(d2) {
		return 0
	}
	return sqDistsBlocks(d2, sv, ns, x)
}

// scaleVec is scale on v's whole blocks of four.
func scaleVec(v []float64, a float64) int {
	if !vector {
		return 0
	}
	return scaleBlocks(v, a)
}

//go:noescape
func candBlocks(lowSign, g []float64, gmax float64, cand []int32, gain []float64, lanes *[4]float64) int

// candPerm[m] are VPERMPS indices packing the float64 lanes set in mask m
// to the front, in lane order; candOff[m] are those lanes' numbers.
var candPerm, candOff = func() (perm [16][8]int32, off [16][4]int32) {
	for m := range 16 {
		s := 0
		for lane := range int32(4) {
			if m>>lane&1 == 1 {
				perm[m][2*s], perm[m][2*s+1], off[m][s] = 2*lane, 2*lane+1, lane
				s++
			}
		}
	}
	return perm, off
}()

// candVec is the solver's candidate scan on lowSign's whole blocks of
// four (g as long; cand and gain at least as long plus one), each lane's
// running maximum of lowSign[t]·g[t] left in lanes; it returns the blocks'
// length and the candidates stored.
func candVec(lowSign, g []float64, gmax float64, cand []int32, gain []float64, lanes *[4]float64) (done, nc int) {
	if !vector || len(g) < len(lowSign) || len(cand) <= len(lowSign) || len(gain) <= len(lowSign) {
		return 0, 0
	}
	return len(lowSign) &^ 3, candBlocks(lowSign, g, gmax, cand, gain, lanes)
}

//go:noescape
func gradBlocks(g, upSign, fs []float64, idx []int, ri, rj []float32, dI, dJ float64, l *gradLanes) int

// gradVec is gradUpdate's loop on g's whole blocks of four, each lane's
// choice left in l; upSign, fs and idx have g's length and idx's values
// index ri and rj.
func gradVec(g, upSign, fs []float64, idx []int, ri, rj []float32, dI, dJ float64, l *gradLanes) int {
	if !vector {
		return 0
	}
	return gradBlocks(g, upSign, fs, idx, ri, rj, dI, dJ, l)
}

// laneConsts are gradBlocks's lane indices 0, 1, 2, 3 and their step 4.
var laneConsts = [2][4]int64{{0, 1, 2, 3}, {4, 4, 4, 4}}
