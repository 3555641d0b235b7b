package boost

import (
	"encoding/json"
	"math"
	"math/big"
	"os"
	"testing"
)

// TestExpf checks expf against glibc's expf bit for bit at the inputs of
// testdata/expf.json (written by make_golden_class.py through ctypes):
// a sweep of [−110, 90] with the range limits, and inputs where glibc's
// result is not the correctly rounded one. (An exhaustive comparison of
// all 2³² inputs with glibc 2.36 through cgo, run once, found none
// differing.)
func TestExpf(t *testing.T) {
	b, err := os.ReadFile("testdata/expf.json")
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Hard  int         `json:"hard"`
		Pairs [][2]uint32 `json:"pairs"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Hard < 100 || len(doc.Pairs) < 4000 {
		t.Fatalf("expf.json has %d inputs, %d hard ones: regenerate it", len(doc.Pairs), doc.Hard)
	}
	bad, rounded := 0, 0
	for _, p := range doc.Pairs {
		x := math.Float32frombits(p[0])
		if got := math.Float32bits(expf(x)); got != p[1] {
			bad++
			if bad <= 5 {
				t.Errorf("expf(%v) = %#08x, glibc %#08x", x, got, p[1])
			}
		}
		if math.Float32bits(float32(math.Exp(float64(x)))) != p[1] {
			rounded++
		}
	}
	if bad > 0 {
		t.Errorf("%d of %d results differ from glibc's", bad, len(doc.Pairs))
	}
	// the fixture must be able to tell expf from a correctly rounded exp
	if rounded < doc.Hard/2 {
		t.Errorf("only %d inputs where glibc is not correctly rounded, the file says %d", rounded, doc.Hard)
	}
}

// TestExp2fTable recomputes expf's table: 2^(i/32) correctly rounded to
// float64 (Newton's method on x³² = 2ⁱ in 256-bit precision), less i·2⁴⁷
// in its bits.
func TestExp2fTable(t *testing.T) {
	for i := range uint64(32) {
		want := new(big.Float).SetMantExp(big.NewFloat(1), int(i)) // 2^i
		x := new(big.Float).SetPrec(256).SetFloat64(math.Exp2(float64(i) / 32))
		for range 8 {
			p := new(big.Float).SetPrec(256).SetInt64(1)
			for range 31 {
				p.Mul(p, x)
			} // p = x³¹
			f := new(big.Float).SetPrec(256).Mul(p, x)
			f.Sub(f, want)
			p.Mul(p, big.NewFloat(32))
			x.Sub(x, f.Quo(f, p))
		}
		v, _ := x.Float64()
		if got := exp2fTab[i] + i<<47; got != math.Float64bits(v) {
			t.Errorf("table entry %d: %#016x gives %#016x, 2^(%d/32) is %#016x", i, exp2fTab[i], got, i, math.Float64bits(v))
		}
	}
}
