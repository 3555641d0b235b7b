package boost

import "math"

// expf is the single-precision exponential of glibc ≥ 2.28 on x86-64
// with FMA (the libm that Debian's XGBoost 1.7.4 calls): XGBoost's
// sigmoid and softmax go through expf, whose results are not always the
// correctly rounded ones (up to 0.502 ulp), so bit-identical
// probabilities need the same algorithm, not just an accurate one.
//
// The algorithm (Szabolcs Nagy's, ARM optimized-routines, MIT): with
// N = 32, write x·N/ln 2 = k + r, k the nearest integer, |r| ≤ ½; then
// eˣ = 2^(k/N) · 2^(r/N), the first factor from a table of 2^(i/N) with
// the exponent added to its bits, the second a degree-3 polynomial in r,
// all in float64, rounded once to float32 at the end. The polynomial and
// the reduction use fused multiply-adds where GCC contracts glibc's
// source when compiled for FMA (its x86-64 ifunc variant on such CPUs);
// the same algorithm without fused operations, glibc's choice on CPUs
// without FMA, differs from it on 2 of the 2³² inputs. TestExpf checks
// it against glibc's results in testdata/expf.json.
func expf(x float32) float32 {
	switch {
	case x != x:
		return x
	case x > 0x1.62e42ep6: // beyond log(2¹²⁸)
		return float32(math.Inf(1))
	case x < -0x1.9fe368p6: // below log(2⁻¹⁵⁰), including −Inf
		return 0
	}
	xd := float64(x)
	// kd = round(x·N/ln 2) by the 1.5·2⁵² shift, the product fused
	kd := math.FMA(expfInvLn2N, xd, expfShift)
	ki := math.Float64bits(kd)
	kd -= expfShift
	r := math.FMA(expfInvLn2N, xd, -kd)
	s := math.Float64frombits(exp2fTab[ki%32] + ki<<47)
	z := math.FMA(expfC0, r, expfC1)
	r2 := float64(r * r)
	y := math.FMA(expfC2, r, 1)
	y = math.FMA(z, r2, y)
	return float32(float64(y * s))
}

// Constants of expf: N/ln 2, the rounding shift and the polynomial
// 2^(r/N) ≈ 1 + C2·r + C1·r² + C0·r³ (a minimax fit, coefficients of
// 2^t scaled by powers of 1/N).
const (
	expfInvLn2N = 0x1.71547652b82fep0 * 32
	expfShift   = 0x1.8p52
	expfC0      = 0x1.c6af84b912394p-5 / (32 * 32 * 32)
	expfC1      = 0x1.ebfce50fac4f3p-3 / (32 * 32)
	expfC2      = 0x1.62e42ff0c52d6p-1 / 32
)

// exp2fTab[i] is the bit pattern of 2^(i/32) rounded to float64, minus
// i·2⁴⁷, so that adding k·2⁴⁷ (k ≡ i mod 32) gives 2^(k/32)'s bits.
// TestExp2fTable recomputes it with math/big.
var exp2fTab = [32]uint64{
	0x3ff0000000000000, 0x3fefd9b0d3158574, 0x3fefb5586cf9890f, 0x3fef9301d0125b51,
	0x3fef72b83c7d517b, 0x3fef54873168b9aa, 0x3fef387a6e756238, 0x3fef1e9df51fdee1,
	0x3fef06fe0a31b715, 0x3feef1a7373aa9cb, 0x3feedea64c123422, 0x3feece086061892d,
	0x3feebfdad5362a27, 0x3feeb42b569d4f82, 0x3feeab07dd485429, 0x3feea47eb03a5585,
	0x3feea09e667f3bcd, 0x3fee9f75e8ec5f74, 0x3feea11473eb0187, 0x3feea589994cce13,
	0x3feeace5422aa0db, 0x3feeb737b0cdc5e5, 0x3feec49182a3f090, 0x3feed503b23e255d,
	0x3feee89f995ad3ad, 0x3feeff76f2fb5e47, 0x3fef199bdd85529c, 0x3fef3720dcef9069,
	0x3fef5818dcfba487, 0x3fef7c97337b9b5f, 0x3fefa4afa2a490da, 0x3fefd0765b6e4540,
}
