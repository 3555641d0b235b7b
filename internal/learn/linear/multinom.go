package linear

import (
	"fmt"
	"math"

	"github.com/misslab/misslab/internal/learn/learnerr"
)

// softmaxNet is the objective nnet::multinom minimises: the network of
// nnet with no hidden layer, skip-layer connections and softmax outputs,
// for k classes and r = p + 1 inputs (the intercept column of the model
// matrix, then the p features). Output c has the weights
// w[c·(r+1) : (c+1)·(r+1)]: a bias (held at 0, multinom uses the
// intercept column instead), then one per input. Class 0's weights are
// held at 0 (the reference class). The value is
//
//	−Σ_i log p_i,y_i + decay·Σ w²
//
// summed over the rows in order as nnet's fminfn does (a row whose
// class has probability exactly 0 adds 1000 instead of +∞).
type softmaxNet struct {
	n, r, k int
	x       []float64 // n × r, row-major, x[i·r] = 1
	y       []int     // class of each row, 0..k−1
	decay   float64
	out     []float64 // k scratch outputs
}

// nweights is the length of the weight vector.
func (s *softmaxNet) nweights() int { return s.k * (s.r + 1) }

// free reports whether weight j is fitted (not a bias, not class 0).
func (s *softmaxNet) free(j int) bool { return j >= s.r+1 && j%(s.r+1) != 0 }

// forward sets s.out to the class probabilities of input row xi under w.
func (s *softmaxNet) forward(xi, w []float64) { softmax(xi, w, s.out) }

// softmax sets out to the class probabilities of input row xi (r values,
// the first 1) under nnet's weight vector w, as nnet's fpass computes
// them: each output summed bias first then inputs in order, all shifted
// by their maximum, exponentiated and normalised. It returns the maximum
// output.
func softmax(xi, w, out []float64) float64 {
	r := len(xi)
	top := 0.0
	for c := range out {
		wc := w[c*(r+1) : (c+1)*(r+1)]
		sum := 0.0 + wc[0]
		for j, v := range xi {
			sum += float64(v * wc[j+1])
		}
		out[c] = sum
		if c == 0 || sum > top {
			top = sum
		}
	}
	total := 0.0
	for c, o := range out {
		out[c] = crExp(o - top)
		total += out[c]
	}
	for c := range out {
		out[c] /= total
	}
	return top
}

// predictSoftmax writes the probabilities of the present classes for
// features x into dst. Outputs that overflow to +∞ share the whole
// probability (nnet would return NaN); a NaN output is an error.
func (m *ClassModel) predictSoftmax(x, dst []float64) error {
	xi := make([]float64, 1+len(x))
	xi[0] = 1
	copy(xi[1:], x)
	out := make([]float64, len(m.present))
	top := softmax(xi, m.weights, out)
	if math.IsInf(top, 0) || math.IsNaN(top) {
		r := len(xi)
		for c := range out {
			out[c] = 0.0 + m.weights[c*(r+1)]
			for j, v := range xi {
				out[c] += float64(v * m.weights[c*(r+1)+j+1])
			}
		}
		return shareInfinite(out, m.present, dst)
	}
	for c, v := range out {
		if math.IsNaN(v) {
			return fmt.Errorf("%w: %w", errNaNPredictor, learnerr.ErrNumerical)
		}
		dst[m.present[c]] = v
	}
	return nil
}

// shareInfinite gives equal probability to the classes whose output o
// is the largest when that is ±∞; a NaN output is an error.
func shareInfinite(o []float64, present []int, dst []float64) error {
	top := math.Inf(-1)
	for _, v := range o {
		if math.IsNaN(v) {
			return fmt.Errorf("%w: %w", errNaNPredictor, learnerr.ErrNumerical)
		}
		top = math.Max(top, v)
	}
	ties := 0
	for _, v := range o {
		if v == top {
			ties++
		}
	}
	for c, v := range o {
		if v == top {
			dst[present[c]] = 1 / float64(ties)
		}
	}
	return nil
}

// value is nnet's fminfn: the negative log-likelihood plus the decay.
func (s *softmaxNet) value(w []float64) float64 {
	total := 0.0
	for i := range s.n {
		s.forward(s.x[i*s.r:(i+1)*s.r], w)
		if p := s.out[s.y[i]]; p > 0 {
			total -= crLog(p)
		} else {
			total += 1000
		}
	}
	return total + s.penalty(w)
}

// penalty is decay·Σ w² over every weight, held ones included.
func (s *softmaxNet) penalty(w []float64) float64 {
	sum := 0.0
	for _, v := range w {
		sum += float64(float64(s.decay*v) * v)
	}
	return sum
}

// grad is nnet's fmingr: g = 2·decay·w + Σ_i (p_i − e_{y_i}) ⊗ (1, x_i),
// each weight's sum taken over the rows in order.
func (s *softmaxNet) grad(w, g []float64) {
	r := s.r
	for j, v := range w {
		g[j] = 2 * s.decay * v
	}
	for i := range s.n {
		xi := s.x[i*r : (i+1)*r]
		s.forward(xi, w)
		for c := s.k - 1; c >= 0; c-- {
			e := s.out[c]
			if c == s.y[i] {
				e = 1*s.out[c] - 1
			}
			gc := g[c*(r+1) : (c+1)*(r+1)]
			gc[0] += e
			for j, v := range xi {
				gc[j+1] += float64(e * v)
			}
		}
	}
}
