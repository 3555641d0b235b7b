package table

import (
	"math"
	"strconv"
	"testing"
)

var numberCases = []string{
	"0", "-0", "+0", "1", "-1", "1.5", ".5", "5.", "-.5", "+.5e1", "12.345678", "9007199254740992", "9007199254740993",
	"1e22", "1e23", "1e-22", "1e-23", "123456789012345678", "1234567890123456789", "12345678901234567890",
	"0.1", "0.3", "2.2250738585072014e-308", "1.7976931348623157e308", "1e400", "-1e400", "4.9e-324",
	"1e", "1e+", "e1", ".", "-", "", "1.2.3", "1_0", "0x1p3", "inf", "NaN", "1e0001", "1E5", "1e-5", "00012.5000",
	"3.14159265358979323846", "-0.0", "1,5", " 1", "1 ",
}

// TestParseNumber: parseNumber returns what strconv.ParseFloat returns.
func TestParseNumber(t *testing.T) {
	for _, c := range numberCases {
		sameAsParseFloat(t, c)
	}
}

func sameAsParseFloat(t *testing.T, s string) {
	t.Helper()
	got, err := parseNumber([]byte(s))
	want, wantErr := strconv.ParseFloat(s, 64)
	if (err != nil) != (wantErr != nil) || math.Float64bits(got) != math.Float64bits(want) && !(math.IsNaN(got) && math.IsNaN(want)) {
		t.Fatalf("parseNumber(%q) = %v, %v; ParseFloat says %v, %v", s, got, err, want, wantErr)
	}
}

// FuzzParseNumber: the fast path never differs from strconv.ParseFloat.
func FuzzParseNumber(f *testing.F) {
	for _, c := range numberCases {
		f.Add(c)
	}
	f.Fuzz(sameAsParseFloat)
}
