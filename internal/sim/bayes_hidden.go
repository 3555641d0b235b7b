package sim

import (
	"math"
	"sync"

	"gonum.org/v1/gonum/integrate/quad"
)

// The Bayes predictor of Model 4 integrates over the hidden variable H
// with a fixed composite Gauss–Legendre rule: hiddenCells equal cells on
// [−3, 0], hiddenNodes nodes per cell. The posterior of H given all ten
// features has a standard deviation of about 0.05/‖g′(h)‖ ≥ 4·10⁻⁴
// (‖g′(−3)‖ ≈ 123), i.e. at least 0.4 cell widths, which an 8-node rule
// per cell integrates accurately: the result agrees with rules with 5×
// and 10× more cells to ~1e-12 relative (the tests require 1e-8), also
// on rows whose posterior is narrowest, multimodal or the flat prior.
const (
	hiddenCells = 3000
	hiddenNodes = 8
	// hiddenCutoff skips cells whose edge log-posterior is this far below
	// the largest edge value: the log-posterior cannot rise by more than
	// ≈ 1 inside a cell (its curvature is at most ≈ ‖g′‖²/0.05²), so the
	// skipped mass is below e^{−(hiddenCutoff−1)} per cell.
	hiddenCutoff = 40.0
)

// hiddenTable caches g(h) at the rule's cell edges and nodes.
type hiddenTable struct {
	edgeG []float64 // (hiddenCells+1) × 10
	nodeW []float64 // hiddenCells·hiddenNodes weights (sum to 3)
	nodeG []float64 // hiddenCells·hiddenNodes × 10
}

var hiddenRule = sync.OnceValue(func() *hiddenTable {
	return newHiddenTable(hiddenCells, hiddenNodes)
})

// newHiddenTable builds the composite rule with the given cells and nodes.
func newHiddenTable(cells, nodes int) *hiddenTable {
	const nf = 10
	t := &hiddenTable{
		edgeG: make([]float64, (cells+1)*nf),
		nodeW: make([]float64, cells*nodes),
		nodeG: make([]float64, cells*nodes*nf),
	}
	width := (hiddenHi - hiddenLo) / float64(cells)
	for e := 0; e <= cells; e++ {
		hiddenFeatures(hiddenLo+float64(e)*width, t.edgeG[e*nf:(e+1)*nf])
	}
	xs := make([]float64, nodes)
	ws := make([]float64, nodes)
	for c := 0; c < cells; c++ {
		lo := hiddenLo + float64(c)*width
		quad.Legendre{}.FixedLocations(xs, ws, lo, lo+width)
		for q := range xs {
			i := c*nodes + q
			t.nodeW[i] = ws[q]
			hiddenFeatures(xs[q], t.nodeG[i*nf:(i+1)*nf])
		}
	}
	return t
}

// bayesHidden returns E[f(X) | x_o] for Model 4. We use the known law,
// unlike the paper, which approximated the Bayes rate by EM plus multiple
// imputation on 10⁶ rows: given H = h the features are independent
// N(g_j(h), 0.05²), so with a uniform prior the posterior density of H is
// ∝ Π_{j∈o} φ((x_j − g_j(h))/0.05) on [−3, 0], and
//
//	E[f | x_o] = ∫ E[f | h, x_o] p(h | x_o) dh,
//
// where E[f | h, x_o] is exact: the missing features are independent
// normals, E[sin(πX1X2) | h, x_o] comes from productCF and
// E[(X3−0.5)² | h] = (g3(h)−0.5)² + 0.05². The integral uses the composite
// rule of hiddenTable.
func (l *law) bayesHidden(x []float64) float64 {
	return hiddenPosteriorMean(hiddenRule(), hiddenCells, hiddenNodes, &l.coef, x, &l.scratch)
}

