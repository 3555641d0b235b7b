package linear

import (
	"math"
	"math/big"
)

// R calls the C library's exp and log, which in glibc ≥ 2.28 are
// correctly rounded for all but a vanishing fraction of arguments; Go's
// math.Exp on amd64 is not (about one result in eight differs from the
// correctly rounded one by an ulp). Replaying multinom's BFGS, whose
// line search compares objective values, is sensitive to such ulps on
// ill-conditioned data, so the learners here use crExp and crLog:
// double-double evaluations accurate to about 2⁻⁷⁵ relative, hence
// correctly rounded except for arguments within that distance of a
// rounding boundary.

// expTab[j] = 2^(j/64) as a double-double (hi, lo).
var expTab = func() (t [64][2]float64) {
	const prec = 200
	root := big.NewFloat(2).SetPrec(prec)
	for range 6 {
		root.Sqrt(root) // 2^(1/64)
	}
	v := new(big.Float).SetPrec(prec).SetFloat64(1)
	for j := range t {
		hi, _ := v.Float64()
		lo, _ := new(big.Float).SetPrec(prec).Sub(v, big.NewFloat(hi)).Float64()
		t[j] = [2]float64{hi, lo}
		v.Mul(v, root)
	}
	return t
}()

// ln2/64 as a double-double, and its inverse rounded.
var ln2By64Hi, ln2By64Lo, invLn2By64 = func() (hi, lo, inv float64) {
	const prec = 200
	// ln 2 = Σ_{i≥1} 1/(i·2^i)
	sum := new(big.Float).SetPrec(prec)
	for i := 1; i <= 2*prec; i++ {
		t := new(big.Float).SetMantExp(big.NewFloat(1), -i).SetPrec(prec)
		sum.Add(sum, t.Quo(t, new(big.Float).SetPrec(prec).SetInt64(int64(i))))
	}
	sum.SetMantExp(sum, -6)
	hi, _ = sum.Float64()
	lo, _ = new(big.Float).SetPrec(prec).Sub(sum, big.NewFloat(hi)).Float64()
	inv, _ = new(big.Float).SetPrec(prec).Quo(big.NewFloat(1).SetPrec(prec), sum).Float64()
	return hi, lo, inv
}()

// twoProd returns a·b as an exact sum hi + lo.
func twoProd(a, b float64) (float64, float64) {
	p := a * b
	return p, math.FMA(a, b, -p)
}

// twoSumExact returns a + b as an exact sum hi + lo.
func twoSumExact(a, b float64) (float64, float64) {
	s := a + b
	bb := s - a
	return s, (a - (s - bb)) + (b - bb)
}

// expDD returns exp(x) as a normalised double-double (hi, lo) times 2^m,
// for |x| ≤ 708.
func expDD(x float64) (hi, lo float64, m int) {
	k := int(math.Round(x * invLn2By64))
	kf := float64(k)
	ph, pl := twoProd(kf, ln2By64Hi)
	rh, rl := twoSumExact(x, -ph)
	rl -= pl
	rl -= kf * ln2By64Lo
	rh, rl = twoSumExact(rh, rl)
	// exp(r) − 1 = r + r²/2 + q, q = r³/6 + … + r⁹/9! (|r| ≤ 0.0055).
	q := rh * rh * rh * (1.0/6 + rh*(1.0/24+rh*(1.0/120+rh*(1.0/720+rh*(1.0/5040+rh*(1.0/40320+rh*(1.0/362880)))))))
	sh, sl := twoProd(rh, rh)
	sl += 2 * rh * rl
	sh, sl = sh/2, sl/2
	eh, el := twoSumExact(rh, sh)
	el += rl + sl + q
	eh, el = twoSumExact(eh, el)
	// 2^(j/64)·(1 + e)
	j := ((k % 64) + 64) % 64
	m = (k - j) / 64
	th, tl := expTab[j][0], expTab[j][1]
	ph, pl = twoProd(th, eh)
	pl += th*el + tl*eh + tl
	hi, lo = twoSumExact(th, ph)
	lo += pl
	hi, lo = twoSumExact(hi, lo)
	return hi, lo, m
}

// crExp is exp(x), correctly rounded but for arguments within about
// 2⁻⁷⁵ relative of a rounding boundary, subnormal results included.
// Arguments beyond ±745.2 and NaN go to math.Exp (0, +Inf, NaN).
func crExp(x float64) float64 {
	if !(x >= -745.2 && x <= 709.7) {
		return math.Exp(x)
	}
	hi, lo, m := expDD(x)
	if m >= -1022 {
		return math.Ldexp(hi, m)
	}
	// Subnormal: round (hi + lo)·2^(m+1074) to an integer once.
	t := math.Ldexp(hi, m+1074)
	l := math.Ldexp(lo, m+1074)
	n := math.Floor(t)
	odd := math.Mod(n, 2) == 1
	switch frac := (t - n) + l; { // in [−½, 3/2)
	case frac > 0.5, frac == 0.5 && odd:
		n++
	case frac < -0.5, frac == -0.5 && odd:
		n--
	}
	return math.Ldexp(n, -1074)
}

// crLog is log(x), correctly rounded but for arguments within about
// 2⁻⁷⁵ relative (or, near x = 1, 2⁻¹⁰⁵ absolute) of a rounding
// boundary: one Newton step on math.Log's result (of 2²⁰⁰·x for
// subnormal x, on which math.Log can be far off), with exp in
// double-double. Zero, negative, infinite and NaN arguments go to
// math.Log.
func crLog(x float64) float64 {
	if !(x > 0 && x <= math.MaxFloat64) {
		return math.Log(x)
	}
	var y float64
	if x < 0x1p-1022 { // math.Log is inexact on subnormals
		y = math.Log(x*0x1p200) - 200*math.Ln2
	} else {
		y = math.Log(x)
	}
	hi, lo, m := expDD(y)
	d := ((math.Ldexp(x, -m) - hi) - lo) / hi
	return y + d
}
