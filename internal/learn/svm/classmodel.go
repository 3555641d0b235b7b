package svm

import (
	"context"
	"fmt"
	"slices"

	"gonum.org/v1/gonum/mat"

	"github.com/misslab/misslab/internal/learn/learnerr"
)

// ClassModel is a fitted Classifier: the support vectors (in scaled
// coordinates, grouped by class in libsvm's class order), each pair's
// coefficients, bias and sigmoid, and the scaling. It is immutable and
// safe for concurrent use.
type ClassModel struct {
	k, p    int
	gamma   float64
	xCenter []float64 // nil when X is not scaled
	xScale  []float64
	labels  []int     // class codes in libsvm's order (first occurrence)
	sv      []float64 // p × NumSV, column-major (see svColumns)
	svIndex []int     // training rows of the support vectors
	svStart []int     // class c's support vectors are svStart[c] … svStart[c]+nSV[c]−1
	nSV     []int
	pairs   []pairModel // libsvm's order: (0, 1), (0, 2), …, (1, 2), …
}

// pairModel is the decision function of the classes at positions a < b
// of labels, f(x) = Σ coefA·K(x, ·) over class a's support vectors + Σ
// coefB·K(x, ·) over class b's − ρ (positive for class a), and its Platt
// sigmoid P(a | a or b) = 1/(1 + exp(probA·f + probB)).
type pairModel struct {
	a, b         int
	coefA, coefB []float64
	rho          float64
	probA, probB float64
	converged    bool
}

// NumClasses returns k, the number of columns of PredictProba.
func (m *ClassModel) NumClasses() int { return m.k }

// Labels returns the class codes that occurred in training in libsvm's
// order, their first occurrence in y (e1071's labels, as codes): pair
// (i, j) of Decision, Rho, ProbA and ProbB opposes Labels()[i] to
// Labels()[j].
func (m *ClassModel) Labels() []int { return slices.Clone(m.labels) }

// NumSV returns the number of support vectors (training rows with a
// non-zero coefficient in some pair), e1071's tot.nSV.
func (m *ClassModel) NumSV() int { return len(m.svIndex) }

// ClassSV returns the number of support vectors of each class, in the
// order of Labels (e1071's nSV).
func (m *ClassModel) ClassSV() []int { return slices.Clone(m.nSV) }

// SupportIndices returns the 0-based training rows of the support
// vectors, grouped by class in the order of Labels and in data order
// within a class (e1071's index − 1).
func (m *ClassModel) SupportIndices() []int { return slices.Clone(m.svIndex) }

// DualCoef returns libsvm's coefficient matrix (e1071's coefs): NumSV ×
// (c−1) for c classes in training, row s for SupportIndices()[s]; for
// the pair (i, j), i < j, the coefficients y·α of class i's support
// vectors are in column j−1 and those of class j's in column i (zero for
// a support vector of another pair only). Nil when fewer than two
// classes occurred.
func (m *ClassModel) DualCoef() *mat.Dense {
	nc := len(m.labels)
	if nc < 2 || len(m.svIndex) == 0 {
		return nil
	}
	out := mat.NewDense(len(m.svIndex), nc-1, nil)
	for _, pr := range m.pairs {
		for s, c := range pr.coefA {
			out.Set(m.svStart[pr.a]+s, pr.b-1, c)
		}
		for s, c := range pr.coefB {
			out.Set(m.svStart[pr.b]+s, pr.a, c)
		}
	}
	return out
}

// Rho returns the bias ρ of each pair's decision function, in the order
// of Decision's columns (e1071's rho).
func (m *ClassModel) Rho() []float64 { return m.pairValues(func(p pairModel) float64 { return p.rho }) }

// ProbA returns each pair's sigmoid slope A (e1071's probA).
func (m *ClassModel) ProbA() []float64 {
	return m.pairValues(func(p pairModel) float64 { return p.probA })
}

// ProbB returns each pair's sigmoid offset B (e1071's probB).
func (m *ClassModel) ProbB() []float64 {
	return m.pairValues(func(p pairModel) float64 { return p.probB })
}

func (m *ClassModel) pairValues(f func(pairModel) float64) []float64 {
	out := make([]float64, len(m.pairs))
	for q, p := range m.pairs {
		out[q] = f(p)
	}
	return out
}

// Gamma returns the kernel width used (1/p by default).
func (m *ClassModel) Gamma() float64 { return m.gamma }

// Scaled reports whether X was scaled; false with NoScale or when a
// training column was constant (e1071's rule).
func (m *ClassModel) Scaled() bool { return m.xCenter != nil }

// Converged reports whether SMO reached the tolerance on every pair
// (the final fits; libsvm's iteration cap max(10⁷, 100·l) stops it
// otherwise and keeps the current solution, as here).
func (m *ClassModel) Converged() bool {
	for _, p := range m.pairs {
		if !p.converged {
			return false
		}
	}
	return true
}

