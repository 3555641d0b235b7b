package tree

import (
	"context"
	"errors"
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/misslab/misslab/internal/learn/learnerr"
)

// byteSource decodes fuzz input; it yields zeros once exhausted.
type byteSource struct {
	b []byte
	i int
}

func (s *byteSource) next() byte {
	if s.i >= len(s.b) {
		return 0
	}
	s.i++
	return s.b[s.i-1]
}

// value decodes one feature value: NaN, a tie-prone small integer, an
// extreme magnitude, or a spread value.
func (s *byteSource) value() float64 {
	c := s.next()
	switch c % 8 {
	case 0:
		return math.NaN()
	case 1:
		return float64(c % 3)
	case 2:
		return []float64{math.MaxFloat64, -math.MaxFloat64, 1e-310, -0.0}[c%4]
	}
	return float64(int(c)-128) / 7
}

// FuzzFitPredict fits every strategy on arbitrary small data with
// arbitrary NA patterns and controls, and predicts arbitrary rows: no
// panic, only documented errors, predictions within the training target
// range, every leaf reachable count consistent, Predict deterministic.
func FuzzFitPredict(f *testing.F) {
	f.Add([]byte{10, 3, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16})
	f.Add([]byte{40, 2, 1, 8, 16, 24, 32, 40, 48, 56, 64, 72, 80, 88, 96, 104, 112, 120, 128})
	f.Add([]byte{5, 1, 2, 0, 0, 0, 0, 0, 255, 255, 1})
	f.Add([]byte{63, 4, 5, 9, 200, 17, 33, 2, 0, 8, 250, 99, 3, 7, 77, 1, 1, 1, 1, 42})
	f.Fuzz(func(t *testing.T, data []byte) {
		src := &byteSource{b: data}
		n, d := 1+int(src.next())%64, 1+int(src.next())%4
		ctl := src.next()
		X := mat.NewDense(n, d, nil)
		y := make([]float64, n)
		for i := range n {
			for j := range d {
				X.Set(i, j, src.value())
			}
			y[i] = float64(int(src.next())-128) / 3
		}
		p := Params{
			Strategy: Strategy(ctl % 6), MinBucket: 1 + int(ctl>>3)%5, MinSplit: int(src.next()) % 12,
			MaxDepth: int(src.next()) % 6, MaxSurrogate: int(ctl>>5) % 6, Mtry: int(src.next()) % (d + 1),
			CP: float64(src.next()%4) / 50, Gain: Gain(ctl>>6) % 2, MinNodeSize: int(src.next()) % 8,
		}
		var rows []int // a bootstrap-like multiset half of the time
		if src.next()%2 == 1 {
			rows = make([]int, 1+int(src.next())%64)
			for i := range rows {
				rows[i] = int(src.next()) % n
			}
		}
		var tr *Model
		var err error
		if rows != nil {
			tr, err = FitSample(context.Background(), X, y, rows, p, newRNG(uint64(len(data))))
		} else {
			tr, err = Fit(context.Background(), X, y, p, newRNG(uint64(len(data))))
		}
		if err != nil {
			if !errors.Is(err, learnerr.ErrInput) {
				t.Fatalf("unexpected fit error: %v", err)
			}
			return
		}
		checkStructure(t, tr)
		Xt := mat.NewDense(1+int(src.next())%8, d, nil)
		r, _ := Xt.Dims()
		for i := range r {
			for j := range d {
				Xt.Set(i, j, src.value())
			}
		}
		checkPredictions(t, tr, Xt, y)
		checkPredictions(t, tr, X, y)
	})
}

// checkStructure: children hold no more entries than their parent, and
// leaves number internal nodes plus one.
func checkStructure(t *testing.T, tr *Model) {
	nodes := tr.Nodes()
	internal := 0
	for _, nd := range nodes {
		if nd.Leaf {
			continue
		}
		internal++
		if l, r := nodes[nd.Left], nodes[nd.Right]; l.N+r.N > nd.N || l.Depth != nd.Depth+1 || r.Depth != nd.Depth+1 {
			t.Fatalf("node %+v has children %+v and %+v", nd, l, r)
		}
	}
	if tr.NumLeaves() != internal+1 {
		t.Fatalf("%d leaves for %d splits", tr.NumLeaves(), internal)
	}
}

// checkPredictions: a tree predicts a mean of training targets, so within
// their range; Predict is a deterministic function of X.
func checkPredictions(t *testing.T, tr *Model, X *mat.Dense, y []float64) {
	a, err := tr.Predict(context.Background(), X)
	if err != nil {
		if tr.Strategy() == NoMissing && errors.Is(err, learnerr.ErrInput) {
			return
		}
		t.Fatalf("unexpected predict error: %v", err)
	}
	b, _ := tr.Predict(context.Background(), X)
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, v := range y {
		lo, hi = math.Min(lo, v), math.Max(hi, v)
	}
	for i, v := range a {
		if !(v >= lo-1e-9 && v <= hi+1e-9) || v != b[i] {
			t.Fatalf("row %d: prediction %v (then %v) outside [%v, %v] or not reproducible", i, v, b[i], lo, hi)
		}
	}
}
