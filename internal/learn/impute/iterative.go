package impute

import (
	"context"
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/mat"

	"github.com/misslab/misslab/internal/learn/learnerr"
)

// Iterative defaults: scikit-learn 1.2.1's IterativeImputer() max_iter
// and tol.
const (
	DefaultIterativeMaxIter = 10
	DefaultIterativeTol     = 1e-3
)

// Iterative is scikit-learn 1.2.1's IterativeImputer() with its defaults
// (chained equations, MICE-style without sampling): every column starts
// at its training mean; then, for up to MaxIter rounds, each column j in
// turn — columns by increasing number of missing training entries, ties
// by column index (sklearn's imputation_order "ascending", a stable
// argsort) — is regressed on all the other columns over the rows where j
// is observed, by a Bayesian ridge regression with the defaults of
// sklearn's BayesianRidge() (see fitRidge), and the model's predictions
// replace j's missing entries. Columns without missing entries are
// fitted too (skip_complete false), since a test set may miss them.
// Rounds stop early once the matrix infinity norm of the change of the
// imputed matrix over a round, max over rows of Σ_j |Δx_ij|, is below
// Tol · max |x| over the observed training entries (sklearn's test,
// strict "<"). Predictions are not clipped (min_value, max_value ±∞),
// the posterior is not sampled and every other column is a predictor
// (n_nearest_features None), so the result is deterministic.
//
// A column with no observed training entry, which sklearn drops from its
// output (keep_empty_features false), is imputed with 0 as the Mean
// strategy does (sklearn's keep_empty_features true) and is no
// predictor of the others, so the other columns get sklearn's values.
// With fewer than two such non-empty columns the result is the mean
// imputation, as sklearn's.
//
// The zero value takes the defaults.
type Iterative struct {
	// MaxIter is the number of rounds, at most; ≤ 0 means
	// DefaultIterativeMaxIter.
	MaxIter int
	// Tol is the stopping tolerance relative to the largest observed
	// magnitude; 0 means DefaultIterativeTol, negative or NaN is an
	// error wrapping learnerr.ErrSetting.
	Tol float64
}

// IterativeFit is a fitted Iterative imputer. Its Transform replays, on
// a new matrix, the regressions of every round in the order they were
// fitted, starting from the training means, as sklearn's transform does;
// on the training matrix it reproduces the fit's imputation.
type IterativeFit struct {
	// Means are the training column means, the initial imputation (0 for
	// the Empty columns).
	Means []float64
	// Empty lists (ascending) the columns with no observed training entry.
	Empty []int
	// Rounds is the number of rounds performed and Converged whether the
	// last met the tolerance (sklearn's n_iter_ and the absence of its
	// ConvergenceWarning).
	Rounds    int
	Converged bool
	steps     []iterStep
}

// iterStep is one fitted regression: column col from the columns nbrs.
type iterStep struct {
	col   int
	nbrs  []int
	model *ridgeModel
}

// Fit runs the chained regressions on X.
func (it Iterative) Fit(ctx context.Context, X *mat.Dense) (Transformer, error) {
	if err := checkTrain(ctx, X); err != nil {
		return nil, err
	}
	if math.IsNaN(it.Tol) || it.Tol < 0 || math.IsInf(it.Tol, 1) {
		return nil, fmt.Errorf("impute: iterative tolerance %v, want a finite value ≥ 0: %w", it.Tol, learnerr.ErrSetting)
	}
	maxIter, tol := it.MaxIter, it.Tol
	if maxIter <= 0 {
		maxIter = DefaultIterativeMaxIter
	}
	if tol == 0 {
		tol = DefaultIterativeTol
	}
	w := newIterWork(X)
	f := &IterativeFit{Means: w.means, Empty: w.empty}
	if len(w.valid) < 2 {
		return f, nil
	}
	order := w.order()
	limit := tol * w.maxAbsObserved()
	prev := w.snapshot(nil)
	for f.Rounds < maxIter {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		for _, j := range order {
			f.steps = append(f.steps, w.fitColumn(j))
		}
		f.Rounds++
		if w.infNormChange(prev) < limit {
			f.Converged = true
			break
		}
		prev = w.snapshot(prev)
	}
	return f, nil
}

// Transform imputes the NA of X by the training means, then replays the
// fitted regressions in order on X's own missing entries.
func (f *IterativeFit) Transform(X *mat.Dense) (*mat.Dense, error) {
	if err := checkCols(X, len(f.Means)); err != nil {
		return nil, err
	}
	w := &iterWork{}
	w.load(X, f.Means)
	for _, s := range f.steps {
		w.predict(s)
	}
	n, d := X.Dims()
	out := mat.NewDense(n, d, nil)
	for j, col := range w.cols {
		for i, v := range col {
			out.Set(i, j, v)
		}
	}
	return out, nil
}

