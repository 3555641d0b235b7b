package ampute

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"gonum.org/v1/gonum/mat"
)

// SelfMaskingSlope is λ of the self-masking model: the logit of the
// probability that an entry goes missing is a_f + λ·s_f, with s_f the
// feature's own value standardised to unit variance on the training rows.
// With λ = 2 an entry one standard deviation above the mean has e² ≈ 7.4
// times the odds of an average one: a clear but not degenerate
// dependence (sim.MARSlope uses the same value for the simulation's MAR).
const SelfMaskingSlope = 2.0

// Model is an amputation model fitted on training rows. It is immutable
// after Fit and safe for concurrent use by Apply.
type Model struct {
	spec   Spec
	groups [][]int
	q      int       // column count of Z
	mean   []float64 // per column: training mean of the observed values
	invSD  []float64 // per column: 1 / training sd (1 when sd is 0 or undefined)
	slot   []int     // per feature: its index in spec.Amputed, or −1
	feats  []featureModel
}

// featureModel is the fitted model of one amputed feature.
type featureModel struct {
	f         int
	cols      []int     // Z columns of the logistic score
	w         []float64 // weights on the standardised columns (λ included)
	a         float64   // calibrated intercept
	threshold float64   // censoring: amputed when the value is > threshold
}

// Fit fits the amputation model of s on the training matrix Z (n × q, NaN
// for natural NA): feature f of the table is made of the Z columns
// groups[f] (one column for a numeric feature, several 0/1 indicator
// columns for a categorical one). An entry of feature f is observed in a
// row when none of its columns is NaN there. rng (math/rand/v2) draws the
// random weights of MAR, MNAR and categorical self-masking; it may be nil
// for the other mechanisms. Nothing but Z's rows enters the fit, so a
// caller that passes only a fold's training rows keeps the test rows out.
//
// Let z̃ be Z standardised column-wise by the mean and the sample sd
// (n−1 denominator) of the column's observed training values (sd 0, or
// fewer than two observed values → sd 1; no observed value → mean 0),
// with NaN replaced by 0 (the training mean) where it serves as a
// predictor. For each amputed feature f, "the training rows" below are
// those where f is observed, and "scaled to unit variance" means divided
// by the sample sd of the score over those rows (left as drawn when that
// sd is 0, as with a constant predictor: the probability is then the
// constant Rate). The mechanisms:
//
//   - mcar: each observed entry is amputed with probability Rate.
//   - mar: P(M_f = 1 | x) = σ(a_f + w_fᵀ z̃_obs), z̃_obs the columns of
//     every feature that is never amputed; w_f has one N(0, 1) draw per
//     such column, then is scaled to unit variance. This is the logistic
//     masking of Muzellec et al. (2020, "Missing data imputation using
//     optimal transport", MAR_mask) used by Le Morvan et al. (2020,
//     NeuMiss), and mice::ampute's standardised weighted sum scores
//     (Schouten, Lugtig & Vink 2018) with random weights.
//   - mnar: σ(a_f + S_f) with S_f = (s_f + o_f) scaled to unit variance,
//     where s_f is the own score of self-masking below (unit variance)
//     and o_f = Σ g_j z̃_j over the columns of every other feature with
//     g_j ~ N(0, 1), scaled to unit variance. Random weights on every
//     column, as in Muzellec et al.'s MNAR_mask_logistic, would give the
//     own value a near-zero weight by chance (|N(0,1)| < 0.3 a quarter of
//     the time), silently turning that feature's MNAR into MAR; the own
//     value keeps here at least half of the score's standardised weight
//     (higher values more likely missing for a numeric feature).
//   - self-masking: σ(a_f + λ·s_f), λ = SelfMaskingSlope, where s_f is
//     the feature's standardised own value for a numeric feature, and for
//     a categorical one Σ h_j z̃_j over its indicator columns with
//     h_j ~ N(0, 1), scaled to unit variance (so categories with a larger
//     weight go missing more often). Self-masking logistic as in Le
//     Morvan et al. (2020) and Muzellec et al.'s MNAR_self_mask_logistic,
//     with a fixed positive slope.
//   - censoring: deterministic; an observed entry is amputed when its
//     value is strictly greater than the (1 − Rate) quantile of the
//     feature's observed training values, R's quantile type 7 (Muzellec
//     et al.'s MNAR_mask_quantiles without the MCAR part). Numeric
//     features only.
//
// Each intercept a_f is calibrated (safeguarded Newton steps in a
// bisection bracket, to machine precision) so that the mean of the
// probability over the training rows equals Rate. Weights are drawn
// feature by feature in Spec.Amputed order, columns in increasing feature
// then group order (for mnar: own indicator columns first, then the
// others).
//
// Errors wrap ErrInvalid (s fails Validate for len(groups) features, a
// categorical feature under censoring, a nil rng that is needed) or
// ErrData (nil or empty Z, a group empty, out of range or sharing a
// column, an infinite value, an amputed feature with no observed training
// value under mar, mnar, self-masking or censoring).
func Fit(Z *mat.Dense, groups [][]int, s Spec, rng *rand.Rand) (*Model, error) {
	q, err := checkGroups(Z, groups)
	if err != nil {
		return nil, err
	}
	if err := s.Validate(len(groups)); err != nil {
		return nil, err
	}
	if err := checkFitSpec(groups, s, rng); err != nil {
		return nil, err
	}
	if err := checkFinite(Z); err != nil {
		return nil, err
	}
	m := &Model{spec: s, groups: groups, q: q}
	m.spec.Amputed = slices.Clone(s.Amputed)
	m.groups = make([][]int, len(groups))
	for f, g := range groups {
		m.groups[f] = slices.Clone(g)
	}
	m.slot = make([]int, len(groups))
	for f := range m.slot {
		m.slot[f] = slices.Index(m.spec.Amputed, f)
	}
	if s.Mechanism == None {
		return m, nil
	}
	m.mean, m.invSD = standardisation(Z)
	zt := m.standardised(Z)
	for _, f := range m.spec.Amputed {
		fm, err := m.fitFeature(Z, zt, f, rng)
		if err != nil {
			return nil, err
		}
		m.feats = append(m.feats, fm)
	}
	return m, nil
}

