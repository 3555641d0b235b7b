package sides

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// splitRef is Split's meaning, written out plainly.
func splitRef(src []uint64, side []uint8, shift uint) (s0, s1 []uint64) {
	for _, e := range src {
		if side[uint32(e>>shift)] == 0 {
			s0 = append(s0, e)
		} else {
			s1 = append(s1, e)
		}
	}
	return s0, s1
}

// entries returns m entries over rows [0, n) with random other halves.
func entries(r *rand.Rand, m, n int, shift uint) []uint64 {
	src := make([]uint64, m)
	for i := range src {
		row, other := uint64(r.IntN(n)), uint64(r.Uint32())
		src[i] = row<<shift | other<<(32-shift)
	}
	return src
}

func TestSplitMatchesRef(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, shift := range []uint{0, 32} {
		for m := range 70 {
			for _, p1 := range []float64{0, 0.3, 1} {
				n := 1 + r.IntN(50)
				side := Make(n)
				for i := range side {
					side[i] = uint8(b2f(r.Float64() < p1))
				}
				src := entries(r, m, n, shift)
				w0, w1 := splitRef(src, side, shift)

				out0, out1 := make([]uint64, m), make([]uint64, m)
				n0 := Split(src, side, shift, out0, out1)
				if n0 != len(w0) || !slices.Equal(out0[:n0], w0) || !slices.Equal(out1[:m-n0], w1) {
					t.Fatalf("shift %d m %d: got %v | %v, want %v | %v", shift, m, out0[:n0], out1[:m-n0], w0, w1)
				}

				// in place: out1 is src itself, out0 a scratch buffer
				in := slices.Clone(src)
				tmp := make([]uint64, m)
				n0 = Split(in, side, shift, tmp, in)
				if n0 != len(w0) || !slices.Equal(tmp[:n0], w0) || !slices.Equal(in[:m-n0], w1) {
					t.Fatalf("in place, shift %d m %d: got %v | %v, want %v | %v", shift, m, tmp[:n0], in[:m-n0], w0, w1)
				}

				// exact room: out0 and out1 as two parts of one slice
				dst := make([]uint64, m)
				n0 = Split(src, side, shift, dst[:len(w0)], dst[len(w0):])
				if n0 != len(w0) || !slices.Equal(dst, append(slices.Clone(w0), w1...)) {
					t.Fatalf("exact room, shift %d m %d: got %v, want %v | %v", shift, m, dst, w0, w1)
				}
			}
		}
	}
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// TestSplitVectorRan checks that the vector kernel, where the machine has
// it, processes every whole block (else the test above only checked the
// Go loop against itself).
func TestSplitVectorRan(t *testing.T) {
	if !useVector {
		t.Skip("no AVX-512 on this machine: only the Go loop runs")
	}
	r := rand.New(rand.NewPCG(3, 4))
	side := Make(100)
	for i := range side {
		side[i] = uint8(r.IntN(2))
	}
	src := entries(r, 77, 100, 0)
	out0, out1 := make([]uint64, 77), make([]uint64, 77)
	done, n0 := splitVec(src, side, 0, out0, out1)
	w0, _ := splitRef(src[:done], side, 0)
	if done != 72 || n0 != len(w0) {
		t.Fatalf("vector kernel did %d entries (%d to out0), want 72 (%d)", done, n0, len(w0))
	}
}

// TestSplitPanics checks that a row past side or a stream without room
// panics as indexing does, from the vector path too, and that a side
// without Pad still splits (by the Go loop).
func TestSplitPanics(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	src := entries(r, 40, 10, 0)
	side := Make(10)
	for i := range side {
		side[i] = uint8(i & 1)
	}
	w0, w1 := splitRef(src, side, 0)
	cases := []struct {
		name       string
		side       []uint8
		out0, out1 []uint64
	}{
		{"row past side", side[:5], make([]uint64, 40), make([]uint64, 40)},
		{"out0 short", side, make([]uint64, len(w0)-1), make([]uint64, 40)},
		{"out1 short", side, make([]uint64, 40), make([]uint64, len(w1)-1)},
		{"out0 empty", side, nil, make([]uint64, 40)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Fatal("no panic")
				}
			}()
			Split(src, c.side, 0, c.out0, c.out1)
		})
	}
	noPad := slices.Clip(slices.Clone(side))
	out := make([]uint64, 40)
	if n0 := Split(src, noPad, 0, out[:len(w0)], out[len(w0):]); n0 != len(w0) || !slices.Equal(out, append(w0, w1...)) {
		t.Fatalf("side without Pad: got %v (n0 %d), want %v | %v", out, n0, w0, w1)
	}
}
