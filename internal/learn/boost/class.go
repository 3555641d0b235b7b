package boost

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"

	"github.com/misslab/misslab/internal/learn/learnerr"
)

// ClassModel is a fitted boosted classifier: one ensemble of trees per
// output group (one for two classes, the log-odds of class 1; one per
// class otherwise). It is immutable and safe for concurrent use.
type ClassModel struct {
	k      int
	groups []*Model // margins: base margin plus the group's trees
}

// FitClass trains gradient-boosted trees for classification on X
// (n × d, NaN = missing, sent by XGBoost's learnt default directions)
// and the class codes y (values 0, 1, …, k−1), k ≥ 2: XGBoost 1.7.4's
// binary:logistic for k = 2, multi:softprob with num_class = k for
// k > 2, with tree_method="exact" and nthread=1. The growth of each tree
// is Fit's (the same Params, defaults, split finding, default
// directions, pruning, leaf weights −G/(H+λ) times Eta), with the
// hessians of the loss in place of 1:
//
//   - binary: one tree per round on the margin (log-odds); gradient
//     p − y, hessian max(p(1−p), 1e-16), p the sigmoid of the margin
//     computed as XGBoost does (1/(1 + expf(−m) + 1e-16) in float32,
//     exponent capped at 88.7); BaseScore is read as a probability in
//     (0, 1), the initial margin being its log-odds (0 at the default
//     0.5, as in XGBoost 1.7, which does not estimate it from y);
//   - multiclass: k trees per round, class 0 first, all on the gradients
//     of the round's start: gradient p_c − [y = c], hessian
//     max(2p_c(1−p_c), 1e-16), p the softmax of the k margins (see
//     softmaxGrad); every class starts from the margin BaseScore (0.5 by
//     default, which cancels in the softmax);
//   - gradient pairs, margins and probabilities are float32 and the
//     exponentials are glibc's expf, as in XGBoost; hessian sums are
//     float64 in XGBoost's summation orders.
//
// This reproduces XGBoost's probabilities bit for bit on the fixtures of
// testdata/make_golden_class.py. Differences: labels must be integral
// class codes (XGBoost's binary:logistic accepts any label in [0, 1]);
// no sample weights or scale_pos_weight; Fit's other differences apply
// (ties among equal values are scanned in row order, where XGBoost's
// std::sort leaves their order unspecified, so that the last bits of a
// float64 gradient or hessian sum can differ in rare cases); a BaseScore
// other than 0.5 for k = 2 goes through a correctly rounded logarithm,
// which differs from glibc's logf by one ulp for about 2·10⁻⁴ of inputs.
//
// rng must not be nil; the fit uses no randomness. Fit checks ctx
// between rounds. Errors: k < 2, a label that is not one of the codes
// 0..k−1, and Fit's data errors wrap learnerr.ErrInput; invalid Params
// (and, for k = 2, a BaseScore outside (0, 1)) learnerr.ErrSetting. Cost:
// Fit's per tree, times k trees per round for k > 2, plus O(n·k) expf
// per round.
func FitClass(ctx context.Context, X *mat.Dense, y []float64, k int, p Params, rng *rand.Rand) (*ClassModel, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	if rng == nil {
		return nil, fmt.Errorf("boost: nil random source: %w", learnerr.ErrInput)
	}
	if k < 2 {
		return nil, fmt.Errorf("boost: %d classes, want at least 2: %w", k, learnerr.ErrInput)
	}
	base, err := baseMargin(p.BaseScore, k)
	if err != nil {
		return nil, err
	}
	ds, err := newDataset(X, y)
	if err != nil {
		return nil, err
	}
	for i, v := range y {
		if !(v >= 0 && v < float64(k)) || v != math.Trunc(v) {
			return nil, fmt.Errorf("boost: label y[%d] = %v, want a class code 0..%d: %w", i, y[i], k-1, learnerr.ErrInput)
		}
	}
	return fitClass(ctx, ds, k, base, p, fitOptions{})
}

// fitOptions are the test hooks of fitClass: keep, if not nil, receives
// every grown tree in XGBoost's order (round by round, class by class);
// exhaustive turns the screening of candidates off.
type fitOptions struct {
	keep       func(*tree)
	exhaustive bool
}