// checkFitSpec checks what Validate cannot: censoring of a categorical
// feature and a nil rng where weights are drawn.
func checkFitSpec(groups [][]int, s Spec, rng *rand.Rand) error {
	needsRNG := s.Mechanism == MAR || s.Mechanism == MNAR
	for _, f := range s.Amputed {
		categorical := len(groups[f]) > 1
		if s.Mechanism == Censoring && categorical {
			return fmt.Errorf("%w: columns: feature %d is categorical (%d indicator columns); censoring needs a numeric feature", ErrInvalid, f, len(groups[f]))
		}
		needsRNG = needsRNG || s.Mechanism == SelfMasking && categorical
	}
	if needsRNG && rng == nil {
		return fmt.Errorf("%w: mechanism: %s needs an rng for its weights, got nil", ErrInvalid, s.Mechanism)
	}
	return nil
}

// fitFeature fits the model of amputed feature f.
func (m *Model) fitFeature(Z *mat.Dense, zt []float64, f int, rng *rand.Rand) (featureModel, error) {
	fm := featureModel{f: f}
	if m.spec.Mechanism == MCAR {
		return fm, nil
	}
	rows := observedRows(Z, m.groups[f])
	if len(rows) == 0 {
		return fm, fmt.Errorf("%w: feature %d has no observed training value; %s needs some", ErrData, f, m.spec.Mechanism)
	}
	switch m.spec.Mechanism {
	case Censoring:
		fm.threshold = censorThreshold(Z, rows, m.groups[f][0], m.spec.Rate)
		return fm, nil
	case MAR:
		fm.cols = m.neverAmputedColumns()
		fm.w = normals(rng, len(fm.cols))
		scaleToUnit(fm.w, m.scores(zt, rows, fm.cols, fm.w))
	case MNAR:
		fm.cols, fm.w = m.mnarWeights(zt, rows, f, rng)
	case SelfMasking:
		fm.cols, fm.w = m.ownWeights(zt, rows, f, rng)
		for j := range fm.w {
			fm.w[j] *= SelfMaskingSlope
		}
	}
	fm.a = calibrate(m.scores(zt, rows, fm.cols, fm.w), m.spec.Rate)
	return fm, nil
}

// ownWeights returns the columns and weights of the unit-variance own
// score s_f: weight 1 on a numeric feature's column, N(0, 1) draws on a
// categorical feature's indicators, then scaled to unit variance.
func (m *Model) ownWeights(zt []float64, rows []int, f int, rng *rand.Rand) ([]int, []float64) {
	cols := slices.Clone(m.groups[f])
	w := []float64{1}
	if len(cols) > 1 {
		w = normals(rng, len(cols))
	}
	scaleToUnit(w, m.scores(zt, rows, cols, w))
	return cols, w
}

// mnarWeights returns the columns and weights of the MNAR score
// (s_f + o_f) scaled to unit variance (see Fit).
func (m *Model) mnarWeights(zt []float64, rows []int, f int, rng *rand.Rand) ([]int, []float64) {
	cols, w := m.ownWeights(zt, rows, f, rng)
	var others []int
	for g, group := range m.groups {
		if g != f {
			others = append(others, group...)
		}
	}
	ow := normals(rng, len(others))
	scaleToUnit(ow, m.scores(zt, rows, others, ow))
	cols = append(cols, others...)
	w = append(w, ow...)
	scaleToUnit(w, m.scores(zt, rows, cols, w))
	return cols, w
}

// neverAmputedColumns returns the Z columns of every feature outside
// spec.Amputed, in feature then group order.
func (m *Model) neverAmputedColumns() []int {
	var cols []int
	for f, g := range m.groups {
		if m.slot[f] < 0 {
			cols = append(cols, g...)
		}
	}
	return cols
}

// scores returns Σ_j w_j z̃[i, cols_j] for each i in rows; zt is the
// row-major standardised training matrix with NaN replaced by 0.
func (m *Model) scores(zt []float64, rows, cols []int, w []float64) []float64 {
	out := make([]float64, len(rows))
	for k, i := range rows {
		row := zt[i*m.q : (i+1)*m.q]
		s := 0.0
		for j, c := range cols {
			s += w[j] * row[c]
		}
		out[k] = s
	}
	return out
}

// normals returns k standard normal draws from rng.
func normals(rng *rand.Rand, k int) []float64 {
	w := make([]float64, k)
	for j := range w {
		w[j] = rng.NormFloat64()
	}
	return w
}

// Spec returns the spec the model was fitted with (a copy).
func (m *Model) Spec() Spec {
	s := m.spec
	s.Amputed = slices.Clone(s.Amputed)
	return s
}

// Threshold returns the censoring threshold of feature f (values strictly
// above it are amputed) and true, or (NaN, false) when the model is not
// censoring or f is not amputed.
func (m *Model) Threshold(f int) (float64, bool) {
	if m.spec.Mechanism != Censoring || f < 0 || f >= len(m.slot) || m.slot[f] < 0 {
		return math.NaN(), false
	}
	return m.feats[m.slot[f]].threshold, true
}
