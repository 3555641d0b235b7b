package table

import (
	"math"
	"strconv"
)

// exactPow10 holds the powers of ten that float64 represents exactly.
var exactPow10 = [...]float64{1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10,
	1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22}

// parseNumber is strconv.ParseFloat(string(b), 64) with a fast path for
// plain decimals ("-12.5", "3e-4") whose digits fit in 53 bits and whose
// power of ten is at most 22 in size: there both the digits and the power
// are exact float64s, so one IEEE multiplication or division gives the
// correctly rounded result ParseFloat returns (Clinger's fast path).
// Everything else goes to ParseFloat.
func parseNumber(b []byte) (float64, error) {
	if v, ok := fastDecimal(b); ok {
		return v, nil
	}
	return strconv.ParseFloat(string(b), 64)
}

// fastDecimal parses [+-]digits[.digits][(e|E)[+-]digits] when the fast
// path applies; ok is false otherwise.
func fastDecimal(b []byte) (v float64, ok bool) {
	i, neg := 0, false
	if len(b) > 0 && (b[0] == '-' || b[0] == '+') {
		neg, i = b[0] == '-', 1
	}
	var mant uint64
	digits, exp := 0, 0
	for ; i < len(b) && b[i] >= '0' && b[i] <= '9'; i++ {
		mant = mant*10 + uint64(b[i]-'0')
		digits++
	}
	if i < len(b) && b[i] == '.' {
		for i++; i < len(b) && b[i] >= '0' && b[i] <= '9'; i++ {
			mant = mant*10 + uint64(b[i]-'0')
			digits++
			exp--
		}
	}
	if digits == 0 || digits > 19 {
		return 0, false
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		e, ok := smallExponent(b[i+1:])
		if !ok {
			return 0, false
		}
		exp += e
		i = len(b)
	}
	if i != len(b) || mant > 1<<53 || exp < -22 || exp > 22 {
		return 0, false
	}
	if v = float64(mant); exp < 0 {
		v /= exactPow10[-exp]
	} else {
		v *= exactPow10[exp]
	}
	if neg {
		v = -v
	}
	return v, !math.IsInf(v, 0)
}

// smallExponent parses [+-]digits of at most 3 digits.
func smallExponent(b []byte) (int, bool) {
	neg := false
	if len(b) > 0 && (b[0] == '-' || b[0] == '+') {
		neg, b = b[0] == '-', b[1:]
	}
	if len(b) == 0 || len(b) > 3 {
		return 0, false
	}
	e := 0
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		e = e*10 + int(c-'0')
	}
	if neg {
		e = -e
	}
	return e, true
}