// fitClass is FitClass on validated data.
func fitClass(ctx context.Context, ds *dataset, k int, base float32, p Params, opt fitOptions) (*ClassModel, error) {
	m := newClassModel(ds.d, k, base)
	n, groups := ds.n, len(m.groups)
	margin := make([]float32, n*groups) // row-major: margin[i·groups + c]
	for i := range margin {
		margin[i] = base
	}
	grad, hess := make([]float32, n*groups), make([]float32, n*groups)
	g := newGrower(ds, p)
	g.weigh()
	g.sc.exhaustive = opt.exhaustive
	for round := range p.Rounds {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("boost: fit stopped at round %d: %w", round, err)
		}
		if groups == 1 {
			logisticGrad(margin, ds.y, grad, hess)
		} else {
			softmaxGrad(margin, ds.y, k, grad, hess)
		}
		for c, gm := range m.groups {
			copy(g.grad, grad[c*n:(c+1)*n])
			copy(g.hess, hess[c*n:(c+1)*n])
			t := g.grow()
			for i, id := range g.final {
				margin[i*groups+c] += t.resolve(id)
			}
			gm.add(&t)
			if opt.keep != nil {
				opt.keep(&t)
			}
		}
	}
	return m, nil
}

// newClassModel returns a classifier without trees for k classes on d
// features, every margin starting from base: one group of trees for two
// classes, k otherwise.
func newClassModel(d, k int, base float32) *ClassModel {
	groups := 1
	if k > 2 {
		groups = k
	}
	m := &ClassModel{k: k, groups: make([]*Model, groups)}
	for c := range m.groups {
		m.groups[c] = &Model{d: d, base: base}
	}
	return m
}

// PredictProba returns the n × k matrix of class probabilities of the
// rows of X (n × d, NaN = missing), as XGBoost 1.7.4's predict gives
// them, float32 values widened to float64: for k = 2 the columns are
// 1 − p and p, p = sigmoid of the margin, 1 − p computed in float32 as
// xgboost.XGBClassifier.predict_proba does; for k > 2 the softmax of the
// k margins (see softmax). A row's probabilities sum to 1 up to float32
// rounding. Margins are summed in float32 tree by tree in training
// order. Errors are Model.Predict's: a column count differing from
// training, ±Inf or values beyond float32 range wrap learnerr.ErrInput; a
// cancelled ctx returns its error before any work.
func (m *ClassModel) PredictProba(ctx context.Context, X *mat.Dense) (*mat.Dense, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	n, d, err := dims(X)
	if err != nil {
		return nil, err
	}
	if d != m.groups[0].d {
		return nil, fmt.Errorf("boost: X has %d columns, the model was trained on %d: %w", d, m.groups[0].d, learnerr.ErrInput)
	}
	x, err := features(X, n, d)
	if err != nil {
		return nil, err
	}
	out := mat.NewDense(n, m.k, nil)
	g := len(m.groups)
	sums := make([][]float32, g)
	for c := range sums {
		sums[c] = make([]float32, min(n, predictBlock))
	}
	row := make([]float32, g)
	for lo := 0; lo < n; lo += predictBlock {
		hi := min(lo+predictBlock, n)
		for c, gm := range m.groups {
			gm.predictBlock(x[lo*d:hi*d], sums[c][:hi-lo])
		}
		for i := range hi - lo {
			for c := range row {
				row[c] = sums[c][i]
			}
			m.setProba(out.RawRowView(lo+i), row)
		}
	}
	return out, nil
}

// setProba writes into dst the probabilities of the margins row.
func (m *ClassModel) setProba(dst []float64, row []float32) {
	if m.k == 2 {
		p := sigmoid(row[0])
		dst[0], dst[1] = float64(1-p), float64(p)
		return
	}
	softmax(row)
	for c, v := range row {
		dst[c] = float64(v)
	}
}

// Classes returns k, the number of classes the model was trained for.
func (m *ClassModel) Classes() int { return m.k }

// Trees returns the number of trees: one per round for two classes, k
// per round otherwise.
func (m *ClassModel) Trees() int {
	t := 0
	for _, g := range m.groups {
		t += g.Trees()
	}
	return t
}