// hiddenPosteriorMean evaluates the integral of bayesHidden with table t.
// scratch is grown as needed and reused across calls.
func hiddenPosteriorMean(t *hiddenTable, cells, nodes int, coef *[4]float64, x []float64, scratch *[]float64) float64 {
	const nf = 10
	var obsIdx [nf]int
	no := 0
	for j := 0; j < nf; j++ {
		if !math.IsNaN(x[j]) {
			obsIdx[no] = j
			no++
		}
	}
	obs := obsIdx[:no]
	if cap(*scratch) < cells+1 {
		*scratch = make([]float64, cells+1)
	}
	logp := (*scratch)[:cells+1]
	best := math.Inf(-1)
	for e := range logp {
		logp[e] = hiddenLogLik(x, obs, t.edgeG[e*nf:(e+1)*nf])
		best = max(best, logp[e])
	}
	cut := best - hiddenCutoff
	row := newHiddenRow(x)
	var num, den float64
	for c := 0; c < cells; c++ {
		if logp[c] < cut && logp[c+1] < cut {
			continue
		}
		for i := c * nodes; i < (c+1)*nodes; i++ {
			g := t.nodeG[i*nf : (i+1)*nf]
			w := t.nodeW[i] * math.Exp(hiddenLogLik(x, obs, g)-best)
			num += w * row.mean(coef, g)
			den += w
		}
	}
	return num / den
}

// hiddenLogLik returns log Π_{j∈obs} φ((x_j − g_j)/0.05) up to a constant.
func hiddenLogLik(x []float64, obs []int, g []float64) float64 {
	ss := 0.0
	for _, j := range obs {
		d := x[j] - g[j]
		ss += d * d
	}
	return -ss / (2 * featureNoise * featureNoise)
}

// hiddenRow holds what E[f | H = h, x_o] needs from one row: which of the
// first five features are observed and their values. Given h the missing
// features are independent N(g_j(h), τ²), τ = 0.05, so (productCF with
// c12 = 0, specialised to real arithmetic):
//
//   - X1, X2 observed: E[sin(πX1X2)] = sin(πx1x2);
//   - one missing, say X2: sin(πx1g2)·exp(−π²x1²τ²/2);
//   - both missing: D^{−1/2}·exp(−π²τ²(g1²+g2²)/(2D))·sin(πg1g2/D), D = 1 + π²τ⁴.
type hiddenRow struct {
	x    []float64
	miss [5]bool
	sinC float64 // the constant factor of the sine term (see above)
	dInv float64 // 1/D
}

func newHiddenRow(x []float64) hiddenRow {
	const tau2 = featureNoise * featureNoise
	r := hiddenRow{x: x}
	for j := range r.miss {
		r.miss[j] = math.IsNaN(x[j])
	}
	switch {
	case !r.miss[0] && !r.miss[1]:
		r.sinC = math.Sin(math.Pi * x[0] * x[1])
	case !r.miss[0]:
		r.sinC = math.Exp(-math.Pi * math.Pi * x[0] * x[0] * tau2 / 2)
	case !r.miss[1]:
		r.sinC = math.Exp(-math.Pi * math.Pi * x[1] * x[1] * tau2 / 2)
	default:
		d := 1 + math.Pi*math.Pi*tau2*tau2
		r.sinC, r.dInv = 1/math.Sqrt(d), 1/d
	}
	return r
}

// mean returns E[f(X) | H = h, x_o] where g = g(h).
func (r *hiddenRow) mean(coef *[4]float64, g []float64) float64 {
	const tau2 = featureNoise * featureNoise
	x := r.x
	var sinE float64
	switch {
	case !r.miss[0] && !r.miss[1]:
		sinE = r.sinC
	case !r.miss[0]:
		sinE = r.sinC * math.Sin(math.Pi*x[0]*g[1])
	case !r.miss[1]:
		sinE = r.sinC * math.Sin(math.Pi*g[0]*x[1])
	default:
		q := math.Pi * math.Pi * tau2 * (g[0]*g[0] + g[1]*g[1]) * r.dInv / 2
		sinE = r.sinC * math.Exp(-q) * math.Sin(math.Pi*g[0]*g[1]*r.dInv)
	}
	m3, v3 := x[2], 0.0
	if r.miss[2] {
		m3, v3 = g[2], tau2
	}
	m4, m5 := x[3], x[4]
	if r.miss[3] {
		m4 = g[3]
	}
	if r.miss[4] {
		m5 = g[4]
	}
	return coef[0]*sinE + coef[1]*((m3-0.5)*(m3-0.5)+v3) + coef[2]*m4 + coef[3]*m5
}
