package knn_test

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/misslab/misslab/internal/learn/knn"
)

// TestScreeningIsExact checks the screening filters' guarantee — they
// only skip rows that the exact scan would not offer — on data at very
// different scales and offsets, with duplicated rows and near ties, by
// comparing every prediction bit for bit with the unscreened scan.
func TestScreeningIsExact(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for _, scale := range []float64{1e-30, 1e-3, 1, 1e6, 1e14} {
		for _, offset := range []float64{0, 1e3} {
			n, p := 300, 1+r.IntN(6)
			X := mat.NewDense(n, p, nil)
			for i := range n {
				for j := range p {
					v := offset + scale*math.Round(4*r.NormFloat64())/4 // coarse grid: many ties
					if r.Float64() < 0.3 {
						v += scale * 1e-6 * r.Float64() // near ties
					}
					X.Set(i, j, v)
				}
				if i > 0 && r.Float64() < 0.1 {
					X.SetRow(i, X.RawRowView(i-1)) // duplicates
				}
			}
			y := make([]float64, n)
			for i := range y {
				y[i] = r.NormFloat64()
			}
			Q := mat.NewDense(100, p, nil)
			for i := range 100 {
				Q.SetRow(i, X.RawRowView(r.IntN(n)))
				Q.Set(i, 0, Q.At(i, 0)+scale*r.NormFloat64()/8)
			}
			for _, k := range []int{1, 5} {
				var preds [][]float64
				for _, mode := range []int{knn.ScreenNone, knn.Screen64, knn.Screen32} {
					preds = append(preds, fitPredictScreen(t, k, X, y, Q, mode))
				}
				if !slices.Equal(preds[0], preds[1]) || !slices.Equal(preds[0], preds[2]) {
					t.Errorf("scale %g offset %g p %d k %d: screened predictions differ from the exact scan", scale, offset, p, k)
				}
			}
		}
	}
}
