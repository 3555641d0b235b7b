package svm

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestVecMatchesGo checks that the vector loops (vec_amd64.s, where the
// processor has AVX2) give the Go loops' results bit for bit, on every
// length from 0 to 37 (passes of sixteen, whole blocks of four and every
// tail) and widths 1 to 10, with ±0 and wide magnitudes among the values.
func TestVecMatchesGo(t *testing.T) {
	if !vector {
		t.Skip("no vector loops on this processor: only the Go loops run")
	}
	r := rand.New(rand.NewPCG(8, 9))
	val := func() float64 {
		switch r.IntN(10) {
		case 0:
			return 0
		case 1:
			return math.Copysign(0, -1)
		case 2:
			return r.NormFloat64() * 1e150
		}
		return r.NormFloat64() * math.Exp(r.Float64()*10-5)
	}
	fill := func(n int) []float64 {
		v := make([]float64, n)
		for i := range v {
			v[i] = val()
		}
		return v
	}
	same := func(what string, got, want []float64) {
		t.Helper()
		for i := range want {
			if math.Float64bits(got[i]) != math.Float64bits(want[i]) {
				t.Fatalf("%s[%d] = %v (%#x), Go loop %v (%#x)", what, i, got[i], math.Float64bits(got[i]), want[i], math.Float64bits(want[i]))
			}
		}
	}
	for m := range 38 {
		for p := 1; p <= 10; p++ {
			n := m + r.IntN(3) // rows per column ≥ the outputs
			xt, x := fill(n*p), fill(p)
			got, want := fill(m), make([]float64, m)
			dots(got, xt, n, x)
			dotsGo(want, xt, n, x, 0)
			same("dots", got, want)
			sqDists(got, xt, n, x)
			sqDistsGo(want, xt, n, x, 0)
			same("sqDists", got, want)
		}
		d, xsq := fill(m), fill(m)
		want := slices.Clone(d)
		ng, si := -r.Float64(), val()
		kernelArg(d, xsq, ng, si)
		for j := range want {
			want[j] = ng * ((si + xsq[j]) - 2*want[j])
		}
		same("kernelArg", d, want)
		want = slices.Clone(d)
		scale(d, ng)
		for j := range want {
			want[j] *= ng
		}
		same("scale", d, want)
		out := make([]float32, m)
		toFloat32(out, d)
		for j, v := range d {
			if math.Float32bits(out[j]) != math.Float32bits(float32(v)) {
				t.Fatalf("toFloat32[%d] = %v, want %v", j, out[j], float32(v))
			}
		}
	}
}

// TestExpAllMatchesGo checks expAll (vector where available) against
// expAllGo bit for bit on kernel-like arguments with out-of-range values,
// NaN and ±Inf scattered through blocks and tails.
func TestExpAllMatchesGo(t *testing.T) {
	r := rand.New(rand.NewPCG(10, 11))
	special := []float64{math.NaN(), math.Inf(-1), math.Inf(1), -800, 800, -700, 700, 0, math.Copysign(0, -1)}
	for trial := range 2000 {
		v := make([]float64, r.IntN(23))
		for i := range v {
			switch {
			case trial%3 == 0 && r.IntN(8) == 0:
				v[i] = special[r.IntN(len(special))]
			case r.IntN(2) == 0:
				v[i] = -r.ExpFloat64() * 3
			default:
				v[i] = (r.Float64()*2 - 1) * 700
			}
		}
		want := slices.Clone(v)
		expAllGo(want)
		expAll(v)
		for i := range v {
			if math.Float64bits(v[i]) != math.Float64bits(want[i]) && !(math.IsNaN(v[i]) && math.IsNaN(want[i])) {
				t.Fatalf("expAll[%d] = %v, expAllGo %v", i, v[i], want[i])
			}
		}
	}
}

// TestCandidatesMatchGo checks the solver's candidate scan (vector where
// available) against the plain loop it replaces: the same candidates and
// gains bit for bit, in the same order, and the same maximum, on every
// length from 0 to 37, with NaN (variables off I_low) and gains of both
// signs and of exactly 0.
func TestCandidatesMatchGo(t *testing.T) {
	r := rand.New(rand.NewPCG(12, 13))
	for n := range 38 {
		for range 20 {
			s := &solver{active: n, g: make([]float64, n), lowSign: make([]float64, n),
				cand: make([]int32, n+1), gain: make([]float64, n+1)}
			for k := range n {
				s.g[k] = r.NormFloat64()
				s.lowSign[k] = []float64{1, -1, math.NaN()}[r.IntN(3)]
			}
			gmax := r.NormFloat64()
			if n > 0 && r.IntN(2) == 0 { // gains of exactly 0, which must not count
				k := r.IntN(n)
				s.lowSign[k] = 1
				gmax = -s.g[k]
				s.g[n-1-k], s.lowSign[n-1-k] = s.g[k], 1
			}
			gmax2, nc := s.candidates(gmax)
			// the loop candidates replaces
			want2, wantN := math.Inf(-1), 0
			var cand []int32
			var gain []float64
			for k, sg := range s.lowSign {
				v := sg * s.g[k]
				want2 = max2(want2, v)
				if d := gmax + v; d > 0 {
					cand, gain = append(cand, int32(k)), append(gain, d)
					wantN++
				}
			}
			if nc != wantN || gmax2 != want2 || !slices.Equal(s.cand[:nc], cand) || !slices.Equal(s.gain[:nc], gain) {
				t.Fatalf("n = %d: %d candidates %v %v, max %v; want %d %v %v, max %v",
					n, nc, s.cand[:nc], s.gain[:nc], gmax2, wantN, cand, gain, want2)
			}
		}
	}
}

// TestGradUpdateMatchesGo checks the solver's gradient update (vector
// where available) against the plain loop it replaces: the same gradients
// bit for bit and the same choice (the largest upSign·G, the last t
// reaching it), on lengths 0 to 37, with NaN off I_up, ties (repeated
// products, ±0) and kernel rows read through a shuffled index.
func TestGradUpdateMatchesGo(t *testing.T) {
	r := rand.New(rand.NewPCG(14, 15))
	for n := range 38 {
		for range 20 {
			rows := n + 3
			ri, rj := make([]float32, rows), make([]float32, rows)
			for k := range ri {
				ri[k], rj[k] = float32(r.NormFloat64()), float32(r.NormFloat64())
			}
			g, up, fs, idx := make([]float64, n), make([]float64, n), make([]float64, n), make([]int, n)
			for k := range g {
				g[k], idx[k] = r.NormFloat64(), r.IntN(rows)
				up[k] = []float64{1, -1, math.NaN()}[r.IntN(3)]
				fs[k] = []float64{1, -1}[r.IntN(2)]
				if r.IntN(4) == 0 { // ties: a product repeated, or zero
					g[k], idx[k], up[k], fs[k] = 0, 0, 1, 1
				}
			}
			dI, dJ := r.NormFloat64(), r.NormFloat64()
			if r.IntN(3) == 0 {
				dI, dJ = 0, 0 // every gradient unchanged: exact ties, ±0 products
			}
			want := slices.Clone(g)
			wantMax, wantNext := math.Inf(-1), -1
			for k, row := range idx {
				gt := want[k] + fs[k]*(float64(float64(ri[row])*dI)+float64(float64(rj[row])*dJ))
				want[k] = gt
				if v := up[k] * gt; v >= wantMax {
					wantMax, wantNext = v, k
				}
			}
			gmax, next := gradUpdate(g, up, fs, idx, ri, rj, dI, dJ)
			for k := range g {
				if math.Float64bits(g[k]) != math.Float64bits(want[k]) {
					t.Fatalf("n = %d: g[%d] = %v, want %v", n, k, g[k], want[k])
				}
			}
			if next != wantNext || math.Float64bits(gmax) != math.Float64bits(wantMax) {
				t.Fatalf("n = %d: choice (%v, %d), want (%v, %d)", n, gmax, next, wantMax, wantNext)
			}
		}
	}
}
