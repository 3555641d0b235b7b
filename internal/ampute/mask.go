package ampute

import (
	"fmt"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"
)

// Mask records which observed entries Apply amputed: one bit per (row,
// amputed feature).
type Mask struct {
	// Rows is the row count of the Z given to Apply.
	Rows int
	// Features is the number of features (len(groups) at Fit).
	Features int
	slot     []int // per feature: index among the amputed features, or −1
	k        int   // number of amputed features
	bits     []uint64
	counts   []int // per feature
}

// Amputed reports whether the entry of feature f (an index into the
// groups given to Fit, not into Spec.Amputed) in row i was amputed. It is
// false for a feature that is not amputed and for a natural NA. It panics
// when i or f is out of range, as an index expression would.
func (m *Mask) Amputed(i, f int) bool {
	if i < 0 || i >= m.Rows || f < 0 || f >= m.Features {
		panic(fmt.Sprintf("ampute: Mask.Amputed(%d, %d) out of range %d × %d", i, f, m.Rows, m.Features))
	}
	s := m.slot[f]
	if s < 0 {
		return false
	}
	b := i*m.k + s
	return m.bits[b>>6]>>(b&63)&1 == 1
}

// Count returns the number of rows where feature f was amputed (0 for a
// feature that is not amputed). It panics when f is out of range.
func (m *Mask) Count(f int) int {
	return m.counts[f]
}

// set marks (row i, amputed slot s, feature f) as amputed.
func (m *Mask) set(i, s, f int) {
	b := i*m.k + s
	m.bits[b>>6] |= 1 << (b & 63)
	m.counts[f]++
}

// Apply draws the amputation mask of Z (any rows, NaN for natural NA) with
// the fitted parameters: the training moments, weights, intercepts and
// thresholds, whatever the rows of Z. For mcar, mar, mnar and
// self-masking it draws exactly one rng.Float64() per (row, amputed
// feature) in row-major order (features in Spec.Amputed order), whether or
// not the entry is observed, and amputes an observed entry when that
// uniform is below its probability; none and censoring draw nothing (rng
// may then be nil). So the mask is a pure function of (model, Z, rng
// state). Natural NA are never amputed nor counted. Errors wrap ErrData
// (nil Z, a column count other than the training Z's, an infinite value)
// or ErrInvalid (a nil rng that is needed).
func (m *Model) Apply(Z *mat.Dense, rng *rand.Rand) (*Mask, error) {
	if Z == nil {
		return nil, fmt.Errorf("%w: Z is nil", ErrData)
	}
	n, q := Z.Dims()
	if n > 0 && q != m.q {
		return nil, fmt.Errorf("%w: Z has %d columns, the training Z had %d", ErrData, q, m.q)
	}
	random := m.spec.Mechanism != None && m.spec.Mechanism != Censoring
	if random && rng == nil {
		return nil, fmt.Errorf("%w: mechanism: %s needs an rng to apply, got nil", ErrInvalid, m.spec.Mechanism)
	}
	if n > 0 {
		if err := checkFinite(Z); err != nil {
			return nil, err
		}
	}
	mask := &Mask{Rows: n, Features: len(m.groups), slot: m.slot, k: len(m.feats),
		counts: make([]int, len(m.groups))}
	mask.bits = make([]uint64, (n*mask.k+63)/64)
	zt := make([]float64, m.q)
	for i := 0; i < n; i++ {
		m.applyRow(Z.RawRowView(i), zt, i, mask, rng)
	}
	return mask, nil
}

// applyRow amputes row i (values z) into mask; zt is scratch of length q.
func (m *Model) applyRow(z, zt []float64, i int, mask *Mask, rng *rand.Rand) {
	logistic := m.spec.Mechanism == MAR || m.spec.Mechanism == MNAR || m.spec.Mechanism == SelfMasking
	if logistic {
		m.standardiseRow(z, zt)
	}
	for s := range m.feats {
		fm := &m.feats[s]
		var u float64
		if m.spec.Mechanism != Censoring {
			u = rng.Float64()
		}
		if !observed(z, m.groups[fm.f]) {
			continue
		}
		var hit bool
		switch m.spec.Mechanism {
		case MCAR:
			hit = u < m.spec.Rate
		case Censoring:
			hit = z[m.groups[fm.f][0]] > fm.threshold
		default:
			t := fm.a
			for j, c := range fm.cols {
				t += fm.w[j] * zt[c]
			}
			hit = u < sigmoid(t)
		}
		if hit {
			mask.set(i, s, fm.f)
		}
	}
}