// iterWork is the matrix being imputed, column-major, with its
// missingness.
type iterWork struct {
	n     int
	cols  [][]float64 // cols[j][i] = x_ij, NA filled
	obs   [][]int     // obs[j]: rows where column j is observed
	mis   [][]int     // mis[j]: rows where column j is missing
	means []float64   // training means (fit only)
	valid []int       // columns with an observed entry (fit only)
	empty []int       // columns without (fit only)
}

// newIterWork loads the training matrix, computes the column means and
// fills the NA with them.
func newIterWork(X *mat.Dense) *iterWork {
	_, d := X.Dims()
	w := &iterWork{means: make([]float64, d)}
	w.load(X, nil)
	for j := range d {
		if len(w.obs[j]) == 0 {
			w.empty = append(w.empty, j)
			continue
		}
		w.valid = append(w.valid, j)
		s := 0.0
		for _, i := range w.obs[j] {
			s += w.cols[j][i]
		}
		w.means[j] = s / float64(len(w.obs[j]))
	}
	for j := range d {
		for _, i := range w.mis[j] {
			w.cols[j][i] = w.means[j]
		}
	}
	return w
}

// load copies X column by column, filling column j's NA with fill[j]
// (left NaN when fill is nil), and records where each column is missing.
func (w *iterWork) load(X *mat.Dense, fill []float64) {
	n, d := X.Dims()
	w.n = n
	w.cols, w.obs, w.mis = make([][]float64, d), make([][]int, d), make([][]int, d)
	for j := range d {
		w.cols[j] = make([]float64, n)
	}
	for i := range n {
		for j, v := range X.RawRowView(i) {
			if math.IsNaN(v) {
				w.mis[j] = append(w.mis[j], i)
				if fill != nil {
					v = fill[j]
				}
			} else {
				w.obs[j] = append(w.obs[j], i)
			}
			w.cols[j][i] = v
		}
	}
}

// order returns the valid columns by increasing number of missing
// entries, ties by index.
func (w *iterWork) order() []int {
	order := slices.Clone(w.valid)
	slices.SortStableFunc(order, func(a, b int) int { return len(w.mis[a]) - len(w.mis[b]) })
	return order
}

// maxAbsObserved returns max |x_ij| over the observed entries.
func (w *iterWork) maxAbsObserved() float64 {
	m := 0.0
	for _, j := range w.valid {
		for _, i := range w.obs[j] {
			m = math.Max(m, math.Abs(w.cols[j][i]))
		}
	}
	return m
}

// fitColumn regresses column j on the other valid columns over j's
// observed rows, imputes j's missing rows with the model and returns the
// step.
func (w *iterWork) fitColumn(j int) iterStep {
	s := iterStep{col: j}
	for _, a := range w.valid {
		if a != j {
			s.nbrs = append(s.nbrs, a)
		}
	}
	rows := w.obs[j]
	des := &ridgeDesign{Cols: make([][]float64, len(s.nbrs)), Mean: make([]float64, len(s.nbrs)),
		Y: make([]float64, len(rows))}
	for k, a := range s.nbrs {
		des.Cols[k], des.Mean[k] = centred(w.cols[a], rows)
	}
	des.Y, des.YMean = centred(w.cols[j], rows)
	s.model = fitRidge(des)
	w.predict(s)
	return s
}

// centred returns col[rows] minus its mean, and the mean.
func centred(col []float64, rows []int) ([]float64, float64) {
	out := make([]float64, len(rows))
	s := 0.0
	for k, i := range rows {
		out[k] = col[i]
		s += col[i]
	}
	m := s / float64(len(rows))
	for k := range out {
		out[k] -= m
	}
	return out, m
}

// predict replaces the missing entries of step s's column by the model's
// predictions from the current values of its predictors.
func (w *iterWork) predict(s iterStep) {
	x := make([]float64, len(s.nbrs))
	for _, i := range w.mis[s.col] {
		for k, a := range s.nbrs {
			x[k] = w.cols[a][i]
		}
		w.cols[s.col][i] = s.model.predict(x)
	}
}

// snapshot copies the current imputed values (column by column, missing
// entries only) into dst, reusing its storage.
func (w *iterWork) snapshot(dst [][]float64) [][]float64 {
	if dst == nil {
		dst = make([][]float64, len(w.cols))
	}
	for j, rows := range w.mis {
		dst[j] = dst[j][:0]
		for _, i := range rows {
			dst[j] = append(dst[j], w.cols[j][i])
		}
	}
	return dst
}

// infNormChange returns the matrix infinity norm of the current matrix
// minus the one prev snapshots: the largest row sum of absolute changes
// (numpy's norm(ord=inf) of a 2-D array, as sklearn measures a round).
func (w *iterWork) infNormChange(prev [][]float64) float64 {
	rowSum := make([]float64, w.n)
	for j, rows := range w.mis {
		for k, i := range rows {
			rowSum[i] += math.Abs(w.cols[j][i] - prev[j][k])
		}
	}
	m := 0.0
	for _, s := range rowSum {
		m = math.Max(m, s)
	}
	return m
}
