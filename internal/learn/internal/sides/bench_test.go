package sides

import (
	"math/rand/v2"
	"testing"
)

// BenchmarkSplit times Split on 1000 entries over 1000 rows with random
// sides, beside the branch-free Go loop the learners ran before
// ("go"), in ns per entry.
func BenchmarkSplit(b *testing.B) {
	r := rand.New(rand.NewPCG(7, 8))
	const m = 1000
	side := Make(m)
	for i := range side {
		side[i] = uint8(r.IntN(2))
	}
	src := entries(r, m, m, 0)
	w0, _ := splitRef(src, side, 0)
	dst := make([]uint64, m)
	b.Run("sides", func(b *testing.B) {
		for b.Loop() {
			Split(src, side, 0, dst[:len(w0)], dst[len(w0):])
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*m), "ns/entry")
	})
	b.Run("go", func(b *testing.B) {
		for b.Loop() {
			goPartition(dst, src, side, len(w0))
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*m), "ns/entry")
	})
}

// goPartition is the forest's branch-free Go partition.
//
//go:noinline
func goPartition(dst, src []uint64, side []uint8, nl int) {
	i0, i1 := 0, nl
	dst = dst[:len(src)]
	for _, e := range src {
		s := int(side[uint32(e)])
		dst[i0+s*(i1-i0)] = e
		i0 += 1 - s
		i1 += s
	}
}
