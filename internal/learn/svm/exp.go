package svm

import (
	"math"
	"math/big"
)

// expTableBits sets the table size N = 2^expTableBits of exp.
const expTableBits = 7

// expHi and expLo hold 2^(j/N) = expHi[j] + expLo[j] for j < N, to about
// 106 bits.
var expHi, expLo = expTable()

// Cody–Waite split of ln2/N: ln2N1 has its low 20 bits zero, so k·ln2N1
// is exact for |k| < 2^20, and ln2N1 + ln2N2 is ln2/N to about 2⁻⁸⁸.
var ln2N1, ln2N2 = splitLn2()

func expTable() (hi, lo [1 << expTableBits]float64) {
	const prec = 256
	root := new(big.Float).SetPrec(prec).SetInt64(2)
	for range expTableBits {
		root.Sqrt(root)
	}
	v := new(big.Float).SetPrec(prec).SetInt64(1)
	for j := range hi {
		hi[j], _ = v.Float64()
		rest := new(big.Float).SetPrec(prec).Sub(v, new(big.Float).SetFloat64(hi[j]))
		lo[j], _ = rest.Float64()
		v.Mul(v, root)
	}
	return hi, lo
}

func splitLn2() (float64, float64) {
	// ln 2 to 40 digits; big.Float parses it exactly enough.
	ln2, _, _ := big.ParseFloat("0.6931471805599453094172321214581765680755", 10, 256, big.ToNearestEven)
	c := new(big.Float).SetPrec(256).Quo(ln2, big.NewFloat(1<<expTableBits))
	full, _ := c.Float64()
	c1 := math.Float64frombits(math.Float64bits(full) &^ (1<<20 - 1))
	c2, _ := new(big.Float).SetPrec(256).Sub(c, big.NewFloat(c1)).Float64()
	return c1, c2
}

// exp returns e^x for x in [−700, 700] with an error below 0.51 units in
// the last place (table-driven, Tang's method): x = (k·N + j)·ln2/N + r
// with |r| ≤ ln2/(2N), e^x = 2^k·2^(j/N)·e^r, e^r − 1 by its degree-5
// Taylor polynomial (truncation below 2⁻⁶⁰). Outside that range, and for
// NaN, it defers to math.Exp. The kernels here call it with x ≤ ~0.
func exp(x float64) float64 {
	if !(x >= -700 && x <= 700) {
		return math.Exp(x)
	}
	const n = 1 << expTableBits
	const shift = 0x1.8p52 // adding and subtracting rounds to an integer
	kf := (x*(n/math.Ln2) + shift) - shift
	k := int64(kf)
	r := (x - kf*ln2N1) - kf*ln2N2
	q := r + r*r*(1.0/2+r*(1.0/6+r*(1.0/24+r*(1.0/120+r*(1.0/720)))))
	j := k & (n - 1)
	hi := expHi[j]
	v := hi + (hi*q + expLo[j])
	return v * math.Float64frombits(uint64(k>>expTableBits+1023)<<52)
}

// expAllGo is expAll in Go (see vec.go): four evaluations are
// interleaved per iteration so that their long, independent dependency
// chains overlap (exp is too large to inline, and one element per
// iteration leaves the processor waiting on each chain); every element
// goes through exactly exp's operations, so the results are exp's bit
// for bit.
func expAllGo(v []float64) {
	const n = 1 << expTableBits
	const shift = 0x1.8p52 // adding and subtracting rounds to an integer
	i := 0
	for ; i+3 < len(v); i += 4 {
		x0, x1, x2, x3 := v[i], v[i+1], v[i+2], v[i+3]
		if !(x0 >= -700 && x0 <= 700 && x1 >= -700 && x1 <= 700 &&
			x2 >= -700 && x2 <= 700 && x3 >= -700 && x3 <= 700) {
			v[i], v[i+1], v[i+2], v[i+3] = exp(x0), exp(x1), exp(x2), exp(x3)
			continue
		}
		kf0 := (x0*(n/math.Ln2) + shift) - shift
		kf1 := (x1*(n/math.Ln2) + shift) - shift
		kf2 := (x2*(n/math.Ln2) + shift) - shift
		kf3 := (x3*(n/math.Ln2) + shift) - shift
		k0 := int64(kf0)
		k1 := int64(kf1)
		k2 := int64(kf2)
		k3 := int64(kf3)
		r0 := (x0 - kf0*ln2N1) - kf0*ln2N2
		r1 := (x1 - kf1*ln2N1) - kf1*ln2N2
		r2 := (x2 - kf2*ln2N1) - kf2*ln2N2
		r3 := (x3 - kf3*ln2N1) - kf3*ln2N2
		q0 := r0 + r0*r0*(1.0/2+r0*(1.0/6+r0*(1.0/24+r0*(1.0/120+r0*(1.0/720)))))
		q1 := r1 + r1*r1*(1.0/2+r1*(1.0/6+r1*(1.0/24+r1*(1.0/120+r1*(1.0/720)))))
		q2 := r2 + r2*r2*(1.0/2+r2*(1.0/6+r2*(1.0/24+r2*(1.0/120+r2*(1.0/720)))))
		q3 := r3 + r3*r3*(1.0/2+r3*(1.0/6+r3*(1.0/24+r3*(1.0/120+r3*(1.0/720)))))
		hi0, lo0 := expHi[k0&(n-1)], expLo[k0&(n-1)]
		hi1, lo1 := expHi[k1&(n-1)], expLo[k1&(n-1)]
		hi2, lo2 := expHi[k2&(n-1)], expLo[k2&(n-1)]
		hi3, lo3 := expHi[k3&(n-1)], expLo[k3&(n-1)]
		v[i+0] = (hi0 + (hi0*q0 + lo0)) * math.Float64frombits(uint64(k0>>expTableBits+1023)<<52)
		v[i+1] = (hi1 + (hi1*q1 + lo1)) * math.Float64frombits(uint64(k1>>expTableBits+1023)<<52)
		v[i+2] = (hi2 + (hi2*q2 + lo2)) * math.Float64frombits(uint64(k2>>expTableBits+1023)<<52)
		v[i+3] = (hi3 + (hi3*q3 + lo3)) * math.Float64frombits(uint64(k3>>expTableBits+1023)<<52)
	}
	for ; i < len(v); i++ {
		v[i] = exp(v[i])
	}
}
