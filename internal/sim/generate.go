package sim

import (
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"
)

// Sample is one drawn data set.
type Sample struct {
	// X is the n × D design as the learner sees it: NaN where masked.
	X *mat.Dense
	// Full is the n × D complete covariates (no NaN), for oracles and checks.
	Full *mat.Dense
	// Y holds the n targets, noise included.
	Y []float64
}

// Mask reports whether entry (i, j) is missing, i.e. X(i, j) is NaN.
func (s Sample) Mask(i, j int) bool { return math.IsNaN(s.X.At(i, j)) }

// N returns the number of rows.
func (s Sample) N() int { return len(s.Y) }

// MissingCount returns the number of masked entries in column j.
func (s Sample) MissingCount(j int) int {
	n, _ := s.X.Dims()
	c := 0
	for i := 0; i < n; i++ {
		if math.IsNaN(s.X.At(i, j)) {
			c++
		}
	}
	return c
}

// Rep is one repetition of a scenario: a training set and an independent
// test set, each with its own missingness drawn by the same mechanism.
type Rep struct {
	Train, Test Sample
}

// Generate validates s and draws repetition rep (≥ 0) of it under the grid
// seed. The training set comes from Stream(seed, s.Canonical(), rep,
// PurposeTrain) and the test set from the PurposeTest stream, so the data
// are a pure function of (seed, s, rep): bit-identical in any process, on
// any goroutine, in any order of calls. Within a set, rows are drawn in
// order; each row consumes its covariates, then its row-wise mask draws
// (MCAR, predictive, MAR: one uniform per masked column), then one normal
// for the noise (a binary task: one uniform for the Bernoulli draw of Y);
// censoring MNAR is applied per column after all rows.
// Errors wrap ErrInvalid.
func Generate(s Scenario, seed uint64, rep int) (Rep, error) {
	if err := s.Validate(); err != nil {
		return Rep{}, err
	}
	if err := noPopulation(s); err != nil {
		return Rep{}, err
	}
	if rep < 0 {
		return Rep{}, fmt.Errorf("%w: rep = %d outside [0, %d]", ErrInvalid, rep, math.MaxInt)
	}
	l := newLaw(s)
	id := s.Canonical()
	train := l.sample(s.NTrain, Stream(seed, id, rep, PurposeTrain))
	test := l.sample(s.NTest, Stream(seed, id, rep, PurposeTest))
	return Rep{Train: train, Test: test}, nil
}

// sample draws n rows from l with r.
func (l *law) sample(n int, r *rand.Rand) Sample {
	d := l.s.D
	full := make([]float64, n*d)
	obs := make([]float64, n*d)
	y := make([]float64, n)
	l.fill(r, full, obs, y)
	if l.s.Mechanism == MNAR {
		l.censor(full, obs, n, make([]float64, n))
	}
	return Sample{X: mat.NewDense(n, d, obs), Full: mat.NewDense(n, d, full), Y: y}
}

// fill draws len(y) rows into full, obs (row-major, D columns) and y,
// applying the row-wise mechanisms but not censoring.
func (l *law) fill(r *rand.Rand, full, obs, y []float64) {
	d := l.s.D
	noise := l.s.Noise
	for i := range y {
		f := full[i*d : (i+1)*d : (i+1)*d]
		o := obs[i*d : (i+1)*d : (i+1)*d]
		l.drawX(r, f)
		copy(o, f)
		l.maskRow(r, f, o)
		eta := l.signal(f) + l.maskEffect(f, o)
		if l.s.Task == Binary {
			y[i] = 0
			if r.Float64() < l.binaryProb(eta) {
				y[i] = 1
			}
			continue
		}
		y[i] = eta + noise*r.NormFloat64()
	}
}
