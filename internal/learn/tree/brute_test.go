package tree

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// ss returns the sum of squared deviations from the mean of ys.
func ss(ys []float64) float64 {
	if len(ys) == 0 {
		return 0
	}
	var m float64
	for _, v := range ys {
		m += v
	}
	m /= float64(len(ys))
	var s float64
	for _, v := range ys {
		s += (v - m) * (v - m)
	}
	return s
}

// bruteSplit is the best root split found by enumerating every column and
// every midpoint between consecutive distinct observed values, scoring
// each partition with two-pass sums of squares: the reference for the
// scans' incremental arithmetic.
type bruteSplit struct {
	feature int
	thr     float64
	naLeft  bool // MIA only
	gain    float64
}

func bruteBest(X *mat.Dense, y []float64, st Strategy, gain Gain, minb int) (bruteSplit, bool) {
	n, d := X.Dims()
	best, found := bruteSplit{gain: 0}, false
	total := ss(y)
	for j := range d {
		var obsV []float64
		for i := range n {
			if v := X.At(i, j); !math.IsNaN(v) {
				obsV = append(obsV, v)
			}
		}
		slices.Sort(obsV)
		obsV = slices.Compact(obsV)
		var thrs []float64
		for i := 1; i < len(obsV); i++ {
			thrs = append(thrs, (obsV[i-1]+obsV[i])/2)
		}
		if st == MIA {
			thrs = append(thrs, math.Inf(1))
		}
		for _, thr := range thrs {
			var lo, hi, na []float64
			for i := range n {
				switch v := X.At(i, j); {
				case math.IsNaN(v):
					na = append(na, y[i])
				case v < thr:
					lo = append(lo, y[i])
				default:
					hi = append(hi, y[i])
				}
			}
			consider := func(g float64, naLeft bool, n0, n1 int) {
				if n0 >= minb && n1 >= minb && g > best.gain*(1+1e-9) {
					best, found = bruteSplit{j, thr, naLeft, g}, true
				}
			}
			if st != MIA {
				g := ss(append(append([]float64{}, lo...), hi...)) - ss(lo) - ss(hi)
				if gain == GainPerObserved && len(lo)+len(hi) > 0 {
					g *= float64(n) / float64(len(lo)+len(hi))
				}
				consider(g, false, len(lo), len(hi))
				continue
			}
			if math.IsInf(thr, 1) {
				consider(total-ss(lo)-ss(hi)-ss(na), false, len(lo), len(na))
				continue
			}
			left := append(append([]float64{}, lo...), na...)
			right := append(append([]float64{}, hi...), na...)
			consider(total-ss(left)-ss(hi), true, len(left), len(hi))
			consider(total-ss(lo)-ss(right), false, len(lo), len(right))
		}
	}
	return best, found
}

// randomData draws n rows of d columns, some integer-valued (ties), with
// NA at the given rate, and a target depending on the first columns.
func randomData(n, d int, rate float64, rng *rand.Rand) (*mat.Dense, []float64) {
	X := mat.NewDense(n, d, nil)
	y := make([]float64, n)
	for i := range n {
		for j := range d {
			v := rng.NormFloat64()
			if j%3 == 2 {
				v = float64(rng.IntN(5))
			}
			X.Set(i, j, v)
		}
		y[i] = X.At(i, 0) + math.Sin(3*X.At(i, 1%d)) + 0.3*rng.NormFloat64()
		for j := range d {
			if rng.Float64() < rate {
				X.Set(i, j, math.NaN())
			}
		}
	}
	return X, y
}

// TestStumpMatchesBruteForce checks the root split of every strategy
// against exhaustive enumeration on random small data sets with NA and
// ties, for several MinBucket values and both available-case gains.
func TestStumpMatchesBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	for trial := range 60 {
		n, d := 20+rng.IntN(60), 1+rng.IntN(4)
		rate := []float64{0, 0.1, 0.3, 0.6}[trial%4]
		X, y := randomData(n, d, rate, rng)
		minb := 1 + rng.IntN(6)
		for _, tc := range []struct {
			st   Strategy
			gain Gain
		}{{MIA, GainRpart}, {Block, GainRpart}, {Block, GainPerObserved}, {Majority, GainRpart}} {
			p := Params{Strategy: tc.st, Gain: tc.gain, MinBucket: minb, MaxDepth: 1}
			tr, err := Fit(context.Background(), X, y, p, rng)
			if err != nil {
				t.Fatal(err)
			}
			want, ok := bruteBest(X, y, tc.st, tc.gain, minb)
			root := tr.Root()
			if !ok {
				if !root.Leaf {
					t.Errorf("trial %d %v: split x%d < %v where none is admissible", trial, tc.st, root.Feature+1, root.Threshold)
				}
				continue
			}
			if root.Leaf || root.Feature != want.feature || root.Threshold != want.thr {
				t.Errorf("trial %d %v/%v minb %d: split %+v, brute force x%d < %v (gain %v)",
					trial, tc.st, tc.gain, minb, root, want.feature+1, want.thr, want.gain)
				continue
			}
			if tc.st == MIA && root.MissingSeen && !math.IsInf(want.thr, 1) && root.MissingLeft != want.naLeft {
				t.Errorf("trial %d MIA: NA left %v, brute force %v", trial, root.MissingLeft, want.naLeft)
			}
			if g := root.Improve * root.Deviance; math.Abs(g-want.gain) > 1e-9*math.Max(1, want.gain) {
				t.Errorf("trial %d %v: gain %v, brute force %v", trial, tc.st, g, want.gain)
			}
		}
	}
}