// Decision returns the n × c(c−1)/2 pairwise decision values of the rows
// of X, c = len(Labels()) ≥ 2, columns in libsvm's order (0, 1), (0, 2),
// …, (1, 2), … of Labels: e1071's predict(…, decision.values = TRUE),
// positive for the first class of the pair. Rows are scaled with the
// training centres and scales; kernel values are summed over each pair's
// support vectors in order, as libsvm's svm_predict_values. Errors wrap
// learnerr.ErrInput (X without the training column count, NaN or ±Inf,
// or a model that saw one class only and so has no pairs), or are the
// context's error.
func (m *ClassModel) Decision(ctx context.Context, X *mat.Dense) (*mat.Dense, error) {
	if len(m.pairs) == 0 {
		return nil, fmt.Errorf("svm: the model saw one class only and has no pairwise decision values: %w", learnerr.ErrInput)
	}
	q, nq, err := m.queryRows(ctx, X)
	if err != nil {
		return nil, err
	}
	out := mat.NewDense(nq, len(m.pairs), nil)
	if err := m.eachRow(ctx, q, nq, func(i int, dec []float64) { copy(out.RawRowView(i), dec) }); err != nil {
		return nil, err
	}
	return out, nil
}

// PredictProba returns the n × k class probabilities of the rows of X,
// column j for class code j, each row summing to 1 up to rounding: e1071's
// predict(…, probability = TRUE) with its columns put in code order,
// codes that did not occur in training at 0, and a class that occurred
// alone at 1. For two classes they are the pair's clipped sigmoid and
// its complement; for more, the pairwise probabilities coupled (see
// Classifier). Errors are Decision's, except that a one-class model is
// accepted.
func (m *ClassModel) PredictProba(ctx context.Context, X *mat.Dense) (*mat.Dense, error) {
	q, nq, err := m.queryRows(ctx, X)
	if err != nil {
		return nil, err
	}
	out := mat.NewDense(nq, m.k, nil)
	if len(m.pairs) == 0 {
		for i := range nq {
			out.Set(i, m.labels[0], 1)
		}
		return out, nil
	}
	r := make([]float64, len(m.labels)*len(m.labels))
	err = m.eachRow(ctx, q, nq, func(i int, dec []float64) {
		for c, v := range m.proba(dec, r) {
			out.Set(i, m.labels[c], v)
		}
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// proba is libsvm's svm_predict_probability from the decision values of
// one row (r is c × c scratch): probabilities in the order of labels.
func (m *ClassModel) proba(dec, r []float64) []float64 {
	nc := len(m.labels)
	for q, p := range m.pairs {
		v := min(max(sigmoidPredict(dec[q], p.probA, p.probB), minProb), 1-minProb)
		r[p.a*nc+p.b], r[p.b*nc+p.a] = v, 1-v
	}
	if nc == 2 {
		return []float64{r[1], r[2]}
	}
	return couple(r, nc)
}

// queryRows checks X and returns a row-major copy and its row count.
func (m *ClassModel) queryRows(ctx context.Context, X *mat.Dense) ([]float64, int, error) {
	if err := ctx.Err(); err != nil {
		return nil, 0, err
	}
	q, nq, p, err := flatten(X, "prediction")
	if err != nil {
		return nil, 0, err
	}
	if p != m.p {
		return nil, 0, fmt.Errorf("svm: prediction matrix has %d columns, model was trained on %d: %w", p, m.p, learnerr.ErrInput)
	}
	return q, nq, nil
}

// eachRow calls emit with the pairwise decision values of each of the nq
// rows of q (row-major, scaled here in place); the slice is reused.
func (m *ClassModel) eachRow(ctx context.Context, q []float64, nq int, emit func(i int, dec []float64)) error {
	kv := make([]float64, len(m.svIndex))
	dec := make([]float64, len(m.pairs))
	for i := range nq {
		if i%256 == 255 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		row := q[i*m.p : (i+1)*m.p]
		scaleRow(row, m.xCenter, m.xScale)
		kernelValues(kv, m.sv, row, m.gamma)
		for t, pr := range m.pairs {
			dec[t] = pr.decision(kv, m.svStart)
		}
		emit(i, dec)
	}
	return nil
}

// decision is the pair's f(x) from the kernel values kv of x against all
// support vectors: libsvm's sum over class a's then class b's support
// vectors, then − ρ.
func (p pairModel) decision(kv []float64, svStart []int) float64 {
	sum := 0.0
	for s, c := range p.coefA {
		sum += float64(c * kv[svStart[p.a]+s])
	}
	for s, c := range p.coefB {
		sum += float64(c * kv[svStart[p.b]+s])
	}
	return sum - p.rho
}
