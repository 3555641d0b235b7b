package linear

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"
)

// bigExp is exp(x) to 200 bits: a Taylor series on x/2^s, squared s times.
func bigExp(x *big.Float) *big.Float {
	const prec = 200
	xf, _ := x.Float64()
	s := 0
	for math.Abs(xf)/math.Ldexp(1, s) > 1e-3 {
		s++
	}
	X := new(big.Float).SetPrec(prec).Set(x)
	X.SetMantExp(X, -s)
	sum := new(big.Float).SetPrec(prec).SetFloat64(1)
	term := new(big.Float).SetPrec(prec).SetFloat64(1)
	for i := 1; i < 30; i++ {
		term.Mul(term, X)
		term.Quo(term, new(big.Float).SetPrec(prec).SetInt64(int64(i)))
		sum.Add(sum, term)
	}
	for range s {
		sum.Mul(sum, sum)
	}
	return sum
}

// refExp is exp(x) correctly rounded (to the 200-bit evaluation).
func refExp(x float64) float64 {
	f, _ := bigExp(new(big.Float).SetPrec(200).SetFloat64(x)).Float64()
	return f
}

// refLog is log(x) correctly rounded: Newton steps on exp in 200 bits.
func refLog(x float64) float64 {
	seed := math.Log(x)
	if x < 0x1p-1022 {
		seed = math.Log(x*0x1p200) - 200*math.Ln2
	}
	Y := new(big.Float).SetPrec(200).SetFloat64(seed)
	for range 3 {
		e := bigExp(Y)
		d := new(big.Float).SetPrec(200).SetFloat64(x)
		d.Sub(d, e).Quo(d, e)
		Y.Add(Y, d)
	}
	f, _ := Y.Float64()
	return f
}

// TestCorrectlyRounded compares crExp and crLog with 200-bit references
// on arguments spread over their ranges, and counts math.Exp's misses
// for contrast.
func TestCorrectlyRounded(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	cases := []struct {
		name string
		f    func(float64) float64
		ref  func(float64) float64
		arg  func() float64
	}{
		{"exp [-40, 40]", crExp, refExp, func() float64 { return 80*r.Float64() - 40 }},
		{"exp [-700, 700]", crExp, refExp, func() float64 { return 1400*r.Float64() - 700 }},
		{"exp subnormal", crExp, refExp, func() float64 { return -708 - 37*r.Float64() }},
		{"exp near 0", crExp, refExp, func() float64 { return (r.Float64() - 0.5) * 1e-3 }},
		{"log (0, 1]", crLog, refLog, func() float64 { return r.Float64() }},
		{"log near 1", crLog, refLog, func() float64 { return 1 + (r.Float64()-0.5)*1e-6 }},
		{"log wide", crLog, refLog, func() float64 { return math.Exp(1400*r.Float64() - 700) }},
		{"log subnormal", crLog, refLog, func() float64 { return math.Ldexp(1+r.Float64(), -1023-r.IntN(50)) }},
	}
	const n = 500
	for _, c := range cases {
		bad, mathBad := 0, 0
		for range n {
			x := c.arg()
			want := c.ref(x)
			if got := c.f(x); got != want {
				if bad++; bad <= 3 {
					t.Errorf("%s: f(%v) = %v, correctly rounded %v", c.name, x, got, want)
				}
			}
			if c.name[:3] == "exp" && math.Exp(x) != want {
				mathBad++
			}
		}
		t.Logf("%s: %d of %d not correctly rounded (math.Exp: %d)", c.name, bad, n, mathBad)
	}
}
